package command

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// With --runs, --timeout bounds each run's evaluation on its own (rule
// 24): runs whose judge never answers are each cut short after the timeout
// (their phrase an error saying so) while a run that needs no judge
// passes, the benchmark is still printed, and the exit follows the
// verdict. Each of the runs gets the whole timeout: with more slow runs
// than three rounds of workers, the batch takes at least three timeouts,
// where one deadline shared by the batch (or none) would not.
func TestEvalRunsTimeoutPerRun(t *testing.T) {
	const timeout = 300 * time.Millisecond
	hang := make(chan struct{})
	judge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // never answers in time; lets go so that a run without a deadline ends
		case <-hang:
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
		http.Error(w, "the judge is away", http.StatusBadRequest) // not retried
	}))
	defer judge.Close()
	defer close(hang)

	dir := t.TempDir()
	writeFile(t, dir, "fast/sandbox/voice/transcript.txt", "Agent: the request was approved\nCaller: great\n")
	slow := 2*runtime.GOMAXPROCS(0) + 1
	for i := range slow {
		// Each transcript differs, so that no answer is shared (cached).
		writeFile(t, dir, fmt.Sprintf("slow-%03d/sandbox/voice/transcript.txt", i),
			fmt.Sprintf("Agent: good news, the payer said yes to request %d\nCaller: great\n", i))
	}
	criteria := writeFile(t, dir, "criteria.json",
		`[{"label": "confirmed", "assertion": {"assert": "voice-transcript", "speaker": "agent", "contains": ["the request was approved"]}}]`)

	start := time.Now()
	stdout, stderr, code := runAssay(t, []string{"ASSAY_JUDGE_URL=" + judge.URL, "ASSAY_JUDGE_MODEL=m"},
		"eval", "--runs", filepath.Join(dir), "--criteria", criteria, "--timeout", timeout.String(), "--format", "jsonl")
	took := time.Since(start)
	if code != exitFail {
		t.Errorf("code %d, want %d (the benchmark is not a pass)\nstderr:\n%s", code, exitFail, stderr)
	}
	records := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(records) != slow+2 || !strings.HasPrefix(records[len(records)-1], `{"benchmark":`) {
		t.Fatalf("%d lines, want %d runs and the benchmark:\n%s", len(records), slow+1, stdout)
	}
	if !strings.HasPrefix(records[0], `{"run":"fast",`) || !strings.Contains(records[0], `"verdict":"pass"`) {
		t.Errorf("the run that needs no judge did not pass: %s", records[0])
	}
	timedOut := regexp.MustCompile(`"status":"error".*evaluation timed out after 300ms`)
	for _, rec := range records[1 : slow+1] {
		if !timedOut.MatchString(rec) {
			t.Errorf("a slow run was not cut short by its timeout: %s", rec)
		}
	}
	if least := 3 * timeout; took < least {
		t.Errorf("the batch took %s, less than the %s its runs take when each has its own %s", took, least, timeout)
	}
	if took > 20*time.Second {
		t.Errorf("the batch took %s past a %s timeout per run", took, timeout)
	}
}
