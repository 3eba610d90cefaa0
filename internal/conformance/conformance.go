// Package conformance finds and reads the subset conformance corpus that
// lives outside this repository (the official JSON-Schema-Test-Suite draft
// 2020-12 groups, classified against the subset, plus hand-made cases), for
// the tests and fuzz seeds of jsonvalue and schemasubset.
//
// The corpus is found at $TOOLGEN_CONFORMANCE_DIR, or else at
// ../shared/conformance beside the repository root.
package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvDir is the environment variable that names the corpus directory.
const EnvDir = "TOOLGEN_CONFORMANCE_DIR"

// Find returns the corpus directory and whether it exists.
func Find() (string, bool) {
	if dir := os.Getenv(EnvDir); dir != "" {
		return dir, isCorpus(dir)
	}
	root, err := repoRoot()
	if err != nil {
		return "", false
	}
	dir := filepath.Join(filepath.Dir(root), "shared", "conformance")
	return dir, isCorpus(dir)
}

func isCorpus(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "subset-expectations.json"))
	return err == nil
}

// repoRoot walks up from the working directory to the directory whose go.mod
// declares this module.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && containsModuleLine(b) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod for github.com/toolgen-go/toolgen above the working directory")
		}
		dir = parent
	}
}

func containsModuleLine(gomod []byte) bool {
	const line = "module github.com/toolgen-go/toolgen\n"
	return len(gomod) >= len(line) && string(gomod[:len(line)]) == line
}

// Dir returns the corpus directory for a test. When the corpus is missing it
// fails the test under CI=true, as CI runs it, and otherwise skips it with a
// message saying where to put the corpus.
func Dir(t testing.TB) string {
	t.Helper()
	dir, ok := Find()
	if ok {
		return dir
	}
	msg := fmt.Sprintf("conformance corpus not found at %q: set $%s or place the corpus at ../shared/conformance beside the repository root", dir, EnvDir)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Test is one instance of a group: raw JSON data and whether it is valid.
type Test struct {
	Description string          `json:"description"`
	Data        json.RawMessage `json:"data"`
	Valid       bool            `json:"valid"`
}

// Group is one schema with its tests, in the suite's shape. The raw bytes
// are kept exactly as the files spell them.
type Group struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []Test          `json:"tests"`
	// Supported, Reason and Note are set on the hand-made cases only.
	Supported bool   `json:"supported"`
	Reason    string `json:"reason"`
	Note      string `json:"note"`
}

// Expectation is the classification of one suite group.
type Expectation struct {
	File          string `json:"file"`
	Group         int    `json:"group"`
	Description   string `json:"description"`
	Supported     bool   `json:"supported"`
	Reason        string `json:"reason"`
	SupportedAsIs bool   `json:"supported_as_is"`
	Stripped      bool   `json:"root_schema_stripped"`
	TestCount     int    `json:"test_count"`
	Errors        []struct {
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"errors"`
}

// Expectations is subset-expectations.json.
type Expectations struct {
	Source struct {
		CorpusDir string `json:"corpus_dir"`
	} `json:"source"`
	Counts struct {
		Files     int `json:"files"`
		Groups    int `json:"groups"`
		Supported int `json:"supported"`
		Tests     int `json:"tests"`
		InSupport int `json:"tests_in_supported_groups"`
	} `json:"counts"`
	Groups []Expectation `json:"groups"`
}

// LoadExpectations reads subset-expectations.json from dir.
func LoadExpectations(dir string) (*Expectations, error) {
	var e Expectations
	if err := readJSON(filepath.Join(dir, "subset-expectations.json"), &e); err != nil {
		return nil, err
	}
	if e.Source.CorpusDir == "" {
		e.Source.CorpusDir = "jsts-draft2020-12"
	}
	return &e, nil
}

// LoadSuiteFile reads one suite file's groups.
func LoadSuiteFile(dir string, e *Expectations, file string) ([]Group, error) {
	var groups []Group
	err := readJSON(filepath.Join(dir, e.Source.CorpusDir, file), &groups)
	return groups, err
}

// LoadExtra reads the hand-made cases of subset-extra.json.
func LoadExtra(dir string) ([]Group, error) {
	var groups []Group
	err := readJSON(filepath.Join(dir, "subset-extra.json"), &groups)
	return groups, err
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Samples returns every schema and datum of the corpus as raw bytes, for
// seeding fuzz targets. It returns nil when the corpus is missing.
func Samples() (schemas, data [][]byte) {
	dir, ok := Find()
	if !ok {
		return nil, nil
	}
	e, err := LoadExpectations(dir)
	if err != nil {
		return nil, nil
	}
	seen := map[string]bool{}
	var groups []Group
	for _, x := range e.Groups {
		if seen[x.File] {
			continue
		}
		seen[x.File] = true
		g, err := LoadSuiteFile(dir, e, x.File)
		if err == nil {
			groups = append(groups, g...)
		}
	}
	if extra, err := LoadExtra(dir); err == nil {
		groups = append(groups, extra...)
	}
	for _, g := range groups {
		schemas = append(schemas, g.Schema)
		for _, t := range g.Tests {
			data = append(data, t.Data)
		}
	}
	return schemas, data
}
