package assert_test

import (
	"os"
	"testing"

	"github.com/assaykit/assay/assert"
)

// BenchmarkParseCriteria reads the bundled example's criteria file, as
// assay eval does once per run.
func BenchmarkParseCriteria(b *testing.B) {
	data, err := os.ReadFile("../examples/priorauth/criteria.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := assert.ParseCriteria(data); err != nil {
			b.Fatal(err)
		}
	}
}
