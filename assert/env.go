package assert

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
)

// Env holds the evidence of one rollout: typed sources, keyed by their
// static interface type.
//
// Each package of kinds defines a source interface (say rows.Source) and a
// function that attaches one; a check looks its source up with Lookup.
// Keying by the static type means an implementation attached as
// rows.Source is found as one, whatever its dynamic type. An Env is safe
// for concurrent use.
type Env struct {
	mu      sync.RWMutex
	sources map[reflect.Type]any
	closers []io.Closer
	// entity is the input entity the rollout was run for (SetEntity), and
	// entityErr why it could not be read.
	entity    string
	entityErr error
}

// SetEntity records the input entity this rollout was run for: evaluating
// env then runs only the criteria whose InputEntityID is empty or id, as
// WithEntity does (an explicit WithEntity wins). A loader sets it from the
// snapshot's run.json (sandbox.Load does); err, when not nil, says why the
// entity could not be read, and evaluation against env then returns it
// rather than guessing which criteria apply.
func (env *Env) SetEntity(id string, err error) {
	env.mu.Lock()
	defer env.mu.Unlock()
	env.entity, env.entityErr = id, err
}

// Entity returns what SetEntity recorded: "" when env names no entity.
func (env *Env) Entity() (string, error) {
	if env == nil {
		return "", nil
	}
	env.mu.RLock()
	defer env.mu.RUnlock()
	return env.entity, env.entityErr
}

// OnClose registers c to be closed by Close: the connection of a live
// source (an SFTP endpoint, say) that must not outlive the evaluation.
func (env *Env) OnClose(c io.Closer) {
	if c == nil {
		return
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	env.closers = append(env.closers, c)
}

// Close closes what OnClose registered, last first, and returns their
// errors joined. An Env whose sources hold nothing open needs no Close; it
// is safe to call more than once.
func (env *Env) Close() error {
	env.mu.Lock()
	closers := env.closers
	env.closers = nil
	env.mu.Unlock()
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		errs = append(errs, closers[i].Close())
	}
	return errors.Join(errs...)
}

// NewEnv returns an empty Env.
func NewEnv() *Env { return &Env{sources: map[reflect.Type]any{}} }

// Attach sets env's source of type S, replacing any earlier one.
func Attach[S any](env *Env, source S) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.sources == nil {
		env.sources = map[reflect.Type]any{}
	}
	env.sources[reflect.TypeFor[S]()] = source
}

// Lookup returns env's source of type S. When there is none it returns a
// *MissingSourceError naming S, which a check reports as StatusError.
func Lookup[S any](env *Env) (S, error) {
	var zero S
	t := reflect.TypeFor[S]()
	if env == nil {
		return zero, &MissingSourceError{Type: t}
	}
	env.mu.RLock()
	defer env.mu.RUnlock()
	v, ok := env.sources[t]
	if !ok {
		err := &MissingSourceError{Type: t}
		// A source attached under its concrete type (Attach infers S from
		// the value) is a silent miss otherwise: say what happened.
		if t.Kind() == reflect.Interface {
			for key := range env.sources {
				if key != t && key.Kind() != reflect.Interface && key.Implements(t) {
					err.Misattached = key
					break
				}
			}
		}
		return zero, err
	}
	return v.(S), nil
}

// MissingSourceError says that an Env has no source of the type a check
// needs.
type MissingSourceError struct {
	Type reflect.Type
	// Misattached is set when env holds a source of a concrete type that
	// implements Type: it was attached under its own type (Attach infers
	// the key from the value) instead of the interface.
	Misattached reflect.Type
}

func (e *MissingSourceError) Error() string {
	generic := "assert.Attach[" + e.Type.String() + "]"
	ev := Evidence{Name: sourceName(e.Type), Attach: generic}
	v, known := evidence.Load(e.Type)
	if known {
		ev = v.(Evidence)
	}
	switch {
	case e.Misattached != nil:
		with := generic
		if ev.Attach != generic {
			with = ev.Attach + " or " + generic
		}
		return fmt.Sprintf("no %s evidence: a %s was attached under its own type, not as %s; attach it with %s",
			ev.Name, e.Misattached, e.Type, with)
	case !known:
		return fmt.Sprintf("no %s evidence: the environment has no %s source", ev.Name, e.Type)
	case ev.Folder == "":
		return fmt.Sprintf("no %s evidence: nothing was attached with %s", ev.Name, ev.Attach)
	}
	// Name the folder a command-line user knows, and what a Go user calls.
	return fmt.Sprintf("no %s evidence: the sandbox has no %s/ folder (or, in Go, nothing was attached with %s)", ev.Name, ev.Folder, ev.Attach)
}

// sourceName is the last element of the package path of a source type
// (its type when it has none): what its evidence is called by default.
func sourceName(t reflect.Type) string {
	if p := t.PkgPath(); p != "" {
		return p[strings.LastIndexByte(p, '/')+1:]
	}
	return t.String()
}
