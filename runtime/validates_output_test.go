package runtime_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// TestValidatesOutput: a body that vouches for its values is not validated
// again, but a post-execute replacement of its value still is.
func TestValidatesOutput(t *testing.T) {
	validated := 0
	def := tool("t", constant(`"not a number"`))
	def.Output.Schema = schemasubset.Number()
	def.Output.Validate = func(v jsonvalue.Value) error {
		validated++
		return schemasubset.Validate(schemasubset.Number(), v)
	}

	def.ValidatesOutput = false
	rt := runtime.New()
	mustRegister(t, rt, def)
	res := exec(t, rt, context.Background(), call("t", `{}`, nil))
	assert.Equal(t, runtime.CodeInvalidToolOutput, code(res), "without the flag the value is validated")
	assert.Equal(t, 1, validated)

	def.ValidatesOutput = true
	rt = runtime.New()
	mustRegister(t, rt, def)
	res = exec(t, rt, context.Background(), call("t", `{}`, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, 1, validated, "the body's own value is trusted")

	rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, _ func() runtime.PostDecision) runtime.PostDecision {
		return runtime.AcceptValue(jsonvalue.String("replaced"))
	})
	res = exec(t, rt, context.Background(), call("t", `{}`, nil))
	assert.Equal(t, runtime.CodeInvalidToolOutput, code(res), "a replaced value is validated")
	assert.Equal(t, 2, validated)
}
