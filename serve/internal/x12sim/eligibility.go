package x12sim

import (
	"slices"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/x12"
)

// eligibility is the answer to one subscriber of a 270, as the JSON
// eligibility call returns it beside the 271.
type eligibility struct {
	Active   bool
	Plan     *string
	Benefits []payer.Benefit // as the 271 gives them
	AAA      []aaaJSON
}

// benefitsJSON writes benefits as the JSON call returns them: null for
// what a benefit does not give.
func benefitsJSON(benefits []payer.Benefit) []benefitJSON {
	out := make([]benefitJSON, len(benefits))
	for i, b := range benefits {
		out[i] = benefitJSON{
			Code: b.Code, ServiceTypes: b.ServiceTypes, CoverageLevel: or(b.CoverageLevel, "IND"), TimePeriod: optional(b.TimePeriod),
			Amount: optional(b.Amount), Percent: optional(b.Percent), AuthRequired: b.AuthRequired, Message: optional(b.Message),
		}
	}
	return out
}

type benefitJSON struct {
	Code          string   `json:"code"`
	ServiceTypes  []string `json:"service_types"`
	CoverageLevel string   `json:"coverage_level"`
	TimePeriod    *string  `json:"time_period"`
	Amount        *string  `json:"amount"`
	Percent       *string  `json:"percent"`
	AuthRequired  bool     `json:"auth_required"`
	Message       *string  `json:"message"`
}

type aaaJSON struct {
	Loop     string `json:"loop"`
	Code     string `json:"code"`
	FollowUp string `json:"follow_up"`
}

// AAA codes the clearinghouse writes (X279 and X217, element AAA03), with
// AAA01 (valid request) and AAA04 (follow-up action).
var (
	aaaProviderInvalid = aaa("N", "43", "C") // missing or invalid provider identification
	aaaProviderUnknown = aaa("N", "51", "N") // provider not on file
	aaaNoSubscriberID  = aaa("N", "72", "C") // invalid or missing subscriber id
	aaaNoSuchMember    = aaa("Y", "75", "C") // subscriber not found
	aaaBirthDate       = aaa("N", "71", "C") // patient birth date does not match
	aaaBadDate         = aaa("N", "57", "C") // invalid or missing date of service
	aaaNoPatient       = aaa("Y", "67", "C") // patient not found (a dependent)
	aaaInputErrors     = aaa("N", "33", "C") // input errors (a 278 service without a procedure)
)

func aaa(valid, code, followUp string) seg { return segment("AAA", valid, "", code, followUp) }

// aaaOf reads an AAA seg for the JSON answer.
func aaaOf(loop string, s seg) aaaJSON {
	return aaaJSON{Loop: loop, Code: s.vals[2], FollowUp: s.vals[3]}
}

// eligibilityAnswer decides the 271 answering r (DESIGN.md 13.6).
func (rs *runSim) eligibilityAnswer(r *request, env envelope) (*answer, *outcome) {
	pol := rs.ledger.Policy()
	a := rs.begin(env, "HB", env.version)
	now := a.header.Time
	r.number()
	o := &outcome{transaction: "271", requestID: requestID(r.x), patientID: patientID(r.x)}
	segs := []seg{r.header("11", now, "")}
	stopped := map[*node]bool{} // a failure above: echo, no AAA, no EB
	var summary *eligibility
	note := func(loop string, s seg) {
		if summary == nil {
			summary = &eligibility{}
		}
		summary.AAA = append(summary.AAA, aaaOf(loop, s))
	}
	r.walk(func(n *node, parentOut int) {
		segs = append(segs, r.hl(n, parentOut))
		stop := stopped[n]
		failed := false
		switch n.level {
		case "20": // information source: the payer
			segs = append(segs, payerNM1(pol, "PR"))
		case "21": // information receiver: the provider
			nm1, ok := find(n.segs, "NM1", "")
			segs = append(segs, r.echoOr(nm1, ok, "1P", "2"))
			if bad, failed2 := providerAAA(pol, nm1, ok); failed2 && !stop {
				segs = append(segs, bad)
				note("2100B", bad)
				failed = true
			}
		case "22": // subscriber
			segs = append(segs, r.trnEchoes(n.segs)...)
			var e *eligibility
			var more []seg
			more, e, failed = r.subscriber(pol, n, stop, now.Format("2006-01-02"))
			segs = append(segs, more...)
			if e != nil {
				if summary == nil {
					summary = &eligibility{}
				}
				if summary.Plan == nil && summary.Benefits == nil {
					summary.Active, summary.Plan, summary.Benefits = e.Active, e.Plan, e.Benefits
				}
				summary.AAA = append(summary.AAA, e.AAA...)
			}
		case "23": // dependent: the roster holds subscribers only
			segs = append(segs, r.trnEchoes(n.segs)...)
			nm1, ok := find(n.segs, "NM1", "")
			segs = append(segs, r.echoOr(nm1, ok, "03", "1"))
			if !stop {
				segs = append(segs, aaaNoPatient)
				note("2100D", aaaNoPatient)
			}
		}
		if stop || failed {
			for _, k := range n.kids {
				stopped[k] = true
			}
		}
	})
	if summary == nil {
		summary = &eligibility{}
	}
	o.elig = summary
	a.sets = []set{{code: "271", control: rs.nextSet(), segs: segs}}
	return a, o
}

// echoOr echoes nm1 when the request has it, else writes an NM1 with
// NM101 and NM102 only, so that the loop the answer needs is there.
func (r *request) echoOr(nm1 x12.Segment, ok bool, entity, kind string) seg {
	if ok {
		return r.echo(nm1)
	}
	return segment("NM1", entity, kind)
}

// payerNM1 names the payer: NM1*ENTITY*2*NAME*****PI*ID.
func payerNM1(p *payer.Policy, entity string) seg {
	return segment("NM1", entity, "2", p.Payer.Name, "", "", "", "", "PI", p.Payer.ID).withText(3)
}

// subscriber answers one 2000C: the member checks in order, the first
// failure an AAA in 2100C; else the roster's name and birth date and, on
// the date of service, the benefits asked about. failed says an AAA was
// written (the levels below get none).
func (r *request) subscriber(pol *payer.Policy, n *node, stop bool, today string) (segs []seg, e *eligibility, failed bool) {
	nm1, hasNM1 := find(n.segs, "NM1", "IL")
	echoed := r.echoOr(nm1, hasNM1, "IL", "1")
	if stop {
		return []seg{echoed}, nil, false
	}
	e = &eligibility{}
	reject := func(code seg, extra ...seg) ([]seg, *eligibility, bool) {
		e.AAA = append(e.AAA, aaaOf("2100C", code))
		return append([]seg{echoed, code}, extra...), e, true
	}
	id := ""
	if hasNM1 {
		id = el(nm1, 9)
	}
	if id == "" {
		return reject(aaaNoSubscriberID)
	}
	m, found := pol.Member(id)
	if !found {
		return reject(aaaNoSuchMember)
	}
	dmg, hasDMG := find(n.segs, "DMG", "")
	if hasDMG && el(dmg, 2) != "" && el(dmg, 2) != x12Date(m.BirthDate) {
		return reject(aaaBirthDate, r.echo(dmg))
	}
	day := today
	if dtp, ok := find(n.segs, "DTP", "291"); ok {
		d, ok := date(dtp)
		if !ok {
			return reject(aaaBadDate)
		}
		day = d
	}
	plan := pol.PlanOf(m)
	e.Plan = &plan.Name
	segs = []seg{
		segment("NM1", "IL", "1", m.LastName, m.FirstName, "", "", "", "MI", m.MemberID).withText(3, 4),
		segment("DMG", "D8", x12Date(m.BirthDate), m.Sex),
	}
	for _, k := range n.kids {
		if k.level == "23" {
			// The patient is a dependent: the benefits would be theirs,
			// and the roster has none.
			return segs, e, false
		}
	}
	if !m.CoveredOn(day) {
		return append(segs, segment("EB", "6", "IND", "30", "", plan.Name).withText(5)), e, false
	}
	e.Active = true
	segs = append(segs, segment("EB", "1", "IND", "30", "", plan.Name).withText(5))
	done := make([]bool, len(plan.Benefits))
	for _, st := range r.serviceTypes(n) {
		for i, b := range plan.Benefits {
			if done[i] || !slices.Contains(b.ServiceTypes, st) {
				continue
			}
			done[i] = true
			level := or(b.CoverageLevel, "IND")
			auth := ""
			if b.AuthRequired {
				auth = "Y"
			}
			segs = append(segs, segment("EB", b.Code, level, st, "", "", b.TimePeriod, b.Amount, b.Percent, "", "", auth))
			if b.Message != "" {
				segs = append(segs, segment("MSG", b.Message).withText(1))
			}
			e.Benefits = append(e.Benefits, b)
		}
	}
	return segs, e, false
}

// serviceTypes lists the service types a subscriber's 2110C loops ask
// about (every repetition of every EQ01), once each, in order; 30 when
// none does.
func (r *request) serviceTypes(n *node) []string {
	var out []string
	for _, eq := range findAll(n.segs, "EQ") {
		for _, st := range r.repetitions(eq, 1) {
			if st != "" && !slices.Contains(out, st) {
				out = append(out, st)
			}
		}
	}
	if len(out) == 0 {
		out = []string{"30"}
	}
	return out
}
