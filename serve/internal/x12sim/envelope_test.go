package x12sim_test

import (
	"strings"
	"testing"

	"github.com/assaykit/assay/x12"
)

// TestEnvelope: senders and receivers swapped, separators, ISA11, ISA12
// and ISA15 echoed, control numbers from the run's counters, times from
// the run's clock.
func TestEnvelope(t *testing.T) {
	f := newFrame(t, nil)
	tr := f.newRun("env")
	x := tr.answer(req270(t, ""))
	checkPaths(t, x, map[string]string{
		"ISA01": "00", "ISA02": "          ", "ISA05": "ZZ", "ISA06": "ACME01         ", "ISA07": "ZZ", "ISA08": "CLINIC01       ",
		"ISA09": "260301", "ISA10": "0900", "ISA11": "^", "ISA12": "00501", "ISA13": "000000001", "ISA15": "T", "ISA16": ":",
		"GS01": "HB", "GS02": "ACME01", "GS03": "CLINIC01", "GS04": "20260301", "GS05": "0900", "GS06": "1", "GS08": "005010X279A1",
		"ST01": "271", "ST02": "0001", "ST03": "005010X279A1", "BHT04": "20260301", "BHT05": "0900", "IEA02": "000000001",
	})
	// The run's clock moves; the counters go on.
	r := do(t, "POST", f.srv.URL()+"/runs/env/clock", f.srv.Token(), "application/json", []byte(`{"advance": "26h30m"}`))
	if r.status != 200 {
		t.Fatalf("clock: %d %s", r.status, r.body)
	}
	x = tr.answer(req276(t, "TRN*1*PCN-1"))
	checkPaths(t, x, map[string]string{"ISA09": "260302", "ISA10": "1130", "ISA13": "000000002", "GS06": "2", "ST02": "0002", "GS04": "20260302", "2200D/STC02": "20260302"})
	// Another run counts from 1 again.
	x = f.newRun("env2").answer(req270(t, ""))
	checkPaths(t, x, map[string]string{"ISA13": "000000001", "ST02": "0001"})
}

// rewrite writes a request with other delimiters: req's * ^ : ~ become
// e r c s (r 0: ISA11 is U and the request has no repetitions).
func rewrite(req string, e, r, c, s byte) string {
	var b strings.Builder
	for i := 0; i < len(req); i++ {
		switch ch := req[i]; ch {
		case '*':
			b.WriteByte(e)
		case '^':
			if r == 0 {
				b.WriteByte('U')
			} else {
				b.WriteByte(r)
			}
		case ':':
			b.WriteByte(c)
		case '~':
			b.WriteByte(s)
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

func TestDelimitersEchoed(t *testing.T) {
	tr := newFrame(t, nil).newRun("delims")
	for _, tc := range []struct {
		name       string
		req        string
		want       x12.Delimiters
		isa11, ver string
	}{
		{name: "pipes and line breaks", req: rewrite(req270(t, ""), '|', '!', '>', '\n'), want: x12.Delimiters{Element: '|', Repetition: '!', Component: '>', Segment: '\n'}, isa11: "!", ver: "00501"},
		{name: "no repetition separator, 4010 ISA", req: strings.Replace(rewrite(req270(t, ""), '*', 0, ':', '~'), "*00501*", "*00401*", 1),
			want: x12.Delimiters{Element: '*', Component: ':', Segment: '~'}, isa11: "U", ver: "00401"},
		{name: "ISA11 equal to ISA16: the standard delimiters", req: rewrite(req270(t, ""), '|', '>', '>', '\n'), want: x12.Delimiters{Element: '*', Repetition: '^', Component: ':', Segment: '~'}, isa11: "^", ver: "00501"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := tr.answer(tc.req)
			if d := x.Delimiters(); d != tc.want {
				t.Errorf("delimiters %q, want %q", d, tc.want)
			}
			checkPaths(t, x, map[string]string{"ISA11": tc.isa11, "ISA12": tc.ver, "2110C/EB01": "1", "2000C/TRN01": "2"})
		})
	}
	// EQ*30:MR with ISA11 = ISA16 = ':' asks about both service types.
	req := strings.Replace(strings.ReplaceAll(req270(t, "", "TRN*1*T*9X", "NM1*IL*1*DOE*JANE****MI*W123456789", "EQ*30^MR"), "30^MR", "30:MR"), "*^*00501", "*:*00501", 1)
	checkPaths(t, tr.answer(req), map[string]string{"2110C/EB(*)03": "30|30|30|30|MR"})
}

// TestBadInput: each bad request gets its protocol's answer (a TA1 or a
// 999 rejecting it, HTTP 200, recorded), or the sandbox's refusal for a
// body over the cap, and an event says which; nothing crashes.
func TestBadInput(t *testing.T) {
	f := newFrame(t, nil)
	tr := f.newRun("bad")
	good := req270(t, "")
	wrongCount := strings.Replace(good, "~SE*12*0001", "~SE*13*0001", 1)
	twoSets := strings.Replace(good, "GE*1*101~", "ST*270*0002*005010X279A1~BHT*0022*13*X~SE*3*0002~GE*2*101~", 1)
	pipes := strings.Replace(rewrite(good, '|', '>', '>', '~'), "|ACME|", "|A*B|", 1)
	for _, tc := range []struct {
		name, req string
		tx        string
		want      map[string]string
	}{
		{name: "not X12", req: "hello, payer", tx: "TA1", want: map[string]string{"TA101": "000000000", "TA104": "R", "TA105": "022", "ISA06": "ACME01         ", "GS01": "<nil>", "IEA01": "0"}},
		{name: "truncated inside the ISA", req: good[:60], tx: "TA1", want: map[string]string{"TA104": "R", "TA105": "023", "ISA08": "CLINIC01       "}},
		{name: "element separator equals the component separator", req: strings.Replace(good, "*:~", "**~", 1), tx: "TA1", want: map[string]string{"TA101": "000000101", "TA102": "260301", "TA103": "0900", "TA104": "R", "TA105": "026"}},
		{name: "truncated after the ISA", req: good[:strings.Index(good, "HL*2")], tx: "999", want: map[string]string{
			"AK101": "HS", "AK102": "101", "AK103": "005010X279A1", "AK201": "270", "AK202": "0001", "IK501": "R", "IK502": "2", "AK901": "R", "AK905": "3", "GS01": "FA", "ST03": "005010X231A1"}},
		{name: "SE01 wrong", req: wrongCount, tx: "999", want: map[string]string{"IK501": "R", "IK502": "4", "AK901": "R", "AK902": "1", "AK903": "1", "AK904": "0"}},
		{name: "another transaction set", req: interchange(t, "HC", "837", "005010X222A1", "BHT*0019*00*X"), tx: "999", want: map[string]string{"AK201": "837", "IK502": "1", "AK901": "R"}},
		{name: "a 4010 270", req: interchange(t, "HS", "270", "004010X092A1", "BHT*0022*13*X"), tx: "999", want: map[string]string{"AK103": "004010X092A1", "AK203": "<nil>", "IK502": "I6", "AK905": "2"}},
		{name: "two transaction sets", req: twoSets, tx: "999", want: map[string]string{"AK2(*)02": "0001|0002", "IK5(*)01": "R|R", "AK902": "2"}},
		{name: "data holding the answer's delimiters", req: pipes, tx: "999", want: map[string]string{"IK301": "NM1", "IK302": "4", "IK304": "8", "IK401": "3", "IK403": "6", "IK502": "5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := tr.answer(tc.req)
			if tc.tx == "999" {
				if tx := x.Transactions(); len(tx) == 0 || tx[0].Code != "999" {
					t.Fatalf("not a 999: %+v", tx)
				}
			} else if get(t, x, "TA1(*)01") == "<nil>" {
				t.Fatalf("not a TA1")
			}
			checkPaths(t, x, tc.want)
			ev := tr.events()
			if last := ev[len(ev)-1]; last["transaction"] != tc.tx || last["status"] != 200.0 || last["error"] == "" {
				t.Errorf("event %v", last)
			}
		})
	}
	// A huge segment is answered (echoed where it belongs); a body over
	// 1 MiB is 413, and an event says so.
	huge := strings.Repeat("X", 900<<10)
	x := tr.answer(req270(t, "NM1*1P*2*"+huge+"*****XX*1234567893"))
	if got := get(t, x, "2100B/NM1[1P]03"); got != huge {
		t.Errorf("the huge name came back as %d bytes", len(got))
	}
	if r := tr.post(req270(t, "NM1*1P*2*"+huge+huge+"*****XX*1234567893")); r.status != 413 {
		t.Errorf("a 1.8 MiB body: %d %s", r.status, r.body)
	}
	if ev := tr.events(); ev[len(ev)-1]["status"] != 413.0 || ev[len(ev)-1]["transport"] != "x12" {
		t.Errorf("event %v", ev[len(ev)-1])
	}
	// Methods and paths.
	if r := do(t, "GET", tr.endpoints["x12"], tr.token, "", nil); r.status != 405 {
		t.Errorf("GET x12: %d", r.status)
	}
	if r := do(t, "POST", tr.endpoints["x12"]+"/nope", tr.token, "", nil); r.status != 404 {
		t.Errorf("POST x12/nope: %d", r.status)
	}
}
