package x12_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/x12"
)

func readFolder(dir string) ([]x12.Record, error) {
	return x12.FolderSource(check.DirFS(dir), 0).Records(context.Background())
}

func TestFolderSource(t *testing.T) {
	recs, err := readFolder("testdata/records")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range recs {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, ","); got != "records.json[0],records.json[1],auth,elig" {
		t.Fatalf("records %s", got)
	}
	elig := recs[3]
	want, _ := os.ReadFile("testdata/records/elig.response.x12")
	if elig.Response != string(want) || !strings.HasPrefix(elig.Request, "ISA*") || elig.Transaction != "" {
		t.Errorf("elig record %+v", elig)
	}
	if elig.Metadata["attempt"] != json.Number("1") || elig.Metadata["request_id"] != "ELIG-0417" {
		t.Errorf("metadata %v", elig.Metadata)
	}
	if recs[0].Transaction != "277" || recs[1].Request != "" || recs[1].Metadata["verified"] != false {
		t.Errorf("records.json: %+v / %+v", recs[0].Metadata, recs[1])
	}
	src := x12.FolderSource(check.DirFS("testdata/records"), 0)
	a, err := src.Records(context.Background())
	b, _ := src.Records(context.Background())
	if err != nil || len(a) != 4 || &a[0] != &b[0] {
		t.Errorf("FolderSource read its folder twice, or not at all: %d records, %v", len(a), err)
	}
}

func TestFolderSourceErrors(t *testing.T) {
	resp, _ := os.ReadFile("testdata/own/janedoe_271.x12")
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"request without response", map[string]string{"a.request.x12": "x"}, "a.request.x12 has no a.response.x12 beside it"},
		{"metadata without response", map[string]string{"a.meta.json": "{}"}, "a.meta.json has no a.response.x12"},
		{"metadata not JSON", map[string]string{"a.response.x12": string(resp), "a.meta.json": "{"}, "a.meta.json: not JSON"},
		{"metadata not an object", map[string]string{"a.response.x12": string(resp), "a.meta.json": "[1]"}, "metadata must be a JSON object, not an array"},
		{"metadata with trailing data", map[string]string{"a.response.x12": string(resp), "a.meta.json": "{} {}"}, "data after the JSON value"},
		{"records not JSON", map[string]string{"records.json": "[{"}, "records.json: not JSON"},
		{"records not an array", map[string]string{"records.json": `{"response": "x"}`}, "must be a JSON array of records, not an object"},
		{"record not an object", map[string]string{"records.json": `["x"]`}, "/0: a record must be an object, not a string"},
		{"record without response", map[string]string{"records.json": `[{"request": "x"}]`}, `/0: missing "response"`},
		{"null response", map[string]string{"records.json": `[{"response": null}]`}, "/0/response: must be a string of raw X12, not null"},
		{"response a number", map[string]string{"records.json": `[{"response": "x"}, {"response": 5}]`}, "/1/response: must be a string, not a number"},
		{"transaction a number", map[string]string{"records.json": `[{"response": "x", "transaction": 271}]`}, "/0/transaction: must be a string"},
		{"metadata an array", map[string]string{"records.json": `[{"response": "x", "metadata": []}]`}, "/0/metadata: must be an object, not an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := readFolder(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestFolderSourceIgnoresOtherFiles(t *testing.T) {
	dir := t.TempDir()
	resp, _ := os.ReadFile("testdata/own/janedoe_271.x12")
	for name, text := range map[string]string{"README.md": "notes", "a.response.x12": string(resp), "loose.x12": "x", ".response.x12": "x"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.response.x12"), 0o755); err != nil {
		t.Fatal(err)
	}
	recs, err := readFolder(dir)
	if err != nil || len(recs) != 1 || recs[0].Name != "a" || recs[0].Request != "" || recs[0].Metadata != nil {
		t.Fatalf("%+v %v", recs, err)
	}
}
