package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-go/toolgen/examples/fs"
	"github.com/toolgen-go/toolgen/examples/shell"
	"github.com/toolgen-go/toolgen/examples/web"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpserver"
	"github.com/toolgen-go/toolgen/runtime/timeout"
)

// asks names the tools that ask for approval before they run.
var asks = map[string]string{
	"write_file": "the model wants to write a file",
	"edit_file":  "the model wants to edit a file",
	"bash":       "the model wants to run a shell command",
}

// newRuntime returns the Runtime of the example tools confined to root,
// with the timeout policy, the approval policy and approvals elicited over
// MCP; log receives every call's outcome and every ask nobody answered.
func newRuntime(root string, log *logger) (*runtime.Runtime, error) {
	approver := mcpserver.Approver(mcpserver.ApproverOptions{
		OnUnanswered: func(exec runtime.Execution, err error) {
			log.printf("%s %s: denied without asking: %v", exec.CallID(), exec.Name(), err)
		},
	})
	rt := runtime.New(runtime.WithApprover(approver), runtime.WithErrorHandler(func(err error) { log.printf("%v", err) }))
	fsTools, err := fs.New(root)
	if err != nil {
		return nil, err
	}
	shellTools, err := shell.New(shell.Config{Dir: root})
	if err != nil {
		return nil, err
	}
	webTools, err := web.New(web.Config{})
	if err != nil {
		return nil, err
	}
	for _, def := range slices.Concat(fsTools, shellTools, webTools) {
		if _, err := rt.Register(def); err != nil {
			return nil, err
		}
	}
	timeout.Install(rt)
	rt.OnPreExecute(func(_ context.Context, exec runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		if reason, ok := asks[exec.Name()]; ok {
			return runtime.Ask(reason)
		}
		return next()
	})
	log.observe(rt)
	return rt, nil
}

// newServer returns the MCP server of newRuntime(root, log). It offers
// only the protocol versions with the initialize handshake: on 2026-07-28
// a server may not send elicitation requests of its own, so approvals
// would all be denied.
func newServer(root string, log *logger) (*mcpserver.Server, error) {
	rt, err := newRuntime(root, log)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("root %q: %w", root, err)
	}
	srv, err := mcpserver.New(rt, mcpserver.Options{
		Implementation: &mcp.Implementation{Name: "toolgen-examples", Title: "toolgen example tools", Version: "v0"},
		ServerOptions: &mcp.ServerOptions{
			Instructions: fmt.Sprintf("Tools over the directory %s: read_file, grep and glob read it, write_file and edit_file change it, bash runs commands in it, web_fetch fetches URLs. "+
				"write_file, edit_file and bash ask the user for approval first.", dir),
			SupportedProtocolVersions: mcpserver.LegacyProtocolVersions(),
		},
	})
	if err != nil {
		return nil, fmt.Errorf("building the MCP server: %w", err)
	}
	return srv, nil
}
