package command_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/assaykit/assay/client/clienttest"
	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/command"
	"github.com/assaykit/assay/internal/chat/chattest"
	_ "github.com/assaykit/assay/sandbox" // every kind, as cmd/assay has them
)

// TestMain makes the test binary the assay command when it runs as
// "assay": the scripts in testdata/script run the real command as a
// process, as cmd/assay's main does (a child subreaper, the process's
// streams and environment), in the script's work folder.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"assay": func() {
			_ = clitask.BecomeSubreaper()
			os.Exit(command.Main(context.Background(), os.Args[1:], command.Config{}))
		},
	})
}

// TestScripts runs testdata/script/*.txtar. Besides testscript's own
// commands they have
//
//	exits N COMMAND ARGS...
//
// which runs COMMAND as exec does (its stdout and stderr checked by the
// lines after it) and fails unless it exits with code N, and fakellm,
// which starts a fake model server (see fakellm). Each script gets a
// fake criteria API (clienttest) at $ASSAY_BASE_URL, with the key
// $ASSAY_API_KEY.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: flag.Lookup("update").Value.String() == "true", // go test -update rewrites their expected files
		Setup: func(env *testscript.Env) error {
			api := clienttest.NewServer(clienttest.WithAPIKey("test-key"), clienttest.WithClock(func() time.Time {
				return time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
			}))
			env.Defer(api.Close)
			env.Setenv("ASSAY_BASE_URL", api.URL)
			env.Setenv("ASSAY_API_KEY", "test-key")
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": exits, "fakellm": fakellm},
	})
}

// fakellm starts a scripted Chat Completions server (chattest) for the
// rest of the script and sets ASSAY_LLM_BASE_URL to it; its models are
// chattest's (solver, quitter, looper, badjson, hang, ...).
//
//	fakellm [LATENCY]
func fakellm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: fakellm [LATENCY]")
	}
	var opts []chattest.Option
	if len(args) == 1 {
		d, err := time.ParseDuration(args[0])
		if err != nil {
			ts.Fatalf("fakellm: %v", err)
		}
		opts = append(opts, chattest.WithLatency(d))
	}
	srv := chattest.NewServer(opts...)
	ts.Defer(srv.Close)
	ts.Setenv("ASSAY_LLM_BASE_URL", srv.URL)
}

// exits runs a command and checks its exit code.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N COMMAND ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	code := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		code = ee.ExitCode()
	}
	if code != want {
		ts.Fatalf("%s exited %d, want %d", args[1], code, want)
	}
}
