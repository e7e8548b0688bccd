package phonesim_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/internal/strictjson"
	"github.com/assaykit/assay/serve/internal/phonesim"
)

// FuzzParse: no input makes Parse panic or hang; an error is always
// strictjson.Errors, each with a pointer into the file; a line it accepts
// has a start that is a node and personas with their defaults.
func FuzzParse(f *testing.F) {
	f.Add(readTestdata(f, "ivr.json"))
	f.Add([]byte(digitLine))
	f.Add([]byte(llmLine))
	f.Add([]byte(`{"start": "a", "nodes": {"a": {"say": "x", "next": "b"}, "b": {"say": "y", "next": "a"}}}`))
	f.Add([]byte(`{"start": "a", "nodes": {"a": {"gather": {"input": ["dtmf"], "finish_on_key": ""}, "routes": {"": "a"}}}}`))
	f.Add([]byte(`{"start": "~0/", "nodes": {"~0/": {"persona": "p"}}, "personas": {"p": {"answers": [{"when": ["x"], "say": "{plan}"}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := phonesim.Parse(data)
		if err != nil {
			var errs strictjson.Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		if _, ok := l.Nodes[l.Start]; !ok {
			t.Fatalf("accepted a line whose start %q is no node", l.Start)
		}
		for name, p := range l.Personas {
			if p.Speaker == "" || p.Fallback == "" || p.Farewell == "" {
				t.Fatalf("persona %s without its defaults: %+v", name, p)
			}
		}
	})
}

// FuzzTurn: no turn body makes the line panic or answer other than 200,
// 400, 409, 413 or 429, and a 200 always begins with the agent's turn.
func FuzzTurn(f *testing.F) {
	for _, s := range []string{`{"text": "W one two three four five six seven eight nine"}`, `{"dtmf": "2"}`,
		`{"dtmf": "12*#"}`, `{"text": "what is the status? that's all"}`, `{"text": "\u0000\ud800"}`, `{"text": 1}`, `[`, ``} {
		f.Add(s, `{"dtmf": "2"}`)
	}
	seed := fstest.MapFS{
		"voice/ivr.json":    {Data: readTestdata(f, "ivr.json")},
		"payer/policy.json": {Data: readTestdata(f, "policy.json")},
	}
	s, err := phonesim.New(seed)
	if err != nil {
		f.Fatal(err)
	}
	policy := storyPolicy(f)
	f.Fuzz(func(t *testing.T, first, second string) {
		rs, err := s.NewRun(newFakeRun(t, policy))
		if err != nil {
			t.Fatal(err)
		}
		post := func(path, body string) (int, string) {
			w := httptest.NewRecorder()
			rs.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
			return w.Code, w.Body.String()
		}
		if code, _ := post("/voice/calls", ""); code != 201 {
			t.Fatalf("POST /voice/calls: %d", code)
		}
		for _, body := range []string{first, second, `{"text": "that's all"}`} {
			code, out := post("/voice/calls/CA000001/turns", body)
			switch code {
			case 200:
				if !strings.Contains(out, `"turns":[{"speaker":"agent"`) {
					t.Fatalf("a reply that does not begin with the agent's turn: %s", out)
				}
			case 400, 409, 413, 429:
			default:
				t.Fatalf("%q: %d %s", body, code, out)
			}
		}
	})
}
