package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// benchTool is a read_file-shaped tool: parallel, object output.
func benchTool() runtime.ToolDefinition {
	out := jsonvalue.Value(`{"path":"/src/main.go","lines":["package main"],"total_lines":1,"truncated":false}`)
	return runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{Name: "read_file", Description: "Reads.", Parameters: schemasubset.MustParse(
			`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"limit":{"type":"integer"}},"required":["path"]}`)},
		Output: runtime.OutputDefinition{
			Schema: schemasubset.MustParse(`{"type":"object","properties":{"path":{"type":"string"},"lines":{"type":"array","items":{"type":"string"}},"total_lines":{"type":"integer"},"truncated":{"type":"boolean"}}}`),
			Render: func(_, v jsonvalue.Value) ([]runtime.ContentBlock, error) {
				return []runtime.ContentBlock{runtime.Text(string(v))}, nil
			},
		},
		Execute:         func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) { return out, nil },
		ConcurrencySafe: func(jsonvalue.Value) bool { return true },
		ValidatesOutput: true,
	}
}

const benchArgs = `{"path":"/src/main.go","offset":120,"limit":200}`

// BenchmarkHandle measures what the server adds to one call, without the
// transport: the tools/call handler (session lookup, call context, the
// exclusivity gate, ExecutionMode, Execute, the result's MCP form) next to
// Runtime.Execute alone on the same tool.
func BenchmarkHandle(b *testing.B) {
	rt := runtime.New()
	if _, err := rt.Register(benchTool()); err != nil {
		b.Fatal(err)
	}
	srv, err := New(rt, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	agent := &runtime.Agent{ID: "bench"}
	b.Run("execute", func(b *testing.B) {
		b.ReportAllocs()
		in := runtime.ExecutionInput{CallID: "c", Name: "read_file", Arguments: []byte(benchArgs), Agent: agent}
		for b.Loop() {
			if res := rt.Execute(ctx, in); res.IsError() {
				b.Fatal(res.Failure.Message)
			}
		}
	})
	b.Run("handler", func(b *testing.B) {
		b.ReportAllocs()
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "read_file", Arguments: json.RawMessage(benchArgs)}}
		for b.Loop() {
			res, err := srv.handle(ctx, req)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
