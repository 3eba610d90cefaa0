package gen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Options says which files [Generate] produces for each package.
type Options struct {
	// Output is the Go file's name in each package's directory; "" means
	// [DefaultOutput].
	Output string
	// Catalog, when set, is the path of the Markdown catalog, relative to
	// each package's directory unless absolute (absolute only for a single
	// package).
	Catalog string
}

// ErrAbsoluteCatalog is returned when an absolute catalog path is given
// for more than one package, which would write them all to one file.
var ErrAbsoluteCatalog = errors.New("toolgen: an absolute -catalog path needs exactly one package")

// Generate returns every file of the packages: each one's Go file and,
// when asked for, its catalog. It fails whole: either every file is
// returned or none is.
func Generate(pkgs []*Package, opts Options) ([]File, error) {
	output := opts.Output
	if output == "" {
		output = DefaultOutput
	}
	if filepath.IsAbs(opts.Catalog) && len(pkgs) > 1 {
		return nil, ErrAbsoluteCatalog
	}
	var files []File
	for _, p := range pkgs {
		src, err := GoFile(p)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: filepath.Join(p.Dir, output), Content: src})
		if opts.Catalog != "" {
			md, err := Catalog(p)
			if err != nil {
				return nil, err
			}
			path := opts.Catalog
			if !filepath.IsAbs(path) {
				path = filepath.Join(p.Dir, path)
			}
			files = append(files, File{Path: path, Content: md})
		}
	}
	return files, nil
}

// Stale compares each file with what is on disk and returns a unified diff
// (from the disk's content to the generated one) for every file that
// differs or is missing, keyed by path, in the files' order.
func Stale(files []File) ([]Difference, error) {
	var out []Difference
	for _, f := range files {
		old, err := os.ReadFile(f.Path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("toolgen: %w", err)
		}
		if err == nil && bytes.Equal(old, f.Content) {
			continue
		}
		out = append(out, Difference{Path: f.Path, Missing: err != nil, Diff: UnifiedDiff(f.Path, old, f.Content)})
	}
	return out, nil
}

// Difference is one stale file.
type Difference struct {
	// Path is the file's path.
	Path string
	// Missing is set when the file does not exist yet.
	Missing bool
	// Diff is the unified diff from the file on disk to the generated one.
	Diff string
}

// Write writes every file, or none: each is first written to a temporary
// file beside it, and only when all of them are written are they renamed
// into place.
func Write(files []File) error {
	temps := make([]string, 0, len(files))
	cleanup := func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}
	for _, f := range files {
		mode := os.FileMode(0o644)
		if fi, err := os.Stat(f.Path); err == nil {
			mode = fi.Mode().Perm()
		}
		tmp, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".*")
		if err != nil {
			cleanup()
			return fmt.Errorf("toolgen: %w", err)
		}
		temps = append(temps, tmp.Name())
		_, werr := tmp.Write(f.Content)
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), mode)); err != nil {
			cleanup()
			return fmt.Errorf("toolgen: writing %s: %w", f.Path, err)
		}
	}
	for i, f := range files {
		if err := os.Rename(temps[i], f.Path); err != nil {
			cleanup()
			return fmt.Errorf("toolgen: %w", err)
		}
	}
	return nil
}
