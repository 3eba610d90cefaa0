package mcpserver

import "github.com/toolgen-go/toolgen/runtime"

// Queued returns how many calls of agent a wait at its gate, for tests
// that must know a call has arrived before the next one is sent.
func (s *Server) Queued(a *runtime.Agent) int {
	s.sessions.mu.RLock()
	sc := s.sessions.byAgent[a]
	s.sessions.mu.RUnlock()
	if sc == nil {
		return 0
	}
	sc.gate.mu.Lock()
	defer sc.gate.mu.Unlock()
	return len(sc.gate.queue)
}
