// Command harness is the harness an eval author writes when the evidence
// of a rollout is already in memory: the portal's final state as JSON and
// the HL7 order the agent sent. It builds criteria with package spec,
// attaches the evidence without any file, evaluates, and prints the report
// the assay command would print. One criterion fails on purpose, so the
// output shows what a failure looks like.
//
//	go run ./examples/harness
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/hl7"
	"github.com/assaykit/assay/portal"
	"github.com/assaykit/assay/report"
	"github.com/assaykit/assay/spec"
)

// What the rollout left behind, as a harness would hold it.
const (
	portalState = `{"prior_auths": [
	  {"member_id": "W123456789", "status": "approved", "service": {"cpt": "73721"}, "units": 1}]}`
	ormMessage = "MSH|^~\\&|AGENT|CLINIC|RIS|RADIOLOGY|20261120093000||ORM^O01^ORM_O01|MSG0001|P|2.5.1\r" +
		"PID|1||W123456789^^^PAYER^MB||DOE^JANE||19800214|F\r" +
		"ORC|NW|ORD1001\r" +
		"OBR|1|ORD1001||73721^MRI KNEE W/O CONTRAST^CPT\r"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}

func run() error {
	state, err := portal.ParseState([]byte(portalState))
	if err != nil {
		return err
	}
	batch, err := hl7.Parse([]byte(ormMessage))
	if err != nil {
		return err
	}
	var msgs []*hl7.Message
	for _, m := range batch.All() {
		msgs = append(msgs, m)
	}
	env := assert.NewEnv()
	portal.Attach(env, portal.MemorySource(state))
	hl7.Attach(env, hl7.MemorySource(msgs...))

	criteria := []assert.Criterion{
		{Label: "The prior authorization is approved", Axis: "correctness", Weight: assert.Weight(3),
			Assertion: spec.PortalStateMatch{
				CorrelateBy: spec.PortalCorrelation{Resource: "prior_auths", Key: "member_id", Value: spec.String("W123456789")},
				Assertions:  []spec.Field{{Path: "status", Expected: spec.String("approved")}, {Path: "service.cpt", Expected: spec.String("73721")}},
			}.Spec()},
		{Label: "The order went to radiology for the knee MRI", Axis: "correctness", Weight: assert.Weight(2),
			Assertion: spec.HL7Structural{
				CorrelateBy: map[string]spec.Value{"message_type": spec.String("ORM")},
				Fields: []spec.Field{
					{Path: "MSH.5", Expected: spec.String("RIS")},
					{Path: "OBR.4.1", Expected: spec.String("73721")},
				},
			}.Spec()},
		// Fails on purpose: the agent ordered the MRI without contrast.
		{Label: "The order asks for contrast", Axis: "safety",
			Assertion: spec.HL7Structural{
				CorrelateBy: map[string]spec.Value{"message_type": spec.String("ORM")},
				Fields:      []spec.Field{{Path: "OBR.4.2", Expected: spec.String("MRI KNEE W/ CONTRAST")}},
			}.Spec()},
	}
	result, err := assert.Evaluate(context.Background(), criteria, env)
	if err != nil {
		return err
	}
	if err := report.WriteTask(os.Stdout, report.Text, result, report.Options{}); err != nil {
		return err
	}
	if result.Verdict != assert.VerdictPartial {
		return fmt.Errorf("the example should score partial, got %s", result.Verdict)
	}
	return nil
}
