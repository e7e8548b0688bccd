package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/jsonenc"
)

// Run is the task result of one run of a benchmark, named by its folder.
type Run struct {
	Name   string
	Result assert.TaskResult
}

// MarshalJSON writes {"run": NAME, ...the task result's keys...}.
func (r Run) MarshalJSON() ([]byte, error) {
	task, err := jsonenc.Marshal(r.Result)
	if err != nil {
		return nil, err
	}
	name, err := jsonenc.Marshal(r.Name)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`{"run":`)
	b.Write(name)
	if rest := bytes.TrimPrefix(bytes.TrimSpace(task), []byte("{")); len(rest) > 1 {
		b.WriteByte(',')
		b.Write(rest)
	} else {
		b.WriteByte('}')
	}
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Run) UnmarshalJSON(data []byte) error {
	var name struct {
		Run *string `json:"run"`
	}
	if err := json.Unmarshal(data, &name); err != nil {
		return err
	}
	if name.Run == nil {
		return fmt.Errorf(`a run's result needs a "run" name`)
	}
	r.Name = *name.Run
	return json.Unmarshal(data, &r.Result)
}

// WriteBenchmark writes the results of many runs and their benchmark in
// format f. JSON is {"runs": [{"run": NAME, ...task result...}],
// "benchmark": {...}}; JSONL is one line per run then one
// {"benchmark": ...} line (WriteRunLine and WriteBenchmarkLine write them
// one at a time, for streaming); Text lists each run's criteria under its
// name, then the benchmark; JUnit has one testsuite per run.
func WriteBenchmark(w io.Writer, f Format, runs []Run, b assert.BenchmarkResult, o Options) error {
	switch f {
	case JSON:
		if runs == nil {
			runs = []Run{}
		}
		return writeJSON(w, struct {
			Runs      []Run                  `json:"runs"`
			Benchmark assert.BenchmarkResult `json:"benchmark"`
		}{runs, b})
	case JSONL:
		for _, r := range runs {
			if err := WriteRunLine(w, r); err != nil {
				return err
			}
		}
		return WriteBenchmarkLine(w, b)
	case JUnit:
		suites := make([]junitSuite, len(runs))
		for i, r := range runs {
			suites[i] = taskSuite(r.Name, r.Result)
		}
		return writeJUnit(w, "assay eval --runs", suites)
	case Text:
		for _, r := range runs {
			if err := WriteRunText(w, r, o); err != nil {
				return err
			}
		}
		return WriteBenchmarkText(w, b, len(runs), o)
	}
	return fmt.Errorf("report: a benchmark cannot be written as %q", f)
}

// WriteRunLine writes one run's result as a line of JSON.
func WriteRunLine(w io.Writer, r Run) error { return writeJSONLine(w, r) }

// WriteBenchmarkLine writes {"benchmark": ...} as a line of JSON.
func WriteBenchmarkLine(w io.Writer, b assert.BenchmarkResult) error {
	return writeJSONLine(w, struct {
		Benchmark assert.BenchmarkResult `json:"benchmark"`
	}{b})
}

// WriteRunText writes one run's criteria under a heading with its name,
// score and verdict.
func WriteRunText(w io.Writer, r Run, o Options) error {
	var b strings.Builder
	skipped := ""
	if r.Result.Counts.Skipped > 0 {
		skipped = fmt.Sprintf(", %d skipped", r.Result.Counts.Skipped)
	}
	fmt.Fprintf(&b, "== %s  score %.3f  verdict %s  (%d passed, %d failed, %d errors%s)\n", Escape(r.Name), r.Result.Score,
		verdictText(r.Result.Verdict, o), r.Result.Counts.Passed, r.Result.Counts.Failed, r.Result.Counts.Error, skipped)
	for _, cr := range r.Result.Criteria {
		if cr.Status != assert.StatusPassed {
			writeCriterion(&b, cr, o, "   ")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteBenchmarkText writes the benchmark: its score and verdict, the axes,
// and the verdict counts over n runs.
func WriteBenchmarkText(w io.Writer, bm assert.BenchmarkResult, n int, o Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\nbenchmark over %d runs: score %.3f  verdict %s\n", n, bm.Score, verdictText(bm.Verdict, o))
	for _, name := range sortedKeys(bm.Axes) {
		a := bm.Axes[name]
		fmt.Fprintf(&b, "  %-20s %.3f  (%d %s)\n", Escape(name), a.Score, a.Runs, plural(a.Runs, "run", "runs"))
	}
	fmt.Fprintf(&b, "verdicts: %d pass, %d partial, %d fail\n", bm.Verdicts.Pass, bm.Verdicts.Partial, bm.Verdicts.Fail)
	_, err := io.WriteString(w, b.String())
	return err
}

// ReadJSONL reads JSON lines written by WriteRunLine (a {"benchmark": ...}
// line is skipped, since a merge recomputes it) and returns the runs in the
// order read. Errors name the line.
func ReadJSONL(r io.Reader) ([]Run, error) {
	dec := json.NewDecoder(r)
	var runs []Run
	for line := 1; ; line++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return runs, nil
		} else if err != nil {
			return nil, fmt.Errorf("record %d: %w", line, err)
		}
		var probe struct {
			Benchmark json.RawMessage `json:"benchmark"`
		}
		if json.Unmarshal(raw, &probe) == nil && probe.Benchmark != nil {
			continue
		}
		var run Run
		if err := json.Unmarshal(raw, &run); err != nil {
			return nil, fmt.Errorf("record %d: %w", line, err)
		}
		runs = append(runs, run)
	}
}
