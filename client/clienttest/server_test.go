package clienttest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/client/clienttest"
	"github.com/google/go-cmp/cmp"
)

// call sends one request to the server and returns the status and body.
func call(t *testing.T, srv *clienttest.Server, method, path, body string) (int, string, http.Header) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, srv.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer k")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(out), resp.Header
}

func fixedClock() clienttest.Option {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	return clienttest.WithClock(func() time.Time { return at })
}

func TestCRUD(t *testing.T) {
	srv := clienttest.NewServer(fixedClock())
	defer srv.Close()
	status, body, h := call(t, srv, "POST", "/criteria", `{"task_id":"t1","label":"a&b","assertion":{ "z" : 1.0, "a":[1e3] },"axis":null}`)
	if status != 201 || h.Get("Location") != "/criteria/crit_1" || h.Get("X-Request-Id") != "req_1" {
		t.Fatalf("create: %d %s %v", status, body, h)
	}
	want := `{"id":"crit_1","task_id":"t1","input_entity_id":null,"label":"a&b","assertion":{"z":1.0,"a":[1e3]},"weight":1,"axis":null,"created_at":"2025-01-01T00:00:00Z"}`
	if body != want {
		t.Errorf("create body\n%s\nwant\n%s", body, want)
	}
	if status, body, _ = call(t, srv, "GET", "/criteria/crit_1", ""); status != 200 || body != want {
		t.Errorf("get: %d %s", status, body)
	}
	status, body, _ = call(t, srv, "PATCH", "/criteria/crit_1", `{"axis":"safety","weight":2.50,"input_entity_id":"e1"}`)
	if status != 200 || !strings.Contains(body, `"input_entity_id":"e1"`) || !strings.Contains(body, `"weight":2.50,"axis":"safety"`) {
		t.Errorf("patch: %d %s", status, body)
	}
	status, body, _ = call(t, srv, "PATCH", "/criteria/crit_1", `{"axis":null,"input_entity_id":null}`)
	if status != 200 || !strings.Contains(body, `"input_entity_id":null`) || !strings.Contains(body, `"axis":null`) || !strings.Contains(body, `"label":"a&b"`) {
		t.Errorf("patch to null: %d %s", status, body)
	}
	// Moving to another task.
	if status, body, _ = call(t, srv, "PATCH", "/criteria/crit_1", `{"task_id":"t2"}`); status != 200 {
		t.Errorf("move: %d %s", status, body)
	}
	if len(srv.Criteria("t1")) != 0 || len(srv.Criteria("t2")) != 1 {
		t.Errorf("after the move: t1 %v, t2 %v", srv.Criteria("t1"), srv.Criteria("t2"))
	}
	if status, body, _ = call(t, srv, "DELETE", "/criteria/crit_1", ""); status != 204 || body != "" {
		t.Errorf("delete: %d %s", status, body)
	}
	if status, body, _ = call(t, srv, "GET", "/criteria/crit_1", ""); status != 404 || body != `{"error":{"code":"not_found","message":"criterion \"crit_1\" not found"}}`+"\n" {
		t.Errorf("get after delete: %d %s", status, body)
	}
	for _, m := range []string{"PATCH", "DELETE"} {
		if status, _, _ = call(t, srv, m, "/criteria/crit_1", `{}`); status != 404 {
			t.Errorf("%s after delete: %d", m, status)
		}
	}
}

func TestValidation(t *testing.T) {
	srv := clienttest.NewServer()
	defer srv.Close()
	seeded, err := srv.Add(assert.Criterion{TaskID: "t", Label: "x", Assertion: assert.Spec(`{"assert":"ran","ran":"git"}`)})
	if err != nil {
		t.Fatal(err)
	}
	id := seeded[0].ID
	type detail struct{ Field, Message string }
	tests := []struct {
		name, method, path, body string
		status                   int
		code                     string
		details                  []detail
	}{
		{"not an object", "POST", "/criteria", `[1]`, 400, "invalid_request", nil},
		{"not JSON", "POST", "/criteria", `{"task_id":`, 400, "invalid_request", nil},
		{"missing fields", "POST", "/criteria", `{}`, 422, "validation_error", []detail{
			{"/assertion", "required"}, {"/label", "required"}, {"/task_id", "required"}}},
		{"wrong types", "POST", "/criteria", `{"task_id":5,"label":"","assertion":"exit_code","weight":-1,"axis":3,"input_entity_id":[],"id":"x","extra":true}`, 422, "validation_error", []detail{
			{"/assertion", "must be an object"}, {"/axis", "must be a string or null"}, {"/extra", "unknown field"},
			{"/id", "is assigned by the server and cannot be set"}, {"/input_entity_id", "must be a string or null"},
			{"/label", "must not be empty"}, {"/task_id", "must be a string"}, {"/weight", "must be a number >= 0"}}},
		{"weight as a string", "POST", "/criteria", `{"task_id":"t","label":"l","assertion":{},"weight":"1"}`, 422, "validation_error", []detail{{"/weight", "must be a number >= 0"}}},
		{"patch nulls", "PATCH", "/criteria/" + id, `{"label":null,"weight":null,"created_at":"x"}`, 422, "validation_error", []detail{
			{"/created_at", "is assigned by the server and cannot be set"}, {"/label", "must be a string"}, {"/weight", "must be a number >= 0"}}},
		{"list without task", "GET", "/criteria", "", 400, "validation_error", []detail{{"task_id", "required"}}},
		{"list bad limit and cursor", "GET", "/criteria?task_id=t&limit=101&cursor=%21%21", "", 400, "validation_error", []detail{
			{"limit", "must be an integer from 1 to 100"}, {"cursor", "not a cursor this server handed out"}}},
		{"list zero limit", "GET", "/criteria?task_id=t&limit=0", "", 400, "validation_error", []detail{{"limit", "must be an integer from 1 to 100"}}},
		{"method not allowed", "PUT", "/criteria/" + id, `{}`, 405, "method_not_allowed", nil},
		{"unknown route", "GET", "/tasks", "", 404, "not_found", nil},
		{"nested path", "GET", "/criteria/a/b", "", 404, "not_found", nil},
		{"too large", "POST", "/criteria", `{"label":"` + strings.Repeat("x", 1<<20) + `"}`, 413, "too_large", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, _ := call(t, srv, tt.method, tt.path, tt.body)
			var got struct {
				Error struct {
					Code    string
					Details []detail
				}
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("%d %s: %v", status, body, err)
			}
			if status != tt.status || got.Error.Code != tt.code {
				t.Errorf("%d %s, want %d %s", status, got.Error.Code, tt.status, tt.code)
			}
			if diff := cmp.Diff(tt.details, got.Error.Details); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegistryValidation(t *testing.T) {
	reg := assert.NewRegistry()
	reg.Register("answer", []byte(`{"type":"object","properties":{"assert":{"const":"answer"},"value":{"type":"integer"}},"required":["value"],"additionalProperties":false}`),
		func(assert.Spec) (assert.Assertion, error) { return nil, nil })
	srv := clienttest.NewServer(clienttest.WithRegistry(reg))
	defer srv.Close()
	status, body, _ := call(t, srv, "POST", "/criteria", `{"task_id":"t","label":"l","assertion":{"assert":"answer","value":"x","extra":1}}`)
	if status != 422 || !strings.Contains(body, `{"field":"/assertion/extra","message":"unknown key \"extra\""}`) ||
		!strings.Contains(body, `{"field":"/assertion/value","message":"must be a whole number, not a string"}`) {
		t.Errorf("%d %s", status, body)
	}
	if status, body, _ = call(t, srv, "POST", "/criteria", `{"task_id":"t","label":"l","assertion":{"assert":"nope"}}`); status != 422 || !strings.Contains(body, `unknown kind`) {
		t.Errorf("%d %s", status, body)
	}
	if status, body, _ = call(t, srv, "POST", "/criteria", `{"task_id":"t","label":"l","assertion":{"assert":"answer","value":42}}`); status != 201 {
		t.Errorf("%d %s", status, body)
	}
}

func TestAuth(t *testing.T) {
	srv := clienttest.NewServer(clienttest.WithAPIKey("right-key"))
	defer srv.Close()
	status, body, _ := call(t, srv, "GET", "/criteria?task_id=t", "") // sends "Bearer k"
	if status != 401 || !strings.Contains(body, "unauthorized") || strings.Contains(body, "right-key") {
		t.Errorf("%d %s", status, body)
	}
}

// TestPaginationNewestFirst pages through a task while criteria are added
// and deleted between pages: the cursor stays valid, every criterion older
// than it is served once, newest first.
func TestPaginationNewestFirst(t *testing.T) {
	for _, topLevel := range []bool{false, true} {
		t.Run(fmt.Sprintf("next_cursor at top level %v", topLevel), func(t *testing.T) {
			opts := []clienttest.Option{}
			if topLevel {
				opts = append(opts, clienttest.WithTopLevelNextCursor())
			}
			srv := clienttest.NewServer(opts...)
			defer srv.Close()
			base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			var seed []assert.Criterion
			for i := range 25 {
				seed = append(seed, assert.Criterion{TaskID: "t", Label: fmt.Sprint(i), Assertion: assert.Spec(`{}`),
					CreatedAt: base.Add(time.Duration(i%5) * time.Minute)}) // ties broken by creation order
			}
			seed = append(seed, assert.Criterion{TaskID: "other", Label: "x", Assertion: assert.Spec(`{}`)})
			if _, err := srv.Add(seed...); err != nil {
				t.Fatal(err)
			}
			var labels []string
			cursor := ""
			for page := 0; ; page++ {
				path := "/criteria?task_id=t&limit=10"
				if cursor != "" {
					path += "&cursor=" + cursor
				}
				status, body, _ := call(t, srv, "GET", path, "")
				if status != 200 {
					t.Fatalf("%d %s", status, body)
				}
				var resp struct {
					Data []struct{ Label string }
					Meta *struct{ Next *string } `json:"_meta"`
					Next *string                 `json:"next_cursor"`
				}
				if err := json.Unmarshal([]byte(body), &resp); err != nil {
					t.Fatal(err)
				}
				for _, d := range resp.Data {
					labels = append(labels, d.Label)
				}
				next := resp.Next
				if !topLevel {
					next = resp.Meta.Next
				} else if resp.Meta != nil {
					t.Error("_meta with WithTopLevelNextCursor")
				}
				if page == 0 {
					// Changes between pages do not disturb the walk.
					srv.Add(assert.Criterion{TaskID: "t", Label: "new", Assertion: assert.Spec(`{}`), CreatedAt: base.Add(time.Hour)})
					call(t, srv, "DELETE", "/criteria/crit_24", "") // label 23, already served
				}
				if next == nil {
					break
				}
				cursor = *next
			}
			// Newest first: created_at descending (minute 4 down to 0),
			// later creation first within a minute.
			var want []string
			for minute := 4; minute >= 0; minute-- {
				for i := 24; i >= 0; i-- {
					if i%5 == minute {
						want = append(want, fmt.Sprint(i))
					}
				}
			}
			if diff := cmp.Diff(want, labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if got := srv.Criteria("t"); len(got) != 25 || got[0].Label != "new" {
				t.Errorf("store: %d, first %q", len(got), got[0].Label)
			}
		})
	}
}

func TestFaults(t *testing.T) {
	srv := clienttest.NewServer()
	defer srv.Close()
	srv.Inject(clienttest.Fault{Method: "GET", Path: "/criteria", Status: 429, RetryAfter: "3", Times: 2})
	srv.Inject(clienttest.Fault{Status: 502, Body: "<html><h1>Bad Gateway</h1></html>"})
	for i := range 2 {
		status, body, h := call(t, srv, "GET", "/criteria?task_id=t", "")
		if status != 429 || h.Get("Retry-After") != "3" || !strings.Contains(body, `"code":"rate_limited"`) {
			t.Errorf("request %d: %d %s %v", i, status, body, h)
		}
	}
	status, body, h := call(t, srv, "POST", "/criteria", `{}`)
	if status != 502 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(body, "Bad Gateway") {
		t.Errorf("%d %s %v", status, body, h)
	}
	if status, _, _ = call(t, srv, "GET", "/criteria?task_id=t", ""); status != 200 {
		t.Errorf("after the faults: %d", status)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d requests recorded", n)
	}

	// net/http resends an idempotent request once when a reused connection
	// drops, so it takes two aborts to fail a GET.
	srv.Inject(clienttest.Fault{Abort: true, Times: 2})
	req, _ := http.NewRequest("GET", srv.URL+"/criteria?task_id=t", nil)
	if resp, err := srv.Client().Do(req); err == nil {
		resp.Body.Close()
		t.Error("an aborted request got a response")
	}

	srv.Inject(clienttest.Fault{Delay: 5 * time.Second, Status: 500})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ = http.NewRequestWithContext(ctx, "GET", srv.URL+"/criteria?task_id=t", nil)
	start := time.Now()
	if resp, err := srv.Client().Do(req); err == nil {
		resp.Body.Close()
		t.Error("a delayed request answered before its deadline")
	}
	if time.Since(start) > 2*time.Second {
		t.Error("the delay ignored the client going away")
	}
}

func TestAddChecks(t *testing.T) {
	srv := clienttest.NewServer()
	defer srv.Close()
	for _, c := range []assert.Criterion{
		{Label: "no task", Assertion: assert.Spec(`{}`)},
		{TaskID: "t", Label: "no assertion"},
		{TaskID: "t", Label: "array", Assertion: assert.Spec(`[]`)},
		{TaskID: "t", Label: "bad weight", Assertion: assert.Spec(`{}`), Weight: assert.Weight(-1)},
	} {
		if _, err := srv.Add(c); err == nil {
			t.Errorf("%s: accepted", c.Label)
		}
	}
	got, err := srv.Add(assert.Criterion{ID: "mine", TaskID: "t", Label: "a", Assertion: assert.Spec(`{}`)},
		assert.Criterion{ID: "mine", TaskID: "t", Label: "b", Assertion: assert.Spec(`{}`)})
	if err != nil || got[1].ID != "mine" || len(srv.Criteria("t")) != 1 || srv.Criteria("t")[0].Label != "b" {
		t.Errorf("replace by id: %v %v %v", got, err, srv.Criteria("t"))
	}
}

// The default registry holds every built-in kind once clienttest is
// imported: a test validates all sixteen without importing the domain
// packages or sandbox (this test file imports neither).
func TestDefaultRegistryHasEveryKind(t *testing.T) {
	srv := clienttest.NewServer(clienttest.WithRegistry(assert.DefaultRegistry()))
	defer srv.Close()
	for _, spec := range []string{
		`{"assert": "fhir-resource-state", "resource_type": "Patient"}`,
		`{"assert": "hl7-structural"}`,
		`{"assert": "x12-response", "transaction": "271"}`,
		`{"assert": "sftp-file-present", "path": "a.txt"}`,
		`{"assert": "voice-transcript", "contains": ["hi"]}`,
		`{"assert": "portal-state-match", "correlate_by": {"resource": "r", "key": "k"}}`,
		`{"assert": "exit_code", "exit_code": 0}`,
		`{"assert": "verify", "verify": {"run": "true"}}`,
	} {
		if status, body, _ := call(t, srv, "POST", "/criteria", `{"task_id":"t","label":"l","assertion":`+spec+`}`); status != 201 {
			t.Errorf("%s: %d %s", spec, status, body)
		}
	}
	// The kinds come from sandbox, which imports every domain (the layout
	// test holds it to that), so a kind added since the design's sixteen
	// is here too, and the server knows each.
	for _, kind := range []string{"fhir-resource-state", "hl7-structural", "x12-response", "sftp-file-present",
		"voice-transcript", "portal-state-match", "exit_code", "output_contains", "output_equals", "error_contains",
		"file_exists", "file_contains", "ran", "not_ran", "run_count", "verify"} {
		if _, ok := assert.Schema(kind); !ok {
			t.Errorf("the default registry lacks %s: %v", kind, assert.Kinds())
		}
	}
	for _, kind := range assert.Kinds() {
		status, body, _ := call(t, srv, "POST", "/criteria", `{"task_id":"t","label":"l","assertion":{"assert":"`+kind+`"}}`)
		if status != 201 && (status != 422 || strings.Contains(body, "unknown kind") || strings.Contains(body, "not registered")) {
			t.Errorf("%s: %d %s", kind, status, body)
		}
	}
}
