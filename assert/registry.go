package assert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/assaykit/assay/internal/jsonkind"
	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/assaykit/assay/internal/suggest"
)

// Assertion is the decoded, validated form of a Spec.
type Assertion interface {
	// Kind is the discriminator the assertion was decoded from.
	Kind() string
	// Check judges the evidence in env. It must not panic; a source it
	// needs that env lacks, or cannot read, gives StatusError.
	Check(ctx context.Context, env *Env) Result
}

// DecodeFunc builds an Assertion from a spec that has already passed its
// kind's schema. The spec always has the {"assert": KIND, ...} shape (a
// single-key cli-bench spec arrives as {"assert": KIND, KIND: VALUE}). An
// error it returns is reported as a violation of the spec.
type DecodeFunc func(spec Spec) (Assertion, error)

// ErrUnknownKind is wrapped by the SpecError of a spec whose kind no
// registry entry knows.
var ErrUnknownKind = errors.New("unknown assertion kind")

// SpecError reports a spec that cannot be decoded: not an object, no kind,
// an unknown kind, or violations of the kind's schema.
type SpecError struct {
	// Kind is the spec's discriminator, when it has one.
	Kind string
	// Violations lists every problem found, each with its JSON pointer
	// (relative to the spec) and, for YAML input, its line and column.
	Violations []Violation
	// Err is the underlying cause, such as ErrUnknownKind, when there is one.
	Err error
}

func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString("invalid assertion")
	if e.Kind != "" {
		b.WriteString(" ")
		b.WriteString(strconv.Quote(e.Kind))
	}
	for i, v := range e.Violations {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *SpecError) Unwrap() error { return e.Err }

// entry is one registered kind. Its schema is compiled on first use, not at
// Register: a program that imports every kind but decodes two pays for two
// (compiling all sixteen schemas was most of the command's start-up).
type entry struct {
	kind    string
	schema  []byte
	lenient bool
	decode  DecodeFunc
	keys    []string // Reports

	once      sync.Once
	validator *Validator
	err       error
}

// compiled returns the entry's validator, compiling it on first use.
func (e *entry) compiled() (*Validator, error) {
	e.once.Do(func() {
		e.validator, e.err = NewValidator(e.kind, e.schema, e.lenient)
		if e.err != nil {
			e.err = fmt.Errorf("the schema registered for %q does not compile: %w", e.kind, e.err)
		}
	})
	return e.validator, e.err
}

// Registry maps a kind (the discriminator) to a JSON Schema and a DecodeFunc.
//
// The package-level functions use DefaultRegistry, which the domain packages
// fill from their init functions. A Registry made with NewRegistry and filled
// by calling the domain packages' Register functions gives a program only the
// kinds it wants. A Registry is safe for concurrent use.
type Registry struct {
	mu      sync.RWMutex
	kinds   map[string]*entry
	lenient bool
}

// RegistryOption configures a Registry.
type RegistryOption func(*Registry)

// AllowUnknownKeys makes the registry accept keys its schemas do not know,
// for specs written for a newer version of a kind. By default unknown keys
// are violations, so that a typo such as "expect" for "expected" is loud.
func AllowUnknownKeys() RegistryOption { return func(r *Registry) { r.lenient = true } }

// NewRegistry returns an empty registry.
func NewRegistry(opts ...RegistryOption) *Registry {
	r := &Registry{kinds: map[string]*entry{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

var defaultRegistry = NewRegistry()

// DefaultRegistry returns the registry the package-level functions use.
func DefaultRegistry() *Registry { return defaultRegistry }

// Register adds a kind with its JSON Schema (draft 2020-12, describing the
// whole {"assert": KIND, ...} object) and its decoder. Like database/sql's
// Register it panics on a programmer error: an empty kind, a kind registered
// twice, a nil decoder, or a schema that is not JSON. The schema is
// compiled when the kind is first decoded; a schema that does not compile
// then makes every spec of the kind invalid, saying so (each kind's tests
// decode it, so this never reaches a user). Schemas are compiled by
// github.com/santhosh-tekuri/jsonschema/v5 as draft 2020-12, with
// references inside the schema document only (see Validator). Options
// tell the registry what its messages and the published schema of results
// need to know about the kind (From, Reads, Reports).
func (r *Registry) Register(kind string, schema []byte, decode DecodeFunc, opts ...KindOption) {
	if kind == "" {
		panic("assert: Register with an empty kind")
	}
	if decode == nil {
		panic("assert: Register " + kind + " with a nil DecodeFunc")
	}
	if !jsonvalue.Valid(schema) {
		panic("assert: Register " + kind + ": the schema is not JSON")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.kinds[kind]; dup {
		panic("assert: Register called twice for kind " + kind)
	}
	var about kindAbout
	for _, opt := range opts {
		opt(&about)
	}
	if about.pkg != "" {
		kindPackages.Store(kind, about.pkg)
	}
	if about.source != nil {
		evidence.Store(about.source, about.evidence)
	}
	r.kinds[kind] = &entry{kind: kind, schema: bytes.Clone(schema), lenient: r.lenient, decode: decode, keys: about.keys}
}

// A KindOption tells registries what they need to know about a kind, when
// the kind is registered: where it comes from and what evidence it reads
// (for every registry's messages), and what its evidence holds (for the
// registry it is registered in). The messages of a kind registered without them name
// what the registry and the Env know, its kind and its source's Go type.
type KindOption func(*kindAbout)

// kindAbout is what the options of one Register call say.
type kindAbout struct {
	pkg      string
	source   reflect.Type
	evidence Evidence
	keys     []string
}

// kindPackages maps a kind to the import path of the package that
// registers it (From), for a registry that lacks the kind.
var kindPackages sync.Map // string -> string

// From says that the kind is registered by the package with import path
// pkg (whose Register function adds it): decoding it through a registry
// that lacks it names that package.
func From(pkg string) KindOption { return func(a *kindAbout) { a.pkg = pkg } }

// Evidence describes the evidence a kind's checks read, for the message of
// a check whose source is missing (MissingSourceError).
type Evidence struct {
	// Name is what the evidence is called: "hl7" reads "no hl7 evidence".
	// Empty, it is the last element of the source type's package path.
	Name string
	// Folder is the folder of a sandbox snapshot that holds the evidence,
	// "cli" for sandbox/cli/; empty when no folder does.
	Folder string
	// Attach names what attaches a source in Go, such as "hl7.Attach";
	// empty, it is assert.Attach with the source's type.
	Attach string
}

// evidence maps a source type (reflect.Type) to its Evidence (Reads).
var evidence sync.Map

// Reads says that the kind's checks look up a source of type S
// (Lookup[S]), the evidence e: when a check finds none, its error names
// the evidence, the snapshot folder that holds it and what attaches it in
// Go.
func Reads[S any](e Evidence) KindOption {
	t := reflect.TypeFor[S]()
	if e.Name == "" {
		e.Name = sourceName(t)
	}
	if e.Attach == "" {
		e.Attach = "assert.Attach[" + t.String() + "]"
	}
	return func(a *kindAbout) { a.source, a.evidence = t, e }
}

// Reports names the members the evidence of the kind's checks always holds
// when a check ran (Result.Evidence, as JSON; a check that could not run
// has none), such as "matched", "field_results" and "candidates": the
// schema of results published for programs in other languages (assay
// schema result) requires them. Members a check writes only sometimes are
// left out.
func Reports(keys ...string) KindOption {
	keys = slices.Clone(keys)
	return func(a *kindAbout) { a.keys = keys }
}

// EvidenceKeys returns the members the evidence of kind always holds, as
// its registration said (Reports), or nil when it said nothing or kind is
// not registered.
func (r *Registry) EvidenceKeys(kind string) []string {
	e, ok := r.lookup(kind)
	if !ok {
		return nil
	}
	return slices.Clone(e.keys)
}

// Kinds returns the registered kinds, sorted.
func (r *Registry) Kinds() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.kinds))
	for k := range r.kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Schema returns the JSON Schema of kind as registered, or false.
func (r *Registry) Schema(kind string) (json.RawMessage, bool) {
	e, ok := r.lookup(kind)
	if !ok {
		return nil, false
	}
	return json.RawMessage(bytes.Clone(e.schema)), true
}

func (r *Registry) lookup(kind string) (*entry, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.kinds[kind]
	return e, ok
}

// Decode validates a JSON spec against its kind's schema and decodes it.
// Both spec shapes are accepted. A problem with the spec is a *SpecError.
func (r *Registry) Decode(data []byte) (Assertion, error) {
	v, ok := jsonvalue.Decode(data)
	if !ok {
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, &SpecError{Violations: []Violation{{Message: "not JSON: " + err.Error()}}, Err: err}
	}
	return r.decodeValue(v, data, nil)
}

// DecodeYAML is Decode for a YAML node (as a cli-bench task's assert list
// holds); violations carry the node's line and column.
func (r *Registry) DecodeYAML(node *yaml.Node) (Assertion, error) {
	doc, err := ConvertYAML(node)
	if err != nil {
		var ye *YAMLError
		if errors.As(err, &ye) {
			return nil, &SpecError{Violations: []Violation{{Line: ye.Line, Column: ye.Column, Message: ye.Message}}, Err: err}
		}
		return nil, &SpecError{Violations: []Violation{{Message: err.Error()}}, Err: err}
	}
	return r.decodeValue(doc.Value, doc.JSON, doc.Positions)
}

// decodeValue works out the kind, normalises the single-key shape, validates
// and decodes. raw is v's JSON text.
func (r *Registry) decodeValue(v any, raw []byte, pos Positions) (Assertion, error) {
	fail := func(kind, ptr, msg string, err error) error {
		viol := Violation{Pointer: ptr, Message: msg}
		if p, ok := pos.find(ptr); ok {
			viol.Line, viol.Column = p.Line, p.Column
		}
		return &SpecError{Kind: kind, Violations: []Violation{viol}, Err: err}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fail("", "", "an assertion must be an object, not "+jsonkind.Of(v), nil)
	}
	var kind string
	if k, has := obj["assert"]; has {
		s, isStr := k.(string)
		if !isStr || s == "" {
			return nil, fail("", "/assert", `"assert" must be a non-empty string naming the kind`, nil)
		}
		kind = s
	} else if len(obj) == 1 {
		for k := range obj {
			kind = k
		}
		// {KIND: VALUE} is {"assert": KIND, KIND: VALUE}.
		obj = map[string]any{"assert": kind, kind: obj[kind]}
		trimmed := bytes.TrimLeft(raw, " \t\r\n")
		norm := make([]byte, 0, len(trimmed)+len(kind)+12)
		norm = append(norm, `{"assert":`...)
		norm = appendJSONString(norm, kind)
		norm = append(norm, ',')
		raw = append(norm, trimmed[1:]...)
	} else {
		msg := `no "assert" key naming the kind`
		if len(obj) > 1 {
			keys := make([]string, 0, len(obj))
			for k := range obj {
				keys = append(keys, strconv.Quote(k))
			}
			sort.Strings(keys)
			msg += " (a single-key assertion has exactly one key; this one has " + strings.Join(keys, ", ") + ")"
		}
		return nil, fail("", "", msg, nil)
	}
	e, ok := r.lookup(kind)
	if !ok {
		ptr := "/assert"
		if _, has := pos["/assert"]; !has && pos != nil {
			ptr = "/" + EscapePointer(kind)
		}
		msg := fmt.Sprintf("unknown kind %q (known: %s)", kind, strings.Join(r.Kinds(), ", "))
		if near := suggest.Nearest(kind, r.Kinds()); near != "" {
			msg = fmt.Sprintf("unknown kind %q (did you mean %q?)", kind, near)
		}
		if pkg, ok := kindPackages.Load(kind); ok {
			msg = fmt.Sprintf("kind %q is not registered in this registry: the Register function of %q adds it", kind, pkg)
		}
		return nil, fail(kind, ptr, msg, ErrUnknownKind)
	}
	validator, err := e.compiled()
	if err != nil {
		return nil, fail(kind, "", err.Error(), err)
	}
	if viols := validator.Validate(obj, pos); len(viols) > 0 {
		return nil, &SpecError{Kind: kind, Violations: viols}
	}
	a, err := e.decode(Spec(raw))
	if err != nil {
		var se *SpecError
		if errors.As(err, &se) {
			if se.Kind == "" {
				se.Kind = kind
			}
			for i := range se.Violations {
				if p, ok := pos.find(se.Violations[i].Pointer); ok && se.Violations[i].Line == 0 {
					se.Violations[i].Line, se.Violations[i].Column = p.Line, p.Column
				}
			}
			return nil, se
		}
		return nil, fail(kind, "", err.Error(), err)
	}
	return a, nil
}

// Checker is what a struct registered with RegisterType implements: its
// Check judges the evidence (see Assertion).
type Checker interface {
	Check(ctx context.Context, env *Env) Result
}

// RegisterType registers kind in r with its schema, decoding each spec
// with encoding/json into a fresh T: the one call a kind of your own needs
// when its spec maps straight onto a struct.
//
//	type minRows struct {
//		Resource string `json:"resource"`
//		Min      int    `json:"min"`
//	}
//	func (m *minRows) Check(ctx context.Context, env *assert.Env) assert.Result { ... }
//
//	assert.RegisterType[minRows](registry, "min-rows", schema)
//
// The schema has validated the spec before it is decoded, so T need not
// repeat its checks; the "assert" key is ignored unless T has a field for
// it. Each decode makes a new T, so an assertion never shares state with
// another.
func RegisterType[T any, PT interface {
	*T
	Checker
}](r *Registry, kind string, schema []byte, opts ...KindOption) {
	r.Register(kind, schema, func(spec Spec) (Assertion, error) {
		v := PT(new(T))
		if err := json.Unmarshal(spec, v); err != nil {
			return nil, err
		}
		return typed{kind: kind, check: v}, nil
	}, opts...)
}

// typed is an Assertion made by RegisterType.
type typed struct {
	kind  string
	check Checker
}

func (t typed) Kind() string { return t.kind }

func (t typed) Check(ctx context.Context, env *Env) Result { return t.check.Check(ctx, env) }

// Register adds a kind to DefaultRegistry.
func Register(kind string, schema []byte, decode DecodeFunc, opts ...KindOption) {
	defaultRegistry.Register(kind, schema, decode, opts...)
}

// Kinds returns DefaultRegistry's kinds, sorted.
func Kinds() []string { return defaultRegistry.Kinds() }

// Schema returns a kind's schema from DefaultRegistry.
func Schema(kind string) (json.RawMessage, bool) { return defaultRegistry.Schema(kind) }

// Decode decodes a spec through DefaultRegistry.
func Decode(data []byte) (Assertion, error) { return defaultRegistry.Decode(data) }
