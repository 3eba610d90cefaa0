package runtime

import (
	"context"
	"slices"
)

// PreExecute is a tools/pre-execute listener: it decides whether a pending
// call runs. Calling next delegates to the listeners registered after it
// (the innermost default is Allow); returning without calling next
// short-circuits them. Listeners may override what next returned: unlike
// guards, the waterfall is not monotonic. ctx is the caller's; listeners
// that wait must honour it. next must not be called after the listener
// returns, nor from two goroutines at once.
type PreExecute func(ctx context.Context, exec Execution, next func() PreDecision) PreDecision

// Wrapper is a tools/execute wrapper around dispatch, for timeouts, retries
// and metrics. next runs the rest of the chain with the given context (nil
// means ctx) and returns its normalized result; a wrapper may call it more
// than once, or not at all and return its own result. Whatever context a
// wrapper passes, the body's context is also cancelled with the caller's.
type Wrapper func(ctx context.Context, exec Execution, next func(ctx context.Context) Result) Result

// PostExecute is a tools/post-execute listener: it accepts, replaces one
// projection of, or blocks a dispatch result. Calling next delegates to the
// listeners registered after it (the innermost default is Accept), and the
// decision the outermost listener returns is applied, its contexts
// included: a listener that overrides an inner decision but wants to keep
// the inner contexts passes them on. A value may replace the value of a
// success only. res is the listener's own copy: changing it changes
// nothing. As for PreExecute, next must not be called after the listener
// returns, nor from two goroutines at once.
type PostExecute func(ctx context.Context, exec Execution, res Result, next func() PostDecision) PostDecision

// Observer is a tools/result listener: it sees the frozen final result of
// every call (its own copy) and cannot change it. Panics are contained.
type Observer func(exec Execution, res Result)

// Approval is an approval service's answer to an ask decision. Only
// AllowedOnce lets the call proceed; every other answer denies.
type Approval string

// The approval answers the runtime knows.
const (
	AllowedOnce Approval = "allowed-once"
	Denied      Approval = "denied"
)

// Approver answers ask decisions, typically by asking a person. It is asked
// only for calls with an agent. ctx is the caller's.
type Approver func(ctx context.Context, exec Execution, reason string) Approval

// WithApprover sets the approval service for ask decisions. Without one,
// every ask is denied.
func WithApprover(a Approver) Option { return func(o *options) { o.approver = a } }

// hook is one registered listener with the agent it was registered for;
// nil means global.
type hook[F any] struct {
	agent *Agent
	f     F
}

// hooks is every listener list of a Runtime.
type hooks struct {
	pre  []*hook[PreExecute]
	wrap []*hook[Wrapper]
	post []*hook[PostExecute]
	obs  []*hook[Observer]
}

// callHooks is the listeners that apply to one call, in registration order.
type callHooks struct {
	pre    []PreExecute
	guards []Guard
	wrap   []Wrapper
	post   []PostExecute
	obs    []Observer
}

// applies reports whether a listener registered for owner sees a call of
// agent a: global listeners see every call, scoped ones their agent's own.
func applies(owner, a *Agent) bool { return owner == nil || owner == a }

func pick[F any](hs []*hook[F], a *Agent) []F {
	var out []F
	for _, h := range hs {
		if applies(h.agent, a) {
			out = append(out, h.f)
		}
	}
	return out
}

// collect gathers the listeners for a call of agent a; rt.mu must be held.
func (rt *Runtime) collect(a *Agent) *callHooks {
	ch := &callHooks{
		pre:  pick(rt.hooks.pre, a),
		wrap: pick(rt.hooks.wrap, a),
		post: pick(rt.hooks.post, a),
		obs:  pick(rt.hooks.obs, a),
	}
	for _, g := range rt.guards {
		if applies(g.agent, a) {
			ch.guards = append(ch.guards, g.g)
		}
	}
	return ch
}

// rebuildHooks recomputes, after any listener or guard change, the
// listener lists of global calls and of every agent that has listeners of
// its own, so that no call assembles them; rt.mu must be held for writing.
func (rt *Runtime) rebuildHooks() {
	rt.globalHooks = rt.collect(nil)
	owners := map[*Agent]bool{}
	note := func(a *Agent) {
		if a != nil {
			owners[a] = true
		}
	}
	for _, h := range rt.hooks.pre {
		note(h.agent)
	}
	for _, h := range rt.hooks.wrap {
		note(h.agent)
	}
	for _, h := range rt.hooks.post {
		note(h.agent)
	}
	for _, h := range rt.hooks.obs {
		note(h.agent)
	}
	for _, g := range rt.guards {
		note(g.agent)
	}
	rt.agentHooks = make(map[*Agent]*callHooks, len(owners))
	for a := range owners {
		rt.agentHooks[a] = rt.collect(a)
	}
}

// hooksFor returns the listeners for a call of agent a; rt.mu must be held
// for reading.
func (rt *Runtime) hooksFor(a *Agent) *callHooks {
	if a != nil && len(rt.agentHooks) > 0 {
		if h := rt.agentHooks[a]; h != nil {
			return h
		}
	}
	return rt.globalHooks
}

func addHook[F any](rt *Runtime, list *[]*hook[F], a *Agent, f F) Disposer {
	h := &hook[F]{agent: a, f: f}
	rt.mu.Lock()
	*list = append(*list, h)
	rt.rebuildHooks()
	rt.mu.Unlock()
	return once(func() {
		rt.mu.Lock()
		*list = slices.DeleteFunc(*list, func(x *hook[F]) bool { return x == h })
		rt.rebuildHooks()
		rt.mu.Unlock()
	})
}

// OnPreExecute adds a global tools/pre-execute listener, outside those
// registered later.
func (rt *Runtime) OnPreExecute(l PreExecute) Disposer { return rt.Scope(nil).OnPreExecute(l) }

// WrapExecute adds a global tools/execute wrapper, outside those registered
// later.
func (rt *Runtime) WrapExecute(w Wrapper) Disposer { return rt.Scope(nil).WrapExecute(w) }

// OnPostExecute adds a global tools/post-execute listener, outside those
// registered later.
func (rt *Runtime) OnPostExecute(l PostExecute) Disposer { return rt.Scope(nil).OnPostExecute(l) }

// OnResult adds a global tools/result observer.
func (rt *Runtime) OnResult(o Observer) Disposer { return rt.Scope(nil).OnResult(o) }

// OnPreExecute adds a tools/pre-execute listener that sees only this
// agent's own calls (every call for the global view).
func (s Scope) OnPreExecute(l PreExecute) Disposer {
	if l == nil {
		panic("runtime: OnPreExecute with a nil listener")
	}
	return addHook(s.rt, &s.rt.hooks.pre, s.agent, l)
}

// WrapExecute adds a tools/execute wrapper that sees only this agent's own
// calls (every call for the global view).
func (s Scope) WrapExecute(w Wrapper) Disposer {
	if w == nil {
		panic("runtime: WrapExecute with a nil wrapper")
	}
	return addHook(s.rt, &s.rt.hooks.wrap, s.agent, w)
}

// OnPostExecute adds a tools/post-execute listener that sees only this
// agent's own calls (every call for the global view).
func (s Scope) OnPostExecute(l PostExecute) Disposer {
	if l == nil {
		panic("runtime: OnPostExecute with a nil listener")
	}
	return addHook(s.rt, &s.rt.hooks.post, s.agent, l)
}

// OnResult adds a tools/result observer keyed by the execution's agent:
// it sees only this agent's own calls (every call for the global view).
func (s Scope) OnResult(o Observer) Disposer {
	if o == nil {
		panic("runtime: OnResult with a nil observer")
	}
	return addHook(s.rt, &s.rt.hooks.obs, s.agent, o)
}
