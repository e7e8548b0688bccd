package x12_test

import (
	"os"
	"testing"
	"time"

	"github.com/assaykit/assay/x12"
)

func TestZZBig(t *testing.T) {
	data, err := os.ReadFile("/tmp/assay-bench/big.x12")
	if err != nil {
		t.Skip(err)
	}
	p := x12.MustParsePath("ST(138083)02")
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		x, _ := x12.Parse(data)
		t1 := time.Now()
		v := p.Values(x)
		t2 := time.Now()
		t.Logf("parse %v read %v %v", t1.Sub(t0), t2.Sub(t1), v)
	}
}
