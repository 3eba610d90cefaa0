package mcpserver

import (
	"errors"
	"slices"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-go/toolgen/runtime"
)

// Options configures New.
type Options struct {
	// Implementation names the server to its clients; nil means
	// {Name: "toolgen", Version: "v0"}.
	Implementation *mcp.Implementation
	// ServerOptions configures the go-sdk server; nil means its defaults.
	// Capabilities.Tools is always set, advertising list_changed; a nil
	// Capabilities advertises tools alone (not the go-sdk's default
	// logging). The problems of re-syncing the tool list go to the
	// Runtime's error handler, and to Logger too when it is set.
	ServerOptions *mcp.ServerOptions
	// Agent is the parent of every session's agent: sessions see what it
	// sees, and scoped policies registered for it do not apply to them
	// (a scope's hooks see only its own calls). nil makes each session's
	// agent a top-level agent, whose parent scope is the global layer.
	Agent *runtime.Agent
	// SessionAgent, when set, names the agent the calls of a session run
	// as, replacing the default of one fresh agent per session; it is
	// called once per session, on its first request. Sessions given the
	// same agent share one exclusivity gate. Returning nil runs the
	// session's calls without an agent: in the global view, where every
	// approval is denied.
	SessionAgent func(*mcp.ServerSession) *runtime.Agent
	// Presentation sends each result's presentation metadata (the UI
	// cards of OutputDefinition.PresentationMeta) as
	// _meta["toolgen/meta"]. It is off by default: MCP clients do not read
	// it, and a card may repeat the whole content (a read card holds the
	// lines it shows).
	Presentation bool
}

// Server serves one Runtime's tools over MCP. It is safe for concurrent
// use; create it with New and stop following the Runtime with Close.
type Server struct {
	rt   *runtime.Runtime
	opts Options
	mcp  *mcp.Server
	// report receives problems that have no result to go to.
	report func(error)

	calls     atomic.Uint64 // numbers call ids
	handler   mcp.ToolHandler
	stop      runtime.Disposer
	sessions  sessions
	catalog   catalog
	listening atomic.Bool // false after Close
}

// DefaultImplementation is the Implementation a Server names itself with
// when Options.Implementation is nil.
var DefaultImplementation = mcp.Implementation{Name: "toolgen", Version: "v0"}

// ErrNilRuntime is returned by New without a Runtime.
var ErrNilRuntime = errors.New("mcpserver: a Runtime is required")

// New returns a server for the tools of rt, listed and kept in sync with
// rt's change events until Close.
func New(rt *runtime.Runtime, opts Options) (*Server, error) {
	if rt == nil {
		return nil, ErrNilRuntime
	}
	impl := opts.Implementation
	if impl == nil {
		def := DefaultImplementation
		impl = &def
	}
	var so mcp.ServerOptions
	if opts.ServerOptions != nil {
		so = *opts.ServerOptions
	}
	caps := &mcp.ServerCapabilities{}
	if so.Capabilities != nil {
		c := *so.Capabilities
		caps = &c
	}
	// Advertised even with no tools yet: tools come and go with the
	// Runtime.
	caps.Tools = &mcp.ToolCapabilities{ListChanged: true}
	so.Capabilities = caps

	s := &Server{rt: rt, opts: opts, mcp: mcp.NewServer(impl, &so)}
	s.handler = s.handle
	s.report = rt.ReportError
	if so.Logger != nil {
		logger := so.Logger
		s.report = func(err error) {
			logger.Error(err.Error())
			rt.ReportError(err)
		}
	}
	s.sessions.init()
	s.catalog.init()
	s.mcp.AddReceivingMiddleware(s.listMiddleware)
	s.listening.Store(true)
	// Subscribe before the first sync, so that no change falls between.
	s.stop = rt.OnChange(s.sync)
	s.sync()
	return s, nil
}

// MCP returns the go-sdk server, to connect transports to (Connect, Run,
// mcp.NewStreamableHTTPHandler) or to add prompts and resources. Its
// tools belong to the Server: tools added or removed directly are
// overwritten by the next re-sync.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Runtime returns the Runtime whose tools s serves.
func (s *Server) Runtime() *runtime.Runtime { return s.rt }

// Close stops following the Runtime's change events, leaving the tools
// listed as they are, and cancels every call in flight with the cause
// ErrClosed (the Runtime ends them as ABORTED, after their bodies have
// returned); later calls end as ABORTED_BEFORE_DISPATCH. It does not close
// sessions: their transports do. Calling it again does nothing.
func (s *Server) Close() error {
	if s.listening.Swap(false) {
		s.stop()
		s.halt(nil, ErrClosed)
	}
	return nil
}

// LegacyProtocolVersions returns the protocol versions the go-sdk supports
// that negotiate through the initialize handshake (before 2026-07-28),
// newest first: the versions on which a server may send elicitation
// requests of its own, which Approver needs. Set them as
// ServerOptions.SupportedProtocolVersions when approvals matter.
func LegacyProtocolVersions() []string {
	return slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v >= "2026-07-28" })
}
