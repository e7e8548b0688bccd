package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
)

// WriteSuite writes a cli-bench report in format f: JSON (assay check's
// contract), Text (each run with its assertions, the tasks not run, pass
// rates and thresholds) or JUnit (one testsuite per run, one testcase per
// assertion, and a "thresholds" testsuite whose violated error-behaviour
// thresholds are failures). A skipped assertion (a verify not run) is
// "skip" in text and <skipped> in JUnit; a run that judged nothing is
// "SKIP" in text.
func WriteSuite(w io.Writer, f Format, r *clitask.Report, o Options) error {
	switch f {
	case JSON:
		if o.Evidence {
			return writeJSON(w, withEvidence(r))
		}
		return writeJSON(w, r)
	case JUnit:
		return writeJUnit(w, "assay check", suiteSuites(r))
	case Text:
		names := RunNames(r.Runs)
		for i := range r.Runs {
			if err := WriteSuiteRunText(w, names[i], r.Runs[i], o); err != nil {
				return err
			}
		}
		return WriteSuiteSummaryText(w, r, o)
	}
	return fmt.Errorf("report: a cli-bench report cannot be written as %q", f)
}

// RunNames numbers the runs of each task and model (and help mode, when
// the run has one): "add [m] #2", "add [m, injected] #1". A run with a
// name (assay run --out) is called by it: "0007-add [m, injected]".
func RunNames(runs []clitask.RunResult) []string {
	name := RunNamer()
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = name(r)
	}
	return names
}

// RunNamer returns a function that names runs as RunNames does, one at a
// time in order, for callers that stream runs as they are judged.
func RunNamer() func(clitask.RunResult) string {
	seen := map[string]int{}
	return func(r clitask.RunResult) string {
		tag := " [" + r.Model + "]"
		if r.HelpMode != "" {
			tag = " [" + r.Model + ", " + r.HelpMode + "]"
		}
		if r.Run != "" {
			return r.Run + tag
		}
		key := r.TaskID + tag
		seen[key]++
		return key + " #" + strconv.Itoa(seen[key])
	}
}

// WriteSuiteRunText writes one run and its assertions, as assay check
// streams them while it judges.
func WriteSuiteRunText(w io.Writer, name string, run clitask.RunResult, o Options) error {
	var b strings.Builder
	st := assert.StatusPassed
	if !run.Passed {
		st = assert.StatusFailed
	}
	m := mark(st, o)
	if run.Skipped {
		m = skipMark(o)
	}
	fmt.Fprintf(&b, "%s %s\n", m, Escape(name))
	if run.Error != "" {
		fmt.Fprintf(&b, "      %-6s attempt: %s\n", assert.StatusError, Escape(run.Error))
	}
	if why := stoppedText(run.Stopped); why != "" {
		fmt.Fprintf(&b, "      %-6s %s\n", "stop", why)
	}
	for _, a := range run.Assertions {
		status := string(a.Status)
		if a.Skipped {
			status = "skip"
		}
		fmt.Fprintf(&b, "      %-6s %s: %s\n", status, Escape(a.Kind), Escape(a.Details))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// stoppedText says how a run was cut short, "" when it was not.
func stoppedText(stopped string) string {
	switch stopped {
	case "":
		return ""
	case clitask.StoppedTimeout:
		return "timeout: the run reached its timeout before the model was done; it is judged on what it did"
	case clitask.StoppedMaxTurns:
		return "max_turns: the model made the calls max_turns allows and was not done; the run is judged on what it did"
	}
	return Escape(stopped) + ": the run was cut short; it is judged on what it did"
}

// WriteSuiteSummaryText writes the tasks not run, the pass rates and the
// thresholds.
func WriteSuiteSummaryText(w io.Writer, r *clitask.Report, o Options) error {
	var b strings.Builder
	passed, skipped := 0, 0
	for _, run := range r.Runs {
		switch {
		case run.Passed:
			passed++
		case run.Skipped:
			skipped++
		}
	}
	fmt.Fprintf(&b, "\n%d passed, %d failed", passed, len(r.Runs)-passed-skipped)
	if skipped > 0 {
		fmt.Fprintf(&b, ", %d not judged (every assertion skipped)", skipped)
	}
	b.WriteString("\n")
	if n := r.SkippedAssertions(); n > 0 {
		fmt.Fprintf(&b, "%d verify %s not run (verify commands skipped): each run is judged on its other assertions\n",
			n, plural(n, "assertion", "assertions"))
	}
	if len(r.NotRun) > 0 {
		fmt.Fprintf(&b, "\nnot run: %s\n", Escape(strings.Join(r.NotRun, ", ")))
	}
	if len(r.PassRates) > 0 {
		b.WriteString("\npass rates:\n")
		for _, m := range sortedKeys(r.PassRates) {
			pr := r.PassRates[m]
			fmt.Fprintf(&b, "  %-30s %d/%d  %s\n", Escape(m), pr.Passed, pr.Total, Percent(pr.Rate))
		}
	}
	if len(r.ByHelpMode) > 0 {
		b.WriteString("\npass rates by help mode:\n")
		for _, mode := range sortedKeys(r.ByHelpMode) {
			for _, m := range sortedKeys(r.ByHelpMode[mode]) {
				pr := r.ByHelpMode[mode][m]
				fmt.Fprintf(&b, "  %-13s %-30s %d/%d  %s\n", mode, m, pr.Passed, pr.Total, Percent(pr.Rate))
			}
		}
	}
	if len(r.Usage) > 0 {
		b.WriteString("\nusage:\n")
		for _, m := range sortedKeys(r.Usage) {
			u := r.Usage[m]
			fmt.Fprintf(&b, "  %-30s %d turns, %d prompt + %d completion tokens, %ss\n", m, u.Turns, u.PromptTokens,
				u.CompletionTokens, Decimal(float64(u.WallMS)/1000))
		}
	}
	if len(r.Thresholds) > 0 {
		b.WriteString("\nthresholds:\n")
		for _, t := range r.Thresholds {
			state := "ok"
			if t.Violated {
				state = "VIOLATED (" + t.Behavior + ")"
				if o.Color {
					state = red + state + reset
				}
			}
			fmt.Fprintf(&b, "  %-30s %s, minimum %s  %s\n", Escape(t.Model), Percent(t.Rate), Percent(t.Minimum), state)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Percent renders a rate with at most one decimal: 100%, 33.3%.
func Percent(p float64) string {
	return strconv.FormatFloat(float64(int64(p*10+0.5))/10, 'f', -1, 64) + "%"
}

func suiteSuites(r *clitask.Report) []junitSuite {
	var suites []junitSuite
	for i, name := range RunNames(r.Runs) {
		run := r.Runs[i]
		props := []junitProperty{{Name: "task_id", Value: run.TaskID}, {Name: "model", Value: run.Model}}
		for _, p := range []junitProperty{{Name: "help_mode", Value: run.HelpMode}, {Name: "run", Value: run.Run}, {Name: "stopped", Value: run.Stopped}} {
			if p.Value != "" {
				props = append(props, p)
			}
		}
		props = append(props, junitProperty{Name: "passed", Value: strconv.FormatBool(run.Passed)})
		if run.Skipped {
			props = append(props, junitProperty{Name: "skipped", Value: "true"})
		}
		s := junitSuite{Name: name, Properties: &junitProperties{Property: props}}
		if run.Error != "" {
			s.add(junitCase{Name: "attempt", Classname: "clitask." + run.TaskID,
				Error: &junitMessage{Message: run.Error, Type: "error", Text: run.Error}}, 0)
		}
		for j, a := range run.Assertions {
			tc := junitCase{Name: fmt.Sprintf("%d %s", j+1, a.Kind), Classname: "clitask." + run.TaskID}
			switch a.Status {
			case assert.StatusFailed:
				tc.Failure = &junitMessage{Message: a.Details, Type: "failed", Text: a.Details}
			case assert.StatusError:
				tc.Error = &junitMessage{Message: a.Details, Type: "error", Text: a.Details}
			}
			if a.Skipped {
				tc.Error, tc.Skipped = nil, &junitMessage{Message: a.Details}
			}
			s.add(tc, 0)
		}
		suites = append(suites, s)
	}
	if len(r.Thresholds) > 0 {
		s := junitSuite{Name: "thresholds", Properties: &junitProperties{Property: []junitProperty{{Name: "behavior", Value: r.Thresholds[0].Behavior}}}}
		for _, t := range r.Thresholds {
			tc := junitCase{Name: t.Model, Classname: "clitask.thresholds"}
			if t.Violated && t.Behavior == clitask.BehaviorError {
				tc.Failure = &junitMessage{Message: fmt.Sprintf("pass rate %s is below the minimum %s", Percent(t.Rate), Percent(t.Minimum)), Type: "threshold"}
			}
			s.add(tc, 0)
		}
		suites = append(suites, s)
	}
	return suites
}

// withEvidence is a cli-bench report whose assertions carry their evidence
// (after details), for assay check --evidence.
func withEvidence(r *clitask.Report) any {
	type assertion struct {
		clitask.AssertionResult
		Evidence any `json:"evidence"`
	}
	type run struct {
		clitask.RunResult
		Assertions []assertion `json:"assertions"`
	}
	runs := make([]run, len(r.Runs))
	for i, rr := range r.Runs {
		runs[i].RunResult = rr
		runs[i].Assertions = make([]assertion, len(rr.Assertions))
		for j, a := range rr.Assertions {
			runs[i].Assertions[j] = assertion{a, a.Evidence}
		}
	}
	return struct {
		Runs       []run                       `json:"runs"`
		NotRun     []string                    `json:"not_run"`
		PassRates  map[string]clitask.PassRate `json:"pass_rates"`
		Thresholds []clitask.ThresholdResult   `json:"thresholds"`
	}{runs, r.NotRun, r.PassRates, r.Thresholds}
}
