package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPHandler returns srv's streamable HTTP handler: every client gets its
// own session (Mcp-Session-Id), and so its own agent. opts nil means the
// go-sdk's defaults, which refuse requests whose Host header is not a
// loopback name when the listener is on a loopback address. With
// opts.Stateless every request is a session of its own, so only a
// SessionAgent mapping (by the request's token, say) gives requests a
// common agent, and with it a common exclusivity gate.
func (s *Server) HTTPHandler(opts *mcp.StreamableHTTPOptions) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, opts)
}

// ErrNotLoopback is returned by ListenLoopback for an address that is not
// a loopback address.
var ErrNotLoopback = errors.New("mcpserver: not a loopback address")

// ListenLoopback listens on addr ("127.0.0.1:8080", "[::1]:0",
// "localhost:8080"), which must name a loopback address: the tools run
// with the server's rights, and streamable HTTP has no authentication of
// its own here, so serving beyond the machine is refused.
func ListenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%w: %q", ErrNotLoopback, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		_ = ln.Close()
		return nil, fmt.Errorf("%w: %q listens on %s", ErrNotLoopback, addr, ln.Addr())
	}
	return ln, nil
}

// ShutdownTimeout bounds how long ServeHTTP waits for requests in flight
// once its context ends.
const ShutdownTimeout = 5 * time.Second

// ServeHTTP serves srv's streamable HTTP handler (at every path) on ln
// until ctx ends. Then it cancels the calls in flight of every session of
// srv with the cause ErrShutdown, closes the sessions and the connections
// that carry no request, waits up to ShutdownTimeout for the requests in
// flight, and returns nil. It closes ln.
func ServeHTTP(ctx context.Context, srv *Server, ln net.Listener) error {
	var fresh freshConns
	hs := &http.Server{Handler: srv.HTTPHandler(nil), ReadHeaderTimeout: 10 * time.Second, ConnState: fresh.track}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("mcpserver: serving HTTP: %w", err)
	case <-ctx.Done():
	}
	srv.halt(nil, ErrShutdown)
	// Sessions hold streams open (a client's GET waits for server
	// messages); closing them ends those requests.
	for sess := range srv.mcp.Sessions() {
		_ = sess.Close()
	}
	// A connection a client opened but has not sent a request on yet
	// would keep Shutdown waiting for seconds.
	fresh.close()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if err != nil {
		_ = hs.Close()
	}
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("mcpserver: shutting down HTTP: %w", err)
	}
	return nil
}

// freshConns tracks the connections on which no request has started.
type freshConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// track is an http.Server ConnState hook.
func (f *freshConns) track(c net.Conn, st http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if st != http.StateNew {
		delete(f.conns, c)
		return
	}
	if f.conns == nil {
		f.conns = map[net.Conn]struct{}{}
	}
	f.conns[c] = struct{}{}
}

// close closes every tracked connection.
func (f *freshConns) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		_ = c.Close()
	}
}
