package generatedtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/gen"
)

// committedPackages lists the repository's packages that commit a
// generated file: this directory's and the examples'.
func committedPackages(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "bench") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == gen.DefaultOutput {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			dirs = append(dirs, "./"+filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	return dirs
}

// TestCommittedCurrent regenerates every committed generated package in
// check mode, the code path of toolgen -check: nothing is written, and a
// stale file fails with its diff and the command that fixes it.
func TestCommittedCurrent(t *testing.T) {
	root := repoRoot(t)
	pkgs := committedPackages(t, root)
	require.NotEmpty(t, pkgs)
	loaded, err := gen.Load(gen.Config{Dir: root}, pkgs...)
	require.NoError(t, err)
	for _, p := range loaded {
		opts := gen.Options{}
		if _, err := os.Stat(filepath.Join(p.Dir, "TOOLS.md")); err == nil {
			opts.Catalog = "TOOLS.md"
		}
		files, err := gen.Generate([]*gen.Package{p}, opts)
		require.NoError(t, err)
		stale, err := gen.Stale(files)
		require.NoError(t, err)
		for _, d := range stale {
			assert.Failf(t, "stale generated file", "%s is stale; run go generate ./... (or make generate):\n%s", d.Path, d.Diff)
		}
	}
}
