// Package client is a Go client of the criteria API: list, get, create,
// update and delete the weighted assertions (criteria) of a task.
//
//	cl, err := client.New("https://api.example.com/v1") // key from ASSAY_API_KEY
//	criteria, err := cl.Criteria.ListAll(ctx, "task_123")
//	result, err := assert.Evaluate(ctx, criteria, env)
//
// It is shaped like google/go-github: New takes options, the calls hang off
// one service per resource (Client.Criteria), each takes a context and
// returns the decoded value with a *Response (the HTTP response, its request
// id and, for lists, the next page's cursor). Criteria are assert.Criterion
// values and their assertions assert.Spec, so what the API returns feeds
// assert.Evaluate without conversion. The package imports no other package
// of the module but assert.
//
// # Assertions travel untouched
//
// An assertion is kept as the raw JSON the API sent and sent back as it was
// written: keys are never renamed or re-ordered, unknown kinds and keys
// survive, numbers stay as written (1.0, 1e3, 20-digit integers), and "<",
// ">" and "&" are not HTML-escaped; only insignificant whitespace is
// compacted. The client does not validate assertions: the API and
// `assay validate` do. The kind types of package spec are re-exported
// (FHIRResourceState, ExitCode, ...): client.ExitCode{Code: 0}.Spec() writes
// an assertion object with exactly the keys the kind defines, and cannot
// fail; expected values come from spec (spec.String, spec.Number, ...).
//
// # Retries
//
// The policy follows hashicorp/go-retryablehttp: a RetryPolicy with a
// CheckRetry and a Backoff function, both replaceable, defaulting to
// DefaultCheckRetry and DefaultBackoff. GET, PATCH and DELETE are retried on
// 408, 429, 5xx except 501, and when no response came (refused or reset
// connection, attempt timeout), at most 3 times (4 attempts), waiting an
// exponential, jittered backoff from 500 ms capped at 30 s; a Retry-After
// header on a 429 or 503 is honoured up to the same cap. POST (Create) is
// retried only with RetryPolicy.RetryPOST, since a lost response may hide a
// created criterion. The context bounds the whole call, waits included;
// WithTimeout bounds each attempt.
//
// # Errors
//
// Callers branch with errors.As on four types:
//
//   - *APIError: the API answered with an error, {"error": {"code",
//     "message", "details"}} decoded into the status, code, message, field
//     details and request id, the response kept. A 200 whose body is an
//     error object is an APIError too, and so is an error status whose body
//     is not JSON (an HTML page from a proxy) or is cut short: its Code is
//     then empty and its Message says what the body was. "details" is read
//     as a list of {"field", "message"} objects or as an object mapping a
//     field to its message(s).
//   - *ResponseError: a 2xx body that is not what the call expects (not
//     JSON, truncated, wrong shape, an invalid criterion at a JSON pointer),
//     an unexpected status, or a list whose cursor does not advance.
//   - *RequestError: no usable answer: connection failures and timeouts
//     after the retries, or the context ending (also while waiting to
//     retry); it unwraps to the cause (context.Canceled, a *url.Error) and
//     to the last retried answer.
//   - *ConfigError: New was given a setting it cannot use, such as a base
//     URL without a scheme.
//
// # The API key
//
// The key is sent only in the Authorization header, and only to the base
// URL's origin: its scheme, host and port, with default ports made explicit
// (https://api.example.com is https://api.example.com:443). A redirect
// within the origin is followed with the key; one to another host, another
// port of the same host, or another scheme (https to http, and also http to
// https) is followed without it, and a redirect back to the origin gets it
// again. (net/http alone compares host names only, so it would send the key
// to another port or over plain http.) The client wraps the CheckRedirect
// of the http.Client given to WithHTTPClient, which still decides whether to
// follow, on a copy: the caller's client is not changed.
//
// The key never appears in what the client reports. URLs never hold it;
// the response kept in an APIError or a Response has its request's
// Authorization header masked; and everything the server sent (the status
// line, every header, X-Request-Id included, and every body, error or not)
// has the key, as written and in its JSON- and URL-escaped forms, replaced
// by [REDACTED] before the client reads it, and decoded text (error
// messages and details, a criterion's id, task_id, input_entity_id, label
// and axis, the next cursor) is scrubbed again after decoding, which undoes
// escapes such as \u0073k-..., so errors, their fields, Response values,
// decoded criteria and log lines cannot carry it, even from a server that
// echoes the Authorization header. An assertion is kept as the scrubbed
// body wrote it. Keys shorter than 6
// characters are not scrubbed, as that would mangle every message.
//
// # Listing
//
// All and ListAll follow the next cursor page after page, and stop with a
// *ResponseError when a next cursor equals any cursor already used in that
// listing (the starting one included; ErrRepeatedCursor) or when the list
// has more than ListOptions.MaxPages pages (default DefaultMaxPages,
// 10,000; ErrTooManyPages). ListAll then returns no criteria, not a partial
// list.
//
// # Printing criteria
//
// Reduce returns a criterion as the JSON object of the eight criterion keys
// (id, task_id, input_entity_id, label, assertion, weight, axis,
// created_at), in order, which is what `assay criteria list` and `get`
// print: criteria are read leniently from the API (it may add keys), and
// what is printed is always a valid criteria file.
//
// # Decisions where the API description is silent
//
//   - Lists: the next cursor is read from _meta.next, else from a top-level
//     next_cursor; a bare JSON array is read as a single, last page. All and
//     ListAll ask for MaxLimit (100) criteria a page. Cursors already used
//     are remembered by their SHA-256, so a server's long cursors cost 32
//     bytes each.
//   - Every other 4xx than 408 and 429 is returned at once, even under a
//     RetryPolicy whose CheckRetry would retry it: no retry fixes a bad
//     request, a missing key or a missing criterion.
//   - Request URLs quoted in errors and logs are cut at 256 bytes (a
//     server's cursor can be long).
//   - Reduce writes an empty id, task_id, input_entity_id or axis as null
//     and leaves created_at out when the API gave none; a criterion
//     without an assertion prints "assertion": null, which no criteria
//     file accepts (the API sent no assertion to print).
//   - Single-criterion answers may also be wrapped as {"data": {...}}; a
//     criterion without an id is a ResponseError.
//   - Create sends the criterion without id and created_at (the API assigns
//     them), so a fetched criterion can be copied to another task.
//   - CriterionUpdate sends only the fields it sets, and can clear axis and
//     input_entity_id to null (Null()); it may also move a criterion to
//     another task (TaskID).
//   - Response bodies are read whole, up to 32 MiB; a bigger one is a
//     transport failure. A call's *Response is nil when it fails, except
//     when the answer arrived but could not be decoded.
//   - List pages decode each criterion with assert's own decoder (one gjson
//     pass, no reflection), so the client and criteria files can never read
//     a criterion differently. Listing costs about 4.6 allocations per
//     criterion against clienttest, about half of them HTTP's per page.
//   - The spec types' rules (defaults written, optional keys left out,
//     map keys sorted, NaN written as a string) are package spec's.
package client
