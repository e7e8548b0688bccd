package clitask_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
	"github.com/google/go-cmp/cmp"
)

func TestReadRuns(t *testing.T) {
	runs, err := clitask.ReadRuns("testdata/traces/multi.json")
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs("testdata/traces")
	want := []clitask.Run{
		{TaskID: "init", Model: "anthropic/claude-sonnet-4", Trace: clitask.Trace{
			Workdir: filepath.Join(dir, "work/init"),
			Commands: []clitask.Command{
				{Command: "git init", Stdout: "Initialized empty Git repository\n", DurationMS: 12},
				{Command: "git status", Stdout: "On branch main\n", DurationMS: 8},
			},
		}},
		{TaskID: "init", Trace: clitask.Trace{Workdir: "/abs/work", Commands: []clitask.Command{}}},
	}
	if diff := cmp.Diff(want, runs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	single, err := clitask.ReadRuns("testdata/traces/single.json")
	if err != nil || len(single) != 1 || single[0].Workdir != dir || single[0].TaskID != "" || single[0].Commands[0].Stdout != "hi\n" {
		t.Fatalf("single: %+v, %v", single, err)
	}
}

func TestTraceJSONRoundTrip(t *testing.T) {
	in := clitask.Run{TaskID: "t", Model: "m", Trace: clitask.Trace{Workdir: "/w", Commands: []clitask.Command{
		{Command: "ls", ExitCode: 2, Stdout: "<a&b>", Stderr: "e", DurationMS: 5},
	}}}
	data, err := json.Marshal(map[string]any{"runs": []clitask.Run{in}})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"runs":[{"task_id":"t","model":"m","workdir":"/w","commands":[{"command":"ls","exit_code":2,"stdout":"\u003ca\u0026b\u003e","stderr":"e","duration_ms":5}]}]}`
	if string(data) != want {
		t.Errorf("JSON %s\nwant %s", data, want)
	}
	out, err := clitask.ParseRuns(data, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]clitask.Run{in}, out); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestReadRunsErrors(t *testing.T) {
	tests := map[string]string{
		"bad-exit-type.json":     `/runs/0/commands/0/exit_code: must be an integer (32-bit), not "zero"`,
		"bad-syntax.json":        "bad-syntax.json:3:37: not JSON: invalid character '}'",
		"bad-no-exit.json":       "/runs/0/commands/0/exit_code: missing: a command needs its exit code",
		"bad-no-command.json":    `/runs/0/commands/0: a command needs "command"`,
		"bad-no-commands.json":   `/runs/0: a run needs "commands"`,
		"bad-runs-object.json":   "bad-runs-object.json:1:10: /runs: runs must be an array of runs, not an object",
		"bad-array.json":         "bad-array.json:1:1: a trace must be a JSON object",
		"bad-text.json":          "bad-text.json:1:2: not JSON: invalid character 'h' in literal true",
		"bad-task-id-type.json":  "task_id must be a string, not a number",
		"bad-exit-fraction.json": "/runs/0/commands/0/exit_code: must be an integer (32-bit), not 1.5",
		"bad-duration.json":      "/runs/0/commands/0/duration_ms: must be a number of milliseconds >= 0, not -3",
		"bad-run-string.json":    "bad-run-string.json:1:11: /runs/0: runs must be a run object, not a string",
		"bad-two-docs.json":      "bad-two-docs.json:1:34: not JSON: invalid character '{' after top-level value",
		"bad-empty.json":         "bad-empty.json:1:1: not JSON: unexpected end of JSON input",
		// CR alone ends a line, as assert.LineColumn counts.
		"bad-cr.json": "bad-cr.json:2:15: /runs/0/task_id: task_id must be a string, not a number",
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := clitask.ReadRuns(filepath.Join("testdata/traces", name))
			var te *clitask.TraceError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v\nwant a *TraceError containing %q", err, want)
			}
		})
	}
	if _, err := clitask.ReadRuns("testdata/traces/none.json"); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Fatalf("missing file: %v", err)
	}
}

// FolderSource, the sandbox's reader, never fails: problems become errors
// of the checks, read once from any fs.FS.
func TestFolderSource(t *testing.T) {
	src := clitask.FolderSource(os.DirFS("testdata/traces/ok"), "testdata/traces/ok", 0)
	tr, err := src.Trace(context.Background())
	if err != nil || len(tr.Commands) != 1 {
		t.Fatalf("got %+v, %v", tr, err)
	}
	if abs, _ := filepath.Abs("testdata/traces/ok"); tr.Workdir != abs {
		t.Errorf("workdir %q, want %q (relative to the folder)", tr.Workdir, abs)
	}
	if again, _ := src.Trace(context.Background()); again != tr {
		t.Error("the trace was parsed twice")
	}
	single, _ := os.ReadFile("testdata/traces/single.json")
	syntax, _ := os.ReadFile("testdata/traces/bad-syntax.json")
	multi, _ := os.ReadFile("testdata/traces/multi.json")
	for name, tt := range map[string]struct {
		fsys fstest.MapFS
		cap  int64
		want string
	}{
		"not JSON":   {fstest.MapFS{"trace.json": {Data: syntax}}, 0, "trace.json:3:37: not JSON"},
		"two runs":   {fstest.MapFS{"trace.json": {Data: multi}}, 0, "trace.json: /runs: holds 2 runs"},
		"missing":    {fstest.MapFS{}, 0, "trace.json: file does not exist"},
		"a folder":   {fstest.MapFS{"trace.json/x": {Data: single}}, 0, "trace.json: not a regular file (it is a folder)"},
		"over a cap": {fstest.MapFS{"trace.json": {Data: append(single, make([]byte, 100)...)}}, 120, "over the 120-byte cap"},
	} {
		res := check(t, `{"exit_code": 0}`, clitask.FolderSource(tt.fsys, "", tt.cap))
		if res.Status != assert.StatusError || !strings.Contains(res.Details, tt.want) {
			t.Errorf("%s: %s %q, want error with %q", name, res.Status, res.Details, tt.want)
		}
	}
}
