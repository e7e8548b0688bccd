package x12sim

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/sim"
	"github.com/assaykit/assay/x12"
)

// seg is one segment of an answer, decided before it is written, so that
// it can be written again with other delimiters without deciding twice.
// Most segments are of simple elements only (vals); one with a composite
// or repeated element holds elems instead.
type seg struct {
	id    string
	vals  []string
	elems []x12.Element
	// text marks the elements (bit n-1 for element n) that are free text
	// from the policy (names, messages): a delimiter in one becomes a
	// space, since X12 has no escape.
	text uint64
}

// segment makes a seg of simple elements.
func segment(id string, vals ...string) seg { return seg{id: id, vals: vals} }

// withText marks elements (1-based) as free text.
func (s seg) withText(elems ...int) seg {
	for _, n := range elems {
		s.text |= 1 << (n - 1)
	}
	return s
}

// answer is an interchange decided but not yet written: an optional TA1,
// then at most one functional group of transaction sets.
type answer struct {
	header x12.Header
	ta1    []seg
	group  *x12.Group
	sets   []set
}

type set struct {
	code, control string
	segs          []seg
}

// standard are the delimiters of an answer that cannot echo the
// request's: * ~ : ^.
var standard = x12.Delimiters{Element: '*', Repetition: '^', Component: ':', Segment: '~'}

// write writes a with delimiters d.
func (a *answer) write(d x12.Delimiters) ([]byte, error) {
	w := x12.NewWriter(d, a.header)
	for _, s := range a.ta1 {
		writeSeg(w, d, s)
	}
	if a.group != nil {
		w.Group(*a.group)
		for _, st := range a.sets {
			w.Set(st.code, st.control)
			for _, s := range st.segs {
				writeSeg(w, d, s)
			}
		}
	}
	return w.Bytes()
}

func writeSeg(w *x12.Writer, d x12.Delimiters, s seg) {
	if s.elems != nil {
		w.SegmentOf(s.id, s.elems...)
		return
	}
	vals := s.vals
	for i, v := range vals {
		if s.text&(1<<i) == 0 {
			continue
		}
		if clean := scrub(v, d); clean != v {
			if &vals[0] == &s.vals[0] {
				vals = slices.Clone(vals)
			}
			vals[i] = clean
		}
	}
	w.Segment(s.id, vals...)
}

// scrub replaces the delimiters in free text with spaces.
func scrub(v string, d x12.Delimiters) string {
	if strings.IndexByte(v, d.Element) < 0 && strings.IndexByte(v, d.Component) < 0 &&
		strings.IndexByte(v, d.Segment) < 0 && (d.Repetition == 0 || strings.IndexByte(v, d.Repetition) < 0) {
		return v
	}
	b := []byte(v)
	for i, c := range b {
		if c == d.Element || c == d.Component || c == d.Segment || c == d.Repetition && c != 0 {
			b[i] = ' '
		}
	}
	return string(b)
}

// outcome is what one exchange answered.
type outcome struct {
	status      int    // 200, or the HTTP status of a refusal
	code        string // the sandbox's error code of a refusal
	message     string // why the exchange was refused or rejected
	transaction string // 271, 277, 278, TA1 or 999
	response    []byte
	requestID   string
	patientID   string
	elig        *eligibility // the first subscriber's answer (270s)
}

func refused(status int, code, message string) *outcome {
	return &outcome{status: status, code: code, message: message}
}

// testBreakAnswer, set only by tests, changes an answer between its
// writing and its check: the one way to reach the check's refusal, which
// a correct writer never triggers.
var testBreakAnswer func([]byte) []byte

// exchange answers one X12 request: it decides and writes the answer,
// checks it with assay's own parser, and records it. It is the one path
// of every transport.
func (rs *runSim) exchange(req []byte, transport string) *outcome {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.size+int64(len(req))+recordOverhead > MaxRecords {
		o := refused(http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", fmt.Sprintf("this run's X12 records hold %d bytes, and a run holds at most %d (64 MiB)", rs.size, MaxRecords))
		rs.emit(o, transport)
		return o
	}
	o := rs.respond(req)
	if o.status == 0 {
		o.status = http.StatusOK
	}
	if o.status == http.StatusOK {
		if testBreakAnswer != nil {
			o.response = testBreakAnswer(o.response)
		}
		if _, err := x12.Parse(o.response, x12.Strict()); err != nil {
			rs.run.Logf("x12: the %s answer does not parse cleanly: %v", o.transaction, err)
			o.status, o.code, o.message = http.StatusInternalServerError, "INTERNAL", "the clearinghouse built a "+o.transaction+" that its own parser reads with findings: "+err.Error()
		}
	}
	if o.status != http.StatusOK {
		rs.emit(o, transport)
		return o
	}
	size := int64(len(req)+len(o.response)) + recordOverhead
	if rs.size+size > MaxRecords {
		o.status, o.code, o.message = http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", fmt.Sprintf("the answer would take this run's X12 records past %d bytes (64 MiB)", MaxRecords)
		rs.emit(o, transport)
		return o
	}
	if err := rs.run.Reserve(size); err != nil {
		o.status, o.code, o.message = http.StatusInsufficientStorage, "INSUFFICIENT_STORAGE", err.Error()
		rs.emit(o, transport)
		return o
	}
	rs.size += size
	rs.records = append(rs.records, record{
		Transaction: o.transaction, Request: string(req), Response: string(o.response),
		Metadata: metadata{RequestID: optional(o.requestID), PatientID: optional(o.patientID), Transport: transport},
	})
	rs.emit(o, transport)
	return o
}

// serveX12 answers POST BASE/x12: the body is the interchange.
func (rs *runSim) serveX12(w http.ResponseWriter, r *http.Request) {
	body, err := sim.ReadBody(w, r, MaxRequest)
	if err != nil {
		o := refused(http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", "an X12 request is at most 1 MiB: "+err.Error())
		if !errors.Is(err, sim.ErrTooLarge) {
			o = refused(http.StatusBadRequest, "VALIDATION_ERROR", err.Error())
		}
		rs.emit(o, transportX12)
		sim.WriteJSONError(w, o.status, o.code, o.message, nil)
		return
	}
	o := rs.exchange(body, transportX12)
	if o.status != http.StatusOK {
		sim.WriteJSONError(w, o.status, o.code, o.message, nil)
		return
	}
	w.Header().Set("Content-Type", "application/edi-x12")
	w.WriteHeader(http.StatusOK)
	w.Write(o.response)
}

// respond decides and writes the answer to req.
func (rs *runSim) respond(req []byte) *outcome {
	x, err := x12.Parse(req)
	if err != nil {
		return rs.ta1(req, "the ISA cannot be read: "+err.Error())
	}
	env := rs.envelope(x)
	if p := problems(x); len(p) > 0 {
		return rs.reject(x, env, p)
	}
	tx := x.Transactions()[0]
	r := readRequest(x, tx)
	if env.d == standard && env.reqDelims != standard {
		// The answer cannot echo the request's delimiters; it uses the
		// standard ones, which the request's data must not hold.
		if s, n, ok := holdsStandard(r); ok {
			return rs.reject(x, env, []problem{{set: 0, ik5: "5", seg: s, elem: n, msg: "segment " + s.ID() + " holds one of * ~ : ^, which the answer needs as delimiters"}})
		}
	}
	if tx.Code == "270" {
		if p, over := eqOverflow(r); over {
			return rs.reject(x, env, []problem{p})
		}
	}
	var o *outcome
	var a *answer
	switch tx.Code {
	case "270":
		a, o = rs.eligibilityAnswer(r, env)
	case "276":
		a, o = rs.claimAnswer(r, env)
	default: // 278: problems let nothing else through
		a, o = rs.authAnswer(r, env)
	}
	if o.status != 0 {
		return o
	}
	data, err := rs.writeAnswer(a, env)
	if err != nil {
		return refused(http.StatusInternalServerError, "INTERNAL", "the "+o.transaction+" cannot be written: "+err.Error())
	}
	o.response = data
	return o
}

// writeAnswer writes a with the envelope's delimiters, else with the
// standard ones (a value of the policy may hold one of the request's).
func (rs *runSim) writeAnswer(a *answer, env envelope) ([]byte, error) {
	data, err := a.write(env.d)
	std := standard
	if a.header.Version < "00402" {
		std.Repetition = 0 // ISA11 is a repetition separator from 00402 on
	}
	if err != nil && errors.Is(err, x12.ErrDelimiter) && env.d != std {
		data, err = a.write(std)
	}
	return data, err
}

// envelope is what an answer's envelope takes from the request.
type envelope struct {
	d, reqDelims x12.Delimiters
	header       x12.Header // ISA13 and the time still to fill
	gsSender     string     // the request's GS03
	gsReceiver   string     // the request's GS02
	version      string     // the request's transaction set version
}

// envelope reads the answer's envelope from the request: ISA05/06 and
// ISA07/08 swapped, ISA11 (the delimiters), ISA12 and ISA15 echoed, GS02
// and GS03 swapped. A value that cannot be echoed (a delimiter in it, a
// wrong width) is replaced: the payer's id for the sender, UNKNOWN for the
// receiver.
func (rs *runSim) envelope(x *x12.Interchange) envelope {
	isa := x.Segment(0)
	d := x.Delimiters()
	e := envelope{d: d, reqDelims: d}
	if d.Repetition == d.Component || !writable(d) {
		e.d = standard
	}
	payerID := rs.ledger.Policy().Payer.ID
	e.header = x12.Header{
		SenderQualifier: code2(el(isa, 7), "ZZ"), Sender: isaID(el(isa, 8), payerID),
		ReceiverQualifier: code2(el(isa, 5), "ZZ"), Receiver: isaID(el(isa, 6), "UNKNOWN"),
		Version: "00501", Usage: "P",
	}
	if v := el(isa, 12); len(v) == 5 && allDigits(v) && (e.d.Repetition == 0 || v >= "00402") {
		e.header.Version = v
	}
	if u := el(isa, 15); u == "T" || u == "P" || u == "I" {
		e.header.Usage = u
	}
	if gs, ok := firstSegment(x, "GS"); ok {
		e.gsSender, e.gsReceiver = el(gs, 3), el(gs, 2)
	}
	e.gsSender = or(e.gsSender, payerID)
	e.gsReceiver = or(e.gsReceiver, "UNKNOWN")
	if txs := x.Transactions(); len(txs) > 0 {
		e.version = txs[0].Version
	}
	return e
}

// writable reports whether the Writer takes d.
func writable(d x12.Delimiters) bool {
	if d == standard {
		return true
	}
	return x12.NewWriter(d, x12.Header{}).Err() == nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// code2 is a two-character ISA qualifier from the request, else def.
func code2(v, def string) string {
	v = strings.TrimSpace(v)
	if len(v) != 2 || !printable(v) {
		return def
	}
	return v
}

// isaID is an ISA sender or receiver id from the request, without its
// padding, else def.
func isaID(v, def string) string {
	v = strings.TrimRight(v, " ")
	if v == "" || len(v) > 15 || !printable(v) {
		return or(clipID(def), "UNKNOWN")
	}
	return v
}

func clipID(s string) string { return s[:min(len(s), 15)] }

// printable: ASCII from space to tilde, none of the standard delimiters.
func printable(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' || c > '~' || c == '*' || c == '~' || c == ':' || c == '^' {
			return false
		}
	}
	return true
}

func allDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return v != ""
}

func firstSegment(x *x12.Interchange, id string) (x12.Segment, bool) {
	for i := range x.Len() {
		if s := x.Segment(i); s.ID() == id {
			return s, true
		}
	}
	return x12.Segment{}, false
}

// begin fills the envelope of an answer of transaction code (GS01
// functional code) from the run's clock and counters.
func (rs *runSim) begin(env envelope, functional, version string) *answer {
	now := rs.run.Now().UTC()
	ctrl := rs.run.Next("x12_interchange") % 1000000000
	a := &answer{header: env.header}
	a.header.Time, a.header.Control = now, ctrl
	if functional != "" {
		a.group = &x12.Group{Code: functional, Sender: env.gsSender, Receiver: env.gsReceiver, Time: now, Control: max(ctrl, 1), Version: version}
	}
	return a
}

// nextSet numbers a transaction set of the run's answers: 0001 on.
func (rs *runSim) nextSet() string {
	return fmt.Sprintf("%04d", rs.run.Next("x12_set")%1000000000)
}

// ta1 answers an interchange whose ISA cannot be read: a TA1 with TA104 R,
// with the standard delimiters, echoing what of the ISA can be read.
func (rs *runSim) ta1(req []byte, why string) *outcome {
	f := looseISA(req)
	payerID := rs.ledger.Policy().Payer.ID
	env := envelope{d: standard, header: x12.Header{
		SenderQualifier: code2(f[7], "ZZ"), Sender: isaID(f[8], payerID),
		ReceiverQualifier: code2(f[5], "ZZ"), Receiver: isaID(f[6], "UNKNOWN"), Version: "00501", Usage: "P",
	}}
	if f[15] == "T" || f[15] == "P" || f[15] == "I" {
		env.header.Usage = f[15]
	}
	a := rs.begin(env, "", "")
	now := a.header.Time
	ctrl := f[13]
	if len(ctrl) != 9 || !allDigits(ctrl) {
		ctrl = "000000000"
	}
	d, t := f[9], f[10]
	if len(d) != 6 || !allDigits(d) || len(t) != 4 || !allDigits(t) {
		d, t = now.Format("060102"), now.Format("1504")
	}
	a.ta1 = []seg{segment("TA1", ctrl, d, t, "R", ta1Note(why))}
	data, err := a.write(standard)
	if err != nil {
		return refused(http.StatusInternalServerError, "INTERNAL", "the TA1 cannot be written: "+err.Error())
	}
	return &outcome{transaction: "TA1", response: data, message: why}
}

// ta1Note is TA105 for what is wrong with the ISA: 023 for an input that
// ends early, 026/027 for delimiters that collide, 022 (invalid control
// structure) for the rest.
func ta1Note(why string) string {
	switch {
	case strings.Contains(why, "ends inside"):
		return "023"
	case strings.Contains(why, "must differ"):
		return "026"
	}
	return "022"
}

// looseISA reads what it can of an ISA that the parser refused: the
// elements split at the byte after "ISA", by position (f[1] is ISA01).
func looseISA(req []byte) [17]string {
	var f [17]string
	i := 0
	if bytes.HasPrefix(req, []byte("\uFEFF")) {
		i = 3
	}
	for i < len(req) && (req[i] == ' ' || req[i] == '\t' || req[i] == '\r' || req[i] == '\n') {
		i++
	}
	s := req[i:min(len(req), i+200)]
	if !bytes.HasPrefix(s, []byte("ISA")) || len(s) < 4 {
		return f
	}
	for n, v := range bytes.SplitN(s[4:], s[3:4], 17) {
		if n < 16 {
			f[n+1] = string(v)
		}
	}
	return f
}

// problem is one reason to reject a request with a 999.
type problem struct {
	set  int    // the index of the transaction set it concerns; -1: none
	ik5  string // IK502, the set's syntax error code ("" none)
	ak9  string // AK905, the group's code ("" none)
	seg  x12.Segment
	elem int // IK4's element position, with seg (0: no IK4)
	// ik3 is IK304 of a problem with seg itself (no IK4), such as a loop
	// repeated too often; "" with elem > 0 is IK304 8, an element in
	// error. IK303 (the loop id) is left out: X12's loop identifier is at
	// most 4 characters, and the guide's names (2110C) are 5.
	ik3 string
	msg string
}

// MaxEQ is how many times 005010X279A1 lets the EQ loop (2110C, 2110D)
// repeat under one subscriber or dependent.
const MaxEQ = 99

// eqOverflow finds the first subscriber or dependent level of a 270 whose
// EQ loop repeats more than MaxEQ times: its EQ past the cap is the
// problem (IK304 4, loop occurs over maximum times).
func eqOverflow(r *request) (problem, bool) {
	for _, n := range r.all {
		eqs := findAll(n.segs, "EQ")
		if len(eqs) <= MaxEQ {
			continue
		}
		loop := "2110C"
		if n.level == "23" {
			loop = "2110D"
		}
		return problem{set: 0, ik5: "5", seg: eqs[MaxEQ], ik3: "4",
			msg: fmt.Sprintf("HL %s holds %d EQ segments: 005010X279A1 repeats loop %s at most %d times", n.id, len(eqs), loop, MaxEQ)}, true
	}
	return problem{}, false
}

// problems lists why a request is rejected with a 999: its envelope
// findings (ISA11 equal to ISA16 aside: the answer then uses the standard
// delimiters), an interchange that is not one group holding one
// transaction set, a set other than 270, 276 or 278, or one of another
// version than its guide's.
func problems(x *x12.Interchange) []problem {
	txs := x.Transactions()
	var out []problem
	for _, f := range x.Findings() {
		if f.ID == "ISA" && strings.Contains(f.Message, "is also ISA16") {
			continue
		}
		p := problem{set: setOf(txs, f.Segment-1), msg: f.String()}
		switch {
		case strings.Contains(f.Message, "SE01"):
			p.ik5 = "4"
		case strings.Contains(f.Message, "SE02"):
			p.ik5 = "3"
		case strings.Contains(f.Message, "has no SE"), strings.Contains(f.Message, "before the SE"):
			p.ik5 = "2"
		case strings.Contains(f.Message, "GE01"):
			p.ak9 = "5"
		case strings.Contains(f.Message, "GE02"):
			p.ak9 = "4"
		case strings.Contains(f.Message, "has no GE"), strings.Contains(f.Message, "before the GE"):
			p.ak9 = "3"
		case p.set >= 0:
			p.ik5 = "5"
		}
		out = append(out, p)
	}
	groups := 0
	for i := range x.Len() {
		if x.Segment(i).ID() == "GS" {
			groups++
		}
	}
	switch {
	case len(txs) == 0:
		out = append(out, problem{set: -1, msg: "the interchange holds no transaction set"})
	case len(txs) > 1 || groups > 1:
		out = append(out, problem{set: -1, msg: fmt.Sprintf("the interchange holds %d functional groups and %d transaction sets: a request is one of each", groups, len(txs))})
	}
	for k, tx := range txs {
		guide, ok := guides[tx.Code]
		switch {
		case !ok:
			out = append(out, problem{set: k, ik5: "1", msg: "transaction set " + strconv.Quote(tx.Code) + " is not a request the clearinghouse answers (270, 276 or 278)"})
		case !strings.Contains(tx.Version, guide):
			out = append(out, problem{set: k, ik5: "I6", ak9: "2", msg: "a " + tx.Code + " is answered in version 005010" + guide + ", not " + strconv.Quote(tx.Version)})
		}
	}
	return out
}

// guides are the implementation guides of the requests answered.
var guides = map[string]string{"270": "X279", "276": "X212", "278": "X217"}

// setOf returns the transaction set holding segment i (0-based), or -1.
func setOf(txs []x12.Transaction, i int) int {
	for k, tx := range txs {
		if i >= tx.Start && i <= tx.End {
			return k
		}
	}
	return -1
}

// holdsStandard finds the first segment of the request's set that holds
// one of the standard delimiters as data (one that is not the request's
// own delimiter), and its element.
func holdsStandard(r *request) (x12.Segment, int, bool) {
	var chars []byte
	for _, c := range []byte{'*', '~', ':', '^'} {
		if c != r.d.Element && c != r.d.Component && c != r.d.Segment && c != r.d.Repetition {
			chars = append(chars, c)
		}
	}
	for i := r.tx.Start; i <= r.tx.End; i++ {
		s := r.x.Segment(i)
		for n := 1; ; n++ {
			v, ok := s.Element(n)
			if !ok {
				break
			}
			if strings.ContainsAny(v, string(chars)) {
				return s, n, true
			}
		}
	}
	return x12.Segment{}, 0, false
}

// reject answers a 999 whose IK5 and AK9 say R: one 999 per functional
// group of the request, one AK2/IK5 per transaction set in it. Values of
// the request that cannot be written are left out; when even that fails,
// the answer is a TA1.
func (rs *runSim) reject(x *x12.Interchange, env envelope, ps []problem) *outcome {
	a := rs.begin(env, "FA", "005010X231A1")
	txs := x.Transactions()
	type group struct {
		gs   x12.Segment
		sets []int
	}
	var groups []group
	for i := range x.Len() {
		s := x.Segment(i)
		switch s.ID() {
		case "GS":
			groups = append(groups, group{gs: s})
		case "ST":
			if k := setOf(txs, i); k >= 0 && len(groups) > 0 {
				groups[len(groups)-1].sets = append(groups[len(groups)-1].sets, k)
			}
		}
	}
	if len(groups) == 0 {
		// No group to acknowledge: only a TA1 can answer.
		return rs.ta1Parsed(x, env, ps)
	}
	var msgs []string
	for _, p := range ps {
		msgs = append(msgs, p.msg)
	}
	for _, g := range groups {
		segs := []seg{segment("AK1", el(g.gs, 1), el(g.gs, 6), el(g.gs, 8))}
		var ak905 []string
		for _, k := range g.sets {
			tx := txs[k]
			segs = append(segs, segment("AK2", tx.Code, tx.Control, stVersion(x, tx)))
			var codes []string
			for _, p := range ps {
				switch {
				case p.set == k && p.ik3 != "":
					segs = append(segs, segment("IK3", p.seg.ID(), strconv.Itoa(p.seg.Index()-tx.Start+1), "", p.ik3))
				case p.set == k && p.elem > 0:
					segs = append(segs, segment("IK3", p.seg.ID(), strconv.Itoa(p.seg.Index()-tx.Start+1), "", "8"),
						segment("IK4", strconv.Itoa(p.elem), "", "6"))
				}
				if p.set == k && p.ik5 != "" && len(codes) < 5 && !slices.Contains(codes, p.ik5) {
					codes = append(codes, p.ik5)
				}
				if p.ak9 != "" && len(ak905) < 5 && !slices.Contains(ak905, p.ak9) {
					ak905 = append(ak905, p.ak9)
				}
			}
			segs = append(segs, segment("IK5", append([]string{"R"}, codes...)...))
		}
		n := strconv.Itoa(len(g.sets))
		segs = append(segs, segment("AK9", append([]string{"R", n, n, "0"}, ak905...)...))
		a.sets = append(a.sets, set{code: "999", control: rs.nextSet(), segs: segs})
	}
	data, err := rs.writeAnswer(a, env)
	if err != nil {
		return rs.ta1Parsed(x, env, ps)
	}
	return &outcome{transaction: "999", response: data, message: strings.Join(msgs, "; "), requestID: requestID(x), patientID: patientID(x)}
}

// stVersion is ST03 of tx as written ("" when absent).
func stVersion(x *x12.Interchange, tx x12.Transaction) string {
	return el(x.Segment(tx.Start), 3)
}

// ta1Parsed rejects a readable interchange that no 999 can acknowledge
// (no functional group, or values no 999 can carry) with a TA1 R 024
// (invalid interchange content).
func (rs *runSim) ta1Parsed(x *x12.Interchange, env envelope, ps []problem) *outcome {
	isa := x.Segment(0)
	env.d = standard
	if env.header.Version < "00402" {
		env.header.Version = "00501" // the standard delimiters have a repetition separator
	}
	a := rs.begin(env, "", "")
	ctrl, d, t := el(isa, 13), el(isa, 9), el(isa, 10)
	if len(ctrl) != 9 || !allDigits(ctrl) {
		ctrl = "000000000"
	}
	if len(d) != 6 || !allDigits(d) || len(t) != 4 || !allDigits(t) {
		d, t = a.header.Time.Format("060102"), a.header.Time.Format("1504")
	}
	a.ta1 = []seg{segment("TA1", ctrl, d, t, "R", "024")}
	data, err := a.write(standard)
	if err != nil {
		return refused(http.StatusInternalServerError, "INTERNAL", "the TA1 cannot be written: "+err.Error())
	}
	var msgs []string
	for _, p := range ps {
		msgs = append(msgs, p.msg)
	}
	return &outcome{transaction: "TA1", response: data, message: strings.Join(msgs, "; ")}
}

// requestID is what records correlate a request by: the first TRN02 of a
// 270 or 276, BHT03 of a 278.
func requestID(x *x12.Interchange) string {
	txs := x.Transactions()
	if len(txs) == 0 {
		return ""
	}
	tx := txs[0]
	want := "TRN"
	if tx.Code == "278" {
		want = "BHT"
	}
	for i := tx.Start; i <= tx.End; i++ {
		if s := x.Segment(i); s.ID() == want {
			if want == "BHT" {
				return el(s, 3)
			}
			return el(s, 2)
		}
	}
	return ""
}

// patientID is the subscriber's member id: NM109 of the first NM1*IL.
func patientID(x *x12.Interchange) string {
	txs := x.Transactions()
	if len(txs) == 0 {
		return ""
	}
	for i := txs[0].Start; i <= txs[0].End; i++ {
		if s := x.Segment(i); s.ID() == "NM1" && el(s, 1) == "IL" {
			return el(s, 9)
		}
	}
	return ""
}

// header writes the answer's BHT: BHT01 and BHT03 echoed, BHT02 purpose,
// the run's date and time, BHT06 when given.
func (r *request) header(purpose string, now time.Time, bht06 string) seg {
	bht01, bht03 := "", ""
	if r.hasBT {
		bht01, bht03 = el(r.bht, 1), el(r.bht, 3)
	}
	return segment("BHT", bht01, purpose, bht03, now.Format("20060102"), now.Format("1504"), bht06)
}

// hlTree numbers the answer's HL levels as the request's: HL01 from 1 in
// the request's order, HL02 the parent's number, HL04 1 when the level has
// children. It returns the HL of each node.
func (r *request) hl(n *node, parentOut int) seg {
	parent := ""
	if parentOut > 0 {
		parent = strconv.Itoa(parentOut)
	}
	child := "0"
	if len(n.kids) > 0 {
		child = "1"
	}
	return segment("HL", strconv.Itoa(n.out), parent, n.level, child)
}

// number gives every node its answer HL01, in the request's order.
func (r *request) number() {
	for i, n := range r.all {
		n.out = i + 1
	}
}

// walk visits every node depth first, in the request's order, with its
// parent's answer HL01 (0 for a root).
func (r *request) walk(visit func(n *node, parentOut int)) {
	var rec func(n *node, p int)
	rec = func(n *node, p int) {
		visit(n, p)
		for _, k := range n.kids {
			rec(k, n.out)
		}
	}
	for _, n := range r.roots {
		rec(n, 0)
	}
}

// trnEchoes returns every TRN of segs as TRN*2, with the rest echoed.
func (r *request) trnEchoes(segs []x12.Segment) []seg {
	var out []seg
	for _, s := range findAll(segs, "TRN") {
		e := r.echo(s)
		if e.elems != nil {
			e.elems[0] = x12.Simple("2")
		} else if len(e.vals) == 0 {
			e.vals = []string{"2"}
		} else {
			e.vals[0] = "2"
		}
		out = append(out, e)
	}
	return out
}

// providerAAA checks a provider NPI as every request's is (DESIGN.md
// 13.6): missing or invalid, AAA*N**43*C; not on file, AAA*N**51*N.
func providerAAA(p *payer.Policy, nm1 x12.Segment, found bool) (seg, bool) {
	npi := ""
	if found && el(nm1, 8) == "XX" {
		npi = el(nm1, 9)
	}
	switch {
	case !payer.ValidNPI(npi):
		return aaaProviderInvalid, true
	case !p.ProviderOnFile(npi):
		return aaaProviderUnknown, true
	}
	return seg{}, false
}
