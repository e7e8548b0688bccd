package clitask_test

import (
	"context"
	"fmt"
	"os"
	"testing/fstest"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
)

// A recorded trace checked with single-key cli-bench specs.
func Example() {
	trace := &clitask.Trace{Commands: []clitask.Command{
		{Command: "git push --dry-run origin main", Stdout: "To origin\n"},
		{Command: "git push origin main", ExitCode: 1, Stderr: "rejected\n"},
	}}
	env := assert.NewEnv()
	clitask.Attach(env, clitask.MemorySource(trace))
	for _, spec := range []string{
		`{"exit_code": 1}`,
		`{"not_ran": "git push(?!.*--dry-run)"}`,
		`{"run_count": {"pattern": "npm install [react", "max": 0}}`,
	} {
		a, err := assert.Decode([]byte(spec))
		if err != nil {
			fmt.Println(err)
			continue
		}
		res := assert.Run(context.Background(), a, env)
		fmt.Printf("%s %s: %s\n", res.Status, a.Kind(), res.Details)
	}
	// Output:
	// passed exit_code: The last command, "git push origin main", exited 1 as expected.
	// failed not_ran: Command 2, "git push origin main", matches "git push(?!.*--dry-run)", which must not run.
	// passed run_count: 0 of 2 commands match "npm install [react", expected at most 0 ("npm install [react" is not a valid regular expression, so it was matched as plain text: error parsing regexp: unterminated [] set in `npm install [react`).
}

// A harness hands its agent a recording shell and checks the task against
// what the shell recorded.
func ExampleShell() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	sh := clitask.NewShell(clitask.Executor{Dir: dir})
	defer sh.Close()

	// The agent's commands.
	sh.Run(context.Background(), "echo 'hello' > greeting.txt")
	sh.Run(context.Background(), "cat greeting.txt")

	suite, err := clitask.ParseSuite("cli-bench.yaml", []byte(`
cli: sh
tasks:
  - id: greet
    intent: Write hello to greeting.txt and show it.
    assert:
      - output_equals: hello
      - file_contains: {path: greeting.txt, text: hello}
      - verify: {run: "wc -l < greeting.txt", output_equals: "1"}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	task, _ := suite.Task("greet")
	passed, results := task.Check(context.Background(), sh)
	for _, r := range results {
		fmt.Println(r.Kind, r.Status)
	}
	fmt.Println("task passed:", passed)
	// Output:
	// output_equals passed
	// file_contains passed
	// verify passed
	// task passed: true
}

// Loading errors name the file, line and column of each problem.
func ExampleParseSuite() {
	_, err := clitask.ParseSuite("cli-bench.yaml", []byte(`cli: git
tasks:
  - id: commit
    intent: Commit the change once.
    assert:
      - run_count: {pattern: git commit, min: 2, max: 1}
      - exit_code: 0
        ran: git commit
    difficulty: trivial
`))
	fmt.Println(err)
	// Output:
	// cli-bench.yaml:6:50: /tasks/0/assert/0/run_count/max: run_count: max 1 is less than min 2
	// cli-bench.yaml:7:9: /tasks/0/assert/1: an assert item has exactly one key, its kind (such as exit_code: 0); this one has 2: "exit_code", "ran"
	// cli-bench.yaml:9:5: /tasks/0/difficulty: value must be one of "easy", "medium", "hard"
}

// A snapshot's cli/ folder read through any fs.FS: trace.json is read once,
// within the size cap, and a bad file is an error for the checks.
func ExampleFolderSource() {
	snapshot := fstest.MapFS{"trace.json": {Data: []byte(`{"commands": [
	  {"command": "jq --version", "exit_code": 0, "stdout": "jq-1.7.1\n"}
	]}`)}}
	env := assert.NewEnv()
	clitask.Attach(env, clitask.FolderSource(snapshot, "", 0))
	for _, spec := range []string{`{"output_contains": "jq-1.7"}`, `{"file_exists": "out.txt"}`} {
		a, _ := assert.Decode([]byte(spec))
		res := assert.Run(context.Background(), a, env)
		fmt.Printf("%s %s: %s\n", res.Status, a.Kind(), res.Details)
	}
	// Output:
	// passed output_contains: The stdout of the last command, "jq --version", contains "jq-1.7".
	// error file_exists: cannot check "out.txt": the trace has no workdir
}
