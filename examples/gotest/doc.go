// Package gotest shows assay inside go test: an agent's rollout is judged
// by assertions written next to the test that ran it, and a failure prints
// every failing field as expected vs actual. Run it with
//
//	go test ./examples/gotest
package gotest
