package criterionbody_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assaykit/assay/internal/criterionbody"
)

func TestRead(t *testing.T) {
	var members map[string]json.RawMessage
	body := `{"weight": 2.50, "label": "ok", "task_id": 7, "axis": null, "input_entity_id": "E1",
	  "assertion": {"assert": "x"}, "id": "c1", "created_at": "t", "extra": 1, "weight2": 1}`
	if err := json.Unmarshal([]byte(body), &members); err != nil {
		t.Fatal(err)
	}
	want := []criterionbody.Field{
		{Key: "assertion", Object: json.RawMessage(`{"assert": "x"}`)},
		{Key: "axis", Null: true},
		{Key: "created_at", Problem: criterionbody.Assigned},
		{Key: "extra", Problem: criterionbody.Unknown},
		{Key: "id", Problem: criterionbody.Assigned},
		{Key: "input_entity_id", Text: "E1"},
		{Key: "label", Text: "ok"},
		{Key: "task_id", Problem: criterionbody.NotString},
		{Key: "weight", Number: "2.50"},
		{Key: "weight2", Problem: criterionbody.Unknown},
	}
	if diff := cmp.Diff(want, criterionbody.Read(members)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReadProblems(t *testing.T) {
	tests := []struct {
		key, value string
		want       criterionbody.Problem
	}{
		{"label", `null`, criterionbody.NotString},
		{"label", `""`, criterionbody.OK},
		{"axis", `3`, criterionbody.NotStringOrNull},
		{"assertion", `[]`, criterionbody.NotObject},
		{"assertion", `null`, criterionbody.NotObject},
		{"weight", `"1"`, criterionbody.NotNumber},
		{"weight", `null`, criterionbody.NotNumber},
		{"weight", `-1`, criterionbody.OK},
		{"weight", `true`, criterionbody.NotNumber},
	}
	for _, tt := range tests {
		got := criterionbody.Read(map[string]json.RawMessage{tt.key: json.RawMessage(tt.value)})
		if len(got) != 1 || got[0].Problem != tt.want {
			t.Errorf("%s: %s read %+v, want problem %d", tt.key, tt.value, got, tt.want)
		}
	}
}
