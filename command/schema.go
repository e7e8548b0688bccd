package command

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/assaykit/assay/assert"
)

func init() {
	register("schema", subcommand{summary: "print the JSON Schema of a kind, of a file assay reads (suite, criterion, criteria, trace, records) or of what it writes (result, benchmark, check, events)",
		usage: "assay schema [KIND|suite|criterion|criteria|result|benchmark|check|trace|records|events] [--draft 2020-12|07]", run: runSchema})
}

// schemaBase is the base of the $id every schema assay prints carries, so
// that editors can cache and cross-reference them.
const schemaBase = "https://github.com/assaykit/assay/schema/"

// documentSchemas are the schemas of whole documents, beside the kinds'.
func (c *cli) documentSchemas() map[string]json.RawMessage {
	out := map[string]json.RawMessage{
		"criterion": json.RawMessage(assert.CriterionSchema),
		"criteria":  c.criteriaFileSchema(),
	}
	for name, s := range extraSchemas {
		out[name] = s()
	}
	for name, s := range outputSchemas(c.registry) {
		out[name] = s
	}
	return out
}

// extraSchemas holds document schemas that other files contribute (the
// cli-bench suite's).
var extraSchemas = map[string]func() json.RawMessage{}

// criteriaFileSchema is the schema of a criteria file (a list of criteria
// or a list response {"data": [...]}) whose assertion branches on its
// "assert" discriminator: "assert" must name a registered kind, and an
// if/then per kind applies that kind's schema only when "assert" names it.
// So an editor reports a typo as one error at its key (an unknown key, a
// value of the wrong type, a kind that does not exist), not as a failed
// choice among every kind at the root. if/then is draft-07's as well.
func (c *cli) criteriaFileSchema() json.RawMessage {
	var criterion map[string]any
	_ = json.Unmarshal([]byte(assert.CriterionSchema), &criterion)
	delete(criterion, "$schema")
	props := criterion["properties"].(map[string]any)
	kinds := c.registry.Kinds()
	var branches []any
	defs := map[string]any{"criterion": criterion}
	for _, k := range kinds {
		raw, _ := c.registry.Schema(k)
		var s map[string]any
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		delete(s, "$schema")
		s["$id"] = schemaBase + "kinds/" + k + ".json"
		defs["kind:"+k] = s
		branches = append(branches, map[string]any{
			"if":   map[string]any{"required": []any{"assert"}, "properties": map[string]any{"assert": map[string]any{"const": k}}},
			"then": map[string]any{"$ref": "#/$defs/kind:" + k},
		})
	}
	props["assertion"] = map[string]any{
		"description": "an assertion spec: {\"assert\": KIND, ...}",
		"type":        "object",
		"required":    []any{"assert"},
		"properties":  map[string]any{"assert": map[string]any{"description": "the kind", "enum": kinds}},
		"allOf":       branches,
	}
	list := map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/criterion"}}
	doc := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     schemaBase + "criteria.json",
		"title":   "assay criteria file",
		"type":    []any{"array", "object"},
		"if":      map[string]any{"type": "array"},
		"then":    list,
		"else": map[string]any{
			"type": "object", "required": []any{"data"},
			"properties": map[string]any{"data": list},
		},
		"$defs": defs,
	}
	out, _ := json.Marshal(doc)
	return out
}

// withID returns a schema with an $id (kept when it has one), added as its
// last member so that the schema otherwise reads as written.
func withID(name string, schema json.RawMessage) json.RawMessage {
	var s map[string]json.RawMessage
	if json.Unmarshal(schema, &s) != nil {
		return schema
	}
	if _, ok := s["$id"]; ok {
		return schema
	}
	body := bytes.TrimRight(bytes.TrimSpace(schema), "}")
	id, _ := json.Marshal(schemaBase + name + ".json")
	out := append(bytes.Clone(body), `, "$id": `...)
	out = append(out, id...)
	return append(out, '}')
}

// draft07 rewrites a draft 2020-12 schema for editors whose JSON Schema
// support stops at draft-07 (most YAML language servers): $defs becomes
// definitions, references follow, and $schema names draft-07. The kinds'
// schemas use nothing newer.
func draft07(schema json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return schema
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(t))
			for k, child := range t {
				switch k {
				case "$schema":
					out[k] = "http://json-schema.org/draft-07/schema#"
				case "$defs":
					out["definitions"] = walk(child)
				case "$ref":
					if s, ok := child.(string); ok {
						out[k] = strings.Replace(s, "#/$defs/", "#/definitions/", 1)
					}
				default:
					out[k] = walk(child)
				}
			}
			return out
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
			return t
		}
		return v
	}
	out, _ := json.Marshal(walk(v))
	return out
}

func runSchema(_ context.Context, c *cli, args []string) int {
	fs := newFlags("schema", c)
	draft := fs.String("draft", "2020-12", "JSON Schema `draft`: 2020-12, or 07 for editors that stop there")
	args, ok := parseFlags(fs, c, args)
	if !ok {
		return exitUsage
	}
	convert := func(s json.RawMessage) json.RawMessage { return s }
	switch *draft {
	case "2020-12":
	case "07", "7", "draft-07":
		convert = draft07
	default:
		return c.badInput("schema: --draft must be 2020-12 or 07, not %q", *draft)
	}
	docs := c.documentSchemas()
	switch len(args) {
	case 0:
		all := map[string]json.RawMessage{}
		for _, k := range c.registry.Kinds() {
			s, _ := c.registry.Schema(k)
			all[k] = convert(withID("kinds/"+k, s))
		}
		for k, s := range docs {
			all[k] = convert(withID(k, s))
		}
		if err := writeJSON(c.stdout, all); err != nil {
			return c.badInput("schema: %v", err)
		}
		return exitOK
	case 1:
		s, ok := docs[args[0]]
		name := args[0]
		if !ok {
			s, ok = c.registry.Schema(args[0])
			name = "kinds/" + args[0]
		}
		if !ok {
			names := append(c.registry.Kinds(), sortedKeys(docs)...)
			return c.badInput("schema: unknown kind %q (known: %s)", args[0], quoteList(names))
		}
		if err := writeJSON(c.stdout, convert(withID(name, s))); err != nil {
			return c.badInput("schema: %v", err)
		}
		return exitOK
	}
	return c.badInput("schema: at most one argument: a kind, suite, criterion or criteria")
}
