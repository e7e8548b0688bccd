package report

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/words"
)

// HTML is one self-contained page: inline styles and script, no network
// (its Content-Security-Policy forbids every fetch), for a person to open
// in a browser. A task: the verdict and score, axis bars, a table of the
// criteria sortable by any column, and every failing criterion with its
// field diffs (expected against actual). A benchmark: the same over the
// runs (the table gives each criterion's pass rate, mean score and
// errors), and a drill-down per run.
const HTML Format = "html"

// htmlCriterion is one row of the criteria table.
type htmlCriterion struct {
	ID, Label, Kind, Axis string
	Status                string // passed, failed, error; "" in a benchmark
	Rate                  float64
	Score                 float64
	Errors, Runs          int
	Weight                string
	FailedRuns            []string
	MoreFailed            int
}

type htmlFailure struct {
	ID, Label, Status, Details string
	Score                      float64
	Diffs                      []FieldDiff
}

type htmlAxis struct {
	Name  string
	Score float64
	Note  string
}

type htmlPage struct {
	Title      string
	Benchmark  bool
	Score      float64
	Verdict    string
	Summary    string
	Axes       []htmlAxis
	Criteria   []htmlCriterion
	Failures   []htmlFailure
	NoDrilling bool
}

type htmlRun struct {
	Index    int
	Name     string
	Score    float64
	Verdict  string
	Counts   assert.Counts
	Failures []htmlFailure
}

var htmlFuncs = template.FuncMap{
	"pct":   func(f float64) string { return Percent(f * 100) },
	"score": func(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) },
	"width": func(f float64) string {
		return strconv.FormatFloat(math.Round(min(max(f, 0), 1)*1000)/10, 'f', -1, 64) + "%"
	},
	"raw":     func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) },
	"verdict": func(s string) string { return "v-" + s },
}

// htmlTemplates are parsed on first use, so that commands that write no HTML
// do not pay for it at start-up.
var htmlTemplates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(htmlFuncs).Parse(`{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px}
.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:16px 20px;margin-bottom:16px}
.verdict{display:inline-block;padding:3px 12px;border-radius:999px;font-weight:600;color:#fff;text-transform:uppercase;font-size:13px}
.v-pass{background:#1f9d55}.v-partial{background:#d69e2e}.v-fail{background:#d64545}
.big{font-size:34px;font-weight:700;margin-right:12px}
.muted{color:#5d6778}
.axis{display:grid;grid-template-columns:180px 1fr 150px;gap:10px;align-items:center;margin:6px 0}
.bar{background:#e8ebf0;border-radius:4px;height:14px;overflow:hidden}.bar>span{display:block;height:100%;background:#3b82f6}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e6e9ee;vertical-align:top}
th button{all:unset;cursor:pointer;font-weight:600}th button::after{content:" \2195";color:#9aa3b2}
th[aria-sort=ascending] button::after{content:" \2191";color:#1d2330}th[aria-sort=descending] button::after{content:" \2193";color:#1d2330}
td.num{font-variant-numeric:tabular-nums;white-space:nowrap}
.st{font-weight:600}.st-passed{color:#1f9d55}.st-failed{color:#d64545}.st-error{color:#b7791f}
.rate{display:inline-block;width:60px;height:8px;background:#e8ebf0;border-radius:4px;margin-right:6px;vertical-align:middle;overflow:hidden}
.rate>span{display:block;height:100%;background:#1f9d55}
.fail{border-left:4px solid #d64545}.fail.error{border-left-color:#d69e2e}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px;overflow-wrap:anywhere}
.diff td{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px}
.exp{color:#1f6f43}.act{color:#a12a2a}
details{background:#fff;border:1px solid #dde1e7;border-radius:8px;margin:6px 0;padding:8px 14px}
summary{cursor:pointer}
.kind{white-space:nowrap}
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<div class="card" id="summary">
<span class="big" id="score">{{score .Score}}</span><span class="verdict {{verdict .Verdict}}" id="verdict">{{.Verdict}}</span>
<p class="muted">{{.Summary}}</p>
{{range .Axes}}<div class="axis"><span>{{.Name}}</span><div class="bar" role="meter" aria-label="{{.Name}}" aria-valuemin="0" aria-valuemax="1" aria-valuenow="{{raw .Score}}"><span style="width:{{width .Score}}"></span></div><span class="num">{{score .Score}}{{if .Note}} <span class="muted">({{.Note}})</span>{{end}}</span></div>
{{end}}</div>
<h2>Criteria</h2>
<table id="criteria">
<thead><tr>{{if .Benchmark}}<th data-type="num"><button type="button">Pass rate</button></th><th data-type="num"><button type="button">Mean score</button></th><th data-type="num"><button type="button">Errors</button></th>{{else}}<th data-type="text"><button type="button">Status</button></th><th data-type="num"><button type="button">Score</button></th><th data-type="num"><button type="button">Weight</button></th>{{end}}<th data-type="text"><button type="button">Criterion</button></th><th data-type="text"><button type="button">Kind</button></th><th data-type="text"><button type="button">Axis</button></th></tr></thead>
<tbody>
{{range .Criteria}}<tr>{{if $.Benchmark}}<td class="num" data-value="{{raw .Rate}}"><span class="rate"><span style="width:{{width .Rate}}"></span></span>{{pct .Rate}}</td><td class="num" data-value="{{raw .Score}}">{{score .Score}}</td><td class="num" data-value="{{.Errors}}">{{.Errors}}</td>{{else}}<td data-value="{{.Status}}"><span class="st st-{{.Status}}">{{.Status}}</span></td><td class="num" data-value="{{raw .Score}}">{{score .Score}}</td><td class="num" data-value="{{.Weight}}">{{.Weight}}</td>{{end}}<td data-value="{{.Label}}">{{.Label}} <code class="muted">{{.ID}}</code>{{if .FailedRuns}}<div class="muted">not passed in {{range $i, $r := .FailedRuns}}{{if $i}}, {{end}}<code>{{$r}}</code>{{end}}{{if .MoreFailed}} and {{.MoreFailed}} more{{end}}</div>{{end}}</td><td data-value="{{.Kind}}"><code class="kind">{{.Kind}}</code></td><td data-value="{{.Axis}}">{{.Axis}}</td></tr>
{{end}}</tbody>
</table>
{{if not .Benchmark}}<h2>Failures</h2>
{{if .Failures}}{{range .Failures}}{{template "failure" .}}{{end}}{{else}}<p class="muted">None: every criterion passed.</p>{{end}}{{end}}
{{if .Benchmark}}{{if not .NoDrilling}}<h2>Runs</h2>
<div id="runs">
{{end}}{{end}}{{end}}

{{define "failure"}}<div class="card fail{{if eq .Status "error"}} error{{end}}">
<div><span class="st st-{{.Status}}">{{.Status}}</span> <strong>{{.Label}}</strong> <code class="muted">{{.ID}}</code> <span class="num muted">score {{score .Score}}</span></div>
<p>{{.Details}}</p>
{{if .Diffs}}<table class="diff"><thead><tr><th>Field</th><th>Expected</th><th>Actual</th><th>Why</th></tr></thead><tbody>
{{range .Diffs}}<tr><td>{{.Name}}</td><td class="exp">{{.Expected}}</td><td class="act">{{.Actual}}</td><td>{{.Reason}}</td></tr>
{{end}}</tbody></table>{{end}}
</div>
{{end}}

{{define "run"}}<details class="run" id="run-{{.Index}}"><summary><strong>{{.Name}}</strong> <span class="num">{{score .Score}}</span> <span class="verdict {{verdict .Verdict}}">{{.Verdict}}</span> <span class="muted">{{.Counts.Passed}} passed, {{.Counts.Failed}} failed, {{.Counts.Error}} errors{{if .Counts.Skipped}}, {{.Counts.Skipped}} skipped{{end}}</span></summary>
{{if .Failures}}{{range .Failures}}{{template "failure" .}}{{end}}{{else}}<p class="muted">Every criterion passed.</p>{{end}}
</details>
{{end}}

{{define "tail"}}{{if .Benchmark}}{{if not .NoDrilling}}</div>
{{end}}{{end}}</main>
<script>
(function () {
  var table = document.getElementById("criteria");
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, col) {
    th.querySelector("button").addEventListener("click", function () {
      var asc = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var num = th.getAttribute("data-type") === "num";
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute("data-value"), y = b.cells[col].getAttribute("data-value");
        var c = num ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
})();
</script>
</body>
</html>
{{end}}`))
})

// failuresOf lists a task's criteria that did not pass, with their diffs.
func failuresOf(r assert.TaskResult) []htmlFailure {
	var out []htmlFailure
	for _, cr := range r.Criteria {
		if cr.Status == assert.StatusPassed {
			continue
		}
		f := htmlFailure{ID: cr.CriterionID, Label: labelOf(cr), Status: string(cr.Status), Details: cr.Details, Score: cr.Score}
		if cr.Status == assert.StatusFailed {
			f.Diffs = FieldDiffs(cr.Evidence)
		}
		out = append(out, f)
	}
	return out
}

func htmlAxes(names []string, score func(string) (float64, string)) []htmlAxis {
	out := make([]htmlAxis, len(names))
	for i, n := range names {
		s, note := score(n)
		out[i] = htmlAxis{Name: n, Score: s, Note: note}
	}
	return out
}

// writeTaskHTML writes one task result as a page.
func writeTaskHTML(w io.Writer, r assert.TaskResult) error {
	p := htmlPage{Title: "assay eval", Score: r.Score, Verdict: string(r.Verdict)}
	p.Summary = fmt.Sprintf("%d passed, %d failed, %d errors", r.Counts.Passed, r.Counts.Failed, r.Counts.Error)
	if line := skippedLine(r); line != "" {
		p.Summary += "; " + line
	}
	p.Axes = htmlAxes(sortedKeys(r.Axes), func(n string) (float64, string) { return r.Axes[n].Score, "" })
	for _, cr := range r.Criteria {
		rate := 0.0
		if cr.Status == assert.StatusPassed {
			rate = 1
		}
		p.Criteria = append(p.Criteria, htmlCriterion{ID: cr.CriterionID, Label: labelOf(cr), Kind: cr.Kind, Axis: axisName(cr.Axis),
			Status: string(cr.Status), Rate: rate, Score: cr.Score, Weight: trimFloat(cr.Weight)})
	}
	p.Failures = failuresOf(r)
	bw := bufio.NewWriter(w)
	if err := htmlTemplates().ExecuteTemplate(bw, "head", p); err != nil {
		return err
	}
	if err := htmlTemplates().ExecuteTemplate(bw, "tail", p); err != nil {
		return err
	}
	return bw.Flush()
}

func axisName(a string) string {
	if a == "" || a == assert.DefaultAxis {
		return ""
	}
	return a
}

// writeHTMLRun writes one run's drill-down, spooled until the page is
// written.
func writeHTMLRun(w io.Writer, index int, r Run) error {
	return htmlTemplates().ExecuteTemplate(w, "run", htmlRun{Index: index, Name: r.Name, Score: r.Result.Score,
		Verdict: string(r.Result.Verdict), Counts: r.Result.Counts, Failures: failuresOf(r.Result)})
}

func (bw *BenchmarkWriter) closeHTML(bm assert.BenchmarkResult) error {
	p := htmlPage{Title: "assay eval --runs", Benchmark: true, Score: bm.Score, Verdict: string(bm.Verdict), NoDrilling: bw.spool == nil}
	p.Summary = fmt.Sprintf("benchmark over %d %s: %d pass, %d partial, %d fail", bw.n, plural(bw.n, "run", "runs"),
		bm.Verdicts.Pass, bm.Verdicts.Partial, bm.Verdicts.Fail)
	p.Axes = htmlAxes(sortedKeys(bm.Axes), func(n string) (float64, string) {
		return bm.Axes[n].Score, words.Count(bm.Axes[n].Runs, "run")
	})
	for _, c := range bm.Criteria {
		hc := htmlCriterion{ID: c.CriterionID, Label: criterionName(c), Kind: c.Kind, Axis: axisName(c.Axis), Rate: c.PassRate,
			Score: c.MeanScore, Errors: c.Errors, Runs: c.Runs}
		hc.FailedRuns = c.FailedRuns[:min(len(c.FailedRuns), 20)]
		hc.MoreFailed = len(c.FailedRuns) - len(hc.FailedRuns)
		p.Criteria = append(p.Criteria, hc)
	}
	out := bufio.NewWriter(bw.w)
	if err := htmlTemplates().ExecuteTemplate(out, "head", p); err != nil {
		return err
	}
	if err := bw.replay(out); err != nil {
		return err
	}
	if err := htmlTemplates().ExecuteTemplate(out, "tail", p); err != nil {
		return err
	}
	return out.Flush()
}
