package command_test

import (
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
// lines after it) and fails unless it exits with code N, fakellm, which
// starts a fake model server (see fakellm), and leaks, which finds a
// secret in files, plain or base64-encoded (see leaks). Each script gets a
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
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": exits, "fakellm": fakellm, "leaks": leaks},
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

// leaks succeeds when one of the files (stdout and stderr name the last
// command's; a folder means every file under it) holds the secret: as
// written, or base64-encoded (standard or URL alphabet, padded or not) at
// any offset of the encoded stream.
//
//	[!] leaks SECRET FILE...
func leaks(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: [!] leaks SECRET FILE...")
	}
	forms := secretForms(args[0])
	var files []string
	for _, name := range args[1:] {
		if name == "stdout" || name == "stderr" {
			files = append(files, name)
			continue
		}
		err := filepath.WalkDir(ts.MkAbs(name), func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				files = append(files, path)
			}
			return err
		})
		ts.Check(err)
	}
	found := ""
	for _, f := range files {
		text := ts.ReadFile(f)
		for _, form := range forms {
			if strings.Contains(text, form) {
				found = f + " holds the secret as " + strconv.Quote(form)
				break
			}
		}
		if found != "" {
			break
		}
	}
	switch {
	case neg && found != "":
		ts.Fatalf("%s", found)
	case !neg && found == "":
		ts.Fatalf("no file of %d holds the secret", len(files))
	}
	if found != "" {
		ts.Logf("%s", found)
	}
}

// secretForms lists the secret and the parts of its base64 encodings that
// depend on it alone: encoded after 0, 1 or 2 other bytes, the characters
// whose six bits all fall within the secret.
func secretForms(secret string) []string {
	forms := []string{secret}
	for shift := range 3 {
		in := append(make([]byte, shift), secret...)
		start, end := (8*shift+5)/6, 8*len(in)/6
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			forms = append(forms, enc.EncodeToString(in)[start:end])
		}
	}
	return forms
}
