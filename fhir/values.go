package fhir

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/tidwall/gjson"
	"golang.org/x/text/unicode/norm"
)

// ival is one indexed value of a search parameter in one resource. Which
// members are used depends on the parameter's type:
//
//	string     a = folded text, b = text as written
//	token      a = system, b = code, c = folded display text, sys = a system was given
//	reference  a = target type, b = target id, c = the reference as written
//	date       lo, hi = the value's range [lo, hi) in microseconds since 1970 UTC
//	number     f
//	quantity   f, a = system, b = code, c = unit
//	uri        a
//
// kind tells the extra values apart: kindOfType (an Identifier's type
// coding beside its value: a = system, b = code, c = the identifier's
// value) and kindRefIdent (a Reference.identifier: a = system, b = value).
type ival struct {
	a, b, c string
	lo, hi  int64
	f       float64
	sys     bool
	kind    uint8
}

const (
	minTime = math.MinInt64
	maxTime = math.MaxInt64
)

// fold is the text a string search compares: Unicode-decomposed, accents
// (combining marks) dropped, lower-cased. "Müller" folds to "muller".
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || ('A' <= s[i] && s[i] <= 'Z') {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// DateError reports a date, dateTime or instant that is not in FHIR's
// format.
type DateError struct {
	Value  string
	Reason string
}

func (e *DateError) Error() string { return fmt.Sprintf("bad FHIR date %q: %s", e.Value, e.Reason) }

// parseDateRange reads a FHIR date, dateTime or instant (YYYY, YYYY-MM,
// YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.fff]][Z|+hh:mm|-hh:mm]) as the range
// of instants it stands for, [lo, hi) in microseconds since 1970 UTC: a
// year is the whole year, a time without seconds the whole minute, and so
// on. A value without a zone is read as UTC.
func parseDateRange(s string) (lo, hi int64, err error) {
	bad := func(reason string) (int64, int64, error) { return 0, 0, &DateError{Value: s, Reason: reason} }
	num := func(t string) (int, bool) {
		if t == "" {
			return 0, false
		}
		n := 0
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return 0, false
			}
			n = n*10 + int(t[i]-'0')
		}
		return n, true
	}
	if len(s) < 4 {
		return bad("too short")
	}
	year, ok := num(s[:4])
	if !ok || year < 1 {
		return bad("the year must be four digits")
	}
	rest := s[4:]
	month, day := 1, 1
	prec := "year"
	if rest != "" {
		if len(rest) < 3 || rest[0] != '-' {
			return bad("expected -MM after the year")
		}
		if month, ok = num(rest[1:3]); !ok || month < 1 || month > 12 {
			return bad("bad month")
		}
		rest, prec = rest[3:], "month"
	}
	if rest != "" {
		if len(rest) < 3 || rest[0] != '-' {
			return bad("expected -DD after the month")
		}
		if day, ok = num(rest[1:3]); !ok || day < 1 || day > daysIn(year, month) {
			return bad("bad day")
		}
		rest, prec = rest[3:], "day"
	}
	hour, minute, sec, nanos := 0, 0, 0, 0
	loc := time.UTC
	var step time.Duration
	if rest != "" {
		if rest[0] != 'T' || len(rest) < 6 || rest[3] != ':' {
			return bad("expected Thh:mm after the date")
		}
		if hour, ok = num(rest[1:3]); !ok || hour > 24 {
			return bad("bad hour")
		}
		if minute, ok = num(rest[4:6]); !ok || minute > 59 {
			return bad("bad minute")
		}
		rest, prec, step = rest[6:], "time", time.Minute
		if len(rest) >= 3 && rest[0] == ':' {
			if sec, ok = num(rest[1:3]); !ok || sec > 60 {
				return bad("bad second")
			}
			rest, step = rest[3:], time.Second
			if len(rest) > 1 && rest[0] == '.' {
				i := 1
				for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
					i++
				}
				frac := rest[1:i]
				if frac == "" {
					return bad("bad fraction of a second")
				}
				digits := min(len(frac), 9)
				f, _ := num(frac[:digits])
				for k := digits; k < 9; k++ {
					f *= 10
				}
				nanos = f
				step = time.Duration(math.Pow10(9 - digits))
				rest = rest[i:]
			}
		}
		if hour == 24 && (minute != 0 || sec != 0 || nanos != 0) {
			return bad("bad hour")
		}
		switch {
		case rest == "Z":
		case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
			oh, ok1 := num(rest[1:3])
			om, ok2 := num(rest[4:6])
			if !ok1 || !ok2 || oh > 14 || om > 59 {
				return bad("bad zone offset")
			}
			off := oh*3600 + om*60
			if rest[0] == '-' {
				off = -off
			}
			loc = time.FixedZone("", off)
		case rest == "":
			// No zone: UTC (documented).
		default:
			return bad(fmt.Sprintf("unexpected %q", rest))
		}
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, loc)
	var end time.Time
	switch prec {
	case "year":
		end = t.AddDate(1, 0, 0)
	case "month":
		end = t.AddDate(0, 1, 0)
	case "day":
		end = t.AddDate(0, 0, 1)
	default:
		end = t.Add(step)
	}
	lo, hi = t.UnixMicro(), end.UnixMicro()
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi, nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// extract appends the values of one selected element for a parameter of
// type typ.
func extract(typ string, v gjson.Result, out []ival) []ival {
	switch typ {
	case "string":
		switch {
		case v.Type == gjson.String:
			out = append(out, ival{a: fold(v.Str), b: v.Str})
		case v.IsObject():
			// HumanName, Address and the like: every string part.
			v.ForEach(func(k, x gjson.Result) bool {
				switch k.Str {
				case "family", "given", "prefix", "suffix", "text", "line", "city", "district", "state", "postalCode", "country":
					if x.IsArray() {
						x.ForEach(func(_, y gjson.Result) bool {
							if y.Type == gjson.String {
								out = append(out, ival{a: fold(y.Str), b: y.Str})
							}
							return true
						})
					} else if x.Type == gjson.String {
						out = append(out, ival{a: fold(x.Str), b: x.Str})
					}
				}
				return true
			})
		}
	case "token":
		switch {
		case v.Type == gjson.String:
			out = append(out, ival{b: v.Str})
		case v.Type == gjson.True:
			out = append(out, ival{b: "true"})
		case v.Type == gjson.False:
			out = append(out, ival{b: "false"})
		case v.IsObject():
			if cod := v.Get("coding"); cod.Exists() || v.Get("text").Exists() {
				// CodeableConcept
				text := fold(v.Get("text").String())
				cod.ForEach(func(_, c gjson.Result) bool {
					out = append(out, coding(c, text))
					return true
				})
				if !cod.Exists() {
					out = append(out, ival{c: text})
				}
				break
			}
			if v.Get("code").Exists() || v.Get("display").Exists() {
				out = append(out, coding(v, ""))
				break
			}
			if val := v.Get("value"); val.Type == gjson.String {
				if v.Get("use").Exists() && !v.Get("system").Exists() || isContactPoint(v) {
					// ContactPoint: the value alone (its system is a kind
					// of contact, not a namespace).
					out = append(out, ival{b: val.Str})
					break
				}
				sys := v.Get("system")
				out = append(out, ival{a: sys.Str, sys: sys.Exists(), b: val.Str, c: fold(v.Get("type.text").String())})
				// An Identifier's type, for :of-type.
				v.Get("type.coding").ForEach(func(_, c gjson.Result) bool {
					s := c.Get("system")
					out = append(out, ival{kind: kindOfType, a: s.Str, sys: s.Exists(), b: c.Get("code").Str, c: val.Str})
					return true
				})
			}
		}
	case "reference":
		ref := v
		if v.IsObject() {
			ref = v.Get("reference")
			// A logical reference, for :identifier.
			if ident := v.Get("identifier"); ident.IsObject() {
				if val := ident.Get("value"); val.Type == gjson.String {
					s := ident.Get("system")
					out = append(out, ival{kind: kindRefIdent, a: s.Str, sys: s.Exists(), b: val.Str})
				}
			}
		}
		if ref.Type == gjson.String {
			t, id, _ := parseReference(ref.Str)
			out = append(out, ival{a: t, b: id, c: ref.Str})
		}
	case "date":
		switch {
		case v.Type == gjson.String:
			if lo, hi, err := parseDateRange(v.Str); err == nil {
				out = append(out, ival{lo: lo, hi: hi})
			}
		case v.IsObject():
			// Period (an open end is open), or Timing's events.
			if ev := v.Get("event"); ev.Exists() {
				ev.ForEach(func(_, e gjson.Result) bool {
					out = extract(typ, e, out)
					return true
				})
				break
			}
			start, end := v.Get("start"), v.Get("end")
			if !start.Exists() && !end.Exists() {
				break
			}
			iv := ival{lo: minTime, hi: maxTime}
			if start.Exists() {
				lo, _, err := parseDateRange(start.Str)
				if err != nil {
					break
				}
				iv.lo = lo
			}
			if end.Exists() {
				_, hi, err := parseDateRange(end.Str)
				if err != nil {
					break
				}
				iv.hi = hi
			}
			out = append(out, iv)
		}
	case "number":
		if v.Type == gjson.Number {
			out = append(out, ival{f: v.Num})
		}
	case "quantity":
		if v.IsObject() {
			if val := v.Get("value"); val.Type == gjson.Number {
				out = append(out, ival{f: val.Num, a: v.Get("system").Str, b: v.Get("code").Str, c: v.Get("unit").Str})
			}
		}
	case "uri":
		if v.Type == gjson.String {
			out = append(out, ival{a: v.Str})
		}
	}
	return out
}

func isContactPoint(v gjson.Result) bool {
	switch v.Get("system").Str {
	case "phone", "fax", "email", "pager", "url", "sms", "other":
		return true
	}
	return false
}

func coding(c gjson.Result, text string) ival {
	sys := c.Get("system")
	iv := ival{a: sys.Str, sys: sys.Exists(), b: c.Get("code").Str, c: text}
	if d := c.Get("display"); d.Exists() {
		if iv.c != "" {
			iv.c += "\x00"
		}
		iv.c += fold(d.Str)
	}
	return iv
}

// parseReference splits a reference into its target type and id:
// "Patient/1", "Patient/1/_history/2" and "http://x/fhir/Patient/1" all
// give ("Patient", "1"). A contained (#x) or unparsable reference gives
// empty strings.
func parseReference(ref string) (typ, id string, ok bool) {
	ref = strings.TrimSuffix(ref, "/")
	if i := strings.Index(ref, "/_history/"); i >= 0 {
		ref = ref[:i]
	}
	j := strings.LastIndexByte(ref, '/')
	if j <= 0 {
		return "", ref, false
	}
	id = ref[j+1:]
	k := strings.LastIndexByte(ref[:j], '/')
	typ = ref[k+1 : j]
	if typ == "" || !unicode.IsUpper(rune(typ[0])) {
		return "", id, false
	}
	return typ, id, true
}

// prefixes are the R4 comparison prefixes of number, date and quantity
// values.
var prefixes = []string{"eq", "ne", "gt", "lt", "ge", "le", "sa", "eb", "ap"}

// splitPrefix returns a value's prefix (default eq) and the rest.
func splitPrefix(v string) (string, string) {
	if len(v) >= 2 && v[0] >= 'a' && v[0] <= 'z' {
		for _, p := range prefixes {
			if strings.HasPrefix(v, p) {
				return p, v[2:]
			}
		}
	}
	return "eq", v
}

// parseNumber reads a search number and its implicit precision range
// (R4: 100 stands for [99.5, 100.5)).
func parseNumber(s string) (v, lo, hi float64, err error) {
	if s == "" || strings.ContainsAny(s, " _") {
		return 0, 0, 0, fmt.Errorf("%w: %q is not a number", ErrBadValue, s)
	}
	v, err = strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, 0, 0, fmt.Errorf("%w: %q is not a number", ErrBadValue, s)
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		exp, _ = strconv.Atoi(s[i+1:])
	}
	decimals := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		decimals = len(mant) - i - 1
	}
	half := 0.5 * math.Pow10(exp-decimals)
	return v, v - half, v + half, nil
}
