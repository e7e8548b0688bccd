package command

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// runAssay runs the command in-process with the given environment variables
// (KEY=VALUE) and returns what it printed and its exit code.
func runAssay(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	c := &cli{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		if strings.HasPrefix(k, "ASSAY_") {
			return "" // the caller's shell must not leak into tests
		}
		return os.Getenv(k)
	}}
	code = run(context.Background(), c, args)
	return out.String(), errb.String(), code
}

func TestUnknownCommand(t *testing.T) {
	_, stderr, code := runAssay(t, nil, "frobnicate")
	if code != exitUsage || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
}

func TestNoArguments(t *testing.T) {
	_, stderr, code := runAssay(t, nil)
	if code != exitUsage || !strings.Contains(stderr, "usage: assay") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
}

// A command built with Main names itself in its usage, not assay.
func TestMainNamesItsProgram(t *testing.T) {
	var out bytes.Buffer
	code := Main(context.Background(), []string{"eval", "--help"}, Config{Name: "mykinds", Stdout: &out, Stderr: &out})
	if code != exitOK || !strings.Contains(out.String(), "usage: mykinds eval --criteria FILE") || strings.Contains(out.String(), "assay eval") {
		t.Errorf("code %d:\n%s", code, out.String())
	}
	out.Reset()
	Main(context.Background(), nil, Config{Name: "mykinds", Stdout: &out, Stderr: &out})
	if !strings.Contains(out.String(), "usage: mykinds COMMAND") {
		t.Errorf("no arguments:\n%s", out.String())
	}
}

// It names itself in its errors, warnings and version too: every message
// that assay starts with "assay: ".
func TestMainNamesItselfEverywhere(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		want, flaw string
	}{
		{[]string{"eval", "--criteria", "nope.json", "--sandbox", "."}, exitUsage, "mykinds: eval: nope.json", "assay"},
		{[]string{"frobnicate"}, exitUsage, "mykinds: unknown command \"frobnicate\"", "assay"},
		{[]string{"eval", "--format", "xml"}, exitUsage, "mykinds: eval: --format", "assay"},
		{[]string{"eval", "--nope"}, exitUsage, "mykinds eval: flag provided but not defined: -nope", "assay"},
		{[]string{"validate", "nope.json"}, exitUsage, "nope.json", "assay"},
		// The module's path is the module's; the program is mykinds.
		{[]string{"version"}, exitOK, "mykinds (", "assay ("},
	} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), tc.args, Config{Name: "mykinds", Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
		all := out.String() + errb.String()
		if code != tc.code || !strings.Contains(all, tc.want) || strings.Contains(all, tc.flaw) {
			t.Errorf("%v: code %d, want %d and %q without %q:\n%s", tc.args, code, tc.code, tc.want, tc.flaw, all)
		}
	}
}
