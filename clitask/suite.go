package clitask

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/pool"
	"github.com/assaykit/assay/internal/yamlline"
	"github.com/dlclark/regexp2"
	"gopkg.in/yaml.v3"
)

// Suite is a cli-bench suite (cli-bench.yaml) with its file:// includes
// resolved.
type Suite struct {
	// File is the suite file as it was named; Dir is the absolute folder
	// holding it, which includes, scaffold and workdir resolve against.
	File string
	Dir  string

	CLI            string
	VersionCommand string
	DisplayName    string
	Category       string
	WebsiteURL     string
	GitHubURL      string
	// Providers lists provider/model strings.
	Providers []string
	// HelpModes lists "injected", "discoverable" or "none".
	HelpModes []string
	// Concurrency is how many runs go at once; 0 when unset.
	Concurrency int
	// Workdir, when set, is the working directory of every task (relative
	// to Dir unless absolute) instead of a fresh one per run.
	Workdir string
	// Upload is "auto", "always", "never", or "" when unset.
	Upload string
	// Repeat is how many times each task runs; 0 when unset (once).
	Repeat         int
	SystemPrompt   string
	RedactEnv      []string
	RedactPatterns []string
	// Env is set for setup, the agent's commands and verify; values expand
	// {{workdir}}; a task's Env wins.
	Env map[string]string
	// Setup runs before each task's own setup.
	Setup []string
	// Scaffold is a directory (relative to Dir unless absolute) copied into
	// each workdir before setup.
	Scaffold   string
	Thresholds *Thresholds
	// Tasks are in file order, includes expanded in place.
	Tasks []*Task

	byID   map[string]*Task
	redact []*regexp2.Regexp
}

// Thresholds are the minimum pass rates a suite expects, in percent.
type Thresholds struct {
	// Default applies to models without their own value; nil when unset.
	Default *float64
	// Models maps a model to its threshold.
	Models map[string]float64
	// Tolerance is subtracted from a threshold: the effective minimum is
	// max(0, threshold - tolerance).
	Tolerance float64
	// Behavior is BehaviorError (the default) or BehaviorInformational.
	Behavior string
}

// What a violated threshold does.
const (
	// BehaviorError fails the run (assay check exits 1).
	BehaviorError = "error"
	// BehaviorInformational only warns.
	BehaviorInformational = "informational"
)

// Minimum returns the effective minimum pass rate (percent) for model:
// max(0, threshold - tolerance), the model's own threshold first, then the
// default. ok is false when neither applies.
func (t *Thresholds) Minimum(model string) (minimum float64, ok bool) {
	if t == nil {
		return 0, false
	}
	th, ok := t.Models[model]
	if !ok {
		if t.Default == nil {
			return 0, false
		}
		th = *t.Default
	}
	return max(0, th-t.Tolerance), true
}

// Task is one task of a suite.
type Task struct {
	ID     string
	Intent string
	// Assert holds the decoded assertions, in order; the task passes when
	// every one passes.
	Assert     []assert.Assertion
	Setup      []string
	Env        map[string]string
	MaxTurns   int
	Difficulty string
	Category   string
	// Repeat overrides the suite's Repeat; 0 when unset.
	Repeat int
	// File, Line and Column say where the task is defined.
	File         string
	Line, Column int
}

// Task returns the task with the given id.
func (s *Suite) Task(id string) (*Task, bool) {
	t, ok := s.byID[id]
	return t, ok
}

// Problem is one thing wrong with a suite or task file. Its Location holds
// the file, the 1-based line and column (0 when unknown) and the JSON
// pointer into the document read as JSON.
type Problem struct {
	assert.Location
	Message string `json:"message"`
}

// String renders the problem as "file:line:col: /pointer: message", leaving
// out what is unknown.
func (p Problem) String() string { return p.Location.Prefix(p.Message) }

// problemAt builds a Problem.
func problemAt(file string, line, col int, ptr, msg string) Problem {
	return Problem{Location: assert.Location{File: file, Line: line, Column: col, Pointer: ptr}, Message: msg}
}

// SuiteError lists every problem found loading a suite or task file.
type SuiteError struct {
	Problems []Problem
}

// Error lists the problems, one per line.
func (e *SuiteError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// LoadSuite reads and validates a suite file and the task files it
// includes. Every problem found, in any file, is reported in one
// *SuiteError; an unreadable suite file is a plain error. Of opts,
// MaxFileSize caps each file read (64 MiB by default) and MaxTotalSize the
// included task files in all (256 MiB by default); the others are ignored.
func LoadSuite(path string, opts ...Option) (*Suite, error) {
	l := newLoader(opts)
	data, err := readFile(path, l.maxFileSize)
	if err != nil {
		return nil, fmt.Errorf("clitask: %s: %s", path, suiteFileText(err))
	}
	return ParseSuite(path, data, opts...)
}

// ParseSuite is LoadSuite with the suite file's content given; path names
// the file in messages and is where includes, scaffold and workdir resolve
// from.
func ParseSuite(path string, data []byte, opts ...Option) (*Suite, error) {
	l := newLoader(opts)
	s := l.suite(path, data)
	if len(l.problems) > 0 {
		return nil, l.err()
	}
	return s, nil
}

// ParseTasks reads a task file (a YAML list of tasks, as a file:// include
// holds) and validates it on its own: ids must be unique within it.
func ParseTasks(path string, data []byte) ([]*Task, error) {
	l := loader{}
	tasks := l.taskFile(path, data)
	l.checkIDs(tasks)
	if len(l.problems) > 0 {
		return nil, l.err()
	}
	return tasks, nil
}

// loader collects problems while reading a suite and its includes.
type loader struct {
	problems []Problem
	limits   // what a suite's files may take: each, and the includes in all
}

func newLoader(opts []Option) loader {
	return loader{limits: newOptions(opts).limits()}
}

func (l *loader) add(p Problem) { l.problems = append(l.problems, p) }

// err returns the problems as a *SuiteError, each file's in the order of
// their place in it, the files in the order they were read.
func (l *loader) err() *SuiteError {
	order := map[string]int{}
	for _, p := range l.problems {
		if _, ok := order[p.File]; !ok {
			order[p.File] = len(order)
		}
	}
	sort.SliceStable(l.problems, func(i, j int) bool {
		a, b := l.problems[i], l.problems[j]
		if order[a.File] != order[b.File] {
			return order[a.File] < order[b.File]
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return &SuiteError{Problems: l.problems}
}

// document is one YAML file read as JSON, with the positions of its values.
type document struct {
	file  string
	root  *yaml.Node
	value any
	raw   []byte
	pos   assert.Positions
	// invalid holds the pointers of the schema violations.
	invalid []string
}

// valid reports whether no schema violation lies at or below ptr.
func (d *document) valid(ptr string) bool {
	for _, p := range d.invalid {
		if p == ptr || strings.HasPrefix(p, ptr+"/") {
			return false
		}
	}
	return true
}

// at returns the position of ptr (or of its nearest ancestor).
func (d *document) at(ptr string) (int, int) {
	for {
		if p, ok := d.pos[ptr]; ok {
			return p.Line, p.Column
		}
		if ptr == "" {
			return 0, 0
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
}

func (d *document) problem(ptr, msg string) Problem {
	line, col := d.at(ptr)
	return problemAt(d.file, line, col, ptr, msg)
}

// read parses a YAML file and validates it against v. It returns nil when
// the file cannot be read as one YAML document; schema violations are
// recorded and the document returned, so that the parts that are valid can
// still be checked.
func (l *loader) read(file string, data []byte, v *assert.Validator) *document {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			l.add(problemAt(file, 0, 0, "", "the file is empty"))
			return nil
		}
		l.add(yamlProblem(file, data, err))
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		l.add(problemAt(file, extra.Line, extra.Column, "", "the file holds more than one YAML document"))
		return nil
	} else if !errors.Is(err, io.EOF) {
		l.add(yamlProblem(file, data, err))
		return nil
	}
	yd, err := assert.ConvertYAML(&root)
	if err != nil {
		p := problemAt(file, 0, 0, "", err.Error())
		var ye *assert.YAMLError
		if errors.As(err, &ye) {
			p.Line, p.Column, p.Message = ye.Line, ye.Column, ye.Message
		}
		l.add(p)
		return nil
	}
	d := &document{file: file, root: &root, raw: yd.JSON, pos: yd.Positions, value: yd.Value}
	pos := yd.Positions
	wantList := v == taskListValidator()
	if wantList != isList(d.value) {
		msg := "a suite file is a mapping with cli and tasks, not " + yamlKind(d.value)
		if wantList {
			msg = "a task file holds a list of tasks, not " + yamlKind(d.value)
		}
		d.invalid = append(d.invalid, "")
		l.add(d.problem("", msg))
		return d
	}
	for _, x := range v.Validate(d.value, pos) {
		d.invalid = append(d.invalid, x.Pointer)
		msg := x.Message
		if item, ok := valueAt(d.value, x.Pointer).(string); ok && wantList && strings.HasPrefix(item, "file://") {
			msg = "a task file cannot include other task files: file:// items belong in a suite's tasks"
		}
		l.add(problemAt(file, x.Line, x.Column, x.Pointer, msg))
	}
	return d
}

// yamlProblem turns a yaml.v3 error ("yaml: line 3: did not find expected
// key") into a Problem at the line to fix (see internal/yamlline).
func yamlProblem(file string, data []byte, err error) Problem {
	line, msg := yamlline.Locate(data, err)
	return problemAt(file, line, 0, "", "not YAML: "+msg)
}

type wireThresholds struct {
	Default   *float64           `json:"default"`
	Models    map[string]float64 `json:"models"`
	Tolerance float64            `json:"tolerance"`
	Behavior  string             `json:"behavior"`
}

type wireSuite struct {
	CLI            string            `json:"cli"`
	VersionCommand string            `json:"version_command"`
	DisplayName    string            `json:"display_name"`
	Category       string            `json:"category"`
	WebsiteURL     string            `json:"website_url"`
	GitHubURL      string            `json:"github_url"`
	Providers      []string          `json:"providers"`
	HelpModes      []string          `json:"help_modes"`
	Concurrency    int               `json:"concurrency"`
	Workdir        string            `json:"workdir"`
	Upload         string            `json:"upload"`
	Repeat         int               `json:"repeat"`
	SystemPrompt   string            `json:"system_prompt"`
	RedactEnv      []string          `json:"redact_env"`
	RedactPatterns []string          `json:"redact_patterns"`
	Env            map[string]string `json:"env"`
	Setup          []string          `json:"setup"`
	Scaffold       string            `json:"scaffold"`
	Thresholds     *wireThresholds   `json:"thresholds"`
}

func (l *loader) suite(path string, data []byte) *Suite {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		l.add(problemAt(path, 0, 0, "", err.Error()))
		return nil
	}
	d := l.read(path, data, suiteValidator())
	if d == nil {
		return nil
	}
	obj, _ := d.value.(map[string]any)
	items, _ := obj["tasks"].([]any)
	// Inline tasks are built in place; included files are read after, in
	// parallel, and spliced in at their item.
	parts := make([][]*Task, len(items))
	var refs []taskFileRef
	for i, item := range items {
		ptr := assert.IndexPointer("/tasks", i)
		switch v := item.(type) {
		case string:
			if strings.HasPrefix(v, "file://") && len(v) > len("file://") {
				refs = append(refs, l.include(d, ptr, dir, v, i)...)
			}
		case map[string]any:
			parts[i] = l.task(d, ptr)
		}
	}
	refs = dedupe(refs)
	for i, res := range readTaskFiles(refs, l.limits) {
		l.problems = append(l.problems, res.problems...)
		parts[refs[i].item] = append(parts[refs[i].item], res.tasks...)
	}
	var tasks []*Task
	for _, p := range parts {
		tasks = append(tasks, p...)
	}
	byID := l.checkIDs(tasks)
	if !d.valid("") {
		return nil
	}
	var w wireSuite
	if err := json.Unmarshal(d.raw, &w); err != nil {
		l.add(d.problem("", err.Error()))
		return nil
	}
	s := &Suite{
		File: path, Dir: dir, CLI: w.CLI, VersionCommand: w.VersionCommand, DisplayName: w.DisplayName,
		Category: w.Category, WebsiteURL: w.WebsiteURL, GitHubURL: w.GitHubURL, Providers: w.Providers,
		HelpModes: w.HelpModes, Concurrency: w.Concurrency, Workdir: w.Workdir, Upload: w.Upload,
		Repeat: w.Repeat, SystemPrompt: w.SystemPrompt, RedactEnv: w.RedactEnv, RedactPatterns: w.RedactPatterns,
		Env: w.Env, Setup: w.Setup, Scaffold: w.Scaffold, Tasks: tasks, byID: byID,
	}
	if w.Thresholds != nil {
		s.Thresholds = &Thresholds{Default: w.Thresholds.Default, Models: w.Thresholds.Models,
			Tolerance: w.Thresholds.Tolerance, Behavior: w.Thresholds.Behavior}
		if s.Thresholds.Behavior == "" {
			s.Thresholds.Behavior = BehaviorError
		}
	}
	for i, p := range w.RedactPatterns {
		re, err := regexp2.Compile(p, regexp2.ECMAScript)
		if err != nil {
			l.add(d.problem(assert.IndexPointer("/redact_patterns", i), fmt.Sprintf("%q is not a valid regular expression: %v", p, err)))
			continue
		}
		re.MatchTimeout = MatchTimeout
		s.redact = append(s.redact, re)
	}
	if len(s.Tasks) == 0 && len(l.problems) == 0 {
		l.add(d.problem("/tasks", "the suite has no tasks: its includes hold none"))
	}
	return s
}

// taskFileRef is a task file an include names.
type taskFileRef struct {
	path string // as found
	name string // for messages: relative to the suite file's folder as named
	item int    // the index of the include in the suite's tasks
	// problem reports a file that cannot be read, at the include.
	problem func(msg string) Problem
}

// include expands a file:// item into the task files it names, sorted.
func (l *loader) include(d *document, ptr, dir, item string, index int) []taskFileRef {
	glob := strings.TrimPrefix(item, "file://")
	files, err := expandGlob(dir, glob)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			msg = "no such file"
		}
		l.add(d.problem(ptr, fmt.Sprintf("%s: %s", item, msg)))
		return nil
	}
	if len(files) == 0 {
		l.add(d.problem(ptr, fmt.Sprintf("%s matches no file", item)))
		return nil
	}
	refs := make([]taskFileRef, len(files))
	for i, f := range files {
		name := f
		if rel, err := filepath.Rel(dir, f); err == nil && !strings.HasPrefix(rel, "..") {
			name = filepath.Join(filepath.Dir(d.file), rel)
		}
		refs[i] = taskFileRef{path: f, name: name, item: index, problem: func(msg string) Problem {
			return d.problem(ptr, item+": "+msg)
		}}
	}
	return refs
}

// dedupe keeps the first of the refs that name the same file: the same
// absolute path once cleaned and with its links resolved. A task file
// matched by two includes loads once, at its first position.
func dedupe(refs []taskFileRef) []taskFileRef {
	seen := make(map[string]bool, len(refs))
	out := refs[:0:0]
	for _, r := range refs {
		key := filepath.Clean(r.path)
		if abs, err := filepath.Abs(key); err == nil {
			key = abs
		}
		if real, err := filepath.EvalSymlinks(key); err == nil {
			key = real
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, r)
	}
	return out
}

type taskFileResult struct {
	tasks    []*Task
	problems []Problem
}

// readTaskFiles reads task files in parallel (bounded by GOMAXPROCS); the
// results are in the order of refs. Each file is read as evidence is: a
// regular file of at most lim.maxFileSize bytes, the files together at most
// lim.total's cap, each path counted once (dedupe resolved the symbolic
// links; two hard links of one file are two names, each read and counted).
func readTaskFiles(refs []taskFileRef, lim limits) []taskFileResult {
	out := make([]taskFileResult, len(refs))
	pool.Each(context.Background(), len(refs), runtime.GOMAXPROCS(0), func(i int) {
		var fl loader
		path := refs[i].path
		data, err := readCounted(lim.total, os.DirFS(filepath.Dir(path)), filepath.Base(path), path, lim.maxFileSize)
		if err != nil {
			fl.add(refs[i].problem(suiteFileText(err)))
		} else {
			out[i].tasks = fl.taskFile(refs[i].name, data)
		}
		out[i].problems = fl.problems
	})
	return out
}

// readFile reads a suite or task file named by a path: a regular file (a
// link to one is followed) of at most limit bytes (<= 0:
// check.DefaultMaxFileSize).
func readFile(path string, limit int64) ([]byte, error) {
	return check.ReadFile(os.DirFS(filepath.Dir(path)), filepath.Base(path), limit)
}

// suiteFileText words a failure to read a suite or task file without the
// file's name (the problem names it), calling it what it is: not an
// evidence file.
func suiteFileText(err error) string {
	var fe *check.FileError
	switch {
	case !errors.As(err, &fe):
		return err.Error()
	case errors.Is(err, check.ErrTotalTooLarge):
		return fmt.Sprintf("with it the suite's task files would be %d bytes, past the %d-byte cap on what a suite's includes read in all", fe.Size, fe.Limit)
	case errors.Is(err, check.ErrTooLarge):
		return fmt.Sprintf("%d bytes is over the %d-byte cap on a suite or task file", fe.Size, fe.Limit)
	}
	return errorText(err)
}

// taskFile reads a file holding a list of tasks.
func (l *loader) taskFile(file string, data []byte) []*Task {
	d := l.read(file, data, taskListValidator())
	if d == nil {
		return nil
	}
	items, _ := d.value.([]any)
	var tasks []*Task
	for i, item := range items {
		if _, ok := item.(map[string]any); ok {
			tasks = append(tasks, l.task(d, assert.IndexPointer("", i))...)
		}
	}
	return tasks
}

// task builds the task object at ptr. Its assert items are decoded (and
// their problems recorded) even when the task breaks the schema elsewhere;
// the task is returned, as a one-element slice, only when all is well.
func (l *loader) task(d *document, ptr string) []*Task {
	as := l.assertions(d, ptr)
	if as == nil || !d.valid(ptr) {
		return nil
	}
	// The schema has vouched for every member's type.
	m, _ := valueAt(d.value, ptr).(map[string]any)
	line, col := d.at(ptr)
	return []*Task{{ID: str(m["id"]), Intent: str(m["intent"]), Assert: as, Setup: strs(m["setup"]), Env: env(m["env"]),
		MaxTurns: integer(m["max_turns"]), Difficulty: str(m["difficulty"]), Category: str(m["category"]),
		Repeat: integer(m["repeat"]), File: d.file, Line: line, Column: col}}
}

// assertions decodes the assert items of the task at ptr through the
// registry of the CLI kinds. It returns nil when any item is bad (each is
// recorded as a problem) or there are none.
func (l *loader) assertions(d *document, taskPtr string) []assert.Assertion {
	seq := nodeAt(d.root, taskPtr+"/assert")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]assert.Assertion, 0, len(seq.Content))
	ok := true
	for j, item := range seq.Content {
		ptr := assert.IndexPointer(taskPtr+"/assert", j)
		if msg := keyProblem(item); msg != "" {
			ok = false
			l.add(d.problem(ptr, msg))
			continue
		}
		a, err := suiteRegistry().DecodeYAML(item)
		if err == nil {
			out = append(out, a)
			continue
		}
		ok = false
		var se *assert.SpecError
		if !errors.As(err, &se) || len(se.Violations) == 0 {
			l.add(d.problem(ptr, err.Error()))
			continue
		}
		for _, v := range se.Violations {
			p := d.problem(ptr+v.Pointer, v.Message)
			if v.Line > 0 {
				p.Line, p.Column = v.Line, v.Column
			}
			if se.Kind != "" && !errors.Is(se.Err, assert.ErrUnknownKind) {
				p.Message = se.Kind + ": " + v.Message
			}
			l.add(p)
		}
	}
	if !ok || len(out) == 0 {
		return nil
	}
	return out
}

// keyProblem says what is wrong with an assert item that is a mapping but
// not a single-key map naming a kind; "" when there is nothing to say here
// (the registry judges the rest).
func keyProblem(item *yaml.Node) string {
	m := deref(item)
	if m == nil || m.Kind != yaml.MappingNode {
		return ""
	}
	var keys []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		keys = append(keys, strconv.Quote(m.Content[i].Value))
	}
	switch {
	case len(keys) == 0:
		return "an assert item has exactly one key, its kind (such as exit_code: 0); this one has none"
	case len(keys) > 1:
		return fmt.Sprintf("an assert item has exactly one key, its kind (such as exit_code: 0); this one has %d: %s", len(keys), strings.Join(keys, ", "))
	case keys[0] == `"assert"`:
		return fmt.Sprintf("unknown kind \"assert\": an assert item is a single-key map such as exit_code: 0 (known kinds: %s)", strings.Join(Kinds(), ", "))
	}
	return ""
}

// checkIDs reports duplicate task ids and returns the tasks by id.
func (l *loader) checkIDs(tasks []*Task) map[string]*Task {
	byID := make(map[string]*Task, len(tasks))
	for _, t := range tasks {
		if first, dup := byID[t.ID]; dup {
			l.add(problemAt(t.File, t.Line, t.Column, "", fmt.Sprintf("duplicate task id %q (first defined at %s)", t.ID, first.location())))
			continue
		}
		byID[t.ID] = t
	}
	return byID
}

func (t *Task) location() string {
	if t.Line > 0 {
		return fmt.Sprintf("%s:%d:%d", t.File, t.Line, t.Column)
	}
	return t.File
}

// nodeAt returns the YAML node at a JSON pointer whose tokens need no
// unescaping (keys and indexes of the suite format), following aliases, or
// nil.
func nodeAt(n *yaml.Node, ptr string) *yaml.Node {
	n = deref(n)
	if n != nil && n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = deref(n.Content[0])
	}
	if ptr == "" {
		return n
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		if n == nil {
			return nil
		}
		switch n.Kind {
		case yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					next = n.Content[i+1]
					break
				}
			}
			n = deref(next)
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil
			}
			n = deref(n.Content[i])
		default:
			return nil
		}
	}
	return n
}

// deref follows aliases (a bounded number of hops).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// valueAt returns the value at ptr, a pointer made of plain keys and
// indexes, or nil.
func valueAt(v any, ptr string) any {
	if ptr == "" {
		return v
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		switch t := v.(type) {
		case map[string]any:
			v = t[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil
			}
			v = t[i]
		default:
			return nil
		}
	}
	return v
}

// Readers of values the schema has checked; a missing member reads as zero.

func str(v any) string {
	s, _ := v.(string)
	return s
}

func strs(v any) []string {
	list, _ := v.([]any)
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = str(x)
	}
	return out
}

func env(v any) map[string]string {
	m, _ := v.(map[string]any)
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		out[k] = str(x)
	}
	return out
}

func integer(v any) int {
	n, _ := v.(json.Number)
	i, _ := strconv.Atoi(n.String())
	return i
}

func isList(v any) bool {
	_, ok := v.([]any)
	return ok
}

func yamlKind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case nil:
		return "null"
	}
	return "a scalar"
}
