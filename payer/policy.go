package payer

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/assaykit/assay/internal/strictjson"
)

// Policy is a payer's policy file (payer/policy.json): who is covered by
// which plan, which providers are on file, what each plan pays, how prior
// authorizations are decided and how claims progress. It is immutable once
// parsed; per-run state (requests, inquiries) lives in a Ledger.
type Policy struct {
	Payer                Payer           `json:"payer" strict:"required"`
	Members              []Member        `json:"members" strict:"required"`
	Providers            []Provider      `json:"providers"`
	Plans                map[string]Plan `json:"plans" strict:"required"`
	Determinations       []Determination `json:"determinations"`
	DefaultDetermination *Determination  `json:"default_determination"`
	Claims               []Claim         `json:"claims"`

	members   map[string]int
	providers map[string]int
	claims    map[string]int
}

// Payer names the payer.
type Payer struct {
	Name string `json:"name" strict:"required"`
	ID   string `json:"id" strict:"required"`
}

// Member is one covered person.
type Member struct {
	MemberID      string `json:"member_id" strict:"required"`
	FirstName     string `json:"first_name" strict:"required"`
	LastName      string `json:"last_name" strict:"required"`
	BirthDate     string `json:"birth_date" strict:"required"` // YYYY-MM-DD
	Sex           string `json:"sex"`                          // F, M or U
	Plan          string `json:"plan" strict:"required"`       // a key of Policy.Plans
	CoverageStart string `json:"coverage_start" strict:"required"`
	CoverageEnd   string `json:"coverage_end"` // "" means open-ended
}

// Provider is a provider on file.
type Provider struct {
	NPI  string `json:"npi" strict:"required"`
	Name string `json:"name"`
}

// Plan is a benefit plan.
type Plan struct {
	Name     string    `json:"name" strict:"required"`
	Benefits []Benefit `json:"benefits"`
}

// Benefit is one benefit of a plan, as a 271's EB segment reports it.
type Benefit struct {
	ServiceTypes  []string `json:"service_types" strict:"required"`
	Code          string   `json:"code" strict:"required"` // EB01
	CoverageLevel string   `json:"coverage_level"`
	TimePeriod    string   `json:"time_period"`
	Amount        string   `json:"amount"`
	Percent       string   `json:"percent"`
	AuthRequired  bool     `json:"auth_required"`
	Message       string   `json:"message"`
}

// Determination decides prior-authorization requests: the first one whose
// given keys all equal the request's applies.
type Determination struct {
	ProcedureCode   string `json:"procedure_code"`
	PatientMemberID string `json:"patient_member_id"`
	Status          string `json:"status" strict:"required"` // approved, denied, pending, need_more_info
	ValidDays       int    `json:"valid_days"`               // 0 means DefaultValidDays
	DelaySeconds    int64  `json:"delay_seconds"`
	Reason          string `json:"reason"`
	ReasonCode      string `json:"reason_code"`
}

// Claim is a claim whose status inquiries (276) answer its statuses in turn.
type Claim struct {
	PatientControlNumber string        `json:"patient_control_number" strict:"required"`
	MemberID             string        `json:"member_id"`
	Statuses             []ClaimStatus `json:"statuses" strict:"required"`
}

// ClaimStatus is one answer to a claim status inquiry (a 277's STC).
type ClaimStatus struct {
	Category string `json:"category" strict:"required"`
	Code     string `json:"code" strict:"required"`
	Entity   string `json:"entity"`
	Paid     string `json:"paid"`
}

// Statuses of a prior-authorization request.
const (
	Approved     = "approved"
	Denied       = "denied"
	Pending      = "pending"
	NeedMoreInfo = "need_more_info"
)

// DefaultValidDays is how long an approval is valid when its determination
// gives no valid_days.
const DefaultValidDays = 90

// DateLayout is how the policy and the rows write dates.
const DateLayout = "2006-01-02"

// Parse reads a policy file strictly: an unknown or repeated key, a value of
// the wrong type, a missing required key, a date that is not YYYY-MM-DD, a
// member whose plan is not in plans, an NPI that is not valid, a status
// that is not one of approved, denied, pending, need_more_info: each is an
// error naming its JSON pointer and its line and column in data
// (strictjson.Errors: every problem at once, in document order).
func Parse(data []byte) (*Policy, error) {
	var p Policy
	var decoded strictjson.Errors
	if err := strictjson.Decode(data, &p); err != nil && !errors.As(err, &decoded) {
		return nil, err
	}
	// The checks below run on what Decode could read, so a file's unknown
	// keys and its bad values are reported together; a value Decode found
	// wrong (left zero) is not checked again.
	errs := decoded
	bad := func(ptr, format string, args ...any) {
		if !decoded.Covers(ptr) {
			errs = append(errs, strictjson.At(data, ptr, format, args...))
		}
	}
	date := func(ptr, s string) {
		if _, err := time.Parse(DateLayout, s); err != nil {
			bad(ptr, "%q is not a date (YYYY-MM-DD)", s)
		}
	}
	p.members = map[string]int{}
	for i, m := range p.Members {
		ptr := "/members/" + strconv.Itoa(i)
		if m.MemberID == "" {
			bad(ptr+"/member_id", "must not be empty")
		} else if j, dup := p.members[m.MemberID]; dup {
			bad(ptr+"/member_id", "%q is also member %d", m.MemberID, j)
		} else {
			p.members[m.MemberID] = i
		}
		date(ptr+"/birth_date", m.BirthDate)
		date(ptr+"/coverage_start", m.CoverageStart)
		if m.CoverageEnd != "" {
			date(ptr+"/coverage_end", m.CoverageEnd)
			if m.CoverageEnd < m.CoverageStart {
				bad(ptr+"/coverage_end", "%s is before coverage_start %s", m.CoverageEnd, m.CoverageStart)
			}
		}
		if m.Sex != "" && m.Sex != "F" && m.Sex != "M" && m.Sex != "U" {
			bad(ptr+"/sex", "%q is not F, M or U", m.Sex)
		}
		if _, ok := p.Plans[m.Plan]; !ok && !decoded.Covers("/plans") {
			bad(ptr+"/plan", "%q is not a plan of plans (%s)", m.Plan, planNames(p.Plans))
		}
	}
	if p.Providers != nil {
		p.providers = map[string]int{}
	}
	for i, pr := range p.Providers {
		ptr := "/providers/" + strconv.Itoa(i) + "/npi"
		if !ValidNPI(pr.NPI) {
			bad(ptr, "%q is not a valid NPI (10 digits passing the Luhn check with prefix 80840)", pr.NPI)
		}
		p.providers[pr.NPI] = i
	}
	for _, name := range sortedPlanNames(p.Plans) {
		for i, b := range p.Plans[name].Benefits {
			ptr := strictjson.Pointer("/plans", name) + "/benefits/" + strconv.Itoa(i)
			if len(b.ServiceTypes) == 0 {
				bad(ptr+"/service_types", "must name at least one service type code")
			}
		}
	}
	checkDet := func(ptr string, d Determination) {
		if !slices.Contains([]string{Approved, Denied, Pending, NeedMoreInfo}, d.Status) {
			bad(ptr+"/status", "%q is not approved, denied, pending or need_more_info", d.Status)
		}
		if d.ValidDays < 0 {
			bad(ptr+"/valid_days", "must not be negative")
		}
		if d.DelaySeconds < 0 {
			bad(ptr+"/delay_seconds", "must not be negative")
		}
	}
	for i, d := range p.Determinations {
		checkDet("/determinations/"+strconv.Itoa(i), d)
	}
	if p.DefaultDetermination != nil {
		if d := p.DefaultDetermination; d.ProcedureCode != "" || d.PatientMemberID != "" {
			bad("/default_determination", "applies to every request: it takes no procedure_code or patient_member_id")
		}
		checkDet("/default_determination", *p.DefaultDetermination)
	}
	p.claims = map[string]int{}
	for i, c := range p.Claims {
		ptr := "/claims/" + strconv.Itoa(i)
		if _, dup := p.claims[c.PatientControlNumber]; dup {
			bad(ptr+"/patient_control_number", "%q names another claim too", c.PatientControlNumber)
		}
		p.claims[c.PatientControlNumber] = i
		if len(c.Statuses) == 0 {
			bad(ptr+"/statuses", "must hold at least one status")
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return &p, nil
}

func planNames(plans map[string]Plan) string {
	names := sortedPlanNames(plans)
	if len(names) == 0 {
		return "plans is empty"
	}
	return "plans holds " + fmt.Sprint(names)
}

func sortedPlanNames(plans map[string]Plan) []string {
	names := make([]string, 0, len(plans))
	for n := range plans {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Member returns the member with exactly this id.
func (p *Policy) Member(id string) (Member, bool) {
	i, ok := p.members[id]
	if !ok {
		return Member{}, false
	}
	return p.Members[i], true
}

// PlanOf returns the member's plan.
func (p *Policy) PlanOf(m Member) Plan { return p.Plans[m.Plan] }

// CoveredOn reports whether the member's coverage is active on date
// (YYYY-MM-DD): coverage_start <= date and, when there is an end, date <=
// coverage_end.
func (m Member) CoveredOn(date string) bool {
	return m.CoverageStart <= date && (m.CoverageEnd == "" || date <= m.CoverageEnd)
}

// ProviderOnFile reports whether npi is a valid NPI on file: listed in
// providers, or any valid NPI when the policy lists none.
func (p *Policy) ProviderOnFile(npi string) bool {
	if !ValidNPI(npi) {
		return false
	}
	if p.providers == nil {
		return true
	}
	_, ok := p.providers[npi]
	return ok
}

// Provider returns the provider on file with npi.
func (p *Policy) Provider(npi string) (Provider, bool) {
	i, ok := p.providers[npi]
	if !ok {
		return Provider{}, false
	}
	return p.Providers[i], true
}

// ValidNPI reports whether npi is 10 digits passing the Luhn check with the
// prefix 80840 (the NPI standard's check digit).
func ValidNPI(npi string) bool {
	if len(npi) != 10 {
		return false
	}
	for i := 0; i < 10; i++ {
		if npi[i] < '0' || npi[i] > '9' {
			return false
		}
	}
	digits := "80840" + npi
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if (len(digits)-1-i)%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// Determine returns the determination for a request: the first whose given
// keys equal the request's, else default_determination, else pending.
func (p *Policy) Determine(procedureCode, memberID string) Determination {
	for _, d := range p.Determinations {
		if (d.ProcedureCode == "" || d.ProcedureCode == procedureCode) && (d.PatientMemberID == "" || d.PatientMemberID == memberID) {
			return d
		}
	}
	if p.DefaultDetermination != nil {
		return *p.DefaultDetermination
	}
	return Determination{Status: Pending}
}

// Claim returns the claim with this patient control number.
func (p *Policy) Claim(pcn string) (Claim, bool) {
	i, ok := p.claims[pcn]
	if !ok {
		return Claim{}, false
	}
	return p.Claims[i], true
}

// ErrNoPolicy is the error of a simulator whose seed has no policy.
var ErrNoPolicy = errors.New("the seed has no payer/policy.json")
