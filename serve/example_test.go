package serve_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/spec"
)

// A run of the sandbox: an agent (here, two HTTP requests) books an
// appointment over FHIR and drops a file on the files API; completing the run
// writes the snapshot, which the criteria judge as assay eval would.
func Example() {
	out, _ := os.MkdirTemp("", "assay-serve-example-")
	defer os.RemoveAll(out)
	srv, err := serve.New(os.DirFS("testdata/example"), serve.Options{Out: out, Clock: time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := srv.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	ctx := context.Background()
	run, _ := srv.NewRun(ctx, serve.RunOptions{ID: "demo"})
	var names []string
	for name := range run.Endpoints() {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Println("endpoints:", strings.Join(names, " "))

	// What the agent does, with the run's own token.
	send := func(method, url, body string) int {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+run.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	fmt.Println("book:", send("POST", run.Endpoints()["fhir"]+"/Appointment",
		`{"resourceType": "Appointment", "status": "booked", "participant": [{"actor": {"reference": "Patient/p1"}, "status": "accepted"}]}`))
	fmt.Println("drop:", send("PUT", run.Endpoints()["files"]+"/outbound/referral.txt", "MRI right knee"))

	snapshot, err := run.Complete(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	env, _ := sandbox.Load(snapshot, sandbox.Options{})
	criteria := []assert.Criterion{
		{Label: "appointment booked", Assertion: spec.FHIRResourceState{ResourceType: "Appointment",
			Search: url.Values{"patient": {"Patient/p1"}},
			Fields: []spec.Field{{Path: "status", Expected: spec.String("booked")}}}.Spec()},
		{Label: "referral dropped", Assertion: spec.SFTPFilePresent{Path: "outbound/referral.txt"}.Spec()},
		{Label: "order sent", Assertion: spec.HL7Structural{CorrelateBy: map[string]spec.Value{"message_type": spec.String("ORM")}}.Spec()},
	}
	result, _ := assert.Evaluate(ctx, criteria, env)
	for _, c := range result.Criteria {
		fmt.Printf("%-6s %s\n", c.Status, c.Label)
	}
	fmt.Printf("score %.3f %s\n", result.Score, result.Verdict)
	// Output:
	// endpoints: eligibility events fhir files hl7_inbox hl7_mllp hl7_outbound portal portal_api sftp voice x12 x12_core
	// book: 201
	// drop: 201
	// passed appointment booked
	// passed referral dropped
	// failed order sent
	// score 0.667 partial
}
