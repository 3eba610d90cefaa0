package gen

import (
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestImportName(t *testing.T) {
	for path, want := range map[string]string{
		"math":                                  "math",
		"math/rand/v2":                          "rand",
		"encoding/json":                         "json",
		"github.com/toolgen-go/toolgen/runtime": "runtime",
		"example.com/m/v3":                      "m",
		"example.com/v":                         "v",
	} {
		assert.Equal(t, want, importName(path), path)
	}
}

// TestImportClashes checks which imports a generated file must alias:
// those whose name, or conventional name, the package declares or the file
// declares itself, aliased with the generator's own imports first.
func TestImportClashes(t *testing.T) {
	src := []byte(`package p

import (
	other "example.com/x/math"
	rr "example.com/y/r"
	"context"
	"math"
	"github.com/toolgen-go/toolgen/runtime"
)

func f(r int) (out int) {
	v := context.TODO()
	for i, x := range []int{} {
		_, _ = i, x
	}
	return other.A + rr.B + math.MaxInt8 + runtime.C + r
}
`)
	got, err := importClashes(src, []string{"math", "runtime", "toolgenruntime"}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"math":                                  "toolgenmath",
		"example.com/x/math":                    "toolgenmath2",
		"github.com/toolgen-go/toolgen/runtime": "toolgenruntime2",
		"example.com/y/r":                       "toolgenr", // r is a parameter
	}, got)

	got, err = importClashes(src, nil, map[string]string{"example.com/y/r": "rr"})
	require.NoError(t, err)
	assert.Empty(t, got, "an import already aliased keeps its alias")

	_, err = importClashes([]byte("package"), nil, nil)
	assert.Error(t, err)
}

// TestGoFileAliases generates a file for a package that declares the names
// of the generated file's imports: they are aliased, and without such
// names nothing is.
func TestGoFileAliases(t *testing.T) {
	imports := func(src []byte) map[string]string {
		f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly)
		require.NoError(t, err)
		out := make(map[string]string)
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			require.NoError(t, err)
			out[path] = ""
			if spec.Name != nil {
				out[path] = spec.Name.Name
			}
		}
		return out
	}
	p := &Package{Name: "p", Path: "example.com/p"}
	plain, err := GoFile(p)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{runtimePath: ""}, imports(plain))

	p.Scope = []string{"Args", "runtime"}
	aliased, err := GoFile(p)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{runtimePath: "toolgenruntime"}, imports(aliased))
	assert.Contains(t, string(aliased), "toolgenruntime.EnforceVersion(")
	assert.NotContains(t, string(aliased), "(runtime.")
	assert.NotContains(t, string(aliased), "]runtime.")
}
