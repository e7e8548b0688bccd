// Command apiclient shows criteria kept in the criteria API: it creates two
// criteria for a task with the client's typed builders, lists them back
// (every page), and evaluates them against a rollout's evidence. The API
// here is clienttest's in-memory server, so the program runs anywhere; point
// client.New at a real base URL (and set ASSAY_API_KEY) to use a live one.
//
//	go run ./examples/apiclient
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/client"
	"github.com/assaykit/assay/client/clienttest"
	"github.com/assaykit/assay/portal"
	"github.com/assaykit/assay/report"
	"github.com/assaykit/assay/spec"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "apiclient:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	api := clienttest.NewServer()
	defer api.Close()
	cl, err := client.New(api.URL, client.WithAPIKey("example-key"))
	if err != nil {
		return err
	}

	for _, c := range []assert.Criterion{
		{TaskID: "task_priorauth", Label: "Authorization approved", Axis: "correctness", Weight: assert.Weight(2),
			Assertion: client.PortalStateMatch{
				CorrelateBy: client.PortalCorrelation{Resource: "prior_auths", Key: "member_id", Value: spec.String("W123456789")},
				Assertions:  []client.Field{{Path: "status", Expected: spec.String("approved")}},
			}.Spec()},
		{TaskID: "task_priorauth", Label: "Exactly one unit authorized", Axis: "correctness",
			Assertion: client.PortalStateMatch{
				CorrelateBy: client.PortalCorrelation{Resource: "prior_auths", Key: "member_id", Value: spec.String("W123456789")},
				Assertions:  []client.Field{{Path: "units", Expected: spec.Number(1)}},
			}.Spec()},
	} {
		created, _, err := cl.Criteria.Create(ctx, c)
		if err != nil {
			return err
		}
		fmt.Printf("created %s: %s\n", created.ID, created.Label)
	}

	criteria, err := cl.Criteria.ListAll(ctx, "task_priorauth")
	if err != nil {
		return err
	}
	state, err := portal.StateOf(map[string]any{"prior_auths": []map[string]any{{"member_id": "W123456789", "status": "approved", "units": 2}}})
	if err != nil {
		return err
	}
	env := assert.NewEnv()
	portal.Attach(env, portal.MemorySource(state))
	result, err := assert.Evaluate(ctx, criteria, env)
	if err != nil {
		return err
	}
	return report.WriteTask(os.Stdout, report.Text, result, report.Options{})
}
