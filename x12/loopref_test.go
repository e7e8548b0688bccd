package x12

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// refValues evaluates a loop path by the letter of DESIGN 5, with no
// shortcut: each level lists its instances (those nested at any depth in
// an instance the level before selected; any, for the first), a numbered
// level keeps the n-th, and the segment is sought, its occurrence counted,
// among the segments inside any instance of the last level.
func refValues(p Path, x *Interchange) []string {
	segs, loops := x.loopIndex()
	within := func(l int32, set map[int32]bool) bool { // l or an ancestor in set
		for ; l >= 0; l = loops[l].parent {
			if set[l] {
				return true
			}
		}
		return false
	}
	var prev map[int32]bool
	for k, ref := range p.loops {
		if !ref.known {
			return nil
		}
		cur := map[int32]bool{}
		n := 0
		for l := range loops {
			if loops[l].name != ref.name || k > 0 && !within(loops[l].parent, prev) {
				continue
			}
			n++
			if ref.occ == 0 || n == ref.occ {
				cur[int32(l)] = true
			}
		}
		prev = cur
	}
	var out []string
	n := 0
	for i := range segs {
		sg := segs[i]
		if !within(sg.loop, prev) {
			continue
		}
		var stop bool
		t, d := x.segmentAt(sg.start)
		out, n, stop = p.appendMatch(out, n, t, d)
		if stop {
			break
		}
	}
	return out
}

// TestLoopPathsMatchReference compares every loop path read with the
// reference reading, on every file of testdata and on paths built from the
// loops each file has.
func TestLoopPathsMatchReference(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.x12")
	segIDs := []string{"NM1", "EB", "HL", "TRN", "STC", "SVC", "DTP", "REF", "HCR", "PER", "MSG"}
	checked := 0
	for _, file := range files {
		data, _ := os.ReadFile(file)
		x, err := Parse(data)
		if err != nil {
			continue
		}
		_, loops := x.loopIndex()
		var names []string
		for _, l := range loops {
			if id := l.id(); id != "" && !slices.Contains(names, id) {
				names = append(names, id)
			}
		}
		occs := []string{"", "(*)", "(1)", "(2)", "(3)"}
		for _, a := range names {
			for _, b := range append([]string{""}, names...) {
				for _, oa := range occs {
					for _, ob := range occs[:3] {
						for _, seg := range segIDs {
							for _, so := range []string{"", "(*)", "(2)"} {
								s := a + oa + "/"
								if b != "" {
									s += b + ob + "/"
								}
								s += seg + so + "01"
								p, err := ParsePath(s)
								if err != nil {
									t.Fatal(err)
								}
								got, want := p.Values(x), refValues(p, x)
								if !slices.Equal(got, want) {
									t.Fatalf("%s %s: got %q, the reference reads %q", file, s, got, want)
								}
								checked++
							}
						}
					}
				}
			}
		}
	}
	if checked < 10000 {
		t.Errorf("checked %d paths", checked)
	}
}
