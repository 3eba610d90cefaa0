package mcpserver_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpserver"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// approvals is a runtime whose "write" tool always asks, answered by
// mcpserver.Approver, and what the approver could not ask.
type approvals struct {
	rt         *runtime.Runtime
	mu         sync.Mutex
	unanswered []error
}

func newApprovals(t *testing.T) *approvals {
	a := &approvals{}
	a.rt = runtime.New(runtime.WithApprover(mcpserver.Approver(mcpserver.ApproverOptions{
		OnUnanswered: func(_ runtime.Execution, err error) {
			a.mu.Lock()
			a.unanswered = append(a.unanswered, err)
			a.mu.Unlock()
		},
	})))
	register(t, a.rt, tool("write", `{"type":"object","properties":{"path":{"type":"string"}}}`, schemasubset.Any(), constant(`"written"`)))
	a.rt.OnPreExecute(func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
		return runtime.Ask("the model wants to change files")
	})
	return a
}

func (a *approvals) errs() []error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]error(nil), a.unanswered...)
}

// answering is a client option set whose elicitation handler answers with
// action and records the messages it was shown.
func answering(action string, shown *[]string, mu *sync.Mutex) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		*shown = append(*shown, req.Params.Message)
		mu.Unlock()
		return &mcp.ElicitResult{Action: action}, nil
	}}
}

// TestApprover checks approvals over elicitation on a session that
// negotiated the initialize handshake: accept runs the call, decline and
// cancel deny it, and the person reads the tool, the reason and the
// arguments.
func TestApprover(t *testing.T) {
	for _, tt := range []struct {
		action string
		code   runtime.ErrorCode
	}{{"accept", ""}, {"decline", runtime.CodeDenied}, {"cancel", runtime.CodeDenied}} {
		t.Run(tt.action, func(t *testing.T) {
			a := newApprovals(t)
			var mu sync.Mutex
			var shown []string
			cs := connect(t, newServer(t, a.rt, mcpserver.Options{}), answering(tt.action, &shown, &mu), legacy)
			res := callTool(t, cs, "write", `{"path":"a.txt"}`)
			assert.Equal(t, tt.code != "", res.IsError, "%v", texts(res))
			if tt.code != "" {
				assert.Equal(t, tt.code, errorCode(t, res))
				assert.Equal(t, []string{"DENIED: approval required: the model wants to change files (denied)"}, texts(res))
			} else {
				assert.Equal(t, []string{`"written"`}, texts(res))
			}
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, []string{"Allow the tool call write?\n\nReason: the model wants to change files\n\nArguments: {\"path\":\"a.txt\"}"}, shown)
			assert.Empty(t, a.errs())
		})
	}
}

// TestApproverDenies checks the asks that are denied without asking: a
// client without the elicitation capability, a session on 2026-07-28
// (where a server may not send requests of its own), and a call not made
// over MCP.
func TestApproverDenies(t *testing.T) {
	t.Run("no capability", func(t *testing.T) {
		a := newApprovals(t)
		cs := connect(t, newServer(t, a.rt, mcpserver.Options{}), nil, legacy)
		res := callTool(t, cs, "write", `{}`)
		assert.Equal(t, runtime.CodeDenied, errorCode(t, res))
		errs := a.errs()
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], mcpserver.ErrNoElicitation)
	})
	t.Run("2026-07-28", func(t *testing.T) {
		a := newApprovals(t)
		var mu sync.Mutex
		var shown []string
		cs := connect(t, newServer(t, a.rt, mcpserver.Options{}), answering("accept", &shown, &mu), latest)
		require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)
		res := callTool(t, cs, "write", `{}`)
		assert.Equal(t, runtime.CodeDenied, errorCode(t, res))
		errs := a.errs()
		require.Len(t, errs, 1)
		assert.Contains(t, errs[0].Error(), "SEP-2322")
		assert.Empty(t, shown)
	})
	t.Run("not over MCP", func(t *testing.T) {
		a := newApprovals(t)
		res := a.rt.Execute(context.Background(), runtime.ExecutionInput{Name: "write", Arguments: []byte(`{}`), Agent: &runtime.Agent{ID: "local"}})
		assert.Equal(t, runtime.CodeDenied, res.Code())
		errs := a.errs()
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], mcpserver.ErrNoSession)
	})
}

// TestLegacyProtocolVersions checks that a server offering only the
// handshake versions makes the go-sdk client fall back from server/discover
// to initialize, so that approvals work with a client left at its defaults.
func TestLegacyProtocolVersions(t *testing.T) {
	versions := mcpserver.LegacyProtocolVersions()
	require.NotEmpty(t, versions)
	for _, v := range versions {
		assert.Less(t, v, "2026-07-28")
	}
	a := newApprovals(t)
	var mu sync.Mutex
	var shown []string
	srv := newServer(t, a.rt, mcpserver.Options{ServerOptions: &mcp.ServerOptions{SupportedProtocolVersions: versions}})
	cs := connect(t, srv, answering("accept", &shown, &mu), latest)
	assert.Equal(t, versions[0], cs.InitializeResult().ProtocolVersion)
	res := callTool(t, cs, "write", `{}`)
	assert.False(t, res.IsError, "%v", texts(res))
	assert.Len(t, shown, 1)
}

// TestApprovalMessage checks the default text, arguments cut at a rune
// boundary.
func TestApprovalMessage(t *testing.T) {
	rt := runtime.New()
	var msg string
	register(t, rt, tool("t", `{"type":"object"}`, schemasubset.Any(), constant(`1`)))
	rt.OnPreExecute(func(_ context.Context, exec runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		msg = mcpserver.ApprovalMessage(exec, "")
		return next()
	})
	long := `{"s":"` + strings.Repeat("é", 1500) + `"}`
	rt.Execute(context.Background(), runtime.ExecutionInput{Name: "t", Arguments: []byte(long)})
	assert.True(t, strings.HasPrefix(msg, "Allow the tool call t?\n\nArguments: {\"s\":\"éé"), msg[:40])
	assert.True(t, strings.HasSuffix(msg, "é…"), "cut at a rune boundary")
	assert.NotContains(t, msg, "Reason")
}
