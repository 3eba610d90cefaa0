package gen

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// Exit codes of [Main].
const (
	// ExitOK is success: everything generated, or everything current.
	ExitOK = 0
	// ExitFailure is a generation error, or stale files under -check.
	ExitFailure = 1
	// ExitUsage is a command-line mistake.
	ExitUsage = 2
)

// Environ gives [Main] its environment: Getenv reads a variable and Dir is
// the working directory.
type Environ struct {
	// Getenv returns an environment variable ("" when unset).
	Getenv func(string) string
	// Dir is the working directory; "" means the process's.
	Dir string
}

// Main runs the toolgen command with args (without the program name) and
// returns its exit code. It is the whole of cmd/toolgen, kept here so that
// tests run exactly what the command runs. See cmd/toolgen for the manual.
func Main(args []string, env Environ, stdout, stderr io.Writer) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Dir == "" {
		if wd, err := os.Getwd(); err == nil {
			env.Dir = wd
		}
	}
	fs := flag.NewFlagSet("toolgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	output := fs.String("o", DefaultOutput, "name of the generated Go `file` in each package directory")
	catalog := fs.String("catalog", "", "also write the Markdown catalog to `file` (relative to each package directory)")
	check := fs.Bool("check", false, "write nothing; exit 1 with a diff when a generated file is stale (also TOOLGEN_CHECK=1)")
	version := fs.Bool("version", false, "print the version and exit")
	tags := fs.String("tags", "", "comma-separated build `tags` for loading packages")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: toolgen [flags] [packages]\n\n")
		fmt.Fprintf(stderr, "Generates schemas, decoders and runtime adapters for the //toolgen:tool\n")
		fmt.Fprintf(stderr, "functions of each package (default: the current directory).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if *version {
		fmt.Fprintf(stdout, "toolgen %s (generated code version %d)\n", moduleVersion(), Version)
		return ExitOK
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "toolgen: "+format+"\n", a...)
		fmt.Fprintf(stderr, "run 'toolgen -h' for usage\n")
		return ExitUsage
	}
	if *output == "" || filepath.Base(*output) != *output || !strings.HasSuffix(*output, ".go") || strings.HasSuffix(*output, "_test.go") {
		return usage("-o %q must be a file name ending in .go (not _test.go), without a directory", *output)
	}
	if *catalog != "" && !strings.HasSuffix(*catalog, ".md") {
		return usage("-catalog %q must name a Markdown file ending in .md", *catalog)
	}
	if v := env.Getenv("TOOLGEN_CHECK"); v != "" && v != "0" && v != "false" {
		*check = true
	}
	patterns := fs.Args()
	if gopkg := env.Getenv("GOPACKAGE"); gopkg != "" && len(patterns) == 0 {
		// Under go generate the working directory is the package's.
		if strings.HasSuffix(gopkg, "_test") {
			return usage("//go:generate in %s (package %s): toolgen generates for a package's own files, not its external tests; move the line to a non-test file", env.Getenv("GOFILE"), gopkg)
		}
	}
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	if filepath.IsAbs(*catalog) && (len(patterns) != 1 || strings.Contains(patterns[0], "...")) {
		return usage("an absolute -catalog path needs exactly one package")
	}

	cfg := Config{Dir: env.Dir, Output: *output}
	if *tags != "" {
		cfg.BuildFlags = []string{"-tags=" + *tags}
	}
	pkgs, err := Load(cfg, patterns...)
	if err != nil {
		return failure(stderr, env.Dir, err)
	}
	files, err := Generate(pkgs, Options{Output: *output, Catalog: *catalog})
	if err != nil {
		return failure(stderr, env.Dir, err)
	}
	if *check {
		stale, err := Stale(files)
		if err != nil {
			return failure(stderr, env.Dir, err)
		}
		for _, d := range stale {
			rel := relPath(env.Dir, d.Path)
			if d.Missing {
				fmt.Fprintf(stderr, "toolgen: %s is missing; run go generate\n", rel)
			} else {
				fmt.Fprintf(stderr, "toolgen: %s is stale; run go generate\n", rel)
			}
			io.WriteString(stdout, strings.Replace(d.Diff, d.Path, rel, 2))
		}
		if len(stale) > 0 {
			return ExitFailure
		}
		return ExitOK
	}
	if err := Write(files); err != nil {
		return failure(stderr, env.Dir, err)
	}
	return ExitOK
}

// failure prints a generation error and returns [ExitFailure].
func failure(stderr io.Writer, dir string, err error) int {
	var de *DiagnosticsError
	if errors.As(err, &de) {
		fmt.Fprintln(stderr, de.Format(dir))
	} else {
		fmt.Fprintln(stderr, err)
	}
	return ExitFailure
}

// relPath returns path relative to dir when it lies below dir.
func relPath(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// moduleVersion is the version of the toolgen module in this binary.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	const mod = "github.com/toolgen-go/toolgen"
	if bi.Main.Path == mod && bi.Main.Version != "" {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == mod {
			return d.Version
		}
	}
	return "(devel)"
}
