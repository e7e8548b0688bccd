package fhir_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/fhir"
	"github.com/tidwall/gjson"
)

func TestLoadCorpus(t *testing.T) {
	s := fhir.NewStore()
	n, err := s.LoadFS(check.DirFS("testdata/corpus"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// 1 Appointment + 48 batch entries + 1 Observation + 1 Patient + 2 searchset entries.
	if n != 53 {
		t.Errorf("loaded %d resources", n)
	}
	for _, key := range []string{"Appointment/example", "Patient/9e909e52-61a1-be50-1878-a12ef8c36346", "MedicationRequest/3123", "Location/01972772-633a-aae6-c377-70073d6923d3"} {
		typ, id, _ := strings.Cut(key, "/")
		r, err := s.Read(typ, id)
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		if gjson.GetBytes(r.JSON, "meta.lastUpdated").Str == "" || r.Version == "" {
			t.Errorf("%s: no meta filled: %.200s", key, r.JSON)
		}
	}
	res, err := s.Search(context.Background(), "Appointment", url.Values{"status": {"booked"}})
	if err != nil || len(res) == 0 {
		t.Errorf("corpus appointment search: %d %v", len(res), err)
	}
}

func TestLoadBundles(t *testing.T) {
	s := fhir.NewStore()
	tx := `{"resourceType":"Bundle","type":"transaction","entry":[
	  {"fullUrl":"urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a","resource":{"resourceType":"Patient","name":[{"family":"Tx"}]},"request":{"method":"POST","url":"Patient"}},
	  {"fullUrl":"urn:uuid:88f151c0-a954-468a-88f8-0d6b4d61a74f","resource":{"resourceType":"Observation","status":"final","code":{"text":"x"},"subject":{"reference":"urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a"}},"request":{"method":"POST","url":"Observation"}},
	  {"resource":{"resourceType":"Patient","name":[{"family":"Put"}]},"request":{"method":"PUT","url":"Patient/p-put"}}]}`
	if n, err := s.LoadJSON([]byte(tx)); err != nil || n != 3 {
		t.Fatalf("transaction: %d %v", n, err)
	}
	res, err := s.Search(context.Background(), "Observation", url.Values{"subject": {"Patient/61ebe359-bfdc-4613-8bf2-c5e300945f0a"}})
	if err != nil || len(res) != 1 {
		t.Errorf("urn:uuid reference not rewritten: %d %v", len(res), err)
	}
	if _, err := s.Read("Patient", "p-put"); err != nil {
		t.Errorf("PUT entry: %v", err)
	}
	del := `{"resourceType":"Bundle","type":"batch","entry":[{"request":{"method":"DELETE","url":"Patient/p-put"}}]}`
	if _, err := s.LoadJSON([]byte(del)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read("Patient", "p-put"); !errors.Is(err, fhir.ErrGone) {
		t.Errorf("after a DELETE entry: %v", err)
	}
	doc := `{"resourceType":"Bundle","id":"d1","type":"document","entry":[{"resource":{"resourceType":"Composition","id":"c"}}]}`
	if _, err := s.LoadJSON([]byte(doc)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read("Bundle", "d1"); err != nil {
		t.Errorf("a document Bundle is stored whole: %v", err)
	}
	// A loaded meta.lastUpdated and versionId are kept.
	if _, err := s.LoadJSON([]byte(`{"resourceType":"Patient","id":"m","meta":{"versionId":"7","lastUpdated":"2020-01-01T00:00:00Z","tag":[{"code":"t"}]}}`)); err != nil {
		t.Fatal(err)
	}
	r, _ := s.Read("Patient", "m")
	if gjson.GetBytes(r.JSON, "meta.lastUpdated").Str != "2020-01-01T00:00:00Z" || r.Version != "7" || gjson.GetBytes(r.JSON, "meta.tag.0.code").Str != "t" {
		t.Errorf("meta not kept: %s", r.JSON)
	}
	if res, _ := s.Search(context.Background(), "Patient", url.Values{"_tag": {"t"}, "_lastUpdated": {"2020-01-01"}}); len(res) != 1 {
		t.Errorf("_tag and _lastUpdated: %d", len(res))
	}
}

func TestLoadErrors(t *testing.T) {
	for name, c := range map[string]struct{ doc, ptr string }{
		"not JSON":       {`{"resourceType":`, ""},
		"array":          {`[1]`, ""},
		"no type":        {`{"id":"x"}`, ""},
		"bad id":         {`{"resourceType":"Patient","id":"a b"}`, ""},
		"entry no type":  {`{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Patient"}},{"resource":{"id":"x"}}]}`, "/entry/1/resource"},
		"delete no url":  {`{"resourceType":"Bundle","type":"batch","entry":[{"request":{"method":"DELETE","url":"x"}}]}`, "/entry/0/request/url"},
		"lowercase type": {`{"resourceType":"patient"}`, ""},
	} {
		s := fhir.NewStore()
		_, err := s.LoadJSON([]byte(c.doc))
		var le *fhir.LoadError
		if !errors.As(err, &le) || le.Pointer != c.ptr {
			t.Errorf("%s: %v", name, err)
		}
		if s.Len() != 0 {
			t.Errorf("%s: a failed load stored %d resources", name, s.Len())
		}
	}
}

func TestFolderSource(t *testing.T) {
	fsys := fstest.MapFS{
		"a.json":     {Data: []byte(`{"resourceType":"Patient","id":"p1","gender":"other"}`)},
		"b.json":     {Data: []byte(`{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Patient","id":"p2","gender":"other"}}]}`)},
		"notes.txt":  {Data: []byte(`ignored`)},
		"sub/c.json": {Data: []byte(`not read`)},
	}
	src := fhir.FolderSource(fsys, 0)
	res, err := src.Search(context.Background(), "Patient", url.Values{"gender": {"other"}})
	if err != nil || len(res) != 2 {
		t.Fatalf("%d %v", len(res), err)
	}
	// Over the cap, a bad file: every search errors, naming the file.
	fsys["c.json"] = &fstest.MapFile{Data: []byte(`{"resourceType":"Patient","id":"big","x":"` + strings.Repeat("a", 200) + `"}`)}
	if _, err := fhir.FolderSource(fsys, 100).Search(context.Background(), "Patient", nil); !errors.Is(err, check.ErrTooLarge) {
		t.Errorf("over the cap: %v", err)
	}
	fsys["c.json"] = &fstest.MapFile{Data: []byte(`{"id":"x"}`)}
	_, err = fhir.FolderSource(fsys, 0).Search(context.Background(), "Patient", nil)
	var le *fhir.LoadError
	if !errors.As(err, &le) || le.File != "c.json" {
		t.Errorf("bad file: %v", err)
	}
	// A FIFO is not read (it would block).
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err == nil {
		if _, err := fhir.FolderSource(check.DirFS(dir), 0).Search(context.Background(), "Patient", nil); !errors.Is(err, check.ErrNotRegular) {
			t.Errorf("fifo: %v", err)
		}
	}
}

// URLSource reads the server a sandbox's fhir.url names: its first line
// that is neither blank nor a comment, with the bearer token given.
func TestURLSource(t *testing.T) {
	data, err := os.ReadFile("testdata/people.json")
	if err != nil {
		t.Fatal(err)
	}
	s := fhir.NewStore()
	if _, err := s.LoadJSON(data); err != nil {
		t.Fatal(err)
	}
	var auth atomic.Value
	h := fhir.NewHandler(s)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	res, err := fhir.URLSource("# the sandbox server\n\n  "+srv.URL+"  \nhttp://ignored.example\n", "tok-1", 0).Search(ctx, "Patient", url.Values{"family": {"muller"}})
	if err != nil || len(res) != 2 {
		t.Errorf("%d %v", len(res), err)
	}
	if got := auth.Load(); got != "Bearer tok-1" {
		t.Errorf("Authorization %q, want the token", got)
	}
	if _, err := fhir.URLSource(srv.URL, "", 0).Search(ctx, "Patient", nil); err != nil || auth.Load() != "" {
		t.Errorf("no token: %v, Authorization %q", err, auth.Load())
	}
	for text, want := range map[string]string{
		"\n# only a comment\n": "fhir.url names no server",
		"ftp://x.example/":     "fhir.url: ",
	} {
		if _, err := fhir.URLSource(text, "", 0).Search(ctx, "Patient", nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

// FolderSource reads resources only: a fhir.url beside them is the
// sandbox's to recognise, not a file it loads.
func TestFolderSourceIgnoresURLFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fhir.url"), []byte("http://127.0.0.1:1/\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "p.json"), []byte(`{"resourceType":"Patient","id":"local","name":[{"family":"Here"}]}`), 0o644)
	res, err := fhir.FolderSource(check.DirFS(dir), 0).Search(context.Background(), "Patient", nil)
	if err != nil || len(res) != 1 || res[0].ID != "local" {
		t.Errorf("%v %v", res, err)
	}
}

func TestLoadErrorLocation(t *testing.T) {
	fsys := fstest.MapFS{"b.json": {Data: []byte("{\"resourceType\": \"Bundle\", \"type\": \"collection\", \"entry\": [\n  {\"resource\": {\"resourceType\": \"Patient\"}},\n  {\"resource\": {\"id\": \"x\"}}]}\n")}}
	_, err := fhir.NewStore().LoadFS(fsys, 0)
	want := `fhir: b.json:3:16: /entry/1/resource: no resourceType (a resource needs "resourceType": "Patient" or the like)`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	fsys = fstest.MapFS{"c.json": {Data: []byte("{\n  \"resourceType\": \"Patient\",\n  \"id\": x\n}")}}
	_, err = fhir.NewStore().LoadFS(fsys, 0)
	var le *fhir.LoadError
	if !errors.As(err, &le) || le.File != "c.json" || le.Line != 3 || le.Column != 9 {
		t.Errorf("syntax error at %+v: %v", le, err)
	}
}

func TestVersionsFollowLoaded(t *testing.T) {
	s := fhir.NewStore()
	s.LoadJSON([]byte(`{"resourceType":"Patient","id":"v","meta":{"versionId":"7"}}`))
	r, _, err := s.Update("Patient", "v", []byte(`{"resourceType":"Patient","id":"v","active":true}`))
	if err != nil || r.Version != "8" {
		t.Fatalf("%v %v", r.Version, err)
	}
	if old, err := s.VRead("Patient", "v", "7"); err != nil || strings.Contains(string(old.JSON), "active") {
		t.Errorf("vread 7: %s %v", old.JSON, err)
	}
	s.Delete("Patient", "v")
	if _, err := s.VRead("Patient", "v", "9"); !errors.Is(err, fhir.ErrGone) {
		t.Errorf("vread of the deletion: %v", err)
	}
	if _, err := s.VRead("Patient", "v", "1"); !errors.Is(err, fhir.ErrNotFound) {
		t.Errorf("vread of a version never held: %v", err)
	}
}
