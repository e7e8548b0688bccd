package sandbox_test

import (
	"context"
	"fmt"
	"os"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
)

// Load applies the input entity the snapshot's run.json names: the
// example's 17 criteria include one for another patient, which is skipped,
// so the library scores the rollout exactly as assay eval does.
func ExampleLoad() {
	data, err := os.ReadFile("../examples/priorauth/criteria.json")
	if err != nil {
		panic(err)
	}
	criteria, err := assert.ParseCriteria(data)
	if err != nil {
		panic(err)
	}
	env, err := sandbox.Load("../examples/priorauth/sandbox", sandbox.Options{})
	if err != nil {
		panic(err)
	}
	defer env.Close()
	result, err := assert.Evaluate(context.Background(), criteria, env)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d criteria: %d evaluated, %d skipped for another entity than %s\n",
		len(criteria), len(result.Criteria), result.Counts.Skipped, result.Entity)
	fmt.Printf("score %.3f, verdict %s\n", result.Score, result.Verdict)
	// Output:
	// 17 criteria: 16 evaluated, 1 skipped for another entity than patient-jane-doe
	// score 0.750, verdict partial
}
