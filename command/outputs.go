package command

import (
	"encoding/json"

	"github.com/assaykit/assay/assert"
)

// The schemas of what the command writes, for programs in other languages
// (assay schema result|benchmark|check|trace|records|events). They are
// tested against real outputs (outputs_test.go).

const fieldResultSchema = `{
  "type": "object",
  "description": "one field assertion's outcome",
  "required": ["expected", "actual", "passed"],
  "properties": {
    "path": {"type": "string"}, "key": {"type": "string"},
    "expected": {"type": ["string", "number", "boolean", "null"]},
    "actual": {"description": "the value found: null when absent, a list when a wildcard selected several"},
    "passed": {"type": "boolean"},
    "reason": {"type": "string"}
  }
}`

const phraseResultSchema = `{
  "type": "object",
  "required": ["phrase", "expected", "found", "passed"],
  "properties": {
    "phrase": {"type": "string"}, "expected": {"enum": ["present", "absent"]}, "found": {"type": "boolean"},
    "turn": {"type": ["integer", "null"]}, "quote": {"type": ["string", "null"]}, "method": {"type": ["string", "null"]},
    "passed": {"type": "boolean"}
  }
}`

// evidenceSchema is the if/then that describes kind's evidence.
func evidenceSchema(kind string, keys []string) map[string]any {
	props := map[string]any{}
	for _, k := range keys {
		switch k {
		case "field_results", "assertion_results":
			props[k] = map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/field_result"}}
		case "phrase_results":
			props[k] = map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/phrase_result"}}
		case "candidates", "commands":
			props[k] = map[string]any{"type": "integer", "minimum": 0}
		case "matched_paths":
			props[k] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		default:
			props[k] = map[string]any{}
		}
	}
	return map[string]any{
		"if": map[string]any{"required": []string{"kind", "evidence"},
			"properties": map[string]any{"kind": map[string]any{"const": kind}, "evidence": map[string]any{"type": "object"}}},
		"then": map[string]any{"properties": map[string]any{"evidence": map[string]any{
			"type": "object", "required": keys, "properties": props}}},
	}
}

const criterionResultSchema = `{
  "type": "object",
  "required": ["label", "criterion_id", "status", "passed", "score", "details", "evidence", "started_at", "completed_at", "kind", "axis", "weight"],
  "additionalProperties": false,
  "properties": {
    "label": {"type": "string"},
    "criterion_id": {"type": "string", "description": "the criterion's id, or #N, its 0-based position in the criteria file"},
    "status": {"enum": ["passed", "failed", "error"], "description": "error: the check could not run because of its evidence"},
    "passed": {"type": "boolean"},
    "score": {"type": "number", "minimum": 0, "maximum": 1},
    "details": {"type": "string"},
    "evidence": {"description": "the kind's evidence (see allOf), null when the check did not run"},
    "started_at": {"type": "string", "format": "date-time"},
    "completed_at": {"type": "string", "format": "date-time"},
    "kind": {"type": ["string", "null"]},
    "axis": {"type": ["string", "null"]},
    "weight": {"type": "number", "minimum": 0}
  }
}`

const taskResultSchema = `{
  "type": "object",
  "required": ["score", "verdict", "axes", "criteria", "counts"],
  "properties": {
    "score": {"type": "number", "minimum": 0, "maximum": 1},
    "verdict": {"$ref": "#/$defs/verdict"},
    "axes": {"type": "object", "description": "per axis; criteria without an axis are under __default__",
      "additionalProperties": {"type": "object", "required": ["score", "weight"], "additionalProperties": false,
        "properties": {"score": {"type": "number", "minimum": 0, "maximum": 1}, "weight": {"type": "number", "minimum": 0}}}},
    "criteria": {"type": "array", "items": {"$ref": "#/$defs/criterion_result"}},
    "counts": {"type": "object", "required": ["passed", "failed", "error", "skipped"], "additionalProperties": false,
      "properties": {"passed": {"type": "integer", "minimum": 0}, "failed": {"type": "integer", "minimum": 0},
        "error": {"type": "integer", "minimum": 0},
        "skipped": {"type": "integer", "minimum": 0, "description": "criteria left out for another input entity"}}}
  }
}`

const benchmarkSchema = `{
  "type": "object",
  "required": ["score", "verdict", "axes", "verdicts", "criteria"],
  "additionalProperties": false,
  "properties": {
    "score": {"type": "number", "minimum": 0, "maximum": 1, "description": "the plain mean of the runs' scores"},
    "verdict": {"$ref": "#/$defs/verdict"},
    "axes": {"type": "object", "additionalProperties": {"type": "object", "required": ["score", "runs"], "additionalProperties": false,
      "properties": {"score": {"type": "number", "minimum": 0, "maximum": 1}, "runs": {"type": "integer", "minimum": 0}}}},
    "verdicts": {"type": "object", "required": ["pass", "partial", "fail"], "additionalProperties": false,
      "properties": {"pass": {"type": "integer", "minimum": 0}, "partial": {"type": "integer", "minimum": 0}, "fail": {"type": "integer", "minimum": 0}}},
    "criteria": {"type": "array", "items": {"type": "object",
      "required": ["criterion_id", "label", "kind", "axis", "runs", "pass_rate", "mean_score", "errors", "failed_runs"],
      "additionalProperties": false,
      "properties": {
        "criterion_id": {"type": "string"}, "label": {"type": "string"},
        "kind": {"type": ["string", "null"]}, "axis": {"type": ["string", "null"]},
        "runs": {"type": "integer", "minimum": 0},
        "pass_rate": {"type": "number", "minimum": 0, "maximum": 1},
        "mean_score": {"type": "number", "minimum": 0, "maximum": 1},
        "errors": {"type": "integer", "minimum": 0},
        "failed_runs": {"type": "array", "items": {"type": "string"}, "description": "the runs where it did not pass (failed or error)"}}}}
  }
}`

// outputSchemas are the schemas assay schema prints for outputs, by name.
// The result's evidence is described for every kind of r that says which
// members its evidence always holds (assert.Reports).
func outputSchemas(r *assert.Registry) map[string]json.RawMessage {
	verdict := map[string]any{"enum": []string{"pass", "partial", "fail"}}
	var allOf []any
	for _, k := range r.Kinds() {
		if keys := r.EvidenceKeys(k); len(keys) > 0 {
			allOf = append(allOf, evidenceSchema(k, keys))
		}
	}
	var criterion map[string]any
	mustUnmarshal(criterionResultSchema, &criterion)
	criterion["allOf"] = allOf
	defs := map[string]any{
		"verdict":          verdict,
		"criterion_result": criterion,
		"field_result":     rawValue(fieldResultSchema),
		"phrase_result":    rawValue(phraseResultSchema),
		"task_result":      rawValue(taskResultSchema),
		"benchmark":        rawValue(benchmarkSchema),
	}
	doc := func(title, description string, body map[string]any) json.RawMessage {
		body["$schema"] = "https://json-schema.org/draft/2020-12/schema"
		body["title"] = title
		body["description"] = description
		body["$defs"] = defs
		out, _ := json.Marshal(body)
		return out
	}
	run := map[string]any{"allOf": []any{
		map[string]any{"$ref": "#/$defs/task_result"},
		map[string]any{"type": "object", "required": []string{"run"}, "properties": map[string]any{
			"run": map[string]any{"type": "string"}, "shard": map[string]any{"type": "string", "pattern": "^[0-9]+/[0-9]+$"}}},
	}}
	defs["run"] = run
	out := map[string]json.RawMessage{
		"result": doc("assay eval result", "assay eval --format json: one task result (criteria against one rollout)",
			map[string]any{"$ref": "#/$defs/task_result"}),
		"benchmark": doc("assay eval benchmark",
			"assay eval --runs (or --merge) --format json: {runs, benchmark} (with --summary, {benchmark} alone); "+
				"also each line of --format jsonl: a run's result with its run name (and shard), or {benchmark} (and shard)",
			map[string]any{
				"type": "object",
				"if":   map[string]any{"required": []string{"benchmark"}},
				"then": map[string]any{"additionalProperties": false, "properties": map[string]any{
					"runs":      map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/run"}},
					"benchmark": map[string]any{"$ref": "#/$defs/benchmark"},
					"shard":     map[string]any{"type": "string", "pattern": "^[0-9]+/[0-9]+$"}}},
				"else": map[string]any{"$ref": "#/$defs/run"},
			}),
	}
	for name, s := range map[string]string{"check": checkSchema, "trace": traceSchema, "records": recordsSchema, "events": eventsSchema} {
		out[name] = json.RawMessage(s)
	}
	return out
}

func mustUnmarshal(s string, v any) {
	if err := json.Unmarshal([]byte(s), v); err != nil {
		panic("command: a built-in schema is not JSON: " + err.Error())
	}
}

func rawValue(s string) any {
	var v any
	mustUnmarshal(s, &v)
	return v
}

const checkSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "assay check and assay run result",
  "description": "assay check --format json and assay run --format json: each run of a cli-bench suite, the tasks without a run, pass rates (percent) per model, thresholds; assay run adds pass rates per help mode (by_help_mode) and usage per model. Every key is described: no other appears",
  "$defs": {
    "pass_rate": {"type": "object", "required": ["passed", "total", "rate"], "additionalProperties": false,
      "properties": {"passed": {"type": "integer", "minimum": 0}, "total": {"type": "integer", "minimum": 0},
        "rate": {"type": "number", "minimum": 0, "maximum": 100}}},
    "pass_rates": {"type": ["object", "null"], "description": "per model", "additionalProperties": {"$ref": "#/$defs/pass_rate"}}
  },
  "type": "object",
  "required": ["runs", "not_run", "pass_rates", "thresholds"],
  "additionalProperties": false,
  "properties": {
    "runs": {"type": "array", "items": {"type": "object", "required": ["task_id", "model", "passed", "assertions"], "additionalProperties": false,
      "properties": {
        "run": {"type": "string", "description": "the run's name: assay run --out's RUN (0001-TASK), or the trace's run"},
        "task_id": {"type": "string"}, "model": {"type": "string"}, "passed": {"type": "boolean"},
        "help_mode": {"type": "string", "description": "the help mode the run was made in (assay run), or the trace's"},
        "error": {"type": "string", "description": "how the run's attempt broke down; the run counts as failed"},
        "stopped": {"enum": ["timeout", "max_turns"], "description": "assay run: the run was cut short by --timeout or by max_turns, and is judged on what it did"},
        "skipped": {"const": true, "description": "every assertion was skipped (--no-verify): nothing was judged, and the run counts in no pass rate"},
        "assertions": {"type": "array", "items": {"type": "object", "required": ["kind", "status", "passed", "details"], "additionalProperties": false,
          "properties": {
            "kind": {"type": "string"}, "status": {"enum": ["passed", "failed", "error"]}, "passed": {"type": "boolean"},
            "details": {"type": "string"},
            "skipped": {"const": true, "description": "a verify not run (--no-verify); status error, counted neither as passed nor as failed"},
            "evidence": {"description": "the check's evidence, with --evidence"}}}}}}},
    "not_run": {"type": ["array", "null"], "items": {"type": "string"}},
    "pass_rates": {"$ref": "#/$defs/pass_rates"},
    "by_help_mode": {"type": "object", "description": "assay run: pass rates per help mode, then model",
      "additionalProperties": {"$ref": "#/$defs/pass_rates"}},
    "usage": {"type": "object", "description": "assay run: per model, the totals of its runs (a retried model call counts once)",
      "additionalProperties": {"type": "object", "required": ["turns", "prompt_tokens", "completion_tokens", "wall_ms"], "additionalProperties": false,
        "properties": {"turns": {"type": "integer", "minimum": 0, "description": "model calls"},
          "prompt_tokens": {"type": "integer", "minimum": 0}, "completion_tokens": {"type": "integer", "minimum": 0},
          "wall_ms": {"type": "integer", "minimum": 0, "description": "the runs' wall time, summed, in milliseconds"}}}},
    "thresholds": {"type": ["array", "null"], "items": {"type": "object", "required": ["model", "minimum", "rate", "violated", "behavior"], "additionalProperties": false,
      "properties": {"model": {"type": "string"}, "minimum": {"type": "number", "minimum": 0, "maximum": 100},
        "rate": {"type": "number", "minimum": 0, "maximum": 100}, "violated": {"type": "boolean"},
        "behavior": {"enum": ["error", "informational"]}}}}
  }
}`

const traceSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "cli-bench trace",
  "description": "what assay check --trace reads: {runs: [RUN...]} or one run object",
  "$defs": {
    "command": {"type": "object", "required": ["command"], "properties": {
      "command": {"type": "string", "description": "the full command string as given to the shell"},
      "exit_code": {"type": "integer"}, "stdout": {"type": "string"}, "stderr": {"type": "string"},
      "duration_ms": {"type": "number", "minimum": 0}}},
    "run": {"type": "object", "properties": {
      "task_id": {"type": "string", "description": "required by assay check; a sandbox's cli/trace.json may omit it"}, "model": {"type": "string"}, "run": {"type": "string"}, "help_mode": {"type": "string"},
      "workdir": {"type": "string", "description": "absolute, or relative to the trace file's folder"},
      "error": {"type": "string", "description": "set when the run's attempt broke down"},
      "commands": {"type": "array", "items": {"$ref": "#/$defs/command"}}}}
  },
  "type": "object",
  "if": {"required": ["runs"]},
  "then": {"properties": {"runs": {"type": "array", "items": {"$ref": "#/$defs/run"}}}},
  "else": {"$ref": "#/$defs/run"}
}`

const recordsSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "X12 records",
  "description": "x12/records.json of a sandbox snapshot: every exchange in order, raw X12 strings",
  "type": "array",
  "items": {"type": "object", "required": ["response"], "properties": {
    "transaction": {"type": "string", "description": "the response's ST01 (or TA1, 999); defaults to it when absent"},
    "request": {"type": "string"},
    "response": {"type": "string"},
    "metadata": {"type": "object", "description": "names x12-response's correlate_by may use",
      "properties": {"request_id": {"type": ["string", "null"]}, "patient_id": {"type": ["string", "null"]},
        "transport": {"enum": ["x12", "core", "eligibility"]}},
      "additionalProperties": {"type": ["string", "number", "boolean", "null"]}}}}
}`

const eventsSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "assay serve event",
  "description": "one line of a snapshot's events.jsonl, or one item of GET BASE/events",
  "type": "object",
  "required": ["seq", "time", "sim", "type"],
  "properties": {
    "seq": {"type": "integer", "minimum": 1},
    "time": {"type": "string", "format": "date-time"},
    "sim": {"enum": ["run", "fhir", "hl7", "x12", "portal", "sftp", "voice"]},
    "type": {"type": "string"}
  },
  "allOf": [
    {"if": {"properties": {"type": {"const": "run_phase"}}}, "then": {"required": ["phase"], "properties": {"phase": {"enum": ["created", "completed"]}}}},
    {"if": {"properties": {"type": {"const": "request_refused"}}}, "then": {"description": "a request on the run that the sandbox refused before any simulator saw it (another run's token, none, an endpoint the run lacks)", "required": ["method", "path", "status", "error"], "properties": {"method": {"type": "string"}, "path": {"type": "string"}, "status": {"type": "integer"}, "error": {"type": "string"}}}},
    {"if": {"properties": {"type": {"const": "fhir_request"}}}, "then": {"required": ["method", "path", "status"], "properties": {"method": {"type": "string"}, "path": {"type": "string"}, "query": {"type": ["string", "null"]}, "status": {"type": "integer"}}}},
    {"if": {"properties": {"type": {"const": "hl7_outbound"}}}, "then": {"required": ["ack_code", "transport"], "properties": {"control_id": {"type": ["string", "null"]}, "message_type": {"type": ["string", "null"]}, "ack_code": {"enum": ["AA", "AE", "AR", null], "description": "null for an input refused without an ACK: a request refused over HTTP before a message could be read, an MLLP frame cut off or bytes outside any frame"}, "transport": {"enum": ["http", "mllp"]}, "status": {"type": "integer", "description": "the HTTP status of a refused request"}, "error": {"type": "string"}}}},
    {"if": {"properties": {"type": {"const": "x12_exchange"}}}, "then": {"required": ["transaction", "transport"], "properties": {"transaction": {"type": "string"}, "transport": {"enum": ["x12", "core", "eligibility"]}, "request_id": {"type": ["string", "null"]}, "patient_id": {"type": ["string", "null"]}}}},
    {"if": {"properties": {"type": {"const": "portal_action"}}}, "then": {"required": ["action"], "properties": {"action": {"enum": ["login", "search", "submit", "attach", "view"]}, "auth_number": {"type": ["string", "null"]}, "channel": {"type": ["string", "null"]}}}},
    {"if": {"properties": {"type": {"const": "sftp_op"}}}, "then": {"required": ["op", "path", "transport"], "properties": {"op": {"enum": ["write", "mkdir", "rename", "remove", "read", "link", "login"], "description": "read, link and login only in an event with error: a refused request"}, "path": {"type": "string"}, "to": {"type": "string"}, "size": {"type": ["integer", "null"]}, "transport": {"enum": ["sftp", "http"]}, "status": {"type": "integer", "description": "the HTTP status of a refused request"}, "error": {"type": "string", "description": "present when the operation was refused"}}}},
    {"if": {"properties": {"type": {"const": "voice_turn"}}}, "then": {"required": ["call_id", "speaker", "text"], "properties": {"call_id": {"type": "string"}, "speaker": {"type": "string"}, "text": {"type": "string"}}}},
    {"if": {"properties": {"type": {"const": "clock"}}}, "then": {"required": ["now"], "properties": {"now": {"type": "string", "format": "date-time"}}}}
  ]
}`
