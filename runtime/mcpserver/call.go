package mcpserver

import (
	"context"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-go/toolgen/runtime"
)

// emptyArguments stands for a tools/call without arguments, which MCP
// allows.
var emptyArguments = []byte(`{}`)

// sessionKey is the context key of the calling session.
type sessionKey struct{}

// Session returns the MCP session of the tools/call whose context ctx is
// (or derives from), or nil: policies and approval services receive that
// context.
func Session(ctx context.Context) *mcp.ServerSession {
	sess, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
	return sess
}

// handle is the go-sdk tool handler of every tool: it runs the call
// through Runtime.Execute as the session's agent, inside the agent's
// gate, and returns the result as MCP sees it. It never returns a Go
// error, which the go-sdk would send as a JSON-RPC error: every failure is
// a result with isError set.
func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	m := s.memberOf(req.Session)
	sc := m.scope
	args := []byte(req.Params.Arguments)
	if len(args) == 0 {
		args = emptyArguments
	}
	in := runtime.ExecutionInput{
		CallID:    "mcp-" + strconv.FormatUint(s.calls.Add(1), 10),
		Name:      req.Params.Name,
		Arguments: args,
		Agent:     sc.agent,
	}
	// The call's context ends with the request's (the client cancelled,
	// the connection broke) and with the session's halt (Close, a
	// shutdown); it keeps the request's values, which the go-sdk needs to
	// route an elicitation to the right HTTP stream.
	ctx, cancel := context.WithCancelCause(context.WithValue(ctx, sessionKey{}, req.Session))
	stop := context.AfterFunc(m.halt, func() { cancel(context.Cause(m.halt)) })
	if m.halt.Err() != nil {
		// AfterFunc runs f on its own goroutine: do not let the call start
		// before it has.
		cancel(context.Cause(m.halt))
	}
	defer func() {
		stop()
		cancel(nil)
	}()

	exclusive := s.rt.ExecutionMode(in) == runtime.Exclusive
	// A call that gives up waiting runs anyway, with its cancelled
	// context: the Runtime then ends it as ABORTED_BEFORE_DISPATCH
	// without running a policy or the body, and its observers see it.
	if sc.gate.enter(ctx, exclusive) {
		defer sc.gate.leave(exclusive)
	}
	res := s.rt.Execute(ctx, in)
	withValue := false
	if !res.IsError() && len(res.Value) > 0 && res.Value[0] == '{' {
		def, ok := s.rt.Get(in.Name, sc.agent)
		withValue = ok && structured(def.Output.Schema)
	}
	return toCallResult(res, withValue, s.opts.Presentation), nil
}
