package jsonvalue

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// decodeCases are the edges of the JSON grammar and of string decoding.
var decodeCases = []string{
	`{"assert": "ran", "ran": "^git\\b"}`, ` [1, -0.5e+10, 0, -0, 1E3, 2.50] `, `{"a": {"b": [true, false, null, {}]}, "a": 1}`,
	`"\u00e9\ud83d\ude00\ud800x\udc00\ud800\u0041"`, "\"caf\xc3\xa9 \xff\xfe bad\"", "\"\xff\\n\"", `"a\/b\"c\\d\b\f\n\r\t"`,
	``, ` `, `01`, `1.`, `.5`, `-`, `1e`, `1e+`, `+1`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a: 1}`, `[1 2]`, `tru`, `nul`,
	`"\x"`, `"\u12g4"`, "\"a\tb\"", `"unterminated`, `[`, `{`, `{"a":`, `[] []`, `{} x`, `"\ud800\u"`, `nullx`, `[true1]`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

// decodeWithEncodingJSON is the reference: what encoding/json decodes, with
// UseNumber, when json.Valid accepts the document.
func decodeWithEncodingJSON(data []byte) (any, bool) {
	if !json.Valid(data) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	got, ok := Decode(data)
	want, wantOK := decodeWithEncodingJSON(data)
	if ok != wantOK {
		t.Fatalf("%.200q: accepted %v, json.Valid %v", data, ok, wantOK)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q:\n got %#v\nwant %#v", data, got, want)
	}
}

func TestDecodeAsEncodingJSON(t *testing.T) {
	for _, c := range decodeCases {
		checkDecode(t, []byte(c))
	}
	for _, c := range seedSpecs(t) {
		checkDecode(t, c)
	}
}

// FuzzDecode: the one-pass decoder accepts what json.Valid accepts and
// decodes what encoding/json decodes.
func FuzzDecode(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	for _, c := range seedSpecs(f) {
		f.Add(c)
	}
	f.Fuzz(checkDecode)
}

// seedSpecs returns the example's criteria file and the JSON in testdata.
func seedSpecs(tb testing.TB) [][]byte {
	var out [][]byte
	files, _ := filepath.Glob("../../assert/testdata/*.json")
	for _, name := range append(files, "../../examples/priorauth/criteria.json") {
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

func TestDepthAndValid(t *testing.T) {
	for _, tc := range []struct {
		in    string
		depth int
		valid bool
	}{
		{`1`, 0, true},
		{`{"a": [1, {"b": "[[[{{"}]}`, 3, true},
		{`"\"[["`, 0, true},
		{`[[]`, 2, false},
		{strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), MaxDepth, true},
		{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), MaxDepth + 1, false},
	} {
		if d := Depth([]byte(tc.in)); d != tc.depth {
			t.Errorf("Depth(%.20q) = %d, want %d", tc.in, d, tc.depth)
		}
		if v := Valid([]byte(tc.in)); v != tc.valid {
			t.Errorf("Valid(%.20q) = %v, want %v", tc.in, v, tc.valid)
		}
	}
	// Twenty million levels: gjson's recursive validator alone overflows
	// the stack and ends the process; Valid refuses it in one pass.
	deep := []byte(strings.Repeat("[", 20_000_000))
	if Valid(deep) {
		t.Error("a 20-million-level document is valid")
	}
}
