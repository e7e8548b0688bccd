package payer_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/internal/strictjson"
	"github.com/assaykit/assay/payer"
)

// fakeRun is a run clock that moves only when told, with counters.
type fakeRun struct {
	now      time.Time
	counters map[string]int64
}

func (r *fakeRun) Now() time.Time { return r.now }
func (r *fakeRun) Next(name string) int64 {
	r.counters[name]++
	return r.counters[name]
}

func newRun() *fakeRun {
	return &fakeRun{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), counters: map[string]int64{}}
}

func policy(t *testing.T) *payer.Policy {
	t.Helper()
	data, err := os.ReadFile("testdata/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := payer.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseErrors(t *testing.T) {
	valid, _ := os.ReadFile("testdata/policy.json")
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"unknown key", `"sex": "F"`, `"sex": "F", "gender": "F"`, `/members/0/gender (line 3, column 27): unknown key "gender"`},
		{"bad date", `"1984-03-12"`, `"1984-3-12"`, `/members/0/birth_date (line 2, column 98): "1984-3-12" is not a date (YYYY-MM-DD)`},
		{"end before start", `"coverage_end": "2026-12-31"`, `"coverage_end": "2025-12-31"`, `/members/0/coverage_end (line 3, column 91): 2025-12-31 is before coverage_start 2026-01-01`},
		{"unknown plan", `"plan": "gold"`, `"plan": "silver"`, `/members/0/plan (line 3, column 35): "silver" is not a plan of plans (plans holds [gold])`},
		{"bad NPI", `"1234567893"`, `"1234567890"`, `/providers/0/npi (line 4, column 24): "1234567890" is not a valid NPI`},
		{"bad status", `"status": "approved", "valid_days"`, `"status": "ok", "valid_days"`, `/determinations/0/status (line 10, column 78): "ok" is not approved, denied, pending or need_more_info`},
		{"repeated key", `"id": "ACME01"`, `"id": "ACME01", "id": "X"`, `/payer/id (line 1, column 56): the key "id" is written twice`},
		{"wrong type", `"valid_days": 30`, `"valid_days": "30"`, `/determinations/0/valid_days (line 10, column 104): must be a whole number, not a string`},
		{"missing", `"member_id": "W123456789", `, ``, `/members/0/member_id (line 2, column 14): is required`},
		{"no statuses", `"statuses": [{"category": "A1", "code": "19", "entity": "PR"},
                          {"category": "F1", "code": "65", "paid": "120.00"}]`, `"statuses": []`, `/claims/0/statuses (line 14, column 26): must hold at least one status`},
		{"bad sex", `"sex": "F"`, `"sex": "female"`, `/members/0/sex (line 3, column 22): "female" is not F, M or U`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(string(valid), tc.from, tc.to, 1)
			if text == string(valid) {
				t.Fatalf("%q not in the policy", tc.from)
			}
			_, err := payer.Parse([]byte(text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %q in it", err, tc.want)
			}
		})
	}
}

// TestParseEveryProblem: a file with structural mistakes (an unknown key, a
// value of the wrong type, a missing key) and bad values reports each one,
// in document order with its place, and a value Decode refused is not
// reported a second time by the checks that follow.
func TestParseEveryProblem(t *testing.T) {
	data, err := os.ReadFile("testdata/problems.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = payer.Parse(data)
	var errs strictjson.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("err = %v, want strictjson.Errors", err)
	}
	want := []string{
		`/members/0/birth_date (line 3, column 29): "1984-13-45" is not a date (YYYY-MM-DD)`,
		`/members/0/bogus (line 4, column 77): unknown key "bogus" (the keys are member_id, first_name, last_name, birth_date, sex, plan, coverage_start, coverage_end)`,
		`/members/1/coverage_start (line 6, column 23): must be a string, not a number`,
		`/providers/0/npi (line 8, column 12): "1234567890" is not a valid NPI (10 digits passing the Luhn check with prefix 80840)`,
		`/plans/gold/benefits/0/amt (line 9, column 98): unknown key "amt" (the keys are service_types, code, coverage_level, time_period, amount, percent, auth_required, message)`,
		`/determinations/0/status (line 10, column 59): "approve" is not approved, denied, pending or need_more_info`,
		`/determinations/1/status (line 11, column 4): is required`,
	}
	got := make([]string, len(errs))
	for i, e := range errs {
		got[i] = e.Error()
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestValidNPI(t *testing.T) {
	for npi, want := range map[string]bool{
		"1234567893": true, "1245319599": true, "1234567890": false, "123456789": false,
		"12345678931": false, "123456789A": false, "": false, "0000000000": false,
	} {
		if got := payer.ValidNPI(npi); got != want {
			t.Errorf("ValidNPI(%q) = %v, want %v", npi, got, want)
		}
	}
}

func TestCoverage(t *testing.T) {
	p := policy(t)
	m, ok := p.Member("W123456789")
	if !ok {
		t.Fatal("member not found")
	}
	if _, ok := p.Member("w123456789"); ok {
		t.Error("member ids match exactly")
	}
	for date, want := range map[string]bool{"2025-12-31": false, "2026-01-01": true, "2026-12-31": true, "2027-01-01": false} {
		if got := m.CoveredOn(date); got != want {
			t.Errorf("CoveredOn(%s) = %v", date, got)
		}
	}
	if !p.ProviderOnFile("1234567893") || p.ProviderOnFile("1245319599") {
		t.Error("providers on file")
	}
	open := &payer.Policy{Plans: map[string]payer.Plan{}}
	if !open.ProviderOnFile("1245319599") || open.ProviderOnFile("1245319590") {
		t.Error("without providers, any valid NPI is on file")
	}
}

func TestLedger(t *testing.T) {
	p := policy(t)
	run := newRun()
	l := payer.NewLedger(p, run)
	units := 1
	approved, err := l.Submit(payer.Submission{PatientMemberID: "W123456789", ProcedureCode: "73721", ProviderNPI: "1234567893",
		DiagnosisCodes: []string{"M23.91"}, ServiceDate: "2026-03-10", Units: &units, Channel: "api"})
	if err != nil {
		t.Fatal(err)
	}
	if approved.AuthNumber != "PA-000001" || approved.RequestID != "PA-000001" || approved.Status != "approved" ||
		*approved.CertificationNumber != "AUTH000001" || *approved.ValidFrom != "2026-03-10" || *approved.ValidTo != "2026-04-08" ||
		*approved.DecidedAt != "2026-03-01T09:00:00Z" {
		t.Errorf("approved row: %+v", approved)
	}
	delayed, _ := l.Submit(payer.Submission{RequestID: "REQ-9", PatientMemberID: "W123456789", ProcedureCode: "97110", Channel: "x12"})
	if delayed.Status != "pending" || delayed.CertificationNumber != nil || delayed.DecidedAt != nil || delayed.RequestID != "REQ-9" {
		t.Errorf("delayed row: %+v", delayed)
	}
	denied, _ := l.Submit(payer.Submission{PatientMemberID: "W123456789", ProcedureCode: "99999", Channel: "web"})
	if denied.Status != "denied" || *denied.Reason != "Not medically necessary" || denied.ReasonCode != "0F" || denied.AuthNumber != "PA-000003" {
		t.Errorf("denied row: %+v", denied)
	}
	// Two days later the delayed request reads approved, with the number
	// reserved at submission.
	run.now = run.now.Add(48 * time.Hour)
	row, _ := l.Row("PA-000002")
	if row.Status != "approved" || *row.CertificationNumber != "AUTH000002" || *row.ValidFrom != "2026-03-03" || *row.ValidTo != "2026-05-31" {
		t.Errorf("delayed row after 48h: %+v", row)
	}
	latest, _ := l.Latest("W123456789")
	if latest.AuthNumber != "PA-000003" {
		t.Errorf("latest: %s", latest.AuthNumber)
	}
	data, _ := json.Marshal(l.Rows()[2])
	want := `{"request_id":"PA-000003","auth_number":"PA-000003","patient_member_id":"W123456789","procedure_code":"99999","provider_npi":null,"diagnosis_codes":null,"service_date":null,"units":null,"status":"denied","reason":"Not medically necessary","certification_number":null,"valid_from":null,"valid_to":null,"submitted_at":"2026-03-01T09:00:00Z","decided_at":"2026-03-01T09:00:00Z","channel":"web"}`
	if string(data) != want {
		t.Errorf("row JSON:\n%s\nwant\n%s", data, want)
	}
	for _, tc := range []struct {
		s     payer.Submission
		field string
	}{
		{payer.Submission{ProcedureCode: "1"}, "patient_member_id"},
		{payer.Submission{PatientMemberID: "W123456789"}, "procedure_code"},
		{payer.Submission{PatientMemberID: "NOBODY", ProcedureCode: "1"}, "patient_member_id"},
		{payer.Submission{PatientMemberID: "W123456789", ProcedureCode: "1", ProviderNPI: "1234567890"}, "provider_npi"},
		{payer.Submission{PatientMemberID: "W123456789", ProcedureCode: "1", ProviderNPI: "1245319599"}, "provider_npi"},
		{payer.Submission{PatientMemberID: "W123456789", ProcedureCode: "1", ServiceDate: "03/10/2026"}, "service_date"},
	} {
		_, err := l.Submit(tc.s)
		fe, ok := err.(*payer.FieldError)
		if !ok || fe.Field != tc.field {
			t.Errorf("Submit(%+v) = %v, want a field error on %s", tc.s, err, tc.field)
		}
	}
	if len(l.Rows()) != 3 {
		t.Errorf("a refused submission was recorded: %d rows", len(l.Rows()))
	}
}

func TestInquire(t *testing.T) {
	l := payer.NewLedger(policy(t), newRun())
	var got []string
	for range 3 {
		s, ok := l.Inquire("PCN-1")
		if !ok {
			t.Fatal("claim not found")
		}
		got = append(got, s.Category+":"+s.Code)
	}
	if strings.Join(got, " ") != "A1:19 F1:65 F1:65" {
		t.Errorf("inquiries: %v", got)
	}
	if _, ok := l.Inquire("PCN-2"); ok {
		t.Error("an unknown claim was found")
	}
}

func FuzzParse(f *testing.F) {
	data, _ := os.ReadFile("testdata/policy.json")
	f.Add(data)
	f.Add([]byte(`{"payer": {"name": "a", "id": "b"}, "members": [], "plans": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := payer.Parse(data)
		if err == nil {
			// A parsed policy answers every question without a panic.
			for _, m := range p.Members {
				p.Member(m.MemberID)
				_ = m.CoveredOn("2026-01-01")
				p.PlanOf(m)
			}
			p.Determine("1", "2")
		}
	})
}
