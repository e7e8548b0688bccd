// Package assaytest runs assay checks inside go test. Require and Check
// decode a spec through the default registry, check it against an
// environment, and on failure report the details and every failing field as
// an expected/actual table, with a line diff where a value is long text:
//
//	func TestAgentBookedTheMRI(t *testing.T) {
//		env := assert.NewEnv()
//		portal.Attach(env, portal.MemorySource(state))
//		assaytest.Require(t, env, spec.PortalStateMatch{...}.Spec())
//	}
//
// Both mark themselves test helpers, so a failure points at the caller's
// line. A spec that does not decode fails the test with the violations; a
// check whose evidence could not be read (status error) fails it too, saying
// so: a test cannot pass on evidence it did not see.
package assaytest
