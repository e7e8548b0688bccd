// Package pool runs indexed work with bounded concurrency. It is the one
// worker pool of assay: criteria evaluation, cli-bench runs and folder
// reads all use it.
package pool
