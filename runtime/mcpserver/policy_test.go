package mcpserver_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpserver"
	"github.com/toolgen-go/toolgen/runtime/timeout"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// TestPolicies checks that MCP calls go through the whole pipeline:
// pre-execute decisions, guards, post-execute blocks, the timeout policy,
// observers, and hooks scoped to the base agent, which session agents do
// not see.
func TestPolicies(t *testing.T) {
	rt := runtime.New()
	slow := tool("slow", `{"type":"object"}`, schemasubset.Any(), func(ctx context.Context, _ jsonvalue.Value) (jsonvalue.Value, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	slow.Timeout = 20 * time.Millisecond
	register(t, rt,
		tool("ok", `{"type":"object"}`, schemasubset.Any(), constant(`"fine"`)),
		tool("denied", `{"type":"object"}`, schemasubset.Any(), constant(`"never"`)),
		tool("asks", `{"type":"object"}`, schemasubset.Any(), constant(`"never"`)),
		tool("secret", `{"type":"object","properties":{"path":{"type":"string"}}}`, schemasubset.Any(), constant(`"never"`)),
		tool("blocked", `{"type":"object"}`, schemasubset.Any(), constant(`"the secret"`)),
		slow,
	)
	timeout.Install(rt)
	var sessions sync.Map // the Session each pre-execute listener saw
	rt.OnPreExecute(func(ctx context.Context, exec runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		sessions.Store(exec.CallID(), mcpserver.Session(ctx))
		switch exec.Name() {
		case "denied":
			return runtime.Deny("not today")
		case "asks":
			return runtime.Ask("please")
		}
		return next()
	})
	rt.Guard(func(exec runtime.Execution) error {
		if strings.Contains(string(exec.Arguments()), ".env") {
			return errors.New("no .env files")
		}
		return nil
	})
	rt.OnPostExecute(func(_ context.Context, exec runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		if exec.Name() == "blocked" {
			return runtime.Block([]runtime.ContentBlock{runtime.Text("that output is withheld")})
		}
		return next()
	})
	var mu sync.Mutex
	observed := map[string]runtime.ErrorCode{}
	rt.OnResult(func(exec runtime.Execution, res runtime.Result) {
		mu.Lock()
		observed[exec.Name()] = res.Code()
		mu.Unlock()
	})
	base := &runtime.Agent{ID: "base"}
	baseOnly := 0
	rt.Scope(base).OnPreExecute(func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		baseOnly++
		return next()
	})
	cs := connect(t, newServer(t, rt, mcpserver.Options{Agent: base}), nil, latest)

	tests := []struct {
		name, args string
		code       runtime.ErrorCode
		text       string
	}{
		{"ok", `{}`, "", `"fine"`},
		{"denied", `{}`, runtime.CodeDenied, "DENIED: not today"},
		{"asks", `{}`, runtime.CodeDenied, "DENIED: approval required: please (denied: no approval service)"},
		{"secret", `{"path":".env"}`, runtime.CodeDenied, "DENIED: no .env files"},
		{"blocked", `{}`, runtime.CodeBlocked, "BLOCKED: that output is withheld"},
		{"slow", `{}`, runtime.CodeTimeout, "TIMEOUT: "},
	}
	for _, tt := range tests {
		res := callTool(t, cs, tt.name, tt.args)
		assert.Equal(t, tt.code != "", res.IsError, tt.name)
		require.NotEmpty(t, texts(res), tt.name)
		assert.True(t, strings.HasPrefix(texts(res)[0], tt.text), "%s: %q", tt.name, texts(res)[0])
		if tt.code != "" {
			assert.Equal(t, tt.code, errorCode(t, res), tt.name)
		}
		mu.Lock()
		assert.Equal(t, tt.code, observed[tt.name], "the observer saw %s", tt.name)
		mu.Unlock()
	}
	assert.Zero(t, baseOnly, "a listener scoped to the base agent does not see its children's calls")
	sessions.Range(func(_, v any) bool {
		assert.NotNil(t, v, "policies see the session in their context")
		return true
	})
}
