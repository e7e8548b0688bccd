package nonblock_test

import (
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/nonblock"
)

type marked struct {
	fstest.MapFS
	never bool
}

func (m marked) OpensWithoutBlocking() bool { return m.never }

func TestOpens(t *testing.T) {
	if !nonblock.Opens(check.DirFS(t.TempDir())) {
		t.Error("a check.DirFS is not marked")
	}
	if nonblock.Opens(fstest.MapFS{}) {
		t.Error("an unmarked file system is marked")
	}
	if !nonblock.Opens(marked{never: true}) || nonblock.Opens(marked{never: false}) {
		t.Error("the mark's answer is not what Opens reports")
	}
}
