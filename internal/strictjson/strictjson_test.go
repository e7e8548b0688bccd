package strictjson_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/assaykit/assay/internal/strictjson"
)

type member struct {
	ID    string   `json:"member_id" strict:"required"`
	Age   *int     `json:"age"`
	Tags  []string `json:"tags"`
	Score float64  `json:"score"`
}

type doc struct {
	Name    string            `json:"name"`
	Members []member          `json:"members"`
	Plans   map[string]string `json:"plans"`
	Extra   json.RawMessage   `json:"extra"`
	On      bool              `json:"on"`
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // the errors, each as Error prints it
	}{
		{`{"name": "a", "members": [{"member_id": "W1", "age": 3, "tags": ["x"], "score": 1.5}], "plans": {"g": "Gold"}, "extra": {"k": [1]}, "on": true}`, nil},
		{`{"nmae": "a"}`, []string{`/nmae (line 1, column 2): unknown key "nmae" (did you mean "name"?)`}},
		{`{"zzzzzzz": 1}`, []string{`/zzzzzzz (line 1, column 2): unknown key "zzzzzzz" (the keys are name, members, plans, extra, on)`}},
		{"{\n \"members\": [{}, {\"member_id\": 5, \"age\": 1.5}]\n}", []string{
			`/members/0/member_id (line 2, column 14): is required`,
			`/members/1/member_id (line 2, column 32): must be a string, not a number`,
			`/members/1/age (line 2, column 42): must be a whole number, not 1.5`,
		}},
		{`{"name": "a", "name": "b"}`, []string{`/name (line 1, column 15): the key "name" is written twice`}},
		{`{"plans": {"a/b~": 1}}`, []string{`/plans/a~1b~0 (line 1, column 20): must be a string, not a number`}},
		{`{"on": "yes"}`, []string{`/on (line 1, column 8): must be true or false, not a string`}},
		{`[1]`, []string{`/ (line 1, column 1): must be an object, not an array`}},
		{`{"name": `, []string{`/ (line 1, column 9): not JSON: unexpected end of JSON input`}},
	} {
		var d doc
		err := strictjson.Decode([]byte(tc.in), &d)
		var got []string
		var es strictjson.Errors
		if errors.As(err, &es) {
			for _, e := range es {
				got = append(got, e.Error())
			}
		} else if err != nil {
			t.Errorf("%s: error %v is not Errors", tc.in, err)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestDecodeValues(t *testing.T) {
	var d doc
	if err := strictjson.Decode([]byte(`{"name": "n", "members": [{"member_id": "W1", "age": 40}], "extra": [1, 2]}`), &d); err != nil {
		t.Fatal(err)
	}
	if d.Name != "n" || len(d.Members) != 1 || d.Members[0].ID != "W1" || d.Members[0].Age == nil || *d.Members[0].Age != 40 || string(d.Extra) != "[1, 2]" {
		t.Fatalf("decoded %+v", d)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"name": "a", "members": [{"member_id": "W1"}], "plans": {"g": "G"}}`))
	f.Add([]byte(`{"members": [{"age": 1e400}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var d doc
		err := strictjson.Decode(data, &d)
		if err != nil && err.Error() == "" {
			t.Fatal("an error without a message")
		}
		if err == nil && !json.Valid(data) {
			t.Fatalf("accepted %q, which is not JSON", data)
		}
	})
}

func TestLocate(t *testing.T) {
	data := []byte("{\"a\": {\"b/c\": [1,\n  {\"d~\": true}]}, \"a\": 2}")
	for _, tc := range []struct {
		ptr       string
		line, col int
		ok        bool
	}{
		{"", 1, 1, true},
		{"/a", 1, 7, true}, // a repeated key resolves to its first value
		{"/a/b~1c/1", 2, 3, true},
		{"/a/b~1c/1/d~0", 2, 10, true},
		{"/a/b~1c/2", 0, 0, false},
		{"/x", 0, 0, false},
		{"a", 0, 0, false},
	} {
		line, col, ok := strictjson.Locate(data, tc.ptr)
		if line != tc.line || col != tc.col || ok != tc.ok {
			t.Errorf("Locate(%q) = %d, %d, %v; want %d, %d, %v", tc.ptr, line, col, ok, tc.line, tc.col, tc.ok)
		}
	}
	if e := strictjson.At(data, "/a/b~1c/0", "bad %d", 1); e.Error() != "/a/b~1c/0 (line 1, column 16): bad 1" {
		t.Errorf("At: %v", e)
	}
}

func TestCoversSort(t *testing.T) {
	es := strictjson.Errors{
		{Pointer: "/b", Message: "no place"},
		{Pointer: "/members/1", Line: 3, Column: 2},
		{Pointer: "/plans", Line: 1, Column: 9},
		{Pointer: "/members/1/x", Line: 3, Column: 2},
	}
	for ptr, want := range map[string]bool{
		"/members/1": true, "/members/1/plan": true, "/members/10": false, "/members": false, "/plans/gold": true, "/b/c": true, "/a": false,
	} {
		if got := es.Covers(ptr); got != want {
			t.Errorf("Covers(%q) = %v, want %v", ptr, got, want)
		}
	}
	es.Sort()
	var order []string
	for _, e := range es {
		order = append(order, e.Pointer)
	}
	if got := strings.Join(order, " "); got != "/plans /members/1 /members/1/x /b" {
		t.Errorf("Sort: %s", got)
	}
	if (strictjson.Errors{{Pointer: ""}}).Covers("/anything") != true {
		t.Error("an error at the root covers every pointer")
	}
}
