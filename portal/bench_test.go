package portal_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/portal"
)

// bigState is a state of n rows of "claims", keyed by claim_id.
func bigState(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"claims": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"claim_id": "C-%d", "member_id": "M-%d", "status": "%s", "amount": %d.25, "lines": [{"cpt": "99213"}, {"cpt": "7214%d"}]}`,
			i, i%500, []string{"paid", "denied", "pended"}[i%3], i, i%10)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

func bigCriteria(n, rows int) []assert.Criterion {
	out := make([]assert.Criterion, n)
	for i := range out {
		row := (i * 7919) % rows
		out[i] = assert.Criterion{Label: fmt.Sprint(i), Assertion: assert.Spec(fmt.Sprintf(
			`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "claim_id", "value": "C-%d"},
			  "assertions": [{"path": "status", "expected": %q}, {"path": "amount", "expected": %d.25}, {"path": "lines.#.cpt", "expected": "7214%d"}]}`,
			row, []string{"paid", "denied", "pended"}[row%3], row, row%10))}
	}
	return out
}

// BenchmarkEvaluate1000x10000 evaluates 1,000 portal criteria against a
// 10,000-row state, parsing and indexing the state once per evidence load
// (inside the loop, as a fresh rollout would).
func BenchmarkEvaluate1000x10000(b *testing.B) {
	data := bigState(10000)
	criteria := bigCriteria(1000, 10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		state, err := portal.ParseState(data)
		if err != nil {
			b.Fatal(err)
		}
		env := assert.NewEnv()
		portal.Attach(env, portal.MemorySource(state))
		res, err := assert.Evaluate(context.Background(), criteria, env)
		if err != nil || res.Verdict != assert.VerdictPass {
			b.Fatalf("verdict %s: %v (%s)", res.Verdict, err, res.Criteria[0].Details)
		}
	}
}

// BenchmarkStateScan measures allocations per criterion as the state grows:
// with the index, they must not grow with the number of rows.
func BenchmarkStateScan(b *testing.B) {
	for _, rows := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(rows, "rows"), func(b *testing.B) {
			state, err := portal.ParseState(bigState(rows))
			if err != nil {
				b.Fatal(err)
			}
			env := assert.NewEnv()
			portal.Attach(env, portal.MemorySource(state))
			criteria := bigCriteria(100, rows)
			if _, err := assert.Evaluate(context.Background(), criteria, env); err != nil { // build the index
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := assert.Evaluate(context.Background(), criteria, env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecode1000 decodes and validates 1,000 specs; schemas are
// compiled once per registry, not per spec.
func BenchmarkDecode1000(b *testing.B) {
	specs := bigCriteria(1000, 10000)
	var size int64
	for _, c := range specs {
		size += int64(len(c.Assertion))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range specs {
			if _, err := assert.Decode(c.Assertion); err != nil {
				b.Fatal(err)
			}
		}
	}
}
