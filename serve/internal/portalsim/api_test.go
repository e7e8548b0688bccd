package portalsim_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/portalsim"
)

// otherNPI is a valid NPI that the seed's policy does not have on file.
func otherNPI() string {
	for d := '0'; d <= '9'; d++ {
		if npi := "987654321" + string(d); payer.ValidNPI(npi) {
			return npi
		}
	}
	panic("no valid NPI")
}

// TestAPI drives every call of the REST API in order through a served
// frame, checking each answer's status and fields.
func TestAPI(t *testing.T) {
	sb := newSandbox(t, nil)
	tr := sb.newRun("r1")
	mp := func(fields [][2]string, name string, content string) (string, io.Reader) {
		ct, b := multipartBody(t, fields, name, []byte(content))
		return ct, b
	}
	b64 := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 knee notes"))
	type step struct {
		name, method, path, body string
		// multipart, when set, builds the body instead.
		multipart func() (string, io.Reader)
		advance   string // moves the clock first
		status    int
		want      map[string]string // gjson path -> value as text ("null" for null)
	}
	steps := []step{
		{name: "approved at once", method: "POST", path: "/prior-auths",
			body:   `{"patient_member_id": "W123456789", "procedure_code": "73721", "provider_npi": "1234567893", "service_date": "2026-03-10", "diagnosis_codes": ["M25.561"], "units": 1, "request_id": "REQ-1", "notes": "MRI left knee"}`,
			status: 201,
			want: map[string]string{"auth_number": "PA-000001", "request_id": "REQ-1", "status": "approved", "certification_number": "AUTH000001",
				"valid_from": "2026-03-10", "valid_to": "2026-04-08", "channel": "api", "submitted_at": "2026-03-01T09:00:00Z",
				"decided_at": "2026-03-01T09:00:00Z", "diagnosis_codes.0": "M25.561", "units": "1", "reason": "null"}},
		{name: "delayed approval reads pending", method: "POST", path: "/prior-auths",
			body:   `{"patient_member_id": "W123456789", "procedure_code": "97110"}`,
			status: 201,
			want: map[string]string{"auth_number": "PA-000002", "request_id": "PA-000002", "status": "pending", "certification_number": "null",
				"provider_npi": "null", "diagnosis_codes": "null", "decided_at": "null", "valid_from": "null"}},
		{name: "default determination denies", method: "POST", path: "/prior-auths",
			body:   `{"patient_member_id": "W123456789", "procedure_code": "99999", "provider_npi": null}`,
			status: 201,
			want:   map[string]string{"auth_number": "PA-000003", "status": "denied", "reason": "Not medically necessary", "certification_number": "null"}},
		{name: "missing procedure_code", method: "POST", path: "/prior-auths", body: `{"patient_member_id": "W123456789"}`,
			status: 400, want: map[string]string{"error.code": "VALIDATION_ERROR", "error.details.0.field": "procedure_code"}},
		{name: "empty procedure_code", method: "POST", path: "/prior-auths", body: `{"patient_member_id": "W123456789", "procedure_code": ""}`,
			status: 400, want: map[string]string{"error.details.0.field": "procedure_code"}},
		{name: "unknown member", method: "POST", path: "/prior-auths", body: `{"patient_member_id": "X1", "procedure_code": "73721"}`,
			status: 400, want: map[string]string{"error.details.0.field": "patient_member_id", "error.details.0.message": `no member "X1"`}},
		{name: "invalid NPI", method: "POST", path: "/prior-auths", body: `{"patient_member_id": "W123456789", "procedure_code": "73721", "provider_npi": "1234567890"}`,
			status: 400, want: map[string]string{"error.details.0.field": "provider_npi"}},
		{name: "NPI not on file", method: "POST", path: "/prior-auths", body: `{"patient_member_id": "W123456789", "procedure_code": "73721", "provider_npi": "` + otherNPI() + `"}`,
			status: 400, want: map[string]string{"error.details.0.field": "provider_npi", "error.details.0.message": "provider " + otherNPI() + " is not on file"}},
		{name: "unknown key", method: "POST", path: "/prior-auths", body: `{"patient_member_id": "W123456789", "procedure_code": "73721", "priority": "urgent"}`,
			status: 400, want: map[string]string{"error.details.0.field": "priority"}},
		{name: "key twice", method: "POST", path: "/prior-auths", body: `{"patient_member_id": "W123456789", "procedure_code": "73721", "procedure_code": "97110"}`,
			status: 400, want: map[string]string{"error.details.0.field": "procedure_code"}},
		{name: "units of the wrong type", method: "POST", path: "/prior-auths", body: `{"patient_member_id": "W123456789", "procedure_code": "73721", "units": "two"}`,
			status: 400, want: map[string]string{"error.details.0.field": "units"}},
		{name: "units below one", method: "POST", path: "/prior-auths", body: `{"patient_member_id": "W123456789", "procedure_code": "73721", "units": 0}`,
			status: 400, want: map[string]string{"error.details.0.field": "units"}},
		{name: "bad service date", method: "POST", path: "/prior-auths", body: `{"patient_member_id": "W123456789", "procedure_code": "73721", "service_date": "03/10/2026"}`,
			status: 400, want: map[string]string{"error.details.0.field": "service_date"}},
		{name: "not JSON", method: "POST", path: "/prior-auths", body: `{"patient_member_id": `,
			status: 400, want: map[string]string{"error.code": "VALIDATION_ERROR", "error.details.0.field": "body"}},
		{name: "not an object", method: "POST", path: "/prior-auths", body: `[]`, status: 400, want: map[string]string{"error.details.0.field": "body"}},
		{name: "one request", method: "GET", path: "/prior-auths/PA-000001", status: 200,
			want: map[string]string{"auth_number": "PA-000001", "status": "approved", "certification_number": "AUTH000001"}},
		{name: "a seeded request", method: "GET", path: "/prior-auths/PA-SEED-1", status: 200,
			want: map[string]string{"status": "need_more_info", "reason": "Send the operative plan", "request_id": "OLD-7"}},
		{name: "no such request", method: "GET", path: "/prior-auths/PA-999999", status: 404, want: map[string]string{"error.code": "NOT_FOUND"}},
		{name: "a member's requests, the seed's first", method: "GET", path: "/prior-auths?patient_member_id=W123456789", status: 200,
			want: map[string]string{"data.#": "4", "data.0.auth_number": "PA-SEED-1", "data.1.auth_number": "PA-000001", "data.3.auth_number": "PA-000003"}},
		{name: "another member has none", method: "GET", path: "/prior-auths?patient_member_id=Z9", status: 200, want: map[string]string{"data.#": "0"}},
		{name: "every request", method: "GET", path: "/prior-auths", status: 200, want: map[string]string{"data.#": "4"}},
		{name: "unknown parameter", method: "GET", path: "/prior-auths?member=W123456789", status: 400, want: map[string]string{"error.details.0.field": "member"}},
		{name: "patient by member id", method: "GET", path: "/patients?member_id=W123456789", status: 200,
			want: map[string]string{"data.#": "1", "data.0.first_name": "JANE", "data.0.last_name": "DOE", "data.0.birth_date": "1984-03-12",
				"data.0.plan": "Acme Gold HMO", "data.0.active": "true"}},
		{name: "patient by last name (any case) and birth date", method: "GET", path: "/patients?last_name=doe&birth_date=1984-03-12", status: 200,
			want: map[string]string{"data.#": "1", "data.0.member_id": "W123456789"}},
		{name: "no patient matches", method: "GET", path: "/patients?last_name=DOE&birth_date=1990-01-01", status: 200, want: map[string]string{"data.#": "0"}},
		{name: "patient search without criteria", method: "GET", path: "/patients", status: 400, want: map[string]string{"error.code": "VALIDATION_ERROR"}},
		{name: "patient search with a bad date", method: "GET", path: "/patients?birth_date=03/12/1984", status: 400, want: map[string]string{"error.details.0.field": "birth_date"}},
		{name: "provider by NPI", method: "GET", path: "/providers?npi=1234567893", status: 200,
			want: map[string]string{"data.#": "1", "data.0.name": "SPRINGFIELD ORTHOPEDICS"}},
		{name: "a valid NPI not on file", method: "GET", path: "/providers?npi=" + otherNPI(), status: 200, want: map[string]string{"data.#": "0"}},
		{name: "every provider", method: "GET", path: "/providers", status: 200, want: map[string]string{"data.#": "1", "data.0.npi": "1234567893"}},
		{name: "an NPI that is not one", method: "GET", path: "/providers?npi=123", status: 400, want: map[string]string{"error.details.0.field": "npi"}},
		{name: "attach as JSON", method: "POST", path: "/prior-auths/PA-000001/attachments",
			body:   `{"filename": "notes.pdf", "document_type": "clinical_notes", "content_base64": "` + b64 + `"}`,
			status: 201,
			want: map[string]string{"attachment_id": "ATT-000001", "auth_number": "PA-000001", "filename": "notes.pdf", "document_type": "clinical_notes",
				"size": "19", "sha256": sha("%PDF-1.4 knee notes"), "uploaded": "true", "uploaded_at": "2026-03-01T09:00:00Z"}},
		{name: "attach as multipart", method: "POST", path: "/prior-auths/PA-SEED-1/attachments",
			multipart: func() (string, io.Reader) {
				return mp([][2]string{{"document_type", "operative_plan"}}, "plan.txt", "arthroscopy plan")
			},
			status: 201, want: map[string]string{"attachment_id": "ATT-000002", "auth_number": "PA-SEED-1", "filename": "plan.txt", "document_type": "operative_plan", "size": "16"}},
		{name: "multipart without a document type", method: "POST", path: "/prior-auths/PA-000001/attachments",
			multipart: func() (string, io.Reader) { return mp(nil, `C:\scans\x-ray.png`, "png") },
			status:    201, want: map[string]string{"attachment_id": "ATT-000003", "filename": "x-ray.png", "document_type": "null"}},
		{name: "multipart without file", method: "POST", path: "/prior-auths/PA-000001/attachments",
			multipart: func() (string, io.Reader) { return mp([][2]string{{"document_type", "x"}}, "", "") },
			status:    400, want: map[string]string{"error.details.0.field": "file"}},
		{name: "multipart with an unknown field", method: "POST", path: "/prior-auths/PA-000001/attachments",
			multipart: func() (string, io.Reader) { return mp([][2]string{{"comment", "x"}}, "a.txt", "a") },
			status:    400, want: map[string]string{"error.details.0.field": "comment"}},
		{name: "an empty file", method: "POST", path: "/prior-auths/PA-000001/attachments",
			multipart: func() (string, io.Reader) { return mp(nil, "empty.txt", "") },
			status:    400, want: map[string]string{"error.details.0.field": "file"}},
		{name: "JSON upload with an unknown key", method: "POST", path: "/prior-auths/PA-000001/attachments",
			body:   `{"filename": "a.txt", "content_base64": "YQ==", "mime": "text/plain"}`,
			status: 400, want: map[string]string{"error.details.0.field": "mime"}},
		{name: "JSON upload that is not base64", method: "POST", path: "/prior-auths/PA-000001/attachments",
			body:   `{"filename": "a.txt", "content_base64": "***"}`,
			status: 400, want: map[string]string{"error.details.0.field": "content_base64"}},
		{name: "JSON upload without filename", method: "POST", path: "/prior-auths/PA-000001/attachments",
			body:   `{"content_base64": "YQ=="}`,
			status: 400, want: map[string]string{"error.details.0.field": "filename"}},
		{name: "upload to no request", method: "POST", path: "/prior-auths/PA-404404/attachments",
			body: `{"filename": "a.txt", "content_base64": "YQ=="}`, status: 404, want: map[string]string{"error.code": "NOT_FOUND"}},
		{name: "a request's attachments", method: "GET", path: "/prior-auths/PA-000001/attachments", status: 200,
			want: map[string]string{"data.#": "2", "data.0.attachment_id": "ATT-000001", "data.1.attachment_id": "ATT-000003"}},
		{name: "a method the call does not take", method: "PUT", path: "/prior-auths", body: `{}`, status: 405, want: map[string]string{"error.code": "VALIDATION_ERROR"}},
		{name: "no such call", method: "GET", path: "/claims", status: 404, want: map[string]string{"error.code": "NOT_FOUND"}},
		{name: "after 48 hours the delayed request is approved", advance: "48h", method: "GET", path: "/prior-auths/PA-000002", status: 200,
			want: map[string]string{"status": "approved", "certification_number": "AUTH000002", "decided_at": "2026-03-03T09:00:00Z",
				"valid_from": "2026-03-03", "valid_to": "2026-05-31"}},
		{name: "coverage is judged on the run's date", method: "GET", path: "/patients?member_id=W123456789", advance: "8000h", status: 200,
			want: map[string]string{"data.0.active": "false"}},
	}
	for _, s := range steps {
		if s.advance != "" {
			tr.advance(s.advance)
		}
		var r reply
		if s.multipart != nil {
			ct, body := s.multipart()
			r = do(t, nil, s.method, tr.apiURL(s.path), tr.token, ct, body)
		} else {
			r = tr.api(s.method, s.path, s.body)
		}
		if r.status != s.status {
			t.Errorf("%s: %s %s: %d %s, want %d", s.name, s.method, s.path, r.status, r.body, s.status)
			continue
		}
		for path, want := range s.want {
			got := r.json(path)
			text := got.String()
			if got.Type.String() == "Null" && got.Exists() || (!got.Exists() && want == "null") {
				text = "null"
			}
			if text != want {
				t.Errorf("%s: %s = %q, want %q\n%s", s.name, path, text, want, r.body)
			}
		}
	}
	// The frame's rules hold: no token, another run's token.
	other := sb.newRun("r2")
	for _, tok := range []string{"", other.token} {
		if r := do(t, nil, "GET", tr.apiURL("/prior-auths"), tok, "", nil); r.status != 401 {
			t.Errorf("token %q: %d, want 401", tok, r.status)
		}
	}
	if r := other.api("GET", "/prior-auths", ""); r.status != 200 || r.json("data.#").Int() != 1 {
		t.Errorf("another run sees this run's requests: %s", r.body)
	}
	// Every call is an event.
	var actions []string
	for _, e := range tr.events() {
		actions = append(actions, e.Get("action").Str+"/"+e.Get("channel").Str+"/"+e.Get("status").Raw)
	}
	joined := strings.Join(actions, " ")
	for _, want := range []string{"submit/api/201", "submit/api/400", "view/api/200", "view/api/404", "search/api/200", "search/api/400", "attach/api/201", "attach/api/400", "attach/api/404", "submit/api/405"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %s event in %s", want, joined)
		}
	}
	if n := len(actions); n != len(steps) {
		t.Errorf("%d portal_action events for %d calls", n, len(steps))
	}
}

// TestAPIAlias: the hosted platform's run-scoped paths answer as BASE's.
func TestAPIAlias(t *testing.T) {
	sb := newSandbox(t, nil)
	tr := sb.newRun("al")
	r := do(t, nil, "GET", sb.srv.URL()+"/v1/benchmark-runs/al/portal/api/patients?member_id=W123456789", tr.token, "", nil)
	if r.status != 200 || r.json("data.0.member_id").Str != "W123456789" {
		t.Fatalf("alias: %d %s", r.status, r.body)
	}
}

// TestNoPolicy: without payer/policy.json every portal endpoint answers
// 503 naming the file, the web UI with a page that says so.
func TestNoPolicy(t *testing.T) {
	sb := newSandbox(t, fstest.MapFS{})
	tr := sb.newRun("np")
	for _, path := range []string{"/prior-auths", "/patients?member_id=W1", "/providers", "/prior-auths/PA-000001"} {
		r := tr.api("GET", path, "")
		if msg := r.json("error.message").Str; r.status != 503 || !strings.Contains(msg, "payer/policy.json") || !strings.Contains(msg, "go doc github.com/assaykit/assay/payer") || strings.Contains(msg, "DESIGN") {
			t.Errorf("GET %s: %d %s", path, r.status, r.body)
		}
	}
	r := do(t, nil, "GET", tr.portal, "", "", nil)
	if r.status != 503 || !strings.Contains(r.body, "payer/policy.json") || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Errorf("web: %d %s", r.status, r.body)
	}
	// The snapshot still holds the portal's (empty) state.
	snap, err := tr.run.Complete(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if data := readFile(t, snap, "portal/state.json"); !bytes.Contains(data, []byte(`"prior_auth_requests": []`)) {
		t.Errorf("state.json without a policy:\n%s", data)
	}
}

// TestOversizedUpload: an upload's body is at most 16 MiB, the sandbox's
// cap on a request body (the 64 MiB of SFTP and files uploads is not the
// portal's): a 17 MB upload is 413 whether its length is announced or
// streamed, a JSON one whose base64 takes it past 16 MiB too, and nothing
// is stored; a body just under the cap is kept.
func TestOversizedUpload(t *testing.T) {
	sb := newSandbox(t, nil)
	tr := sb.newRun("big")
	if r := tr.api("POST", "/prior-auths", `{"patient_member_id": "W123456789", "procedure_code": "73721"}`); r.status != 201 {
		t.Fatal(r.body)
	}
	head := "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n\r\n"
	tail := "\r\n--B--\r\n"
	size := int64(17_000_000)
	body := func() io.Reader {
		return io.MultiReader(strings.NewReader(head), io.LimitReader(zeros{}, size), strings.NewReader(tail))
	}
	url := tr.apiURL("/prior-auths/PA-000001/attachments")
	// Announced: refused before it is read.
	req, _ := http.NewRequest("POST", url, body())
	req.ContentLength = int64(len(head)+len(tail)) + size
	req.Header.Set("Authorization", "Bearer "+tr.token)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=B")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Errorf("announced: %d, want 413", resp.StatusCode)
	}
	// Streamed (chunked): refused once 16 MiB have been read.
	r := do(t, nil, "POST", url, tr.token, "multipart/form-data; boundary=B", io.MultiReader(body()))
	if r.status != 413 || r.json("error.code").Str != "PAYLOAD_TOO_LARGE" || r.json("error.details.0.field").Str != "file" {
		t.Errorf("streamed: %d %s", r.status, r.body)
	}
	// JSON: 12.5 MiB of document is more than 16 MiB of base64.
	doc := base64.StdEncoding.EncodeToString(make([]byte, 25<<19))
	r = do(t, nil, "POST", url, tr.token, "application/json", strings.NewReader(`{"filename": "big.bin", "content_base64": "`+doc+`"}`))
	if r.status != 413 || r.json("error.details.0.field").Str != "content_base64" {
		t.Errorf("JSON: %d %.300s", r.status, r.body)
	}
	if r := tr.api("GET", "/prior-auths/PA-000001/attachments", ""); r.json("data.#").Int() != 0 {
		t.Errorf("an oversized upload was kept: %s", r.body)
	}
	var seen int
	for _, e := range tr.events() {
		if e.Get("action").Str == "attach" && e.Get("status").Int() == 413 {
			seen++
		}
	}
	if seen != 3 {
		t.Errorf("%d attach events with status 413, want 3", seen)
	}
	// A body of exactly 16 MiB is kept.
	size = portalsim.MaxUpload - int64(len(head)+len(tail))
	if r := do(t, nil, "POST", url, tr.token, "multipart/form-data; boundary=B", body()); r.status != 201 || r.json("size").Int() != size {
		t.Errorf("16 MiB: %d %s", r.status, r.body)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
