package mcpserver_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpserver"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// httpClient returns an HTTP client of its own, whose idle connections
// are closed at the end of the test.
func httpClient(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// connectHTTP connects a go-sdk client to the streamable HTTP endpoint.
func connectHTTP(t *testing.T, endpoint string, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "v1"}, copts)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: httpClient(t)}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestStreamableHTTP drives the handler over a loopback HTTP server:
// listing, a call, an approval elicited on the call's own stream, a
// list_changed notification, and a cancelled call.
func TestStreamableHTTP(t *testing.T) {
	a := newApprovals(t)
	b := newBlocking(t)
	for _, def := range []string{"wait"} {
		d, ok := b.rt.Get(def, nil)
		require.True(t, ok)
		register(t, a.rt, d)
	}
	a.rt.OnResult(func(_ runtime.Execution, res runtime.Result) {
		if res.Code() == runtime.CodeAborted {
			b.results <- res
		}
	})
	srv := newServer(t, a.rt, mcpserver.Options{})
	hs := httptest.NewServer(srv.HTTPHandler(nil))
	t.Cleanup(hs.Close)

	var mu sync.Mutex
	var shown []string
	changed := make(chan struct{}, 16)
	copts := answering("accept", &shown, &mu)
	copts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }
	cs := connectHTTP(t, hs.URL, copts)
	assert.Equal(t, "2025-11-25", cs.InitializeResult().ProtocolVersion, "stateful streamable HTTP negotiates the handshake")
	assert.Equal(t, []string{"wait", "write"}, listNames(t, cs))

	res := callTool(t, cs, "write", `{"path":"x"}`)
	assert.False(t, res.IsError, "%v", texts(res))
	mu.Lock()
	assert.Len(t, shown, 1, "the approval was elicited over HTTP")
	mu.Unlock()

	dispose, err := a.rt.Register(tool("late", `{"type":"object"}`, schemasubset.Any(), constant(`1`)))
	require.NoError(t, err)
	waitChanged(t, changed)
	assert.Equal(t, []string{"late", "wait", "write"}, listNames(t, cs))
	dispose()
	waitChanged(t, changed)

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
	assert.Equal(t, runtime.CodeAborted, receive(t, b.results, "result").Code())

	// A second client is a second session, with an agent of its own.
	other := connectHTTP(t, hs.URL, nil)
	assert.Equal(t, []string{"wait", "write"}, listNames(t, other))
	sessions := 0
	for range srv.MCP().Sessions() {
		sessions++
	}
	assert.Equal(t, 2, sessions)
}

// TestServeHTTP runs ListenLoopback and ServeHTTP, and stops them through
// the context while a call runs.
func TestServeHTTP(t *testing.T) {
	b := newBlocking(t)
	srv := newServer(t, b.rt, mcpserver.Options{})
	ln, err := mcpserver.ListenLoopback("127.0.0.1:0")
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- mcpserver.ServeHTTP(ctx, srv, ln) }()

	cs := connectHTTP(t, "http://"+ln.Addr().String()+"/mcp", nil)
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
	}()
	receive(t, b.started, "start")
	stop()
	assert.ErrorIs(t, receive(t, b.causes, "cancellation"), mcpserver.ErrShutdown)
	assert.Equal(t, runtime.CodeAborted, receive(t, b.results, "result").Code())
	assert.NoError(t, receive(t, served, "ServeHTTP's return"))
}

// TestListenLoopback refuses addresses beyond the machine.
func TestListenLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "example.com:80"} {
		_, err := mcpserver.ListenLoopback(addr)
		assert.ErrorIs(t, err, mcpserver.ErrNotLoopback, addr)
	}
	_, err := mcpserver.ListenLoopback("no-port")
	assert.Error(t, err)
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := mcpserver.ListenLoopback(addr)
		require.NoError(t, err, addr)
		host, _, err := net.SplitHostPort(ln.Addr().String())
		require.NoError(t, err)
		assert.True(t, net.ParseIP(host).IsLoopback(), addr)
		require.NoError(t, ln.Close())
	}
}
