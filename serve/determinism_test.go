package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/servetest"
)

// Two runs given the same requests in the same order produce the same
// snapshot but for real-time stamps (issue 22, DESIGN 13.2): one script
// over FHIR, HL7 over HTTP and MLLP, the files API and SFTP, bad input
// included, replayed on two runs of one sandbox whose clock stands still;
// their manifests agree but for run.json, and their events.jsonl but for
// the times.
func TestSameRequestsSameSnapshot(t *testing.T) {
	seed := fstest.MapFS{
		"fhir/p.json":        {Data: []byte(`{"resourceType":"Patient","id":"p1","name":[{"family":"Doe"}]}`)},
		"sftp/inbox/a.txt":   {Data: []byte("seeded")},
		"hl7/inbox/0001.hl7": {Data: []byte("MSH|^~\\&|A|B|C|D|20260101000000||ADT^A04|1|P|2.5.1\rPID|1||m1\r")},
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	srv := servetest.Start(t, seed, serve.Options{Clock: at, Now: func() time.Time { return at }})
	snaps := make([]string, 2)
	for i, id := range []string{"first", "second"} {
		run, err := srv.NewRun(context.Background(), serve.RunOptions{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		script(t, run)
		if snaps[i], err = run.Complete(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	a, b := manifest(t, snaps[0]), manifest(t, snaps[1])
	delete(a, "run.json")
	delete(b, "run.json")
	if len(a) < 8 {
		t.Fatalf("the snapshot holds too little to compare: %v", a)
	}
	for name, sum := range a {
		if name != "events.jsonl" && b[name] != sum {
			t.Errorf("%s differs between the runs", name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			t.Errorf("%s is only in the second run's snapshot", name)
		}
	}
	ea, eb := maskedEvents(t, snaps[0]), maskedEvents(t, snaps[1])
	if ea != eb {
		t.Errorf("events differ:\n%s\n---\n%s", ea, eb)
	}
	// The script left every kind of event, refusals included.
	for _, want := range []string{`"type":"fhir_request"`, `"transport":"mllp"`, `"ack_code":null`, `"transport":"sftp"`, `"op":"write","path":"out/f.txt"`, `"type":"request_refused"`, `"error":`} {
		if !strings.Contains(ea, want) {
			t.Errorf("events lack %s:\n%s", want, ea)
		}
	}
}

// script is what the agent of TestSameRequestsSameSnapshot does.
func script(t *testing.T, run *serve.Run) {
	t.Helper()
	ep := run.Endpoints()
	for _, r := range []struct{ method, url, contentType, body string }{
		{"POST", ep["fhir"] + "/Patient", "application/fhir+json", `{"resourceType":"Patient","name":[{"family":"New"}]}`},
		{"GET", ep["fhir"] + "/Patient?family=New", "", ""},
		{"PUT", ep["fhir"] + "/Patient/p1", "application/fhir+json", `{"resourceType":"Patient","id":"p1","name":[{"family":"Roe"}]}`},
		{"POST", ep["fhir"] + "/Patient", "application/fhir+json", `{"resourceType":"Nope"}`},
		{"POST", ep["hl7_outbound"], "application/json", `{"payload":"MSH|^~\\&|A|B|C|D|20260101000000||ORM^O01|H1|P|2.5.1\rPID|1||m1\r"}`},
		{"POST", ep["hl7_outbound"], "image/png", `x`},
		{"PUT", ep["files"] + "/out/f.txt", "", "file body"},
		{"GET", ep["files"] + "/a/../../etc/passwd", "", ""},
		{"GET", ep["files"] + "?prefix=out/", "", ""},
	} {
		req, _ := http.NewRequest(r.method, r.url, strings.NewReader(r.body))
		req.Header.Set("Authorization", "Bearer "+run.Token())
		if r.contentType != "" {
			req.Header.Set("Content-Type", r.contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// A request with no token: refused, recorded.
	if resp, err := http.Get(ep["fhir"] + "/Patient"); err == nil {
		resp.Body.Close()
	}
	// MLLP: one frame, its ACK read.
	c, err := net.Dial("tcp", ep["hl7_mllp"])
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "\x0bMSH|^~\\&|A|B|C|D|20260101000000||ORM^O01|M1|P|2.5.1\rPID|1||m1\r\x1c\r")
	if _, err := bufio.NewReader(c).ReadString('\x1c'); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// SFTP: a folder, an upload, a refused link.
	var obj struct {
		Credentials struct {
			SFTP struct{ User, Password string } `json:"sftp"`
		} `json:"credentials"`
	}
	data, _ := json.Marshal(run.Object())
	json.Unmarshal(data, &obj)
	conn, err := ssh.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(ep["sftp"], "sftp://"+obj.Credentials.SFTP.User+"@"), "/"), &ssh.ClientConfig{
		User: obj.Credentials.SFTP.User, Auth: []ssh.AuthMethod{ssh.Password(obj.Credentials.SFTP.Password)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client, err := sftp.NewClient(conn)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if err := client.Mkdir("/drop"); err != nil {
		t.Fatal(err)
	}
	f, err := client.Create("/drop/referral.txt")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("referral"))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if client.Symlink("/drop/referral.txt", "/link") == nil {
		t.Fatal("a symlink was made")
	}
}

func manifest(t *testing.T, snap string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(snap, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Files map[string]string }
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m.Files
}

// realTime matches the fields of an event that may hold real time.
var realTime = regexp.MustCompile(`"(time|now)":"[^"]*"`)

func maskedEvents(t *testing.T, snap string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(snap, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(realTime.ReplaceAll(bytes.TrimSpace(data), []byte(`"$1":"T"`)))
}
