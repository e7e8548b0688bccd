package report_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/browsertest"
	"github.com/assaykit/assay/report"
	"github.com/assaykit/assay/sandbox"
)

var updateScreenshot = flag.Bool("update", false, "rewrite the README's screenshot of the example's HTML report")

// exampleResult evaluates the bundled prior-authorization example.
func exampleResult(t *testing.T) assert.TaskResult {
	t.Helper()
	data, err := os.ReadFile("../examples/priorauth/criteria.json")
	if err != nil {
		t.Fatal(err)
	}
	criteria, err := assert.ParseCriteria(data)
	if err != nil {
		t.Fatal(err)
	}
	env, err := sandbox.Load("../examples/priorauth/sandbox", sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	res, err := assert.Evaluate(context.Background(), criteria, env)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The page is self-contained: no reference to anything outside it, and
// every string from the input escaped.
func TestHTMLSelfContained(t *testing.T) {
	res := exampleResult(t)
	res.Criteria[0].Label = `<script>alert(1)</script> & "quotes"`
	var b bytes.Buffer
	if err := report.WriteTask(&b, report.HTML, res, report.Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"http://", "https://", "<link", "src=", "@import", "<script>alert(1)"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;quotes&#34;") {
		t.Error("a label is not escaped")
	}
	if !strings.Contains(page, "default-src &#39;none&#39;") && !strings.Contains(page, "default-src 'none'") {
		t.Error("no Content-Security-Policy")
	}
}

// The example's report renders in a real headless Chromium without a
// console error, shows the verdict, the axes and every failing criterion
// with its field diffs, and its table sorts by score both ways; a
// benchmark's page sorts by pass rate and drills down per run. With
// -update it rewrites the README's screenshot.
func TestHTMLInBrowser(t *testing.T) {
	res := exampleResult(t)
	dir := t.TempDir()
	write := func(name string, fn func(*bytes.Buffer) error) string {
		var b bytes.Buffer
		if err := fn(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return "file://" + path
	}
	taskURL := write("task.html", func(b *bytes.Buffer) error { return report.WriteTask(b, report.HTML, res, report.Options{}) })
	other := res
	other.Criteria = slices.Clone(res.Criteria)
	for i := range other.Criteria[:3] {
		other.Criteria[i].Status, other.Criteria[i].Score = assert.StatusFailed, 0
	}
	other = assert.Score(other.Criteria)
	runs := []report.Run{{Name: "run-a", Result: res}, {Name: "run-b", Result: other}}
	benchURL := write("bench.html", func(b *bytes.Buffer) error {
		bw, err := report.NewBenchmarkWriter(b, report.HTML, report.Options{})
		if err != nil {
			return err
		}
		for _, r := range runs {
			if err := bw.Add(r); err != nil {
				return err
			}
		}
		_, err = bw.Close()
		return err
	})

	br := browsertest.Start(t, 1100, 900)
	ctx := br.Ctx
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	column := func(col int) []float64 {
		t.Helper()
		vals, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll("#criteria tbody tr")).map(r => r.cells[`+strconv.Itoa(col)+`].getAttribute("data-value"))`))
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float64, len(vals))
		for i, v := range vals {
			out[i], _ = strconv.ParseFloat(v, 64)
		}
		return out
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(`+strconv.Quote(sel)+`).textContent`))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return s
	}

	run("open the task report", chromedp.Navigate(taskURL))
	if v := text("#verdict"); v != "partial" {
		t.Errorf("verdict %q", v)
	}
	if s := text("#score"); s != "0.750" {
		t.Errorf("score %q", s)
	}
	bars, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".axis .bar").length`))
	if err != nil || bars != 3 {
		t.Errorf("%d axis bars (%v), want 3", bars, err)
	}
	failures, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll(".fail")).map(e => e.innerText).join("\n")`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"The clinical notes were uploaded with the request", "uploaded", "true", "false", `phrase "social security number"`} {
		if !strings.Contains(failures, want) {
			t.Errorf("the failures lack %q:\n%s", want, failures)
		}
	}
	if strings.Count(failures, "score ") != 4 {
		t.Errorf("want 4 failing criteria:\n%s", failures)
	}
	if p := br.Problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
	if *updateScreenshot {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("../examples/priorauth/report.png", png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const scoreCol = 1
	run("sort by score", chromedp.Click(chromedp.CSS("#criteria th:nth-child(2) button")))
	if got := column(scoreCol); !slices.IsSorted(got) || got[0] != 0 {
		t.Errorf("ascending by score: %v", got)
	}
	run("sort by score again", chromedp.Click(chromedp.CSS("#criteria th:nth-child(2) button")))
	if got := column(scoreCol); !slices.IsSortedFunc(got, func(a, b float64) int { return -compare(a, b) }) || got[0] != 1 {
		t.Errorf("descending by score: %v", got)
	}

	run("open the benchmark report", chromedp.Navigate(benchURL))
	run("sort by pass rate", chromedp.Click(chromedp.CSS("#criteria th:nth-child(1) button")))
	rates := column(0)
	if !slices.IsSorted(rates) || rates[0] != 0 || rates[len(rates)-1] != 1 || !slices.Contains(rates, 0.5) {
		t.Errorf("ascending by pass rate: %v", rates)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("details.run").length`)); err != nil || n != 2 {
		t.Errorf("%d runs to drill into (%v)", n, err)
	}
	run("open run-b", chromedp.Click(chromedp.CSS("#run-2 summary")))
	if open, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("run-2").open`)); err != nil || !open {
		t.Errorf("run-b does not open (%v)", err)
	}
	if s := text("#run-2"); !strings.Contains(s, "run-b") || !strings.Contains(s, "The agent found Jane Doe") {
		t.Errorf("run-b's drill-down:\n%s", s)
	}
	if p := br.Problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
}

func compare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
