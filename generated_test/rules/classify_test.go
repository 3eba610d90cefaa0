package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/runtime"
)

// TestR36_InvalidArgumentsAreExclusive: arguments that break the parameter
// schema, are not JSON, or do not fit the Go type make a call exclusive
// without calling the generated tool's typed classifier.
func TestR36_InvalidArgumentsAreExclusive(t *testing.T) {
	rt := runtime.New()
	for _, def := range Tools() {
		_, err := rt.Register(def)
		require.NoError(t, err, def.Name)
	}
	mode := func(args string) runtime.ExecutionMode {
		return rt.ExecutionMode(runtime.ExecutionInput{CallID: "c", Name: "classify", Arguments: []byte(args)})
	}
	classifyCalls.Store(0)
	for _, args := range []string{`{}`, `{"path":1}`, `not json`, `{"path":"/a","level":1.5}`} {
		assert.Equal(t, runtime.Exclusive, mode(args), args)
	}
	assert.Zero(t, classifyCalls.Load(), "the classifier never sees invalid arguments")

	assert.Equal(t, runtime.Exclusive, mode(`{"path":"/a","level":300}`), "schema-valid, but 300 is no int8")
	assert.Zero(t, classifyCalls.Load(), "a go-range rejection is invalid arguments too")

	assert.Equal(t, runtime.Parallel, mode(`{"path":"/a"}`))
	assert.Equal(t, runtime.Exclusive, mode(`{"path":"/a","write":true}`))
	assert.EqualValues(t, 2, classifyCalls.Load())
}

// TestGeneratedExecute drives a generated adapter through Runtime.Execute:
// a success with the encoded value and the default JSON text block, and
// INVALID_ARGS with Validate's path for bad arguments.
func TestGeneratedExecute(t *testing.T) {
	rt := runtime.New()
	for _, def := range Tools() {
		_, err := rt.Register(def)
		require.NoError(t, err, def.Name)
	}
	res := call(rt, "classify", `{"path":"/a","extra":true}`)
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.JSONEq(t, `{"path":"/a"}`, string(res.Value))
	require.Len(t, res.Content, 1)
	assert.Equal(t, `{"path":"/a"}`, res.Content[0].Text)

	res = call(rt, "classify", `{"path":"/a","level":"high"}`)
	require.True(t, res.IsError())
	assert.Equal(t, runtime.CodeInvalidArgs, res.Code())
	assert.Contains(t, res.Failure.Message, "/level: want integer, got string")

	res = call(rt, "classify", `{"path":"/a","level":300}`)
	require.True(t, res.IsError())
	assert.Equal(t, runtime.CodeInvalidArgs, res.Code())
	assert.Contains(t, res.Failure.Message, "/level")
}
