package payer

import (
	"fmt"
	"sync"
	"time"
)

// Run is what a Ledger needs of the run it keeps: the run's clock and its
// counters (minted numbers are counters per run, so two runs given the
// same requests mint the same numbers). The sandbox's runs satisfy it.
type Run interface {
	Now() time.Time
	Next(counter string) int64
}

// Ledger is one run's state at the payer: the prior-authorization requests
// every channel submitted and the claim inquiries answered. It is safe for
// concurrent use.
type Ledger struct {
	policy *Policy
	run    Run

	mu        sync.Mutex
	requests  []*request
	byAuth    map[string]*request
	inquiries map[string]int // claim -> inquiries answered
}

// request is one submitted prior-authorization request.
type request struct {
	Submission
	authNumber    string
	det           Determination
	certification string // reserved at submission for an approval
	submitted     time.Time
}

// Submission is a prior-authorization request as a channel received it.
type Submission struct {
	RequestID       string
	PatientMemberID string
	ProcedureCode   string
	ProviderNPI     string
	DiagnosisCodes  []string
	ServiceDate     string // YYYY-MM-DD, or ""
	Units           *int
	Notes           string
	Channel         string // api, web or x12
}

// FieldError says which field of a submission is wrong.
type FieldError struct {
	Field, Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// NewLedger returns the empty ledger of a run.
func NewLedger(p *Policy, run Run) *Ledger {
	return &Ledger{policy: p, run: run, byAuth: map[string]*request{}, inquiries: map[string]int{}}
}

// Policy returns the policy the ledger decides by.
func (l *Ledger) Policy() *Policy { return l.policy }

// Check validates a submission as every channel must: a member of the
// roster, a procedure code, a provider NPI (when given) that is valid and on
// file, and a service date (when given) in YYYY-MM-DD form. The error is a
// *FieldError.
func (l *Ledger) Check(s Submission) error {
	switch {
	case s.PatientMemberID == "":
		return &FieldError{"patient_member_id", "is required"}
	case s.ProcedureCode == "":
		return &FieldError{"procedure_code", "is required"}
	}
	if _, ok := l.policy.Member(s.PatientMemberID); !ok {
		return &FieldError{"patient_member_id", fmt.Sprintf("no member %q", s.PatientMemberID)}
	}
	if s.ProviderNPI != "" {
		if !ValidNPI(s.ProviderNPI) {
			return &FieldError{"provider_npi", fmt.Sprintf("%q is not a valid NPI", s.ProviderNPI)}
		}
		if !l.policy.ProviderOnFile(s.ProviderNPI) {
			return &FieldError{"provider_npi", fmt.Sprintf("provider %s is not on file", s.ProviderNPI)}
		}
	}
	if s.ServiceDate != "" {
		if _, err := time.Parse(DateLayout, s.ServiceDate); err != nil {
			return &FieldError{"service_date", fmt.Sprintf("%q is not a date (YYYY-MM-DD)", s.ServiceDate)}
		}
	}
	if s.Units != nil && *s.Units < 1 {
		return &FieldError{"units", "must be at least 1"}
	}
	return nil
}

// Submit checks and records a request, decides it by the policy, and returns
// its row as it reads now. A submission that fails Check is not recorded.
func (l *Ledger) Submit(s Submission) (Row, error) {
	if err := l.Check(s); err != nil {
		return Row{}, err
	}
	det := l.policy.Determine(s.ProcedureCode, s.PatientMemberID)
	r := &request{Submission: s, det: det, submitted: l.run.Now()}
	l.mu.Lock()
	defer l.mu.Unlock()
	r.authNumber = fmt.Sprintf("PA-%06d", l.run.Next("prior_auth"))
	if det.Status == Approved {
		// Reserved now, shown once the request reads approved.
		r.certification = fmt.Sprintf("AUTH%06d", l.run.Next("certification"))
	}
	if r.RequestID == "" {
		r.RequestID = r.authNumber
	}
	l.requests = append(l.requests, r)
	l.byAuth[r.authNumber] = r
	return r.row(l.run.Now()), nil
}

// Rows returns every request's row as it reads now, in submission order.
func (l *Ledger) Rows() []Row {
	now := l.run.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Row, len(l.requests))
	for i, r := range l.requests {
		out[i] = r.row(now)
	}
	return out
}

// Row returns the row of the request with this auth number.
func (l *Ledger) Row(authNumber string) (Row, bool) {
	now := l.run.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.byAuth[authNumber]
	if !ok {
		return Row{}, false
	}
	return r.row(now), true
}

// Latest returns the member's most recent request's row.
func (l *Ledger) Latest(memberID string) (Row, bool) {
	now := l.run.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.requests) - 1; i >= 0; i-- {
		if r := l.requests[i]; r.PatientMemberID == memberID {
			return r.row(now), true
		}
	}
	return Row{}, false
}

// Inquire answers a claim status inquiry: the n-th inquiry about a claim
// answers its statuses[min(n, len)-1]. ok is false for an unknown claim.
func (l *Ledger) Inquire(pcn string) (ClaimStatus, bool) {
	c, ok := l.policy.Claim(pcn)
	if !ok {
		return ClaimStatus{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inquiries[pcn]++
	n := min(l.inquiries[pcn], len(c.Statuses))
	return c.Statuses[n-1], true
}

// Row is a prior-authorization request as the portal's state holds it
// (resource prior_auth_requests), read at a moment of the run's clock: a
// delayed determination reads pending until its delay has passed.
type Row struct {
	RequestID           string   `json:"request_id"`
	AuthNumber          string   `json:"auth_number"`
	PatientMemberID     string   `json:"patient_member_id"`
	ProcedureCode       string   `json:"procedure_code"`
	ProviderNPI         *string  `json:"provider_npi"`
	DiagnosisCodes      []string `json:"diagnosis_codes"`
	ServiceDate         *string  `json:"service_date"`
	Units               *int     `json:"units"`
	Status              string   `json:"status"`
	Reason              *string  `json:"reason"`
	CertificationNumber *string  `json:"certification_number"`
	ValidFrom           *string  `json:"valid_from"`
	ValidTo             *string  `json:"valid_to"`
	SubmittedAt         string   `json:"submitted_at"`
	DecidedAt           *string  `json:"decided_at"`
	Channel             string   `json:"channel"`
	// ReasonCode is the determination's reason code (a 278's HCR03); it is
	// not a column of the portal's rows.
	ReasonCode string `json:"-"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// stampLayout writes the rows' times: RFC 3339, UTC, seconds.
const stampLayout = "2006-01-02T15:04:05Z"

func (r *request) row(now time.Time) Row {
	row := Row{
		RequestID:       r.RequestID,
		AuthNumber:      r.authNumber,
		PatientMemberID: r.PatientMemberID,
		ProcedureCode:   r.ProcedureCode,
		ProviderNPI:     optional(r.ProviderNPI),
		DiagnosisCodes:  r.DiagnosisCodes,
		ServiceDate:     optional(r.ServiceDate),
		Units:           r.Units,
		Status:          Pending,
		SubmittedAt:     r.submitted.UTC().Format(stampLayout),
		Channel:         r.Channel,
	}
	decided := r.submitted.Add(time.Duration(r.det.DelaySeconds) * time.Second)
	if r.det.DelaySeconds > 0 && now.Before(decided) {
		return row
	}
	row.Status = r.det.Status
	if r.det.Status == Pending {
		return row
	}
	row.DecidedAt = optional(decided.UTC().Format(stampLayout))
	switch r.det.Status {
	case Approved:
		row.CertificationNumber = optional(r.certification)
		from := decided.UTC().Format(DateLayout)
		if r.ServiceDate != "" {
			from = r.ServiceDate
		}
		days := r.det.ValidDays
		if days == 0 {
			days = DefaultValidDays
		}
		start, _ := time.Parse(DateLayout, from)
		row.ValidFrom = optional(from)
		row.ValidTo = optional(start.AddDate(0, 0, days-1).Format(DateLayout))
	case Denied, NeedMoreInfo:
		row.Reason = optional(r.det.Reason)
		row.ReasonCode = r.det.ReasonCode
	}
	return row
}
