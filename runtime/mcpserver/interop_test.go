package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpclient"
	"github.com/toolgen-go/toolgen/runtime/mcpserver"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// TestMCPClientRoundTrip imports the tools of one Runtime, served by
// mcpserver, into another through mcpclient: the schemas survive the trip,
// structured values come back as values, and a server-side failure reaches
// the importing Runtime with its code in the text.
func TestMCPClientRoundTrip(t *testing.T) {
	served := runtime.New()
	register(t, served,
		tool("read", `{"type":"object","properties":{"n":{"type":"integer","description":"How many."}},"required":["n"]}`, readResult, func(_ context.Context, args jsonvalue.Value) (jsonvalue.Value, error) {
			var in struct{ N json.Number }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return jsonvalue.Value(`{"lines":["x"],"total":` + in.N.String() + `}`), nil
		}),
		tool("fails", `{"type":"object"}`, schemasubset.Any(), func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) {
			return nil, &runtime.ToolError{Code: "FILE_NOT_FOUND", Message: "gone"}
		}),
	)
	srv := newServer(t, served, mcpserver.Options{})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	require.NoError(t, err)
	importing := runtime.New()
	im, err := mcpclient.Connect(context.Background(), importing, ct, mcpclient.Options{Prefix: "remote_"})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, im.Close())
		_ = ss.Wait()
	})

	def, ok := importing.Get("remote_read", nil)
	require.True(t, ok)
	orig, _ := served.Get("read", nil)
	got, err := def.Parameters.MarshalJSON()
	require.NoError(t, err)
	want, err := orig.Parameters.MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))

	ctx := context.Background()
	res := importing.Execute(ctx, runtime.ExecutionInput{Name: "remote_read", Arguments: []byte(`{"n":12345678901234567891}`)})
	require.False(t, res.IsError(), "%v", res.Failure)
	assert.JSONEq(t, `{"lines":["x"],"total":12345678901234567891}`, string(res.Value))

	res = importing.Execute(ctx, runtime.ExecutionInput{Name: "remote_fails", Arguments: []byte(`{}`)})
	assert.Equal(t, runtime.CodeToolError, res.Code())
	assert.Equal(t, "FILE_NOT_FOUND: gone", res.Failure.Message)
}
