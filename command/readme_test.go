package command_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/assaykit/assay/internal/chat/chattest"
)

// readmeCommand is one command of a README: a shell command line and the
// environment it adds.
type readmeCommand struct {
	line string
	env  []string
}

// readmeCommands extracts, in order, the assay commands of a README's code
// blocks: the lines that start "go run ./cmd/assay " (continued by a
// trailing backslash) with the "export" lines before them, and a GitHub
// workflow's "run: assay ..." steps with their "env:".
func readmeCommands(text string) []readmeCommand {
	var out []readmeCommand
	var env []string
	fenced, lang := false, ""
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if fence, ok := strings.CutPrefix(line, "```"); ok {
			fenced, lang = !fenced, fence
			continue
		}
		if !fenced {
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case lang == "" && strings.HasPrefix(trimmed, "export "):
			env = append(env, strings.Fields(trimmed)[1:]...)
		case lang == "" && strings.HasPrefix(trimmed, "go run ./cmd/assay "):
			for strings.HasSuffix(trimmed, `\`) && i+1 < len(lines) {
				i++
				trimmed = strings.TrimSuffix(trimmed, `\`) + strings.TrimSpace(lines[i])
			}
			out = append(out, readmeCommand{line: trimmed, env: env})
		case lang == "yaml" && strings.HasPrefix(trimmed, "run: assay "):
			cmd := readmeCommand{line: strings.TrimPrefix(trimmed, "run: "), env: env}
			indent := len(line) - len(strings.TrimLeft(line, " "))
			if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "env:" {
				for i += 2; i < len(lines) && len(lines[i])-len(strings.TrimLeft(lines[i], " ")) > indent; i++ {
					k, v, _ := strings.Cut(strings.TrimSpace(lines[i]), ": ")
					cmd.env = append(cmd.env, k+"="+v)
				}
				i--
			}
			out = append(out, cmd)
		}
	}
	return out
}

// TestClibenchREADME runs every assay command of examples/clibench/README.md,
// in order, as written, and wants each to exit 0 (the suite's thresholds
// are informational), but for what cannot run here: `go run ./cmd/assay`
// is this test's assay, every model server (the local ones and the
// gateway) is a fake one whose models answer as its solver, a key is a
// made-up one, and /tmp/ is a folder of the test's. The commands run with
// sh in a folder where examples/ is the repository's.
func TestClibenchREADME(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq, the suite's cli, is not installed")
	}
	text, err := os.ReadFile("../examples/clibench/README.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(string(text))
	var names []string
	for _, c := range cmds {
		f := strings.Fields(strings.TrimPrefix(c.line, "go run ./cmd/"))
		names = append(names, f[1])
	}
	if got := strings.Join(names, " "); got != "check run run check validate run" {
		t.Fatalf("the README's assay commands are %q: update this test with the README", got)
	}

	llm := chattest.NewServer(chattest.WithFallback("solver"))
	defer llm.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Abs("../examples")
	if err != nil {
		t.Fatal(err)
	}
	dir, bin := t.TempDir(), t.TempDir()
	for _, err := range []error{os.Symlink(exe, filepath.Join(bin, "assay")), os.Symlink(examples, filepath.Join(dir, "examples"))} {
		if err != nil {
			t.Fatal(err)
		}
	}
	urls := regexp.MustCompile(`https?://[^\s/]+/v1\b`)
	secrets := regexp.MustCompile(`^(\.\.\.|\$\{\{ secrets\.\w+ \}\})$`)
	rewrite := func(s string) string {
		s = urls.ReplaceAllString(s, llm.URL)
		s = strings.ReplaceAll(s, "go run ./cmd/assay ", "assay ")
		return strings.ReplaceAll(s, "/tmp/", dir+"/tmp/")
	}
	base := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir, "NO_COLOR=1"}
	for _, c := range cmds {
		line := rewrite(c.line)
		env := append([]string(nil), base...)
		for _, kv := range c.env {
			k, v, _ := strings.Cut(kv, "=")
			if secrets.MatchString(v) {
				v = "sk-readme-made-up-0123456789"
			}
			env = append(env, k+"="+rewrite(v))
		}
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s\n(run as %s)\n%s: %v", c.line, line, out, err)
		}
		t.Logf("%s: ok", c.line)
	}
	// What the commands were to leave: the runs kept, the JUnit report.
	for _, f := range []string{"tmp/jq-run/trace.json", "tmp/jq-gateway/trace.json", "tmp/jq-run/conversations/0001-version.json", "cli-bench/trace.json", "cli-bench.xml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
