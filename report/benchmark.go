package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/jsonenc"
)

// Run is the task result of one run of a benchmark, named by its folder.
type Run struct {
	Name string
	// Shard is "K/N" when the run was judged as part of shard K of N
	// (assay eval --shard); it is written on the run's JSON line.
	Shard  string
	Result assert.TaskResult
}

// MarshalJSON writes {"run": NAME, "shard"?: "K/N", ...the task result's
// keys...}.
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
	if r.Shard != "" {
		shard, _ := jsonenc.Marshal(r.Shard)
		b.WriteString(`,"shard":`)
		b.Write(shard)
	}
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
		Run   *string `json:"run"`
		Shard string  `json:"shard"`
	}
	if err := json.Unmarshal(data, &name); err != nil {
		return err
	}
	if name.Run == nil {
		return fmt.Errorf(`a run's result needs a "run" name`)
	}
	r.Name, r.Shard = *name.Run, name.Shard
	return json.Unmarshal(data, &r.Result)
}

// WriteBenchmark writes the results of many runs and their benchmark in
// format f, as a BenchmarkWriter does, with b as the benchmark. JSON is
// {"runs": [{"run": NAME, ...task result...}], "benchmark": {...}}; JSONL
// is one line per run then one {"benchmark": ...} line; Text lists each
// run's failing criteria under its name, then the benchmark; JUnit has one
// testsuite per run; HTML is one self-contained page.
func WriteBenchmark(w io.Writer, f Format, runs []Run, b assert.BenchmarkResult, o Options) error {
	bw, err := NewBenchmarkWriter(w, f, o)
	if err != nil {
		return err
	}
	bw.final = &b
	for _, r := range runs {
		if err := bw.Add(r); err != nil {
			bw.discard()
			return err
		}
	}
	_, err = bw.Close()
	return err
}

// BenchmarkWriter writes a benchmark as its runs are judged: each run is
// written (or, for JUnit and HTML, spooled to a temporary file) and
// dropped, and only the benchmark's aggregates are kept
// (assert.BenchmarkBuilder), so writing a benchmark of any number of runs
// needs memory for one run and the criteria, not for every run.
type BenchmarkWriter struct {
	w       io.Writer
	f       Format
	o       Options
	builder assert.BenchmarkBuilder
	final   *assert.BenchmarkResult // WriteBenchmark's given benchmark
	n       int
	spool   *os.File // JUnit and HTML: the runs' parts, written at Close
	spoolW  *bufio.Writer
	junit   junitSuites // JUnit: the totals
	seconds float64     // JUnit: the time of every case
	err     error
}

// NewBenchmarkWriter returns a writer of a benchmark in format f (Text,
// JSON, JSONL, JUnit or HTML). Add each run in the order it should be
// listed, then Close.
func NewBenchmarkWriter(w io.Writer, f Format, o Options) (*BenchmarkWriter, error) {
	switch f {
	case Text, JSON, JSONL, JUnit, HTML:
	default:
		return nil, fmt.Errorf("report: a benchmark cannot be written as %q", f)
	}
	bw := &BenchmarkWriter{w: w, f: f, o: o}
	if (f == JUnit || f == HTML) && !o.Summary {
		spool, err := os.CreateTemp("", "assay-benchmark-*")
		if err != nil {
			return nil, fmt.Errorf("report: a benchmark in %s needs a temporary file: %w", f, err)
		}
		// The file is only ever read back through its handle.
		_ = os.Remove(spool.Name())
		bw.spool, bw.spoolW = spool, bufio.NewWriterSize(spool, 64<<10)
	}
	return bw, nil
}

// Add writes (or spools) one run and adds it to the benchmark.
func (bw *BenchmarkWriter) Add(r Run) error {
	if bw.err != nil {
		return bw.err
	}
	if r.Shard == "" {
		r.Shard = bw.o.Shard
	}
	bw.builder.Add(r.Name, r.Result)
	bw.n++
	switch bw.f {
	case JSONL:
		if !bw.o.Summary {
			bw.err = WriteRunLine(bw.w, r)
		}
	case Text:
		if !bw.o.Summary {
			bw.err = WriteRunText(bw.w, r, bw.o)
		}
	case JSON:
		if !bw.o.Summary {
			bw.err = bw.writeJSONRun(r)
		}
	case JUnit:
		if bw.o.Summary {
			break
		}
		s := taskSuite(r.Name, r.Result)
		bw.junit.Tests += s.Tests
		bw.junit.Failures += s.Failures
		bw.junit.Errors += s.Errors
		bw.seconds += s.seconds
		enc := xml.NewEncoder(bw.spoolW)
		enc.Indent("  ", "  ")
		if bw.err = enc.EncodeElement(s, xml.StartElement{Name: xml.Name{Local: "testsuite"}}); bw.err == nil {
			_, bw.err = bw.spoolW.WriteString("\n")
		}
	case HTML:
		if bw.spoolW != nil {
			bw.err = writeHTMLRun(bw.spoolW, bw.n, r)
		}
	}
	return bw.err
}

func (bw *BenchmarkWriter) writeJSONRun(r Run) error {
	data, err := jsonenc.Marshal(r)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if bw.n == 1 {
		b.WriteString("{\n  \"runs\": [\n    ")
	} else {
		b.WriteString(",\n    ")
	}
	if err := json.Indent(&b, data, "    ", "  "); err != nil {
		return err
	}
	_, err = bw.w.Write(b.Bytes())
	return err
}

// Close writes the benchmark (and, for JUnit and HTML, the runs spooled)
// and returns it.
func (bw *BenchmarkWriter) Close() (assert.BenchmarkResult, error) {
	defer bw.discard()
	bm := bw.builder.Result()
	if bw.final != nil {
		bm = *bw.final
	}
	if bw.err != nil {
		return bm, bw.err
	}
	var err error
	switch bw.f {
	case JSONL:
		err = writeJSONLine(bw.w, struct {
			Benchmark assert.BenchmarkResult `json:"benchmark"`
			Shard     string                 `json:"shard,omitempty"`
		}{bm, bw.o.Shard})
	case Text:
		err = WriteBenchmarkText(bw.w, bm, bw.n, bw.o)
	case JSON:
		err = bw.closeJSON(bm)
	case JUnit:
		err = bw.closeJUnit(bm)
	case HTML:
		err = bw.closeHTML(bm)
	}
	return bm, err
}

func (bw *BenchmarkWriter) closeJSON(bm assert.BenchmarkResult) error {
	data, err := jsonenc.Marshal(bm)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	switch {
	case bw.o.Summary:
		b.WriteString("{\n")
	case bw.n == 0:
		b.WriteString("{\n  \"runs\": [],\n")
	default:
		b.WriteString("\n  ],\n")
	}
	b.WriteString(`  "benchmark": `)
	if err := json.Indent(&b, data, "  ", "  "); err != nil {
		return err
	}
	b.WriteString("\n}\n")
	_, err = bw.w.Write(b.Bytes())
	return err
}

func (bw *BenchmarkWriter) closeJUnit(bm assert.BenchmarkResult) error {
	bs := benchmarkSuite(bm, bw.n, bw.o.Shard)
	var name strings.Builder
	_ = xml.EscapeText(&name, []byte("assay eval --runs"))
	head := fmt.Sprintf("%s<testsuites name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%s\">\n",
		xml.Header, name.String(), bw.junit.Tests+bs.Tests, bw.junit.Failures+bs.Failures, bw.junit.Errors+bs.Errors, Decimal(bw.seconds))
	if _, err := io.WriteString(bw.w, head); err != nil {
		return err
	}
	if err := bw.replay(bw.w); err != nil {
		return err
	}
	var b bytes.Buffer
	enc := xml.NewEncoder(&b)
	enc.Indent("  ", "  ")
	if err := enc.EncodeElement(bs, xml.StartElement{Name: xml.Name{Local: "testsuite"}}); err != nil {
		return err
	}
	b.WriteString("\n</testsuites>\n")
	_, err := bw.w.Write(b.Bytes())
	return err
}

// benchmarkSuite is the benchmark in JUnit: a testsuite "benchmark" whose
// properties are the score, the verdict, the verdict counts, the runs and
// each axis's mean ("axis.NAME"), with a testcase "verdict" that fails
// unless the verdict is pass (as the exit code does), then a testcase per
// criterion (named as the text table names it, classname its kind) with
// its figures as properties and a failure listing the runs it did not
// pass in.
func benchmarkSuite(bm assert.BenchmarkResult, n int, shard string) junitSuite {
	props := []junitProperty{
		{Name: "score", Value: fmt.Sprint(bm.Score)},
		{Name: "verdict", Value: string(bm.Verdict)},
		{Name: "runs", Value: strconv.Itoa(n)},
		{Name: "verdicts.pass", Value: strconv.Itoa(bm.Verdicts.Pass)},
		{Name: "verdicts.partial", Value: strconv.Itoa(bm.Verdicts.Partial)},
		{Name: "verdicts.fail", Value: strconv.Itoa(bm.Verdicts.Fail)},
	}
	for _, name := range sortedKeys(bm.Axes) {
		props = append(props, junitProperty{Name: "axis." + name, Value: fmt.Sprint(bm.Axes[name].Score)})
	}
	if shard != "" {
		props = append(props, junitProperty{Name: "shard", Value: shard})
	}
	s := junitSuite{Name: "benchmark", Properties: &junitProperties{Property: props}}
	verdict := junitCase{Name: "verdict", Classname: "benchmark"}
	if bm.Verdict != assert.VerdictPass {
		msg := fmt.Sprintf("benchmark verdict %s: score %.3f over %d %s", bm.Verdict, bm.Score, n, plural(n, "run", "runs"))
		verdict.Failure = &junitMessage{Message: msg, Type: "verdict", Text: msg}
	}
	s.add(verdict, 0)
	for _, c := range bm.Criteria {
		tc := junitCase{Name: criterionName(c) + " [" + c.CriterionID + "]", Classname: orDash(c.Kind),
			Properties: &junitProperties{Property: []junitProperty{
				{Name: "criterion_id", Value: c.CriterionID},
				{Name: "kind", Value: c.Kind},
				{Name: "axis", Value: axisOf(c)},
				{Name: "runs", Value: strconv.Itoa(c.Runs)},
				{Name: "pass_rate", Value: fmt.Sprint(c.PassRate)},
				{Name: "mean_score", Value: fmt.Sprint(c.MeanScore)},
				{Name: "errors", Value: strconv.Itoa(c.Errors)},
			}}}
		if len(c.FailedRuns) > 0 {
			msg := fmt.Sprintf("passed in %s of %d %s; not passed in %d (%d %s)", Percent(c.PassRate*100), c.Runs,
				plural(c.Runs, "run", "runs"), len(c.FailedRuns), c.Errors, plural(c.Errors, "error", "errors"))
			tc.Failure = &junitMessage{Message: msg, Type: "criterion",
				Text: "not passed in:\n" + strings.Join(c.FailedRuns, "\n")}
		}
		s.add(tc, 0)
	}
	return s
}

// replay copies what was spooled (nothing without a spool) to w.
func (bw *BenchmarkWriter) replay(w io.Writer) error {
	if bw.spool == nil {
		return nil
	}
	if err := bw.spoolW.Flush(); err != nil {
		return err
	}
	if _, err := bw.spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, bw.spool)
	return err
}

// discard drops the spool file, if any.
func (bw *BenchmarkWriter) discard() {
	if bw.spool != nil {
		bw.spool.Close()
		bw.spool, bw.spoolW = nil, nil
	}
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

// maxFailedRunsShown is how many of the runs that failed a criterion the
// text table names.
const maxFailedRunsShown = 5

// WriteBenchmarkText writes the benchmark: its score and verdict, the axes,
// the verdict counts over n runs, and a table of the criteria (pass rate,
// mean score, errors, runs, kind, axis ("-" for none), label and id; the
// first runs that failed each).
func WriteBenchmarkText(w io.Writer, bm assert.BenchmarkResult, n int, o Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\nbenchmark over %d %s: score %.3f  verdict %s\n", n, plural(n, "run", "runs"), bm.Score, verdictText(bm.Verdict, o))
	for _, name := range sortedKeys(bm.Axes) {
		a := bm.Axes[name]
		fmt.Fprintf(&b, "  %-20s %.3f  (%d %s)\n", Escape(name), a.Score, a.Runs, plural(a.Runs, "run", "runs"))
	}
	fmt.Fprintf(&b, "verdicts: %d pass, %d partial, %d fail\n", bm.Verdicts.Pass, bm.Verdicts.Partial, bm.Verdicts.Fail)
	if len(bm.Criteria) > 0 {
		// kind and axis are as wide as their longest value.
		kinds, axes := make([]string, len(bm.Criteria)), make([]string, len(bm.Criteria))
		kw, aw := len("kind"), len("axis")
		for i, c := range bm.Criteria {
			kinds[i], axes[i] = orDash(Escape(c.Kind)), orDash(Escape(axisOf(c)))
			kw, aw = max(kw, len(kinds[i])), max(aw, len(axes[i]))
		}
		b.WriteString("\ncriteria:\n")
		fmt.Fprintf(&b, "  %9s  %6s  %6s  %6s  %-*s  %-*s  %s\n", "pass rate", "mean", "errors", "runs", kw, "kind", aw, "axis", "criterion")
		for i, c := range bm.Criteria {
			rate := Percent(c.PassRate * 100)
			if o.Color {
				colour := green
				switch {
				case c.PassRate < 0.5:
					colour = red
				case c.PassRate < 1:
					colour = yellow
				}
				rate = colour + fmt.Sprintf("%9s", rate) + reset
			}
			fmt.Fprintf(&b, "  %9s  %6.3f  %6d  %6d  %-*s  %-*s  %s  [%s]", rate, c.MeanScore, c.Errors, c.Runs, kw, kinds[i], aw, axes[i],
				Escape(criterionName(c)), Escape(c.CriterionID))
			if len(c.FailedRuns) > 0 {
				shown := c.FailedRuns[:min(len(c.FailedRuns), maxFailedRunsShown)]
				names := make([]string, len(shown))
				for i, r := range shown {
					names[i] = Escape(r)
				}
				more := ""
				if len(c.FailedRuns) > len(shown) {
					more = fmt.Sprintf(" and %d more", len(c.FailedRuns)-len(shown))
				}
				fmt.Fprintf(&b, "  not passed in %s%s", strings.Join(names, ", "), more)
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// axisOf is c's axis, "" when it names none.
func axisOf(c assert.BenchmarkCriterion) string {
	if c.Axis == assert.DefaultAxis {
		return ""
	}
	return c.Axis
}

// orDash is s, or "-" when s is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func criterionName(c assert.BenchmarkCriterion) string {
	if c.Label == "" {
		return c.CriterionID
	}
	return c.Label
}

// Record is one line of a benchmark's JSON lines: a run's result or the
// benchmark, with the shard it came from.
type Record struct {
	// Line is the record's 1-based line number.
	Line int
	// Run is set for a run's line, Benchmark for the benchmark line.
	Run       *Run
	Benchmark *assert.BenchmarkResult
	// Shard is the line's "shard" ("" when it has none).
	Shard string
}

// JSONLReader reads the JSON lines a BenchmarkWriter writes in JSONL, one
// record at a time.
type JSONLReader struct {
	sc   *bufio.Scanner
	line int
}

// NewJSONLReader reads records from r; a line longer than maxLine bytes
// (<= 0: 64 MiB) is an error.
func NewJSONLReader(r io.Reader, maxLine int) *JSONLReader {
	if maxLine <= 0 {
		maxLine = 64 << 20
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &JSONLReader{sc: sc}
}

// Next returns the next record, or io.EOF after the last. Blank lines are
// skipped. Errors name the line.
func (jr *JSONLReader) Next() (Record, error) {
	for jr.sc.Scan() {
		jr.line++
		raw := bytes.TrimSpace(jr.sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		rec := Record{Line: jr.line}
		var probe struct {
			Benchmark *assert.BenchmarkResult `json:"benchmark"`
			Shard     string                  `json:"shard"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return rec, fmt.Errorf("line %d: %w", jr.line, err)
		}
		rec.Shard = probe.Shard
		if probe.Benchmark != nil {
			rec.Benchmark = probe.Benchmark
			return rec, nil
		}
		var run Run
		if err := json.Unmarshal(raw, &run); err != nil {
			return rec, fmt.Errorf("line %d: %w", jr.line, err)
		}
		rec.Run = &run
		return rec, nil
	}
	if err := jr.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Record{}, fmt.Errorf("line %d: longer than the limit", jr.line+1)
		}
		return Record{}, err
	}
	return Record{}, io.EOF
}

// ReadJSONL reads JSON lines written by WriteRunLine (a {"benchmark": ...}
// line is skipped, since a merge recomputes it) and returns the runs in the
// order read. Errors name the line.
func ReadJSONL(r io.Reader) ([]Run, error) {
	jr := NewJSONLReader(r, 0)
	var runs []Run
	for {
		rec, err := jr.Next()
		if err == io.EOF {
			return runs, nil
		}
		if err != nil {
			return nil, err
		}
		if rec.Run != nil {
			runs = append(runs, *rec.Run)
		}
	}
}
