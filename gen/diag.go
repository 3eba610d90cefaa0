package gen

import (
	"cmp"
	"fmt"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
)

// Diagnostic is one problem found while loading or modelling a package.
type Diagnostic struct {
	// Pos is where the problem is; Filename is absolute.
	Pos token.Position
	// Message says what is wrong and what to write instead. For loader
	// errors it is the loader's whole text, which already holds its
	// position.
	Message string
	// Loader is set on errors of the Go loader (syntax and type errors),
	// which are printed unchanged.
	Loader bool
}

// Format renders the diagnostic the way the Go toolchain does,
// "file.go:12:6: toolgen: message", with the file name relative to dir
// when it lies below dir.
func (d Diagnostic) Format(dir string) string {
	if d.Loader {
		return d.Message
	}
	pos := d.Pos
	if dir != "" && pos.Filename != "" {
		if rel, err := filepath.Rel(dir, pos.Filename); err == nil && !strings.HasPrefix(rel, "..") {
			pos.Filename = rel
		}
	}
	if !pos.IsValid() && pos.Filename == "" {
		return "toolgen: " + d.Message
	}
	return pos.String() + ": toolgen: " + d.Message
}

// String formats the diagnostic with its absolute file name.
func (d Diagnostic) String() string { return d.Format("") }

// DiagnosticsError is the error of a run that found problems: every
// diagnostic, loader errors first, then the rest in source order.
type DiagnosticsError struct {
	// Diagnostics lists the problems.
	Diagnostics []Diagnostic
}

// Error joins the diagnostics, one per line.
func (e *DiagnosticsError) Error() string { return e.Format("") }

// Format joins the diagnostics, one per line, with file names relative to
// dir (see [Diagnostic.Format]).
func (e *DiagnosticsError) Format(dir string) string {
	lines := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		lines[i] = d.Format(dir)
	}
	return strings.Join(lines, "\n")
}

// diagnostics collects the problems of one run.
type diagnostics struct {
	fset *token.FileSet
	list []Diagnostic
	seen map[string]bool
}

// errorf records a problem at pos; an identical problem is kept once (a
// broken type used by two tools is reported once).
func (d *diagnostics) errorf(pos token.Pos, format string, args ...any) {
	d.at(d.fset.Position(pos), fmt.Sprintf(format, args...))
}

// at records a problem at an already resolved position.
func (d *diagnostics) at(pos token.Position, msg string) {
	key := pos.String() + "\x00" + msg
	if d.seen == nil {
		d.seen = make(map[string]bool)
	}
	if d.seen[key] {
		return
	}
	d.seen[key] = true
	d.list = append(d.list, Diagnostic{Pos: pos, Message: msg})
}

// sorted returns the problems in source order: by file, line and column,
// keeping the order of problems at one position.
func (d *diagnostics) sorted() []Diagnostic {
	out := slices.Clone(d.list)
	slices.SortStableFunc(out, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
		)
	})
	return out
}
