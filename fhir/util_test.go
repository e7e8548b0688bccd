package fhir

import "github.com/tidwall/gjson"

func parseJSON(s string) gjson.Result { return gjson.Parse(s) }
