package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// methodListTools is the MCP method that lists tools.
const methodListTools = "tools/list"

// listMiddleware narrows every tools/list result to the tools the calling
// session's agent sees, in that agent's own definitions: the go-sdk server
// holds the union of the views of every live session, and a session may
// see less (a restriction) or another definition under a name (a scoped
// tool shadowing a global one). Pages keep the go-sdk's cursors, and
// their cacheScope is "private" (SEP-2549).
func (s *Server) listMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != methodListTools {
			return next(ctx, method, req)
		}
		sess, _ := req.GetSession().(*mcp.ServerSession)
		// Before listing: a session's first request syncs its agent's
		// tools into the union.
		sc := s.memberOf(sess).scope
		res, err := next(ctx, method, req)
		lr, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || lr == nil {
			return res, err
		}
		mine := map[string]*mcp.Tool{}
		for _, t := range s.view(sc.agent) {
			mine[t.Name] = t
		}
		tools := make([]*mcp.Tool, 0, len(lr.Tools))
		for _, t := range lr.Tools {
			if m := mine[t.Name]; m != nil {
				tools = append(tools, m)
			}
		}
		lr.Tools = tools
		// The list is this session's, not everyone's.
		lr.CacheScope = "private"
		return lr, nil
	}
}
