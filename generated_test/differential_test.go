package generatedtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/gen"
)

// differentialPerKind is how many valid, invalid and byte-mutated
// documents every tool of every golden case gets.
const differentialPerKind = 300

// harnessOut names the environment variable that tells the harness tests
// which directory to write their reports into.
const harnessOut = "TOOLGEN_HARNESS_OUT"

// runHarness adds to the case module one test package, harness, that
// imports every generated case package and holds the tests that need their
// compiled code: TestOracle (oracleTest) and TestDifferential
// (differentialTest). One go test builds and runs it together with the
// packages tests, the cases' own tests, which keeps the go command's
// builds and links to one. It returns the report each harness test wrote,
// by test name; a failing go test fails t but still returns what was
// written, so that each check can say what it misses.
func runHarness(t *testing.T, module string, generated []*gen.Package, tests []string) map[string][]byte {
	t.Helper()
	var src strings.Builder
	src.WriteString("package harness\n\nimport (\n\t\"encoding/json\"\n\t\"os\"\n\t\"path/filepath\"\n\t\"testing\"\n\n")
	src.WriteString("\t\"github.com/toolgen-go/toolgen/generated_test/difftest\"\n\t\"github.com/toolgen-go/toolgen/runtime\"\n\t\"github.com/toolgen-go/toolgen/runtime/reflecttool\"\n\n")
	for i, p := range generated {
		fmt.Fprintf(&src, "\tc%d %q\n", i, p.Path)
	}
	fmt.Fprintf(&src, `)

// report returns an encoder of JSON lines into the test's report, $%s/<test>.
func report(t *testing.T) *json.Encoder {
	f, err := os.Create(filepath.Join(os.Getenv(%q), t.Name()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	return json.NewEncoder(f)
}

`, harnessOut, harnessOut)
	src.WriteString(oracleTest(t, generated))
	src.WriteString("\n")
	src.WriteString(differentialTest(generated))
	dir := filepath.Join(module, "harness")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "harness_test.go"), []byte(src.String()), 0o644))

	reports := t.TempDir()
	// The cases' packages, their tests included, passed go vet already.
	cmd := exec.Command("go", append([]string{"test", "-count=1", "-vet=off", "./harness"}, tests...)...)
	cmd.Dir = module
	cmd.Env = append(os.Environ(), harnessOut+"="+reports)
	out, err := cmd.CombinedOutput()
	if assert.NoError(t, err, "the harness tests (reflection oracle, differential) or the cases' own tests failed:\n%s", out) {
		t.Logf("go test ./harness %s:\n%s", strings.Join(tests, " "), out)
	}
	got := make(map[string][]byte)
	for _, name := range []string{"TestOracle", "TestDifferential"} {
		if data, err := os.ReadFile(filepath.Join(reports, name)); err == nil {
			got[name] = data
		}
	}
	return got
}

// differentialTest returns the source of the harness test that runs the
// differential test of generated_test/difftest (the one
// generated_test/rules runs on its own tools) on every tool of every case,
// reporting one JSON line per tool.
func differentialTest(generated []*gen.Package) string {
	var src strings.Builder
	src.WriteString("// TestDifferential runs every tool of every case through difftest.\nfunc TestDifferential(t *testing.T) {\n\tenc := report(t)\n")
	src.WriteString("\tfor _, c := range []struct {\n\t\tname  string\n\t\ttools func() []runtime.ToolDefinition\n\t}{\n")
	for i, p := range generated {
		fmt.Fprintf(&src, "\t\t{%q, c%d.Tools},\n", caseName(p), i)
	}
	fmt.Fprintf(&src, `	} {
		for _, d := range difftest.FromTools(t, c.tools()) {
			t.Run(c.name+"/"+d.Name, func(t *testing.T) {
				s := difftest.Run(t, d, %d, 1)
				if err := enc.Encode(map[string]any{"case": c.name, "tool": d.Name, "documents": s.Documents, "rejected": s.Rejected, "goRange": s.GoRange}); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
`, differentialPerKind)
	return src.String()
}

// differentialResult is what TestDifferential reports for one tool.
type differentialResult struct {
	Case      string `json:"case"`
	Tool      string `json:"tool"`
	Documents int    `json:"documents"`
	Rejected  int    `json:"rejected"`
	GoRange   int    `json:"goRange"`
}

// checkDifferential requires that TestDifferential reported (out) every
// tool the generator saw, once, and logs the totals. The comparisons
// themselves ran in the harness, whose failures fail runHarness.
func checkDifferential(t *testing.T, out []byte, generated []*gen.Package) {
	t.Helper()
	want := make(map[string]bool)
	for _, p := range generated {
		for _, tool := range p.Tools {
			want[caseName(p)+"/"+tool.Name] = true
		}
	}
	got := make(map[string]bool)
	var total differentialResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r differentialResult
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		key := r.Case + "/" + r.Tool
		assert.False(t, got[key], "%s reported twice", key)
		assert.True(t, want[key], "%s is not a tool the generator saw", key)
		assert.GreaterOrEqual(t, r.Documents, 2*differentialPerKind, "%s ran too few documents", key)
		got[key] = true
		total.Documents += r.Documents
		total.Rejected += r.Rejected
		total.GoRange += r.GoRange
	}
	require.NoError(t, sc.Err())
	var missing []string
	for key := range want {
		if !got[key] {
			missing = append(missing, key)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "tools the differential test did not run")
	t.Logf("%d cases, %d tools: %d documents (%d per kind and tool); %d invalid ones rejected; %d go-range rejections",
		len(generated), len(got), total.Documents, differentialPerKind, total.Rejected, total.GoRange)
}

// caseName is the golden case a generated package belongs to.
func caseName(p *gen.Package) string {
	return strings.TrimPrefix(p.Path, "example.com/cases/")
}
