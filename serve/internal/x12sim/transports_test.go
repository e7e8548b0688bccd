package x12sim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/serve/internal/simtest"
	"github.com/assaykit/assay/x12"
)

// coreBody writes a CORE real-time envelope of fields, in order.
func coreBody(t testing.TB, fields [][2]string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

// coreFields reads a multipart answer.
func coreFields(t testing.TB, r reply) map[string]string {
	t.Helper()
	mt, params, err := mime.ParseMediaType(r.header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		t.Fatalf("answer Content-Type %q: %s", r.header.Get("Content-Type"), r.body)
	}
	out := map[string]string{}
	mr := multipart.NewReader(bytes.NewReader(r.body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(p)
		out[p.FormName()] = string(data)
	}
}

func envelope270(t testing.TB, payload string) [][2]string {
	return [][2]string{
		{"PayloadType", "X12_270_Request_005010X279A1"}, {"ProcessingMode", "RealTime"},
		{"PayloadID", "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"}, {"TimeStamp", "2026-03-01T09:00:00Z"},
		{"SenderID", "CLINIC01"}, {"ReceiverID", "ACME01"}, {"CORERuleVersion", "2.2.0"}, {"Payload", payload},
	}
}

func without(fields [][2]string, name string) [][2]string {
	var out [][2]string
	for _, f := range fields {
		if f[0] != name {
			out = append(out, f)
		}
	}
	return out
}

func with(fields [][2]string, name, value string) [][2]string {
	out := without(fields, name)
	return append(out, [2]string{name, value})
}

func TestCORE(t *testing.T) {
	tr := newFrame(t, nil).newRun("core")
	ct, body := coreBody(t, envelope270(t, req270(t, "")))
	r := do(t, "POST", tr.endpoints["x12_core"], tr.token, ct, body)
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	got := coreFields(t, r)
	for k, want := range map[string]string{
		"PayloadType": "X12_271_Response_005010X279A1", "ProcessingMode": "RealTime", "PayloadID": "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
		"TimeStamp": "2026-03-01T09:00:00Z", "SenderID": "ACME01", "ReceiverID": "CLINIC01", "CORERuleVersion": "2.2.0",
		"ErrorCode": "Success", "ErrorMessage": "None",
	} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	x, err := x12.Parse([]byte(got["Payload"]), x12.Strict())
	if err != nil {
		t.Fatal(err)
	}
	checkPaths(t, x, map[string]string{"ST01": "271", "2110C/EB01": "1"})

	// A payload the clearinghouse cannot answer is still Success: its
	// answer is the 999 (or TA1) in the Payload.
	ct, body = coreBody(t, envelope270(t, "not X12"))
	if got := coreFields(t, do(t, "POST", tr.endpoints["x12_core"], tr.token, ct, body)); got["PayloadType"] != "X12_TA1_Response_00501X231A1" || got["ErrorCode"] != "Success" {
		t.Errorf("TA1 answer: %v", got)
	}

	good := envelope270(t, req270(t, ""))
	for _, tc := range []struct {
		name   string
		ct     string
		body   []byte
		fields [][2]string
		status int
		code   string
	}{
		{name: "not multipart", ct: "application/json", body: []byte(`{"Payload": "ISA"}`), status: 400, code: "PayloadTypeRequired"},
		{name: "multipart without a boundary", ct: "multipart/form-data", body: []byte("x"), status: 400, code: "PayloadTypeRequired"},
		{name: "a broken multipart body", ct: "multipart/form-data; boundary=zz", body: []byte("--zz\r\nbroken"), status: 400, code: "PayloadTypeRequired"},
		{name: "Payload missing", fields: without(good, "Payload"), status: 400, code: "PayloadRequired"},
		{name: "PayloadID missing", fields: without(good, "PayloadID"), status: 400, code: "PayloadIDRequired"},
		{name: "SenderID empty", fields: with(good, "SenderID", ""), status: 400, code: "SenderIDRequired"},
		{name: "an unknown field", fields: with(good, "Colour", "blue"), status: 400, code: "ColourIllegal"},
		{name: "a field twice", fields: append(good, [2]string{"PayloadID", "again"}), status: 400, code: "PayloadIDIllegal"},
		{name: "PayloadType unknown", fields: with(good, "PayloadType", "X12_837_Request_005010X222A1"), status: 400, code: "PayloadTypeIllegal"},
		{name: "PayloadType of another set", fields: with(good, "PayloadType", "X12_276_Request_005010X212"), status: 400, code: "PayloadTypeIllegal"},
		{name: "batch", fields: with(good, "ProcessingMode", "Batch"), status: 400, code: "ProcessingModeIllegal"},
		{name: "TimeStamp unreadable", fields: with(good, "TimeStamp", "yesterday"), status: 400, code: "TimeStampIllegal"},
		{name: "another rule version", fields: with(good, "CORERuleVersion", "4.0.0"), status: 400, code: "VersionMismatch"},
		{name: "a payload over 1 MiB", fields: with(good, "Payload", strings.Repeat("x", 1<<20+1)), status: 413, code: "PayloadIllegal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := tc.ct, tc.body
			if tc.fields != nil {
				ct, body = coreBody(t, tc.fields)
			}
			r := do(t, "POST", tr.endpoints["x12_core"], tr.token, ct, body)
			got := coreFields(t, r)
			if r.status != tc.status || got["ErrorCode"] != tc.code || got["PayloadType"] != "CoreEnvelopeError" || got["ErrorMessage"] == "" {
				t.Errorf("%d %v", r.status, got)
			}
			ev := tr.events()
			if last := ev[len(ev)-1]; last["transport"] != "core" || last["status"] != float64(tc.status) || !strings.HasPrefix(last["error"].(string), tc.code) {
				t.Errorf("event %v", last)
			}
		})
	}
	// Credentials in the envelope are read past, never echoed.
	ct, body = coreBody(t, append(envelope270(t, req270(t, "")), [2]string{"UserName", "clinic"}, [2]string{"Password", "hunter2"}))
	if r := do(t, "POST", tr.endpoints["x12_core"], tr.token, ct, body); r.status != 200 || bytes.Contains(r.body, []byte("hunter2")) {
		t.Errorf("%d %s", r.status, r.body)
	}
}

func TestEligibilityJSON(t *testing.T) {
	f := newFrame(t, nil)
	tr := f.newRun("json")
	post := func(body string) reply {
		return do(t, "POST", tr.endpoints["eligibility"], tr.token, "application/json", []byte(body))
	}
	r := post(`{"member_id": "W123456789", "service_type_codes": ["MR"], "date_of_service": "2026-06-01"}`)
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var got struct {
		X12      string           `json:"x12"`
		Active   bool             `json:"active"`
		Plan     *string          `json:"plan"`
		Benefits []map[string]any `json:"benefits"`
		AAA      []map[string]any `json:"aaa"`
	}
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Active || got.Plan == nil || *got.Plan != "Acme Gold HMO" || len(got.Benefits) != 2 || len(got.AAA) != 0 {
		t.Fatalf("%s", r.body)
	}
	b := got.Benefits[0]
	if b["code"] != "1" || b["auth_required"] != true || b["message"] != "PRIOR AUTHORIZATION REQUIRED" || b["coverage_level"] != "IND" ||
		b["time_period"] != nil || b["amount"] != nil || b["service_types"].([]any)[0] != "MR" {
		t.Errorf("benefit %v", b)
	}
	if !bytes.HasPrefix(r.body, []byte(`{"x12":"ISA*`)) || !strings.Contains(string(r.body), `"active":true,"plan":"Acme Gold HMO","benefits":[`) {
		t.Errorf("key order: %s", r.body)
	}
	x, err := x12.Parse([]byte(got.X12), x12.Strict())
	if err != nil {
		t.Fatal(err)
	}
	// The 270 named the policy's first provider.
	checkPaths(t, x, map[string]string{"2100B/NM1[1P]09": "1234567893", "2110C/EB(*)03": "30|MR|MR", "2000C/TRN02": "ELIG000001"})

	// patient_id, no service types: 30; an unknown member: AAA 75.
	for _, tc := range []struct {
		body, want string
	}{
		{`{"patient_id": "W123456789"}`, `"active":true,"plan":"Acme Gold HMO","benefits":[{"code":"B"`},
		{`{"patient_id": "NOBODY"}`, `"active":false,"plan":null,"benefits":[],"aaa":[{"loop":"2100C","code":"75","follow_up":"C"}]}`},
		{`{"member_id": "W123456789", "provider_npi": "1234567890"}`, `"aaa":[{"loop":"2100B","code":"43","follow_up":"C"}]`},
		{`{"member_id": "W555000111"}`, `"active":false,"plan":"Acme Gold HMO","benefits":[],"aaa":[]`},
	} {
		if r := post(tc.body); r.status != 200 || !strings.Contains(string(r.body), tc.want) {
			t.Errorf("%s: %d %s", tc.body, r.status, r.body)
		}
	}
	for _, tc := range []struct{ body, field string }{
		{`{"member_id": "W123456789", "colour": "blue"}`, "colour"},
		{`{}`, "member_id"},
		{`{"member_id": ""}`, "member_id"},
		{`{"member_id": "A*B"}`, "member_id"},
		{`{"patient_id": "A", "member_id": "B"}`, "member_id"},
		{`{"member_id": "W123456789", "service_type_codes": ["MRI"]}`, "service_type_codes/0"},
		{`{"member_id": "W123456789", "date_of_service": "03/01/2026"}`, "date_of_service"},
		{`{"member_id": "W123456789", "provider_npi": "1~2"}`, "provider_npi"},
		{`[1]`, ""},
		{`{"member_id": "W123456789"} {}`, ""},
	} {
		r := post(tc.body)
		var e struct {
			Error struct {
				Code    string
				Details []struct{ Field string }
			}
		}
		json.Unmarshal(r.body, &e)
		if r.status != 400 || e.Error.Code != "VALIDATION_ERROR" || (tc.field != "" && (len(e.Error.Details) != 1 || e.Error.Details[0].Field != tc.field)) {
			t.Errorf("%s: %d %s", tc.body, r.status, r.body)
		}
	}
	// The hosted platform's path answers the same.
	r = do(t, "POST", f.srv.URL()+"/sandboxes/json/clearinghouse/eligibility", tr.token, "application/json", []byte(`{"member_id": "W123456789"}`))
	if r.status != 200 || !strings.Contains(string(r.body), `"active":true`) {
		t.Errorf("alias: %d %s", r.status, r.body)
	}
}

// TestNoPolicy: without payer/policy.json every endpoint is 503 naming it
// and where its format is documented (go doc, not a file users lack).
func TestNoPolicy(t *testing.T) {
	tr := newFrame(t, fstest.MapFS{}).newRun("nopolicy")
	for _, ep := range []string{"x12", "x12_core", "eligibility"} {
		r := do(t, "POST", tr.endpoints[ep], tr.token, "", []byte("{}"))
		if r.status != 503 || !bytes.Contains(r.body, []byte("payer/policy.json")) || !bytes.Contains(r.body, []byte("go doc github.com/assaykit/assay/payer")) || bytes.Contains(r.body, []byte("DESIGN")) {
			t.Errorf("%s: %d %s", ep, r.status, r.body)
		}
	}
}

// TestRecords: every exchange in order in x12/records.json, with the
// metadata criteria correlate by; x12-response criteria pass over the
// snapshot and over the live run alike.
func TestRecords(t *testing.T) {
	f := newFrame(t, nil)
	tr := f.newRun("records")
	tr.answer(req270(t, ""))
	tr.answer(req276(t, "TRN*1*PCN-1"))
	tr.answer(req278(t, "", "", "SV1*HC:73721*900"))
	tr.answer("garbage")
	do(t, "POST", tr.endpoints["eligibility"], tr.token, "application/json", []byte(`{"member_id": "W123456789"}`))
	ct, body := coreBody(t, envelope270(t, req270(t, "", "TRN*1*CORE-1*9X", "NM1*IL*1*ROE*JOHN****MI*W555000111")))
	do(t, "POST", tr.endpoints["x12_core"], tr.token, ct, body)

	criteria := `[
	 {"label": "eligibility", "assertion": {"assert": "x12-response", "transaction": "271", "correlate_by": {"patient_id": "W123456789", "request_id": "TRACE-1"},
	   "fields": [{"path": "2110C/EB01", "expected": "1"}, {"path": "2100C/NM1[IL]03", "expected": "DOE"}]}},
	 {"label": "claim", "assertion": {"assert": "x12-response", "transaction": "277", "correlate_by": {"request_id": "PCN-1"},
	   "fields": [{"path": "2200D/STC01-1", "expected": "A1"}]}},
	 {"label": "auth", "assertion": {"assert": "x12-response", "transaction": "278", "correlate_by": {"request_id": "PA-REQ-1", "patient_id": "W123456789"},
	   "fields": [{"path": "2000F/HCR01", "expected": "A1"}, {"path": "2000F/HCR02", "expected": "AUTH000001"}]}},
	 {"label": "json", "assertion": {"assert": "x12-response", "transaction": "271", "correlate_by": {"transport": "eligibility"},
	   "fields": [{"path": "2000C/TRN02", "expected": "ELIG000001"}]}},
	 {"label": "core", "assertion": {"assert": "x12-response", "transaction": "271", "correlate_by": {"transport": "core", "request_id": "CORE-1"},
	   "fields": [{"path": "2110C/EB01", "expected": "6"}]}},
	 {"label": "wrong", "assertion": {"assert": "x12-response", "transaction": "271", "correlate_by": {"patient_id": "W123456789"},
	   "fields": [{"path": "2110C/EB01", "expected": "6"}]}}
	]`
	check := func(where string, res map[string]string) {
		for label, want := range map[string]string{"eligibility": "passed", "claim": "passed", "auth": "passed", "json": "passed", "core": "passed", "wrong": "failed"} {
			if res[label] != want {
				t.Errorf("%s: %s is %s, want %s", where, label, res[label], want)
			}
		}
	}
	live := map[string]string{}
	for label, r := range simtest.EvaluateEnv(t, tr.run.Env(), criteria) {
		live[label] = string(r.Status)
	}
	check("live", live)

	snap := f.complete(tr)
	snapshot := map[string]string{}
	for label, r := range simtest.Evaluate(t, snap, criteria) {
		snapshot[label] = string(r.Status)
	}
	check("snapshot", snapshot)

	data, err := os.ReadFile(filepath.Join(snap, "x12", "records.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct {
		Transaction, Request, Response string
		Metadata                       map[string]any
	}
	if err := json.Unmarshal(data, &recs); err != nil {
		t.Fatal(err)
	}
	want := []struct{ tx, transport, request, patient string }{
		{"271", "x12", "TRACE-1", "W123456789"}, {"277", "x12", "PCN-1", "W123456789"}, {"278", "x12", "PA-REQ-1", "W123456789"},
		{"TA1", "x12", "", ""}, {"271", "eligibility", "ELIG000001", "W123456789"}, {"271", "core", "CORE-1", "W555000111"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records: %s", len(recs), data)
	}
	for i, w := range want {
		r := recs[i]
		if r.Transaction != w.tx || r.Metadata["transport"] != w.transport || str(r.Metadata["request_id"]) != w.request || str(r.Metadata["patient_id"]) != w.patient || r.Request == "" || r.Response == "" {
			t.Errorf("record %d: %s %v", i, r.Transaction, r.Metadata)
		}
	}
	if !strings.HasPrefix(string(data), "[\n  {\n    \"transaction\": \"271\",\n    \"request\": ") {
		t.Errorf("records.json starts %q", data[:60])
	}
	// The events, in the same order.
	var txs []string
	for _, e := range simtest.Events(t, snap, "x12") {
		txs = append(txs, e["transaction"].(string)+"/"+e["transport"].(string))
	}
	if strings.Join(txs, " ") != "271/x12 277/x12 278/x12 TA1/x12 271/eligibility 271/core" {
		t.Errorf("events %v", txs)
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// TestEmptyRecords: a run without exchanges writes records.json as [].
func TestEmptyRecords(t *testing.T) {
	f := newFrame(t, nil)
	snap := f.complete(f.newRun("empty"))
	if data, err := os.ReadFile(filepath.Join(snap, "x12", "records.json")); err != nil || string(data) != "[]\n" {
		t.Errorf("%q %v", data, err)
	}
}
