package fhir

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/tidwall/gjson"
)

// The R4 search parameters of the indexed types use a handful of FHIRPath
// shapes, which this file evaluates over raw JSON without a FHIRPath
// engine:
//
//	Patient.name.family                      member steps (arrays flatten)
//	Observation.effective                    a choice element: effectiveDateTime, effectivePeriod, ...
//	Condition.onset.as(Age), (X.value as T)  a choice element of one type
//	(Observation.value as CodeableConcept).text
//	Observation.subject.where(resolve() is Patient)   references to one type
//	Patient.telecom.where(system='email')    elements whose member equals a literal
//	Bundle.entry[0].resource                 an array's element by index
//	Patient.deceased.exists() and Patient.deceased != false
//	A | B                                    the union of the branches
//
// Anything else does not compile, and the parameter is reported as
// unsupported when a search uses it (tests pin that every non-composite
// parameter of the table compiles).

// fpStep is one step of a compiled path.
type fpStep struct {
	name string // member name
	// as, when set, selects the choice element name+As (valueQuantity).
	as string
	// whereKey/whereVal keep elements whose member whereKey is the string
	// whereVal.
	whereKey, whereVal string
	// refType keeps references to that resource type.
	refType string
	// index, when set, keeps the element at index-1 of an array (entry[0]).
	index int
}

// fpPath is one union branch.
type fpPath struct {
	steps []fpStep
	// notFalse: the "x.exists() and x != false" shape; values that are the
	// boolean false are dropped.
	notFalse bool
}

// fpExpr is a compiled expression: the union of its branches.
type fpExpr []fpPath

// compileFHIRPath compiles expr, whose branches start at base.
func compileFHIRPath(base, expr string) (fpExpr, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, fmt.Errorf("no expression")
	}
	var out fpExpr
	for _, branch := range splitTop(expr, " | ") {
		p, err := compileBranch(base, strings.TrimSpace(branch))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", branch, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func compileBranch(base, b string) (fpPath, error) {
	if left, right, ok := strings.Cut(b, ".exists() and "); ok {
		// Patient.deceased.exists() and Patient.deceased != false
		if right != left+" != false" {
			return fpPath{}, fmt.Errorf("unsupported exists() shape")
		}
		p, err := compileBranch(base, left)
		p.notFalse = true
		return p, err
	}
	var tail string
	if strings.HasPrefix(b, "(") {
		end := matchParen(b, 0)
		if end < 0 {
			return fpPath{}, fmt.Errorf("unbalanced parentheses")
		}
		inner, rest := b[1:end], b[end+1:]
		p, err := compileBranch(base, inner)
		if err != nil {
			return p, err
		}
		if rest == "" {
			return p, nil
		}
		if !strings.HasPrefix(rest, ".") {
			return fpPath{}, fmt.Errorf("unsupported %q after parentheses", rest)
		}
		for _, seg := range splitTop(rest[1:], ".") {
			st, err := compileSeg(seg, &p)
			if err != nil {
				return p, err
			}
			if st != nil {
				p.steps = append(p.steps, *st)
			}
		}
		return p, nil
	}
	if path, typ, ok := strings.Cut(b, " as "); ok {
		b, tail = path, typ
	}
	segs := splitTop(b, ".")
	if len(segs) < 2 || segs[0] != base {
		return fpPath{}, fmt.Errorf("does not start at %s", base)
	}
	var p fpPath
	for _, seg := range segs[1:] {
		st, err := compileSeg(seg, &p)
		if err != nil {
			return p, err
		}
		if st != nil {
			p.steps = append(p.steps, *st)
		}
	}
	if tail != "" {
		if len(p.steps) == 0 || !isName(tail) {
			return p, fmt.Errorf("bad 'as %s'", tail)
		}
		p.steps[len(p.steps)-1].as = tail
	}
	return p, nil
}

// compileSeg compiles one dotted segment; a filter applies to the step
// before it and returns nil.
func compileSeg(seg string, p *fpPath) (*fpStep, error) {
	last := func() (*fpStep, error) {
		if len(p.steps) == 0 {
			return nil, fmt.Errorf("%q has no element to apply to", seg)
		}
		return &p.steps[len(p.steps)-1], nil
	}
	switch {
	case isName(seg):
		return &fpStep{name: seg}, nil
	case strings.HasSuffix(seg, "]") && strings.Contains(seg, "["):
		name, n, _ := strings.Cut(seg[:len(seg)-1], "[")
		i, err := strconv.Atoi(n)
		if !isName(name) || err != nil || i < 0 || i > 1000 {
			return nil, fmt.Errorf("unsupported index %q", seg)
		}
		return &fpStep{name: name, index: i + 1}, nil
	case strings.HasPrefix(seg, "as(") && strings.HasSuffix(seg, ")"):
		st, err := last()
		if err != nil {
			return nil, err
		}
		st.as = seg[3 : len(seg)-1]
		if !isName(st.as) {
			return nil, fmt.Errorf("bad type in %q", seg)
		}
		return nil, nil
	case strings.HasPrefix(seg, "where(resolve() is ") && strings.HasSuffix(seg, ")"):
		st, err := last()
		if err != nil {
			return nil, err
		}
		st.refType = strings.TrimSuffix(strings.TrimPrefix(seg, "where(resolve() is "), ")")
		return nil, nil
	case strings.HasPrefix(seg, "where(") && strings.HasSuffix(seg, "')"):
		k, v, ok := strings.Cut(seg[len("where("):len(seg)-2], "='")
		if !ok || !isName(k) || strings.ContainsAny(v, "'\\") {
			return nil, fmt.Errorf("unsupported filter %q", seg)
		}
		st, err := last()
		if err != nil {
			return nil, err
		}
		st.whereKey, st.whereVal = k, v
		return nil, nil
	}
	return nil, fmt.Errorf("unsupported segment %q", seg)
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

// matchParen returns the index of the parenthesis closing the one at i.
func matchParen(s string, i int) int {
	depth := 0
	quoted := false
	for j := i; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// splitTop splits s at sep where sep is outside parentheses and quotes.
func splitTop(s, sep string) []string {
	var out []string
	depth, start := 0, 0
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], sep):
			out = append(out, s[start:i])
			start = i + len(sep)
			i += len(sep) - 1
		}
	}
	return append(out, s[start:])
}

// eval returns the elements the expression selects in a resource, arrays
// flattened, in document order.
func (e fpExpr) eval(res gjson.Result) []gjson.Result {
	var out []gjson.Result
	for _, p := range e {
		cur := []gjson.Result{res}
		for _, st := range p.steps {
			var next []gjson.Result
			for _, c := range cur {
				next = st.apply(c, next)
			}
			cur = next
			if len(cur) == 0 {
				break
			}
		}
		if p.notFalse {
			// "x.exists() and x != false" is a boolean: true when some
			// value other than false exists, false otherwise.
			result := gjson.Result{Type: gjson.False, Raw: "false"}
			for _, v := range cur {
				if v.Type != gjson.False {
					result = gjson.Result{Type: gjson.True, Raw: "true"}
				}
			}
			out = append(out, result)
			continue
		}
		out = append(out, cur...)
	}
	return out
}

// apply appends what the step selects in the object c.
func (st fpStep) apply(c gjson.Result, out []gjson.Result) []gjson.Result {
	if !c.IsObject() {
		return out
	}
	add := func(v gjson.Result) {
		if v.IsArray() {
			i := 0
			v.ForEach(func(_, x gjson.Result) bool {
				i++
				if st.index == 0 || st.index == i {
					out = st.keep(x, out)
				}
				return st.index == 0 || i < st.index
			})
			return
		}
		if st.index <= 1 {
			out = st.keep(v, out)
		}
	}
	if st.as != "" {
		add(c.Get(escapeKey(st.name + upperFirst(st.as))))
		return out
	}
	if v := c.Get(escapeKey(st.name)); v.Exists() {
		add(v)
		return out
	}
	// A choice element: name followed by a type name (valueQuantity).
	c.ForEach(func(k, v gjson.Result) bool {
		if len(k.Str) > len(st.name) && strings.HasPrefix(k.Str, st.name) && unicode.IsUpper(rune(k.Str[len(st.name)])) {
			add(v)
		}
		return true
	})
	return out
}

func (st fpStep) keep(v gjson.Result, out []gjson.Result) []gjson.Result {
	if st.whereKey != "" && v.Get(st.whereKey).String() != st.whereVal {
		return out
	}
	if st.refType != "" {
		ref := v.Get("reference")
		if ref.Type != gjson.String {
			return out
		}
		if t, _, _ := parseReference(ref.Str); t != st.refType {
			return out
		}
	}
	return append(out, v)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// escapeKey makes a member name safe as a gjson path.
func escapeKey(k string) string {
	if strings.ContainsAny(k, `.*?#|@\!=<>%()[]{}",:`) {
		var b strings.Builder
		for _, r := range k {
			if strings.ContainsRune(`.*?#|@\!=<>%()[]{}",:`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	return k
}
