package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/report"
	"gopkg.in/yaml.v3"
)

func init() {
	register("check", subcommand{summary: "evaluate cli-bench tasks against recorded traces",
		usage: "assay check --suite FILE --trace FILE [--task ID] [--format text|json|junit] [--evidence] [--no-verify] [--no-color]", run: runCheck})
	extraSchemas["suite"] = func() json.RawMessage { return json.RawMessage(clitask.SuiteSchema) }
	yamlValidator = validateSuiteYAML
}

func runCheck(ctx context.Context, c *cli, args []string) int {
	fs := newFlags("check", c)
	suitePath := fs.String("suite", "", "cli-bench suite `FILE` (cli-bench.yaml)")
	tracePath := fs.String("trace", "", "trace `FILE`: {\"runs\": [{\"task_id\", \"model\", \"workdir\", \"commands\"}]} or one run object")
	taskID := fs.String("task", "", "check only the runs of the task with this `ID`")
	formatName := fs.String("format", "text", "output `format`: text, json or junit")
	noColor := fs.Bool("no-color", false, "never colour the text output (NO_COLOR does the same)")
	evidence := fs.Bool("evidence", false, "with --format json, add each assertion's evidence")
	noVerify := fs.Bool("no-verify", false, "run none of the suite's verify commands: each is reported as not run (skipped) and each run is judged on its other assertions")
	rest, ok := parseFlags(fs, c, args)
	if !ok {
		return exitUsage
	}
	out, err := report.ParseFormat(*formatName, report.Text, report.JSON, report.JUnit)
	if err != nil {
		return c.badInput("check: --format: %v", err)
	}
	switch {
	case len(rest) > 0:
		return c.badInput("check: unexpected arguments %s", quoteList(rest))
	case *suitePath == "":
		return c.badInput("check: --suite FILE is required")
	case *tracePath == "":
		return c.badInput("check: --trace FILE is required")
	}
	suite, ok := c.loadSuite("check", *suitePath)
	if !ok {
		return exitUsage
	}
	runs, err := clitask.ReadRuns(*tracePath)
	if err != nil {
		return c.badInput("check: %v", err)
	}
	// Text streams each run as it is judged; progress goes to stderr when
	// it is a terminal.
	opts := c.textOptions(*noColor)
	opts.Evidence = *evidence
	var prog *progress
	name := report.RunNamer()
	var streamErr error
	onRun := func(r clitask.RunResult, done, total int) {
		if prog == nil {
			prog = newProgress(c.stderr, total, "runs judged")
		}
		prog.pause()
		if out == report.Text && streamErr == nil {
			streamErr = report.WriteSuiteRunText(c.stdout, name(r), r, opts)
		}
		prog.step()
	}

	if n := verifyCount(suite, runs, *taskID); n > 0 && !*noVerify {
		// verify runs a suite author's commands here: say so first.
		c.eprintf("check: note: %d verify %s of %s will run on this machine (sh -c in each run's workdir); --no-verify skips them",
			n, pluralWord(n, "command", "commands"), *suitePath)
	}
	result, err := suite.Check(ctx, runs, clitask.CheckOptions{TaskID: *taskID, OnRun: onRun, NoVerify: *noVerify})
	if prog != nil {
		prog.done()
	}
	if err != nil {
		var re *clitask.RunError
		switch {
		case errors.As(err, &re):
			return c.badInput("check: %s: %v (the suite's tasks: %s)", *tracePath, err, taskList(suite))
		case errors.Is(err, clitask.ErrUnknownTask):
			return c.badInput("check: --task: %v (the suite's tasks: %s)", err, taskList(suite))
		}
		if ctx.Err() != nil {
			c.eprintf("check: interrupted: %v", ctx.Err())
			return exitFail
		}
		return c.badInput("check: %v", err)
	}
	if out == report.Text {
		err = errors.Join(streamErr, report.WriteSuiteSummaryText(c.stdout, result, opts))
	} else {
		err = report.WriteSuite(c.stdout, out, result, opts)
	}
	if err != nil {
		c.eprintf("check: writing output: %v", err)
		return exitUsage
	}
	if len(result.Runs) == 0 {
		c.eprintf("check: warning: %s holds no run of the tasks checked", *tracePath)
	}
	return c.suiteExit("check", suite, result, *taskID == "")
}

// suiteExit is the exit code of check and run: with thresholds and the
// whole suite judged, the thresholds decide (each violated one is named on
// stderr, an informational one as a warning); otherwise every run must
// pass.
func (c *cli) suiteExit(name string, suite *clitask.Suite, result *clitask.Report, whole bool) int {
	if suite.Thresholds != nil && whole {
		code := exitOK
		for _, t := range result.Thresholds {
			if !t.Violated {
				continue
			}
			level := "warning"
			if t.Behavior == clitask.BehaviorError {
				level, code = "error", exitFail
			}
			c.eprintf("%s: %s: model %s passed %s of its runs, below the minimum %s (behavior: %s)",
				name, level, t.Model, report.Percent(t.Rate), report.Percent(t.Minimum), t.Behavior)
		}
		return code
	}
	if result.Passed() {
		return exitOK
	}
	return exitFail
}

// loadSuite loads a suite named on the command line, printing every
// problem it has.
func (c *cli) loadSuite(name, path string) (*clitask.Suite, bool) {
	suite, err := clitask.LoadSuite(path)
	if err != nil {
		var se *clitask.SuiteError
		if errors.As(err, &se) {
			for _, p := range se.Problems {
				c.eprintf("%s: %s", name, p)
			}
			return nil, false
		}
		c.badInput("%s: %v", name, err)
		return nil, false
	}
	return suite, true
}

// verifyCount counts the verify assertions the check will run: those of
// each run's task.
func verifyCount(s *clitask.Suite, runs []clitask.Run, taskID string) int {
	n := 0
	for _, r := range runs {
		if taskID != "" && r.TaskID != taskID {
			continue
		}
		if t, ok := s.Task(r.TaskID); ok {
			for _, a := range t.Assert {
				if a.Kind() == clitask.KindVerify {
					n++
				}
			}
		}
	}
	return n
}

func taskList(s *clitask.Suite) string {
	ids := make([]string, len(s.Tasks))
	for i, t := range s.Tasks {
		ids[i] = t.ID
	}
	return strings.Join(ids, ", ")
}

// validateSuiteYAML validates a cli-bench suite file, or a task file (a
// list of tasks, as file:// includes hold), for assay validate: includes
// are read as eval reads evidence, each file within lim.maxFile and all
// of them within lim.maxTotal.
func validateSuiteYAML(path string, data []byte, lim readLimits) []problem {
	var root yaml.Node
	var err error
	var suite *clitask.Suite
	if yaml.NewDecoder(bytes.NewReader(data)).Decode(&root) == nil && len(root.Content) > 0 && root.Content[0].Kind == yaml.SequenceNode {
		var tasks []*clitask.Task
		tasks, err = clitask.ParseTasks(path, data)
		suite = &clitask.Suite{Tasks: tasks}
	} else {
		suite, err = clitask.ParseSuite(path, data, clitask.MaxFileSize(lim.maxFile), clitask.MaxTotalSize(lim.maxTotal))
	}
	if err == nil {
		// Valid, but a pattern that is not a regular expression is matched
		// as a substring: rarely what its author meant.
		var warnings []problem
		for _, w := range suite.PatternFallbacks() {
			warnings = append(warnings, problem{file: path, message: w, warning: true})
		}
		return warnings
	}
	var se *clitask.SuiteError
	if !errors.As(err, &se) {
		return []problem{{file: path, message: err.Error()}}
	}
	out := make([]problem, len(se.Problems))
	for i, p := range se.Problems {
		out[i] = problem{file: p.File, line: p.Line, column: p.Column, pointer: p.Pointer, message: p.Message}
	}
	return out
}
