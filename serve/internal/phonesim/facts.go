package phonesim

import (
	"slices"
	"strings"
	"time"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/voice"
)

// Unknown is what a fact reads when it has no value, or names no fact.
const Unknown = "unknown"

// FactNames are the facts a say may name as {name}, in the order an LLM
// persona's prompt lists them.
var FactNames = []string{
	"member_id", "member_name", "plan", "coverage_status", "pa_status", "auth_number",
	"certification_number", "valid_from", "valid_to", "procedure_code", "reason",
}

// facts reads the looked-up member's facts at a moment of the run's clock:
// the member from the roster and their latest prior_auth_requests row.
type facts struct {
	member *payer.Member
	policy *payer.Policy
	ledger *payer.Ledger
	now    time.Time

	row     payer.Row
	rowRead bool
	hasRow  bool
}

// get returns the fact's value; ok is false for a name that is no fact.
func (f *facts) get(name string) (value string, ok bool) {
	str := func(p *string) string {
		if p == nil || *p == "" {
			return Unknown
		}
		return *p
	}
	m := f.member
	switch name {
	case "member_id", "member_name", "plan", "coverage_status":
		if m == nil {
			return Unknown, true
		}
		switch name {
		case "member_id":
			return m.MemberID, true
		case "member_name":
			return m.FirstName + " " + m.LastName, true
		case "plan":
			if f.policy == nil {
				return Unknown, true
			}
			return f.policy.PlanOf(*m).Name, true
		default:
			if m.CoveredOn(f.now.UTC().Format(payer.DateLayout)) {
				return "active", true
			}
			return "inactive", true
		}
	case "pa_status", "auth_number", "certification_number", "valid_from", "valid_to", "procedure_code", "reason":
		row, ok := f.latest()
		if !ok {
			return Unknown, true
		}
		switch name {
		case "pa_status":
			return row.Status, true
		case "auth_number":
			return row.AuthNumber, true
		case "certification_number":
			return str(row.CertificationNumber), true
		case "valid_from":
			return str(row.ValidFrom), true
		case "valid_to":
			return str(row.ValidTo), true
		case "procedure_code":
			return row.ProcedureCode, true
		default:
			return str(row.Reason), true
		}
	}
	return Unknown, false
}

func (f *facts) latest() (payer.Row, bool) {
	if !f.rowRead {
		f.rowRead = true
		if f.member != nil && f.ledger != nil {
			f.row, f.hasRow = f.ledger.Latest(f.member.MemberID)
		}
	}
	return f.row, f.hasRow
}

// render replaces every {name} in text with the fact's value; names that
// are no fact read Unknown and are returned, in order of first use.
func (f *facts) render(text string) (string, []string) {
	if !strings.Contains(text, "{") {
		return text, nil
	}
	var b strings.Builder
	var unknown []string
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(text[i+1:], '}')
		if j < 0 || !isFactName(text[i+1:i+1+j]) {
			b.WriteString(text[:i+1])
			text = text[i+1:]
			continue
		}
		name := text[i+1 : i+1+j]
		v, ok := f.get(name)
		if !ok && !slices.Contains(unknown, name) {
			unknown = append(unknown, name)
		}
		b.WriteString(text[:i])
		b.WriteString(v)
		text = text[i+2+j:]
	}
	b.WriteString(text)
	return b.String(), unknown
}

// isFactName reports a placeholder name: a letter or _, then letters,
// digits and _, at most 64 characters.
func isFactName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// roster finds members by what a caller said.
type roster struct {
	policy *payer.Policy
	byKey  map[string]int // lower-case id, and the id's normalisation without spaces
	maxLen int
	names  []string // each member's normalised "first last"
}

func newRoster(p *payer.Policy) *roster {
	r := &roster{policy: p, byKey: map[string]int{}}
	if p == nil {
		return r
	}
	add := func(key string, i int) {
		if key == "" {
			return
		}
		if _, dup := r.byKey[key]; !dup {
			r.byKey[key] = i
			r.maxLen = max(r.maxLen, len(key))
		}
	}
	// Ids as written win over normalised ones: two passes.
	for i, m := range p.Members {
		add(strings.ToLower(m.MemberID), i)
	}
	for i, m := range p.Members {
		add(strings.ReplaceAll(voice.Normalize(m.MemberID), " ", ""), i)
	}
	r.names = make([]string, len(p.Members))
	for i, m := range p.Members {
		r.names[i] = voice.Normalize(m.FirstName + " " + m.LastName)
	}
	return r
}

// find returns the first member whose id equals the normalised value with
// spaces removed, or a run of its consecutive words joined without spaces
// ("my id is w 123" finds W123): the whole value first, then runs from the
// left.
func (r *roster) find(value string) (int, bool) {
	if r.maxLen == 0 {
		return 0, false
	}
	if i, ok := r.byKey[strings.ReplaceAll(value, " ", "")]; ok {
		return i, true
	}
	words := strings.Fields(value)
	var b strings.Builder
	for s := range words {
		b.Reset()
		for e := s; e < len(words) && b.Len()+len(words[e]) <= r.maxLen; e++ {
			b.WriteString(words[e])
			if i, ok := r.byKey[b.String()]; ok {
				return i, true
			}
		}
	}
	return 0, false
}

// others reports whether text (as said) names a member other than self
// (-1: none looked up) by id or by full name.
func (r *roster) others(text string, self int) bool {
	norm := voice.Normalize(text)
	words := strings.Fields(norm)
	var b strings.Builder
	for s := range words {
		b.Reset()
		for e := s; e < len(words) && b.Len()+len(words[e]) <= r.maxLen; e++ {
			b.WriteString(words[e])
			if i, ok := r.byKey[b.String()]; ok && i != self {
				return true
			}
		}
	}
	padded := " " + norm + " "
	for i, name := range r.names {
		if i == self || name == "" || (self >= 0 && name == r.names[self]) {
			continue
		}
		if strings.Contains(padded, " "+name+" ") {
			return true
		}
	}
	return false
}
