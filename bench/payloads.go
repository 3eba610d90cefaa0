package bench

import (
	"fmt"
	"os"
	"path/filepath"
)

// EnvDir names the directory that holds the payloads; by default it is
// ../shared/bench beside the repository root.
const EnvDir = "TOOLGEN_BENCH_DIR"

// Names lists the payloads in order of size.
var Names = []string{"small", "medium", "nested"}

// Payload is one tool call's arguments with its schema and invalid variants.
type Payload struct {
	Name    string
	Schema  []byte
	Value   []byte
	Invalid map[string][]byte // by kind: missing, type, enum, extra
}

// Dir returns the payload directory.
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "bench")
}

// Load reads every payload from dir.
func Load(dir string) ([]Payload, error) {
	var out []Payload
	for _, name := range Names {
		p := Payload{Name: name, Invalid: map[string][]byte{}}
		var err error
		if p.Schema, err = os.ReadFile(filepath.Join(dir, name+".schema.json")); err != nil {
			return nil, fmt.Errorf("bench payloads not found (set $%s): %w", EnvDir, err)
		}
		if p.Value, err = os.ReadFile(filepath.Join(dir, name+".json")); err != nil {
			return nil, err
		}
		for _, kind := range []string{"missing", "type", "enum", "extra"} {
			if b, err := os.ReadFile(filepath.Join(dir, name+"_invalid_"+kind+".json")); err == nil {
				p.Invalid[kind] = b
			}
		}
		out = append(out, p)
	}
	return out, nil
}
