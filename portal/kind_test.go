package portal_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/portal"
)

func evaluate(t testing.TB, env *assert.Env, spec string) assert.CriterionResult {
	t.Helper()
	res, err := assert.Evaluate(context.Background(), []assert.Criterion{{Assertion: assert.Spec(spec)}}, env)
	if err != nil {
		t.Fatal(err)
	}
	return res.Criteria[0]
}

// fileEnv attaches the portal folder that holds path as its state.json.
func fileEnv(path string) *assert.Env {
	env := assert.NewEnv()
	data, err := os.ReadFile(path)
	if err != nil {
		portal.Attach(env, portal.FolderSource(fstest.MapFS{}, 0))
		return env
	}
	portal.Attach(env, portal.FolderSource(fstest.MapFS{"state.json": {Data: data}}, 0))
	return env
}

func TestStateMatch(t *testing.T) {
	env := fileEnv("testdata/state.json")
	tests := []struct {
		name     string
		spec     string
		status   assert.Status
		score    float64
		matched  any
		cands    float64
		contains string
	}{
		{"array rows, number value matches the text of both 5 and \"5\"",
			`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "member_id", "value": 5}, "assertions": [{"path": "status", "expected": "paid"}]}`,
			assert.StatusPassed, 1, "5", 2, `claims row "5" matched; 1 of 1 fields passed.`},
		{"string value",
			`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "claim_id", "value": "C-2"}, "assertions": [{"path": "amount", "expected": 120.5}, {"path": "lines.#.cpt", "expected": "72148"}]}`,
			assert.StatusPassed, 1, "C-2", 1, "2 of 2 fields passed"},
		{"no value: every row that has the column; null does not count",
			`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "member_id"}, "assertions": [{"path": "claim_id", "expected": "C-3"}]}`,
			assert.StatusFailed, 0, "5", 2, "None of 2 rows satisfied every field"},
		{"best candidate gives a partial score",
			`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "claim_id"}, "assertions": [{"path": "status", "expected": "paid"}, {"path": "amount", "expected": 99}]}`,
			assert.StatusFailed, 0.5, "C-2", 3, "best was claims row \"C-2\" with 1 of 2 fields passed (amount: expected 99, got 120.50)"},
		{"keyed rows: the object key is the key value, whatever the row holds",
			`{"assert": "portal-state-match", "correlate_by": {"resource": "members", "key": "member_id", "value": "W2"}, "assertions": [{"path": "plan", "expected": "silver"}]}`,
			assert.StatusPassed, 1, "W2", 1, "matched"},
		{"no fields: a candidate is enough",
			`{"assert": "portal-state-match", "correlate_by": {"resource": "members", "key": "id", "value": "W1"}}`,
			assert.StatusPassed, 1, "W1", 1, "no fields to check"},
		{"with portal the state is {portal: {resource: rows}}",
			`{"assert": "portal-state-match", "portal": "payer-portal", "correlate_by": {"resource": "claims", "key": "claim_id", "value": "P-1"}, "assertions": [{"path": "status", "expected": "approved"}]}`,
			assert.StatusPassed, 1, "P-1", 1, "matched"},
		{"a portal the file lacks gives no candidates",
			`{"assert": "portal-state-match", "portal": "other-portal", "correlate_by": {"resource": "claims", "key": "claim_id"}}`,
			assert.StatusFailed, 0, nil, 0, `No candidate: found no rows of "claims" with column "claim_id" in portal "other-portal" (the state has no such resource); the source held 0 rows.`},
		{"no matching value",
			`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "claim_id", "value": "C-9"}}`,
			assert.StatusFailed, 0, nil, 0, `found no rows of "claims" with claim_id = "C-9"; the source held 4 rows.`},
		{"keyed rows are counted as the rows the source held",
			`{"assert": "portal-state-match", "correlate_by": {"resource": "members", "key": "member_id", "value": "W9"}}`,
			assert.StatusFailed, 0, nil, 0, `found no rows of "members" with member_id = "W9"; the source held 2 rows.`},
		{"a typo'd key is an invalid spec",
			`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "claim_id"}, "assertions": [{"path": "status", "expect": "paid"}]}`,
			assert.StatusFailed, 0, nil, 0, `/assertions/0/expect: unknown key "expect"`},
		{"correlate_by needs resource and key",
			`{"assert": "portal-state-match", "correlate_by": {"resource": "claims"}}`,
			assert.StatusFailed, 0, nil, 0, `/correlate_by: missing required key "key"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := evaluate(t, env, tt.spec)
			if cr.Status != tt.status || cr.Score != tt.score || !strings.Contains(cr.Details, tt.contains) {
				t.Fatalf("got %s %v %q", cr.Status, cr.Score, cr.Details)
			}
			if cr.Evidence == nil {
				return
			}
			var ev map[string]any
			data, _ := json.Marshal(cr.Evidence)
			if err := json.Unmarshal(data, &ev); err != nil {
				t.Fatal(err)
			}
			if ev["matched"] != tt.matched || ev["candidates"] != tt.cands {
				t.Errorf("evidence %s", data)
			}
			if _, ok := ev["assertion_results"]; !ok {
				t.Errorf("evidence lacks assertion_results: %s", data)
			}
		})
	}
}

func TestStateErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "state.json")
	if err := os.WriteFile(bad, []byte(`{"claims": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	notObject := filepath.Join(dir, "array.json")
	if err := os.WriteFile(notObject, []byte(`[1, 2]`), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := `{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "claim_id"}}`
	for name, tt := range map[string]struct {
		env  *assert.Env
		want string
	}{
		"not JSON":         {fileEnv(bad), "portal state is not JSON"},
		"not an object":    {fileEnv(notObject), "must be a JSON object of resources, not an array"},
		"missing file":     {fileEnv(filepath.Join(dir, "none.json")), "state.json: file does not exist"},
		"no portal source": {assert.NewEnv(), "no portal evidence"},
		"a FIFO":           {folderEnv(t, "fifo"), "not a regular file (it is a FIFO)"},
		"over the cap":     {folderEnv(t, "big"), "over the 16-byte cap"},
	} {
		t.Run(name, func(t *testing.T) {
			cr := evaluate(t, tt.env, spec)
			if cr.Status != assert.StatusError || cr.Score != 0 || !strings.Contains(cr.Details, tt.want) {
				t.Fatalf("got %s %v %q", cr.Status, cr.Score, cr.Details)
			}
		})
	}
}

// folderEnv attaches a portal folder on disk whose state.json is a FIFO
// ("fifo") or a file over a 16-byte cap ("big").
func folderEnv(t *testing.T, what string) *assert.Env {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	switch what {
	case "fifo":
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	case "big":
		if err := os.WriteFile(path, []byte(`{"claims": [], "pad": "0123456789"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := assert.NewEnv()
	portal.Attach(env, portal.FolderSource(check.DirFS(dir), 16))
	return env
}

// Values compare as text, a number as written: 5 matches "5", but 5.0 does
// not, since the row key "5" is not the text "5.0".
func TestCorrelationValueAsWritten(t *testing.T) {
	s, err := portal.ParseState([]byte(`{"claims": [{"member_id": "5", "status": "paid"}, {"member_id": 5.0, "status": "open"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	portal.Attach(env, portal.MemorySource(s))
	for _, tc := range []struct {
		value   string
		matched any
	}{
		{`5`, "5"},
		{`"5"`, "5"},
		{`5.0`, "5.0"},
		{`"5.0"`, "5.0"},
	} {
		cr := evaluate(t, env, `{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "member_id", "value": `+tc.value+`}}`)
		ev, _ := json.Marshal(cr.Evidence)
		var got struct {
			Matched    any `json:"matched"`
			Candidates int `json:"candidates"`
		}
		if err := json.Unmarshal(ev, &got); err != nil {
			t.Fatal(err)
		}
		if cr.Status != assert.StatusPassed || got.Matched != tc.matched || got.Candidates != 1 {
			t.Errorf("value %s: %s matched %v of %d candidates (%s), want %v alone", tc.value, cr.Status, got.Matched, got.Candidates, cr.Details, tc.matched)
		}
	}
}

func TestStateOf(t *testing.T) {
	s, err := portal.StateOf(map[string]any{"orders": []map[string]any{{"id": 1, "ok": true}}})
	if err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	portal.Attach(env, portal.MemorySource(s))
	cr := evaluate(t, env, `{"assert": "portal-state-match", "correlate_by": {"resource": "orders", "key": "id", "value": "1"}, "assertions": [{"path": "ok", "expected": true}]}`)
	if cr.Status != assert.StatusPassed {
		t.Fatalf("got %s %q", cr.Status, cr.Details)
	}
	if _, err := portal.StateOf(func() {}); err == nil {
		t.Fatal("a function made a state")
	}
}

// A criterion that names no portal, against a state keyed by portal, says
// which portals the state holds.
func TestNoPortalAgainstAStateKeyedByPortal(t *testing.T) {
	st, err := portal.ParseState([]byte(`{"payer-portal": {"prior_auths": [{"member_id": "W1"}]}, "other": {"claims": []}}`))
	if err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	portal.Attach(env, portal.MemorySource(st))
	a, err := assert.Decode([]byte(`{"assert": "portal-state-match", "correlate_by": {"resource": "prior_auths", "key": "member_id"}}`))
	if err != nil {
		t.Fatal(err)
	}
	res := assert.Run(context.Background(), a, env)
	if res.Status != assert.StatusFailed || !strings.Contains(res.Details, `the state is keyed by portal: name one of: "payer-portal"`) {
		t.Errorf("%s: %s", res.Status, res.Details)
	}
}
