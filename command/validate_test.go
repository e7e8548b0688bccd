package command

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

func TestValidateCriteria(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.json", `[{"label": "a", "assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "r", "key": "k"}}}]`)
	typo := writeFile(t, dir, "typo.json", `{"data": [
	  {"assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "r", "key": "k"}}},
	  {"assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "r", "key": "k"}, "assertions": [{"path": "a", "expect": 1}]}},
	  {"assertion": {"assert": "no-such-kind"}},
	  {"label": "no assertion"}]}`)
	notList := writeFile(t, dir, "notlist.json", `{"criteria": []}`)

	stdout, stderr, code := runAssay(t, nil, "validate", good)
	if code != exitOK || !strings.Contains(stdout, "good.json: valid") || stderr != "" {
		t.Fatalf("good: code %d\n%s\n%s", code, stdout, stderr)
	}
	_, stderr, code = runAssay(t, nil, "validate", good, typo, notList)
	if code != exitUsage {
		t.Fatalf("code %d", code)
	}
	for _, want := range []string{
		`typo.json: /data/1/assertion/assertions/0/expect: unknown key "expect" (did you mean "expected"?) (portal-state-match)`,
		`typo.json: /data/1/assertion/assertions/0: missing required key "expected" (portal-state-match)`,
		`typo.json: /data/2/assertion/assert: unknown kind "no-such-kind"`,
		`typo.json: /data/3/assertion: missing: every criterion needs an assertion`,
		`notlist.json: not a file assay reads: `,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, _, code := runAssay(t, nil, "validate"); code != exitUsage {
		t.Errorf("no files: code %d", code)
	}
	if _, stderr, code := runAssay(t, nil, "validate", dir+"/missing.json"); code != exitUsage || !strings.Contains(stderr, "missing.json") {
		t.Errorf("missing file: code %d %s", code, stderr)
	}
}

func TestSchema(t *testing.T) {
	stdout, _, code := runAssay(t, nil, "schema", "portal-state-match")
	if code != exitOK || !strings.Contains(stdout, `"const": "portal-state-match"`) {
		t.Fatalf("code %d\n%s", code, stdout)
	}
	stdout, _, code = runAssay(t, nil, "schema", "criterion")
	if code != exitOK || !strings.Contains(stdout, `"assertion"`) {
		t.Fatalf("criterion: code %d\n%s", code, stdout)
	}
	stdout, _, code = runAssay(t, nil, "schema")
	var all map[string]json.RawMessage
	if code != exitOK || json.Unmarshal([]byte(stdout), &all) != nil {
		t.Fatalf("all: code %d\n%s", code, stdout)
	}
	for _, k := range []string{"portal-state-match", "criterion"} {
		if _, ok := all[k]; !ok {
			t.Errorf("the schema map lacks %q", k)
		}
	}
	if _, stderr, code := runAssay(t, nil, "schema", "nope"); code != exitUsage || !strings.Contains(stderr, `unknown kind "nope"`) {
		t.Errorf("unknown: code %d %s", code, stderr)
	}
	if _, _, code := runAssay(t, nil, "schema", "a", "b"); code != exitUsage {
		t.Errorf("two args: code %d", code)
	}
}

// The criteria-file schema completes and checks criteria in editors: it
// accepts the example's criteria and rejects a typo, in both drafts.
func TestSchemaCriteriaFile(t *testing.T) {
	example, err := os.ReadFile("../examples/priorauth/criteria.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, draft := range []string{"2020-12", "07"} {
		stdout, stderr, code := runAssay(t, nil, "schema", "criteria", "--draft", draft)
		if code != exitOK {
			t.Fatalf("draft %s: code %d %s", draft, code, stderr)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("criteria.json", strings.NewReader(stdout)); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("criteria.json")
		if err != nil {
			t.Fatalf("draft %s does not compile: %v", draft, err)
		}
		var doc any
		if err := json.Unmarshal(example, &doc); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(doc); err != nil {
			t.Errorf("draft %s rejects the example: %v", draft, err)
		}
		// The schema branches on "assert": a typo is one error at its
		// key, whatever the kind, not a failed choice among sixteen.
		for _, tc := range []struct{ doc, at string }{
			{`[{"label": "x", "assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "r", "key": "k"}, "assertions": [{"path": "a", "expected": 1, "expect": 1}]}}]`, "/0/assertion/assertions/0"},
			{`{"data": [{"label": "x", "assertion": {"assert": "hl7-structural", "fields": [{"path": 5, "expected": "A"}]}}]}`, "/data/0/assertion/fields/0/path"},
			{`[{"label": "x", "assertion": {"assert": "hl7-structure"}}]`, "/0/assertion/assert"},
			{`[{"label": "x", "assertion": {"assert": "exit_code", "exit_code": "zero"}}]`, "/0/assertion/exit_code"},
		} {
			var doc any
			_ = json.Unmarshal([]byte(tc.doc), &doc)
			err := s.Validate(doc)
			var ve *jsonschema.ValidationError
			if !errors.As(err, &ve) {
				t.Errorf("draft %s accepts %s", draft, tc.doc)
				continue
			}
			leaves := leafErrors(ve)
			if len(leaves) != 1 || leaves[0].InstanceLocation != tc.at {
				var at []string
				for _, l := range leaves {
					at = append(at, l.InstanceLocation+": "+l.Message)
				}
				t.Errorf("draft %s: %s: %d errors %q, want one at %s", draft, tc.doc, len(leaves), at, tc.at)
			}
		}
		if draft == "07" && (!strings.Contains(stdout, "draft-07") || strings.Contains(stdout, "$defs")) {
			t.Errorf("draft 07 output still speaks 2020-12")
		}
	}
}

// validate reads its files as eval does (issue 25, item 3): a FIFO is a
// problem reported at once, not a hang; a file over the cap is refused
// without reading it whole.
func TestValidateReadsBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "criteria.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan struct{})
	var stderr string
	var code int
	go func() {
		defer close(done)
		_, stderr, code = runAssay(t, nil, "validate", fifo)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("validate hangs on a FIFO")
	}
	if code != exitUsage || !strings.Contains(stderr, "not a regular file") {
		t.Errorf("FIFO: code %d, %s", code, stderr)
	}
	big := writeFile(t, dir, "big.json", "["+strings.Repeat(" ", 2000)+"]")
	_, stderr, code = runAssay(t, nil, "validate", "--max-file-size", "1000", big)
	if code != exitUsage || !strings.Contains(stderr, "1000") {
		t.Errorf("over the cap: code %d, %s", code, stderr)
	}
	if _, stderr, code = runAssay(t, nil, "validate", "--max-file-size", "3000", big); code != exitOK {
		t.Errorf("under the cap: code %d, %s", code, stderr)
	}
}

// leafErrors lists the errors of a validation that have no causes.
func leafErrors(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leafErrors(c)...)
	}
	return out
}

// validate finds every real problem at once, located, in words a person
// uses (issue 28, item 6), in JSON and in YAML criteria files.
func TestValidateFindsRealProblems(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "criteria.json", `[
 {"id": "a", "label": "x", "assertion": {"assert": "hl7-structural", "fields": [{"path": "PID..3", "expected": "A"}], "extra": 1}},
 {"id": "a", "label": "y", "assertion": {"assert": "x12-response", "transaction": "271", "fields": [{"path": "2100C/NM1[IL09", "expected": "A"}]}},
 {"label": "z", "assertion": {"assert": "fhir-resource-state", "resource_type": "Patient", "fields": [{"path": "name..family", "expected": "A"}]}},
 {"label": "w", "assertion": {"assert": "ran", "ran": "git (commit"}},
 {"label": "v", "assertion": {"assert": "sftp-file-present", "path": "a", "path_pattern": "b"}},
 {"label": "t", "assertion": {"assert": "hl7-structure"}},
 {"label": "s", "assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "r", "key": "k"}, "assertions": [{"path": "a", "expected": 1, "expect": 1}]}}
]`)
	_, stderr, code := runAssay(t, nil, "validate", file)
	if code != exitUsage {
		t.Fatalf("code %d", code)
	}
	for _, want := range []string{
		`criteria.json: /0/assertion/extra: unknown key "extra" (hl7-structural)`,
		`criteria.json: /0/assertion/fields/0/path: hl7 path "PID..3"`, // hidden before behind the unknown key
		`criteria.json: /1/assertion/fields/0/path: x12 path "2100C/NM1[IL09": 1:10: the qualifier has no closing ]`,
		`criteria.json: /1/id: duplicate criterion id "a" (first used at /0/id)`,
		`criteria.json: /2/assertion/fields/0/path: path "name..family" has an empty segment`,
		`criteria.json: warning: /3/assertion/ran: "git (commit" is not a regular expression`,
		`criteria.json: /4/assertion: give exactly one of "path", "path_pattern", not several (sftp-file-present)`,
		`criteria.json: /5/assertion/assert: unknown kind "hl7-structure" (did you mean "hl7-structural"?)` + "\n",
		`criteria.json: /6/assertion/assertions/0/expect: unknown key "expect" (did you mean "expected"?)`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, bad := range []string{"indexes 0 and 1", "<nil>"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("stderr speaks the schema library's words (%q):\n%s", bad, stderr)
		}
	}
	// A pattern that is not a regular expression alone is a warning.
	warnOnly := writeFile(t, dir, "warn.json", `[{"label": "w", "assertion": {"assert": "run_count", "run_count": {"pattern": "a[", "min": 1}}}]`)
	if _, stderr, code := runAssay(t, nil, "validate", warnOnly); code != exitOK || !strings.Contains(stderr, "warning: /0/assertion/run_count/pattern") {
		t.Errorf("warning only: code %d, %s", code, stderr)
	}
}

// Criteria files may be YAML (what the README's yaml-language-server line
// suggests): validate, eval and criteria create read them, with line and
// column in every problem.
func TestYAMLCriteria(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "criteria.yaml", `# yaml-language-server: $schema=./criteria.schema.json
- id: paid
  label: the claim is paid
  weight: 2
  assertion:
    assert: portal-state-match
    correlate_by: {resource: claims, key: id, value: C-1}
    assertions:
      - {path: status, expected: paid}
`)
	bad := writeFile(t, dir, "bad.yaml", `- label: typo
  wieght: 2
  assertion:
    assert: portal-state-match
    correlate_by: {resource: claims, key: id}
    assertions:
      - path: status
        expect: paid
`)
	sandbox := filepath.Join(dir, "sandbox")
	writeFile(t, sandbox, "portal/state.json", portalState)
	if stdout, stderr, code := runAssay(t, nil, "validate", good); code != exitOK || !strings.Contains(stdout, "criteria.yaml: valid") {
		t.Errorf("validate good: code %d %s %s", code, stdout, stderr)
	}
	_, stderr, code := runAssay(t, nil, "validate", bad)
	for _, want := range []string{
		"bad.yaml:2:3: /0/wieght: unknown criterion key",
		`bad.yaml:8:9: /0/assertion/assertions/0/expect: unknown key "expect" (did you mean "expected"?)`,
	} {
		if code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("validate bad: code %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
	if stdout, stderr, code := runAssay(t, nil, "eval", "--criteria", good, "--sandbox", sandbox); code != exitOK || !strings.Contains(stdout, "PASS  1.000  the claim is paid  [paid]") {
		t.Errorf("eval: code %d\n%s%s", code, stdout, stderr)
	}
	if _, stderr, code := runAssay(t, nil, "eval", "--criteria", bad, "--sandbox", sandbox); code != exitUsage || !strings.Contains(stderr, "bad.yaml:2:3: /0/wieght: unknown criterion key") {
		t.Errorf("eval bad: code %d %s", code, stderr)
	}
	indent := writeFile(t, dir, "indent.yaml", "- label: a\n  assertion:\n    assert: exit_code\n     exit_code: 0\n")
	if _, stderr, code := runAssay(t, nil, "validate", indent); code != exitUsage || !strings.Contains(stderr, "indent.yaml:4:") {
		t.Errorf("an indentation error: code %d %s", code, stderr)
	}
}

// validate classifies by content (rule 13): a payer policy and a phone
// line are checked by their own parsers.
func TestValidatePolicyAndPhoneLine(t *testing.T) {
	dir := t.TempDir()
	policy := writeFile(t, dir, "policy.json", `{"payer": {"name": "A", "id": "A1"}, "members": [{"member_id": "W1", "plan": "gold", "extra": 1}], "plans": {}}`)
	_, stderr, code := runAssay(t, nil, "validate", policy)
	if code != exitUsage || !strings.Contains(stderr, "policy.json") || !strings.Contains(stderr, "extra") {
		t.Errorf("policy: code %d %s", code, stderr)
	}
	line := writeFile(t, dir, "ivr.json", `{"number": "+1", "start": "welcome", "nodes": {"welcome": {"say": "hi", "next": "nowhere"}}}`)
	_, stderr, code = runAssay(t, nil, "validate", line)
	if code != exitUsage || !strings.Contains(stderr, "ivr.json") || !strings.Contains(stderr, "nowhere") {
		t.Errorf("phone line: code %d %s", code, stderr)
	}
}
