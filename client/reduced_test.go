package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/client"
)

func encode(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(buf.String())
}

func TestReduce(t *testing.T) {
	at := time.Date(2025, 3, 1, 9, 30, 0, 500, time.UTC)
	tests := []struct {
		c    assert.Criterion
		want string
	}{
		{assert.Criterion{ID: "c1", TaskID: "t1", InputEntityID: "e1", Label: "a <b> & c", Assertion: assert.Spec(`{ "assert": "ran",  "ran": "x", "n": 1.0 }`), Weight: assert.Weight(2.5), Axis: "safety", CreatedAt: at},
			`{"id":"c1","task_id":"t1","input_entity_id":"e1","label":"a <b> & c","assertion":{"assert":"ran","ran":"x","n":1.0},"weight":2.5,"axis":"safety","created_at":"2025-03-01T09:30:00.0000005Z"}`},
		{assert.Criterion{Assertion: assert.Spec(`{}`)},
			`{"id":null,"task_id":null,"input_entity_id":null,"label":"","assertion":{},"weight":1,"axis":null}`},
		{assert.Criterion{ID: "c2", Assertion: assert.Spec(`{}`), Weight: assert.Weight(0)},
			`{"id":"c2","task_id":null,"input_entity_id":null,"label":"","assertion":{},"weight":0,"axis":null}`},
	}
	for _, tt := range tests {
		if got := encode(t, client.Reduce(tt.c)); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
		// What is printed is a valid criteria file.
		if _, err := assert.ParseCriteria([]byte("[" + encode(t, client.Reduce(tt.c)) + "]")); err != nil {
			t.Errorf("%s is not a valid criteria file: %v", encode(t, client.Reduce(tt.c)), err)
		}
	}
	for _, c := range []assert.Criterion{{Weight: assert.Weight(math.NaN())}, {Assertion: assert.Spec(`{"a":`)}} {
		if _, err := client.Reduce(c).MarshalJSON(); err == nil {
			t.Errorf("%+v marshalled", c)
		}
	}
}

// TestListedCriteriaReduceToTheCriterionKeys: a server that adds keys of
// its own to every criterion (and to the list) yields criteria that print
// with the eight criterion keys only, and parse as a strict criteria file.
func TestListedCriteriaReduceToTheCriterionKeys(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"data":[{"id":"c1","task_id":"t","label":"x","assertion":{"assert":"exit_code","exit_code":0},"weight":1,"axis":null,"input_entity_id":null,"created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-02T00:00:00Z","owner":{"id":"u1"},"wieght":3}],"_meta":{"next":null},"extra":1}`)
	}))
	defer srv.Close()
	cl, err := client.New(srv.URL, client.WithAPIKey(""))
	if err != nil {
		t.Fatal(err)
	}
	list, err := cl.Criteria.ListAll(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	printed := make([]client.Reduced, len(list))
	for i, c := range list {
		printed[i] = client.Reduce(c)
	}
	out := encode(t, printed)
	want := `[{"id":"c1","task_id":"t","input_entity_id":null,"label":"x","assertion":{"assert":"exit_code","exit_code":0},"weight":1,"axis":null,"created_at":"2025-01-01T00:00:00Z"}]`
	if out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	if _, err := assert.ParseCriteria([]byte(out)); err != nil {
		t.Errorf("not a valid criteria file: %v", err)
	}
}
