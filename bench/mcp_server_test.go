package bench

import (
	"context"
	"encoding/json"
	"testing"

	gjs "github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/bench/tools"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpserver"
)

// The MCP server benchmarks time one whole tools/call round trip over the
// go-sdk's in-memory transport (client encode, JSON-RPC over a pipe,
// server decode, the tool, the result back) of the small payload's
// read_file, served four ways:
//
//   - toolgen: bench/tools' generated read_file registered in a Runtime and
//     served by runtime/mcpserver (Execute's pipeline, the exclusivity
//     gate, structuredContent);
//   - addtool_validated: the same Go function behind the go-sdk's typed
//     mcp.AddTool with the payload's schema, so the SDK validates the input
//     (google/jsonschema-go) and, as it always does, the output against the
//     schema it infers from the result type;
//   - addtool_unvalidated: the same with the input schema {"type":"object"},
//     the least mcp.AddTool accepts: input validation is off, but the SDK
//     still decodes the arguments into a map, re-encodes them and decodes
//     them into the struct, and validates the output;
//   - raw_addtool: the go-sdk's low-level Server.AddTool with a handler that
//     decodes the arguments with encoding/json, calls the function and
//     encodes the result, validating nothing: the floor of a go-sdk server.

// mcpPeer is one way of serving read_file, and how to call it.
type mcpPeer struct {
	name  string
	serve func(tb testing.TB) *mcp.Server
}

// readFileHandler is read_file as a typed go-sdk handler.
func readFileHandler(ctx context.Context, _ *mcp.CallToolRequest, in tools.ReadFileArgs) (*mcp.CallToolResult, tools.ReadFileResult, error) {
	out, err := tools.ReadFile(ctx, in)
	return nil, out, err
}

// readFileRaw is read_file as a raw go-sdk handler: decode, call, encode.
func readFileRaw(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in tools.ReadFileArgs
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
	out, err := tools.ReadFile(ctx, in)
	if err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{StructuredContent: json.RawMessage(data), Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
}

func newSDKServer() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v0.0.0"}, nil)
}

// mcpPeers returns the four servers of the small payload's read_file.
func mcpPeers(p Payload) []mcpPeer {
	return []mcpPeer{
		{"toolgen", func(tb testing.TB) *mcp.Server {
			rt := runtime.New()
			_, err := rt.Register(tools.Tools()[0])
			require.NoError(tb, err)
			srv, err := mcpserver.New(rt, mcpserver.Options{})
			require.NoError(tb, err)
			tb.Cleanup(func() { _ = srv.Close() })
			return srv.MCP()
		}},
		{"addtool_validated", func(tb testing.TB) *mcp.Server {
			var schema gjs.Schema
			require.NoError(tb, json.Unmarshal(p.Schema, &schema))
			s := newSDKServer()
			mcp.AddTool(s, &mcp.Tool{Name: "read_file", Description: "Benchmark tool.", InputSchema: &schema}, readFileHandler)
			return s
		}},
		{"addtool_unvalidated", func(testing.TB) *mcp.Server {
			s := newSDKServer()
			mcp.AddTool(s, &mcp.Tool{Name: "read_file", Description: "Benchmark tool.", InputSchema: &gjs.Schema{Type: "object"}}, readFileHandler)
			return s
		}},
		{"raw_addtool", func(testing.TB) *mcp.Server {
			s := newSDKServer()
			s.AddTool(&mcp.Tool{Name: "read_file", Description: "Benchmark tool.", InputSchema: json.RawMessage(p.Schema)}, readFileRaw)
			return s
		}},
	}
}

// connectPeer connects a go-sdk client to s in memory.
func connectPeer(tb testing.TB, s *mcp.Server) *mcp.ClientSession {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	require.NoError(tb, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v0.0.0"}, nil).Connect(ctx, ct, nil)
	require.NoError(tb, err)
	tb.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// smallPayload returns the read_file payload.
func smallPayload(tb testing.TB) Payload {
	for _, p := range load(tb) {
		if p.Name == "small" {
			return p
		}
	}
	tb.Fatal("no small payload")
	return Payload{}
}

// TestMCPServerPathsAgree checks the four servers before they are timed:
// each returns the same structured value for the payload, and the ones
// that validate refuse the invalid variants with an isError result.
func TestMCPServerPathsAgree(t *testing.T) {
	p := smallPayload(t)
	ctx := context.Background()
	var want string
	for _, peer := range mcpPeers(p) {
		cs := connectPeer(t, peer.serve(t))
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: json.RawMessage(p.Value)})
		require.NoError(t, err, peer.name)
		require.False(t, res.IsError, "%s: %+v", peer.name, res.Content)
		got, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		if want == "" {
			want = string(got)
		}
		assert.JSONEq(t, want, string(got), peer.name)
		if peer.name == "addtool_unvalidated" || peer.name == "raw_addtool" {
			continue
		}
		for kind, raw := range p.Invalid {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: json.RawMessage(raw)})
			require.NoError(t, err, "%s %s", peer.name, kind)
			assert.True(t, res.IsError, "%s refuses small_invalid_%s", peer.name, kind)
		}
	}
}

// BenchmarkMCPServer is one tools/call round trip of read_file per
// operation, for each server, in one run.
func BenchmarkMCPServer(b *testing.B) {
	p := smallPayload(b)
	ctx := context.Background()
	for _, peer := range mcpPeers(p) {
		cs := connectPeer(b, peer.serve(b))
		params := &mcp.CallToolParams{Name: "read_file", Arguments: json.RawMessage(p.Value)}
		b.Run(peer.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
