// Package clienttest serves the criteria API in memory, for tests of code
// that calls it through package client (or any other HTTP client).
//
//	srv := clienttest.NewServer(clienttest.WithAPIKey("test-key"))
//	defer srv.Close()
//	cl, _ := client.New(srv.URL, client.WithAPIKey("test-key"))
//	created, _, err := cl.Criteria.Create(ctx, assert.Criterion{TaskID: "t1", Label: "exit 0", Assertion: client.ExitCode{Code: 0}.Spec()})
//
// The server implements GET /criteria?task_id=&limit=&cursor=, POST
// /criteria, and GET, PATCH and DELETE /criteria/{id}, with the API's
// shapes:
//
//   - A criterion is {"id", "task_id", "input_entity_id", "label",
//     "assertion", "weight", "axis", "created_at"}, every key always
//     present (input_entity_id and axis null when unset). Ids are "crit_N";
//     created_at comes from the clock (WithClock). The assertion is stored
//     and served as received, compacted.
//   - Lists are newest first (created_at, then creation order) and
//     cursor-paginated: limit 1..100 (default 20), an opaque cursor that
//     stays valid when criteria are added or deleted, the next one in
//     "_meta": {"next": ...} (null on the last page) or, with
//     WithTopLevelNextCursor, in "next_cursor". task_id is required.
//   - Errors are {"error": {"code", "message", "details"}} with details a
//     list of {"field", "message"}: 400 invalid_request (a body that is not
//     a JSON object), 400 validation_error (bad list parameters; field is
//     the parameter's name), 422 validation_error (bad fields; field is a
//     JSON pointer such as "/weight" or, with WithRegistry, into the
//     assertion, "/assertion/fields/0/expected"), 401 unauthorized (with
//     WithAPIKey), 404 not_found, 405 method_not_allowed, 413 too_large.
//     POST requires task_id, label and assertion (an object); weight must be
//     a number >= 0; id and created_at cannot be set; unknown fields are
//     rejected. PATCH changes only the fields given; axis and
//     input_entity_id may be null, other fields may not.
//   - Every response carries X-Request-Id: req_N.
//
// Faults are injected with Inject: a status (429 with Retry-After, 500,
// 503, ...), a custom body such as an HTML error page, a delay, or a
// dropped connection, for the next N matching requests, ahead of
// authentication and routing. Requests returns what the server received, so
// tests can assert how many attempts a call made and what it sent; Add
// seeds criteria and Criteria reads the store directly.
package clienttest
