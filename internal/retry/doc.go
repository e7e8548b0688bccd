// Package retry is the retry policy every HTTP client of assay shares: the
// criteria API client, the FHIR search client and the LLM judge. It follows
// hashicorp/go-retryablehttp and takes its names: a RetryPolicy holds a
// CheckRetry function (should this attempt be sent again?) and a Backoff
// function (how long to wait), both replaceable, with documented defaults
// (DefaultCheckRetry, DefaultBackoff; DefaultRetryPolicy is the whole
// policy, where go-retryablehttp gives that name to its default
// CheckRetry).
//
// Package client re-exports these names (client.RetryPolicy,
// client.DefaultRetryPolicy, client.DefaultCheckRetry, ...), so users
// configure every client with the same types.
package retry
