package clitask_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/assert"
	evidence "github.com/assaykit/assay/check"
	"github.com/assaykit/assay/clitask"
)

// The test binary is a child subreaper, as the assay command is, so that
// verify and Shell.Close can find what commands leave behind.
func TestMain(m *testing.M) {
	if runtime.GOOS == "linux" {
		if err := clitask.BecomeSubreaper(); err != nil {
			fmt.Fprintln(os.Stderr, "BecomeSubreaper:", err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// within fails the test when f takes longer than d: a hang must not pass.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
	}
}

// A FIFO, a folder or a device where trace.json belongs is status error,
// never a hang; a large trace is over the cap, saying so.
func TestTraceFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	mkfifo(t, filepath.Join(dir, "fifo", "trace.json"))
	writeFile(t, filepath.Join(dir, "folder", "trace.json", "x"), "")
	if err := os.MkdirAll(filepath.Join(dir, "device"), 0o755); err != nil {
		t.Fatal(err)
	}
	big := `{"commands": [` + strings.Repeat(`{"command": "x", "exit_code": 0},`, 100) + `{"command": "y", "exit_code": 0}]}`
	writeFile(t, filepath.Join(dir, "big", "trace.json"), big)
	tests := map[string]struct {
		src  clitask.Source
		want string
	}{
		"fifo":   {clitask.FolderSource(evidence.DirFS(filepath.Join(dir, "fifo")), filepath.Join(dir, "fifo"), 0), "not a regular file (it is a FIFO)"},
		"folder": {clitask.FolderSource(evidence.DirFS(filepath.Join(dir, "folder")), filepath.Join(dir, "folder"), 0), "it is a folder"},
		"device": {clitask.FolderSource(os.DirFS("/dev"), "", 0), "file does not exist"},
		"big":    {clitask.FolderSource(evidence.DirFS(filepath.Join(dir, "big")), filepath.Join(dir, "big"), 1000), "over the 1000-byte cap"},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		// A snapshot whose trace.json is a device.
		tests["device"] = struct {
			src  clitask.Source
			want string
		}{clitask.FolderSource(renameFS{os.DirFS("/dev"), "zero"}, "", 0), "it is a device"}
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			within(t, 5*time.Second, func() {
				res := check(t, `{"exit_code": 0}`, tt.src)
				if res.Status != assert.StatusError || !strings.Contains(res.Details, tt.want) {
					t.Errorf("got %s %q, want error with %q", res.Status, res.Details, tt.want)
				}
			})
		})
	}
	// A trace file named on the command line is held to the same rules.
	within(t, 5*time.Second, func() {
		_, err := clitask.ReadRuns(filepath.Join(dir, "fifo", "trace.json"))
		if !errors.Is(err, evidence.ErrNotRegular) {
			t.Errorf("ReadRuns of a FIFO: %v", err)
		}
	})
}

// renameFS serves the file name of fsys as trace.json.
type renameFS struct {
	fsys fs.FS
	name string
}

func (r renameFS) Open(name string) (fs.File, error) {
	if name == "trace.json" {
		name = r.name
	}
	return r.fsys.Open(name)
}

// mapFS is a snapshot's cli folder holding trace.
func mapFS(trace string) fs.FS { return fstest.MapFS{"trace.json": {Data: []byte(trace)}} }

// file_contains judges what the agent left: a FIFO, a folder or a file over
// the cap is failed with the reason, never a hang; a cancelled check ends.
func TestFileContainsNotRegular(t *testing.T) {
	wd := t.TempDir()
	mkfifo(t, filepath.Join(wd, "pipe"))
	writeFile(t, filepath.Join(wd, "big.txt"), strings.Repeat("x", 100)+"needle")
	src := clitask.MemorySource(&clitask.Trace{Workdir: wd}, clitask.MaxFileSize(50))
	tests := []struct {
		spec   string
		status assert.Status
		want   string
	}{
		{`{"file_contains": {"path": "pipe", "text": "x"}}`, assert.StatusFailed, `"pipe" is a FIFO, not a regular file`},
		{`{"file_contains": {"path": "big.txt", "text": "needle"}}`, assert.StatusFailed, "over the 50-byte cap on a file file_contains reads"},
		{`{"file_exists": "pipe"}`, assert.StatusPassed, "exists (a FIFO)"},
	}
	for _, tt := range tests {
		within(t, 5*time.Second, func() {
			res := check(t, tt.spec, src)
			if res.Status != tt.status || !strings.Contains(res.Details, tt.want) {
				t.Errorf("%s: got %s %q, want %s with %q", tt.spec, res.Status, res.Details, tt.status, tt.want)
			}
		})
	}
	// SIGINT ends the command's context: the checks stop, as errors.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a, _ := assert.Decode([]byte(`{"file_contains": {"path": "big.txt", "text": "x"}}`))
	env := assert.NewEnv()
	clitask.Attach(env, src)
	if res := assert.Run(ctx, a, env); res.Status != assert.StatusError || !strings.Contains(res.Details, "canceled") {
		t.Errorf("cancelled: %s %q", res.Status, res.Details)
	}
}

// Links in the working directory: resolved first for the directory itself;
// a link inside it whose target resolves outside fails, saying where it
// leads; the author's path stands as written; a dangling link is missing.
func TestWorkdirLinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "real")
	outside := filepath.Join(base, "outside")
	writeFile(t, filepath.Join(real, "in.txt"), "inside text")
	writeFile(t, filepath.Join(outside, "secret.txt"), "root:x:0:0")
	writeFile(t, filepath.Join(base, "sibling.txt"), "sibling text")
	links := map[string]string{
		filepath.Join(base, "wd"):                 "real", // the workdir itself is a link
		filepath.Join(real, "out.txt"):            filepath.Join(outside, "secret.txt"),
		filepath.Join(real, "rel-out.txt"):        "../outside/secret.txt",
		filepath.Join(real, "dir-out"):            "../outside",
		filepath.Join(real, "in-link.txt"):        "in.txt",
		filepath.Join(real, "round-trip.txt"):     "../real/in.txt", // leaves and comes back: inside
		filepath.Join(real, "dangling.txt"):       "nowhere.txt",
		filepath.Join(real, "loop-a"):             "loop-b",
		filepath.Join(real, "loop-b"):             "loop-a",
		filepath.Join(outside, "back-in.txt"):     filepath.Join(real, "in.txt"),
		filepath.Join(base, "outside-link-to-wd"): "real",
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	src := clitask.MemorySource(&clitask.Trace{Workdir: filepath.Join(base, "wd")})
	tests := []struct {
		spec   string
		status assert.Status
		want   string
	}{
		{`{"file_contains": {"path": "out.txt", "text": "root:"}}`, assert.StatusFailed, "leads outside it, to " + filepath.Join(outside, "secret.txt")},
		{`{"file_exists": "out.txt"}`, assert.StatusFailed, "leads outside it"},
		{`{"file_contains": {"path": "rel-out.txt", "text": "root:"}}`, assert.StatusFailed, "leads outside it"},
		{`{"file_contains": {"path": "dir-out/secret.txt", "text": "root:"}}`, assert.StatusFailed, `"dir-out/secret.txt" passes through "dir-out", a symbolic link in the working directory that leads outside it`},
		{`{"file_contains": {"path": "in-link.txt", "text": "inside"}}`, assert.StatusPassed, "contains"},
		{`{"file_contains": {"path": "round-trip.txt", "text": "inside"}}`, assert.StatusPassed, "contains"},
		{`{"file_exists": "dangling.txt"}`, assert.StatusFailed, "does not exist"},
		{`{"file_exists": "loop-a"}`, assert.StatusFailed, "does not exist"},
		{`{"file_contains": {"path": "in.txt", "text": "inside"}}`, assert.StatusPassed, "contains"},
		// The author's path stands as written: .. and absolute paths are
		// followed, links outside the workdir too.
		{`{"file_contains": {"path": "../sibling.txt", "text": "sibling"}}`, assert.StatusPassed, "contains"},
		{`{"file_contains": {"path": "` + filepath.Join(outside, "secret.txt") + `", "text": "root:"}}`, assert.StatusPassed, "contains"},
		{`{"file_contains": {"path": "` + filepath.Join(outside, "back-in.txt") + `", "text": "inside"}}`, assert.StatusPassed, "contains"},
		{`{"file_contains": {"path": "` + filepath.Join(base, "outside-link-to-wd", "out.txt") + `", "text": "root:"}}`, assert.StatusFailed, "leads outside it"},
	}
	for _, tt := range tests {
		res := check(t, tt.spec, src)
		if res.Status != tt.status || !strings.Contains(res.Details, tt.want) {
			t.Errorf("%s: got %s %q, want %s with %q", tt.spec, res.Status, res.Details, tt.status, tt.want)
		}
	}
	res := check(t, `{"file_exists": "out.txt"}`, src)
	if ev := res.Evidence.(clitask.FileEvidence); ev.LeadsTo != filepath.Join(outside, "secret.txt") || ev.Exists {
		t.Errorf("evidence %+v", ev)
	}
}

// A trace whose workdir does not exist makes file_exists, file_contains and
// verify error, naming the folder, even for an absolute path; a relative
// workdir in a snapshot that is not on disk is an error saying why.
func TestMissingWorkdir(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	abs := filepath.Join(t.TempDir(), "there.txt")
	writeFile(t, abs, "x")
	for _, spec := range []string{
		`{"file_exists": "x"}`, `{"file_exists": "` + abs + `"}`,
		`{"file_contains": {"path": "x", "text": "y"}}`, `{"verify": {"run": "true"}}`,
	} {
		res := check(t, spec, clitask.MemorySource(&clitask.Trace{Workdir: gone}))
		if res.Status != assert.StatusError || !strings.Contains(res.Details, gone+" does not exist") {
			t.Errorf("%s: %s %q", spec, res.Status, res.Details)
		}
	}
	fsys := mapFS(`{"workdir": "work", "commands": []}`)
	for _, spec := range []string{`{"file_exists": "x"}`, `{"verify": {"run": "true"}}`} {
		res := check(t, spec, clitask.FolderSource(fsys, "", 0))
		if res.Status != assert.StatusError || !strings.Contains(res.Details, `workdir "work" is relative, and the snapshot is not in a folder on disk`) {
			t.Errorf("%s: %s %q", spec, res.Status, res.Details)
		}
	}
}

// One budget per check across all commands: 300 commands that each take a
// slow match (about 0.2 s here, under the 1 s limit per match) stop at the
// budget, not after a minute; ctx is honoured.
func TestPatternBudget(t *testing.T) {
	tr := &clitask.Trace{Commands: make([]clitask.Command, 300)}
	for i := range tr.Commands {
		tr.Commands[i].Command = strings.Repeat("a", 20) + "!"
	}
	spec := `{"run_count": {"pattern": "^(a+)+$", "max": 0}}`
	start := time.Now()
	res := check(t, spec, clitask.MemorySource(tr, clitask.PatternBudget(300*time.Millisecond)))
	if res.Status != assert.StatusError || !strings.Contains(res.Details, "took longer than 300ms") || !strings.Contains(res.Details, "300 commands") {
		t.Fatalf("got %s %q", res.Status, res.Details)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the budget of 300ms took %s", d)
	}
	// The default budget is 5 s in total.
	if testing.Short() {
		return
	}
	start = time.Now()
	res = check(t, spec, clitask.MemorySource(tr))
	if d := time.Since(start); res.Status != assert.StatusError || d > 7*time.Second ||
		!strings.Contains(res.Details, "took longer than 5s") && !strings.Contains(res.Details, "match timeout") {
		t.Fatalf("default budget: %s %q after %s", res.Status, res.Details, d)
	}
	// ctx ends the matching at once.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	a, _ := assert.Decode([]byte(spec))
	env := assert.NewEnv()
	clitask.Attach(env, clitask.MemorySource(tr))
	start = time.Now()
	res = assert.Run(ctx, a, env)
	if res.Status != assert.StatusError || !strings.Contains(res.Details, "deadline exceeded") || time.Since(start) > 2*time.Second {
		t.Fatalf("cancelled: %s %q after %s", res.Status, res.Details, time.Since(start))
	}
}

// alive reports whether pid runs (a zombie is dead).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func needSubreaper(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("a child subreaper needs Linux")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
}

// A descendant that calls setsid leaves verify's process group; the
// subreaper still ends it before verify returns.
func TestVerifyEndsNewSessions(t *testing.T) {
	needSubreaper(t)
	dir := t.TempDir()
	res := check(t, `{"verify": {"run": "setsid sleep 30 >/dev/null 2>&1 < /dev/null & echo $! > bg.pid; sleep 0.1"}}`,
		clitask.MemorySource(&clitask.Trace{Workdir: dir}))
	if res.Status != assert.StatusPassed {
		t.Fatalf("got %s %q", res.Status, res.Details)
	}
	if pid := readPid(t, filepath.Join(dir, "bg.pid")); alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the new session %d outlived verify", pid)
	}
}

// Shell.Close ends what the agent's commands left, new sessions included,
// and never signals a process it did not start, though it is a child of the
// same process.
func TestShellCloseEndsOnlyItsOwn(t *testing.T) {
	needSubreaper(t)
	dir := t.TempDir()
	unrelated := exec.Command("sleep", "30")
	if err := unrelated.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = unrelated.Process.Kill(); _ = unrelated.Wait() }()
	sh := clitask.NewShell(clitask.Executor{Dir: dir})
	if _, err := sh.Run(context.Background(), "setsid sleep 30 >/dev/null 2>&1 < /dev/null & echo $! > bg.pid"); err != nil {
		t.Fatal(err)
	}
	bg := readPid(t, filepath.Join(dir, "bg.pid"))
	time.Sleep(50 * time.Millisecond)
	if !alive(bg) {
		t.Fatal("the background server died before Close")
	}
	// A verify does not end the shell's background processes.
	if res := check(t, `{"verify": {"run": "true"}}`, sh); res.Status != assert.StatusPassed || !alive(bg) {
		t.Fatalf("verify: %s %q; background alive: %v", res.Status, res.Details, alive(bg))
	}
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	if alive(bg) {
		syscall.Kill(bg, syscall.SIGKILL)
		t.Fatal("the new session outlived Close")
	}
	if !alive(unrelated.Process.Pid) {
		t.Fatal("Close signalled a process the shell did not start")
	}
}

// verify's output cap is said in the details, and only what was captured is
// judged: the note is not stdout.
func TestVerifyOutputCap(t *testing.T) {
	sh := clitask.NewShell(clitask.Executor{Dir: t.TempDir(), MaxOutput: 100})
	defer sh.Close()
	gen := `head -c 1000 /dev/zero | tr '\\0' x`
	res := check(t, `{"verify": {"run": "`+gen+`", "output_contains": "output capped"}}`, sh)
	if res.Status != assert.StatusFailed || !strings.Contains(res.Details, "output capped at 100 bytes") {
		t.Fatalf("got %s %q", res.Status, res.Details)
	}
	res = check(t, `{"verify": {"run": "`+gen+`", "output_equals": "`+strings.Repeat("x", 100)+`"}}`, sh)
	if res.Status != assert.StatusPassed || !strings.Contains(res.Details, "output capped at 100 bytes") {
		t.Fatalf("got %s %q", res.Status, res.Details)
	}
	if ev := res.Evidence.(clitask.VerifyEvidence); ev.OutputCapped != 100 || len(ev.Stdout) != 100 {
		t.Errorf("evidence %+v", ev)
	}
}

// A verify that times out is an error.
func TestVerifyTimeoutIsError(t *testing.T) {
	res := check(t, `{"verify": {"run": "sleep 5", "output_contains": ""}}`,
		clitask.MemorySource(&clitask.Trace{Workdir: t.TempDir()}, clitask.VerifyTimeout(100*time.Millisecond)))
	if res.Status != assert.StatusError || !strings.Contains(res.Details, "timed out") {
		t.Fatalf("got %s %q", res.Status, res.Details)
	}
}

// A task file matched by two includes, directly or through a link, loads
// once, at its first position; a task file holding file:// items is a suite
// error.
func TestIncludeOnce(t *testing.T) {
	dir := t.TempDir()
	task := func(id string) string {
		return "- id: " + id + "\n  intent: do " + id + "\n  assert:\n    - exit_code: 0\n"
	}
	writeFile(t, filepath.Join(dir, "tasks", "a.yaml"), task("a"))
	writeFile(t, filepath.Join(dir, "tasks", "b.yaml"), task("b"))
	if err := os.Symlink("tasks", filepath.Join(dir, "linked")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	suite := "cli: x\ntasks:\n  - file://tasks/b.yaml\n  - id: inline\n    intent: x\n    assert: [{exit_code: 0}]\n" +
		"  - file://tasks/*.yaml\n  - file://./tasks/../tasks/a.yaml\n  - file://linked/a.yaml\n"
	writeFile(t, filepath.Join(dir, "cli-bench.yaml"), suite)
	s, err := clitask.LoadSuite(filepath.Join(dir, "cli-bench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tk := range s.Tasks {
		ids = append(ids, tk.ID)
	}
	if got := strings.Join(ids, " "); got != "b inline a" {
		t.Fatalf("tasks %q, want %q", got, "b inline a")
	}
	writeFile(t, filepath.Join(dir, "tasks", "nested.yaml"), task("c")+"- file://a.yaml\n")
	_, err = clitask.LoadSuite(filepath.Join(dir, "cli-bench.yaml"))
	var se *clitask.SuiteError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "nested.yaml:5:3: /1: a task file cannot include other task files") {
		t.Fatalf("nested include: %v", err)
	}
}

// panicky is an assertion whose check panics.
type panicky struct{}

func (panicky) Kind() string { return "panicky" }

func (panicky) Check(context.Context, *assert.Env) assert.Result { panic("boom") }

// Task.Check runs each assertion through assert.Run: a panicking check is
// status error, and the others still run.
func TestTaskCheckRecovers(t *testing.T) {
	ok, _ := assert.Decode([]byte(`{"exit_code": 0}`))
	task := &clitask.Task{ID: "t", Assert: []assert.Assertion{panicky{}, ok, nil}}
	passed, res := task.Check(context.Background(), clitask.MemorySource(&clitask.Trace{Commands: []clitask.Command{{Command: "true"}}}))
	if passed || len(res) != 3 || res[0].Status != assert.StatusError || !strings.Contains(res[0].Details, "panicked") ||
		res[1].Status != assert.StatusPassed || res[2].Status != assert.StatusFailed {
		t.Fatalf("passed %v, results %+v", passed, res)
	}
}
