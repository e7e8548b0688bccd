package chatagent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/clitask/chatagent"
)

// writeSuite writes files (path -> content; a path under bin/ is made
// executable) into a temporary folder and loads its cli-bench.yaml.
func writeSuite(t *testing.T, files map[string]string) *clitask.Suite {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		mode := os.FileMode(0o644)
		if strings.Contains(name, "bin/") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	s, err := clitask.LoadSuite(filepath.Join(dir, "cli-bench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A CLI the scaffold provides, on a PATH through {{workdir}}.
const scaffoldSuite = `cli: notes
scaffold: scaffold
redact_env: [NOTES_TOKEN]
env:
  PATH: "{{workdir}}/bin:/usr/bin:/bin"
  NOTES_TOKEN: tok-0123456789
tasks:
  - id: t
    intent: x
    assert: [{exit_code: 0}]
`

func TestHelp(t *testing.T) {
	s := writeSuite(t, map[string]string{
		"cli-bench.yaml": scaffoldSuite,
		// help on stderr, a secret in it, a long tail, exit 2
		"scaffold/bin/notes": "#!/bin/sh\necho \"usage: notes [add|list] (token $NOTES_TOKEN, key sk-abc)\" >&2\nhead -c 20000 /dev/zero | tr '\\000' x\nexit 2\n",
	})
	help, err := chatagent.Help(context.Background(), s, nil, "sk-abc")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(help, "usage: notes [add|list] (token [REDACTED], key [REDACTED])\nxxx") || !strings.HasSuffix(help, "x\n[... 3675 bytes cut]") {
		t.Errorf("help %q...%q", help[:min(80, len(help))], help[max(0, len(help)-40):])
	}
	// a help that prints nothing says so
	s = writeSuite(t, map[string]string{"cli-bench.yaml": scaffoldSuite, "scaffold/bin/notes": "#!/bin/sh\nexit 3\n"})
	if help, err := chatagent.Help(context.Background(), s, nil); err != nil || help != "(`notes --help` printed nothing; it exited 3)" {
		t.Errorf("silent help: %q, %v", help, err)
	}
}

func TestFindCLI(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		files map[string]string
		found bool
	}{
		{"in the scaffold, through {{workdir}}", map[string]string{"cli-bench.yaml": scaffoldSuite, "scaffold/bin/notes": "#!/bin/sh\n"}, true},
		{"nowhere", map[string]string{"cli-bench.yaml": scaffoldSuite, "scaffold/readme": "x"}, false},
		{"on the system PATH", map[string]string{"cli-bench.yaml": "cli: sh -e\ntasks: [{id: t, intent: x, assert: [{exit_code: 0}]}]\n"}, true},
		{"not executable", map[string]string{"cli-bench.yaml": scaffoldSuite, "scaffold/notes/bin": "x", "scaffold/bin/readme": "x"}, false},
		{"a path", map[string]string{"cli-bench.yaml": "cli: ./bin/tool\nscaffold: s\ntasks: [{id: t, intent: x, assert: [{exit_code: 0}]}]\n", "s/bin/tool": "#!/bin/sh\n"}, true},
		{"installed by setup", map[string]string{"cli-bench.yaml": "cli: tool\nenv: {PATH: \"{{workdir}}/b:/usr/bin:/bin\"}\nsetup: [\"mkdir b && printf '#!/bin/sh\\\\n' > b/tool && chmod +x b/tool\"]\ntasks: [{id: t, intent: x, assert: [{exit_code: 0}]}]\n"}, true},
		{"not installed by setup", map[string]string{"cli-bench.yaml": "cli: no-such-tool-here\nsetup: [\"true\"]\ntasks: [{id: t, intent: x, assert: [{exit_code: 0}]}]\n"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := writeSuite(t, tt.files)
			err := chatagent.FindCLI(ctx, s, s.Tasks[0], nil, 10*time.Second)
			var ce *chatagent.CLIError
			if (err == nil) != tt.found || (err != nil && !errors.As(err, &ce)) {
				t.Errorf("FindCLI: %v", err)
			}
		})
	}
}
