package sftp_test

import (
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/assaykit/assay/internal/golden"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/sftp"
	"github.com/assaykit/assay/sftp/sftptest"
	"github.com/assaykit/assay/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// treeFiles reads testdata/tree into a map.
func treeFiles(t testing.TB) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir("testdata/tree", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel("testdata/tree", p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// linkTree writes testdata/tree to a new folder and adds symbolic links
// and a FIFO: link.json -> claim.json (inside), out.json -> /etc/passwd,
// up.json -> ../../../etc/hostname (both out), dangling.json, a loop, and
// claims/linkdir -> 2024 (a folder link).
func linkTree(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range treeFiles(t) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	y := filepath.Join(dir, "claims", "2024")
	links := map[string]string{
		"link.json":     "claim.json",
		"out.json":      "/etc/passwd",
		"up.json":       "../../../etc/hostname",
		"dangling.json": "nope.json",
		"loop1.json":    "loop2.json",
		"loop2.json":    "loop1.json",
		"dirlink.json":  "../.hidden",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(y, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("2024", filepath.Join(dir, "claims", "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(y, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func evaluate(t testing.TB, env *assert.Env, spec string) assert.CriterionResult {
	t.Helper()
	res, err := assert.Evaluate(context.Background(), []assert.Criterion{{Assertion: assert.Spec(spec)}}, env)
	if err != nil {
		t.Fatal(err)
	}
	return res.Criteria[0]
}

// sources are the three ways to hold the same tree. links says whether
// the tree has the links and FIFO of linkTree.
type source struct {
	name  string
	links bool
	env   func(t *testing.T) *assert.Env
}

func sources() []source {
	return []source{
		{"memory", false, func(t *testing.T) *assert.Env {
			env := assert.NewEnv()
			sftp.Attach(env, sftp.MemorySource(treeFiles(t)))
			return env
		}},
		{"check.DirFS", true, func(t *testing.T) *assert.Env {
			env := assert.NewEnv()
			sftp.Attach(env, sftp.FolderSource(check.DirFS(linkTree(t)), 0))
			return env
		}},
		{"os.DirFS", true, func(t *testing.T) *assert.Env {
			env := assert.NewEnv()
			sftp.Attach(env, sftp.FolderSource(os.DirFS(linkTree(t)), 0))
			return env
		}},
		{"in-process SFTP", true, func(t *testing.T) *assert.Env {
			srv, err := sftptest.NewServer(sftptest.Options{Dir: linkTree(t)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			kh := filepath.Join(t.TempDir(), "known_hosts")
			if err := srv.WriteKnownHosts(kh); err != nil {
				t.Fatal(err)
			}
			ep, err := sftp.Dial(context.Background(), srv.Config(kh))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ep.Close() })
			env := assert.NewEnv()
			sftp.Attach(env, ep)
			return env
		}},
		opensshSource(),
	}
}

type evidence struct {
	Matched      any               `json:"matched"`
	FieldResults []json.RawMessage `json:"field_results"`
	Candidates   int               `json:"candidates"`
	MatchedPaths []string          `json:"matched_paths"`
	Excluded     []struct {
		Path, Reason string
	} `json:"excluded"`
}

func evidenceOf(t *testing.T, r assert.CriterionResult) evidence {
	t.Helper()
	data, err := json.Marshal(r.Evidence)
	if err != nil {
		t.Fatal(err)
	}
	var ev evidence
	if r.Evidence != nil {
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
	}
	return ev
}

func TestFilePresent(t *testing.T) {
	tests := []struct {
		name    string
		spec    string
		status  assert.Status
		score   float64
		matched any
		paths   string // matched_paths joined by " "; "-" to skip
		details []string
	}{
		{"path", `{"assert": "sftp-file-present", "path": "claims/2024/claim.json"}`,
			assert.StatusPassed, 1, "claims/2024/claim.json", "claims/2024/claim.json",
			[]string{"claims/2024/claim.json matched; no fields to check."}},
		{"leading slash means the root", `{"assert": "sftp-file-present", "path": "/claims//2024/./claim.json"}`,
			assert.StatusPassed, 1, "claims/2024/claim.json", "claims/2024/claim.json", nil},
		{"missing path", `{"assert": "sftp-file-present", "path": "claims/nope.json"}`,
			assert.StatusFailed, 0, nil, "",
			[]string{`No regular file at "claims/nope.json"; it does not exist.`}},
		{"a path under a file", `{"assert": "sftp-file-present", "path": "claims/notes.txt/x"}`,
			assert.StatusFailed, 0, nil, "", []string{"it does not exist"}},
		{"an absolute path is read from the root, never outside", `{"assert": "sftp-file-present", "path": "/etc/passwd"}`,
			assert.StatusFailed, 0, nil, "", []string{`No regular file at "/etc/passwd"; it does not exist.`}},
		{"path naming a folder", `{"assert": "sftp-file-present", "path": "claims/2024"}`,
			assert.StatusFailed, 0, nil, "", []string{"it is a folder"}},
		{"pattern: hidden files and partial uploads do not match *.json", `{"assert": "sftp-file-present", "path_pattern": "claims/2024/*.json"}`,
			assert.StatusPassed, 1, "claims/2024/array.json", "-", nil},
		{"a literal dot in the pattern matches a hidden file", `{"assert": "sftp-file-present", "path_pattern": "claims/2024/.*.json"}`,
			assert.StatusPassed, 1, "claims/2024/.claim.json", "claims/2024/.claim.json", nil},
		{"** does not enter hidden folders", `{"assert": "sftp-file-present", "path_pattern": "**/h.json"}`,
			assert.StatusFailed, 0, nil, "", []string{`No file matched "**/h.json" among the`}},
		{"** matches zero segments", `{"assert": "sftp-file-present", "path_pattern": "claims/**/2024/claim.json"}`,
			assert.StatusPassed, 1, "claims/2024/claim.json", "claims/2024/claim.json", nil},
		{"? takes one character", `{"assert": "sftp-file-present", "path_pattern": "claims/20?4/cl?im.json"}`,
			assert.StatusPassed, 1, "claims/2024/claim.json", "claims/2024/claim.json", nil},
		{"brackets are literal", `{"assert": "sftp-file-present", "path_pattern": "claims/2024/[ac]*.json"}`,
			assert.StatusFailed, 0, nil, "", []string{`No file matched "claims/2024/[ac]*.json" among the`}},
		{"unbalanced bracket", `{"assert": "sftp-file-present", "path_pattern": "claims/[2024/*.json"}`,
			assert.StatusFailed, 0, nil, "", []string{"the folder /claims/[2024 does not exist"}},
		{"parse_json without fields: non-JSON files are not candidates", `{"assert": "sftp-file-present", "path_pattern": "claims/2024/*.json", "parse_json": true}`,
			assert.StatusPassed, 1, "claims/2024/array.json", "-",
			[]string{"Not candidates: claims/2024/blob.json (not JSON: invalid character '\\x00' looking for beginning of value at line 1, column 1)"}},
		{"key is literal, path is dotted", `{"assert": "sftp-file-present", "path_pattern": "claims/**/*.json", "parse_json": true,
			"fields": [{"key": "claim.id", "expected": "C-1"}, {"path": "claim.id", "expected": "C-2"}, {"path": "amount", "expected": 120.5}]}`,
			assert.StatusPassed, 1, "claims/2024/claim.json", "-", []string{"claims/2024/claim.json matched; 3 of 3 fields passed."}},
		{"best candidate: ties go to the first in byte order", `{"assert": "sftp-file-present", "path_pattern": "claims/2024/*.json", "parse_json": true,
			"fields": [{"key": "claim.id", "expected": "C-9"}, {"key": "status", "expected": "paid"}]}`,
			assert.StatusFailed, 0.5, "claims/2024/claim.json", "-",
			[]string{"best was claims/2024/claim.json with 1 of 2 fields passed (claim.id: expected \"C-9\", got \"C-1\")"}},
		{"a key does not index an array", `{"assert": "sftp-file-present", "path": "claims/2024/array.json", "parse_json": true,
			"fields": [{"key": "0", "expected": 1}]}`,
			assert.StatusFailed, 0, "claims/2024/array.json", "claims/2024/array.json", []string{"no value at this path"}},
		{"a binary file fails its fields", `{"assert": "sftp-file-present", "path": "claims/2024/blob.json", "parse_json": true,
			"fields": [{"key": "a", "expected": null}]}`,
			assert.StatusFailed, 0, "claims/2024/blob.json", "claims/2024/blob.json", []string{"the file is not JSON: invalid character", "line 1, column 1"}},
		{"a zero-byte file is present but not JSON", `{"assert": "sftp-file-present", "path": "claims/2024/empty.json", "parse_json": true}`,
			assert.StatusFailed, 0, nil, "claims/2024/empty.json", []string{"not candidates: claims/2024/empty.json (not JSON: the file is empty)"}},
		{"a zero-byte file is present", `{"assert": "sftp-file-present", "path": "claims/2024/empty.json"}`,
			assert.StatusPassed, 1, "claims/2024/empty.json", "claims/2024/empty.json", nil},
		{"missing prefix folder", `{"assert": "sftp-file-present", "path_pattern": "nope/**/*.json"}`,
			assert.StatusFailed, 0, nil, "", []string{"the folder /nope does not exist"}},
		{"prefix is a file", `{"assert": "sftp-file-present", "path_pattern": "claims/notes.txt/*"}`,
			assert.StatusFailed, 0, nil, "", []string{"/claims/notes.txt is not a folder"}},
	}
	for _, src := range sources() {
		t.Run(src.name, func(t *testing.T) {
			env := src.env(t)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					r := evaluate(t, env, tt.spec)
					if r.Status != tt.status || r.Score != tt.score {
						t.Fatalf("status %s score %v, want %s %v: %s", r.Status, r.Score, tt.status, tt.score, r.Details)
					}
					for _, d := range tt.details {
						if !strings.Contains(r.Details, d) {
							t.Errorf("details %q lack %q", r.Details, d)
						}
					}
					ev := evidenceOf(t, r)
					if ev.Matched != tt.matched {
						t.Errorf("matched %v, want %v", ev.Matched, tt.matched)
					}
					if tt.paths != "-" && strings.Join(ev.MatchedPaths, " ") != tt.paths {
						t.Errorf("matched_paths %q, want %q", ev.MatchedPaths, tt.paths)
					}
				})
			}
		})
	}
}

// TestLinks covers entries that are not candidates: links out of the tree,
// dangling links, loops, links to folders, FIFOs; and that walks do not
// enter folder links.
func TestLinks(t *testing.T) {
	for _, src := range sources() {
		if !src.links {
			continue
		}
		t.Run(src.name, func(t *testing.T) {
			env := src.env(t)
			r := evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "claims/2024/*.json", "parse_json": true, "fields": [{"key": "status", "expected": "paid"}]}`)
			if r.Status != assert.StatusPassed {
				t.Fatalf("%s: %s", r.Status, r.Details)
			}
			ev := evidenceOf(t, r)
			want := "claims/2024/array.json claims/2024/blob.json claims/2024/claim.json claims/2024/dangling.json claims/2024/dirlink.json claims/2024/empty.json claims/2024/fifo.json claims/2024/link.json claims/2024/loop1.json claims/2024/loop2.json claims/2024/other.json claims/2024/out.json claims/2024/up.json"
			if got := strings.Join(ev.MatchedPaths, " "); got != want {
				t.Errorf("matched_paths\n%s\nwant\n%s", got, want)
			}
			reasons := map[string]string{}
			for _, x := range ev.Excluded {
				reasons[x.Path] = x.Reason
			}
			for path, want := range map[string]string{
				// Over SFTP an absolute target is the server's path, which
				// the test server confines to the tree: there is no
				// /etc/passwd in it.
				"claims/2024/out.json":      map[bool]string{true: "dangling symbolic link (to /etc/passwd)", false: "leading out of the tree"}[src.name == "in-process SFTP"],
				"claims/2024/up.json":       "leading out of the tree",
				"claims/2024/dangling.json": "dangling",
				"claims/2024/loop1.json":    "loop",
				"claims/2024/fifo.json":     "FIFO",
				"claims/2024/dirlink.json":  "folder",
			} {
				if !strings.Contains(reasons[path], want) {
					t.Errorf("%s: reason %q lacks %q", path, reasons[path], want)
				}
			}
			if _, ok := reasons["claims/2024/link.json"]; ok {
				t.Errorf("a link inside the tree is a candidate: %q", reasons["claims/2024/link.json"])
			}
			if ev.Candidates != 6 { // array, blob, claim, empty, link, other
				t.Errorf("candidates %d, want 6 (excluded %v)", ev.Candidates, ev.Excluded)
			}
			// A link to a regular file inside the tree is read through.
			r = evaluate(t, env, `{"assert": "sftp-file-present", "path": "claims/2024/link.json", "parse_json": true, "fields": [{"key": "claim.id", "expected": "C-1"}]}`)
			if r.Status != assert.StatusPassed {
				t.Errorf("link inside: %s: %s", r.Status, r.Details)
			}
			r = evaluate(t, env, `{"assert": "sftp-file-present", "path": "claims/2024/up.json"}`)
			if r.Status != assert.StatusFailed || !strings.Contains(r.Details, "leading out of the tree") {
				t.Errorf("link out: %s: %s", r.Status, r.Details)
			}
			r = evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "claims/linkdir/*.json"}`)
			if r.Status != assert.StatusFailed || !strings.Contains(r.Details, "links are not followed") {
				t.Errorf("folder link as prefix: %s: %s", r.Status, r.Details)
			}
			r = evaluate(t, env, `{"assert": "sftp-file-present", "path": "claims/linkdir/claim.json"}`)
			if r.Status != assert.StatusFailed || !strings.Contains(r.Details, "not followed") {
				t.Errorf("path through a folder link: %s: %s", r.Status, r.Details)
			}
			r = evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "**/claim.json"}`)
			if ev := evidenceOf(t, r); strings.Join(ev.MatchedPaths, " ") != "claims/2024/claim.json" {
				t.Errorf("** entered a folder link: %q", ev.MatchedPaths)
			}
		})
	}
}

func TestInvalidSpecs(t *testing.T) {
	env := assert.NewEnv()
	sftp.Attach(env, sftp.MemorySource(treeFiles(t)))
	for _, tt := range []struct{ spec, want string }{
		{`{"assert": "sftp-file-present"}`, `needs "path" or "path_pattern"`},
		{`{"assert": "sftp-file-present", "path": "a", "path_pattern": "b"}`, "give exactly one of \"path\", \"path_pattern\", not several"},
		{`{"assert": "sftp-file-present", "path": "a", "fields": [{"key": "k", "expected": 1}]}`, "fields need parse_json: true"},
		{`{"assert": "sftp-file-present", "path": "a", "parse_json": false, "fields": [{"path": "k", "expected": 1}]}`, "fields need parse_json: true"},
		{`{"assert": "sftp-file-present", "path": "a", "parse_json": true, "fields": [{"key": "k", "path": "k", "expected": 1}]}`, "/fields/0: give exactly one of \"key\", \"path\", not several"},
		{`{"assert": "sftp-file-present", "path": "a", "parse_json": true, "fields": [{"key": "k"}]}`, "expected"},
		{`{"assert": "sftp-file-present", "path": "../etc/passwd"}`, `".." cannot climb out of the root`},
		{`{"assert": "sftp-file-present", "path_pattern": "claims/../../*"}`, `".." cannot climb out of the root`},
		{`{"assert": "sftp-file-present", "path": "/"}`, "names the root folder"},
		{`{"assert": "sftp-file-present", "path_pattern": "a/b\\"}`, "escapes nothing"},
		{`{"assert": "sftp-file-present", "path": "a\u0000b"}`, "NUL"},
	} {
		r := evaluate(t, env, tt.spec)
		if r.Status != assert.StatusFailed || !strings.Contains(r.Details, tt.want) {
			t.Errorf("%s: %s %q, want failed with %q", tt.spec, r.Status, r.Details, tt.want)
		}
	}
}

func TestMissingSource(t *testing.T) {
	r := evaluate(t, assert.NewEnv(), `{"assert": "sftp-file-present", "path": "a.json"}`)
	if r.Status != assert.StatusError || !strings.Contains(r.Details, "no sftp evidence") {
		t.Fatalf("%s: %s", r.Status, r.Details)
	}
	env := assert.NewEnv()
	sftp.Attach(env, sftp.MemorySource(map[string][]byte{"../x": nil}))
	r = evaluate(t, env, `{"assert": "sftp-file-present", "path": "a.json"}`)
	if r.Status != assert.StatusError || !strings.Contains(r.Details, "memory tree") {
		t.Fatalf("%s: %s", r.Status, r.Details)
	}
}

func TestFileCap(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big.json"), []byte(`{"a": "`+strings.Repeat("x", 100)+`"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "small.json"), []byte(`{"a": 1}`), 0o644)
	env := assert.NewEnv()
	sftp.Attach(env, sftp.FolderSource(check.DirFS(dir), 50))
	r := evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "*.json", "parse_json": true, "fields": [{"key": "a", "expected": 1}]}`)
	if r.Status != assert.StatusPassed || !strings.Contains(r.Details, "big.json (109 bytes, over the 50-byte cap on a file; not read)") {
		t.Fatalf("%s: %s", r.Status, r.Details)
	}
	// Without parse_json the file is not read, so the cap does not apply.
	r = evaluate(t, env, `{"assert": "sftp-file-present", "path": "big.json"}`)
	if r.Status != assert.StatusPassed {
		t.Fatalf("%s: %s", r.Status, r.Details)
	}
}

// TestGolden pins the whole evidence of a failing check with key and path
// fields and exclusions.
func TestGolden(t *testing.T) {
	env := assert.NewEnv()
	sftp.Attach(env, sftp.MemorySource(treeFiles(t)))
	r := evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "claims/**/*.json", "parse_json": true,
		"fields": [{"key": "claim.id", "expected": "C-9"}, {"path": "claim.id", "expected": "C-2"}, {"path": "amount", "expected": "120.5"}]}`)
	got := golden.JSON(t, map[string]any{"status": r.Status, "score": r.Score, "details": r.Details, "evidence": r.Evidence})
	golden.Compare(t, filepath.Join("testdata", "golden", "evidence.json"), got, *update)
}

// TestTypedSpec: package spec's builder decodes through this kind, key and
// path fields alike; a spec with fields but no parse_json is rejected.
func TestTypedSpec(t *testing.T) {
	env := assert.NewEnv()
	sftp.Attach(env, sftp.MemorySource(treeFiles(t)))
	good := spec.SFTPFilePresent{PathPattern: "claims/**/*.json", ParseJSON: true, Fields: []spec.Field{
		{Key: "claim.id", Expected: spec.String("C-1")}, {Path: "amount", Expected: spec.Number(120.5)}}}
	a, err := assert.Decode(good.Spec())
	if err != nil {
		t.Fatal(err)
	}
	if r := assert.Run(context.Background(), a, env); r.Status != assert.StatusPassed {
		t.Fatalf("%s: %s", r.Status, r.Details)
	}
	bad := spec.SFTPFilePresent{Path: "a.json", Fields: []spec.Field{{Key: "k", Expected: spec.Null()}}}
	if _, err := assert.Decode(bad.Spec()); err == nil || !strings.Contains(err.Error(), "parse_json") {
		t.Fatalf("fields without parse_json: %v", err)
	}
}
