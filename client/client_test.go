package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/google/go-cmp/cmp"
)

const testKey = "sk-test-0123456789abcdef"

// fastRetries retries as the default policy does, but waits milliseconds.
func fastRetries() RetryPolicy {
	p := DefaultRetryPolicy()
	p.MinWait, p.MaxWait = time.Millisecond, 5*time.Millisecond
	return p
}

// setup starts a test server with a mux under /v1 and a client of it, in the
// manner of go-github's tests.
func setup(t *testing.T, opts ...Option) (*Client, *http.ServeMux) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	opts = append([]Option{WithHTTPClient(srv.Client()), WithAPIKey(testKey), WithRetryPolicy(fastRetries())}, opts...)
	cl, err := New(srv.URL+"/v1/", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return cl, mux
}

func testMethod(t *testing.T, r *http.Request, want string) {
	t.Helper()
	if r.Method != want {
		t.Errorf("method %s, want %s", r.Method, want)
	}
}

func testQuery(t *testing.T, r *http.Request, want url.Values) {
	t.Helper()
	if diff := cmp.Diff(want, r.URL.Query()); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
}

func testBody(t *testing.T, r *http.Request, want string) {
	t.Helper()
	got, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

func testHeaders(t *testing.T, r *http.Request) {
	t.Helper()
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization %q", got)
	}
	if got := r.Header.Get("Accept"); got != "application/json" {
		t.Errorf("Accept %q", got)
	}
	if got := r.Header.Get("User-Agent"); got == "" {
		t.Error("no User-Agent")
	}
}

func TestNewBaseURL(t *testing.T) {
	tests := []struct {
		in      string
		want    string // the base, when valid
		wantErr string // part of the ConfigError, when not
	}{
		{in: "https://api.example.com/v1/", want: "https://api.example.com/v1"},
		{in: "http://127.0.0.1:8080", want: "http://127.0.0.1:8080"},
		{in: "api.example.com/v1", wantErr: `has no scheme (want "https://api.example.com/v1")`},
		{in: "localhost:8080", wantErr: `has no scheme (want "http://localhost:8080")`},
		{in: "127.0.0.1:8080/api", wantErr: `base URL "127.0.0.1:8080/api": has no scheme (want "http://127.0.0.1:8080/api")`},
		{in: "user:hunter2@api.example.com", wantErr: `has no scheme (want "https://user:xxxxx@api.example.com")`},
		{in: "https//api.example.com", wantErr: `has no scheme`},
		{in: "ftp://files.example.com", wantErr: "scheme ftp is not http or https"},
		{in: "", wantErr: "is empty"},
		{in: "http://", wantErr: "has no host"},
		{in: "https://h.example/?page=2", wantErr: "must not have a query"},
		{in: "https://h.example/#top", wantErr: "must not have a fragment"},
		{in: "https://user:hunter2@h.example/", wantErr: "must not hold credentials"},
		{in: "https://h.example/%zz", wantErr: "cannot be parsed"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			cl, err := New(tt.in, WithAPIKey(""))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if cl.base != tt.want {
					t.Errorf("base %q, want %q", cl.base, tt.want)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want a *ConfigError containing %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

func TestNewAPIKey(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	t.Setenv(APIKeyEnv, "env-key-abcdef")
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"from ASSAY_API_KEY", nil, "Bearer env-key-abcdef"},
		{"WithAPIKey wins", []Option{WithAPIKey("opt-key-123456")}, "Bearer opt-key-123456"},
		{"empty WithAPIKey sends none", []Option{WithAPIKey("")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, err := New(srv.URL, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cl.Criteria.Delete(context.Background(), "c1"); err != nil {
				t.Fatal(err)
			}
			if got.Load() != tt.want {
				t.Errorf("Authorization %q, want %q", got.Load(), tt.want)
			}
		})
	}
	if _, err := New(srv.URL, WithAPIKey("bad\nkey")); err == nil || strings.Contains(err.Error(), "bad") {
		t.Errorf("a key with a newline: %v", err)
	}
}

func TestUserAgentAndTimeoutOptions(t *testing.T) {
	cl, mux := setup(t, WithUserAgent("my-harness/2.0"), WithTimeout(40*time.Millisecond))
	var calls atomic.Int32
	mux.HandleFunc("GET /v1/criteria/c1", func(w http.ResponseWriter, r *http.Request) {
		if ua := r.Header.Get("User-Agent"); ua != "my-harness/2.0" {
			t.Errorf("User-Agent %q", ua)
		}
		if calls.Add(1) == 1 {
			// The first attempt outlives its timeout and is retried.
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
			return
		}
		fmt.Fprint(w, `{"id":"c1","label":"x","assertion":{"assert":"ran","ran":"git"}}`)
	})
	c, resp, err := cl.Criteria.Get(context.Background(), "c1")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != "c1" || resp.Attempts != 2 {
		t.Errorf("got %+v after %d attempts", c, resp.Attempts)
	}
}

func TestCriteriaList(t *testing.T) {
	cl, mux := setup(t)
	mux.HandleFunc("/v1/criteria", func(w http.ResponseWriter, r *http.Request) {
		testMethod(t, r, http.MethodGet)
		testHeaders(t, r)
		testQuery(t, r, url.Values{"task_id": {"task 1"}, "limit": {"2"}, "cursor": {"abc"}})
		w.Header().Set("X-Request-Id", "req_42")
		fmt.Fprint(w, `{"data":[
			{"id":"c2","task_id":"task 1","input_entity_id":null,"label":"second","assertion":{"assert":"exit_code","exit_code":0},"weight":2,"axis":"safety","created_at":"2025-01-02T03:04:05Z"},
			{"id":"c1","task_id":"task 1","input_entity_id":"ent_1","label":"first","assertion":{"assert":"ran","ran":"git"},"weight":1,"axis":null,"created_at":"2025-01-01T00:00:00Z"}],
			"_meta":{"next":"def"}}`)
	})
	got, resp, err := cl.Criteria.List(context.Background(), "task 1", &ListOptions{Limit: 2, Cursor: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	want := []assert.Criterion{
		{ID: "c2", TaskID: "task 1", Label: "second", Assertion: assert.Spec(`{"assert":"exit_code","exit_code":0}`),
			Weight: assert.Weight(2), Axis: "safety", CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)},
		{ID: "c1", TaskID: "task 1", InputEntityID: "ent_1", Label: "first", Assertion: assert.Spec(`{"assert":"ran","ran":"git"}`),
			Weight: assert.Weight(1), CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("criteria (-want +got):\n%s", diff)
	}
	if resp.NextCursor != "def" || resp.RequestID != "req_42" || resp.StatusCode != 200 {
		t.Errorf("response: next %q, request id %q, status %d", resp.NextCursor, resp.RequestID, resp.StatusCode)
	}
}

func TestCriteriaListBadLimit(t *testing.T) {
	cl, _ := setup(t)
	for _, limit := range []int{-1, 101} {
		if _, _, err := cl.Criteria.List(context.Background(), "t", &ListOptions{Limit: limit}); err == nil {
			t.Errorf("limit %d accepted", limit)
		}
	}
}

func TestNextCursorForms(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"_meta.next", `{"data":[],"_meta":{"next":"m1"}}`, "m1"},
		{"next_cursor", `{"data":[],"next_cursor":"n1"}`, "n1"},
		{"_meta.next wins", `{"data":[],"_meta":{"next":"m1"},"next_cursor":"n1"}`, "m1"},
		{"null _meta.next falls back", `{"data":[],"_meta":{"next":null},"next_cursor":"n1"}`, "n1"},
		{"last page", `{"data":[],"_meta":{"next":null},"next_cursor":null}`, ""},
		{"bare array", `[]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, mux := setup(t)
			mux.HandleFunc("GET /v1/criteria", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, tt.body) })
			_, resp, err := cl.Criteria.List(context.Background(), "t", nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.NextCursor != tt.want {
				t.Errorf("next %q, want %q", resp.NextCursor, tt.want)
			}
		})
	}
}

// pagedHandler serves ids c1..cN in pages of size, with cursors "p2",
// "p3", ..., and records the cursors asked for.
func pagedHandler(t *testing.T, n, size int, cursors *[]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		*cursors = append(*cursors, q.Get("cursor"))
		page := 1
		if c := q.Get("cursor"); c != "" {
			fmt.Sscanf(c, "p%d", &page)
		}
		var items []string
		for i := (page-1)*size + 1; i <= min(page*size, n); i++ {
			items = append(items, fmt.Sprintf(`{"id":"c%d","label":"l","assertion":{"assert":"ran","ran":"x"}}`, i))
		}
		next := "null"
		if page*size < n {
			next = fmt.Sprintf(`"p%d"`, page+1)
		}
		fmt.Fprintf(w, `{"data":[%s],"_meta":{"next":%s}}`, strings.Join(items, ","), next)
	}
}

func TestCriteriaAll(t *testing.T) {
	cl, mux := setup(t)
	var cursors []string
	mux.HandleFunc("GET /v1/criteria", pagedHandler(t, 7, 3, &cursors))
	var ids []string
	for c, err := range cl.Criteria.All(context.Background(), "t", &ListOptions{Limit: 3}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff([]string{"c1", "c2", "c3", "c4", "c5", "c6", "c7"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "p2", "p3"}, cursors); diff != "" {
		t.Errorf("cursors (-want +got):\n%s", diff)
	}

	// Breaking out early fetches no further page.
	cursors = nil
	for c := range cl.Criteria.All(context.Background(), "t", &ListOptions{Limit: 3}) {
		if c.ID == "c2" {
			break
		}
	}
	if len(cursors) != 1 {
		t.Errorf("fetched %d pages after breaking on the first", len(cursors))
	}

	cursors = nil
	all, err := cl.Criteria.ListAll(context.Background(), "t")
	if err != nil || len(all) != 7 {
		t.Fatalf("ListAll: %d criteria, %v", len(all), err)
	}
}

func TestCriteriaAllRepeatedCursor(t *testing.T) {
	cl, mux := setup(t)
	var calls int
	mux.HandleFunc("GET /v1/criteria", func(w http.ResponseWriter, r *http.Request) {
		calls++
		fmt.Fprint(w, `{"data":[{"id":"c1","label":"l","assertion":{}}],"next_cursor":"same"}`)
	})
	_, err := cl.Criteria.ListAll(context.Background(), "t")
	var re *ResponseError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "does not advance") {
		t.Fatalf("error %v, want a *ResponseError about the cursor", err)
	}
	if calls != 2 {
		t.Errorf("%d calls, want 2", calls)
	}
}

func TestCriteriaGet(t *testing.T) {
	cl, mux := setup(t)
	mux.HandleFunc("/v1/criteria/", func(w http.ResponseWriter, r *http.Request) {
		testMethod(t, r, http.MethodGet)
		testHeaders(t, r)
		if r.URL.EscapedPath() != "/v1/criteria/a%2Fb" {
			t.Errorf("path %q", r.URL.EscapedPath())
		}
		fmt.Fprint(w, `{"data":{"id":"a/b","label":"wrapped","assertion":{"assert":"ran","ran":"x"}}}`)
	})
	c, _, err := cl.Criteria.Get(context.Background(), "a/b")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != "a/b" || c.Label != "wrapped" {
		t.Errorf("got %+v", c)
	}
	for _, id := range []string{"", ".", ".."} {
		if _, _, err := cl.Criteria.Get(context.Background(), id); err == nil {
			t.Errorf("id %q accepted", id)
		}
	}
}

func TestCriteriaCreate(t *testing.T) {
	cl, mux := setup(t)
	mux.HandleFunc("/v1/criteria", func(w http.ResponseWriter, r *http.Request) {
		testMethod(t, r, http.MethodPost)
		testHeaders(t, r)
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		testBody(t, r, `{"task_id":"t1","label":"a <b> & c","assertion":{"assert":"output_contains","output_contains":"<ok> & done"},"weight":0.5,"axis":"safety"}`)
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":"c9","task_id":"t1","input_entity_id":null,"label":"a <b> & c","assertion":{"assert":"output_contains","output_contains":"<ok> & done"},"weight":0.5,"axis":"safety","created_at":"2025-01-01T00:00:00Z"}`)
	})
	in := assert.Criterion{
		ID: "old-id-is-not-sent", CreatedAt: time.Now(), // assigned by the API
		TaskID: "t1", Label: "a <b> & c", Assertion: OutputContains{Text: "<ok> & done"}.Spec(), Weight: assert.Weight(0.5), Axis: "safety",
	}
	got, resp, err := cl.Criteria.Create(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "c9" || resp.StatusCode != http.StatusCreated {
		t.Errorf("got %+v, status %d", got, resp.StatusCode)
	}
	if string(got.Assertion) != `{"assert":"output_contains","output_contains":"<ok> & done"}` {
		t.Errorf("assertion %s", got.Assertion)
	}
}

func TestCriteriaUpdate(t *testing.T) {
	tests := []struct {
		name string
		u    CriterionUpdate
		want string
	}{
		{"weight only", CriterionUpdate{Weight: Ptr(2.5)}, `{"weight":2.5}`},
		{"clear axis and input entity", CriterionUpdate{Axis: Null(), InputEntityID: Null()}, `{"input_entity_id":null,"axis":null}`},
		{"set axis", CriterionUpdate{Axis: Set("accuracy")}, `{"axis":"accuracy"}`},
		{"every field", CriterionUpdate{
			TaskID: Ptr("t2"), InputEntityID: Set("e1"), Label: Ptr("<new>"),
			Assertion: assert.Spec("{ \"assert\": \"ran\",\n \"ran\": \"a&b\" }"), Weight: Ptr(0.0), Axis: Set(""),
		}, `{"task_id":"t2","input_entity_id":"e1","label":"<new>","assertion":{"assert":"ran","ran":"a&b"},"weight":0,"axis":""}`},
		{"nothing", CriterionUpdate{}, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, mux := setup(t)
			mux.HandleFunc("/v1/criteria/c1", func(w http.ResponseWriter, r *http.Request) {
				testMethod(t, r, http.MethodPatch)
				testHeaders(t, r)
				testBody(t, r, tt.want)
				fmt.Fprint(w, `{"id":"c1","label":"x","assertion":{"assert":"ran","ran":"a"},"axis":null}`)
			})
			got, _, err := cl.Criteria.Update(context.Background(), "c1", tt.u)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != "c1" || got.Axis != "" {
				t.Errorf("got %+v", got)
			}
		})
	}
}

func TestCriteriaDelete(t *testing.T) {
	cl, mux := setup(t)
	mux.HandleFunc("/v1/criteria/c1", func(w http.ResponseWriter, r *http.Request) {
		testMethod(t, r, http.MethodDelete)
		testHeaders(t, r)
		w.WriteHeader(http.StatusNoContent)
	})
	resp, err := cl.Criteria.Delete(context.Background(), "c1")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("status %d", resp.StatusCode)
	}
}

// TestAssertionTravelsUntouched sends each odd assertion of
// testdata/assertions through Create and Update and reads it back through
// Get and List: the bytes on the wire and the bytes returned are the file's,
// with only insignificant whitespace compacted.
func TestAssertionTravelsUntouched(t *testing.T) {
	files := readAssertions(t)
	for name, raw := range files {
		t.Run(name, func(t *testing.T) {
			var compact bytes.Buffer
			if err := json.Compact(&compact, raw); err != nil {
				t.Fatal(err)
			}
			want := compact.String()
			cl, mux := setup(t)
			var stored []byte
			echo := func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var fields map[string]json.RawMessage
				if err := json.Unmarshal(body, &fields); err != nil {
					t.Fatal(err)
				}
				if got := string(fields["assertion"]); got != want {
					t.Errorf("%s sent assertion\n%s\nwant\n%s", r.Method, got, want)
				}
				stored = fields["assertion"]
				fmt.Fprintf(w, `{"id":"c1","label":"l","assertion":  %s  }`, raw) // as written, spaces and all
			}
			mux.HandleFunc("POST /v1/criteria", echo)
			mux.HandleFunc("PATCH /v1/criteria/c1", echo)
			mux.HandleFunc("GET /v1/criteria/c1", func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, `{"id":"c1","label":"l","assertion":%s}`, stored)
			})
			mux.HandleFunc("GET /v1/criteria", func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, `{"data":[{"id":"c1","label":"l","assertion":%s}]}`, stored)
			})
			ctx := context.Background()
			created, _, err := cl.Criteria.Create(ctx, assert.Criterion{TaskID: "t", Label: "l", Assertion: assert.Spec(raw)})
			if err != nil {
				t.Fatal(err)
			}
			// The criterion read back goes out again unchanged.
			if _, _, err := cl.Criteria.Update(ctx, "c1", CriterionUpdate{Assertion: created.Assertion}); err != nil {
				t.Fatal(err)
			}
			got, _, err := cl.Criteria.Get(ctx, "c1")
			if err != nil {
				t.Fatal(err)
			}
			list, err := cl.Criteria.ListAll(ctx, "t")
			if err != nil {
				t.Fatal(err)
			}
			for what, spec := range map[string]assert.Spec{"Create": created.Assertion, "Get": got.Assertion, "List": list[0].Assertion} {
				out, err := spec.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				if string(out) != want {
					t.Errorf("%s returned\n%s\nwant\n%s", what, out, want)
				}
			}
		})
	}
}

func readAssertions(t testing.TB) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob("testdata/assertions/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/assertions: %v", err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = data
	}
	return out
}

func criterionFixture() assert.Criterion {
	return assert.Criterion{TaskID: "t1", Label: "exit 0", Assertion: ExitCode{Code: 0}.Spec()}
}
