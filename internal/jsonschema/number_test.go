package jsonschema

import (
	"encoding/json"
	"math/big"
	"testing"
	"time"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want decimal
		ok   bool
	}{
		{"0", decimal{}, true},
		{"-0.000e5", decimal{}, true},
		{"1", decimal{digits: "1", exp: 1}, true},
		{"10", decimal{digits: "1", exp: 2}, true},
		{"1.0", decimal{digits: "1", exp: 1}, true},
		{"0.015", decimal{digits: "15", exp: -1}, true},
		{"-12.5e-3", decimal{neg: true, digits: "125", exp: -1}, true},
		{"1e+21", decimal{digits: "1", exp: 22}, true},
		{"007", decimal{digits: "7", exp: 1}, true},
		{"", decimal{}, false},
		{"-", decimal{}, false},
		{"1.", decimal{}, false},
		{".5", decimal{}, false},
		{"1e", decimal{}, false},
		{"1e5x", decimal{}, false},
		{"NaN", decimal{}, false},
		{"1e99999999999999999999", decimal{}, false},
		{"0e99999999999999999999", decimal{}, true},
		{"-0.0e-1170000000000000000", decimal{}, true},
	}
	for _, tc := range tests {
		got, ok := parseDecimal(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("parseDecimal(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDecimalAgreesWithRat compares every pair of a set of numbers both
// ways: by decimal and by math/big.
func TestDecimalAgreesWithRat(t *testing.T) {
	nums := []string{"0", "-0", "0.0", "1", "1.0", "10e-1", "0.1e1", "-1", "-1.5", "-1.50", "2", "19", "190e-1",
		"0.3", "0.29999999999999999999", "0.30000000000000000001", "1e21", "1000000000000000000000", "-1e-7", "-0.0000001",
		"123.456", "123.4560", "123.46", "12345.6e-2", "9.99", "10", "-10", "-9.99", "5e-324", "1.7976931348623157e308"}
	for _, a := range nums {
		for _, b := range nums {
			da, _ := parseDecimal(a)
			db, _ := parseDecimal(b)
			ra, _ := new(big.Rat).SetString(a)
			rb, _ := new(big.Rat).SetString(b)
			if got, want := da.cmp(db), ra.Cmp(rb); got != want {
				t.Errorf("cmp(%s, %s) = %d, math/big says %d", a, b, got, want)
			}
			if got, want := equals(json.Number(a), json.Number(b)), ra.Cmp(rb) == 0; got != want {
				t.Errorf("equals(%s, %s) = %v, want %v", a, b, got, want)
			}
		}
	}
}

// TestHugeExponentsAreCheap: comparisons and equality on numbers whose
// exponents math/big would expand take no time.
func TestHugeExponentsAreCheap(t *testing.T) {
	start := time.Now()
	big1, _ := parseDecimal("1.5e999999")
	big2, _ := parseDecimal("15e999998")
	tiny, _ := parseDecimal("-1e-999999")
	one, _ := parseDecimal("1")
	if big1.cmp(one) != 1 || tiny.cmp(decimal{}) != -1 || big1.cmp(big2) != 0 || tiny.cmp(one) != -1 {
		t.Error("wrong order")
	}
	arr := make([]any, 200)
	for i := range arr {
		arr[i] = json.Number("1.5e999999" + string(rune('0'+i%10)))
	}
	if j, i, dup := firstDuplicate(arr); !dup || j != 0 || i != 10 {
		t.Errorf("firstDuplicate = %d, %d, %v", j, i, dup)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}
