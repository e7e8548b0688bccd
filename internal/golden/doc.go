// Package golden holds a test's output against a file under
// testdata/golden, which the test's -update flag rewrites: each domain's
// evidence golden (KINDS.md) is one.
package golden
