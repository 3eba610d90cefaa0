package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpserver"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// readResult is an object-rooted output schema.
var readResult = schemasubset.MustParse(`{"type":"object","properties":{"lines":{"type":"array","items":{"type":"string"}},"total":{"type":"integer"}},"required":["lines","total"],"additionalProperties":false}`)

// TestListTools checks that every session lists what rt.Schemas presents,
// byte for byte, with an outputSchema exactly for object-rooted outputs.
func TestListTools(t *testing.T) {
	for _, version := range []string{latest, legacy} {
		t.Run("version="+version, func(t *testing.T) {
			rt := runtime.New()
			register(t, rt,
				tool("read", `{"type":"object","properties":{"path":{"type":"string","description":"The file."},"n":{"type":"integer"}},"required":["path"]}`, readResult, constant(`{"lines":[],"total":0}`)),
				tool("say", `{"type":"object","properties":{"text":{"type":"string"}}}`, schemasubset.String(), constant(`"hi"`)),
				tool("any", `{"type":"object"}`, schemasubset.Any(), constant(`1`)),
			)
			srv := newServer(t, rt, mcpserver.Options{})
			cs := connect(t, srv, nil, version)

			res, err := cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			schemas := rt.Schemas(nil)
			require.Len(t, res.Tools, len(schemas))
			for i, s := range schemas {
				got := res.Tools[i]
				assert.Equal(t, s.Name, got.Name)
				assert.Equal(t, s.Description, got.Description)
				in, err := json.Marshal(got.InputSchema)
				require.NoError(t, err)
				want, err := s.Parameters.MarshalJSON()
				require.NoError(t, err)
				assert.JSONEq(t, string(want), string(in), s.Name)
				def, ok := rt.Get(s.Name, nil)
				require.True(t, ok)
				if def.Output.Schema.Type() == schemasubset.TypeObject {
					out, err := json.Marshal(got.OutputSchema)
					require.NoError(t, err)
					wantOut, err := def.Output.Schema.MarshalJSON()
					require.NoError(t, err)
					assert.JSONEq(t, string(wantOut), string(out), s.Name)
				} else {
					assert.Nil(t, got.OutputSchema, "%s: no outputSchema for a root that is not an object", s.Name)
				}
			}
			if version == latest {
				assert.Equal(t, "private", res.CacheScope, "a session's list is its own")
			}
		})
	}
}

// TestListChanged follows the Runtime's change events: registering and
// disposing a tool sends notifications/tools/list_changed, and the next
// listing shows the change; so does a changed definition under a name.
func TestListChanged(t *testing.T) {
	for _, version := range []string{latest, legacy} {
		t.Run("version="+version, func(t *testing.T) {
			rt := runtime.New()
			disposeFirst, err := rt.Register(tool("first", `{"type":"object"}`, schemasubset.Any(), constant(`1`)))
			require.NoError(t, err)
			srv := newServer(t, rt, mcpserver.Options{})
			changed := make(chan struct{}, 16)
			cs := connect(t, srv, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			}, version)
			assert.Equal(t, []string{"first"}, listNames(t, cs))

			disposeSecond, err := rt.Register(tool("second", `{"type":"object"}`, schemasubset.Any(), constant(`2`)))
			require.NoError(t, err)
			waitChanged(t, changed)
			assert.Equal(t, []string{"first", "second"}, listNames(t, cs))
			assert.False(t, callTool(t, cs, "second", `{}`).IsError)

			disposeSecond()
			waitChanged(t, changed)
			assert.Equal(t, []string{"first"}, listNames(t, cs))

			disposeFirst()
			waitChanged(t, changed)
			changedFirst := tool("first", `{"type":"object","properties":{"x":{"type":"string"}}}`, schemasubset.Any(), constant(`3`))
			changedFirst.Description = "Changed."
			register(t, rt, changedFirst)
			waitChanged(t, changed)
			tools, err := cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			require.Len(t, tools.Tools, 1)
			assert.Equal(t, "Changed.", tools.Tools[0].Description)
			assert.Equal(t, []string{"3"}, texts(callTool(t, cs, "first", `{}`)))
		})
	}
}

// TestSessionViews checks that each session is its own agent scope: a
// tool registered for one session's agent is listed and callable there
// only, a restriction of one session narrows its list alone (and is
// notified), and every session agent is a child of Options.Agent.
func TestSessionViews(t *testing.T) {
	rt := runtime.New()
	register(t, rt,
		tool("shared", `{"type":"object"}`, schemasubset.Any(), constant(`"global"`)),
		tool("other", `{"type":"object"}`, schemasubset.Any(), constant(`"other"`)),
	)
	base := &runtime.Agent{ID: "base"}
	agents := make(chan *runtime.Agent, 2)
	srv := newServer(t, rt, mcpserver.Options{Agent: base, SessionAgent: func(*mcp.ServerSession) *runtime.Agent {
		a := &runtime.Agent{ID: "session", Parent: base}
		agents <- a
		return a
	}})
	changedA := make(chan struct{}, 16)
	a := connect(t, srv, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changedA <- struct{}{} },
	}, legacy)
	b := connect(t, srv, nil, legacy)
	assert.Equal(t, []string{"other", "shared"}, listNames(t, a))
	agentA := <-agents
	assert.Equal(t, []string{"other", "shared"}, listNames(t, b))
	<-agents

	// A tool of A's own, shadowing a global one and adding another.
	_, err := rt.Scope(agentA).Register(tool("shared", `{"type":"object","properties":{"mine":{"type":"boolean"}}}`, schemasubset.Any(), constant(`"A's own"`)))
	require.NoError(t, err)
	_, err = rt.Scope(agentA).Register(tool("private", `{"type":"object"}`, schemasubset.Any(), constant(`"private"`)))
	require.NoError(t, err)
	waitChanged(t, changedA)

	assert.Equal(t, []string{"other", "private", "shared"}, listNames(t, a))
	assert.Equal(t, []string{"other", "shared"}, listNames(t, b), "B sees nothing of A's")
	tools, err := a.ListTools(context.Background(), nil)
	require.NoError(t, err)
	in, err := json.Marshal(tools.Tools[2].InputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"mine":{"type":"boolean"}}}`, string(in), "A lists its own definition")
	assert.Equal(t, []string{`"A's own"`}, texts(callTool(t, a, "shared", `{}`)))
	assert.Equal(t, []string{`"global"`}, texts(callTool(t, b, "shared", `{}`)))
	res := callTool(t, b, "private", `{}`)
	assert.True(t, res.IsError, "B cannot call A's tool")
	assert.Equal(t, runtime.CodeUnknownTool, errorCode(t, res))

	// A restriction changes A's view and nothing else.
	_, err = rt.Scope(agentA).Restrict(runtime.Restriction{Deny: []string{"other"}})
	require.NoError(t, err)
	waitChanged(t, changedA)
	assert.Equal(t, []string{"private", "shared"}, listNames(t, a))
	assert.Equal(t, []string{"other", "shared"}, listNames(t, b))

	// Every call runs as the session's agent.
	var seen []*runtime.Agent
	rt.OnResult(func(exec runtime.Execution, _ runtime.Result) { seen = append(seen, exec.Agent()) })
	callTool(t, a, "private", `{}`)
	require.Len(t, seen, 1)
	assert.Same(t, agentA, seen[0])
	assert.Same(t, base, seen[0].Parent)
}

// TestDefaultSessionAgents checks the default mapping: one fresh agent per
// session, whose parent is Options.Agent, reported by Server.Agent.
func TestDefaultSessionAgents(t *testing.T) {
	rt := runtime.New()
	register(t, rt, tool("who", `{"type":"object"}`, schemasubset.Any(), constant(`1`)))
	base := &runtime.Agent{ID: "base"}
	srv := newServer(t, rt, mcpserver.Options{Agent: base})
	agents := make(chan *runtime.Agent, 4)
	rt.OnResult(func(exec runtime.Execution, _ runtime.Result) { agents <- exec.Agent() })
	a := connect(t, srv, nil, latest)
	b := connect(t, srv, nil, legacy)
	callTool(t, a, "who", `{}`)
	callTool(t, a, "who", `{}`)
	callTool(t, b, "who", `{}`)
	a1, a2, b1 := <-agents, <-agents, <-agents
	assert.Same(t, a1, a2, "one agent per session")
	assert.NotSame(t, a1, b1)
	assert.Same(t, base, a1.Parent)
	assert.Same(t, base, b1.Parent)
	found := 0
	for sess := range srv.MCP().Sessions() {
		if ag, ok := srv.Agent(sess); ok {
			assert.Contains(t, []*runtime.Agent{a1, b1}, ag)
			found++
		}
	}
	assert.Equal(t, 2, found)
}

func waitChanged(t *testing.T, changed <-chan struct{}) {
	t.Helper()
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
	// Drain the notifications of the same change.
	for {
		select {
		case <-changed:
		case <-time.After(50 * time.Millisecond):
			return
		}
	}
}
