package mcpserver

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-go/toolgen/runtime"
)

// The causes with which the calls of a session are cancelled when the
// session or the server stops.
var (
	// ErrClosed is the cause of the calls Close cancels.
	ErrClosed = errors.New("mcpserver: the server is closed")
	// ErrShutdown is the cause of the calls Serve and ServeHTTP cancel when
	// their context ends.
	ErrShutdown = errors.New("mcpserver: the server is shutting down")
)

// scope is what the calls of one agent share: the agent and the gate that
// keeps its exclusive calls from overlapping anything.
type scope struct {
	agent *runtime.Agent
	gate  gate
	refs  int // live sessions mapped to the agent
}

// member is one live session: its scope, and the context whose end
// cancels the session's calls in flight.
type member struct {
	scope *scope
	halt  context.Context
	stop  context.CancelCauseFunc
}

// sessions maps live sessions to their members and scopes.
type sessions struct {
	mu      sync.RWMutex
	bySess  map[*mcp.ServerSession]*member
	byAgent map[*runtime.Agent]*scope
	n       atomic.Uint64 // numbers the default agents
}

func (ss *sessions) init() {
	ss.bySess = map[*mcp.ServerSession]*member{}
	ss.byAgent = map[*runtime.Agent]*scope{}
}

// agents returns the base agent, then the agent of every live session,
// without duplicates.
func (ss *sessions) agents(base *runtime.Agent) []*runtime.Agent {
	ss.mu.RLock()
	defer ss.mu.RUnlock()
	out := make([]*runtime.Agent, 0, len(ss.byAgent)+1)
	out = append(out, base)
	for a := range ss.byAgent {
		if a != base {
			out = append(out, a)
		}
	}
	return out
}

// memberOf returns the member of session sess, creating it (and the
// session's agent) on the session's first request.
func (s *Server) memberOf(sess *mcp.ServerSession) *member {
	s.sessions.mu.RLock()
	m := s.sessions.bySess[sess]
	s.sessions.mu.RUnlock()
	if m != nil {
		return m
	}
	return s.join(sess)
}

// join adds a session seen for the first time, watches for its end, and
// re-syncs the tools, which its agent may see differently.
func (s *Server) join(sess *mcp.ServerSession) *member {
	// The mapping is the host's code: call it without holding the lock.
	agent := s.agentFor(sess)
	s.sessions.mu.Lock()
	if m := s.sessions.bySess[sess]; m != nil {
		s.sessions.mu.Unlock()
		return m
	}
	sc := s.sessions.byAgent[agent]
	if sc == nil {
		sc = &scope{agent: agent}
		s.sessions.byAgent[agent] = sc
	}
	sc.refs++
	m := &member{scope: sc}
	m.halt, m.stop = context.WithCancelCause(context.Background())
	if !s.listening.Load() {
		m.stop(ErrClosed)
	}
	s.sessions.bySess[sess] = m
	s.sessions.mu.Unlock()
	if sess != nil {
		go s.watch(sess)
	}
	s.sync()
	return m
}

// agentFor returns the agent the calls of sess run as.
func (s *Server) agentFor(sess *mcp.ServerSession) *runtime.Agent {
	if s.opts.SessionAgent != nil {
		return s.opts.SessionAgent(sess)
	}
	return &runtime.Agent{ID: "mcp-session-" + strconv.FormatUint(s.sessions.n.Add(1), 10), Parent: s.opts.Agent}
}

// watch forgets sess when it ends, and re-syncs the tools without its
// agent.
func (s *Server) watch(sess *mcp.ServerSession) {
	_ = sess.Wait()
	s.sessions.mu.Lock()
	if m := s.sessions.bySess[sess]; m != nil {
		delete(s.sessions.bySess, sess)
		m.stop(context.Canceled)
		if m.scope.refs--; m.scope.refs == 0 {
			delete(s.sessions.byAgent, m.scope.agent)
		}
	}
	s.sessions.mu.Unlock()
	s.sync()
}

// halt cancels the calls in flight of sess, or of every session when sess
// is nil, with cause.
func (s *Server) halt(sess *mcp.ServerSession, cause error) {
	s.sessions.mu.RLock()
	defer s.sessions.mu.RUnlock()
	for k, m := range s.sessions.bySess {
		if sess == nil || k == sess {
			m.stop(cause)
		}
	}
}

// Agent returns the agent the calls of session sess run as, once the
// session has made a request, and whether it has; hosts use it to
// register, restrict or guard for one session (rt.Scope(agent)).
func (s *Server) Agent(sess *mcp.ServerSession) (*runtime.Agent, bool) {
	s.sessions.mu.RLock()
	defer s.sessions.mu.RUnlock()
	m, ok := s.sessions.bySess[sess]
	if !ok {
		return nil, false
	}
	return m.scope.agent, true
}
