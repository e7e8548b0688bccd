package command

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/hl7"
	"github.com/assaykit/assay/x12"
)

// lintCriteria reports what a criteria file's schemas cannot see, for
// every criterion whatever else is wrong with it (so that one problem does
// not hide another until it is fixed): two criteria with one id, a
// criterion pattern that is not a regular expression (it would be matched
// as a plain substring), an SFTP path or pattern whose wildcards eval reads
// as plain characters, and a path that can never match its kind's
// evidence (a JSON path with an empty segment, an HL7 or X12 path that does
// not parse). data is the criteria list as JSON (a list, or {"data":
// [...]}).
func lintCriteria(data []byte) (problems, warnings assert.CriteriaErrors) {
	doc := gjson.ParseBytes(data)
	base := ""
	if doc.IsObject() {
		doc, base = doc.Get("data"), "/data"
	}
	if !doc.IsArray() {
		return nil, nil
	}
	var out assert.CriteriaErrors
	add := func(ptr, format string, args ...any) {
		out = append(out, &assert.CriteriaError{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
	// A pattern that is not a regular expression still works (as a
	// substring), so it is a warning, as it is in a suite.
	warn := func(ptr, format string, args ...any) {
		warnings = append(warnings, &assert.CriteriaError{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
	firstID := map[string]string{}
	for i, c := range doc.Array() {
		ptr := base + "/" + strconv.Itoa(i)
		if id := c.Get("id"); id.Type == gjson.String && id.Str != "" {
			if first, dup := firstID[id.Str]; dup {
				add(ptr+"/id", "duplicate criterion id %q (first used at %s): results and the API tell criteria apart by id", id.Str, first)
			} else {
				firstID[id.Str] = ptr + "/id"
			}
		}
		a := c.Get("assertion")
		if !a.IsObject() {
			continue
		}
		kind := a.Get("assert").String()
		aptr := ptr + "/assertion"
		if !a.Get("assert").Exists() {
			// The cli-bench shape {KIND: VALUE}.
			a.ForEach(func(k, _ gjson.Result) bool { kind = k.Str; return false })
		}
		switch kind {
		case "ran", "not_ran":
			lintPattern(a.Get(escapeGJSON(kind)), aptr+"/"+kind, warn)
		case "run_count":
			lintPattern(a.Get("run_count.pattern"), aptr+"/run_count/pattern", warn)
		case "sftp-file-present":
			lintFields(a.Get("fields"), aptr+"/fields", "path", lintJSONPath, add)
			lintSFTPPath(a, aptr, warn)
		case "fhir-resource-state":
			lintFields(a.Get("fields"), aptr+"/fields", "path", lintJSONPath, add)
		case "portal-state-match":
			lintFields(a.Get("assertions"), aptr+"/assertions", "path", lintJSONPath, add)
		case "hl7-structural":
			lintFields(a.Get("fields"), aptr+"/fields", "path", lintHL7Path, add)
			lintKeys(a.Get("correlate_by"), aptr+"/correlate_by", hl7Names, lintHL7Path, add)
		case "x12-response":
			lintFields(a.Get("fields"), aptr+"/fields", "path", lintX12Path, add)
		}
	}
	return out, warnings
}

// escapeGJSON escapes the characters a gjson path treats specially.
func escapeGJSON(key string) string {
	r := strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`, "#", `\#`, "|", `\|`, "@", `\@`)
	return r.Replace(key)
}

func lintPattern(p gjson.Result, ptr string, add func(string, string, ...any)) {
	if p.Type != gjson.String {
		return
	}
	if err := clitask.CompilePattern(p.Str).Fallback(); err != nil {
		add(ptr, "%q is not a regular expression (%v): it would be matched as a plain substring; escape it, or write the text you mean", p.Str, err)
	}
}

// lintSFTPPath warns of an sftp-file-present path or path_pattern that
// eval reads otherwise than its author likely meant. A path_pattern has *,
// ? and ** and nothing else: "[", "]", "{" and "}" stand for themselves (as
// sftp.Pattern documents), so "outbound/[" names a file called "[" and
// eval reports it absent, not an error; and a path is literal, so a "*" or
// "?" in it is that character. Both are warnings, as a pattern that is not
// a regular expression is. What eval refuses (a trailing "\", "..") is
// already an error of the kind's decoder.
func lintSFTPPath(a gjson.Result, ptr string, warn func(string, string, ...any)) {
	if p := a.Get("path_pattern"); p.Type == gjson.String {
		for i := 0; i < len(p.Str); i++ {
			switch c := p.Str[i]; c {
			case '\\':
				i++
			case '[', ']', '{', '}':
				warn(ptr+"/path_pattern", "%q: %q is not a wildcard in a path_pattern (it has *, ? and **, no [...] classes or {a,b} choices): it matches only a name holding %q; escape it with a backslash if that is what you mean",
					p.Str, string(c), string(c))
				return
			}
		}
	}
	if p := a.Get("path"); p.Type == gjson.String && strings.ContainsAny(p.Str, "*?") {
		warn(ptr+"/path", "%q is a literal path, so its * or ? matches only that character; for a wildcard, write it as path_pattern", p.Str)
	}
}

// lintFields checks the paths of a list of field assertions.
func lintFields(list gjson.Result, ptr, key string, lint func(string) string, add func(string, string, ...any)) {
	if !list.IsArray() {
		return
	}
	for i, f := range list.Array() {
		if p := f.Get(key); p.Type == gjson.String {
			if msg := lint(p.Str); msg != "" {
				add(ptr+"/"+strconv.Itoa(i)+"/"+key, "%s", msg)
			}
		}
	}
}

// hl7Names are the names correlate_by takes besides HL7 paths.
var hl7Names = map[string]bool{"message_type": true, "trigger_event": true, "message_structure": true,
	"control_id": true, "sending_application": true, "receiving_application": true}

// lintKeys checks the keys of a correlate_by map that are paths.
func lintKeys(m gjson.Result, ptr string, names map[string]bool, lint func(string) string, add func(string, string, ...any)) {
	if !m.IsObject() {
		return
	}
	m.ForEach(func(k, _ gjson.Result) bool {
		if !names[k.Str] {
			if msg := lint(k.Str); msg != "" {
				add(ptr+"/"+assert.EscapePointer(k.Str), "%s", msg)
			}
		}
		return true
	})
}

// lintJSONPath reports a JSON path that can never select a value: one with
// an empty segment ("name..family", a leading or trailing dot).
func lintJSONPath(p string) string {
	if p == "" {
		return "the path is empty: it can never select a value"
	}
	depth := 0
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) {
			switch p[i] {
			case '\\':
				i++
				continue
			case '(', '[', '{':
				depth++
				continue
			case ')', ']', '}':
				depth--
				continue
			case '.', '|':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		if i == start && (i < len(p) || start > 0) {
			return fmt.Sprintf("path %q has an empty segment at character %d: it can never select a value", p, i+1)
		}
		start = i + 1
	}
	return ""
}

func lintHL7Path(p string) string {
	if _, err := hl7.ParsePath(p); err != nil {
		return err.Error()
	}
	return ""
}

func lintX12Path(p string) string {
	if _, err := x12.ParsePath(p); err != nil {
		return err.Error()
	}
	return ""
}
