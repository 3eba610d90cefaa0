package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpserver"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// blocking is a runtime with one tool, "wait", that signals started and
// returns only when its context ends, reporting the context's cause, and
// an observer that hands every final result to results.
type blocking struct {
	rt      *runtime.Runtime
	started chan struct{}
	causes  chan error
	results chan runtime.Result
}

func newBlocking(t *testing.T) *blocking {
	b := &blocking{
		rt:      runtime.New(),
		started: make(chan struct{}, 4),
		causes:  make(chan error, 4),
		results: make(chan runtime.Result, 4),
	}
	register(t, b.rt, tool("wait", `{"type":"object"}`, schemasubset.Any(), func(ctx context.Context, _ jsonvalue.Value) (jsonvalue.Value, error) {
		b.started <- struct{}{}
		<-ctx.Done()
		b.causes <- context.Cause(ctx)
		return nil, ctx.Err()
	}))
	b.rt.OnResult(func(_ runtime.Execution, res runtime.Result) { b.results <- res })
	return b
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s", what)
		panic("unreachable")
	}
}

// TestCancel checks that a client cancelling its tools/call (the go-sdk
// sends notifications/cancelled) cancels the server-side call's context:
// the body sees it, and the Runtime ends the call as ABORTED.
func TestCancel(t *testing.T) {
	for _, version := range []string{latest, legacy} {
		t.Run("version="+version, func(t *testing.T) {
			b := newBlocking(t)
			cs := connect(t, newServer(t, b.rt, mcpserver.Options{}), nil, version)
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: json.RawMessage(`{}`)})
				errc <- err
			}()
			receive(t, b.started, "start")
			cancel()
			assert.ErrorIs(t, receive(t, errc, "client return"), context.Canceled)
			assert.ErrorIs(t, receive(t, b.causes, "server-side cancellation"), context.Canceled)
			res := receive(t, b.results, "result")
			assert.Equal(t, runtime.CodeAborted, res.Code())
		})
	}
}

// TestClose checks that Close cancels the calls in flight with ErrClosed,
// and that later calls end before dispatch.
func TestClose(t *testing.T) {
	b := newBlocking(t)
	srv := newServer(t, b.rt, mcpserver.Options{})
	cs := connect(t, srv, nil, legacy)
	resc := make(chan *mcp.CallToolResult, 1)
	go func() { resc <- callTool(t, cs, "wait", `{}`) }()
	receive(t, b.started, "start")
	require.NoError(t, srv.Close())
	assert.ErrorIs(t, receive(t, b.causes, "cancellation"), mcpserver.ErrClosed)
	res := receive(t, resc, "result")
	assert.True(t, res.IsError)
	assert.Equal(t, runtime.CodeAborted, errorCode(t, res))
	assert.Contains(t, texts(res)[0], mcpserver.ErrClosed.Error())
	receive(t, b.results, "observed result")

	res = callTool(t, cs, "wait", `{}`)
	assert.Equal(t, runtime.CodeAbortedBeforeDispatch, errorCode(t, res))
	assert.Equal(t, runtime.CodeAbortedBeforeDispatch, receive(t, b.results, "observed result").Code())
	assert.NoError(t, srv.Close(), "again")
}

// TestServeShutdown checks Serve: when its context ends, the session's
// calls in flight are cancelled with ErrShutdown, and Serve returns nil
// once they have returned.
func TestServeShutdown(t *testing.T) {
	b := newBlocking(t)
	srv := newServer(t, b.rt, mcpserver.Options{})
	st, ct := mcp.NewInMemoryTransports()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- mcpserver.Serve(ctx, srv, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	defer cs.Close()
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
	}()
	receive(t, b.started, "start")
	stop()
	assert.ErrorIs(t, receive(t, b.causes, "cancellation"), mcpserver.ErrShutdown)
	res := receive(t, b.results, "result")
	assert.Equal(t, runtime.CodeAborted, res.Code())
	assert.True(t, strings.HasSuffix(res.Failure.Message, mcpserver.ErrShutdown.Error()), res.Failure.Message)
	assert.NoError(t, receive(t, served, "Serve's return"))
}

// TestServeClientGone checks that Serve returns nil when the client
// disconnects.
func TestServeClientGone(t *testing.T) {
	srv := newServer(t, runtime.New(), mcpserver.Options{})
	st, ct := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- mcpserver.Serve(context.Background(), srv, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	assert.Empty(t, listNames(t, cs))
	require.NoError(t, cs.Close())
	err = receive(t, served, "Serve's return")
	if err != nil {
		// A pipe closed under a read is how an in-memory client leaves.
		assert.True(t, errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "closed"), "%v", err)
	}
}
