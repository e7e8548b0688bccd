package x12sim

import (
	"github.com/assaykit/assay/x12"
)

// claimAnswer decides the 277 answering the 276 r: each claim (a TRN of
// 2200D or 2200E) gets the status the ledger answers for it, matched by
// its TRN02, else its REF*EJ; an unknown claim gets STC*A4:35.
func (rs *runSim) claimAnswer(r *request, env envelope) (*answer, *outcome) {
	pol := rs.ledger.Policy()
	a := rs.begin(env, "HN", env.version)
	now := a.header.Time
	day := now.Format("20060102")
	r.number()
	o := &outcome{transaction: "277", requestID: requestID(r.x), patientID: patientID(r.x)}
	segs := []seg{r.header("08", now, "DG")}
	r.walk(func(n *node, parentOut int) {
		segs = append(segs, r.hl(n, parentOut))
		switch n.level {
		case "20": // information source: the payer
			segs = append(segs, payerNM1(pol, "PR"))
		case "21": // information receiver
			nm1, ok := find(n.segs, "NM1", "")
			segs = append(segs, r.echoOr(nm1, ok, "41", "2"))
		case "19": // service provider
			nm1, ok := find(n.segs, "NM1", "")
			segs = append(segs, r.echoOr(nm1, ok, "1P", "2"))
		case "22", "23": // subscriber, dependent: their claims
			entity := "IL"
			if n.level == "23" {
				entity = "QC"
			}
			nm1, ok := find(n.segs, "NM1", "")
			segs = append(segs, r.echoOr(nm1, ok, entity, "1"))
			for _, c := range claimsOf(n.segs) {
				segs = append(segs, rs.claimStatus(r, c, day)...)
			}
		}
	})
	a.sets = []set{{code: "277", control: rs.nextSet(), segs: segs}}
	return a, o
}

// claim is one 2200 loop of a 276: its TRN and the segments after it.
type claim struct {
	trn  x12.Segment
	segs []x12.Segment
}

// claimsOf splits a level's segments into claims at each TRN, leaving out
// the service lines (SVC and what follows it).
func claimsOf(segs []x12.Segment) []claim {
	var out []claim
	inService := false
	for _, s := range segs {
		switch s.ID() {
		case "TRN":
			out = append(out, claim{trn: s})
			inService = false
		case "SVC":
			inService = true
		default:
			if len(out) > 0 && !inService {
				out[len(out)-1].segs = append(out[len(out)-1].segs, s)
			}
		}
	}
	return out
}

// claimStatus answers one claim: TRN*2, its STC, and its REF*EJ echoed.
func (rs *runSim) claimStatus(r *request, c claim, day string) []seg {
	out := []seg{r.trnEchoes([]x12.Segment{c.trn})[0]}
	pol := rs.ledger.Policy()
	pcn := el(c.trn, 2)
	ej, hasEJ := find(c.segs, "REF", "EJ")
	if _, ok := pol.Claim(pcn); !ok && hasEJ {
		pcn = el(ej, 2)
	}
	st, ok := rs.ledger.Inquire(pcn)
	if !ok {
		out = append(out, seg{id: "STC", elems: []x12.Element{x12.Composite("A4", "35"), x12.Simple(day)}})
	} else {
		stc := seg{id: "STC", elems: []x12.Element{x12.Composite(st.Category, st.Code, st.Entity), x12.Simple(day), nil, nil, x12.Simple(st.Paid)}}
		out = append(out, stc)
	}
	if hasEJ {
		out = append(out, r.echo(ej))
	}
	return out
}
