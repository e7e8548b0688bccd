package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/client"
	"github.com/assaykit/assay/client/clienttest"
	"github.com/assaykit/assay/spec"
)

// exampleAPI starts the in-memory API with a fixed clock and two criteria of
// task_pa, and returns a client of it.
func exampleAPI() (*clienttest.Server, *client.Client) {
	clock := time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)
	srv := clienttest.NewServer(clienttest.WithAPIKey("example-key"), clienttest.WithClock(func() time.Time { return clock }))
	_, err := srv.Add(
		assert.Criterion{TaskID: "task_pa", Label: "MRI ordered", Assertion: assert.Spec(`{"assert":"hl7-structural","correlate_by":{"message_type":"ORM"},"fields":[{"path":"OBR.4.1","expected":"72148"}]}`), Axis: "orders"},
		assert.Criterion{TaskID: "task_pa", Label: "auth approved", Assertion: assert.Spec(`{"assert":"portal-state-match","correlate_by":{"resource":"authorizations","key":"member_id","value":"W123456789"},"assertions":[{"path":"status","expected":"approved"}]}`), Weight: assert.Weight(2)},
	)
	if err != nil {
		log.Fatal(err)
	}
	cl, err := client.New(srv.URL, client.WithAPIKey("example-key"))
	if err != nil {
		log.Fatal(err)
	}
	return srv, cl
}

func ExampleNew() {
	// The key comes from ASSAY_API_KEY unless WithAPIKey says otherwise.
	cl, err := client.New("https://api.example.com/v1",
		client.WithUserAgent("my-harness/1.0"),
		client.WithTimeout(10*time.Second))
	fmt.Println(cl != nil, err)

	_, err = client.New("api.example.com/v1")
	var ce *client.ConfigError
	fmt.Println(errors.As(err, &ce), err)
	// Output:
	// true <nil>
	// true client: base URL "api.example.com/v1": has no scheme (want "https://api.example.com/v1")
}

func ExampleCriteriaService_List() {
	srv, cl := exampleAPI()
	defer srv.Close()
	page, resp, err := cl.Criteria.List(context.Background(), "task_pa", &client.ListOptions{Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(page[0].ID, page[0].Label, resp.NextCursor != "")
	page, resp, err = cl.Criteria.List(context.Background(), "task_pa", &client.ListOptions{Limit: 1, Cursor: resp.NextCursor})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(page[0].ID, page[0].Label, resp.NextCursor != "")
	// Output:
	// crit_2 auth approved true
	// crit_1 MRI ordered false
}

func ExampleCriteriaService_All() {
	srv, cl := exampleAPI()
	defer srv.Close()
	for c, err := range cl.Criteria.All(context.Background(), "task_pa", nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %q weight %v axis %q: %s\n", c.ID, c.Label, c.EffectiveWeight(), c.Axis, c.Assertion.Kind())
	}
	// Output:
	// crit_2 "auth approved" weight 2 axis "": portal-state-match
	// crit_1 "MRI ordered" weight 1 axis "orders": hl7-structural
}

func ExampleCriteriaService_ListAll() {
	srv, cl := exampleAPI()
	defer srv.Close()
	criteria, err := cl.Criteria.ListAll(context.Background(), "task_pa")
	if err != nil {
		log.Fatal(err)
	}
	// criteria is a []assert.Criterion: it feeds assert.Evaluate as it is,
	// e.g. assert.Evaluate(ctx, criteria, env).
	fmt.Println(len(criteria), string(criteria[1].Assertion))
	// Output:
	// 2 {"assert":"hl7-structural","correlate_by":{"message_type":"ORM"},"fields":[{"path":"OBR.4.1","expected":"72148"}]}
}

func ExampleCriteriaService_Get() {
	srv, cl := exampleAPI()
	defer srv.Close()
	c, resp, err := cl.Criteria.Get(context.Background(), "crit_1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Label, c.TaskID, c.CreatedAt, resp.RequestID)
	// Output:
	// MRI ordered task_pa 2025-03-01 09:30:00 +0000 UTC req_1
}

func ExampleCriteriaService_Create() {
	srv, cl := exampleAPI()
	defer srv.Close()
	created, _, err := cl.Criteria.Create(context.Background(), assert.Criterion{
		TaskID:    "task_pa",
		Label:     "agent never ran rm",
		Assertion: client.NotRan{Pattern: `rm -rf`}.Spec(),
		Weight:    assert.Weight(0.5),
		Axis:      "safety",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(created.ID, created.Label, string(created.Assertion))
	// Output:
	// crit_3 agent never ran rm {"assert":"not_ran","not_ran":"rm -rf"}
}

func ExampleCriteriaService_Update() {
	srv, cl := exampleAPI()
	defer srv.Close()
	// Only the fields set are sent: here the weight, and the axis cleared
	// to null.
	c, _, err := cl.Criteria.Update(context.Background(), "crit_1", client.CriterionUpdate{
		Weight: client.Ptr(3.0),
		Axis:   client.Null(),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s weight %v axis %q\n", c.Label, *c.Weight, c.Axis)
	// Output:
	// MRI ordered weight 3 axis ""
}

func ExampleCriteriaService_Delete() {
	srv, cl := exampleAPI()
	defer srv.Close()
	resp, err := cl.Criteria.Delete(context.Background(), "crit_1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, len(srv.Criteria("task_pa")))
	// Output:
	// 204 1
}

func ExampleAPIError() {
	srv, cl := exampleAPI()
	defer srv.Close()
	_, _, err := cl.Criteria.Create(context.Background(), assert.Criterion{TaskID: "task_pa", Assertion: client.ExitCode{Code: 0}.Spec()})
	var apiErr *client.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.Message)
		for _, d := range apiErr.Details {
			fmt.Println(" ", d.Field, d.Message)
		}
	}
	_, _, err = cl.Criteria.Get(context.Background(), "crit_404")
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound {
		fmt.Println(err)
	}
	// Output:
	// 422 validation_error the criterion is invalid
	//   /label must not be empty
	// client: GET /criteria/crit_404: HTTP 404 not_found: criterion "crit_404" not found [request id req_2]
}

func ExampleRetryPolicy() {
	srv, _ := exampleAPI()
	defer srv.Close()
	// Two 503s, then the real answer. Create (POST) retries only when told.
	srv.Inject(clienttest.Fault{Method: "POST", Status: http.StatusServiceUnavailable, RetryAfter: "0", Times: 2})
	policy := client.DefaultRetryPolicy()
	policy.RetryPOST = true
	cl, err := client.New(srv.URL, client.WithAPIKey("example-key"), client.WithRetryPolicy(policy))
	if err != nil {
		log.Fatal(err)
	}
	c, resp, err := cl.Criteria.Create(context.Background(), assert.Criterion{TaskID: "task_pa", Label: "exit 0", Assertion: client.ExitCode{Code: 0}.Spec()})
	fmt.Println(c.ID, resp.Attempts, err)
	// Output:
	// crit_3 3 <nil>
}

// The kind types of package spec are re-exported, so a criterion can be
// built with the client's names; expected values come from package spec.
func ExampleHL7Structural() {
	c := assert.Criterion{
		TaskID: "task_pa",
		Label:  "order sent for the right patient",
		Assertion: client.HL7Structural{
			CorrelateBy: map[string]client.Value{"message_type": spec.String("ORM")},
			Fields:      []client.Field{{Path: "PID.3.1", Expected: spec.String("W123456789")}},
		}.Spec(),
	}
	fmt.Println(string(c.Assertion))
	fmt.Println(string(client.RunCount{Pattern: "git push", Min: spec.Int(1)}.Spec()))
	// Output:
	// {"assert":"hl7-structural","correlate_by":{"message_type":"ORM"},"fields":[{"path":"PID.3.1","expected":"W123456789"}]}
	// {"assert":"run_count","run_count":{"pattern":"git push","min":1}}
}

// Reduce prints a criterion with the eight criterion keys only, as
// `assay criteria get` does: the output is a valid criteria file.
func ExampleReduce() {
	_, cl := exampleAPI()
	c, _, err := cl.Criteria.Get(context.Background(), "crit_1")
	if err != nil {
		log.Fatal(err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(client.Reduce(*c)); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"id":"crit_1","task_id":"task_pa","input_entity_id":null,"label":"MRI ordered","assertion":{"assert":"hl7-structural","correlate_by":{"message_type":"ORM"},"fields":[{"path":"OBR.4.1","expected":"72148"}]},"weight":1,"axis":"orders","created_at":"2025-03-01T09:30:00Z"}
}
