package generatedtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/gen"
)

// Why a reflected schema may differ from the generated one: what the
// generator reads that reflection cannot see. runtime/reflecttool's package
// doc holds the same table.
const (
	becauseEnumConsts = "enum of a named type's constants"
	becauseConst      = `jsonschema:"const=..." (invopop has no const keyword)`
	becauseOneOf      = "//toolgen:oneof sealed interface"
	becauseSchema     = "//toolgen:schema declaration"
	becauseOpen       = "//toolgen:open struct type"
	becauseShadowing  = "embedded fields shadowed by depth"
	// Not something reflection cannot see but tag forms invopop reads
	// differently from encoding/json and the annotations grammar; see
	// map_tags' Quirks.
	becauseInvopopTags = `json:"-," (invopop drops the field), nullable=true and example= on a boolean (invopop ignores them)`
)

// reflectExceptions lists, by "case/tool/part" (part is params or output),
// every schema whose reflected form differs from the generated one, with
// the reason. Every other schema of every successful golden case must be
// equal byte for byte, and every entry here must still differ.
var reflectExceptions = map[string]string{
	// Shape and shapes.Theme are sealed interfaces; Duration and Color
	// declare their schemas; Canvas is open; kind has a const.
	"map_directives/draw.shape/params": becauseOneOf + "; " + becauseSchema + "; " + becauseOpen + "; " + becauseConst + "; " + becauseEnumConsts,
	"map_directives/draw.shape/output": becauseOneOf,
	"map_directives/erase/params":      becauseOneOf,
	"map_directives/fill/params":       becauseOneOf,
	"map_directives/fill/output":       becauseEnumConsts,

	"map_embedded/resolve/params": becauseShadowing,
	"map_enums/classify/params":   becauseEnumConsts,
	"map_enums/classify/output":   becauseEnumConsts,
	"map_foreign/paint/params":    becauseOneOf + "; " + becauseSchema + "; " + becauseOpen + "; " + becauseEnumConsts,
	"map_foreign/paint/output":    becauseEnumConsts,
	"map_foreign/lookup/params":   becauseEnumConsts,
	"map_foreign/lookup/output":   becauseEnumConsts,
	"map_nullable/resolve/params": becauseEnumConsts,
	"map_oneof/draw/params":       becauseOneOf + "; " + becauseConst,
	"map_oneof/draw/output":       becauseOneOf + "; " + becauseConst,
	"map_open/tag/params":         becauseOpen,
	"map_open/tag/output":         becauseOpen,
	"map_outputs/a_status/output": becauseEnumConsts,
	"map_pointers/point/params":   becauseEnumConsts,
	"map_schema/wait/params":      becauseSchema,
	"map_schema/wait/output":      becauseSchema,
	"map_tags/tag/params":         becauseConst,
	"map_tags/tag_quirks/params":  becauseInvopopTags,
}

// oracleResult is one schema compared by the oracle program.
type oracleResult struct {
	Case      string `json:"case"`
	Tool      string `json:"tool"`
	Part      string `json:"part"`
	Generated string `json:"generated"`
	Reflected string `json:"reflected"`
	Error     string `json:"error"`
}

// key names the result in reflectExceptions.
func (r oracleResult) key() string { return r.Case + "/" + r.Tool + "/" + r.Part }

// oracleTest returns the source of the harness test (see runHarness) that
// derives every generated tool's schemas with runtime/reflecttool, and
// adds to each generated case package the file it calls, since reflection
// needs the compiled types. checkReflectOracle compares what it reports.
func oracleTest(t *testing.T, generated []*gen.Package) string {
	t.Helper()
	var src strings.Builder
	src.WriteString("// TestOracle reports each tool's generated and reflected schemas.\nfunc TestOracle(t *testing.T) {\n\tenc := report(t)\n")
	for i, p := range generated {
		writeOracleFile(t, p)
		fmt.Fprintf(&src, "\t{\n\t\tvar comments reflecttool.Comments\n\t\tif err := comments.AddDir(%q, %q); err != nil {\n\t\t\tt.Fatal(err)\n\t\t}\n", p.Path, p.Dir)
		fmt.Fprintf(&src, "\t\tc%d.ToolgenOracle(&comments, func(tool, part, generated, reflected string, err error) {\n", i)
		fmt.Fprintf(&src, "\t\t\tr := map[string]string{\"case\": %q, \"tool\": tool, \"part\": part, \"generated\": generated, \"reflected\": reflected}\n", caseName(p))
		src.WriteString("\t\t\tif err != nil {\n\t\t\t\tr[\"error\"] = err.Error()\n\t\t\t}\n\t\t\tif err := enc.Encode(r); err != nil {\n\t\t\t\tt.Fatal(err)\n\t\t\t}\n\t\t})\n\t}\n")
	}
	src.WriteString("}\n")
	return src.String()
}

// checkReflectOracle compares every generated tool's schemas with the
// ones runtime/reflecttool derives, as the harness's TestOracle reported
// them (out).
func checkReflectOracle(t *testing.T, out []byte) {
	t.Helper()
	seen := make(map[string]bool)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	count := 0
	for sc.Scan() {
		var r oracleResult
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		count++
		if why, ok := reflectExceptions[r.key()]; ok {
			seen[r.key()] = true
			assert.True(t, r.Error != "" || r.Reflected != r.Generated,
				"%s is listed as an exception (%s) but reflects equal to the generated schema; remove it from reflectExceptions", r.key(), why)
			continue
		}
		if assert.Empty(t, r.Error, "%s: reflecttool failed where the generator succeeded", r.key()) {
			assert.Equal(t, r.Generated, r.Reflected, "%s: the reflected schema differs from the generated one", r.key())
		}
	}
	require.NoError(t, sc.Err())
	require.Positive(t, count, "the oracle compared nothing")
	var stale []string
	for k := range reflectExceptions {
		if !seen[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	assert.Empty(t, stale, "reflectExceptions lists schemas no case has")
}

// writeOracleFile adds to a generated package a function that reports, for
// each tool, its generated schemas and the ones reflecttool derives from
// the tool function's parameter and result types.
func writeOracleFile(t *testing.T, p *gen.Package) {
	t.Helper()
	var b strings.Builder
	// The imports are aliased: a case may declare their names (emit_aliases).
	fmt.Fprintf(&b, "package %s\n\nimport (\n\toraclereflect \"reflect\"\n\n\toraclereflecttool \"github.com/toolgen-go/toolgen/runtime/reflecttool\"\n\toracleschemasubset \"github.com/toolgen-go/toolgen/schemasubset\"\n)\n\n", p.Name)
	b.WriteString("func ToolgenOracle(comments *oraclereflecttool.Comments, report func(tool, part, generated, reflected string, err error)) {\n")
	b.WriteString("\tstr := func(n *oracleschemasubset.Node) string {\n\t\tif n == nil {\n\t\t\treturn \"\"\n\t\t}\n\t\treturn n.String()\n\t}\n")
	b.WriteString("\topts := oraclereflecttool.Options{Comments: comments}\n")
	for _, tool := range p.Tools {
		fmt.Fprintf(&b, "\t{\n\t\tfn := oraclereflect.TypeOf(%s)\n", tool.Func)
		fmt.Fprintf(&b, "\t\tparams, err := oraclereflecttool.ParamsSchema(fn.In(1), opts)\n\t\treport(%q, \"params\", _toolgen_%s_paramsJSON, str(params), err)\n", tool.Name, tool.Func)
		fmt.Fprintf(&b, "\t\toutput, err := oraclereflecttool.OutputSchema(fn.Out(0), opts)\n\t\treport(%q, \"output\", _toolgen_%s_outputJSON, str(output), err)\n\t}\n", tool.Name, tool.Func)
	}
	b.WriteString("}\n")
	require.NoError(t, os.WriteFile(filepath.Join(p.Dir, "zz_oracle.go"), []byte(b.String()), 0o644))
}
