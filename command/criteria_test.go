package command

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/client/clienttest"
	"github.com/google/go-cmp/cmp"
)

const criteriaTestKey = "sk-cli-test-0123456789"

// criteriaServer starts the fake API with a fixed clock and returns it with
// the environment that points the command at it.
func criteriaServer(t *testing.T) (*clienttest.Server, []string) {
	t.Helper()
	clock := time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)
	srv := clienttest.NewServer(clienttest.WithAPIKey(criteriaTestKey), clienttest.WithClock(func() time.Time { return clock }))
	t.Cleanup(srv.Close)
	return srv, []string{"ASSAY_BASE_URL=" + srv.URL, "ASSAY_API_KEY=" + criteriaTestKey}
}

func criteriaTempFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCriteriaCreateGetUpdateDelete(t *testing.T) {
	srv, env := criteriaServer(t)
	file := criteriaTempFile(t, "c.json", `{
  "task_id": "task_pa",
  "label": "auth <approved> & filed",
  "assertion": {"assert": "portal-state-match", "portal": "payer",
                "correlate_by": {"resource": "authorizations", "key": "member_id", "value": "W123456789"},
                "assertions": [{"path": "status", "expected": "approved"}, {"path": "units", "expected": 1.0}]},
  "weight": 2,
  "axis": "outcome"
}`)
	stdout, stderr, code := runAssay(t, env, "criteria", "create", "--file", file)
	if code != exitOK {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	want := `{
  "id": "crit_1",
  "task_id": "task_pa",
  "input_entity_id": null,
  "label": "auth <approved> & filed",
  "assertion": {
    "assert": "portal-state-match",
    "portal": "payer",
    "correlate_by": {
      "resource": "authorizations",
      "key": "member_id",
      "value": "W123456789"
    },
    "assertions": [
      {
        "path": "status",
        "expected": "approved"
      },
      {
        "path": "units",
        "expected": 1.0
      }
    ]
  },
  "weight": 2,
  "axis": "outcome",
  "created_at": "2025-03-01T09:30:00Z"
}
`
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("create output (-want +got):\n%s", diff)
	}
	stored := srv.Criteria("task_pa")
	if len(stored) != 1 || string(stored[0].Assertion) != `{"assert":"portal-state-match","portal":"payer","correlate_by":{"resource":"authorizations","key":"member_id","value":"W123456789"},"assertions":[{"path":"status","expected":"approved"},{"path":"units","expected":1.0}]}` {
		t.Errorf("stored %+v", stored)
	}

	stdout, stderr, code = runAssay(t, env, "criteria", "get", "crit_1")
	if code != exitOK || stdout != want {
		t.Errorf("get: exit %d, stderr %s, output:\n%s", code, stderr, stdout)
	}

	patch := criteriaTempFile(t, "p.json", `{"axis": null, "weight": 0.5, "input_entity_id": "ent_7"}`)
	stdout, stderr, code = runAssay(t, env, "criteria", "update", "crit_1", "--file", patch)
	if code != exitOK {
		t.Fatalf("update: exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got["axis"] != nil || got["weight"] != 0.5 || got["input_entity_id"] != "ent_7" || got["label"] != "auth <approved> & filed" {
		t.Errorf("updated: %v", got)
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; last.Method != http.MethodPatch || string(last.Body) != `{"input_entity_id":"ent_7","weight":0.5,"axis":null}` {
		t.Errorf("PATCH sent %s %s", last.Method, last.Body)
	}

	stdout, stderr, code = runAssay(t, env, "criteria", "delete", "crit_1")
	if code != exitOK || stdout != "{\n  \"id\": \"crit_1\",\n  \"deleted\": true\n}\n" {
		t.Errorf("delete: exit %d, stderr %s, output %s", code, stderr, stdout)
	}
	if n := len(srv.Criteria("task_pa")); n != 0 {
		t.Errorf("%d criteria left", n)
	}
}

func TestCriteriaListFollowsEveryPage(t *testing.T) {
	srv, env := criteriaServer(t)
	var seed []assert.Criterion
	for i := range 230 {
		seed = append(seed, assert.Criterion{TaskID: "t1", Label: fmt.Sprintf("c%03d", i), Assertion: assert.Spec(`{"assert":"exit_code","exit_code":0}`)})
	}
	seed = append(seed, assert.Criterion{TaskID: "other", Label: "not listed", Assertion: assert.Spec(`{}`)})
	if _, err := srv.Add(seed...); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runAssay(t, env, "criteria", "list", "--task", "t1")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var list []struct {
		ID, Label string
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 230 || list[0].Label != "c229" || list[229].Label != "c000" {
		t.Fatalf("%d criteria, first %+v", len(list), list[0])
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 pages of 100", n)
	}

	// An empty task prints an empty array.
	stdout, _, code = runAssay(t, env, "criteria", "list", "--task", "none")
	if code != exitOK || stdout != "[]\n" {
		t.Errorf("empty list: exit %d, %q", code, stdout)
	}
}

func TestCriteriaBaseURLFlagWins(t *testing.T) {
	srv, _ := criteriaServer(t)
	env := []string{"ASSAY_BASE_URL=ftp://not-this-one", "ASSAY_API_KEY=" + criteriaTestKey}
	if _, stderr, code := runAssay(t, env, "criteria", "list", "--task", "t", "--base-url", srv.URL); code != exitOK {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestCriteriaRetriesTransientFaults(t *testing.T) {
	srv, env := criteriaServer(t)
	srv.Inject(clienttest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "0", Times: 2})
	if _, stderr, code := runAssay(t, env, "criteria", "list", "--task", "t"); code != exitOK {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestCriteriaAPIErrors(t *testing.T) {
	srv, env := criteriaServer(t)
	badLabel := criteriaTempFile(t, "bad.json", `{"task_id": "t", "label": "", "assertion": {"assert": "exit_code", "exit_code": 0}}`)
	tests := []struct {
		name    string
		env     []string
		args    []string
		wantErr []string
	}{
		{"not found", env, []string{"get", "nope"}, []string{`assay: criteria get: HTTP 404 not_found: criterion "nope" not found (request id req_`}},
		{"validation details", env, []string{"create", "--file", badLabel}, []string{
			"assay: criteria create: HTTP 422 validation_error: the criterion is invalid", "\n  /label: must not be empty\n"}},
		{"wrong key", []string{"ASSAY_BASE_URL=" + srv.URL, "ASSAY_API_KEY=wrong-key-0000"}, []string{"delete", "c1"}, []string{"HTTP 401 unauthorized: missing or invalid API key"}},
		{"no key", []string{"ASSAY_BASE_URL=" + srv.URL}, []string{"list", "--task", "t"}, []string{"HTTP 401 unauthorized"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runAssay(t, tt.env, append([]string{"criteria"}, tt.args...)...)
			if code != exitFail || stdout != "" {
				t.Errorf("exit %d, stdout %q", code, stdout)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q lacks %q", stderr, s)
				}
			}
		})
	}
}

// TestCriteriaKeyNotPrinted: a server that echoes the Authorization header in
// its error message must not make the command print the key.
func TestCriteriaKeyNotPrinted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"error":{"code":"forbidden","message":"key %s may not read","details":{"key":%q}}}`, r.Header.Get("Authorization"), r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	_, stderr, code := runAssay(t, []string{"ASSAY_BASE_URL=" + srv.URL, "ASSAY_API_KEY=" + criteriaTestKey}, "criteria", "get", "c1")
	if code != exitFail || strings.Contains(stderr, criteriaTestKey) || !strings.Contains(stderr, "[REDACTED]") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestCriteriaServerUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	_, stderr, code := runAssay(t, []string{"ASSAY_BASE_URL=" + srv.URL}, "criteria", "delete", "c1")
	if code != exitFail || !strings.Contains(stderr, "assay: criteria delete: DELETE /criteria/c1:") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestCriteriaUsageErrors(t *testing.T) {
	_, env := criteriaServer(t)
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notJSON := file("not.json", "task_id: t")
	array := file("array.json", `[{"task_id": "t", "label": "x", "assertion": {}}, {"label": "y", "wieght": 1, "assertion": {}}]`)
	typo := file("typo.json", `{"task_id": "t", "label": "x", "assertion": {}, "wieght": 2}`)
	withID := file("id.json", `{"id": "c1", "task_id": "t", "label": "x", "assertion": {}}`)
	negative := file("neg.json", `{"task_id": "t", "label": "x", "assertion": {}, "weight": -1}`)
	badPatch := file("patch.json", `{"label": null}`)
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"no subcommand", env, nil, "usage:"},
		{"unknown subcommand", env, []string{"purge"}, `unknown subcommand "purge"`},
		{"list without --task", env, []string{"list"}, "--task ID is required"},
		{"get without ID", env, []string{"get"}, "the criterion ID is missing"},
		{"get with two IDs", env, []string{"get", "a", "b"}, `unexpected arguments "b"`},
		{"delete with a flag it lacks", env, []string{"delete", "a", "--task", "t"}, "flag provided but not defined: -task"},
		{"create without --file", env, []string{"create"}, "--file FILE is required"},
		{"create with a missing file", env, []string{"create", "--file", filepath.Join(dir, "absent.json")}, "no such file"},
		{"create with a file that is not JSON", env, []string{"create", "--file", notJSON}, "not a JSON object"},
		{"create with a list, one item bad", env, []string{"create", "--file", array}, `array.json: /1/wieght: unknown criterion key "wieght" (did you mean "weight"?)`},
		{"create with a typo", env, []string{"create", "--file", typo}, `typo.json: /wieght: unknown criterion key "wieght" (did you mean "weight"?)`},
		{"create with an id", env, []string{"create", "--file", withID}, "/id: assigned by the API"},
		{"create with a negative weight", env, []string{"create", "--file", negative}, "/weight: weight -1 is negative"},
		{"update with a bad field", env, []string{"update", "c1", "--file", badPatch}, `"label" must be a string`},
		{"update without ID", env, []string{"update", "--file", badPatch}, "the criterion ID is missing"},
		{"no base URL", []string{"ASSAY_API_KEY=k"}, []string{"get", "c1"}, "no API base URL: pass --base-url URL or set ASSAY_BASE_URL"},
		{"base URL without scheme", env, []string{"get", "c1", "--base-url", "api.example.com/v1"}, `base URL "api.example.com/v1": has no scheme`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runAssay(t, tt.env, append([]string{"criteria"}, tt.args...)...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tt.want)
			}
		})
	}
	if stdout, _, code := runAssay(t, env, "criteria", "--help"); code != exitOK || !strings.Contains(stdout, "assay criteria list --task ID") {
		t.Errorf("--help: exit %d, %q", code, stdout)
	}
}

func TestCriteriaCreateFromStdin(t *testing.T) {
	srv, env := criteriaServer(t)
	var out, errb strings.Builder
	c := &cli{stdout: &out, stderr: &errb, stdin: strings.NewReader(`{"task_id":"t","label":"from stdin","assertion":{"assert":"ran","ran":"git"}}`),
		getenv: func(k string) string {
			for _, kv := range env {
				if key, v, _ := strings.Cut(kv, "="); key == k {
					return v
				}
			}
			return ""
		}}
	if code := run(t.Context(), c, []string{"criteria", "create", "--file", "-"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if got := srv.Criteria("t"); len(got) != 1 || got[0].Label != "from stdin" {
		t.Errorf("stored %+v", got)
	}
}

// create --file takes a list (JSON or YAML) and creates every criterion,
// printing them as one JSON array.
func TestCriteriaCreateList(t *testing.T) {
	srv, env := criteriaServer(t)
	dir := t.TempDir()
	list := writeFile(t, dir, "list.yaml", `- task_id: t
  label: first
  assertion: {assert: ran, ran: git}
- task_id: t
  label: second
  weight: 2
  assertion: {assert: exit_code, exit_code: 0}
`)
	stdout, stderr, code := runAssay(t, env, "criteria", "create", "--file", list)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var made []map[string]any
	if err := json.Unmarshal([]byte(stdout), &made); err != nil || len(made) != 2 || made[1]["label"] != "second" {
		t.Fatalf("printed %s (%v)", stdout, err)
	}
	labels := map[string]float64{}
	for _, c := range srv.Criteria("t") {
		labels[c.Label] = c.EffectiveWeight()
	}
	if len(labels) != 2 || labels["first"] != 1 || labels["second"] != 2 {
		t.Errorf("stored %v", labels)
	}
}

// create --file reads as eval reads: a FIFO is refused at once, not
// waited on.
func TestCriteriaFileIsBounded(t *testing.T) {
	_, env := criteriaServer(t)
	fifo := filepath.Join(t.TempDir(), "c.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan struct{})
	var stderr string
	var code int
	go func() {
		defer close(done)
		_, stderr, code = runAssay(t, env, "criteria", "create", "--file", fifo)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("criteria create waits on a FIFO")
	}
	if code != exitUsage || !strings.Contains(stderr, "not a regular file") {
		t.Errorf("code %d, %s", code, stderr)
	}
}
