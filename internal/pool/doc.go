// Package pool runs indexed work with bounded concurrency. It is the one
// worker pool of assay: criteria evaluation, cli-bench runs and folder
// reads all use it.
//
// Most batches assay runs are short: a dozen checks of local files take a
// millisecond in all, less than waking threads for helper goroutines costs.
// So Each works on the calling goroutine and lets helpers join only when the
// batch is still running after Patience.
package pool
