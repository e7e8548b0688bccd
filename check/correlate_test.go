package check_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
)

func TestParseCorrelations(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []check.Correlation
		err  bool
	}{
		{"absent", ``, nil, false},
		{"null", `null`, nil, false},
		{"empty", `{}`, []check.Correlation{}, false},
		{"key order, values as written, the last of a key written twice", `{"z": 1.50, "a/b": "x", "m": true, "n": null, "z": 2.0}`, []check.Correlation{
			{Key: "a/b", Pointer: "/correlate_by/a~1b", Expected: "x"},
			{Key: "m", Pointer: "/correlate_by/m", Expected: true},
			{Key: "n", Pointer: "/correlate_by/n", Expected: nil},
			{Key: "z", Pointer: "/correlate_by/z", Expected: json.Number("2.0")},
		}, false},
		{"not an object", `[1]`, nil, true},
		{"an object value", `{"a": {"b": 1}}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := check.ParseCorrelations(json.RawMessage(tt.in))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want an error: %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParsePaths(t *testing.T) {
	parse := func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, check.NewPathError("digits", s, 0, "not a number")
		}
		return n, nil
	}
	fields := []check.Field{{Path: "7"}, {Path: "x"}, {Path: "9"}, {Path: "y"}}
	paths, viols := check.ParsePaths(fields, "/assertions", parse)
	if diff := cmp.Diff([]int{7, 0, 9, 0}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	want := []assert.Violation{
		{Pointer: "/assertions/1/path", Message: `digits path "x": 1:1: not a number`},
		{Pointer: "/assertions/3/path", Message: `digits path "y": 1:1: not a number`},
	}
	if diff := cmp.Diff(want, viols); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

func TestPathError(t *testing.T) {
	err := error(check.NewPathError("x12", "NM1é(2", 6, "no closing )"))
	var pe *check.PathError
	if !errors.As(err, &pe) || pe.Offset != 6 || pe.Location.Line != 1 || pe.Location.Column != 6 {
		t.Fatalf("%#v", err)
	}
	if got := err.Error(); got != `x12 path "NM1é(2": 1:6: no closing )` {
		t.Errorf("Error() = %q", got)
	}
}
