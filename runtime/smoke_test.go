package runtime_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

func TestSmokeExecute(t *testing.T) {
	rt := runtime.New()
	mustRegister(t, rt, echo())
	res := exec(t, rt, context.Background(), call("echo", ` { "n" : 12345678901234567890123, "f": 1.0 } `, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, `{"n":12345678901234567890123,"f":1.0}`, res.Value.String())
	assert.Equal(t, []runtime.ContentBlock{runtime.Text(`{"n":12345678901234567890123,"f":1.0}`)}, res.Content)

	res = exec(t, rt, context.Background(), call("nope", `{}`, nil))
	assert.Equal(t, runtime.CodeUnknownTool, code(res))
	res = exec(t, rt, context.Background(), call("echo", `{"a":1,"a":2}`, nil))
	assert.Equal(t, runtime.CodeInvalidArgs, code(res))
	res = exec(t, rt, context.Background(), call("echo", `[]`, nil))
	assert.Equal(t, runtime.CodeInvalidArgs, code(res))
}

func TestBodyReturningTheCancellationIsAborted(t *testing.T) {
	rt := runtime.New()
	started := make(chan struct{})
	mustRegister(t, rt, tool("wait", func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		close(started)
		<-ctx.Done()
		return nil, fmt.Errorf("waiting: %w", ctx.Err())
	}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	res := exec(t, rt, ctx, call("wait", `{}`, nil))
	assert.Equal(t, runtime.CodeAborted, code(res))

	// A body's own context error, with the caller still live, is its own
	// failure.
	mustRegister(t, rt, tool("own", func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
		return nil, context.DeadlineExceeded
	}))
	assert.Equal(t, runtime.CodeToolError, code(exec(t, rt, context.Background(), call("own", `{}`, nil))))
}
