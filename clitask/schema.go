package clitask

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/assaykit/assay/assert"
)

// SuiteSchema is the JSON Schema (draft 2020-12) of a cli-bench suite file
// (cli-bench.yaml) read as JSON: what `assay schema suite` prints. A task
// file included with file:// holds a list of "#/$defs/task". Each assert
// item is one of the ten kinds as a single-key map; its value schema is the
// one registered for that kind.
const SuiteSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "cli-bench suite",
  "type": "object",
  "required": ["cli", "tasks"],
  "additionalProperties": false,
  "properties": {
    "cli": {"type": "string", "minLength": 1, "description": "the command-line tool under test"},
    "version_command": {"type": "string"},
    "display_name": {"type": "string"},
    "category": {"type": "string"},
    "website_url": {"type": "string"},
    "github_url": {"type": "string"},
    "providers": {"type": "array", "items": {"type": "string", "pattern": "^[^/\\s]+/\\S+$", "description": "provider/model, such as openai/gpt-4o"}},
    "help_modes": {"type": "array", "items": {"enum": ["injected", "discoverable", "none"]}},
    "concurrency": {"type": "integer", "minimum": 1},
    "workdir": {"type": "string", "minLength": 1, "description": "the working directory of every task, relative to the suite file; by default each run gets a fresh one"},
    "upload": {"enum": ["auto", "always", "never"]},
    "repeat": {"type": "integer", "minimum": 1, "maximum": 100},
    "system_prompt": {"type": "string"},
    "redact_env": {"type": "array", "items": {"type": "string", "minLength": 1}},
    "redact_patterns": {"type": "array", "items": {"type": "string", "minLength": 1, "description": "a JavaScript regular expression"}},
    "env": {"$ref": "#/$defs/env"},
    "setup": {"$ref": "#/$defs/commands"},
    "scaffold": {"type": "string", "minLength": 1, "description": "a directory relative to the suite file, copied into each workdir before setup"},
    "thresholds": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "default": {"$ref": "#/$defs/percent"},
        "models": {"type": "object", "additionalProperties": {"$ref": "#/$defs/percent"}},
        "tolerance": {"$ref": "#/$defs/percent"},
        "behavior": {"enum": ["error", "informational"]}
      }
    },
    "tasks": {
      "type": "array",
      "minItems": 1,
      "items": {
        "if": {"type": "string"},
        "then": {"pattern": "^file://.", "description": "file://GLOB, naming task files relative to the suite file (each a list of tasks)"},
        "else": {"$ref": "#/$defs/task"}
      }
    }
  },
  "$defs": {
    "percent": {"type": "number", "minimum": 0, "maximum": 100},
    "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "{{workdir}} expands to the working directory"},
    "commands": {"type": "array", "items": {"type": "string"}},
    "task": {
      "type": "object",
      "required": ["id", "intent", "assert"],
      "additionalProperties": false,
      "properties": {
        "id": {"type": "string", "minLength": 1},
        "intent": {"type": "string", "minLength": 1},
        "assert": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/assertion"}},
        "setup": {"$ref": "#/$defs/commands"},
        "env": {"$ref": "#/$defs/env"},
        "max_turns": {"type": "integer", "minimum": 1, "maximum": 20},
        "difficulty": {"enum": ["easy", "medium", "hard"]},
        "category": {"type": "string"},
        "repeat": {"type": "integer", "minimum": 1, "maximum": 100}
      }
    },
    "assertion": {
      "type": "object",
      "minProperties": 1,
      "maxProperties": 1,
      "additionalProperties": false,
      "properties": {
        "exit_code": {"type": "integer", "description": "the last command exited with this code"},
        "output_contains": {"type": "string", "description": "the last command's stdout contains this text (case-sensitive)"},
        "output_equals": {"type": "string", "description": "the last command's stdout equals this text, both trimmed of leading and trailing whitespace"},
        "error_contains": {"type": "string", "description": "the last command's stderr contains this text (case-sensitive)"},
        "file_exists": {"type": "string", "minLength": 1, "description": "this path exists (file or directory); relative paths resolve against the working directory"},
        "file_contains": {"type": "object", "required": ["path", "text"], "additionalProperties": false, "properties": {"path": {"type": "string", "minLength": 1}, "text": {"type": "string"}}, "description": "the file exists and contains text (case-sensitive)"},
        "ran": {"type": "string", "minLength": 1, "description": "some command matches this JavaScript regular expression (unanchored; an invalid one is matched as plain text)"},
        "not_ran": {"type": "string", "minLength": 1, "description": "no command matches this JavaScript regular expression (unanchored; an invalid one is matched as plain text)"},
        "run_count": {"type": "object", "required": ["pattern"], "additionalProperties": false, "properties": {"pattern": {"type": "string", "minLength": 1}, "min": {"type": "integer", "minimum": 0}, "max": {"type": "integer", "minimum": 0}}, "description": "the number of commands matching pattern is within [min, max] (inclusive; at least one bound, min <= max)"},
        "verify": {"type": "object", "required": ["run"], "additionalProperties": false, "properties": {"run": {"type": "string", "minLength": 1}, "output_contains": {"type": "string"}, "output_equals": {"type": "string"}}, "description": "run, executed by sh -c in the working directory after the task, exits 0 and its stdout passes the optional checks"}
      }
    }
  }
}`

// loadingValidatorsOnce gives the validators loading uses: SuiteSchema with
// every assert item accepted as is (items are judged by the kind registry
// instead, whose messages name the kinds and the exact problem: "unknown
// kind", "two keys", "max is less than min"). They compile on first use,
// not at start-up: a program that never loads a suite never pays for them.
var loadingValidatorsOnce = sync.OnceValues(loadingValidators)

func suiteValidator() *assert.Validator {
	v, _ := loadingValidatorsOnce()
	return v
}

func taskListValidator() *assert.Validator {
	_, v := loadingValidatorsOnce()
	return v
}

func loadingValidators() (*assert.Validator, *assert.Validator) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(SuiteSchema), &doc); err != nil {
		panic(fmt.Sprintf("clitask: SuiteSchema: %v", err))
	}
	defs := doc["$defs"].(map[string]any)
	// Without an items schema the validator does not even walk the items.
	assertProp := defs["task"].(map[string]any)["properties"].(map[string]any)["assert"].(map[string]any)
	delete(assertProp, "items")
	delete(defs, "assertion")
	suite, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	list, err := json.Marshal(map[string]any{
		"$schema": doc["$schema"],
		"title":   "cli-bench task file",
		"type":    "array",
		"items":   map[string]any{"$ref": "#/$defs/task"},
		"$defs":   defs,
	})
	if err != nil {
		panic(err)
	}
	sv, err := assert.NewValidator("cli-bench-suite", suite, false)
	if err != nil {
		panic(fmt.Sprintf("clitask: SuiteSchema: %v", err))
	}
	lv, err := assert.NewValidator("cli-bench-task-file", list, false)
	if err != nil {
		panic(fmt.Sprintf("clitask: task file schema: %v", err))
	}
	return sv, lv
}
