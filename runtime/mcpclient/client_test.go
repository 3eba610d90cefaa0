package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpclient"
	"github.com/toolgen-go/toolgen/schemasubset"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// server is an MCP server written with the go-sdk, with tools that import
// cleanly, import with notes, and cannot be imported.
func server(slowStarted chan<- struct{}) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{
		Name:        "echo",
		Description: "Echo says its text back.",
		InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"text":{"type":"string","format":"email","$comment":"any text"}},"required":["text"]}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("echo: " + string(req.Params.Arguments)), nil
	})
	srv.AddTool(&mcp.Tool{
		Name:         "add",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"],"additionalProperties":false}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ A, B int }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{StructuredContent: map[string]int{"sum": in.A + in.B}, Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	srv.AddTool(&mcp.Tool{
		Name:        "bounded",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":0},"when":{"type":"string","format":"date-time"}}}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("never"), nil })
	srv.AddTool(&mcp.Tool{
		Name:        "referenced",
		InputSchema: json.RawMessage(`{"type":"object","$defs":{"p":{"type":"string"}},"properties":{"p":{"$ref":"#/$defs/p"}}}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("never"), nil })
	srv.AddTool(&mcp.Tool{
		Name:        "fails",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "disk full"}}}, nil
	})
	srv.AddTool(&mcp.Tool{
		Name:        "slow",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		slowStarted <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	return srv
}

// connect serves srv in memory and imports its tools into rt.
func connect(t *testing.T, rt *runtime.Runtime, srv *mcp.Server, opts mcpclient.Options) *mcpclient.Importer {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	im, err := mcpclient.Connect(ctx, rt, ct, opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, im.Close())
		_ = ss.Wait()
	})
	return im
}

func call(rt *runtime.Runtime, ctx context.Context, name, args string, agent *runtime.Agent) runtime.Result {
	return rt.Execute(ctx, runtime.ExecutionInput{CallID: "c", Name: name, Arguments: []byte(args), Agent: agent})
}

// TestImportReport checks the per-tool report: clean imports, dropped
// annotations with their pointers, and unsupported keywords that keep one
// tool out while the others import.
func TestImportReport(t *testing.T) {
	rt := runtime.New()
	im := connect(t, rt, server(make(chan struct{}, 1)), mcpclient.Options{})
	rep := im.Report()
	require.NoError(t, rep.Err)
	byName := map[string]mcpclient.ToolReport{}
	for _, tr := range rep.Tools {
		byName[tr.Name] = tr
	}
	require.Len(t, byName, 6)

	echo := byName["echo"]
	require.NoError(t, echo.Err)
	assert.Equal(t, "echo", echo.Registered)
	assert.Equal(t, []mcpclient.Note{
		{Pointer: "/inputSchema/properties/text/$comment", Keyword: "$comment"},
		{Pointer: "/inputSchema/properties/text/format", Keyword: "format"},
	}, echo.Notes)
	assert.Equal(t, "echo: imported as echo ($comment dropped at /inputSchema/properties/text/$comment; format dropped at /inputSchema/properties/text/format)", echo.String())

	for name, pointers := range map[string][]string{
		"bounded":    {"/properties/n/minimum"},
		"referenced": {"/$defs", "/properties/p/$ref"},
	} {
		tr := byName[name]
		assert.Empty(t, tr.Registered, name)
		require.ErrorIs(t, tr.Err, mcpclient.ErrUnsupportedSchema, name)
		var se *schemasubset.SchemaError
		require.ErrorAs(t, tr.Err, &se, name)
		var got []string
		for _, is := range se.Issues {
			got = append(got, is.Pointer)
		}
		assert.Subset(t, got, pointers, name)
		_, ok := rt.Get(name, nil)
		assert.False(t, ok, "%s is not registered", name)
	}
	assert.Equal(t, []mcpclient.Note{{Pointer: "/inputSchema/properties/when/format", Keyword: "format"}}, byName["bounded"].Notes,
		"the notes of an unimportable tool still say what would have been dropped")
	assert.Contains(t, byName["bounded"].String(), "bounded: not imported: inputSchema: ")

	var names []string
	for _, s := range rt.Schemas(nil) {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"add", "echo", "fails", "slow"}, names)
	def, ok := rt.Get("echo", nil)
	require.True(t, ok)
	js, err := def.Parameters.MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, string(js))
	assert.Equal(t, runtime.Parallel, rt.ExecutionMode(runtime.ExecutionInput{Name: "echo", Arguments: []byte(`{"text":"x"}`)}), "readOnlyHint makes a tool parallel")
	assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(runtime.ExecutionInput{Name: "add", Arguments: []byte(`{"a":1,"b":2}`)}))
}

// TestCalls runs imported tools through Runtime.Execute with a guard in
// front: content passes through, structured values are validated, server
// errors become failures, and the runtime validates arguments first.
func TestCalls(t *testing.T) {
	rt := runtime.New()
	var guarded atomic.Int32
	rt.Guard(func(exec runtime.Execution) error {
		guarded.Add(1)
		if strings.Contains(string(exec.Arguments()), "forbidden") {
			return errors.New("not that")
		}
		return nil
	})
	connect(t, rt, server(make(chan struct{}, 1)), mcpclient.Options{})
	ctx := context.Background()

	res := call(rt, ctx, "echo", `{"text":"hi","extra":12345678901234567891}`, nil)
	require.False(t, res.IsError(), "%v", res.Failure)
	assert.Equal(t, `echo: {"text":"hi","extra":12345678901234567891}`, res.Content[0].Text, "arguments reach the server byte for byte")

	res = call(rt, ctx, "add", `{"a":2,"b":3}`, nil)
	require.False(t, res.IsError(), "%v", res.Failure)
	assert.JSONEq(t, `{"sum":5}`, string(res.Value))
	assert.Equal(t, `{"sum":5}`, res.Content[0].Text)

	res = call(rt, ctx, "add", `{"a":2}`, nil)
	assert.Equal(t, runtime.CodeInvalidArgs, res.Code(), "the runtime validates before the server sees the call")

	res = call(rt, ctx, "fails", `{}`, nil)
	assert.Equal(t, runtime.CodeToolError, res.Code())
	assert.Equal(t, "disk full", res.Failure.Message)

	res = call(rt, ctx, "echo", `{"text":"forbidden"}`, nil)
	assert.Equal(t, runtime.CodeDenied, res.Code())
	assert.Equal(t, int32(5), guarded.Load())

	res = call(rt, ctx, "missing", `{}`, nil)
	assert.Equal(t, runtime.CodeUnknownTool, res.Code())
}

// TestCancel checks that cancelling a call reaches the server's handler.
func TestCancel(t *testing.T) {
	rt := runtime.New()
	started := make(chan struct{}, 1)
	connect(t, rt, server(started), mcpclient.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	res := call(rt, ctx, "slow", `{}`, nil)
	assert.Equal(t, runtime.CodeAborted, res.Code())
}

// TestScopeAndPrefix registers the tools in one agent's scope, renamed.
func TestScopeAndPrefix(t *testing.T) {
	rt := runtime.New()
	agent := &runtime.Agent{ID: "a"}
	connect(t, rt, server(make(chan struct{}, 1)), mcpclient.Options{Agent: agent, Prefix: "srv_"})
	_, ok := rt.Get("srv_echo", agent)
	assert.True(t, ok)
	_, ok = rt.Get("srv_echo", nil)
	assert.False(t, ok, "not global")
	res := call(rt, context.Background(), "srv_echo", `{"text":"x"}`, agent)
	require.False(t, res.IsError(), "%v", res.Failure)
}

// TestListChanged follows the server's list_changed notifications: added
// tools appear, removed ones go, changed ones are replaced.
func TestListChanged(t *testing.T) {
	rt := runtime.New()
	srv := server(make(chan struct{}, 1))
	var reports atomic.Int32
	connect(t, rt, srv, mcpclient.Options{OnSync: func(mcpclient.Report) { reports.Add(1) }})
	has := func(name string) bool { _, ok := rt.Get(name, nil); return ok }

	srv.AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("late"), nil })
	require.Eventually(t, func() bool { return has("late") }, 5*time.Second, 5*time.Millisecond)

	srv.RemoveTools("echo")
	require.Eventually(t, func() bool { return !has("echo") }, 5*time.Second, 5*time.Millisecond)

	srv.AddTool(&mcp.Tool{Name: "late", Description: "Now described.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("late"), nil })
	require.Eventually(t, func() bool {
		def, ok := rt.Get("late", nil)
		return ok && def.Description == "Now described."
	}, 5*time.Second, 5*time.Millisecond)
	assert.GreaterOrEqual(t, reports.Load(), int32(4))
}

// TestImportSchema covers the policy on its own.
func TestImportSchema(t *testing.T) {
	tests := []struct {
		name, schema, want string
		notes              []string
		err                string
	}{
		{name: "root keywords", schema: `{"$schema":"x","$id":"y","type":"object"}`, want: `{"type":"object"}`},
		{name: "nested annotations", schema: `{"type":"array","items":{"type":"string","format":"uri","contentMediaType":"text/plain"}}`,
			want: `{"type":"array","items":{"type":"string"}}`, notes: []string{"/items/contentMediaType", "/items/format"}},
		{name: "oneOf branches", schema: `{"oneOf":[{"type":"string","format":"uuid"},{"type":"null"}]}`,
			want: `{"oneOf":[{"type":"string"},{"type":"null"}]}`, notes: []string{"/oneOf/0/format"}},
		{name: "kept annotations", schema: `{"type":"string","title":"T","description":"D","default":"a","examples":["a"]}`,
			want: `{"type":"string","title":"T","description":"D","default":"a","examples":["a"]}`},
		{name: "exact numbers", schema: `{"type":"integer","enum":[12345678901234567891]}`, want: `{"type":"integer","enum":[12345678901234567891]}`},
		{name: "unsupported", schema: `{"type":"string","pattern":"^a","maxLength":3}`, err: "/pattern"},
		{name: "not an object", schema: `[1]`, err: "a schema must be a JSON object, got an array"},
		{name: "not JSON", schema: `{`, err: "the schema is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, notes, err := mcpclient.ImportSchema(json.RawMessage(tt.schema))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			js, err := n.MarshalJSON()
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(js))
			var got []string
			for _, n := range notes {
				got = append(got, n.Pointer)
			}
			assert.Equal(t, tt.notes, got)
		})
	}
	m := map[string]any{"type": "string", "format": "email"}
	_, _, err := mcpclient.ImportSchema(m)
	require.NoError(t, err)
	assert.Contains(t, m, "format", "the caller's map is not changed")
}

// TestStreamableHTTP imports the same server's tools over streamable HTTP.
func TestStreamableHTTP(t *testing.T) {
	srv := server(make(chan struct{}, 1))
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	rt := runtime.New()
	im, err := mcpclient.Connect(context.Background(), rt, mcpclient.HTTP(hs.URL, hs.Client()), mcpclient.Options{})
	require.NoError(t, err)
	defer func() { assert.NoError(t, im.Close()) }()
	res := call(rt, context.Background(), "add", `{"a":40,"b":2}`, nil)
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.JSONEq(t, `{"sum":42}`, string(res.Value))
}
