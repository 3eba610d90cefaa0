package rules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/runtime/reflecttool"
)

// TestReflectOracle derives the schemas of this package's tools with
// runtime/reflecttool and compares them with the generated ones. Two
// parameter schemas hold what reflection cannot see (exceptions listed in
// reflecttool's package doc): Draw's a //toolgen:oneof sealed interface,
// which reflection refuses, and Lookup's a //toolgen:open struct and an
// enum of package constants, which reflect closed and without the enum.
func TestReflectOracle(t *testing.T) {
	var comments reflecttool.Comments
	require.NoError(t, comments.AddDir("github.com/toolgen-go/toolgen/generated_test/rules", "."))
	opts := reflecttool.Options{Comments: &comments}
	tools := []struct {
		fn                     any
		paramsJSON, outputJSON string
		oneOf, differs         bool
	}{
		{Lookup, _toolgen_Lookup_paramsJSON, _toolgen_Lookup_outputJSON, false, true},
		{Draw, _toolgen_Draw_paramsJSON, _toolgen_Draw_outputJSON, true, false},
		{Anything, _toolgen_Anything_paramsJSON, _toolgen_Anything_outputJSON, false, false},
		{Deep, _toolgen_Deep_paramsJSON, _toolgen_Deep_outputJSON, false, false},
	}
	for _, tool := range tools {
		fn := reflect.TypeOf(tool.fn)
		t.Run(fn.In(1).Name(), func(t *testing.T) {
			params, err := reflecttool.ParamsSchema(fn.In(1), opts)
			if tool.oneOf {
				var e *reflecttool.Error
				require.ErrorAs(t, err, &e)
				assert.ErrorIs(t, err, reflecttool.ErrUnsupportedType)
				assert.Contains(t, e.Message, "//toolgen:oneof")
			} else if tool.differs {
				require.NoError(t, err)
				want := strings.Replace(tool.paramsJSON, `"enum":["a","b"]`, "", 1)
				want = strings.Replace(want, `"properties":{"name":{"type":"string"}}}`, `"properties":{"name":{"type":"string"}},"additionalProperties":false}`, 1)
				want = strings.Replace(want, `"Mode picks how.",}`, `"Mode picks how."}`, 1)
				assert.Equal(t, want, params.String(), "the schemas must differ by the exceptions only")
			} else {
				require.NoError(t, err)
				assert.Equal(t, tool.paramsJSON, params.String())
			}
			output, err := reflecttool.OutputSchema(fn.Out(0), opts)
			require.NoError(t, err)
			assert.Equal(t, tool.outputJSON, output.String())
		})
	}
}
