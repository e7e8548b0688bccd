package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/assaykit/assay/internal/jsonschema"
)

func Example() {
	s, err := jsonschema.Compile([]byte(`{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "type": "object",
	  "required": ["assert", "path"],
	  "additionalProperties": false,
	  "properties": {
	    "assert": {"const": "file-present"},
	    "level": {"enum": ["easy", "medium", "hard"]},
	    "retries": {"type": "integer", "minimum": 0}
	  }
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(`{"assert": "file-present", "level": "expert", "retries": 1.5, "expect": 1}`)))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range s.Validate(doc) {
		fmt.Printf("%q %s (%s)\n", v.InstanceLocation, v.Message, v.KeywordLocation)
	}
	// Output:
	// "" missing properties: 'path' (/required)
	// "" additionalProperties 'expect' not allowed (/additionalProperties)
	// "/level" value must be one of "easy", "medium", "hard" (/properties/level/enum)
	// "/retries" expected integer, but got number (/properties/retries/type)
}

func ExampleCompile_error() {
	_, err := jsonschema.Compile([]byte(`{"properties": {"a": {"$dynamicRef": "#node"}}}`))
	fmt.Println(err)
	// Output:
	// jsonschema: /properties/a/$dynamicRef: dynamic references are not supported
}
