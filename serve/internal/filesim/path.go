package filesim

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of a name in the tree: what every file system a snapshot may be
// written to holds.
const (
	// MaxName caps one segment of a path, in bytes.
	MaxName = 255
	// MaxPath caps a whole path, in bytes.
	MaxPath = 4095
)

// reserved is the name a tree's root may not hold: a snapshot's
// sftp/sftp.url names a live endpoint (DESIGN.md section 8), so a file an
// agent wrote there would change what its evidence is.
const reserved = "sftp.url"

// errInvalid is wrapped by the error of a path the tree cannot hold.
var errInvalid = errors.New("invalid path")

// checkPath reports whether p, a slash path relative to the root, names an
// entry the tree can hold: not the root itself, no empty, "." or ".."
// segment, no NUL or backslash, valid UTF-8, at most MaxName bytes a
// segment and MaxPath in all.
func checkPath(p string) error {
	if p == "" {
		return fmt.Errorf("%w: the path is empty", errInvalid)
	}
	if len(p) > MaxPath {
		return fmt.Errorf("%w: the path is over %d bytes", errInvalid, MaxPath)
	}
	if !utf8.ValidString(p) {
		return fmt.Errorf("%w: %s is not UTF-8", errInvalid, show(p))
	}
	if strings.ContainsAny(p, "\x00\\") {
		return fmt.Errorf("%w: %s holds a NUL or a backslash", errInvalid, show(p))
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch {
		case seg == "":
			return fmt.Errorf("%w: %s has an empty segment (a leading, trailing or doubled \"/\")", errInvalid, show(p))
		case seg == "." || seg == "..":
			return fmt.Errorf("%w: %s has a %q segment", errInvalid, show(p), seg)
		case len(seg) > MaxName:
			return fmt.Errorf("%w: %s has a segment over %d bytes", errInvalid, show(p), MaxName)
		}
	}
	return nil
}

// show quotes a path for a message, cut to 200 bytes.
func show(p string) string {
	if len(p) > 200 {
		return fmt.Sprintf("%q...", p[:200])
	}
	return fmt.Sprintf("%q", p)
}

// httpPath reads the path of files/PATH: relative to the root, as
// checkPath wants it (an absolute path is an empty first segment).
func httpPath(p string) (string, error) {
	if strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%w: %s is absolute: paths under files/ are relative to the tree's root", errInvalid, show(p))
	}
	return p, checkPath(p)
}

// sftpPath reads a path of an SFTP request, which the request server has
// made absolute and clean ("/a/b"; "/" is the root, returned as "").
func sftpPath(p string) (string, error) {
	rel := strings.TrimPrefix(p, "/")
	if rel == "" {
		return "", nil
	}
	return rel, checkPath(rel)
}

// parentOf returns the folder holding p ("" for the root).
func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// baseOf returns p's last segment.
func baseOf(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }
