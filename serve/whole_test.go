package serve_test

import (
	"context"
	"net"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/serve"
)

// With --listen 0.0.0.0 and --public-url, the addresses of the run's own
// listeners (MLLP, SFTP) carry the public URL's host, as its HTTP
// endpoints do, with the port each is bound to: the bound address ([::])
// is no address to reach.
func TestPublicAddresses(t *testing.T) {
	srv, err := serve.New(fstest.MapFS{}, serve.Options{Out: t.TempDir(), Listen: "0.0.0.0", PublicURL: "http://example.test:1/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	run, err := srv.NewRun(context.Background(), serve.RunOptions{ID: "pub"})
	if err != nil {
		t.Fatal(err)
	}
	eps := run.Endpoints()
	if eps["fhir"] != "http://example.test:1/runs/pub/fhir" {
		t.Errorf("fhir = %q", eps["fhir"])
	}
	// Each address names example.test and a port that is listening here.
	check := func(name, addr string) {
		t.Helper()
		host, port, err := net.SplitHostPort(addr)
		if err != nil || host != "example.test" {
			t.Errorf("%s = %q, want example.test:PORT", name, addr)
			return
		}
		c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", port))
		if err != nil {
			t.Errorf("%s: port %s does not answer: %v", name, port, err)
			return
		}
		c.Close()
	}
	check("hl7_mllp", eps["hl7_mllp"])
	check("ready line's sftp", srv.SFTPAddr())
	if want := "sftp://pub@" + srv.SFTPAddr() + "/"; eps["sftp"] != want {
		t.Errorf("sftp = %q, want %q", eps["sftp"], want)
	}
}
