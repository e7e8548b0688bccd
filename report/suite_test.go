package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/report"
)

// suite is a cli-bench report: task add run twice by model m (a pass, then
// a failure), task rm run once by the default model with an error, task
// ls not run, and a threshold of m's that is violated.
func suite() *clitask.Report {
	return &clitask.Report{
		Runs: []clitask.RunResult{
			{TaskID: "add", Model: "m", Passed: true, Assertions: []clitask.AssertionResult{{Kind: "exit_code", Status: assert.StatusPassed, Passed: true, Details: "Exited 0."}}},
			{TaskID: "add", Model: "m", Assertions: []clitask.AssertionResult{
				{Kind: "exit_code", Status: assert.StatusPassed, Passed: true, Details: "Exited 0."},
				{Kind: "output_contains", Status: assert.StatusFailed, Details: "stdout lacks \"done\":\nline two"},
			}},
			{TaskID: "rm", Model: "default", Assertions: []clitask.AssertionResult{{Kind: "verify", Status: assert.StatusError, Details: "verify timed out"}}},
		},
		NotRun:     []string{"ls"},
		PassRates:  map[string]clitask.PassRate{"m": {Passed: 1, Total: 2, Rate: 50}, "default": {Passed: 0, Total: 1, Rate: 0}},
		Thresholds: []clitask.ThresholdResult{{Model: "m", Minimum: 66.66, Rate: 50, Violated: true, Behavior: clitask.BehaviorError}},
	}
}

func TestRunNames(t *testing.T) {
	got := report.RunNames(suite().Runs)
	want := []string{"add [m] #1", "add [m] #2", "rm [default] #1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	name := report.RunNamer()
	for i, r := range suite().Runs {
		if n := name(r); n != want[i] {
			t.Errorf("RunNamer: run %d named %q, want %q", i, n, want[i])
		}
	}
}

func TestPercent(t *testing.T) {
	for in, want := range map[float64]string{100: "100%", 0: "0%", 33.333: "33.3%", 66.66: "66.7%", 12.04: "12%"} {
		if got := report.Percent(in); got != want {
			t.Errorf("Percent(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteSuite(t *testing.T) {
	t.Run("text", func(t *testing.T) {
		var b bytes.Buffer
		if err := report.WriteSuite(&b, report.Text, suite(), report.Options{}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{
			"PASS  add [m] #1\n      passed exit_code: Exited 0.\n",
			"FAIL  add [m] #2\n",
			"      failed output_contains: stdout lacks \"done\":\\nline two\n",
			"FAIL  rm [default] #1\n      error  verify: verify timed out\n",
			"\n1 passed, 2 failed\n",
			"\nnot run: ls\n",
			"\npass rates:\n  default                        0/1  0%\n  m                              1/2  50%\n",
			"\nthresholds:\n  m                              50%, minimum 66.7%  VIOLATED (error)\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("text lacks %q:\n%s", want, out)
			}
		}
		b.Reset()
		_ = report.WriteSuite(&b, report.Text, suite(), report.Options{Color: true})
		if !strings.Contains(b.String(), "\x1b[31mVIOLATED (error)\x1b[0m") {
			t.Errorf("no colour on a violated threshold:\n%s", b.String())
		}
	})
	t.Run("json", func(t *testing.T) {
		var b bytes.Buffer
		if err := report.WriteSuite(&b, report.JSON, suite(), report.Options{}); err != nil {
			t.Fatal(err)
		}
		var back clitask.Report
		if err := json.Unmarshal(b.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		if len(back.Runs) != 3 || back.Runs[1].Assertions[1].Status != assert.StatusFailed || back.PassRates["m"].Rate != 50 || !back.Thresholds[0].Violated {
			t.Errorf("%+v", back)
		}
	})
	t.Run("junit", func(t *testing.T) {
		var b bytes.Buffer
		if err := report.WriteSuite(&b, report.JUnit, suite(), report.Options{}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Suites   []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Name      string `xml:"name,attr"`
					Classname string `xml:"classname,attr"`
					Failure   *struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
					Error *struct {
						Message string `xml:"message,attr"`
					} `xml:"error"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		// Four assertions and one threshold: two failures (one of them the
		// threshold), one error.
		if doc.Name != "assay check" || doc.Tests != 5 || doc.Failures != 2 || doc.Errors != 1 || len(doc.Suites) != 4 {
			t.Fatalf("%+v", doc)
		}
		if c := doc.Suites[1].Cases[1]; c.Name != "2 output_contains" || c.Classname != "clitask.add" || c.Failure == nil {
			t.Errorf("failing case %+v", c)
		}
		if c := doc.Suites[2].Cases[0]; c.Error == nil || c.Error.Message != "verify timed out" {
			t.Errorf("error case %+v", c)
		}
		if s := doc.Suites[3]; s.Name != "thresholds" || s.Cases[0].Failure == nil || s.Cases[0].Failure.Message != "pass rate 50% is below the minimum 66.7%" {
			t.Errorf("thresholds %+v", s)
		}
	})
	t.Run("jsonl is not a suite format", func(t *testing.T) {
		if err := report.WriteSuite(&bytes.Buffer{}, report.JSONL, suite(), report.Options{}); err == nil || !strings.Contains(err.Error(), "cannot be written") {
			t.Errorf("err = %v", err)
		}
	})
}

// An informational threshold is reported, but is no JUnit failure.
func TestWriteSuiteInformationalThreshold(t *testing.T) {
	r := suite()
	r.Thresholds[0].Behavior = clitask.BehaviorInformational
	var b bytes.Buffer
	if err := report.WriteSuite(&b, report.JUnit, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `type="threshold"`) || !strings.Contains(b.String(), `name="behavior" value="informational"`) {
		t.Errorf("%s", b.String())
	}
}

// runReport is a report of assay run: named runs with help modes, one
// whose attempt broke down, pass rates per help mode, and usage.
func runReport() *clitask.Report {
	ok := []clitask.AssertionResult{{Kind: "exit_code", Status: assert.StatusPassed, Passed: true, Details: "Exited 0."}}
	return &clitask.Report{
		Runs: []clitask.RunResult{
			{Run: "0001-add", TaskID: "add", Model: "m", HelpMode: "injected", Passed: true, Assertions: ok},
			{Run: "0002-add", TaskID: "add", Model: "m", HelpMode: "none", Error: "model call 2: 127.0.0.1:9 answered 500", Assertions: ok},
		},
		NotRun:     []string{},
		PassRates:  map[string]clitask.PassRate{"m": {Passed: 1, Total: 2, Rate: 50}},
		ByHelpMode: map[string]map[string]clitask.PassRate{"injected": {"m": {Passed: 1, Total: 1, Rate: 100}}, "none": {"m": {Passed: 0, Total: 1, Rate: 0}}},
		Usage:      map[string]clitask.Usage{"m": {Turns: 5, PromptTokens: 1200, CompletionTokens: 80, WallMS: 2500}},
		Thresholds: []clitask.ThresholdResult{},
	}
}

func TestWriteRunReport(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteSuite(&b, report.Text, runReport(), report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"PASS  0001-add [m, injected]\n      passed exit_code: Exited 0.\n",
		"FAIL  0002-add [m, none]\n      error  attempt: model call 2: 127.0.0.1:9 answered 500\n      passed exit_code",
		"\npass rates by help mode:\n  injected      m                              1/1  100%\n  none          m                              0/1  0%\n",
		"\nusage:\n  m                              5 turns, 1200 prompt + 80 completion tokens, 2.5s\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := report.WriteSuite(&b, report.JSON, runReport(), report.Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Runs []map[string]any }
	json.Unmarshal(b.Bytes(), &doc)
	if doc.Runs[1]["error"] != "model call 2: 127.0.0.1:9 answered 500" || doc.Runs[1]["help_mode"] != "none" || doc.Runs[1]["run"] != "0002-add" {
		t.Errorf("run JSON %v", doc.Runs[1])
	}
	for _, key := range []string{`"pass_rates"`, `"by_help_mode": {`, `"usage": {`, `"thresholds"`} {
		if !strings.Contains(b.String(), key) {
			t.Errorf("JSON lacks %s:\n%s", key, b.String())
		}
	}
	if i, j := strings.Index(b.String(), `"by_help_mode"`), strings.Index(b.String(), `"usage"`); !(strings.Index(b.String(), `"pass_rates"`) < i && i < j) {
		t.Errorf("by_help_mode and usage follow pass_rates:\n%s", b.String())
	}
	if !strings.Contains(b.String(), `"m": {
      "turns": 5,
      "prompt_tokens": 1200,
      "completion_tokens": 80,
      "wall_ms": 2500
    }`) {
		t.Errorf("usage JSON:\n%s", b.String())
	}
	b.Reset()
	if err := report.WriteSuite(&b, report.JUnit, runReport(), report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<property name="help_mode" value="none"></property>`, `<property name="run" value="0002-add"></property>`,
		"<testcase name=\"attempt\" classname=\"clitask.add\" time=\"0\">\n      <error message=\"model call 2: 127.0.0.1:9 answered 500\" type=\"error\">"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("JUnit lacks %s:\n%s", want, b.String())
		}
	}
}

// A verify skipped (check --no-verify) is "skip" in text and <skipped> in
// JUnit, not an error; the summary counts it, and a run whose every
// assertion was skipped is "SKIP", neither passed nor failed. In JSON both
// carry "skipped": true.
func TestWriteSuiteSkippedVerify(t *testing.T) {
	skipped := clitask.AssertionResult{Kind: "verify", Status: assert.StatusError, Skipped: true,
		Details: `Verify "cat x" was not run: verify commands are skipped.`}
	r := &clitask.Report{
		Runs: []clitask.RunResult{
			{TaskID: "add", Model: "m", Passed: true, Assertions: []clitask.AssertionResult{
				{Kind: "exit_code", Status: assert.StatusPassed, Passed: true, Details: "Exited 0."}, skipped}},
			{TaskID: "check", Model: "m", Skipped: true, Assertions: []clitask.AssertionResult{skipped}},
		},
		NotRun: []string{}, PassRates: map[string]clitask.PassRate{"m": {Passed: 1, Total: 1, Rate: 100}},
	}
	var b bytes.Buffer
	if err := report.WriteSuite(&b, report.Text, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"PASS  add [m] #1\n      passed exit_code: Exited 0.\n      skip   verify: Verify \"cat x\" was not run: verify commands are skipped.\n",
		"SKIP  check [m] #1\n      skip   verify:",
		"\n1 passed, 0 failed, 1 not judged (every assertion skipped)\n2 verify assertions not run (verify commands skipped): each run is judged on its other assertions\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := report.WriteSuite(&b, report.JSON, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(b.String(), `"skipped": true`) != 3 {
		t.Errorf("JSON:\n%s", b.String())
	}
	b.Reset()
	if err := report.WriteSuite(&b, report.JUnit, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Errors int `xml:"errors,attr"`
		Suites []struct {
			Skipped int `xml:"skipped,attr"`
			Errors  int `xml:"errors,attr"`
			Cases   []struct {
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Errors != 0 || len(doc.Suites) != 2 || doc.Suites[0].Skipped != 1 || doc.Suites[0].Errors != 0 ||
		doc.Suites[0].Cases[1].Skipped == nil || doc.Suites[0].Cases[1].Skipped.Message != skipped.Details {
		t.Errorf("JUnit %+v:\n%s", doc, b.String())
	}
}
