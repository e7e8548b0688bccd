package clienttest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/client"
	"github.com/assaykit/assay/client/clienttest"
)

func ExampleNewServer() {
	srv := clienttest.NewServer(clienttest.WithAPIKey("test-key"))
	defer srv.Close()
	cl, err := client.New(srv.URL, client.WithAPIKey("test-key"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	created, _, err := cl.Criteria.Create(ctx, assert.Criterion{TaskID: "task_1", Label: "exits 0", Assertion: client.ExitCode{Code: 0}.Spec()})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(created.ID, created.Label, created.EffectiveWeight())

	// The store can be read directly, to check what the code under test did.
	fmt.Println(len(srv.Criteria("task_1")), srv.Requests()[0].Method)
	// Output:
	// crit_1 exits 0 1
	// 1 POST
}

func ExampleServer_Inject() {
	srv := clienttest.NewServer()
	defer srv.Close()
	// The next two requests are rate limited, then the API answers.
	srv.Inject(clienttest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "0", Times: 2})
	cl, err := client.New(srv.URL, client.WithAPIKey(""))
	if err != nil {
		log.Fatal(err)
	}
	list, resp, err := cl.Criteria.List(context.Background(), "task_1", nil)
	fmt.Println(len(list), resp.Attempts, err)

	// A fault that outlasts the retries reaches the caller as an APIError.
	srv.Inject(clienttest.Fault{Status: http.StatusInternalServerError, Times: 10})
	cl, _ = client.New(srv.URL, client.WithAPIKey(""), client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 1, MinWait: time.Millisecond}))
	_, _, err = cl.Criteria.List(context.Background(), "task_1", nil)
	var apiErr *client.APIError
	fmt.Println(errors.As(err, &apiErr), apiErr.StatusCode, apiErr.Code, apiErr.Attempts)
	// Output:
	// 0 3 <nil>
	// true 500 internal_error 2
}

func ExampleServer_Add() {
	srv := clienttest.NewServer()
	defer srv.Close()
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := srv.Add(
		assert.Criterion{TaskID: "t", Label: "older", Assertion: client.ExitCode{Code: 0}.Spec(), CreatedAt: at},
		assert.Criterion{TaskID: "t", Label: "newer", Assertion: client.Ran{Pattern: "git"}.Spec(), CreatedAt: at.Add(time.Minute)},
	)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range srv.Criteria("t") { // newest first, as the API lists them
		fmt.Println(c.ID, c.Label)
	}
	// Output:
	// crit_2 newer
	// crit_1 older
}
