// Package generatedtest holds the generator's end-to-end tests: golden
// cases (an input package and the expected generated file and catalog, or
// the expected diagnostics), the real command run by re-executing the test
// binary, and checks that the committed generated packages beside this file
// are current.
package generatedtest

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"github.com/toolgen-go/toolgen/gen"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of the golden cases")

// Names of the expected-output files in a case archive.
const (
	wantGo      = "want/" + gen.DefaultOutput
	wantCatalog = "want/TOOLS.md"
	wantStderr  = "want/stderr"
)

// goldenCase is one txtar archive of testdata/cases.
type goldenCase struct {
	name    string
	file    string
	archive *txtar.Archive
	dir     string // the case's package directory in the temporary module
	changed bool   // set rewrote a want/ file, so -update must write the archive
}

// want returns the content of a want/ file and whether the case has it.
func (c *goldenCase) want(name string) (string, bool) {
	for _, f := range c.archive.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

// set replaces (or adds, or with data nil removes) a want/ file.
func (c *goldenCase) set(name string, data []byte) {
	files := c.archive.Files[:0]
	found := false
	for _, f := range c.archive.Files {
		if f.Name == name {
			found = true
			if data == nil {
				c.changed = true
				continue
			}
			if !bytes.Equal(f.Data, data) {
				c.changed = true
			}
			f.Data = data
		}
		files = append(files, f)
	}
	c.archive.Files = files
	if !found && data != nil {
		c.changed = true
		c.archive.Files = append(c.archive.Files, txtar.File{Name: name, Data: data})
	}
}

// repoRoot is the module root, two levels up from this package.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	return root
}

// newModule writes a temporary module that depends on this repository
// through a replace directive, and returns its directory.
func newModule(t testing.TB) string {
	t.Helper()
	root := repoRoot(t)
	dir := t.TempDir()
	// The module needs this repository's requirements too (a pruned module
	// graph lists every module that provides an imported package).
	own, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	var reqs []string
	for _, line := range strings.Split(string(own), "\n") {
		if strings.HasPrefix(line, "module ") || strings.HasPrefix(line, "tool ") {
			continue
		}
		reqs = append(reqs, line)
	}
	gomod := "module example.com/cases\n" + strings.Join(reqs, "\n") +
		"\nrequire github.com/toolgen-go/toolgen v0.0.0\n\nreplace github.com/toolgen-go/toolgen => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	return dir
}

// loadCases reads every case and writes its input files into module dir.
func loadCases(t *testing.T, module string) []*goldenCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no golden cases found")
	var cases []*goldenCase
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		require.NoError(t, err)
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		c := &goldenCase{name: name, file: file, archive: a, dir: filepath.Join(module, name)}
		for _, f := range a.Files {
			if strings.HasPrefix(f.Name, "want/") {
				continue
			}
			path := filepath.Join(c.dir, filepath.FromSlash(f.Name))
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, f.Data, 0o644))
		}
		cases = append(cases, c)
	}
	return cases
}

// TestGolden generates every case and compares the generated file and
// catalog, or the diagnostics, with the case's want/ files. Cases named
// loader_* expect loader errors, which stop a whole load, so each of them
// loads alone; the others load together. The generated files of the
// successful cases must then build and pass go vet, reflect to the same
// schemas (checkReflectOracle), decode as schemasubset.Validate validates
// (checkDifferential), and pass the tests the cases hold.
func TestGolden(t *testing.T) {
	module := newModule(t)
	cases := loadCases(t, module)

	var batch []string
	byPath := make(map[string]*goldenCase)
	for _, c := range cases {
		if strings.HasPrefix(c.name, "loader_") {
			continue
		}
		batch = append(batch, "./"+c.name)
		byPath["example.com/cases/"+c.name] = c
	}
	results, err := gen.LoadEach(gen.Config{Dir: module}, batch...)
	require.NoError(t, err, "the batched cases must have no loader errors")

	generated := false
	var packages []*gen.Package
	for _, r := range results {
		c := byPath[r.Path]
		require.NotNil(t, c, "unexpected package %s", r.Path)
		t.Run(c.name, func(t *testing.T) {
			if len(r.Diagnostics) > 0 {
				checkStderr(t, c, formatDiagnostics(r.Diagnostics, c.dir))
				return
			}
			files, err := gen.Generate([]*gen.Package{r.Package}, gen.Options{Catalog: "TOOLS.md"})
			require.NoError(t, err)
			require.Len(t, files, 2)
			checkFile(t, c, wantGo, files[0].Content)
			checkFile(t, c, wantCatalog, files[1].Content)
			require.NoError(t, os.WriteFile(files[0].Path, files[0].Content, 0o644))
			generated = true
			packages = append(packages, r.Package)
		})
	}
	for _, c := range cases {
		if !strings.HasPrefix(c.name, "loader_") {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			_, err := gen.LoadEach(gen.Config{Dir: module}, "./"+c.name)
			var de *gen.DiagnosticsError
			require.ErrorAs(t, err, &de, "a loader_ case must fail to load")
			checkStderr(t, c, strings.ReplaceAll(de.Format(c.dir), c.dir+string(filepath.Separator), ""))
		})
	}

	if *update {
		for _, c := range cases {
			if c.changed {
				require.NoError(t, os.WriteFile(c.file, txtar.Format(c.archive), 0o644))
			}
		}
	}
	if generated && !t.Failed() {
		// Loader cases do not compile by design; vet everything else.
		var pkgs []string
		for _, p := range batch {
			if c := byPath["example.com/cases/"+strings.TrimPrefix(p, "./")]; c != nil {
				if _, ok := c.want(wantStderr); !ok {
					pkgs = append(pkgs, p+"/...")
				}
			}
		}
		sort.Strings(pkgs)
		cmd := exec.Command("go", append([]string{"vet"}, pkgs...)...)
		cmd.Dir = module
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "generated code must build and pass go vet:\n%s", out)
		// Cases may hold tests of their own, which run with the harness.
		var tests []string
		for _, p := range packages {
			for _, f := range byPath[p.Path].archive.Files {
				if !strings.HasPrefix(f.Name, "want/") && strings.HasSuffix(f.Name, "_test.go") {
					tests = append(tests, "./"+path.Join(caseName(p), path.Dir(f.Name)))
				}
			}
		}
		slices.Sort(tests)
		reports := runHarness(t, module, packages, slices.Compact(tests))
		t.Run("reflect_oracle", func(t *testing.T) { checkReflectOracle(t, reports["TestOracle"]) })
		t.Run("differential", func(t *testing.T) { checkDifferential(t, reports["TestDifferential"], packages) })
	}
}

// formatDiagnostics renders diagnostics with file names relative to dir.
func formatDiagnostics(ds []gen.Diagnostic, dir string) string {
	return (&gen.DiagnosticsError{Diagnostics: ds}).Format(dir)
}

// checkStderr compares diagnostics with the case's want/stderr.
func checkStderr(t *testing.T, c *goldenCase, got string) {
	t.Helper()
	got += "\n"
	if *update {
		c.set(wantStderr, []byte(got))
		c.set(wantGo, nil)
		c.set(wantCatalog, nil)
		return
	}
	want, ok := c.want(wantStderr)
	require.True(t, ok, "%s: generation failed but the case expects success:\n%s", c.file, got)
	assert.Equal(t, want, got, "%s: diagnostics differ (run go test ./generated_test -update to accept)", c.file)
}

// checkFile compares a generated file with its want/ file.
func checkFile(t *testing.T, c *goldenCase, name string, got []byte) {
	t.Helper()
	if *update {
		c.set(name, got)
		c.set(wantStderr, nil)
		return
	}
	want, ok := c.want(name)
	if !ok {
		stderr, _ := c.want(wantStderr)
		require.Failf(t, "unexpected success", "%s: generation succeeded but the case has no %s (want/stderr: %q)", c.file, name, stderr)
	}
	if !assert.Equal(t, want, string(got), "%s: %s differs (run go test ./generated_test -update to accept)", c.file, name) {
		t.Log(gen.UnifiedDiff(name, []byte(want), got))
	}
	assert.True(t, bytes.HasPrefix(got, []byte("// Code generated by toolgen. DO NOT EDIT.")) || strings.HasSuffix(name, ".md"))
}
