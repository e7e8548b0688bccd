package x12sim

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestSelfCheck: an answer that assay's own parser reads with findings is
// not sent (13.6): the request gets 500 INTERNAL as JSON, an x12_exchange
// event says why, and nothing is recorded or held. testBreakAnswer makes
// the built 271 lie about its segment count, as a writer bug would.
func TestSelfCheck(t *testing.T) {
	req, err := os.ReadFile("testdata/requests/270_jane.x12")
	if err != nil {
		t.Fatal(err)
	}
	rs, fr := newTestRun(t)
	var built []byte
	testBreakAnswer = func(b []byte) []byte {
		built = bytes.Replace(b, []byte("SE*"), []byte("SE*9"), 1)
		return built
	}
	t.Cleanup(func() { testBreakAnswer = nil })

	w := httptest.NewRecorder()
	rs.serveX12(w, httptest.NewRequest("POST", "/x12", bytes.NewReader(req)))
	if w.Code != http.StatusInternalServerError || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("status %d, Content-Type %q", w.Code, w.Header().Get("Content-Type"))
	}
	if built == nil || bytes.Contains(w.Body.Bytes(), []byte("ISA")) || bytes.Contains(w.Body.Bytes(), built[:20]) {
		t.Fatalf("the broken answer was sent (or never built): %s", w.Body)
	}
	var body struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error.Code != "INTERNAL" ||
		!strings.Contains(body.Error.Message, "the clearinghouse built a 271 that its own parser reads with findings") {
		t.Fatalf("body %s (%v)", w.Body, err)
	}
	if len(fr.Events()) != 1 {
		t.Fatalf("%d events, want 1", len(fr.Events()))
	}
	ev := fr.Events()[0].Fields.(exchangeEvent)
	if fr.Events()[0].Type != "x12_exchange" || ev.Status != 500 || ev.Transaction == nil || *ev.Transaction != "271" ||
		!strings.Contains(ev.Error, "SE01") {
		t.Errorf("event %s %+v", fr.Events()[0].Type, ev)
	}
	if len(rs.records) != 0 || rs.size != 0 || fr.Used() != 0 {
		t.Errorf("a refused answer was recorded: %d records, %d bytes, %d held", len(rs.records), rs.size, fr.Used())
	}

	// Without the hook the same request is answered: the check refused
	// only the broken answer.
	testBreakAnswer = nil
	w = httptest.NewRecorder()
	rs.serveX12(w, httptest.NewRequest("POST", "/x12", bytes.NewReader(req)))
	if w.Code != http.StatusOK || !bytes.HasPrefix(w.Body.Bytes(), []byte("ISA")) || len(rs.records) != 1 {
		t.Errorf("unhooked: %d %.60s, %d records", w.Code, w.Body, len(rs.records))
	}
}
