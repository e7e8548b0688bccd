// Package retry is the retry policy every HTTP client of assay shares: the
// criteria API client, the FHIR search client and the LLM judge. It follows
// hashicorp/go-retryablehttp: a Policy holds a CheckRetry function (should
// this attempt be sent again?) and a Backoff function (how long to wait),
// both replaceable, with documented defaults.
//
// Package client re-exports these names (client.RetryPolicy,
// client.DefaultCheckRetry, ...), so users configure every client with the
// same types.
package retry
