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

// assembly are the top-level packages that put the others together, and
// may import any of them: the loader of snapshots (sandbox), the sandbox
// server (serve), the command and its main package, the report writers,
// the test helpers, the examples and the benchmarks; "." is the module's
// root package, whose doc is the overview.
var assembly = []string{".", "sandbox", "serve", "command", "cmd", "report", "assaytest", "examples", "bench"}

// core are the top-level packages that are neither assembly nor domains:
// each is held to its own rule in allowedImports.
var core = []string{"internal", "assert", "check", "spec", "client", "payer"}

// top returns the top-level directory of pkg, a path below the module.
func top(pkg string) string { return strings.SplitN(pkg, "/", 2)[0] }

// allowedImports says which packages of the module a package (by its path
// below the module) may import, as DESIGN.md's layout has it: arrows point
// inward. A domain is any top-level package that is neither assembly nor
// core (TestLayering checks that it implements kinds): it and its
// subpackages import only assert, check, internal packages and themselves,
// so helpers two domains need go to check or internal.
//
// internal packages are leaves every package may use (the retry policy, the
// bounded pool, JSON type names); they import only each other.
func allowedImports(pkg string) (allowed func(string) bool, constrained bool) {
	internal := func(dep string) bool { return strings.HasPrefix(dep, "internal/") }
	within := func(dep, root string) bool { return dep == root || strings.HasPrefix(dep, root+"/") }
	switch t := top(pkg); {
	case t == "internal":
		return internal, true
	case pkg == "assert":
		return internal, true
	case pkg == "check":
		return func(dep string) bool { return dep == "assert" || internal(dep) }, true
	case pkg == "spec":
		// Typed spec builders: the client re-exports them.
		return func(dep string) bool { return dep == "assert" || internal(dep) }, true
	case pkg == "client/clienttest":
		// The fake API for users' tests validates every built-in kind, so
		// it registers them all by importing sandbox, which imports every
		// domain; nothing imports it but tests.
		return func(dep string) bool { return top(dep) != "serve" && top(dep) != "command" }, true
	case t == "client":
		return func(dep string) bool { return dep == "assert" || dep == "spec" || dep == "client" || internal(dep) }, true
	case t == "payer":
		// The payer policy: one truth for every channel of serve, which
		// imports no domain.
		return func(dep string) bool {
			return dep == "assert" || dep == "check" || internal(dep) || within(dep, "payer")
		}, true
	case slices.Contains(assembly, t) || pkg == ".":
		return nil, false
	}
	self := top(pkg)
	return func(dep string) bool {
		return dep == "assert" || dep == "check" || internal(dep) || within(dep, self)
	}, true
}

// TestLayering parses every non-test Go file of the module and checks its
// imports against the layout. Domains are found, not listed: each must
// import assert, as a package that implements kinds does, so that a
// top-level package that is no domain is noticed and given its role here;
// and sandbox must import each, so that every program that imports sandbox
// has every built-in kind.
func TestLayering(t *testing.T) {
	checked := 0
	importsAssert := map[string]bool{} // domain -> some file of it imports assert
	loaded := map[string]bool{}        // packages the files of sandbox import
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
		if !constrained && pkg != "sandbox" {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if pkg == "sandbox" {
			for _, imp := range f.Imports {
				dep, _ := strconv.Unquote(imp.Path.Value)
				loaded[strings.TrimPrefix(dep, module+"/")] = true
			}
			return nil
		}
		checked++
		domain := !slices.Contains(core, top(pkg))
		if _, seen := importsAssert[top(pkg)]; domain && !seen {
			importsAssert[top(pkg)] = false
		}
		for _, imp := range f.Imports {
			dep, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := strings.CutPrefix(dep, module+"/")
			if !ok {
				if dep == module {
					t.Errorf("%s imports the root package", path)
				}
				continue
			}
			if domain && rel == "assert" {
				importsAssert[top(pkg)] = true
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
	var domains []string
	for d, ok := range importsAssert {
		if !ok {
			t.Errorf("top-level package %s is taken for a domain, but imports no assert: give it its role in layout_test.go", d)
		}
		if !loaded[d] {
			t.Errorf("domain %s is imported by no file of sandbox: sandbox/%s.go registers the loader of its snapshot folder, "+
				"which registers its kinds wherever sandbox is imported (assay, client/clienttest)", d, d)
		}
		domains = append(domains, d)
	}
	slices.Sort(domains)
	t.Logf("domains: %s", strings.Join(domains, " "))
	if len(domains) < 7 || checked < 20 {
		t.Fatalf("found %d domains (%v) in %d files: the walk is not seeing the packages", len(domains), domains, checked)
	}
}

// The rule classifies the packages DESIGN.md names, those to come among
// them, as it says.
func TestLayeringRule(t *testing.T) {
	tests := []struct {
		pkg, dep string
		allowed  bool
	}{
		{"hl7", "check", true},
		{"hl7", "x12", false},
		{"hl7/internal/frame", "hl7", true},
		{"newdomain", "assert", true},
		{"newdomain", "fhir", false},
		{"newdomain", "sandbox", false},
		{"payer", "check", true},
		{"payer", "x12", false},
		{"payer", "serve", false},
		{"serve", "x12", true},
		{"serve/servetest", "serve", true},
		{"sandbox", "portal", true},
		{"internal/llm", "internal/retry", true},
		{"internal/llm", "assert", false},
		{"assert", "check", false},
		{"check", "assert", true},
		{"client/clienttest", "client", true},
		{"client/clienttest", "fhir", true},
		{"client/clienttest", "sandbox", true},
		{"client/clienttest", "serve", false},
		{"client", "fhir", false},
	}
	for _, tt := range tests {
		allowed, constrained := allowedImports(tt.pkg)
		got := !constrained || allowed(tt.dep)
		if got != tt.allowed {
			t.Errorf("%s importing %s: allowed %v, want %v", tt.pkg, tt.dep, got, tt.allowed)
		}
	}
}
