package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"time"
)

// startupTools is how many tools the start-up benchmark's package holds.
const startupTools = 100

// startupSource is one tool of the start-up package: five fields, an enum
// (of the package's Mode constants) and a slice of a nested struct, with an object output.
var startupSource = template.Must(template.New("tool").Parse(`
// Args{{.}} are the arguments of tool {{.}}.
type Args{{.}} struct {
	// Path to act on.
	Path string ` + "`json:\"path\"`" + `
	// Offset is the first line.
	Offset int ` + "`json:\"offset,omitempty\"`" + `
	// Limit caps lines.
	Limit int ` + "`json:\"limit,omitempty\"`" + `
	// Mode picks the output.
	Mode Mode ` + "`json:\"mode,omitempty\"`" + `
	// Items are nested.
	Items []Item{{.}} ` + "`json:\"items,omitempty\"`" + `
}

// Item{{.}} is one nested item.
type Item{{.}} struct {
	// Name names it.
	Name string ` + "`json:\"name\"`" + `
	// On switches it.
	On bool ` + "`json:\"on,omitempty\"`" + `
}

// Result{{.}} is what tool {{.}} returns.
type Result{{.}} struct {
	// Lines read.
	Lines []string ` + "`json:\"lines\"`" + `
	// Total count.
	Total int ` + "`json:\"total\"`" + `
}

// Tool{{.}} is benchmark tool {{.}}.
//
//toolgen:tool
func Tool{{.}}(ctx context.Context, a Args{{.}}) (Result{{.}}, error) { return Result{{.}}{}, ctx.Err() }
`))

// startupMain prints the number of tools, then times google/jsonschema-go's
// ForType + Resolve (what mcp.AddTool does per tool) over the same
// parameter types in the same process.
const startupMain = `package main

import (
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"example.com/startup/tools"
)

func main() {
	start := time.Now()
	n := len(tools.Tools())
	toolsTime := time.Since(start)
	start = time.Now()
	for _, t := range tools.ArgTypes {
		s, err := jsonschema.ForType(t, nil)
		if err != nil {
			panic(err)
		}
		if _, err := s.Resolve(nil); err != nil {
			panic(err)
		}
	}
	fmt.Printf("tools %d %d\ngoogle %d\n", n, toolsTime.Nanoseconds(), time.Since(start).Nanoseconds())
}
`

// BenchmarkStartup100 measures a package of 100 generated tools from the
// outside, as a program starting up sees it. Its set-up writes the package,
// runs toolgen on it (reported as toolgen-ms) and builds a program; each
// iteration runs that program with GODEBUG=inittrace=1 and reports the
// package's initialization time and allocations (init-µs, init-allocs),
// the first Tools() call (tools-µs), and google/jsonschema-go's ForType +
// Resolve over the same 100 parameter types in the same process
// (google-µs). Go and a module cache holding the bench module's
// dependencies are all it needs.
func BenchmarkStartup100(b *testing.B) {
	dir := b.TempDir()
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	toolgen := filepath.Join(dir, "toolgen")
	run(b, root, "go", "build", "-o", toolgen, "./cmd/toolgen")

	var src bytes.Buffer
	src.WriteString("// Package tools holds 100 generated tools for the start-up benchmark.\npackage tools\n\nimport (\n\t\"context\"\n\t\"reflect\"\n)\n")
	src.WriteString("\n// Mode is an enum.\ntype Mode string\n\n// The modes.\nconst (\n\tModeA Mode = \"a\"\n\tModeB Mode = \"b\"\n)\n")
	src.WriteString("\n// ArgTypes lists the parameter types, for the peer's reflection.\nvar ArgTypes = []reflect.Type{\n")
	for i := range startupTools {
		fmt.Fprintf(&src, "\treflect.TypeFor[Args%d](),\n", i)
	}
	src.WriteString("}\n")
	for i := range startupTools {
		if err := startupSource.Execute(&src, i); err != nil {
			b.Fatal(err)
		}
	}
	mod := fmt.Sprintf("module example.com/startup\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/toolgen-go/toolgen v0.0.0\n\tgithub.com/google/jsonschema-go %s\n)\n\nreplace github.com/toolgen-go/toolgen => %s\n",
		requiredVersion(b, "github.com/google/jsonschema-go"), root)
	sums := readFile(b, "go.sum") + readFile(b, filepath.Join(root, "go.sum"))
	write(b, filepath.Join(dir, "go.mod"), mod)
	write(b, filepath.Join(dir, "go.sum"), sums)
	write(b, filepath.Join(dir, "main.go"), startupMain)
	write(b, filepath.Join(dir, "tools", "tools.go"), src.String())

	start := time.Now()
	run(b, filepath.Join(dir, "tools"), toolgen)
	toolgenTime := time.Since(start)
	bin := filepath.Join(dir, "startup")
	run(b, dir, "go", "build", "-mod=mod", "-o", bin, ".")

	initLine := regexp.MustCompile(`init example\.com/startup/tools @[0-9.]+ ms, ([0-9.]+) ms clock, [0-9]+ bytes, ([0-9]+) allocs`)
	var initNs, allocs, toolsNs, googleNs float64
	for b.Loop() {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v\n%s", bin, err, stderr.String())
		}
		m := initLine.FindStringSubmatch(stderr.String())
		if m == nil {
			b.Fatalf("no init line for the tools package in:\n%s", stderr.String())
		}
		ms, _ := strconv.ParseFloat(m[1], 64)
		n, _ := strconv.ParseFloat(m[2], 64)
		initNs += ms * 1e6
		allocs += n
		var count int
		var tns, gns float64
		if _, err := fmt.Sscanf(stdout.String(), "tools %d %g\ngoogle %g\n", &count, &tns, &gns); err != nil || count != startupTools {
			b.Fatalf("unexpected output %q (%v)", stdout.String(), err)
		}
		toolsNs += tns
		googleNs += gns
	}
	n := float64(b.N)
	b.ReportMetric(initNs/n/1e3, "init-µs")
	b.ReportMetric(allocs/n, "init-allocs")
	b.ReportMetric(toolsNs/n/1e3, "tools-µs")
	b.ReportMetric(googleNs/n/1e3, "google-µs")
	b.ReportMetric(float64(toolgenTime.Milliseconds()), "toolgen-ms")
}

// requiredVersion returns the version of module path that bench/go.mod
// requires.
func requiredVersion(b *testing.B, path string) string {
	for line := range strings.Lines(readFile(b, "go.mod")) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == path {
			return f[1]
		}
	}
	b.Fatalf("go.mod does not require %s", path)
	return ""
}

func run(b *testing.B, dir, name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func readFile(b *testing.B, name string) string {
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

func write(b *testing.B, name, data string) {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		b.Fatal(err)
	}
}
