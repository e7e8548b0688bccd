package assay_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/assaykit/assay"

// domains are the packages that implement kinds. They may import only
// assert, check and internal packages, never each other: helpers two of
// them need belong in check or internal.
var domains = []string{"clitask", "fhir", "hl7", "x12", "sftp", "voice", "portal"}

// allowedImports says which packages of the module a package (by its path
// below the module) may import, as DESIGN.md's layout has it: arrows point
// inward.
//
// internal packages are leaves every package may use (the retry policy, the
// bounded pool, JSON type names); they import only each other.
func allowedImports(pkg string) (allowed func(string) bool, constrained bool) {
	internal := func(dep string) bool { return strings.HasPrefix(dep, "internal/") }
	switch {
	case strings.HasPrefix(pkg, "internal/"):
		return internal, true
	case pkg == "assert":
		return internal, true
	case pkg == "check":
		return func(dep string) bool { return dep == "assert" || internal(dep) }, true
	case pkg == "spec":
		// Typed spec builders: the client re-exports them.
		return func(dep string) bool { return dep == "assert" || internal(dep) }, true
	case slices.Contains(domains, strings.SplitN(pkg, "/", 2)[0]):
		self := strings.SplitN(pkg, "/", 2)[0]
		return func(dep string) bool {
			return dep == "assert" || dep == "check" || strings.HasPrefix(dep, "internal/") ||
				dep == self || strings.HasPrefix(dep, self+"/")
		}, true
	case pkg == "client":
		return func(dep string) bool { return dep == "assert" || dep == "spec" || internal(dep) }, true
	case strings.HasPrefix(pkg, "client/"):
		return func(dep string) bool { return dep == "assert" || dep == "spec" || dep == "client" || internal(dep) }, true
	}
	return nil, false // sandbox, command, cmd/assay, report and examples import many
}

// TestLayering parses every non-test Go file of the module and checks its
// imports against the layout.
func TestLayering(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		allowed, constrained := allowedImports(pkg)
		if !constrained {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			dep, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := strings.CutPrefix(dep, module+"/")
			if !ok {
				if dep == module {
					t.Errorf("%s imports the root package", path)
				}
				continue
			}
			if !allowed(rel) {
				t.Errorf("%s (package %s) imports %s, which the layout forbids", path, pkg, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("checked only %d files: the walk is not seeing the packages", checked)
	}
}
