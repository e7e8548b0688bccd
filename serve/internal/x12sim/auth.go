package x12sim

import (
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/x12"
)

// authContext is what a 278 level knows of the levels above it.
type authContext struct {
	npi, member string
	diagnoses   []string
	eventDate   string // YYYY-MM-DD, from the event's DTP*AAH
}

// authAnswer decides the 278 answering the 278 request r: the provider
// (2010B) and member (2010C) checks of the 271, then each 2000F service
// submitted to the ledger (channel x12, request_id BHT03) and answered
// with an HCR.
func (rs *runSim) authAnswer(r *request, env envelope) (*answer, *outcome) {
	pol := rs.ledger.Policy()
	services := 0
	for _, n := range r.all {
		if n.level == "SS" {
			services++
		}
	}
	reserved := int64(services) * rowCost
	if err := rs.run.Reserve(reserved); err != nil {
		return nil, refused(http.StatusInsufficientStorage, "INSUFFICIENT_STORAGE", err.Error())
	}
	used := int64(0)
	defer func() { rs.run.Release(reserved - used) }()

	a := rs.begin(env, "HI", env.version)
	now := a.header.Time
	r.number()
	o := &outcome{transaction: "278", requestID: requestID(r.x), patientID: patientID(r.x)}
	requestIDValue := ""
	if r.hasBT {
		requestIDValue = el(r.bht, 3)
	}
	segs := []seg{r.header("11", now, "")}
	stopped := map[*node]bool{}
	ctx := map[*node]authContext{}
	r.walk(func(n *node, parentOut int) {
		segs = append(segs, r.hl(n, parentOut))
		stop := stopped[n]
		c := ctx[n]
		failed := false
		switch n.level {
		case "20": // utilization management organization: the payer
			segs = append(segs, payerNM1(pol, "X3"))
		case "21": // requester
			nm1, ok := find(n.segs, "NM1", "")
			segs = append(segs, r.echoOr(nm1, ok, "1P", "2"))
			if bad, isBad := providerAAA(pol, nm1, ok); isBad && !stop {
				segs = append(segs, bad)
				failed = true
			} else if ok {
				c.npi = el(nm1, 9)
			}
		case "22": // subscriber: the member
			var more []seg
			more, failed = r.member(pol, n, stop)
			segs = append(segs, more...)
			if nm1, ok := find(n.segs, "NM1", "IL"); ok {
				c.member = el(nm1, 9)
			}
		case "23": // dependent
			nm1, ok := find(n.segs, "NM1", "")
			segs = append(segs, r.echoOr(nm1, ok, "QC", "1"))
		case "EV": // patient event
			segs = append(segs, r.trnEchoes(n.segs)...)
			c.diagnoses = r.diagnoses(n.segs)
			if dtp, ok := find(n.segs, "DTP", "AAH"); ok {
				c.eventDate, _ = date(dtp)
			}
			hasService := false
			for _, k := range n.kids {
				hasService = hasService || k.level == "SS"
			}
			if !hasService && !stop {
				segs = append(segs, aaaInputErrors)
			}
			for _, id := range []string{"UM", "HI"} {
				if s, ok := find(n.segs, id, ""); ok {
					segs = append(segs, r.echo(s))
				}
			}
		case "SS": // service
			more, row := rs.service(r, n, c, stop, requestIDValue)
			segs = append(segs, more...)
			if row {
				used += rowCost
			}
		}
		for _, k := range n.kids {
			stopped[k] = stop || failed
			ctx[k] = c
		}
	})
	a.sets = []set{{code: "278", control: rs.nextSet(), segs: segs}}
	return a, o
}

// member runs the 271's member checks on a 278's 2010C: the first failure
// an AAA after its NM1.
func (r *request) member(pol *payer.Policy, n *node, stop bool) ([]seg, bool) {
	nm1, ok := find(n.segs, "NM1", "IL")
	out := []seg{r.echoOr(nm1, ok, "IL", "1")}
	if stop {
		return out, false
	}
	id := ""
	if ok {
		id = el(nm1, 9)
	}
	m, found := pol.Member(id)
	dmg, hasDMG := find(n.segs, "DMG", "")
	switch {
	case id == "":
		return append(out, aaaNoSubscriberID), true
	case !found:
		return append(out, aaaNoSuchMember), true
	case hasDMG && el(dmg, 2) != "" && el(dmg, 2) != x12Date(m.BirthDate):
		return append(out, aaaBirthDate, r.echo(dmg)), true
	}
	if hasDMG {
		out = append(out, r.echo(dmg))
	}
	return out, false
}

// diagnoses reads the codes of an event's HI segments (each composite's
// second component).
func (r *request) diagnoses(segs []x12.Segment) []string {
	var out []string
	for _, hi := range findAll(segs, "HI") {
		out = append(out, r.hiCodes(hi)...)
	}
	return out
}

// hiCodes returns the code of every element of an HI segment.
func (r *request) hiCodes(hi x12.Segment) []string {
	var out []string
	for n := 1; ; n++ {
		if _, ok := hi.Element(n); !ok {
			return out
		}
		if code := r.component(hi, n, 2); code != "" {
			out = append(out, code)
		}
	}
}

// service decides one 2000F: it submits the service to the ledger and
// answers its row as an HCR. row says a row was written.
func (rs *runSim) service(r *request, n *node, c authContext, stop bool, requestID string) ([]seg, bool) {
	out := r.trnEchoes(n.segs)
	um, hasUM := find(n.segs, "UM", "")
	var sv x12.Segment
	hasSV := false
	code, units := "", ""
	for _, s := range n.segs {
		if hasSV {
			break
		}
		switch s.ID() {
		case "SV1", "SV3":
			code, units = r.component(s, 1, 2), el(s, 4)
			sv, hasSV = s, true
		case "SV2":
			code, units = r.component(s, 2, 2), el(s, 5)
			sv, hasSV = s, true
		}
	}
	tail := func(segs ...seg) []seg {
		if hasUM {
			out = append(out, r.echo(um))
		}
		out = append(out, segs...)
		if hasSV {
			out = append(out, r.echo(sv))
		}
		return out
	}
	if stop {
		return tail(), false
	}
	day := c.eventDate
	if dtp, ok := find(n.segs, "DTP", "472"); ok {
		if d, ok := date(dtp); ok {
			day = d
		}
	}
	sub := payer.Submission{
		RequestID: requestID, PatientMemberID: c.member, ProcedureCode: code, ProviderNPI: c.npi,
		DiagnosisCodes: c.diagnoses, ServiceDate: day, Units: count(units), Channel: "x12",
	}
	row, err := rs.ledger.Submit(sub)
	if err != nil {
		var fe *payer.FieldError
		if errors.As(err, &fe) {
			rs.run.Logf("x12: a 278 service was not submitted: %v", fe)
		}
		out = append(out, aaaInputErrors)
		return tail(), false
	}
	var hcr []seg
	switch row.Status {
	case payer.Approved:
		hcr = append(hcr, segment("HCR", "A1", deref(row.CertificationNumber)),
			segment("DTP", "AAH", "RD8", x12Date(deref(row.ValidFrom))+"-"+x12Date(deref(row.ValidTo))))
	case payer.Denied:
		hcr = append(hcr, segment("HCR", "A3", "", row.ReasonCode))
	default: // pending, need_more_info
		hcr = append(hcr, segment("HCR", "A4"))
	}
	out = tail(hcr...)
	if row.Status == payer.NeedMoreInfo && deref(row.Reason) != "" {
		out = append(out, segment("MSG", deref(row.Reason)).withText(1))
	}
	return out, true
}

// count reads a service's units: a whole number of at least 1, else nil.
func count(s string) *int {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 1 || f > 1e9 || f != math.Trunc(f) {
		return nil
	}
	n := int(f)
	return &n
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
