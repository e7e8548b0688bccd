package jsonschema

import (
	"encoding/json"
	"strconv"
	"strings"
)

// decimal is a number's exact value read from its decimal text:
// (-1 if neg) × 0.digits × 10^exp, digits without leading or trailing
// zeros; zero has no digits (and neg false). Two equal numbers have equal
// decimals, and comparing decimals needs no arithmetic, so neither equality
// nor minimum and maximum ever expand an exponent (math/big takes a quarter
// of a second for 1.5e999999).
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// parseDecimal reads a number in JSON's grammar, also accepting a '+' in
// the exponent (as Go formats floats); false for anything else.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	if intPart == "" {
		return decimal{}, false
	}
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac = s[fs:i]
		if frac == "" {
			return decimal{}, false
		}
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		es := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ds := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if ds == i {
			return decimal{}, false
		}
		e, err := strconv.ParseInt(s[es:i], 10, 64)
		if err != nil || e > 1<<60 || e < -(1<<60) {
			exp = 1 << 62 // out of range: only zero can be read
		} else {
			exp = e
		}
	}
	if i != len(s) {
		return decimal{}, false
	}
	// 0.(intPart frac) × 10^(len(intPart)+exp), then normalized
	all := intPart + frac
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	all = strings.TrimRight(all[lead:], "0")
	if all == "" {
		return decimal{}, true
	}
	if exp == 1<<62 {
		return decimal{}, false
	}
	d.digits = all
	d.exp = int64(len(intPart)-lead) + exp
	return d, true
}

// decimalOf reads v, any number Validate accepts.
func decimalOf(v any) (decimal, bool) {
	switch t := v.(type) {
	case json.Number:
		return parseDecimal(string(t))
	case float64:
		return parseDecimal(strconv.FormatFloat(t, 'g', -1, 64))
	case float32:
		return parseDecimal(strconv.FormatFloat(float64(t), 'g', -1, 32))
	case int:
		return parseDecimal(strconv.FormatInt(int64(t), 10))
	case int8:
		return parseDecimal(strconv.FormatInt(int64(t), 10))
	case int16:
		return parseDecimal(strconv.FormatInt(int64(t), 10))
	case int32:
		return parseDecimal(strconv.FormatInt(int64(t), 10))
	case int64:
		return parseDecimal(strconv.FormatInt(t, 10))
	case uint:
		return parseDecimal(strconv.FormatUint(uint64(t), 10))
	case uint8:
		return parseDecimal(strconv.FormatUint(uint64(t), 10))
	case uint16:
		return parseDecimal(strconv.FormatUint(uint64(t), 10))
	case uint32:
		return parseDecimal(strconv.FormatUint(uint64(t), 10))
	case uint64:
		return parseDecimal(strconv.FormatUint(t, 10))
	}
	return decimal{}, false
}

// cmp returns -1, 0 or 1 as a is less than, equal to or greater than b.
func (a decimal) cmp(b decimal) int {
	sign := func(d decimal) int {
		switch {
		case d.digits == "":
			return 0
		case d.neg:
			return -1
		}
		return 1
	}
	sa, sb := sign(a), sign(b)
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	// same sign: compare magnitudes, then flip for negatives
	m := 0
	switch {
	case a.exp != b.exp:
		m = 1
		if a.exp < b.exp {
			m = -1
		}
	default:
		// 0.digits: a prefix is the smaller; otherwise the first
		// differing digit decides (a string comparison).
		m = strings.Compare(a.digits, b.digits)
	}
	return m * sa
}
