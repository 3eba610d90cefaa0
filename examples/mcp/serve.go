package main

import (
	"context"
	"fmt"
	"io"

	"github.com/toolgen-go/toolgen/runtime/mcpserver"
)

// serve builds the server for c and serves it on the transport c names
// until ctx ends or, on standard input and output, the client leaves.
func serve(ctx context.Context, c config, stderr io.Writer) error {
	log := newLogger(stderr, c.quiet)
	srv, err := newServer(c.root, log)
	if err != nil {
		return err
	}
	defer srv.Close()
	if c.http == "" {
		log.printf("serving %s on standard input and output", describe(srv))
		return mcpserver.ServeStdio(ctx, srv)
	}
	ln, err := mcpserver.ListenLoopback(c.http)
	if err != nil {
		return err
	}
	// Printed even with -quiet: it is how a caller learns the port of
	// -http 127.0.0.1:0.
	fmt.Fprintf(stderr, "serving %s on http://%s/mcp\n", describe(srv), ln.Addr())
	return mcpserver.ServeHTTP(ctx, srv, ln)
}

// describe names what srv serves.
func describe(srv *mcpserver.Server) string {
	return fmt.Sprintf("%d tools", len(srv.Runtime().Schemas(nil)))
}
