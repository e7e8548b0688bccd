package clitask_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
)

// workdir makes a working directory holding README.md and src/.
func workdir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func gitTrace(dir string) *clitask.Trace {
	return &clitask.Trace{Workdir: dir, Commands: []clitask.Command{
		{Command: "git init", Stdout: "Initialized empty Git repository in " + dir + "/.git/\n"},
		{Command: "git add README.md"},
		{Command: `git commit -m "first commit"`, Stdout: "[main (root-commit) 1a2b3c4] first commit\n 1 file changed\n"},
		{Command: "git push --dry-run origin main", Stdout: "To origin\n"},
		{Command: "git push origin main", ExitCode: 128, Stderr: "fatal: 'origin' does not appear to be a git repository\n"},
		{Command: "git status --short", Stdout: " M README.md\n", Stderr: "warning: in the working copy of 'README.md', LF will be replaced by CRLF\n"},
	}}
}

// errSource is a Source whose trace cannot be read.
type errSource struct{ err error }

func (s errSource) Trace(context.Context) (*clitask.Trace, error) { return nil, s.err }

func (s errSource) Verify(_ context.Context, command string) (clitask.Command, error) {
	return clitask.Command{Command: command}, s.err
}

// check decodes spec through the default registry and checks it against
// src.
func check(t *testing.T, spec string, src clitask.Source) assert.Result {
	t.Helper()
	a, err := assert.Decode([]byte(spec))
	if err != nil {
		t.Fatalf("decode %s: %v", spec, err)
	}
	env := assert.NewEnv()
	clitask.Attach(env, src)
	return assert.Run(context.Background(), a, env)
}

func TestKinds(t *testing.T) {
	dir := workdir(t)
	other := filepath.Join(t.TempDir(), "elsewhere.txt")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	traces := map[string]*clitask.Trace{
		"git":   gitTrace(dir),
		"empty": {Workdir: dir},
		"dry": {Workdir: dir, Commands: []clitask.Command{
			{Command: "git push --dry-run origin main"}, {Command: "npm install [react]"},
		}},
		"bom": {Workdir: dir, Commands: []clitask.Command{{Command: "printf", Stdout: "\ufeff ok \u2029"}}},
		"nel": {Workdir: dir, Commands: []clitask.Command{{Command: "printf", Stdout: "ok\u0085"}}},
	}
	tests := []struct {
		name, trace, spec string
		want              assert.Status
		details           string // a substring of the details
	}{
		{"exit_code passes", "git", `{"exit_code": 0}`, assert.StatusPassed, `"git status --short", exited 0 as expected`},
		{"exit_code fails", "git", `{"exit_code": 1}`, assert.StatusFailed, "exited 0, expected 1"},
		{"exit_code criteria shape", "git", `{"assert": "exit_code", "exit_code": 0}`, assert.StatusPassed, "exited 0"},
		{"exit_code with no command", "empty", `{"exit_code": 0}`, assert.StatusFailed, "No command ran"},
		{"output_contains passes", "git", `{"output_contains": "M README"}`, assert.StatusPassed, `contains "M README"`},
		{"output_contains is case-sensitive", "git", `{"output_contains": "m readme"}`, assert.StatusFailed, `does not contain "m readme"`},
		{"output_contains reads the last command only", "git", `{"output_contains": "first commit"}`, assert.StatusFailed, "does not contain"},
		{"output_contains with no command", "empty", `{"output_contains": "x"}`, assert.StatusFailed, "No command ran"},
		{"output_equals trims both", "git", `{"output_equals": "M README.md  \n"}`, assert.StatusPassed, "equals"},
		{"output_equals fails", "git", `{"output_equals": "README.md"}`, assert.StatusFailed, `does not equal "README.md"; it was " M README.md\n"`},
		{"output_equals trims a BOM and U+2029 as JavaScript does", "bom", `{"output_equals": "ok"}`, assert.StatusPassed, "equals"},
		{"output_equals keeps U+0085 as JavaScript does", "nel", `{"output_equals": "ok"}`, assert.StatusFailed, "does not equal"},
		{"error_contains passes", "git", `{"error_contains": "LF will be replaced"}`, assert.StatusPassed, "stderr"},
		{"error_contains fails", "git", `{"error_contains": "fatal"}`, assert.StatusFailed, `does not contain "fatal"`},
		{"file_exists file", "git", `{"file_exists": "README.md"}`, assert.StatusPassed, "(a file)"},
		{"file_exists directory", "git", `{"file_exists": "src"}`, assert.StatusPassed, "(a directory)"},
		{"file_exists absolute", "git", `{"file_exists": "` + other + `"}`, assert.StatusPassed, "exists"},
		{"file_exists missing", "git", `{"file_exists": "dist/app.js"}`, assert.StatusFailed, "does not exist"},
		{"file_exists through a file", "git", `{"file_exists": "README.md/x"}`, assert.StatusFailed, "does not exist"},
		{"file_contains passes", "git", `{"file_contains": {"path": "README.md", "text": "world"}}`, assert.StatusPassed, `contains "world"`},
		{"file_contains is case-sensitive", "git", `{"file_contains": {"path": "README.md", "text": "World"}}`, assert.StatusFailed, `does not contain "World"`},
		{"file_contains missing file", "git", `{"file_contains": {"path": "nope.md", "text": "x"}}`, assert.StatusFailed, "does not exist"},
		{"file_contains directory", "git", `{"file_contains": {"path": "src", "text": "x"}}`, assert.StatusFailed, "is a directory"},
		{"ran passes", "git", `{"ran": "git commit.*-m"}`, assert.StatusPassed, `Command 3, "git commit -m \"first commit\"", matches`},
		{"ran is unanchored", "git", `{"ran": "push origin"}`, assert.StatusPassed, "Command 5"},
		{"ran fails", "git", `{"ran": "git rebase"}`, assert.StatusFailed, `None of the 6 commands matches "git rebase"`},
		{"ran with no command", "empty", `{"ran": "git"}`, assert.StatusFailed, "None of the 0 commands"},
		{"ran lookahead finds the real push", "git", `{"ran": "git push(?!.*--dry-run)"}`, assert.StatusPassed, "Command 5"},
		{"ran lookahead skips the dry run", "dry", `{"ran": "git push(?!.*--dry-run)"}`, assert.StatusFailed, "None of the 2 commands"},
		{"not_ran lookahead passes on a dry run", "dry", `{"not_ran": "git push(?!.*--dry-run)"}`, assert.StatusPassed, "None of the 2 commands"},
		{"not_ran fails", "git", `{"not_ran": "git push(?!.*--dry-run)"}`, assert.StatusFailed, "Command 5, \"git push origin main\", matches"},
		{"invalid pattern falls back to a substring", "dry", `{"ran": "npm install [react"}`, assert.StatusPassed, "is not a valid regular expression, so it was matched as plain text"},
		{"invalid pattern fallback can fail", "git", `{"ran": "npm install [react"}`, assert.StatusFailed, "matched as plain text"},
		{"ECMAScript classes", "git", `{"ran": "^git\\s+commit\\s+-m\\s+\"[^\"]+\"$"}`, assert.StatusPassed, "Command 3"},
		{"run_count within", "git", `{"run_count": {"pattern": "^git ", "min": 6, "max": 6}}`, assert.StatusPassed, "6 of 6 commands match \"^git \", expected exactly 6"},
		{"run_count at most", "git", `{"run_count": {"pattern": "git push", "max": 1}}`, assert.StatusFailed, "2 of 6 commands match \"git push\", expected at most 1"},
		{"run_count at least", "git", `{"run_count": {"pattern": "git push", "min": 3}}`, assert.StatusFailed, "expected at least 3"},
		{"run_count zero allowed", "git", `{"run_count": {"pattern": "rm -rf", "max": 0}}`, assert.StatusPassed, "0 of 6 commands match"},
		{"run_count range", "git", `{"run_count": {"pattern": "git", "min": 1, "max": 10}}`, assert.StatusPassed, "between 1 and 10"},
		{"verify exits 0", "git", `{"verify": {"run": "test -f README.md"}}`, assert.StatusPassed, "exited 0."},
		{"verify runs in the workdir", "git", `{"verify": {"run": "cat README.md", "output_contains": "Hello"}}`, assert.StatusPassed, `stdout contains "Hello"`},
		{"verify output_equals trims", "git", `{"verify": {"run": "head -1 README.md", "output_equals": "# Hello"}}`, assert.StatusPassed, "equals"},
		{"verify both checks", "git", `{"verify": {"run": "cat README.md", "output_contains": "world", "output_equals": "# Hello\nworld"}}`, assert.StatusPassed, "and equals"},
		{"verify non-zero exit", "git", `{"verify": {"run": "echo broken >&2; exit 3"}}`, assert.StatusFailed, `exited 3; stderr: "broken\n"`},
		{"verify output_contains fails", "git", `{"verify": {"run": "cat README.md", "output_contains": "Bye"}}`, assert.StatusFailed, `does not contain "Bye"`},
		{"verify output_equals fails", "git", `{"verify": {"run": "cat README.md", "output_equals": "# Hello"}}`, assert.StatusFailed, "does not equal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := clitask.MemorySource(traces[tt.trace])
			got := check(t, tt.spec, src)
			if got.Status != tt.want || !strings.Contains(got.Details, tt.details) {
				t.Errorf("got %s %q\nwant %s containing %q", got.Status, got.Details, tt.want, tt.details)
			}
			if (got.Score == 1) != (tt.want == assert.StatusPassed) {
				t.Errorf("score %v for status %s", got.Score, got.Status)
			}
			if got.Evidence == nil {
				t.Error("no evidence")
			}
		})
	}
}

func TestInvalidSpecs(t *testing.T) {
	tests := []struct{ spec, want string }{
		{`{"run_count": {"pattern": "git", "min": 3, "max": 1}}`, "/run_count/max: max 1 is less than min 3"},
		{`{"run_count": {"pattern": "git"}}`, "/run_count"},
		{`{"run_count": {"pattern": "git", "min": -1}}`, "/run_count/min"},
		{`{"run_count": {"min": 1}}`, "pattern"},
		{`{"exit_code": "0"}`, "/exit_code"},
		{`{"exit_code": 1.5}`, "/exit_code"},
		{`{"exit_code": 99999999999}`, "not a 32-bit integer"},
		{`{"ran": ""}`, "/ran"},
		{`{"file_exists": 3}`, "/file_exists"},
		{`{"file_contains": {"path": "a"}}`, "text"},
		{`{"file_contains": {"path": "a", "text": "b", "txt": "c"}}`, `unknown key "txt"`},
		{`{"verify": {"run": "true", "output_contain": "x"}}`, `unknown key "output_contain"`},
		{`{"verify": "true"}`, "/verify"},
		{`{"exit_code": 0, "ran": "x"}`, "exactly one key"},
		{`{"exit_cod": 0}`, `unknown kind "exit_cod"`},
	}
	for _, tt := range tests {
		_, err := assert.Decode([]byte(tt.spec))
		var se *assert.SpecError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want a SpecError mentioning %q", tt.spec, err, tt.want)
		}
	}
}

func TestEvidenceProblemsAreErrors(t *testing.T) {
	specs := []string{
		`{"exit_code": 0}`, `{"output_contains": "x"}`, `{"output_equals": "x"}`, `{"error_contains": "x"}`,
		`{"file_exists": "x"}`, `{"file_contains": {"path": "x", "text": "y"}}`, `{"ran": "x"}`, `{"not_ran": "x"}`,
		`{"run_count": {"pattern": "x", "min": 0}}`, `{"verify": {"run": "true"}}`,
	}
	broken := errSource{errors.New("trace.json: not JSON")}
	for _, spec := range specs {
		a, err := assert.Decode([]byte(spec))
		if err != nil {
			t.Fatal(err)
		}
		// No source at all.
		res := a.Check(context.Background(), assert.NewEnv()).Normalize()
		if res.Status != assert.StatusError || !strings.Contains(res.Details, "clitask") {
			t.Errorf("%s without a source: %s %q", spec, res.Status, res.Details)
		}
		// A source whose trace cannot be read.
		res = check(t, spec, broken)
		if res.Status != assert.StatusError || !strings.Contains(res.Details, "not JSON") {
			t.Errorf("%s with a broken trace: %s %q", spec, res.Status, res.Details)
		}
	}
	// File checks need a workdir.
	for _, spec := range []string{`{"file_exists": "x"}`, `{"file_contains": {"path": "x", "text": "y"}}`, `{"verify": {"run": "true"}}`} {
		res := check(t, spec, clitask.MemorySource(&clitask.Trace{}))
		if res.Status != assert.StatusError || !strings.Contains(res.Details, "no workdir") {
			t.Errorf("%s without a workdir: %s %q", spec, res.Status, res.Details)
		}
		gone := filepath.Join(t.TempDir(), "gone")
		res = check(t, spec, clitask.MemorySource(&clitask.Trace{Workdir: gone}))
		if res.Status != assert.StatusError {
			t.Errorf("%s with a missing workdir: %s %q", spec, res.Status, res.Details)
		}
	}
}

func TestLongOutputIsQuotedTruncatedButCheckedInFull(t *testing.T) {
	long := strings.Repeat("x", 4500) + "NEEDLE" + strings.Repeat("y", 500)
	src := clitask.MemorySource(&clitask.Trace{Commands: []clitask.Command{{Command: "gen", Stdout: long}}})
	if res := check(t, `{"output_contains": "NEEDLE"}`, src); res.Status != assert.StatusPassed {
		t.Fatalf("the check must read the full output: %s %q", res.Status, res.Details)
	}
	res := check(t, `{"output_contains": "HAYSTACK"}`, src)
	if res.Status != assert.StatusFailed || !strings.Contains(res.Details, "[truncated 3006 more characters]") {
		t.Fatalf("got %s %q", res.Status, res.Details)
	}
	if len(res.Details) > assert.MaxQuote+400 {
		t.Errorf("details are %d bytes long", len(res.Details))
	}
	ev := res.Evidence.(clitask.LastEvidence)
	if s := ev.Actual.(string); len(s) > assert.MaxQuote+100 {
		t.Errorf("evidence quotes %d bytes", len(s))
	}
}

func TestVerifyTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	src := clitask.MemorySource(&clitask.Trace{Workdir: dir}, clitask.VerifyTimeout(300*time.Millisecond))
	start := time.Now()
	// The background sleep is in the verify's process group: it must die too.
	res := check(t, `{"verify": {"run": "sleep 30 & echo $! > bg.pid; sleep 30"}}`, src)
	if res.Status != assert.StatusError || !strings.Contains(res.Details, "timed out") {
		t.Fatalf("got %s %q", res.Status, res.Details)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the hanging verify took %s to stop", d)
	}
	assertDead(t, filepath.Join(dir, "bg.pid"))
}

// Each kind says it always reports the members of its evidence type that
// are never omitted (assert.Reports), so that the result schema requires
// exactly what a check writes.
func TestEvidenceKeys(t *testing.T) {
	tests := []struct {
		kinds    []string
		evidence any
	}{
		{[]string{clitask.KindExitCode, clitask.KindOutputContains, clitask.KindOutputEquals, clitask.KindErrorContains}, clitask.LastEvidence{}},
		{[]string{clitask.KindFileExists, clitask.KindFileContains}, clitask.FileEvidence{}},
		{[]string{clitask.KindRan, clitask.KindNotRan, clitask.KindRunCount}, clitask.PatternEvidence{}},
		{[]string{clitask.KindVerify}, clitask.VerifyEvidence{}},
	}
	seen := 0
	for _, tt := range tests {
		var want []string
		ty := reflect.TypeOf(tt.evidence)
		for i := range ty.NumField() {
			name, opts, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" && !strings.Contains(opts, "omitempty") {
				want = append(want, name)
			}
		}
		for _, kind := range tt.kinds {
			seen++
			if got := assert.DefaultRegistry().EvidenceKeys(kind); !slices.Equal(got, want) {
				t.Errorf("%s reports %v, want %v (the fields of %s)", kind, got, want, ty.Name())
			}
		}
	}
	if seen != len(clitask.Kinds()) {
		t.Errorf("the test covers %d kinds, the package has %d", seen, len(clitask.Kinds()))
	}
}
