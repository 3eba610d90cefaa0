// Command mcp serves the example tools (examples/fs, examples/shell and
// examples/web) to MCP clients through runtime/mcpserver: over standard
// input and output by default, or over streamable HTTP on a loopback
// address with -http.
//
//	go run github.com/toolgen-go/toolgen/examples/mcp -root /path/to/project
//	go run github.com/toolgen-go/toolgen/examples/mcp -root /path/to/project -http 127.0.0.1:8931
//
// Every call runs through one toolgen Runtime with the cooperative timeout
// policy and an approval policy: write_file, edit_file and bash ask first,
// and the question goes to the person behind the client as an MCP
// elicitation. A client that cannot elicit gets those calls denied. Each
// call's outcome is logged to standard error (-quiet turns that off).
//
// See README.md beside this file for client configurations.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}

// config is what the command line says.
type config struct {
	root  string
	http  string
	quiet bool
}

// parse reads the command line.
func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.root, "root", ".", "the directory the tools work in: file paths are confined to it and commands start in it")
	fs.StringVar(&c.http, "http", "", "serve streamable HTTP on this loopback address (such as 127.0.0.1:8931) instead of standard input and output")
	fs.BoolVar(&c.quiet, "quiet", false, "do not log calls to standard error")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return c, nil
}

// run serves until the client leaves, or until an interrupt or SIGTERM,
// which cancels the calls in flight (killing their processes) first.
func run(args []string, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, c, stderr)
}
