package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpserver"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// TestStructuredContent checks that a success's value is structuredContent
// when the output root is an object, and only then, with the rendered
// content beside it and numbers kept exactly.
func TestStructuredContent(t *testing.T) {
	for _, version := range []string{latest, legacy} {
		t.Run("version="+version, func(t *testing.T) {
			rt := runtime.New()
			register(t, rt,
				tool("read", `{"type":"object"}`, readResult, constant(`{"lines":["a","b"],"total":12345678901234567891}`)),
				tool("say", `{"type":"object"}`, schemasubset.String(), constant(`"hi"`)),
				tool("list", `{"type":"object"}`, schemasubset.Array(schemasubset.Integer()), constant(`[1,2]`)),
				tool("anything", `{"type":"object"}`, schemasubset.Any(), constant(`{"an":"object"}`)),
			)
			var w wire
			cs := connectVia(t, newServer(t, rt, mcpserver.Options{}), nil, version, w.record)

			res := callTool(t, cs, "read", `{}`)
			require.False(t, res.IsError)
			raw, err := json.Marshal(res.StructuredContent)
			require.NoError(t, err)
			assert.JSONEq(t, `{"lines":["a","b"],"total":12345678901234567891}`, string(raw))
			assert.Contains(t, w.String(), `"structuredContent":{"lines":["a","b"],"total":12345678901234567891}`,
				"the value goes on the wire as it is (the go-sdk client then decodes it into float64)")
			assert.Equal(t, []string{`{"lines":["a","b"],"total":12345678901234567891}`}, texts(res), "the rendered content comes along")

			for _, name := range []string{"say", "list", "anything"} {
				res := callTool(t, cs, name, `{}`)
				require.False(t, res.IsError, name)
				assert.Nil(t, res.StructuredContent, "%s: no structuredContent without an object output schema", name)
				assert.Len(t, res.Content, 1, name)
			}
		})
	}
}

// TestImageContent checks that image blocks become MCP image content with
// the decoded data and MIME type, beside text blocks in order.
func TestImageContent(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x01\x02")
	def := tool("shot", `{"type":"object"}`, schemasubset.Any(), constant(`null`))
	def.Output.Render = func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error) {
		return []runtime.ContentBlock{runtime.Text("a screenshot"), runtime.Image(png, "image/png")}, nil
	}
	rt := runtime.New()
	register(t, rt, def)
	cs := connect(t, newServer(t, rt, mcpserver.Options{}), nil, latest)

	res := callTool(t, cs, "shot", `{}`)
	require.False(t, res.IsError)
	require.Len(t, res.Content, 2)
	assert.Equal(t, "a screenshot", res.Content[0].(*mcp.TextContent).Text)
	img, ok := res.Content[1].(*mcp.ImageContent)
	require.True(t, ok, "%T", res.Content[1])
	assert.Equal(t, png, img.Data)
	assert.Equal(t, "image/png", img.MIMEType)
}

// TestLosslessArguments checks that the raw arguments reach the tool with
// their exact number text: nothing on the way decodes them into float64.
func TestLosslessArguments(t *testing.T) {
	rt := runtime.New()
	register(t, rt, tool("echo", `{"type":"object"}`, schemasubset.Any(), echo))
	var seen []byte
	rt.OnPreExecute(func(_ context.Context, exec runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		seen = exec.Arguments()
		return next()
	})
	for _, version := range []string{latest, legacy} {
		t.Run("version="+version, func(t *testing.T) {
			var w wire
			cs := connectVia(t, newServer(t, rt, mcpserver.Options{}), nil, version, w.record)
			args := `{"huge":1e400,"big":12345678901234567891,"tiny":-1.000000000000000000000000001e-400,"exact":0.1000000000000000055511151231257827,"nested":[1.0,2e0,{"k":100000000000000000000000000000000000001}]}`
			res := callTool(t, cs, "echo", args)
			require.False(t, res.IsError, "%v", texts(res))
			assert.Equal(t, []string{args}, texts(res), "the value is the arguments, byte for byte")
			assert.Equal(t, args, string(seen), "policies see the same bytes")
			assert.Contains(t, w.String(), `"arguments":`+args, "the client sent them as they are")
			raw, err := json.Marshal(res.StructuredContent)
			require.NoError(t, err)
			assert.Equal(t, "null", string(raw), "an open output schema sends no structuredContent")
		})
	}
}

// TestFailures checks that every failure is an isError result carrying its
// code in the text and in _meta, never a JSON-RPC error.
func TestFailures(t *testing.T) {
	rt := runtime.New()
	register(t, rt,
		tool("strict", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`, readResult, constant(`{"lines":[],"total":0}`)),
		tool("own", `{"type":"object"}`, schemasubset.Any(), func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) {
			return nil, &runtime.ToolError{Code: "FILE_NOT_FOUND", Message: "no such file: a.txt"}
		}),
		tool("broken", `{"type":"object"}`, schemasubset.Any(), func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) {
			return nil, errors.New("disk full")
		}),
		tool("panics", `{"type":"object"}`, schemasubset.Any(), func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) {
			panic("boom")
		}),
		tool("lies", `{"type":"object"}`, readResult, constant(`{"lines":"not an array","total":0}`)),
	)
	cs := connect(t, newServer(t, rt, mcpserver.Options{}), nil, latest)

	tests := []struct {
		name, args string
		code       runtime.ErrorCode
		text       string
	}{
		{"strict", `{"n":"seven"}`, runtime.CodeInvalidArgs, "INVALID_ARGS: invalid arguments: "},
		{"strict", `{}`, runtime.CodeInvalidArgs, "INVALID_ARGS: "},
		{"strict", `[1]`, runtime.CodeInvalidArgs, "INVALID_ARGS: "},
		{"strict", `{"n":1,"n":2}`, runtime.CodeInvalidArgs, "INVALID_ARGS: arguments are not valid JSON: "},
		{"own", `{}`, "FILE_NOT_FOUND", "FILE_NOT_FOUND: no such file: a.txt"},
		{"broken", `{}`, runtime.CodeToolError, "TOOL_ERROR: disk full"},
		{"panics", `{}`, runtime.CodeToolPanic, "TOOL_PANIC: the tool panicked: boom"},
		{"lies", `{}`, runtime.CodeInvalidToolOutput, "INVALID_TOOL_OUTPUT: invalid tool output: "},
	}
	for _, tt := range tests {
		res := callTool(t, cs, tt.name, tt.args)
		assert.True(t, res.IsError, "%s %s", tt.name, tt.args)
		require.NotEmpty(t, texts(res), tt.name)
		assert.True(t, strings.HasPrefix(texts(res)[0], tt.text), "%s %s: %q", tt.name, tt.args, texts(res)[0])
		assert.Equal(t, tt.code, errorCode(t, res), "%s %s", tt.name, tt.args)
		assert.Nil(t, res.StructuredContent, "a failure has no value")
	}

	// An unlisted name is the one protocol error: the go-sdk answers it
	// before any handler, as the MCP specification asks.
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown tool "nope"`)
}

// TestResultMeta checks the _meta of a result: presentation metadata,
// concluding the turn, and the content of additional contexts after the
// result's own.
func TestResultMeta(t *testing.T) {
	def := tool("rich", `{"type":"object"}`, schemasubset.Any(), constant(`1`))
	def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		rc.DeferContext(runtime.UserMessage{Content: []runtime.ContentBlock{runtime.Text("remember this")}, Source: "test"})
		rc.ConcludeTurn()
		return jsonvalue.Value(`1`), nil
	}
	def.Output.PresentationMeta = func(_, _ jsonvalue.Value) (jsonvalue.Value, error) {
		return jsonvalue.Value(`{"card":"x","n":12345678901234567891}`), nil
	}
	rt := runtime.New()
	register(t, rt, def)
	plain := connect(t, newServer(t, rt, mcpserver.Options{}), nil, legacy)
	res := callTool(t, plain, "rich", `{}`)
	assert.Nil(t, res.Meta[mcpserver.MetaPresentation], "presentation metadata only on request")
	cs := connect(t, newServer(t, rt, mcpserver.Options{Presentation: true}), nil, legacy)

	res = callTool(t, cs, "rich", `{}`)
	require.False(t, res.IsError)
	assert.Equal(t, []string{"1", "remember this"}, texts(res))
	assert.Equal(t, true, res.Meta[mcpserver.MetaConcludesTurn])
	raw, err := json.Marshal(res.Meta[mcpserver.MetaPresentation])
	require.NoError(t, err)
	assert.JSONEq(t, `{"card":"x","n":12345678901234567891}`, string(raw))
	assert.Nil(t, res.Meta[mcpserver.MetaError])
}
