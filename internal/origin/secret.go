package origin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Redacted is what every client writes in place of a secret.
const Redacted = "[REDACTED]"

// MinRedactLen is the shortest secret scrubbed from text a client did not
// write (server messages): scrubbing a one-letter key would mangle every
// message while protecting nothing.
const MinRedactLen = 6

// Secret holds the credentials of one client (an API key, the bearer
// tokens a token source handed out) and scrubs every spelling of them from
// text: as written, as JSON encoders escape it (Go, Python, PHP), and as
// URLs escape it. Every client of assay scrubs what it reports through one
// (DESIGN.md section 12 rule 18): errors, server-sent bodies, headers and
// status lines, logs. A Secret is safe for concurrent use; printing it
// shows no credential.
type Secret struct {
	mu     sync.RWMutex
	values []string
	forms  []string // longest first
}

// NewSecret returns a Secret holding values (empty ones are ignored).
func NewSecret(values ...string) *Secret {
	s := &Secret{}
	for _, v := range values {
		s.Add(v)
	}
	return s
}

// Add adds a credential, such as a token just fetched.
func (s *Secret) Add(value string) {
	if value == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.values, value) {
		return
	}
	s.values = append(s.values, value)
	if len(value) < MinRedactLen {
		return
	}
	for _, f := range forms(value) {
		if !slices.Contains(s.forms, f) {
			s.forms = append(s.forms, f)
		}
	}
	// Longest first, so that a form holding another is not left half
	// written.
	slices.SortStableFunc(s.forms, func(a, b string) int { return len(b) - len(a) })
}

// Value returns the first credential added, "" when none was.
func (s *Secret) Value() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.values) == 0 {
		return ""
	}
	return s.values[0]
}

// Forms returns the spellings that are scrubbed.
func (s *Secret) Forms() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.forms)
}

// String shows whether a credential is held, never one.
func (s *Secret) String() string {
	if s.Value() == "" {
		return "none"
	}
	return Redacted
}

// GoString is String, so that %#v does not print a credential either.
func (s *Secret) GoString() string { return s.String() }

// forms lists the spellings of a credential: as written, as JSON string
// content the way common encoders write it (minimally, with <, > and &
// escaped as Go does, with everything but ASCII escaped as Python does, and
// each with / escaped as PHP does), and URL-escaped.
func forms(key string) []string {
	var out []string
	add := func(form string) {
		if !slices.Contains(out, form) {
			out = append(out, form)
		}
	}
	add(key)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(key)
	minimal := strings.TrimSpace(b.String())
	htmlSafe, _ := json.Marshal(key)
	for _, quoted := range []string{minimal, string(htmlSafe), asciiJSON(minimal)} {
		form := quoted[1 : len(quoted)-1]
		add(form)
		add(strings.ReplaceAll(form, "/", `\/`))
	}
	add(url.QueryEscape(key))
	add(url.PathEscape(key))
	return out
}

// asciiJSON rewrites a JSON string with every non-ASCII character escaped
// as \uXXXX (UTF-16, lower-case hex), as Python's json module writes it.
func asciiJSON(quoted string) string {
	var b strings.Builder
	for _, r := range quoted {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// Redact replaces every spelling of every credential in text with
// Redacted.
func (s *Secret) Redact(text string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		if strings.Contains(text, f) {
			text = strings.ReplaceAll(text, f, Redacted)
		}
	}
	return text
}

// RedactBytes is Redact for a body; it returns b itself when b holds no
// credential.
func (s *Secret) RedactBytes(b []byte) []byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		if bytes.Contains(b, []byte(f)) {
			b = bytes.ReplaceAll(b, []byte(f), []byte(Redacted))
		}
	}
	return b
}

// RedactResponse scrubs the status line and every header and trailer of
// resp (names and values), so that a server or proxy that echoes the
// Authorization header there does not make the client report it.
func (s *Secret) RedactResponse(resp *http.Response) {
	if len(s.Forms()) == 0 {
		return
	}
	resp.Status = s.Redact(resp.Status)
	for _, h := range []http.Header{resp.Header, resp.Trailer} {
		for name, values := range h {
			for i, v := range values {
				values[i] = s.Redact(v)
			}
			if clean := s.Redact(name); clean != name {
				delete(h, name)
				h[clean] = values
			}
		}
	}
}

// Error returns err with every credential scrubbed from its text: err
// itself when it holds none; for a *url.Error (which names a URL a redirect
// led to, which the server chose) a copy with that URL scrubbed, so that
// errors.As finds none either; else an error with the scrubbed text that
// still unwraps to err for errors.Is.
func (s *Secret) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if s.Redact(msg) == msg {
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return &url.Error{Op: ue.Op, URL: s.Redact(ue.URL), Err: s.Error(ue.Err)}
	}
	return &scrubbedError{msg: s.Redact(msg), err: err}
}

// scrubbedError is an error whose text had the credentials removed; it
// still unwraps to the original for errors.Is and errors.As.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }
