package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves srv to one client on the process's standard input and
// output; see Serve.
func ServeStdio(ctx context.Context, srv *Server) error {
	return Serve(ctx, srv, &mcp.StdioTransport{})
}

// Serve serves srv to the one client at the other end of t until the
// client disconnects, which returns nil (or the connection's error), or
// ctx ends: then the session's calls in flight are cancelled with the
// cause ErrShutdown, the session is closed once they have returned, and
// Serve returns nil.
func Serve(ctx context.Context, srv *Server, t mcp.Transport) error {
	// The session outlives ctx until its calls have been cancelled here,
	// so that they end as aborted, not as broken connections.
	sess, err := srv.mcp.Connect(context.WithoutCancel(ctx), t, nil)
	if err != nil {
		return fmt.Errorf("mcpserver: connecting: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- sess.Wait() }()
	select {
	case err := <-ended:
		if err != nil {
			return fmt.Errorf("mcpserver: serving: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	srv.halt(sess, ErrShutdown)
	_ = sess.Close()
	<-ended
	return nil
}
