// Package mcpserver serves the tools of a toolgen Runtime over the Model
// Context Protocol, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
//	srv, err := mcpserver.New(rt, mcpserver.Options{})
//	if err != nil { ... }
//	defer srv.Close()
//	err = mcpserver.ServeStdio(ctx, srv)
//
// Every tools/call goes through Runtime.Execute, so the Runtime's
// policies, approvals, guards, wrappers (the timeout policy among them)
// and observers apply to MCP calls as to any other. The SDK only carries
// bytes: tools are registered with its low-level Server.AddTool, whose
// handlers receive the raw arguments and whose input the SDK never
// validates, so the arguments reach Execute byte for byte (numbers such as
// 1e400 or 12345678901234567891 keep their exact text) and the Runtime
// alone validates them.
//
// # Sessions and agents
//
// Each MCP session is an agent scope: by default its first request creates
// a fresh *runtime.Agent whose Parent is Options.Agent, and every call of
// the session runs as that agent (Options.SessionAgent replaces the
// mapping; Server.Agent tells a host which agent a session has). A session
// lists exactly the tools its agent sees, as Runtime.Schemas presents
// them, and the server follows the Runtime's change events: a
// registration, disposal, restriction or presentation change re-syncs the
// tools and sends notifications/tools/list_changed.
//
// The calls of one agent keep the batch scheduler's exclusivity across
// concurrent requests: a call that Runtime.ExecutionMode classifies as
// Parallel overlaps only other parallel calls of the agent, an exclusive
// one overlaps nothing, and the agent's calls are admitted in arrival
// order, so exclusive calls are not starved by a stream of parallel ones.
//
// # Results
//
// A success's content blocks become text and image content; its value is
// also structuredContent when the tool's output schema has an object
// root, which is then the tool's outputSchema. A failure is a result with
// isError set, never a JSON-RPC error, so that a model can read it and
// correct itself (SEP-1303): its text starts with the failure's code
// ("INVALID_ARGS: ..."), and _meta["toolgen/error"] carries the code and
// the message. The content of additional contexts follows the result's
// own, since MCP has no other way to the model; a result that concludes
// the turn has _meta["toolgen/concludesTurn"] set, and presentation
// metadata is _meta["toolgen/meta"] when Options.Presentation asks for
// it. The one JSON-RPC error is the go-sdk's, for a name no session lists.
//
// # Cancellation and shutdown
//
// A client's notifications/cancelled cancels the call's context (the
// go-sdk cancels the handler's), and the Runtime ends the call as
// ABORTED once its body has returned. Serve and ServeHTTP cancel the calls
// in flight when their context ends, and Close cancels those of every
// session, so that no tool outlives the server.
//
// # Approvals
//
// Approver answers the Runtime's ask decisions through MCP elicitation on
// the calling session, where the client declared the capability, and
// denies them otherwise. A server may send elicitation requests of its
// own only up to protocol version 2025-11-25: on 2026-07-28 it would have
// to return multi round-trip results (SEP-2322), which this package does
// not implement, so there every ask is denied. Offer
// LegacyProtocolVersions (ServerOptions.SupportedProtocolVersions) when
// approvals matter.
package mcpserver
