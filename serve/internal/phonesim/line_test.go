package phonesim_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/internal/strictjson"
	"github.com/assaykit/assay/serve/internal/phonesim"
)

func TestParseStory(t *testing.T) {
	l, err := phonesim.Parse(readTestdata(t, "ivr.json"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Start != "welcome" || len(l.Nodes) != 7 || l.Number != "+15550100" {
		t.Errorf("line: start %q, %d nodes, number %q", l.Start, len(l.Nodes), l.Number)
	}
	rep := l.Personas["rep"]
	if rep.Speaker != "caller" || len(rep.Answers) != 3 || rep.Farewell != "Thank you for calling Acme. Goodbye." {
		t.Errorf("persona rep: %+v", rep)
	}
	// Defaults fill what a persona leaves out.
	l, err = phonesim.Parse([]byte(`{"start": "a", "nodes": {"a": {"persona": "p"}}, "personas": {"p": {}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p := l.Personas["p"]; p.Speaker != "caller" || p.Fallback != phonesim.DefaultFallback || p.Farewell != phonesim.DefaultFarewell {
		t.Errorf("defaults: %+v", p)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       []string // each error as "pointer (line L, column C): message" or a part of it
	}{
		{"not JSON", `{"start": `, []string{"/ (line 1, column 10): not JSON"}},
		{"unknown key", `{"start": "a", "nodes": {"a": {"say": "hi", "nxt": "a"}}}`,
			[]string{`/nodes/a/nxt (line 1, column 45): unknown key "nxt" (did you mean "next"?)`}},
		{"missing start", `{"nodes": {"a": {}}}`, []string{"/start (line 1, column 1): is required"}},
		{"start names no node", `{"start": "b", "nodes": {"a": {}}}`, []string{`/start (line 1, column 11): "b" is not a node (there are "a")`}},
		{"no nodes", `{"start": "a", "nodes": {}}`, []string{"/nodes (line 1, column 25): a line needs at least one node"}},
		{"next names no node", "{\"start\": \"a\",\n \"nodes\": {\"a\": {\"say\": \"hi\", \"next\": \"zz\"}}}",
			[]string{`/nodes/a/next (line 2, column 39): "zz" is not a node`}},
		{"route names no node", `{"start": "a", "nodes": {"a": {"gather": {"input": ["dtmf"]}, "routes": {"1": "x"}, "default": "y"}}}`,
			[]string{`/nodes/a/routes/1`, `"x" is not a node`, `/nodes/a/default`, `"y" is not a node`}},
		{"found names no node", `{"start": "a", "nodes": {"a": {"gather": {"input": ["speech"], "save": "id"}, "next": "b"}, "b": {"lookup_member": "id", "found": "c", "not_found": "a"}}}`,
			[]string{`/nodes/b/found (line 1, column 131): "c" is not a node`}},
		{"lookup without its targets", `{"start": "a", "nodes": {"a": {"gather": {"input": ["speech"], "save": "id"}, "next": "b"}, "b": {"lookup_member": "id"}}}`,
			[]string{"/nodes/b/found", "must name a node", "/nodes/b/not_found"}},
		{"lookup of nothing saved", `{"start": "a", "nodes": {"a": {"gather": {"input": ["speech"]}, "next": "b"}, "b": {"lookup_member": "id", "found": "a", "not_found": "a"}}}`,
			[]string{`/nodes/b/lookup_member`, `no gather saves "id"`}},
		{"persona names nobody", `{"start": "a", "nodes": {"a": {"persona": "rep"}}}`,
			[]string{`/nodes/a/persona (line 1, column 43): "rep" is not a persona (there are none)`}},
		{"persona nobody uses", `{"start": "a", "nodes": {"a": {"say": "bye"}}, "personas": {"rep": {}}}`,
			[]string{`/personas/rep (line 1, column 68): no node hands the call to persona "rep"`}},
		{"unreachable node", `{"start": "a", "nodes": {"a": {"say": "bye"}, "b": {"say": "never"}}}`,
			[]string{`/nodes/b (line 1, column 52): no path from start "a" reaches node "b"`}},
		{"cycle without gathers", "{\"start\": \"a\", \"nodes\": {\n\"a\": {\"say\": \"one\", \"next\": \"b\"},\n\"b\": {\"say\": \"two\", \"next\": \"a\"}}}",
			[]string{"/nodes/a (line 2, column 6): the nodes a -> b -> a form a cycle in which no node gathers or hands the call to a persona: the line would talk forever"}},
		{"self loop", `{"start": "a", "nodes": {"a": {"say": "again", "next": "a"}}}`, []string{"the nodes a -> a form a cycle"}},
		{"cycle through a lookup", `{"start": "g", "nodes": {"g": {"gather": {"input": ["speech"], "save": "id"}, "next": "l"}, "l": {"lookup_member": "id", "found": "l2", "not_found": "g"}, "l2": {"say": "x", "next": "l"}}}`,
			[]string{"the nodes l -> l2 -> l form a cycle"}},
		{"mixed roles", `{"start": "a", "nodes": {"a": {"gather": {"input": ["dtmf"]}, "persona": "p", "next": "a"}}, "personas": {"p": {}}}`,
			[]string{"/nodes/a (line 1, column 31): a node does one of gather, persona and lookup_member", "/nodes/a/next", "next is never taken"}},
		{"gather going nowhere", `{"start": "a", "nodes": {"a": {"gather": {"input": ["dtmf"]}}}}`, []string{"/nodes/a/gather", "a gather needs next, routes or default"}},
		{"routes without gather", `{"start": "a", "nodes": {"a": {"routes": {"1": "a"}}}}`, []string{"/nodes/a/routes", "this node has no gather"}},
		{"bad input kinds", `{"start": "a", "nodes": {"a": {"gather": {"input": ["voice", "dtmf", "dtmf"]}, "next": "a"}}}`,
			[]string{`/nodes/a/gather/input/0`, `"voice" is not "dtmf" or "speech"`, `/nodes/a/gather/input/2`, `"dtmf" is listed twice`}},
		{"empty input", `{"start": "a", "nodes": {"a": {"gather": {"input": []}, "next": "a"}}}`, []string{"/nodes/a/gather/input"}},
		{"digits for speech", `{"start": "a", "nodes": {"a": {"gather": {"input": ["speech"], "num_digits": 4, "finish_on_key": "*"}, "next": "a"}}}`,
			[]string{"/nodes/a/gather/num_digits", `applies to "dtmf" input`, "/nodes/a/gather/finish_on_key"}},
		{"bad digits", `{"start": "a", "nodes": {"a": {"gather": {"input": ["dtmf"], "num_digits": 65, "finish_on_key": "##"}, "next": "a"}}}`,
			[]string{"must be from 1 to 64, not 65", `must be one key of 0-9, * and #, or "" for none; not "##"`}},
		{"hold too long", `{"start": "a", "nodes": {"a": {"hold_seconds": -1}}}`, []string{"/nodes/a/hold_seconds", "must be from 0 to 86400, not -1"}},
		{"wrong type", `{"start": "a", "nodes": {"a": {"hold_seconds": "30"}}}`, []string{"/nodes/a/hold_seconds", "must be a whole number"}},
		{"repeated key", `{"start": "a", "start": "a", "nodes": {"a": {}}}`, []string{`the key "start" is written twice`}},
		{"agent persona", `{"start": "a", "nodes": {"a": {"persona": "p"}}, "personas": {"p": {"speaker": "agent"}}}`,
			[]string{"/personas/p/speaker", `must be "caller" or "ivr"`}},
		{"phrases without words", `{"start": "a", "nodes": {"a": {"persona": "p"}}, "personas": {"p": {"answers": [{"when": ["um", "ok"], "say": "x"}, {"when": [], "say": "y"}], "goodbye": ["!!"]}}}`,
			[]string{"/personas/p/answers/0/when/0", `"um" has no words`, "/personas/p/answers/1/when", "/personas/p/goodbye/0"}},
		{"answer without say", `{"start": "a", "nodes": {"a": {"persona": "p"}}, "personas": {"p": {"answers": [{"when": ["x"]}]}}}`,
			[]string{"/personas/p/answers/0/say", "is required"}},
		{"instructions of a scripted persona", `{"start": "a", "nodes": {"a": {"persona": "p"}}, "personas": {"p": {"instructions": "be kind"}}}`,
			[]string{"/personas/p/instructions", `for an LLM persona`}},
		{"escaped names", `{"start": "a/b", "nodes": {"a/b": {"say": "x", "next": "c~d"}}}`, []string{`/nodes/a~1b/next`, `"c~d" is not a node`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := phonesim.Parse([]byte(tc.json))
			if err == nil {
				t.Fatal("no error")
			}
			var errs strictjson.Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error %T, want strictjson.Errors: %v", err, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestParseEveryProblem: unknown keys, wrong types and missing keys are
// reported with the line's own mistakes (a route, a persona naming
// nothing), each once, in document order with its place.
func TestParseEveryProblem(t *testing.T) {
	_, err := phonesim.Parse(readTestdata(t, "problems.json"))
	var errs strictjson.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("err = %v, want strictjson.Errors", err)
	}
	want := []string{
		`/nodes/welcome/hold_seconds (line 2, column 66): must be a whole number, not a string`,
		`/nodes/menu/gathr (line 3, column 36): unknown key "gathr" (did you mean "gather"?)`,
		`/nodes/menu/routes (line 4, column 22): routes pick the node after a gather: this node has no gather`,
		`/nodes/menu/routes/2 (line 4, column 41): "rpe" is not a node (there are "elig", "menu", "rep", "welcome")`,
		`/nodes/menu/default (line 4, column 60): default picks the node after a gather: this node has no gather`,
		`/nodes/rep/persona (line 6, column 44): "dana" is not a persona (there are "rep")`,
		`/personas/rep (line 7, column 22): no node hands the call to persona "rep"`,
		`/personas/rep/answers/0/say (line 7, column 54): is required`,
	}
	got := make([]string, len(errs))
	for i, e := range errs {
		got[i] = e.Error()
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestNewSeed(t *testing.T) {
	ivr := readTestdata(t, "ivr.json")
	for _, tc := range []struct {
		name string
		seed fstest.MapFS
		want string // "" for no error
	}{
		{"no line", fstest.MapFS{}, ""},
		{"line without a policy", fstest.MapFS{"voice/ivr.json": {Data: ivr}},
			"voice/ivr.json: /nodes/lookup/lookup_member: looking a member up needs the seed's payer/policy.json"},
		{"bad line", fstest.MapFS{"voice/ivr.json": {Data: []byte(`{"start": "a", "nodes": {"a": {"next": "b"}}}`)}},
			`voice/ivr.json: /nodes/a/next (line 1, column 40): "b" is not a node`},
		{"a folder", fstest.MapFS{"voice/ivr.json/x": {Data: []byte("{}")}}, "voice/ivr.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := phonesim.New(tc.seed)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
