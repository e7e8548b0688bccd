package hl7

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
)

// Source gives the outbound messages an agent sent during a rollout, in the
// order they were captured, and the inputs that could not be read as
// messages. hl7-structural looks it up in an assert.Env. Implementations are
// safe for concurrent use.
type Source interface {
	// Messages returns the captured messages. An error means the evidence
	// could not be read (a file that cannot be read, say); checks then
	// report status error.
	Messages(ctx context.Context) ([]*Message, error)
	// Rejects returns the inputs the source received but could not read as
	// messages (a file or an MLLP frame the parser rejects), in order. They
	// are never candidates; checks list them in their evidence.
	Rejects(ctx context.Context) ([]Reject, error)
}

// Reject is an input a source refused: a file that does not parse, an MLLP
// frame a Listener answered with AE or AR, a frame cut off by the
// connection closing, or a run of bytes sent outside any frame.
type Reject struct {
	// Index is the input's 0-based position among the inputs the source
	// received: files in name order, frames (and runs of stray bytes) in
	// arrival order.
	Index int
	// From names where the input came from: the file's name, or the
	// sender's address.
	From string
	// Code is the acknowledgment sent, "AE" or "AR"; "" when none was sent
	// (a file, a frame cut off by the connection closing, bytes outside a
	// frame).
	Code string
	// ControlID is the refused message's MSH.10, when it could be read.
	ControlID string
	// Size is the number of bytes refused.
	Size int
	// Err says what was wrong: a *ParseError, or it wraps
	// ErrFrameTooLarge, ErrBusy, ErrTruncatedFrame, ErrOutsideFrame or
	// ErrMissingField.
	Err error
}

// String says what was refused, from where and why, for a person.
func (r Reject) String() string {
	code := r.Code
	if code == "" {
		code = "no ACK"
	}
	return fmt.Sprintf("%s from %s (%d bytes): %v", code, r.From, r.Size, r.Err)
}

// Attach sets env's HL7 source.
func Attach(env *assert.Env, src Source) { assert.Attach[Source](env, src) }

// MemorySource returns a Source that serves msgs (nil ones left out), for
// harnesses and tests that hold parsed messages. It rejects nothing.
func MemorySource(msgs ...*Message) Source {
	out := make(memorySource, 0, len(msgs))
	for _, m := range msgs {
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}

type memorySource []*Message

func (s memorySource) Messages(context.Context) ([]*Message, error) { return s, nil }

func (s memorySource) Rejects(context.Context) ([]Reject, error) { return nil, nil }

// FolderSource returns a Source that reads the *.hl7 files of fsys's root
// folder (not of its subfolders), in name order, each holding one or more
// messages (CR, LF or CRLF; MLLP framing and batch wrappers allowed). Files
// are read through check.ReadFile, at most maxFileSize bytes each (<= 0:
// check.DefaultMaxFileSize), and at most the total cap of fsys
// (check.CapTotal; 256 MiB when fsys has none) together, checked on their
// sizes before any is read, when a check first asks, and parsed once;
// every check shares the parse.
//
// A file that cannot be read (missing, not a regular file, over the cap, a
// link that leads out of the snapshot) is an error that names it: the
// evidence is incomplete, so every check that reads the source reports
// status error. A file that is read but does not parse is a Reject, listed
// in the checks' evidence; its messages are not candidates. A file of only
// whitespace and framing holds no messages.
func FolderSource(fsys fs.FS, maxFileSize int64) Source {
	return &folderSource{fsys: check.CapTotal(fsys, 0), max: maxFileSize}
}

type folderSource struct {
	fsys    fs.FS
	max     int64
	once    sync.Once
	msgs    []*Message
	rejects []Reject
	err     error
}

func (s *folderSource) Messages(ctx context.Context) ([]*Message, error) {
	s.once.Do(s.load)
	return s.msgs, s.err
}

func (s *folderSource) Rejects(ctx context.Context) ([]Reject, error) {
	s.once.Do(s.load)
	return s.rejects, s.err
}

func (s *folderSource) load() {
	if s.fsys == nil {
		s.err = errors.New("hl7 evidence: no folder")
		return
	}
	entries, err := fs.ReadDir(s.fsys, ".")
	if err != nil {
		s.err = fmt.Errorf("hl7 evidence: %w", err)
		return
	}
	var names []string
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".hl7") && !e.IsDir() {
			names = append(names, name)
		}
	}
	if err := check.FitTotal(s.fsys, names); err != nil {
		s.err = fmt.Errorf("hl7 evidence: %w", err)
		return
	}
	for index, name := range names {
		data, err := check.ReadFile(s.fsys, name, s.max)
		if err != nil {
			s.msgs, s.rejects, s.err = nil, nil, fmt.Errorf("hl7 evidence: %w", err)
			return
		}
		i := index
		if onlyFraming(data) {
			continue
		}
		b, err := Parse(data)
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				pe.Location.File = name
			}
			s.rejects = append(s.rejects, Reject{Index: i, From: name, Size: len(data), Err: err})
			continue
		}
		s.msgs = append(s.msgs, b.Messages()...)
	}
}

// onlyFraming reports whether data holds nothing but whitespace and MLLP
// framing bytes.
func onlyFraming(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n', mllpStart, mllpEnd:
		default:
			return false
		}
	}
	return true
}
