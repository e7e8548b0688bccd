package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// JSON nested millions deep, in every file assay reads as JSON, is bad
// input or an error result: never the stack overflow that a recursive
// parser dies of (which no recover catches, so the process would end with
// a Go stack trace).
func TestDeepJSONNeverCrashes(t *testing.T) {
	deep := strings.Repeat("[", 20_000_000)
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deepCriteria := write("deep-criteria.json", deep)
	for _, f := range []string{"sb/fhir/deep.json", "sb/portal/state.json", "sb/voice/transcript.json", "sb/cli/trace.json", "sb/sftp/deep.json", "sb/run.json"} {
		write(f, deep)
	}
	criteria := write("criteria.json", `[
		{"label": "fhir", "assertion": {"assert": "fhir-resource-state", "resource_type": "Patient"}},
		{"label": "portal", "assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "r", "key": "k"}}},
		{"label": "voice", "assertion": {"assert": "voice-transcript", "contains": ["hi"]}},
		{"label": "sftp", "assertion": {"assert": "sftp-file-present", "path": "deep.json", "parse_json": true, "fields": [{"path": "a", "expected": 1}]}}
	]`)
	for _, args := range [][]string{
		{"eval", "--criteria", deepCriteria, "--sandbox", filepath.Join(dir, "sb")},
		{"validate", deepCriteria},
		{"eval", "--criteria", criteria, "--sandbox", filepath.Join(dir, "sb"), "--entity", "e"},
		{"check", "--suite", write("suite.yaml", "cli: sh\ntasks:\n  - id: t\n    intent: x\n    assert:\n      - exit_code: 0\n"), "--trace", filepath.Join(dir, "sb", "cli", "trace.json")},
	} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "ASSAY_TEST_RUN_MAIN=1")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() < 1 || exit.ExitCode() > 2 {
			t.Errorf("%v: %v; want exit 1 or 2", args[:2], err)
		}
		if s := stderr.String(); strings.Contains(s, "goroutine ") || strings.Contains(s, "stack overflow") {
			t.Errorf("%v: a stack trace: %.300s", args[:2], s)
		}
	}
}
