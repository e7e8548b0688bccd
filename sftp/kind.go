package sftp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/filekind"
	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/assaykit/assay/internal/pool"
	"github.com/assaykit/assay/internal/specjson"
	"github.com/assaykit/assay/internal/words"
	"github.com/tidwall/gjson"
)

// Kind is the discriminator of the SFTP file assertion.
const Kind = "sftp-file-present"

const schema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "sftp-file-present",
  "type": "object",
  "required": ["assert"],
  "additionalProperties": false,
  "oneOf": [{"required": ["path"]}, {"required": ["path_pattern"]}],
  "properties": {
    "assert": {"const": "sftp-file-present"},
    "path": {"type": "string", "minLength": 1},
    "path_pattern": {"type": "string", "minLength": 1},
    "parse_json": {"type": "boolean"},
    "fields": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["expected"],
        "additionalProperties": false,
        "oneOf": [{"required": ["key"]}, {"required": ["path"]}],
        "properties": {
          "key": {"type": "string", "minLength": 1},
          "path": {"type": "string", "minLength": 1},
          "expected": {"type": ["string", "number", "boolean", "null"]}
        }
      }
    }
  }
}`

// Register adds sftp-file-present to r, saying where it comes from and what
// it reads (the sftp/ folder of a snapshot).
func Register(r *assert.Registry) {
	r.Register(Kind, []byte(schema), decode, assert.From("github.com/assaykit/assay/sftp"),
		assert.Reads[Source](assert.Evidence{Name: "sftp", Folder: "sftp", Attach: "sftp.Attach"}),
		assert.Reports("matched", "field_results", "candidates", "matched_paths", "excluded"))
}

func init() { Register(assert.DefaultRegistry()) }

// filePresent is a decoded sftp-file-present assertion. It is immutable:
// the decoder builds it once from a validated spec.
type filePresent struct {
	written   string   // the path or pattern as written
	pattern   *Pattern // compiled; a literal path is a pattern without wildcards
	isPattern bool     // written as path_pattern
	parseJSON bool
	fields    []field
}

// field is one compiled field assertion: a literal top-level key, or a
// gjson path.
type field struct {
	key   bool
	name  string      // the key or path as written
	query check.Field // the gjson path to run (the key escaped) and expected
}

func decode(spec assert.Spec) (assert.Assertion, error) {
	obj := gjson.ParseBytes(spec)
	path, pathPattern := present(specjson.Member(obj, "path")), present(specjson.Member(obj, "path_pattern"))
	fields := specjson.Member(obj, "fields")
	parseJSON := specjson.Member(obj, "parse_json").Type == gjson.True
	a := &filePresent{parseJSON: parseJSON}
	switch {
	case (path == nil) == (pathPattern == nil):
		return nil, errors.New("give exactly one of path and path_pattern")
	case path != nil:
		a.written = path.Str
		clean, err := CleanPath(a.written)
		if err != nil {
			return nil, err
		}
		// A literal path: every character stands for itself.
		a.pattern = &Pattern{raw: a.written, literal: true, path: clean, prefix: parentOf(clean)}
	default:
		a.written, a.isPattern = pathPattern.Str, true
		p, err := CompilePattern(a.written)
		if err != nil {
			return nil, err
		}
		a.pattern = p
	}
	if len(fields.Array()) > 0 && !parseJSON {
		return nil, errors.New("fields need parse_json: true (only a JSON file has fields)")
	}
	i := 0
	var err error
	fields.ForEach(func(_, f gjson.Result) bool {
		key, path := present(specjson.Member(f, "key")), present(specjson.Member(f, "path"))
		var exp any
		if exp, err = check.ParseExpected([]byte(specjson.Member(f, "expected").Raw)); err != nil {
			err = fmt.Errorf("fields/%d: %w", i, err)
			return false
		}
		switch {
		case (key == nil) == (path == nil):
			err = fmt.Errorf("fields/%d: give exactly one of key and path", i)
			return false
		case key != nil:
			a.fields = append(a.fields, field{key: true, name: key.Str,
				query: check.Field{Path: check.LiteralKey(key.Str), Expected: exp}})
		default:
			a.fields = append(a.fields, field{name: path.Str, query: check.Field{Path: path.Str, Expected: exp}})
		}
		i++
		return true
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// present returns v when it holds a value (a member set to null is
// absent, as for a *string field of encoding/json), else nil.
func present(v gjson.Result) *gjson.Result {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	return &v
}

// Kind returns "sftp-file-present".
func (a *filePresent) Kind() string { return Kind }

// exclusion is a matched entry that is not a candidate, and why.
type exclusion struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// readConcurrency bounds the files one check reads at once.
const readConcurrency = 8

// Check finds the matching files and judges them. Evidence: {"matched",
// "field_results", "candidates", "matched_paths", "excluded"}.
func (a *filePresent) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, err := assert.Lookup[Source](env)
	if err != nil {
		return assert.Errored(err)
	}
	var (
		matched  []Entry
		excluded []exclusion
		held     int    // files under the folder searched
		note     string // why nothing could be found, for the details
	)
	if name, literal := a.pattern.Literal(); literal {
		e, err := src.Stat(ctx, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			note = "it does not exist"
		case err != nil:
			return assert.Errored(err)
		case e.Problem == "" && e.Resolved.IsDir():
			note = "it is a folder"
			if e.IsLink() {
				note = "it is a symbolic link to a folder"
			}
		default:
			held = 1
			matched = append(matched, e)
		}
	} else {
		prefix := a.pattern.Prefix()
		entries, err := src.Walk(ctx, prefix)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			note = fmt.Sprintf("the folder %s does not exist", display(prefix))
		case errors.Is(err, ErrNotFolder):
			note = fmt.Sprintf("%s is not a folder", display(prefix))
			if e, err := src.Stat(ctx, prefix); err == nil && e.IsLink() {
				note = fmt.Sprintf("%s is a symbolic link, and links are not followed into folders", display(prefix))
			}
		case err != nil:
			return assert.Errored(err)
		}
		for _, e := range entries {
			if e.Mode.IsDir() {
				continue
			}
			held++
			if a.pattern.Match(e.Path) {
				matched = append(matched, e)
			}
		}
	}
	paths := make([]string, len(matched))
	var cands []Entry
	for i, e := range matched {
		paths[i] = e.Path
		switch {
		case e.Problem != "":
			excluded = append(excluded, exclusion{e.Path, e.Problem})
		case !e.Resolved.IsRegular():
			what := filekind.Of(e.Resolved)
			if e.IsLink() {
				what = "a symbolic link to " + strings.TrimPrefix(what, "not ")
			}
			excluded = append(excluded, exclusion{e.Path, "not a regular file: " + what})
		default:
			cands = append(cands, e)
		}
	}
	docs := make([]doc, len(cands))
	if a.parseJSON {
		pool.Each(ctx, len(cands), readConcurrency, func(i int) {
			data, err := src.ReadFile(ctx, cands[i].Path, 0)
			docs[i] = parseDoc(data, err)
		})
		if err := ctx.Err(); err != nil {
			return assert.Errored(fmt.Errorf("reading the matched files: %w", err))
		}
		for _, d := range docs {
			if d.fatal != nil {
				return assert.Errored(d.fatal)
			}
		}
	}
	// Files that could not be read whole, and (with no fields to fail)
	// files that are not JSON, are not candidates.
	var items []int
	for i, e := range cands {
		switch d := docs[i]; {
		case d.skip != "":
			excluded = append(excluded, exclusion{e.Path, d.skip})
		case a.parseJSON && len(a.fields) == 0 && d.invalid != "":
			excluded = append(excluded, exclusion{e.Path, d.invalid})
		default:
			items = append(items, i)
		}
	}
	res := check.Candidates[int]{
		Items:  items,
		Fields: len(a.fields),
		Judge: func(_ int, i int) check.Candidate {
			return check.Candidate{Key: cands[i].Path, Results: a.judge(docs[i])}
		},
		Report: check.Report{Searched: "file", Held: held, Noun: "file"},
	}.Result()
	sortExclusions(excluded)
	ev := evidence{candidates: len(items), matchedPaths: paths, excluded: excluded, fields: a.fields}
	if ce, ok := res.Evidence.(check.Evidence); ok {
		ev.matched, ev.results = ce.Matched, ce.FieldResults
	}
	res.Evidence = ev
	if len(items) == 0 {
		res.Details = a.noCandidate(held, note, excluded)
	} else if len(excluded) > 0 {
		res.Details += " Not candidates: " + listExclusions(excluded) + "."
	}
	res.Details = assert.Truncate(res.Details)
	return res
}

// doc is a matched file as read for parse_json.
type doc struct {
	data    []byte
	invalid string // why the file is not JSON
	skip    string // why the file is not a candidate (not read whole)
	fatal   error  // the tree could not be read: status error
}

func parseDoc(data []byte, err error) doc {
	switch {
	case errors.Is(err, check.ErrTooLarge):
		var fe *check.FileError
		if errors.As(err, &fe) && fe.Size > 0 {
			return doc{skip: fmt.Sprintf("%d bytes, over the %d-byte cap on a file; not read", fe.Size, fe.Limit)}
		}
		return doc{skip: "over the size cap on a file; not read"}
	case errors.Is(err, check.ErrNotRegular):
		return doc{skip: "not a regular file when read"}
	case errors.Is(err, fs.ErrPermission):
		return doc{skip: "cannot be read: permission denied"}
	case errors.Is(err, fs.ErrNotExist):
		return doc{skip: "gone when read"}
	case err != nil:
		return doc{fatal: err}
	}
	d := doc{data: data}
	if len(bytes.TrimSpace(data)) == 0 {
		d.invalid = "not JSON: the file is empty"
		if len(data) > 0 {
			d.invalid = "not JSON: the file holds only whitespace"
		}
		return d
	}
	if !jsonvalue.Valid(data) {
		var syn *json.SyntaxError
		if err := json.Unmarshal(data, new(json.RawMessage)); errors.As(err, &syn) {
			off := int(syn.Offset)
			if off > 0 {
				off-- // the offset is just past the offending byte
			}
			line, col := assert.LineColumn(data, min(off, len(data)))
			d.invalid = fmt.Sprintf("not JSON: %s at line %d, column %d", syn.Error(), line, col)
		} else {
			d.invalid = "not JSON"
		}
	}
	return d
}

// judge evaluates every field against one file.
func (a *filePresent) judge(d doc) []check.FieldResult {
	out := make([]check.FieldResult, len(a.fields))
	for j, f := range a.fields {
		if d.invalid != "" {
			out[j] = check.FieldResult{Path: f.name, Expected: f.query.Expected, Reason: "the file is " + d.invalid}
			continue
		}
		var res gjson.Result
		if !f.key {
			res = gjson.GetBytes(d.data, f.query.Path)
		} else if root := gjson.ParseBytes(d.data); root.IsObject() {
			// A key is a member of the top-level object, nothing else:
			// not an array index, not a path.
			res = root.Get(f.query.Path)
		}
		r := check.JSONFieldResult(f.query, res)
		r.Path = f.name
		out[j] = r
	}
	return out
}

func (a *filePresent) what() string {
	if a.isPattern {
		return fmt.Sprintf("No file matched %s", strconv.Quote(a.written))
	}
	return fmt.Sprintf("No regular file at %s", strconv.Quote(a.written))
}

func (a *filePresent) noCandidate(held int, note string, excluded []exclusion) string {
	s := a.what()
	switch {
	case note != "":
		s += "; " + note
	case a.isPattern:
		s += fmt.Sprintf(" among the %s under %s", plural(held, "file"), display(a.pattern.Prefix()))
	}
	if len(excluded) > 0 {
		s += "; not candidates: " + listExclusions(excluded)
	}
	return s + "."
}

func plural(n int, noun string) string { return words.Count(n, noun) }

// listExclusions names the first few exclusions with their reasons.
func listExclusions(ex []exclusion) string {
	const show = 3
	parts := make([]string, 0, show+1)
	for i, x := range ex {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(ex)-show))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", x.Path, x.Reason))
	}
	return strings.Join(parts, ", ")
}

// sortExclusions puts exclusions, found in two passes, in byte order of
// path, as matched_paths is.
func sortExclusions(ex []exclusion) {
	slices.SortStableFunc(ex, func(a, b exclusion) int { return strings.Compare(a.Path, b.Path) })
}

// evidence is the Result.Evidence of sftp-file-present.
type evidence struct {
	matched      any
	results      []check.FieldResult
	fields       []field
	candidates   int
	matchedPaths []string
	excluded     []exclusion
}

// keyResult is a field result of a key field.
type keyResult struct {
	Key      string `json:"key"`
	Expected any    `json:"expected"`
	Actual   any    `json:"actual"`
	Passed   bool   `json:"passed"`
	Reason   string `json:"reason,omitempty"`
}

// MarshalJSON writes {"matched", "field_results", "candidates",
// "matched_paths", "excluded"}; a key field's result names its key under
// "key" in place of "path".
func (e evidence) MarshalJSON() ([]byte, error) {
	results := make([]any, len(e.results))
	for i, r := range e.results {
		if i < len(e.fields) && e.fields[i].key {
			results[i] = keyResult{Key: r.Path, Expected: r.Expected, Actual: r.Actual, Passed: r.Passed, Reason: r.Reason}
		} else {
			results[i] = r
		}
	}
	paths, excluded := e.matchedPaths, e.excluded
	if paths == nil {
		paths = []string{}
	}
	if excluded == nil {
		excluded = []exclusion{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i, m := range []struct {
		key string
		v   any
	}{{"matched", e.matched}, {"field_results", results}, {"candidates", e.candidates},
		{"matched_paths", paths}, {"excluded", excluded}} {
		if i == 0 {
			b.WriteByte('{')
		} else {
			b.Truncate(b.Len() - 1) // Encode's newline
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(m.key) + ":")
		if err := enc.Encode(m.v); err != nil {
			return nil, err
		}
	}
	b.Truncate(b.Len() - 1)
	b.WriteByte('}')
	return b.Bytes(), nil
}
