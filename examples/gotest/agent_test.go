package gotest

import (
	"testing"

	"github.com/assaykit/assay/assaytest"
	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/portal"
	"github.com/assaykit/assay/spec"
)

// runAgent stands for the agent under test: it returns the portal state the
// rollout left behind.
func runAgent(t *testing.T) *assert.Env {
	t.Helper()
	state, err := portal.StateOf(map[string]any{
		"prior_auths": []map[string]any{{"member_id": "W123456789", "status": "approved", "units": 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	portal.Attach(env, portal.MemorySource(state))
	return env
}

func TestAgentGetsThePriorAuthApproved(t *testing.T) {
	env := runAgent(t)
	assaytest.Require(t, env, spec.PortalStateMatch{
		CorrelateBy: spec.PortalCorrelation{Resource: "prior_auths", Key: "member_id", Value: spec.String("W123456789")},
		Assertions: []spec.Field{
			{Path: "status", Expected: spec.String("approved")},
			{Path: "units", Expected: spec.Number(1)},
		},
	}.Spec())
}
