package filesim

import (
	"bufio"
	"errors"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// check verifies a tree's invariants: every entry hangs from a folder
// that lists it, every listed name exists, no path is both a file and a
// folder, size is the sum of the files, and the run's cost is what the
// operations charged.
func (t *tree) check(tb testing.TB, charged int64) {
	tb.Helper()
	var size, cost int64
	for p, f := range t.files {
		size += int64(len(f.data))
		cost += t.cost(p)
		if t.folders[p] != nil {
			tb.Fatalf("%q is a file and a folder", p)
		}
		if _, ok := t.folders[parentOf(p)].kids[baseOf(p)]; !ok {
			tb.Fatalf("file %q is not listed by its folder", p)
		}
	}
	for p, d := range t.folders {
		cost += t.cost(p)
		if p != "" {
			if parent := t.folders[parentOf(p)]; parent == nil {
				tb.Fatalf("folder %q has no parent", p)
			} else if _, ok := parent.kids[baseOf(p)]; !ok {
				tb.Fatalf("folder %q is not listed by its parent", p)
			}
		}
		for k := range d.kids {
			child := k
			if p != "" {
				child = p + "/" + k
			}
			if t.files[child] == nil && t.folders[child] == nil {
				tb.Fatalf("folder %q lists %q, which does not exist", p, k)
			}
		}
	}
	if size != t.size {
		tb.Fatalf("size %d, files hold %d", t.size, size)
	}
	if cost != charged {
		tb.Fatalf("the entries cost %d, the operations charged %d", cost, charged)
	}
}

// TestTreeOperations applies random operations to a tree that starts from
// a seed and checks its invariants after each; the seed's tree is never
// changed.
func TestTreeOperations(t *testing.T) {
	seed := newTree()
	seed.folders["s"] = &folder{kids: map[string]struct{}{}, seed: true}
	seed.link("s")
	seed.files["s/f"] = &file{data: []byte("seed"), seed: true}
	seed.link("s/f")
	seed.size = 4
	names := []string{"a", "b", "s", "s/f", "a/b", "a/c", "b/a", "a/b/c", "s/g", "sftp.url", "s/sftp.url"}
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Unix(0, 0)
	for round := range 50 {
		tr := seed.clone()
		var charged int64
		for range 200 {
			p, q := names[rng.IntN(len(names))], names[rng.IntN(len(names))]
			switch rng.IntN(5) {
			case 0, 1:
				pl, err := tr.planPut(p, []byte(strings.Repeat("x", rng.IntN(10))), rng.IntN(2) == 0)
				if err == nil {
					tr.applyPut(pl, now)
					charged += pl.delta
				}
			case 2:
				if err := tr.mkdir(p, now); err == nil {
					charged += entryCost
				}
			case 3:
				delta, _, _ := tr.remove(p, []string{"", "yes", "no"}[rng.IntN(3)])
				charged += delta
			case 4:
				delta, _, _ := tr.rename(p, q, rng.IntN(2) == 0)
				charged += delta
			}
			tr.check(t, charged)
			if tr.files[reserved] != nil || tr.folders[reserved] != nil {
				t.Fatalf("round %d: the tree holds %s at its root", round, reserved)
			}
		}
	}
	seed.check(t, 0)
	if len(seed.files) != 1 || len(seed.folders) != 2 || string(seed.files["s/f"].data) != "seed" {
		t.Fatalf("runs changed the seed: %v %v", seed.files, seed.folders)
	}
}

func TestRenameFolder(t *testing.T) {
	tr := newTree()
	for _, p := range []string{"a/b/c.txt", "a/d.txt", "ab.txt"} {
		pl, err := tr.planPut(p, []byte(p), true)
		if err != nil {
			t.Fatal(err)
		}
		tr.applyPut(pl, time.Time{})
	}
	if _, _, err := tr.rename("a", "a/b/x", true); !errors.Is(err, errIntoSelf) {
		t.Errorf("a folder into itself: %v", err)
	}
	if _, _, err := tr.rename("a", "z", false); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"z/b/c.txt", "z/d.txt", "ab.txt"} {
		if f := tr.files[p]; f == nil || (p != "ab.txt" && !strings.HasSuffix(string(f.data), p[1:])) {
			t.Errorf("after renaming a to z, %s = %v", p, f)
		}
	}
	if tr.folders["a"] != nil || tr.folders["a/b"] != nil || tr.folders["z/b"] == nil {
		t.Errorf("folders after the rename: %v", tr.folders)
	}
}

// hostilePaths reads testdata/paths.txt: Go-quoted paths, one a line.
func hostilePaths(tb testing.TB) []string {
	f, err := os.Open("testdata/paths.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			p, err := strconv.Unquote(line)
			if err != nil {
				tb.Fatalf("testdata/paths.txt: %q: %v", line, err)
			}
			out = append(out, p)
		}
	}
	return out
}

// FuzzPath: a path the files API or SFTP takes is relative, clean, valid
// UTF-8, free of NUL and backslashes, within the name bounds and never
// leads out of a folder it is joined to; and the tree holds it without
// panicking.
func FuzzPath(f *testing.F) {
	for _, p := range hostilePaths(f) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := httpPath(raw)
		if err != nil {
			if !errors.Is(err, errInvalid) {
				t.Fatalf("httpPath(%q): an error that is not errInvalid: %v", raw, err)
			}
			return
		}
		if p == "" || path.IsAbs(p) || path.Clean(p) != p || strings.ContainsAny(p, "\x00\\") || !utf8.ValidString(p) || len(p) > MaxPath {
			t.Fatalf("httpPath(%q) = %q", raw, p)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == ".." || seg == "." || seg == "" || len(seg) > MaxName {
				t.Fatalf("httpPath(%q) = %q: segment %q", raw, p, seg)
			}
		}
		if joined := filepath.Join("/srv/root", p); !strings.HasPrefix(joined, "/srv/root/") {
			t.Fatalf("httpPath(%q) = %q leads out: %s", raw, p, joined)
		}
		if q, err := sftpPath("/" + p); err != nil || q != p {
			t.Fatalf("sftpPath(/%s) = %q, %v", p, q, err)
		}
		tr := newTree()
		pl, err := tr.planPut(p, []byte("x"), true)
		if err != nil {
			if p != reserved {
				t.Fatalf("planPut(%q): %v", p, err)
			}
			return
		}
		tr.applyPut(pl, time.Time{})
		tr.check(t, pl.delta)
		if _, err := tr.list(parentOf(p), time.Time{}); err != nil {
			t.Fatalf("list(%q): %v", parentOf(p), err)
		}
	})
}
