package clitask

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/jsonkind"
	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/tidwall/gjson"
)

// Command is one command of a trace: the full command string as given to the
// shell and what came of it.
type Command struct {
	Command    string `json:"command"`
	ExitCode   int    `json:"exit_code"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	DurationMS int64  `json:"duration_ms"`
	// Capped is, for a command this package ran, the executor's output cap
	// in bytes when stdout or stderr was cut at it; 0 when nothing was cut
	// (and always in a trace read from JSON). A Shell's record then ends the
	// cut stream with a note saying how much was dropped; a Verify record
	// holds only what was captured.
	Capped int `json:"-"`
}

// Trace is the evidence of one task run: the working directory and the
// commands in the order they ran.
type Trace struct {
	// Workdir is the task's working directory. Traces read from a file hold
	// it as an absolute path (a relative one is resolved against the file's
	// folder); "" means unknown, and the checks that look at files report
	// status error, as they do when it does not exist.
	Workdir  string    `json:"workdir"`
	Commands []Command `json:"commands"`
}

// Last returns the last command, or false when no command ran.
func (t *Trace) Last() (Command, bool) {
	if t == nil || len(t.Commands) == 0 {
		return Command{}, false
	}
	return t.Commands[len(t.Commands)-1], true
}

// Run is one recorded run of a task, as the multi-run trace file holds it.
type Run struct {
	// Name names the run ("run"), as assay run --out writes it: the name of
	// its working directory (see RunName).
	Name string `json:"run,omitempty"`
	// TaskID names the suite task the run attempted.
	TaskID string `json:"task_id,omitempty"`
	// Model is the model that ran it; "" counts as DefaultModel.
	Model string `json:"model,omitempty"`
	// HelpMode is the help mode it ran in; "" when unknown.
	HelpMode string `json:"help_mode,omitempty"`
	// Error, when not "", says how the attempt broke down: the run counts
	// as failed, with this message.
	Error string `json:"error,omitempty"`
	Trace
}

// TraceError reports a trace file that cannot be read. Its Location holds
// the file, the 1-based line and column of the offending value (syntax and
// type errors) and its JSON pointer.
type TraceError struct {
	assert.Location
	Message string
	Err     error
}

// Error renders "file:line:col: /pointer: message", leaving out what is
// unknown.
func (e *TraceError) Error() string { return e.Location.Prefix(e.Message) }

// Unwrap returns the underlying cause.
func (e *TraceError) Unwrap() error { return e.Err }

// ReadRuns reads a trace file named on a command line: {"runs": [run, ...]}
// or a single run object {"task_id"?, "model"?, "workdir", "commands":
// [...]}. Relative workdirs are resolved against the file's folder. The file
// must be a regular file (a symbolic link to one is followed) of at most
// check.DefaultMaxFileSize bytes; anything else is a *TraceError wrapping a
// *check.FileError, never a hang on a FIFO.
func ReadRuns(path string) ([]Run, error) {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, &TraceError{Location: assert.Location{File: path}, Message: err.Error(), Err: err}
	}
	data, err := check.ReadFile(os.DirFS(dir), filepath.Base(path), 0)
	if err != nil {
		return nil, &TraceError{Location: assert.Location{File: path}, Message: errorText(err), Err: err}
	}
	runs, err := ParseRuns(data, dir)
	if err != nil {
		var te *TraceError
		if errors.As(err, &te) {
			te.File = path
		}
		return nil, err
	}
	return runs, nil
}

// ParseRuns parses a trace document (see ReadRuns). dir, when not empty, is
// the folder relative workdirs resolve against. Unknown members are ignored,
// so traces written by other harnesses (with timestamps, say) read; a member
// of the wrong type, a command without "command" or "exit_code", and a run
// without "commands" are errors. The error is a *TraceError.
func ParseRuns(data []byte, dir string) ([]Run, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !jsonvalue.Valid(data) {
		return nil, syntaxError(data)
	}
	p := parser{data: data, dir: dir}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return nil, p.fail(root, "", fmt.Sprintf(`a trace must be a JSON object: a run, or {"runs": [...]}, not %s`, jsonkind.OfResult(root)))
	}
	runs := root.Get("runs")
	if !runs.Exists() || runs.Type == gjson.Null {
		r, err := p.run(root, "")
		if err != nil {
			return nil, err
		}
		return []Run{r}, nil
	}
	if !runs.IsArray() {
		return nil, p.typeError(runs, "/runs", "runs", "an array of runs")
	}
	var out []Run
	var err error
	i := 0
	runs.ForEach(func(_, v gjson.Result) bool {
		ptr := "/runs/" + strconv.Itoa(i)
		i++
		switch {
		case v.Type == gjson.Null:
			err = p.fail(v, ptr, "a run must be a JSON object, not null")
		case !v.IsObject():
			err = p.typeError(v, ptr, "runs", "a run object")
		default:
			var r Run
			r, err = p.run(v, ptr)
			out = append(out, r)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []Run{}
	}
	return out, nil
}

// parser reads a trace document that is valid JSON.
type parser struct {
	data []byte
	dir  string
}

// fail is a TraceError at v.
func (p *parser) fail(v gjson.Result, ptr, msg string) *TraceError {
	line, col := assert.LineColumn(p.data, v.Index)
	return &TraceError{Location: assert.Location{Line: line, Column: col, Pointer: ptr}, Message: msg}
}

// typeError says that the member name at ptr is not of the type want.
func (p *parser) typeError(v gjson.Result, ptr, name, want string) *TraceError {
	return p.fail(v, ptr, fmt.Sprintf("%s must be %s, not %s", name, want, jsonkind.OfResult(v)))
}

// str reads an optional string member: missing and null read as "".
func (p *parser) str(v gjson.Result, ptr, name string) (string, error) {
	switch v.Type {
	case gjson.String:
		return v.Str, nil
	case gjson.Null:
		return "", nil
	}
	return "", p.typeError(v, ptr, name, "a string")
}

func (p *parser) run(obj gjson.Result, ptr string) (Run, error) {
	var r Run
	var commands gjson.Result
	var err error
	obj.ForEach(func(k, v gjson.Result) bool {
		at := ptr + "/" + k.Str
		switch k.Str {
		case "task_id":
			r.TaskID, err = p.str(v, at, k.Str)
		case "model":
			r.Model, err = p.str(v, at, k.Str)
		case "run":
			r.Name, err = p.str(v, at, k.Str)
		case "help_mode":
			r.HelpMode, err = p.str(v, at, k.Str)
		case "error":
			r.Error, err = p.str(v, at, k.Str)
		case "workdir":
			r.Workdir, err = p.str(v, at, k.Str)
		case "commands":
			commands = v
		}
		return err == nil
	})
	if err != nil {
		return Run{}, err
	}
	if r.Workdir != "" && !filepath.IsAbs(r.Workdir) && p.dir != "" {
		r.Workdir = filepath.Join(p.dir, r.Workdir)
	}
	switch {
	case !commands.Exists() || commands.Type == gjson.Null:
		return Run{}, p.fail(obj, ptr, `a run needs "commands" (an array, empty when nothing ran)`)
	case !commands.IsArray():
		return Run{}, p.typeError(commands, ptr+"/commands", "commands", "an array of commands")
	}
	r.Commands = make([]Command, 0, int(commands.Get("#").Int()))
	i := 0
	commands.ForEach(func(_, v gjson.Result) bool {
		at := ptr + "/commands/" + strconv.Itoa(i)
		i++
		var c Command
		c, err = p.command(v, at)
		r.Commands = append(r.Commands, c)
		return err == nil
	})
	if err != nil {
		return Run{}, err
	}
	return r, nil
}

func (p *parser) command(obj gjson.Result, at string) (Command, error) {
	switch {
	case obj.Type == gjson.Null:
		return Command{}, p.fail(obj, at, "a command must be a JSON object, not null")
	case !obj.IsObject():
		return Command{}, p.typeError(obj, at, "commands", "a command object")
	}
	var c Command
	var command, exit, duration gjson.Result
	var err error
	obj.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "command":
			command = v
		case "exit_code":
			exit = v
		case "duration_ms":
			duration = v
		case "stdout":
			c.Stdout, err = p.str(v, at+"/stdout", k.Str)
		case "stderr":
			c.Stderr, err = p.str(v, at+"/stderr", k.Str)
		}
		return err == nil
	})
	if err != nil {
		return Command{}, err
	}
	switch command.Type {
	case gjson.String:
		c.Command = command.Str
	case gjson.Null:
		return Command{}, p.fail(obj, at, `a command needs "command" (the command string)`)
	default:
		return Command{}, p.typeError(command, at+"/command", "command", "a string")
	}
	if !exit.Exists() || exit.Type == gjson.Null {
		return Command{}, p.fail(obj, at+"/exit_code", "missing: a command needs its exit code")
	}
	code, cerr := strconv.ParseInt(exit.Raw, 10, 32)
	if exit.Type != gjson.Number || cerr != nil {
		return Command{}, p.fail(exit, at+"/exit_code", fmt.Sprintf("must be an integer (32-bit), not %s", exit.Raw))
	}
	c.ExitCode = int(code)
	if duration.Exists() && duration.Type != gjson.Null {
		f, ferr := strconv.ParseFloat(duration.Raw, 64)
		if duration.Type != gjson.Number || ferr != nil || f < 0 || f > math.MaxInt64/2 {
			return Command{}, p.fail(duration, at+"/duration_ms", fmt.Sprintf("must be a number of milliseconds >= 0, not %s", duration.Raw))
		}
		c.DurationMS = int64(math.Round(f))
	}
	return c, nil
}

// syntaxError locates the first syntax error of data, which is not JSON.
func syntaxError(data []byte) error {
	te := &TraceError{Location: assert.Location{Line: 1, Column: 1}, Message: "not JSON"}
	var v any
	err := json.Unmarshal(data, &v)
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		// Offset counts the bytes read, the offending one included.
		te.Line, te.Column = assert.LineColumn(data, int(syn.Offset)-1)
		te.Message, te.Err = "not JSON: "+syn.Error(), err
	} else if err != nil {
		te.Message, te.Err = "not JSON: "+err.Error(), err
	}
	return te
}
