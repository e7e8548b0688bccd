package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/servetest"
)

func phoneSeed(t testing.TB) fstest.MapFS {
	t.Helper()
	seed := fstest.MapFS{}
	for name, file := range map[string]string{"voice/ivr.json": "ivr.json", "payer/policy.json": "policy.json"} {
		data, err := os.ReadFile(filepath.Join("internal", "phonesim", "testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		seed[name] = &fstest.MapFile{Data: data}
	}
	return seed
}

// client calls a sandbox with a token.
type client struct {
	t     testing.TB
	http  *http.Client
	token string
}

func (c client) do(method, url, body string, into any) int {
	c.t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	if into != nil {
		if err := json.Unmarshal(data, into); err != nil {
			c.t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, data)
		}
	}
	return resp.StatusCode
}

type callReply struct {
	CallID string `json:"call_id"`
	Status string `json:"status"`
	Turns  []struct {
		Speaker, Text string
	} `json:"turns"`
}

// storyCall places the story's call on a run's voice endpoint.
func storyCall(t testing.TB, c client, voice string) {
	t.Helper()
	var r callReply
	if code := c.do("POST", voice+"/calls", `{"to": "+15550100"}`, &r); code != 201 {
		t.Fatalf("POST calls: %d", code)
	}
	for _, turn := range []string{
		`{"text": "W one two three four five six seven eight nine"}`,
		`{"dtmf": "2"}`,
		`{"text": "What is the status of the prior authorization?"}`,
		`{"text": "Thanks, that's all."}`,
	} {
		var next callReply
		if code := c.do("POST", voice+"/calls/"+r.CallID+"/turns", turn, &next); code != 200 {
			t.Fatalf("turn %s: %d", turn, code)
		}
		r.Status = next.Status
	}
	if r.Status != "completed" {
		t.Fatalf("the story's call is %s", r.Status)
	}
}

func TestPhoneLine(t *testing.T) {
	frozen := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	opts := serve.Options{Clock: frozen, Now: func() time.Time { return frozen }}
	srv := servetest.Start(t, phoneSeed(t), opts)
	op := client{t: t, http: http.DefaultClient, token: srv.Token()}
	var snaps []string
	for _, id := range []string{"a", "b"} {
		var run struct {
			Token     string
			Endpoints map[string]string
		}
		if code := op.do("POST", srv.URL()+"/runs", `{"id": "`+id+`"}`, &run); code != 201 {
			t.Fatalf("POST /runs: %d", code)
		}
		voice := run.Endpoints["voice"]
		if voice != srv.URL()+"/runs/"+id+"/voice" {
			t.Fatalf("endpoints: %v", run.Endpoints)
		}
		rc := client{t: t, http: http.DefaultClient, token: run.Token}
		if code := (client{t: t, http: http.DefaultClient}).do("POST", voice+"/calls", "", nil); code != 401 {
			t.Errorf("a call without the token: %d", code)
		}
		storyCall(t, rc, voice)
		var done struct{ Snapshot string }
		if code := rc.do("POST", srv.URL()+"/runs/"+id+"/complete", "", &done); code != 200 {
			t.Fatalf("complete: %d", code)
		}
		if code := rc.do("POST", voice+"/calls", "", nil); code != 409 {
			t.Errorf("a call after complete: %d, want 409", code)
		}
		snaps = append(snaps, done.Snapshot)
	}
	// Two runs given the same requests write the same transcript and
	// events.
	for _, f := range []string{"voice/transcript.json", "events.jsonl"} {
		a, err := os.ReadFile(filepath.Join(snaps[0], f))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(snaps[1], f))
		if string(a) != string(b) {
			t.Errorf("%s differs between two runs:\n%s\n%s", f, a, b)
		}
	}
	events, _ := os.ReadFile(filepath.Join(snaps[0], "events.jsonl"))
	for _, want := range []string{
		`"sim":"voice","type":"voice_call","call_id":"CA000001","state":"started"}`,
		`"sim":"voice","type":"voice_turn","call_id":"CA000001","speaker":"agent","text":"DTMF 2"}`,
		`"sim":"run","type":"clock","now":"2026-11-30T14:00:30.000Z"}`,
		`"sim":"voice","type":"voice_call","call_id":"CA000001","state":"completed"}`,
	} {
		if !strings.Contains(string(events), want) {
			t.Errorf("events.jsonl lacks %s:\n%s", want, events)
		}
	}
	transcript, _ := os.ReadFile(filepath.Join(snaps[0], "voice", "transcript.json"))
	if !strings.Contains(string(transcript), `{"speaker":"caller","text":"Utilization management, this is Dana. How can I help?","start_ms":30000,"end_ms":32700,"call_id":"CA000001"}`) {
		t.Errorf("transcript.json:\n%s", transcript)
	}
}

func TestPhoneLineSeed(t *testing.T) {
	seed := phoneSeed(t)
	// Without voice/ivr.json a call is 503 naming it.
	srv := servetest.Start(t, fstest.MapFS{}, serve.Options{})
	run, err := srv.NewRun(context.Background(), serve.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct{ Code, Message string }
	}
	c := client{t: t, http: http.DefaultClient, token: run.Token()}
	if code := c.do("POST", run.Endpoints()["voice"]+"/calls", "", &e); code != 503 || !strings.Contains(e.Error.Message, "voice/ivr.json") {
		t.Errorf("no line: %d %+v", code, e)
	}
	for _, tc := range []struct {
		name string
		ivr  string
		opts serve.Options
		want string
	}{
		{"a cycle", `{"start": "a", "nodes": {"a": {"say": "x", "next": "a"}}}`, serve.Options{},
			"voice/ivr.json: /nodes/a (line 1, column 31): the nodes a -> a form a cycle"},
		{"an LLM persona without a model", `{"start": "a", "nodes": {"a": {"persona": "p"}}, "personas": {"p": {"llm": true}}}`, serve.Options{},
			"voice/ivr.json: /personas/p/llm: an LLM persona needs a model"},
		{"a broken cache", `{"start": "a", "nodes": {"a": {"persona": "p"}}, "personas": {"p": {"llm": true}}}`,
			serve.Options{PersonaModel: "m", PersonaCache: "/dev/null"}, "--persona-cache /dev/null: not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed["voice/ivr.json"] = &fstest.MapFile{Data: []byte(tc.ivr)}
			tc.opts.Out = t.TempDir()
			_, err := serve.New(seed, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if perr := serve.ParsePhoneLine([]byte(tc.ivr)); (perr != nil) != (tc.name == "a cycle") {
				t.Errorf("ParsePhoneLine: %v", perr)
			}
		})
	}
}

func ExampleParsePhoneLine() {
	err := serve.ParsePhoneLine([]byte(`{"start": "menu", "nodes": {
  "menu": {"say": "Press 1 for claims.", "gather": {"input": ["dtmf"], "num_digits": 1}, "routes": {"1": "claims"}},
  "claims": {"say": "Claims are closed today.", "next": "menu", "hold_seconds": -5}}}`))
	fmt.Println(err)
	// Output:
	// /nodes/claims/hold_seconds (line 3, column 81): must be from 0 to 86400, not -5
}

// BenchmarkPhoneTurns sends agent turns through the HTTP API from 100
// concurrent calls (each on its own run, hanging up and calling again
// before a call's turn cap), and reports turns per second and the 99th
// percentile of a turn's latency.
func BenchmarkPhoneTurns(b *testing.B) {
	const calls = 100
	srv := servetest.Start(b, phoneSeed(b), serve.Options{MaxRuns: calls + 1})
	tr := &http.Transport{MaxIdleConnsPerHost: calls}
	hc := &http.Client{Transport: tr}
	b.Cleanup(tr.CloseIdleConnections)
	type worker struct {
		c     client
		voice string
	}
	workers := make([]worker, calls)
	for i := range workers {
		run, err := srv.NewRun(context.Background(), serve.RunOptions{})
		if err != nil {
			b.Fatal(err)
		}
		workers[i] = worker{client{t: b, http: hc, token: run.Token()}, run.Endpoints()["voice"]}
	}
	var mu sync.Mutex
	var lat []time.Duration
	per := b.N/calls + 1
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, per)
			var id string
			for i := 0; i < per; i++ {
				if i%300 == 0 { // a call holds at most 1000 turns; a run 1000 calls
					var r callReply
					if code := w.c.do("POST", w.voice+"/calls", "", &r); code != 201 {
						b.Errorf("POST calls: %d", code)
						return
					}
					id = r.CallID
					w.c.do("POST", w.voice+"/calls/"+id+"/turns", `{"text": "W one two three four five six seven eight nine"}`, nil)
				}
				t0 := time.Now()
				if code := w.c.do("POST", w.voice+"/calls/"+id+"/turns", `{"dtmf": "1"}`, nil); code != 200 {
					b.Errorf("turn: %d", code)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "turns/s")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms/turn")
	}
}

// BenchmarkPhoneCallMemory places the story's call (12 turns, the
// persona's included) b.N times, on runs of 1000 calls each, and reports
// the heap the calls hold once placed.
func BenchmarkPhoneCallMemory(b *testing.B) {
	srv := servetest.Start(b, phoneSeed(b), serve.Options{MaxRuns: b.N/1000 + 1})
	var c client
	var voice string
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := range b.N {
		if i%1000 == 0 { // the most calls a run places
			run, err := srv.NewRun(context.Background(), serve.RunOptions{})
			if err != nil {
				b.Fatal(err)
			}
			c, voice = client{t: b, http: http.DefaultClient, token: run.Token()}, run.Endpoints()["voice"]
		}
		storyCall(b, c, voice)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-B/call")
}
