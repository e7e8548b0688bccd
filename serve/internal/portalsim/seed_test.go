package portalsim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
	"github.com/assaykit/assay/serve/internal/portalsim"
)

// TestBadSeed: a bad portal/state.json or portal/portal.json is a seed
// error naming the file, the JSON pointer and where it is.
func TestBadSeed(t *testing.T) {
	for _, tc := range []struct {
		name, state, config string
		want                string
	}{
		{"not JSON", `{"payer-portal": `, "", `portal/state.json: / (line 1, column 17): not JSON`},
		{"not an object", `[]`, "", `portal/state.json: / (line 1, column 1): must be an object`},
		{"another slug", `{"acme": {}}`, "", `portal/state.json: /acme (line 1, column 2): the portal's slug is "payer-portal" (the default; portal/portal.json sets another), not "acme"`},
		{"another slug than portal.json's", `{"payer-portal": {}}`, `{"slug": "acme"}`, `/payer-portal (line 1, column 2): the portal's slug is "acme" (from portal/portal.json)`},
		{"a portal that is no object", `{"payer-portal": []}`, "", `/payer-portal (line 1, column 18): must be an object of resources, not an array`},
		{"rows that are a number", `{"payer-portal": {"claims": 5}}`, "", `/payer-portal/claims (line 1, column 29): rows must be an array of objects`},
		{"a row that is no object", `{"payer-portal": {"claims": [{"id": 1}, "x"]}}`, "", `/payer-portal/claims/1 (line 1, column 41): a row must be an object, not a string`},
		{"a keyed row that is no object", `{"payer-portal": {"claims": {"C-1": 3}}}`, "", `/payer-portal/claims/C-1 (line 1, column 37): a row must be an object, not a number`},
		{"a key twice in a row", "{\"payer-portal\": {\"claims\": [{\"id\": 1,\n \"lines\": [{\"cpt\": \"1\", \"cpt\": \"2\"}]}]}}", "", `/payer-portal/claims/0/lines/0/cpt (line 2, column 25): the key "cpt" is written twice`},
		{"a resource twice", `{"payer-portal": {"a": [], "a": []}}`, "", `/payer-portal/a (line 1, column 28): the key "a" is written twice`},
		{"a seeded request numbered as the payer mints", `{"payer-portal": {"prior_auth_requests": [{"auth_number": "PA-000001"}]}}`, "",
			`/payer-portal/prior_auth_requests/0 (line 1, column 43): auth number "PA-000001" has the form the payer mints`},
		{"a keyed one too", `{"payer-portal": {"prior_auth_requests": {"PA-000007": {}}}}`, "", `auth number "PA-000007" has the form the payer mints`},
		{"nesting without end", `{"payer-portal": {"a": [{"b": ` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}]}}`, "", `portal/state.json: /: values nest 304 deep, more than the 256 allowed`},
		{"portal.json with an unknown key", "", `{"slug": "a", "name": "b"}`, `portal/portal.json: /name (line 1, column 15): unknown key "name"`},
		{"portal.json without slug", "", `{}`, `portal/portal.json: /slug (line 1, column 1): is required`},
		{"a slug with a space", "", `{"slug": "my portal"}`, `portal/portal.json: /slug (line 1, column 10): "my portal" must match [A-Za-z0-9_-]{1,64}`},
	} {
		seed := fstest.MapFS{}
		if tc.state != "" {
			seed["portal/state.json"] = &fstest.MapFile{Data: []byte(tc.state)}
		}
		if tc.config != "" {
			seed["portal/portal.json"] = &fstest.MapFile{Data: []byte(tc.config)}
		}
		_, err := portalsim.New(seed)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v\nwant one holding %s", tc.name, err, tc.want)
		}
	}
	// A folder where the file belongs.
	if _, err := portalsim.New(fstest.MapFS{"portal/state.json/x": {Data: []byte("{}")}}); err == nil || !strings.Contains(err.Error(), "portal/state.json") {
		t.Errorf("a folder as state.json: %v", err)
	}
}

// TestSnapshotAndCopyOnWrite: the snapshot's state holds the seed's rows
// (as written), then the run's requests and attachments, under the slug
// portal.json names; the uploaded bytes sit beside it; another run of the
// same seed sees none of it.
func TestSnapshotAndCopyOnWrite(t *testing.T) {
	seed := fstest.MapFS{
		"payer/policy.json":  {Data: must(os.ReadFile("testdata/seed/payer/policy.json"))},
		"portal/portal.json": {Data: []byte(`{"slug": "acme"}`)},
		"portal/state.json":  {Data: []byte(`{"acme": {"notices": [{"id": "N-1"}], "attachments": {"ATT-000001": {"filename": "old.pdf"}}}}`)},
	}
	sb := newSandbox(t, seed)
	a, b := sb.newRun("a"), sb.newRun("b")
	if r := a.api("POST", "/prior-auths", `{"patient_member_id": "W123456789", "procedure_code": "97110"}`); r.status != 201 {
		t.Fatal(r.body)
	}
	ct, body := multipartBody(t, nil, "Scan.PDF", []byte("%PDF scan"))
	r := do(t, nil, "POST", a.apiURL("/prior-auths/PA-000001/attachments"), a.token, ct, body)
	if r.status != 201 || r.json("attachment_id").Str != "ATT-000002" {
		t.Fatalf("the seed's attachment id is skipped: %d %s", r.status, r.body)
	}
	snapA, err := a.run.Complete(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	snapB, err := b.run.Complete(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]map[string]json.RawMessage
	if err := json.Unmarshal(readFile(t, snapA, "portal/state.json"), &state); err != nil {
		t.Fatal(err)
	}
	compact := func(raw json.RawMessage) string {
		var b bytes.Buffer
		json.Compact(&b, raw)
		return b.String()
	}
	acme := state["acme"]
	if got := compact(acme["notices"]); got != `[{"id":"N-1"}]` {
		t.Errorf("notices: %s", got)
	}
	if got := compact(acme["attachments"]); !strings.HasPrefix(got, `{"ATT-000001":{"filename":"old.pdf"},"ATT-000002":{"attachment_id":"ATT-000002","auth_number":"PA-000001","filename":"Scan.PDF"`) {
		t.Errorf("attachments: %s", got)
	}
	if got := compact(acme["prior_auth_requests"]); !strings.Contains(got, `"auth_number":"PA-000001"`) || !strings.Contains(got, `"status":"pending"`) {
		t.Errorf("prior_auth_requests: %s", got)
	}
	if got := string(readFile(t, snapA, "portal/attachments/ATT-000002.pdf")); got != "%PDF scan" {
		t.Errorf("the attachment's bytes: %q", got)
	}
	// Run b: the seed's rows only.
	stateB := readFile(t, snapB, "portal/state.json")
	var sb2 map[string]map[string]json.RawMessage
	json.Unmarshal(stateB, &sb2)
	if compact(sb2["acme"]["prior_auth_requests"]) != "[]" || compact(sb2["acme"]["attachments"]) != `{"ATT-000001":{"filename":"old.pdf"}}` {
		t.Errorf("run b's state:\n%s", stateB)
	}
	entries, _ := os.ReadDir(snapB + "/portal")
	if len(entries) != 1 {
		t.Errorf("run b's portal/ holds %d entries", len(entries))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestStateMatch: portal-state-match criteria pass alike for a request sent
// through the web form and one sent through the API, over the snapshot,
// over the run's live evidence, and after a delayed determination resolves.
func TestStateMatch(t *testing.T) {
	sb := newSandbox(t, nil)
	tr := sb.newRun("m1")
	b := newBrowser(t)
	csrf := b.login(tr)
	web := b.post(tr.portal+"prior-auths", map[string][]string{"csrf_token": {csrf}, "patient_member_id": {"W123456789"},
		"procedure_code": {"73721"}, "provider_npi": {"1234567893"}, "service_date": {"2026-03-10"}, "request_id": {"WEB-1"}})
	if web.status != 303 {
		t.Fatalf("web submit: %d %s", web.status, web.body)
	}
	if r := tr.api("POST", "/prior-auths", `{"patient_member_id": "W123456789", "procedure_code": "97110", "request_id": "API-1"}`); r.status != 201 {
		t.Fatalf("api submit: %s", r.body)
	}
	ct, body := multipartBody(t, [][2]string{{"csrf_token", csrf}, {"document_type", "clinical_notes"}}, "notes.txt", []byte("notes"))
	if r := do(t, b.c, "POST", tr.portal+"prior-auths/PA-000001/attachments", "", ct, body); r.status != 303 {
		t.Fatalf("web upload: %d %s", r.status, r.body)
	}
	criterion := func(id, request, key, value, path string, expected any) assert.Criterion {
		spec, _ := json.Marshal(map[string]any{"assert": "portal-state-match", "portal": "payer-portal",
			"correlate_by": map[string]string{"resource": request, "key": key, "value": value},
			"assertions":   []map[string]any{{"path": path, "expected": expected}}})
		return assert.Criterion{ID: id, Assertion: assert.Spec(spec)}
	}
	criteria := []assert.Criterion{
		criterion("web-approved", "prior_auth_requests", "request_id", "WEB-1", "status", "approved"),
		criterion("web-cert", "prior_auth_requests", "request_id", "WEB-1", "certification_number", "AUTH000001"),
		criterion("web-channel", "prior_auth_requests", "request_id", "WEB-1", "channel", "web"),
		criterion("api-approved", "prior_auth_requests", "request_id", "API-1", "status", "approved"),
		criterion("api-cert", "prior_auth_requests", "request_id", "API-1", "certification_number", "AUTH000002"),
		criterion("api-channel", "prior_auth_requests", "request_id", "API-1", "channel", "api"),
		criterion("attached", "attachments", "auth_number", "PA-000001", "document_type", "clinical_notes"),
		criterion("seeded", "prior_auth_requests", "auth_number", "PA-SEED-1", "status", "need_more_info"),
	}
	judge := func(env *assert.Env) map[string]assert.Status {
		res, err := assert.Evaluate(context.Background(), criteria, env)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]assert.Status{}
		for _, c := range res.Criteria {
			out[c.CriterionID] = c.Status
		}
		return out
	}
	// Live, before the delay: the API's request still reads pending.
	live := judge(tr.run.Env())
	if live["api-approved"] != assert.StatusFailed || live["web-approved"] != assert.StatusPassed {
		t.Errorf("live before the delay: %v", live)
	}
	tr.advance("48h")
	if live := judge(tr.run.Env()); live["api-approved"] != assert.StatusPassed {
		t.Errorf("live after the delay: %v", live)
	}
	snap, err := tr.run.Complete(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	env, err := sandbox.Load(snap, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	for id, status := range judge(env) {
		if status != assert.StatusPassed {
			t.Errorf("%s over the snapshot: %s", id, status)
		}
	}
}
