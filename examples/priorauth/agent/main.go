// Command agent is a scripted agent, with no LLM, that does the knee-MRI
// prior-authorization story against a run of assay serve, the way an agent
// under test would: over FHIR it finds Jane Doe, her coverage and the MRI
// order and books the scan in a free slot; it checks her eligibility with an
// X12 270; it requests the authorization on the payer portal's REST API
// (POST portal_api/prior-auths) and uploads the clinical notes there; it
// sends the order to radiology over MLLP; it
// drops the referral on the imaging center's SFTP server; it calls the
// payer's line to confirm the approval; then it completes the run.
//
// With no flags it starts its own sandbox from examples/priorauth/seed
// (run it from the repository's root) and prints the score of the run on
// the story's criteria (criteria.json beside this file), exiting 1 unless the
// verdict is pass:
//
//	go run ./examples/priorauth/agent
//
// Against a sandbox of your own, give its URL and operator token:
//
//	go run ./cmd/assay serve --seed examples/priorauth/seed --out /tmp/assay-runs --port 8750 \
//	    --token demo-token --clock 2026-11-30T14:00:00Z --criteria examples/priorauth/agent/criteria.json &
//	go run ./examples/priorauth/agent --url http://127.0.0.1:8750 --token demo-token
//	go run ./cmd/assay eval --runs /tmp/assay-runs
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/x12"
)

func main() {
	base := flag.String("url", "", "the sandbox's `URL` (default: start one in this process from --seed)")
	token := flag.String("token", "", "the sandbox's operator `token` (with --url)")
	seed := flag.String("seed", "examples/priorauth/seed", "the seed `DIR` of the sandbox this process starts")
	criteria := flag.String("criteria", "examples/priorauth/agent/criteria.json", "the criteria `FILE` the sandbox this process starts scores the run on")
	runID := flag.String("run", "", "the run's `ID` (default: the sandbox chooses)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, *base, *token, *seed, *criteria, *runID); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, base, token, seed, criteria, runID string) error {
	if base == "" {
		srv, err := startSandbox(seed, criteria)
		if err != nil {
			return err
		}
		defer srv.Close()
		base, token = srv.URL(), srv.Token()
	}
	op := &client{token: token}
	if err := waitReady(ctx, op, base); err != nil {
		return err
	}
	var r runObject
	body := map[string]any{"entity": "patient-jane-doe"}
	if runID != "" {
		body["id"] = runID
	}
	if err := op.do(ctx, "POST", base+"/runs", body, &r); err != nil {
		return fmt.Errorf("creating a run: %w", err)
	}
	fmt.Printf("run %s\n", r.ID)
	a := &agent{run: r, api: &client{token: r.Token}}
	steps := []struct {
		name string
		do   func(context.Context) error
	}{
		{"find the patient and her MRI order (FHIR)", a.findPatient},
		{"check her eligibility for the MRI (X12 270)", a.checkEligibility},
		{"request the prior authorization (payer portal)", a.requestAuth},
		{"upload the clinical notes (payer portal)", a.uploadNotes},
		{"book the MRI in a free slot (FHIR transaction)", a.bookMRI},
		{"send the order to radiology (HL7 over MLLP)", a.sendOrder},
		{"drop the referral (SFTP)", a.dropReferral},
		{"confirm the approval by phone", a.callPayer},
	}
	for _, s := range steps {
		if err := s.do(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Printf("done: %s\n", s.name)
	}
	var done struct {
		Snapshot string `json:"snapshot"`
		Result   *struct {
			Score   float64 `json:"score"`
			Verdict string  `json:"verdict"`
		} `json:"result"`
	}
	if err := a.api.do(ctx, "POST", strings.TrimSuffix(r.Endpoints["events"], "/events")+"/complete", nil, &done); err != nil {
		return fmt.Errorf("completing the run: %w", err)
	}
	fmt.Printf("snapshot %s\n", done.Snapshot)
	if done.Result != nil {
		fmt.Printf("score %.3f verdict %s\n", done.Result.Score, done.Result.Verdict)
		if done.Result.Verdict != "pass" {
			return errors.New("the run did not pass its criteria")
		}
	}
	return nil
}

// waitReady waits for the sandbox to answer, for a minute at most: started
// in the background with go run, it may still be compiling.
func waitReady(ctx context.Context, op *client, base string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		err := op.do(ctx, "GET", base+"/runs", nil, nil)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the sandbox at %s does not answer: %w", base, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// startSandbox runs a sandbox in this process, as assay serve would, with
// its snapshots in a temporary folder.
func startSandbox(seed, criteria string) (*serve.Server, error) {
	data, err := os.ReadFile(criteria)
	if err != nil {
		return nil, err
	}
	out, err := os.MkdirTemp("", "assay-priorauth-")
	if err != nil {
		return nil, err
	}
	srv, err := serve.New(check.DirFS(seed), serve.Options{Out: out, Criteria: data, Clock: time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)})
	if err != nil {
		return nil, err
	}
	return srv, srv.Start()
}

type runObject struct {
	ID          string            `json:"id"`
	Token       string            `json:"token"`
	Endpoints   map[string]string `json:"endpoints"`
	Credentials struct {
		SFTP struct {
			User     string `json:"user"`
			Password string `json:"password"`
		} `json:"sftp"`
		Portal struct {
			Username string `json:"username"`
			Password string `json:"password"`
		} `json:"portal"`
	} `json:"credentials"`
}

// client calls JSON endpoints with a bearer token.
type client struct{ token string }

// do sends body (JSON, or raw bytes with a content type) and decodes a 2xx
// JSON answer into out.
func (c *client) do(ctx context.Context, method, u string, body any, out any) error {
	var rd io.Reader
	contentType := "application/json"
	switch b := body.(type) {
	case nil:
	case raw:
		rd, contentType = bytes.NewReader(b.data), b.contentType
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if rd != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, bytes.TrimSpace(data))
	}
	switch o := out.(type) {
	case nil:
		return nil
	case *[]byte:
		*o = data
		return nil
	}
	return json.Unmarshal(data, out)
}

// raw is a request body that is not JSON.
type raw struct {
	data        []byte
	contentType string
}

// agent is one run of the story.
type agent struct {
	run runObject
	api *client

	patientID, orderID                   string
	authNumber, certification, validFrom string
}

const (
	memberSystem = "http://acmehealth.example/member"
	memberID     = "W123456789"
	cptMRI       = "73721"
)

type bundle struct {
	Entry []struct {
		FullURL  string          `json:"fullUrl"`
		Resource json.RawMessage `json:"resource"`
		Response struct {
			Status   string `json:"status"`
			Location string `json:"location"`
		} `json:"response"`
	} `json:"entry"`
}

// findPatient finds the patient by her member id, and her MRI order.
func (a *agent) findPatient(ctx context.Context) error {
	fhir := a.run.Endpoints["fhir"]
	var patients bundle
	if err := a.api.do(ctx, "GET", fhir+"/Patient?identifier="+url.QueryEscape(memberSystem+"|"+memberID), nil, &patients); err != nil {
		return err
	}
	if len(patients.Entry) != 1 {
		return fmt.Errorf("%d patients with member id %s", len(patients.Entry), memberID)
	}
	var patient struct{ ID string }
	json.Unmarshal(patients.Entry[0].Resource, &patient)
	a.patientID = patient.ID
	var orders bundle
	if err := a.api.do(ctx, "GET", fhir+"/ServiceRequest?subject=Patient/"+patient.ID+"&code="+cptMRI+"&status=active", nil, &orders); err != nil {
		return err
	}
	if len(orders.Entry) == 0 {
		return errors.New("no active MRI order")
	}
	var order struct{ ID string }
	json.Unmarshal(orders.Entry[0].Resource, &order)
	a.orderID = order.ID
	return nil
}

// checkEligibility sends a 270 asking about MRI benefits (service type MR)
// on the date of service and reads the 271: coverage must be active, and
// the MRI benefit says whether it needs prior authorization.
func (a *agent) checkEligibility(ctx context.Context) error {
	now := time.Now().UTC()
	w := x12.NewWriter(x12.Delimiters{Element: '*', Repetition: '^', Component: ':', Segment: '~'},
		x12.Header{Sender: "SPRINGFIELDORT", Receiver: "ACME01", Time: now, Control: 1})
	w.Group(x12.Group{Code: "HS", Sender: "SPRINGFIELDORT", Receiver: "ACME01", Time: now, Control: 1, Version: "005010X279A1"})
	w.Set("270", "0001")
	w.Segment("BHT", "0022", "13", "ELIG-"+a.run.ID, now.Format("20060102"), now.Format("1504"))
	w.Segment("HL", "1", "", "20", "1")
	w.Segment("NM1", "PR", "2", "ACME HEALTH PLAN", "", "", "", "", "PI", "ACME01")
	w.Segment("HL", "2", "1", "21", "1")
	w.Segment("NM1", "1P", "2", "SPRINGFIELD ORTHOPEDICS", "", "", "", "", "XX", "1234567893")
	w.Segment("HL", "3", "2", "22", "0")
	w.Segment("TRN", "1", "ELIG-"+a.run.ID, "9SPRINGORT")
	w.Segment("NM1", "IL", "1", "DOE", "JANE", "", "", "", "MI", memberID)
	w.Segment("DMG", "D8", "19840312")
	w.Segment("DTP", "291", "D8", "20261208")
	w.Segment("EQ", "MR")
	request, err := w.Bytes()
	if err != nil {
		return err
	}
	var response []byte
	if err := a.api.do(ctx, "POST", a.run.Endpoints["x12"], raw{request, "application/edi-x12"}, &response); err != nil {
		return err
	}
	x, err := x12.Parse(response)
	if err != nil {
		return err
	}
	if st, _ := x.Get("ST01"); len(st) != 1 || st[0] != "271" {
		return fmt.Errorf("the clearinghouse answered %v, not a 271", st)
	}
	if aaa, _ := x.Get("AAA(*)03"); len(aaa) > 0 {
		return fmt.Errorf("the 271 rejects the request: AAA %v", aaa)
	}
	eb, _ := x.Get("2110C/EB(*)01")
	if len(eb) == 0 || eb[0] != "1" {
		return fmt.Errorf("coverage is not active: EB01 %v", eb)
	}
	if auth, _ := x.Get("2110C/EB(*)11"); !slices.Contains(auth, "Y") {
		return fmt.Errorf("the 271 does not say whether the MRI needs prior authorization (EB11 %v)", auth)
	}
	return nil
}

// requestAuth submits the prior authorization on the payer portal's API.
func (a *agent) requestAuth(ctx context.Context) error {
	var row struct {
		AuthNumber          string  `json:"auth_number"`
		Status              string  `json:"status"`
		CertificationNumber *string `json:"certification_number"`
		ValidFrom           *string `json:"valid_from"`
	}
	err := a.api.do(ctx, "POST", a.run.Endpoints["portal_api"]+"/prior-auths", map[string]any{
		"patient_member_id": memberID, "procedure_code": cptMRI, "provider_npi": "1234567893",
		"diagnosis_codes": []string{"M23.221"}, "service_date": "2026-12-08", "units": 1,
		"request_id": "REQ-" + a.run.ID, "notes": "Right knee pain and locking for 3 months; meniscal tear suspected.",
	}, &row)
	if err != nil {
		return err
	}
	if row.Status != "approved" || row.CertificationNumber == nil || row.ValidFrom == nil {
		return fmt.Errorf("the request %s reads %s", row.AuthNumber, row.Status)
	}
	a.authNumber, a.certification, a.validFrom = row.AuthNumber, *row.CertificationNumber, *row.ValidFrom
	return nil
}

// uploadNotes attaches the clinical notes to the request.
func (a *agent) uploadNotes(ctx context.Context) error {
	notes := "Jane Doe, 42. Right knee pain and locking for 3 months after a twisting injury. " +
		"McMurray positive. Conservative care for 6 weeks without relief. MRI to evaluate a medial meniscus tear.\n"
	return a.api.do(ctx, "POST", a.run.Endpoints["portal_api"]+"/prior-auths/"+a.authNumber+"/attachments", map[string]any{
		"filename": "clinical-notes.txt", "document_type": "clinical_notes",
		"content_base64": base64.StdEncoding.EncodeToString([]byte(notes)),
	}, nil)
}

// bookMRI finds a free slot inside the authorization's validity and books
// it in one transaction: the Appointment created and the Slot marked busy,
// all or nothing.
func (a *agent) bookMRI(ctx context.Context) error {
	fhir := a.run.Endpoints["fhir"]
	var slots bundle
	if err := a.api.do(ctx, "GET", fhir+"/Slot?status=free&start=ge"+a.validFrom+"&_sort=start&_count=1", nil, &slots); err != nil {
		return err
	}
	if len(slots.Entry) == 0 {
		return errors.New("no free MRI slot after the authorization starts")
	}
	var slot map[string]any
	json.Unmarshal(slots.Entry[0].Resource, &slot)
	slotID := slot["id"].(string)
	slot["status"] = "busy"
	delete(slot, "meta")
	tx := map[string]any{
		"resourceType": "Bundle", "type": "transaction",
		"entry": []any{
			map[string]any{
				"fullUrl": "urn:uuid:5b1c6d0e-1f2a-4b3c-8d4e-5f6a7b8c9d01",
				"resource": map[string]any{
					"resourceType": "Appointment", "status": "booked",
					"serviceType": []any{map[string]any{"coding": []any{map[string]any{"system": "http://www.ama-assn.org/go/cpt", "code": cptMRI, "display": "MRI right knee without contrast"}}}},
					"basedOn":     []any{map[string]any{"reference": "ServiceRequest/" + a.orderID}},
					"slot":        []any{map[string]any{"reference": "Slot/" + slotID}},
					"start":       slot["start"], "end": slot["end"],
					"participant": []any{
						map[string]any{"actor": map[string]any{"reference": "Patient/" + a.patientID, "display": "Jane Doe"}, "status": "accepted"},
					},
				},
				"request": map[string]any{"method": "POST", "url": "Appointment"},
			},
			map[string]any{
				"resource": slot,
				"request":  map[string]any{"method": "PUT", "url": "Slot/" + slotID},
			},
		},
	}
	var resp bundle
	if err := a.api.do(ctx, "POST", fhir, tx, &resp); err != nil {
		return err
	}
	for _, e := range resp.Entry {
		if !strings.HasPrefix(e.Response.Status, "20") {
			return fmt.Errorf("the booking transaction answered %s", e.Response.Status)
		}
	}
	return nil
}

// sendOrder sends the MRI order (ORM^O01) to radiology over the run's MLLP
// port and checks that it was accepted.
func (a *agent) sendOrder(ctx context.Context) error {
	msg := strings.Join([]string{
		`MSH|^~\&|PRIORAUTH_AGENT|NORTHSIDE_CLINIC|RIS|NORTHSIDE_RADIOLOGY|20261130140500||ORM^O01^ORM_O01|ORM-` + a.run.ID + `|P|2.5.1`,
		`PID|1||MRN-44721^^^NORTHSIDE_CLINIC^MR~` + memberID + `^^^ACME^MB||DOE^JANE||19840312|F`,
		`ORC|NW|ORD-` + a.run.ID + `|||SC`,
		`OBR|1|ORD-` + a.run.ID + `||` + cptMRI + `^MRI KNEE W/O CONTRAST^CPT4`,
		`DG1|1||M23.221^Derangement of posterior horn of medial meniscus due to old tear, right knee^I10`,
		`NTE|1||Prior authorization ` + a.authNumber + ` approved by ACME HEALTH PLAN, certification ` + a.certification,
	}, "\r") + "\r"
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", a.run.Endpoints["hl7_mllp"])
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write([]byte("\x0b" + msg + "\x1c\r")); err != nil {
		return err
	}
	var ack []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(ack, []byte("\x1c\r")) {
		n, err := conn.Read(buf)
		if err != nil {
			return fmt.Errorf("reading the ACK: %w", err)
		}
		ack = append(ack, buf[:n]...)
	}
	if !bytes.Contains(ack, []byte("MSA|AA|")) {
		return fmt.Errorf("the order was not accepted: %q", ack)
	}
	return nil
}

// dropReferral uploads the referral packet to the imaging center's SFTP
// drop.
func (a *agent) dropReferral(ctx context.Context) error {
	u, err := url.Parse(a.run.Endpoints["sftp"])
	if err != nil {
		return err
	}
	cfg := &ssh.ClientConfig{
		User: a.run.Credentials.SFTP.User,
		Auth: []ssh.AuthMethod{ssh.Password(a.run.Credentials.SFTP.Password)},
		// The sandbox makes a new host key at every start; an agent of a
		// real drop checks it against known_hosts.
		HostKeyCallback: ssh.InsecureIgnoreHostKey(),
		Timeout:         30 * time.Second,
	}
	conn, err := ssh.Dial("tcp", u.Host, cfg)
	if err != nil {
		return err
	}
	defer conn.Close()
	c, err := sftp.NewClient(conn)
	if err != nil {
		return err
	}
	defer c.Close()
	referral, _ := json.MarshalIndent(map[string]any{
		"patient.member_id": memberID,
		"patient":           map[string]any{"name": "Jane Doe", "birth_date": "1984-03-12", "fhir_id": a.patientID},
		"procedure":         map[string]any{"cpt": cptMRI, "description": "MRI right knee without contrast"},
		"authorization":     map[string]any{"auth_number": a.authNumber, "certification_number": a.certification},
		"diagnosis_codes":   []string{"M23.221"},
	}, "", "  ")
	dir := "/outbound/referrals"
	if err := c.MkdirAll(dir); err != nil {
		return err
	}
	f, err := c.Create(filepath.ToSlash(filepath.Join(dir, memberID+"-"+cptMRI+".json")))
	if err != nil {
		return err
	}
	if _, err := f.Write(referral); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// callPayer calls the payer's line: the member id by speech, 2 for prior
// authorizations, then asks the representative for the status and has the
// certification number read back.
func (a *agent) callPayer(ctx context.Context) error {
	voice := a.run.Endpoints["voice"]
	type reply struct {
		CallID string `json:"call_id"`
		Status string `json:"status"`
		Turns  []struct {
			Speaker, Text string
		} `json:"turns"`
	}
	var call reply
	if err := a.api.do(ctx, "POST", voice+"/calls", map[string]any{}, &call); err != nil {
		return err
	}
	heard := ""
	for _, turn := range []map[string]string{
		{"text": "W one two three four five six seven eight nine."},
		{"dtmf": "2"},
		{"text": "Hi, I'm calling from Springfield Orthopedics about the prior authorization for Jane Doe, an MRI of the right knee. What is its status?"},
		{"text": "Could you read back the certification number, please?"},
		{"text": "Thank you, that's all. Goodbye."},
	} {
		var r reply
		if err := a.api.do(ctx, "POST", voice+"/calls/"+call.CallID+"/turns", turn, &r); err != nil {
			return err
		}
		for _, t := range r.Turns {
			heard += t.Text + "\n"
		}
		call.Status = r.Status
	}
	if !strings.Contains(heard, a.certification) || call.Status != "completed" {
		return fmt.Errorf("the call did not confirm %s (status %s):\n%s", a.certification, call.Status, heard)
	}
	return nil
}
