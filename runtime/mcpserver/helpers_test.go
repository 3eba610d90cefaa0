package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpserver"
	"github.com/toolgen-go/toolgen/schemasubset"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The protocol versions the in-memory tests run on: the newest, which the
// go-sdk client negotiates through server/discover, and the newest one
// with the initialize handshake.
const (
	latest = ""
	legacy = "2025-11-25"
)

// body is a tool body.
type body func(ctx context.Context, args jsonvalue.Value) (jsonvalue.Value, error)

// tool returns a definition with the given parameter and output schemas
// whose value renders as one JSON text block.
func tool(name, params string, output *schemasubset.Node, b body) runtime.ToolDefinition {
	return runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{Name: name, Description: "The " + name + " tool.", Parameters: schemasubset.MustParse(params)},
		Output:     runtime.OutputDefinition{Schema: output, Render: renderJSON},
		Execute: func(ctx context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			return b(ctx, args)
		},
	}
}

func renderJSON(_, value jsonvalue.Value) ([]runtime.ContentBlock, error) {
	return []runtime.ContentBlock{runtime.Text(string(value))}, nil
}

// constant is a body returning v.
func constant(v string) body {
	return func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) { return jsonvalue.Value(v), nil }
}

// echo is a body returning its arguments.
func echo(_ context.Context, args jsonvalue.Value) (jsonvalue.Value, error) { return args, nil }

// parallel marks def concurrency-safe.
func parallel(def runtime.ToolDefinition) runtime.ToolDefinition {
	def.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
	return def
}

// register registers defs globally in rt.
func register(t *testing.T, rt *runtime.Runtime, defs ...runtime.ToolDefinition) {
	t.Helper()
	for _, d := range defs {
		_, err := rt.Register(d)
		require.NoError(t, err)
	}
}

// newServer returns a Server for rt, closed at the end of the test.
func newServer(t *testing.T, rt *runtime.Runtime, opts mcpserver.Options) *mcpserver.Server {
	t.Helper()
	srv, err := mcpserver.New(rt, opts)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, srv.Close()) })
	return srv
}

// connect serves srv in memory to a new go-sdk client speaking version
// (latest: whatever the client negotiates) and returns the client's
// session, closed at the end of the test.
func connect(t *testing.T, srv *mcpserver.Server, copts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	return connectVia(t, srv, copts, version, nil)
}

// connectVia is connect with the client's transport wrapped by wrap, when
// set.
func connectVia(t *testing.T, srv *mcpserver.Server, copts *mcp.ClientOptions, version string, wrap func(mcp.Transport) mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	require.NoError(t, err)
	var transport mcp.Transport = ct
	if wrap != nil {
		transport = wrap(ct)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, copts)
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, cs.Close())
		_ = ss.Wait()
	})
	return cs
}

// wire records the JSON-RPC messages of a client transport.
type wire struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *wire) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// record wraps a client transport so that w sees its messages.
func (w *wire) record(t mcp.Transport) mcp.Transport {
	return &mcp.LoggingTransport{Transport: t, Writer: w}
}

// callTool calls name with the raw arguments args.
func callTool(t *testing.T, cs *mcp.ClientSession, name, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	require.NoError(t, err, "a tool failure is a result, never a JSON-RPC error")
	return res
}

// texts returns the text of every text block of res.
func texts(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

// errorCode returns the code in res's _meta["toolgen/error"].
func errorCode(t *testing.T, res *mcp.CallToolResult) runtime.ErrorCode {
	t.Helper()
	raw, err := json.Marshal(res.Meta[mcpserver.MetaError])
	require.NoError(t, err)
	var em mcpserver.ErrorMeta
	require.NoError(t, json.Unmarshal(raw, &em))
	return em.Code
}

// listNames returns the names cs lists.
func listNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	names := []string{}
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}
