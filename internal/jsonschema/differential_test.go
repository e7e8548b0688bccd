package jsonschema_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"

	v5 "github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/assaykit/assay/internal/jsonschema"
)

// oracle is a schema compiled by both validators.
type oracle struct {
	name string
	ours *jsonschema.Schema
	v5   *v5.Schema
}

func compileBoth(t testing.TB, name string, src []byte) *oracle {
	t.Helper()
	ours, err := jsonschema.Compile(src)
	if err != nil {
		t.Fatalf("%s: ours: %v", name, err)
	}
	theirs, err := compileV5(src)
	if err != nil {
		t.Fatalf("%s: jsonschema/v5: %v", name, err)
	}
	return &oracle{name, ours, theirs}
}

func compileV5(src []byte) (*v5.Schema, error) {
	c := v5.NewCompiler()
	c.Draft = v5.Draft2020
	const u = "https://schemas.assaykit.dev/oracle.json"
	if err := c.AddResource(u, bytes.NewReader(src)); err != nil {
		return nil, err
	}
	return c.Compile(u)
}

// leaf is one violation as compared: instance pointer and message.
type leaf struct{ ptr, msg string }

func (l leaf) String() string { return fmt.Sprintf("%q: %s", l.ptr, l.msg) }

// v5Leaves flattens jsonschema/v5's error tree to its leaves, as
// assert.collectViolations did before this package replaced it. Pointers
// are RFC 6901 (v5 percent-encodes tokens as URL paths: decoded here).
func v5Leaves(err error) ([]leaf, error) {
	if err == nil {
		return nil, nil
	}
	var ve *v5.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []leaf
	var walk func(e *v5.ValidationError)
	walk = func(e *v5.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		out = append(out, leaf{unescapeV5(e.InstanceLocation), normalize(e.Message)})
	}
	walk(ve)
	return out, nil
}

func unescapeV5(ptr string) string {
	if ptr == "" {
		return ""
	}
	toks := strings.Split(ptr[1:], "/")
	for i, tok := range toks {
		if u, err := url.PathUnescape(tok); err == nil {
			toks[i] = u
		}
	}
	return "/" + strings.Join(toks, "/")
}

// normalize sorts the quoted names of an additionalProperties message:
// jsonschema/v5 lists them in map order, this package by name.
func normalize(msg string) string {
	const pre, post = "additionalProperties ", " not allowed"
	if !strings.HasPrefix(msg, pre) || !strings.HasSuffix(msg, post) {
		return msg
	}
	names := splitQuoted(msg[len(pre) : len(msg)-len(post)])
	sort.Strings(names)
	return pre + strings.Join(names, ", ") + post
}

// splitQuoted splits "'a', 'b\'c'" into its quoted parts.
func splitQuoted(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '\'' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != '\'' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) {
			j = len(s) - 1
		}
		out = append(out, s[i:j+1])
		i = j
	}
	return out
}

func ourLeaves(vs []jsonschema.Violation) []leaf {
	out := make([]leaf, len(vs))
	for i, v := range vs {
		out[i] = leaf{v.InstanceLocation, normalize(v.Message)}
	}
	return out
}

func leafSet(ls []leaf) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range ls {
		s := l.String()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// agree validates doc with both and describes any difference ("" when
// they agree). skip is true when jsonschema/v5 itself cannot judge doc
// (it panics on numbers math/big cannot read).
func (o *oracle) agree(doc any) (diff string, skip bool) {
	if hasEmptyKey(doc) {
		// jsonschema/v5 locates the member "" at its parent ("" rather
		// than "/"): a known difference, this package follows RFC 6901.
		return "", true
	}
	var theirs []leaf
	var v5err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				skip = true
			}
		}()
		theirs, v5err = v5Leaves(o.v5.Validate(doc))
	}()
	if skip {
		return "", true
	}
	if v5err != nil {
		return "", true
	}
	violations := o.ours.Validate(doc)
	for _, v := range violations {
		if strings.HasSuffix(v.KeywordLocation, "/enum") && strings.Contains(v.Message, "%") {
			// jsonschema/v5 uses an enum's message as a format string, so
			// a '%' in an enum value garbles it ("%!"(MISSING)", or "%"
			// for "%%"); this package prints the value as it is.
			return "", true
		}
	}
	ours := leafSet(ourLeaves(violations))
	want := leafSet(theirs)
	if strings.Join(ours, "\n") == strings.Join(want, "\n") {
		return "", false
	}
	return fmt.Sprintf("schema %s:\n  ours: %q\n  v5:   %q", o.name, ours, want), false
}

// TestDifferentialRepository validates the repository corpus, and
// mutations of every spec in it, against every repository schema with both
// validators: same verdict, same leaf violations.
func TestDifferentialRepository(t *testing.T) {
	var oracles []*oracle
	byKind := map[string][]*oracle{}
	for _, s := range repoSchemas(t) {
		o := compileBoth(t, s.name, s.src)
		oracles = append(oracles, o)
		if k, ok := strings.CutPrefix(s.name, "kind "); ok {
			k = strings.TrimSuffix(k, " (lenient)")
			byKind[k] = append(byKind[k], o)
		}
		if strings.HasPrefix(s.name, "criterion") {
			byKind[""] = append(byKind[""], o)
		}
	}
	files := repoCorpus(t)
	checked, failures, invalid := 0, 0, 0
	check := func(o *oracle, where string, doc any) {
		checked++
		if len(o.ours.Validate(doc)) > 0 {
			invalid++
		}
		if diff, _ := o.agree(doc); diff != "" {
			failures++
			if failures <= 20 {
				t.Errorf("%s: %s", where, diff)
			}
		}
	}
	for _, f := range files {
		for _, d := range subdocuments(f.value, 200) {
			for _, o := range oracles {
				check(o, f.path, d)
			}
		}
		for _, spec := range specsIn(f.value) {
			kind, _ := spec["assert"].(string)
			targets := byKind[kind]
			if kind == "" {
				targets = byKind[""]
			}
			for _, m := range mutations(spec, 400) {
				for _, o := range targets {
					check(o, f.path+" (mutated)", m)
				}
			}
		}
	}
	if failures > 0 {
		t.Fatalf("%d of %d validations disagree", failures, checked)
	}
	if invalid == 0 || invalid == checked {
		t.Fatalf("%d of %d validations failed: the corpus does not exercise both verdicts", invalid, checked)
	}
	t.Logf("%d files, %d validations agree (%d of them invalid)", len(files), checked, invalid)
}

func hasEmptyKey(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if k == "" || hasEmptyKey(c) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if hasEmptyKey(c) {
				return true
			}
		}
	}
	return false
}
