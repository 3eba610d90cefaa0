package bench

import (
	"context"
	"encoding/json"
	"testing"

	gjs "github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// toolOutput is the constant value every benchmark tool returns.
const toolOutput = `{"ok":true,"lines":3}`

// benchRender renders a value as one text block holding its JSON.
func benchRender(_, value jsonvalue.Value) ([]runtime.ContentBlock, error) {
	return []runtime.ContentBlock{runtime.Text(string(value))}, nil
}

// payloadTool is the hand-written definition of the target: its body
// validates the payload's arguments with schemasubset.Validate and returns a
// constant.
func payloadTool(p Payload, params *schemasubset.Node) runtime.ToolDefinition {
	out := jsonvalue.Value(toolOutput)
	return runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{Name: "tool_" + p.Name, Description: "Benchmark tool.", Parameters: params},
		Output:     runtime.OutputDefinition{Schema: schemasubset.Any(), Render: benchRender},
		Execute: func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			if err := schemasubset.Validate(params, args); err != nil {
				return nil, &runtime.ToolError{Code: runtime.CodeInvalidArgs, Message: err.Error()}
			}
			return out, nil
		},
		ValidatesArguments: true,
	}
}

func newRuntime(tb testing.TB, p Payload, hooks bool) *runtime.Runtime {
	params, err := schemasubset.Parse(p.Schema)
	require.NoError(tb, err)
	rt := runtime.New()
	_, err = rt.Register(payloadTool(p, params))
	require.NoError(tb, err)
	if hooks {
		for range 3 {
			rt.OnPreExecute(func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
				return next()
			})
		}
		rt.Guard(func(runtime.Execution) error { return nil })
		rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
			return next(ctx)
		})
		rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			return next()
		})
		rt.OnResult(func(runtime.Execution, runtime.Result) {})
	}
	return rt
}

// TestRuntimePathsAgree checks the benchmark tools before they are timed:
// every payload succeeds through Execute and the MCP round trip, and every
// invalid variant fails.
func TestRuntimePathsAgree(t *testing.T) {
	ctx := context.Background()
	for _, p := range load(t) {
		rt := newRuntime(t, p, true)
		in := runtime.ExecutionInput{CallID: "c", Name: "tool_" + p.Name, Arguments: p.Value}
		res := rt.Execute(ctx, in)
		require.False(t, res.IsError(), "%s: %v", p.Name, res.Failure)
		require.Equal(t, toolOutput, res.Value.String())
		for kind, raw := range p.Invalid {
			in.Arguments = raw
			require.True(t, rt.Execute(ctx, in).IsError(), "%s_invalid_%s", p.Name, kind)
		}

		cs, closeAll := newMCP(t, p)
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tool_" + p.Name, Arguments: json.RawMessage(p.Value)})
		require.NoError(t, err)
		require.False(t, r.IsError, "%s: %+v", p.Name, r.Content)
		for kind, raw := range p.Invalid {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tool_" + p.Name, Arguments: json.RawMessage(raw)})
			require.NoError(t, err)
			require.True(t, r.IsError, "%s_invalid_%s", p.Name, kind)
		}
		closeAll()
	}
}

// BenchmarkDirect is the baseline of the Execute target: Materialize,
// Validate and render called directly.
func BenchmarkDirect(b *testing.B) {
	for _, p := range load(b) {
		params, err := schemasubset.Parse(p.Schema)
		require.NoError(b, err)
		out := jsonvalue.Value(toolOutput)
		b.Run(p.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				args, err := jsonvalue.Materialize(p.Value)
				if err != nil {
					b.Fatal(err)
				}
				if err := schemasubset.Validate(params, args); err != nil {
					b.Fatal(err)
				}
				if _, err := benchRender(args, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExecuteNoHooks is Runtime.Execute of the payload tool with no
// hooks.
func BenchmarkExecuteNoHooks(b *testing.B) { benchExecute(b, false) }

// BenchmarkExecuteHooks adds 3 pre-execute listeners, 1 guard, 1 wrapper,
// 1 post-execute listener and 1 observer.
func BenchmarkExecuteHooks(b *testing.B) { benchExecute(b, true) }

func benchExecute(b *testing.B, hooks bool) {
	ctx := context.Background()
	for _, p := range load(b) {
		rt := newRuntime(b, p, hooks)
		in := runtime.ExecutionInput{CallID: "c", Name: "tool_" + p.Name, Arguments: p.Value}
		b.Run(p.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := rt.Execute(ctx, in); res.IsError() {
					b.Fatal(res.Failure.Message)
				}
			}
		})
	}
}

// newMCP serves the payload's tool with the official MCP Go SDK's typed
// mcp.AddTool (input validated against the payload schema) over its
// in-memory transport, and returns a connected client session.
func newMCP(tb testing.TB, p Payload) (*mcp.ClientSession, func()) {
	ctx := context.Background()
	var schema gjs.Schema
	require.NoError(tb, json.Unmarshal(p.Schema, &schema))
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v0.0.0"}, nil)
	tool := &mcp.Tool{Name: "tool_" + p.Name, Description: "Benchmark tool.", InputSchema: &schema}
	switch p.Name {
	case "small":
		mcp.AddTool(server, tool, mcpHandler[ReadFileArgs])
	case "medium":
		mcp.AddTool(server, tool, mcpHandler[GrepArgs])
	default:
		mcp.AddTool(server, tool, mcpHandler[EditArgs])
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(tb, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v0.0.0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	require.NoError(tb, err)
	return cs, func() {
		_ = cs.Close()
		_ = ss.Wait()
	}
}

// mcpOutput is the constant value of the MCP tool.
type mcpOutput struct {
	OK    bool `json:"ok"`
	Lines int  `json:"lines"`
}

func mcpHandler[In any](_ context.Context, _ *mcp.CallToolRequest, _ In) (*mcp.CallToolResult, mcpOutput, error) {
	return nil, mcpOutput{OK: true, Lines: 3}, nil
}

// BenchmarkMCPCallTool is the official MCP Go SDK's whole in-memory
// CallTool round trip for the same tool (JSON-RPC included).
func BenchmarkMCPCallTool(b *testing.B) {
	ctx := context.Background()
	for _, p := range load(b) {
		cs, closeAll := newMCP(b, p)
		params := &mcp.CallToolParams{Name: "tool_" + p.Name, Arguments: json.RawMessage(p.Value)}
		b.Run(p.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := cs.CallTool(ctx, params)
				if err != nil || r.IsError {
					b.Fatal(err, r)
				}
			}
		})
		closeAll()
	}
}
