package check_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/assaykit/assay/check"
)

// BenchmarkReadFile reads one 64 KiB evidence file from disk through
// DirFS, bare and under a total cap: what the cap costs a read.
func BenchmarkReadFile(b *testing.B) {
	dir := b.TempDir()
	const size = 64 << 10
	if err := os.WriteFile(filepath.Join(dir, "a.json"), make([]byte, size), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"DirFS", "CapTotal"} {
		b.Run(name, func(b *testing.B) {
			fsys := check.DirFS(dir)
			if name == "CapTotal" {
				fsys = check.CapTotal(fsys, 0)
			}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := check.ReadFile(fsys, "a.json", 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
