package runtime

import (
	"fmt"
	"slices"
	"sync"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// Runtime is the tool registry and (with Execute) the execution pipeline.
// Methods on Runtime act on the global layer; rt.Scope(agent) returns the
// view that acts for one agent. A Runtime is safe for concurrent use.
//
// Visibility has one resolver, used by Get, Schemas, ExecutionMode and
// Execute alike: an agent sees its own registrations first; otherwise what
// its parent scope sees (the global layer for a top-level agent), filtered
// by the agent's restrictions.
type Runtime struct {
	opts options

	mu      sync.RWMutex
	global  layer
	scopes  map[*Agent]*scope
	guards  []*guardEntry
	changes []*changeEntry
	hooks   hooks

	// The listener lists calls use, rebuilt on every listener change.
	globalHooks *callHooks
	agentHooks  map[*Agent]*callHooks
}

// Option configures a Runtime.
type Option func(*options)

type options struct {
	onError      func(error)
	presentation PresentationMode
	approver     Approver
}

// WithErrorHandler sets the function that receives contained failures that
// have no result to go to: panics in change listeners, observers, presenters
// and classifiers. The default discards them.
func WithErrorHandler(f func(error)) Option {
	return func(o *options) { o.onError = f }
}

// WithDefaultPresentation sets the deployment's presentation mode, which
// scopes without a PresentAs declaration use. The default is PresentNative.
func WithDefaultPresentation(m PresentationMode) Option {
	return func(o *options) { o.presentation = m }
}

// New returns an empty Runtime.
func New(opts ...Option) *Runtime {
	rt := &Runtime{
		opts:        options{onError: func(error) {}, presentation: PresentNative},
		global:      newLayer(),
		scopes:      map[*Agent]*scope{},
		globalHooks: &callHooks{},
	}
	for _, o := range opts {
		o(&rt.opts)
	}
	return rt
}

// layer is one set of registrations: the global layer or one scope's own.
type layer struct {
	tools map[string]*entry
	names []string // sorted, for deterministic Schemas
}

type entry struct{ def ToolDefinition }

func newLayer() layer { return layer{tools: map[string]*entry{}} }

func (l *layer) add(e *entry) {
	l.tools[e.def.Name] = e
	i, _ := slices.BinarySearch(l.names, e.def.Name)
	l.names = slices.Insert(l.names, i, e.def.Name)
}

func (l *layer) remove(name string) {
	delete(l.tools, name)
	if i, ok := slices.BinarySearch(l.names, name); ok {
		l.names = slices.Delete(l.names, i, i+1)
	}
}

// scope is the state one agent declared.
type scope struct {
	own          layer
	restrictions []*restriction
	present      *presentation
}

func (s *scope) empty() bool {
	return len(s.own.tools) == 0 && len(s.restrictions) == 0 && s.present == nil
}

// admits reports whether every restriction of s lets an inherited name
// through. The transport is never filtered.
func (s *scope) admits(name string) bool {
	if name == ReservedTransport {
		return true
	}
	for _, r := range s.restrictions {
		if !r.admits(name) {
			return false
		}
	}
	return true
}

type restriction struct {
	allow map[string]struct{} // nil: no allow list
	deny  map[string]struct{}
}

func (r *restriction) admits(name string) bool {
	if r.allow != nil {
		if _, ok := r.allow[name]; !ok {
			return false
		}
	}
	_, denied := r.deny[name]
	return !denied
}

type presentation struct{ mode PresentationMode }

type guardEntry struct {
	agent *Agent // nil: global
	g     Guard
}

type changeEntry struct{ f func() }

// scopeFor returns the state of a, creating it; rt.mu must be held.
func (rt *Runtime) scopeFor(a *Agent) *scope {
	s := rt.scopes[a]
	if s == nil {
		s = &scope{own: newLayer()}
		rt.scopes[a] = s
	}
	return s
}

// tidy drops the state of a when nothing is left in it; rt.mu must be held.
func (rt *Runtime) tidy(a *Agent) {
	if s := rt.scopes[a]; s != nil && s.empty() {
		delete(rt.scopes, a)
	}
}

// resolve returns the entry the agent a sees under name, or nil; rt.mu must
// be held for reading.
func (rt *Runtime) resolve(a *Agent, name string) *entry {
	if a == nil {
		return rt.global.tools[name]
	}
	s := rt.scopes[a]
	if s != nil {
		if e := s.own.tools[name]; e != nil {
			return e
		}
	}
	e := rt.resolve(a.Parent, name)
	if e != nil && s != nil && !s.admits(name) {
		return nil
	}
	return e
}

// presentationOf returns the mode the nearest declaring scope chose; rt.mu
// must be held for reading.
func (rt *Runtime) presentationOf(a *Agent) PresentationMode {
	for ; a != nil; a = a.Parent {
		if s := rt.scopes[a]; s != nil && s.present != nil {
			return s.present.mode
		}
	}
	return rt.opts.presentation
}

// Scope returns the view of rt that registers, restricts, guards and
// declares for agent a. rt.Scope(nil) is the global view.
func (rt *Runtime) Scope(a *Agent) Scope { return Scope{rt: rt, agent: a} }

// Register registers def in the global layer. See [Scope.Register].
func (rt *Runtime) Register(def ToolDefinition) (Disposer, error) { return rt.register(nil, def) }

// Guard adds a global guard, which sees every call. See [Guard].
func (rt *Runtime) Guard(g Guard) Disposer { return rt.guard(nil, g) }

// OnChange adds a listener for tools/change: it runs after every change of
// any scope's tool set (a registration, a disposal, a restriction or its
// lifting, a presentation declaration or its disposal), unfiltered.
// Listener panics are contained and reported to the error handler.
func (rt *Runtime) OnChange(f func()) Disposer {
	if f == nil {
		panic("runtime: OnChange with a nil listener")
	}
	c := &changeEntry{f: f}
	rt.mu.Lock()
	rt.changes = append(rt.changes, c)
	rt.mu.Unlock()
	return once(func() {
		rt.mu.Lock()
		rt.changes = slices.DeleteFunc(rt.changes, func(x *changeEntry) bool { return x == c })
		rt.mu.Unlock()
	})
}

// Get returns the definition the agent a sees under name (a nil agent is
// the global view): its own registration first, else what its parent scope
// sees, unless its restrictions hide it. The definition is a copy.
func (rt *Runtime) Get(name string, a *Agent) (ToolDefinition, bool) {
	rt.mu.RLock()
	e := rt.resolve(a, name)
	rt.mu.RUnlock()
	if e == nil {
		return ToolDefinition{}, false
	}
	return e.def, true
}

// Schemas returns the model-facing schemas of every tool the agent a sees,
// sorted by name: name, description and parameters only, never a callback,
// the timeout or the classifier. Under Code Mode presentation the native
// tools are not presented (the Code Mode transport presents them).
func (rt *Runtime) Schemas(a *Agent) []ToolSchema {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	if rt.presentationOf(a) == PresentCode {
		return []ToolSchema{}
	}
	// The names each layer along the chain holds, merged in order.
	var stack [8][]string
	lists := stack[:0]
	total := 0
	for s := a; s != nil; s = s.Parent {
		if sc := rt.scopes[s]; sc != nil && len(sc.own.names) > 0 {
			lists = append(lists, sc.own.names)
			total += len(sc.own.names)
		}
	}
	lists = append(lists, rt.global.names)
	total += len(rt.global.names)

	out := make([]ToolSchema, 0, total)
	for {
		name, ok := "", false
		for _, l := range lists {
			if len(l) > 0 && (!ok || l[0] < name) {
				name, ok = l[0], true
			}
		}
		if !ok {
			return out
		}
		for i, l := range lists {
			if len(l) > 0 && l[0] == name {
				lists[i] = l[1:]
			}
		}
		if e := rt.resolve(a, name); e != nil {
			out = append(out, e.def.ToolSchema)
		}
	}
}

// ExecutionMode classifies a pending call through the definition its caller
// sees: Parallel only when the tool's ConcurrencySafe returns exactly true
// for arguments that are JSON and valid against the parameter schema.
// Unknown and hidden tools, tools without a classifier, invalid arguments
// and panicking classifiers are Exclusive, and so is a model-direct call
// (no Parent) under Code Mode. ExecutionMode never panics.
func (rt *Runtime) ExecutionMode(in ExecutionInput) ExecutionMode {
	rt.mu.RLock()
	e := rt.resolve(in.Agent, in.Name)
	code := rt.presentationOf(in.Agent) == PresentCode
	rt.mu.RUnlock()
	if e == nil || e.def.ConcurrencySafe == nil || code && in.Parent.IsZero() && in.Name != ReservedTransport {
		return Exclusive
	}
	args := jsonvalue.Value(in.Arguments)
	if !jsonvalue.IsCanonical(in.Arguments) {
		var err error
		if args, err = jsonvalue.Materialize(in.Arguments); err != nil {
			return Exclusive
		}
	}
	if schemasubset.Validate(e.def.Parameters, args) != nil {
		return Exclusive
	}
	if rt.classify(e.def, args) {
		return Parallel
	}
	return Exclusive
}

// classify calls the classifier, containing a panic as "not safe".
func (rt *Runtime) classify(def ToolDefinition, args jsonvalue.Value) (safe bool) {
	defer func() {
		if p := recover(); p != nil {
			safe = false
			rt.opts.onError(fmt.Errorf("runtime: ConcurrencySafe of %q panicked: %v", def.Name, p))
		}
	}()
	return def.ConcurrencySafe(args)
}

// PresentationOf returns the presentation mode agent a's model sees: the
// nearest declaration on its chain, else the deployment default.
func (rt *Runtime) PresentationOf(a *Agent) PresentationMode {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.presentationOf(a)
}

func (rt *Runtime) register(a *Agent, def ToolDefinition) (Disposer, error) {
	if err := checkDefinition(def); err != nil {
		return nil, err
	}
	e := &entry{def: def}
	rt.mu.Lock()
	l := &rt.global
	if a != nil {
		l = &rt.scopeFor(a).own
	}
	if l.tools[def.Name] != nil {
		rt.tidy(a)
		rt.mu.Unlock()
		err := &RegistrationError{Name: def.Name}
		err.add(ErrDuplicateTool, "a tool of this name is already registered in "+layerName(a))
		return nil, err
	}
	l.add(e)
	rt.mu.Unlock()
	rt.changed()
	return rt.undo(a, func() bool {
		l := &rt.global
		if a != nil {
			s := rt.scopes[a]
			if s == nil {
				return false
			}
			l = &s.own
		}
		if l.tools[def.Name] != e {
			return false
		}
		l.remove(def.Name)
		return true
	}), nil
}

// undo returns the disposer of one change to agent a's state: remove, run
// under the lock, undoes the change and reports whether it was still there;
// then the scope is dropped if empty and, when something was removed, the
// change listeners run.
func (rt *Runtime) undo(a *Agent, remove func() bool) Disposer {
	return once(func() {
		rt.mu.Lock()
		removed := remove()
		rt.tidy(a)
		rt.mu.Unlock()
		if removed {
			rt.changed()
		}
	})
}

func layerName(a *Agent) string {
	if a == nil {
		return "the global layer"
	}
	return fmt.Sprintf("the scope of agent %q", a.ID)
}

func (rt *Runtime) restrict(a *Agent, r Restriction) (Disposer, error) {
	err := &RegistrationError{Name: "restriction"}
	if a == nil {
		err.add(ErrGlobalScope, "Restrict needs an agent scope: the global layer inherits nothing")
		return nil, err
	}
	err.Name = "restriction of agent " + a.ID
	if len(r.Allow) == 0 && len(r.Deny) == 0 {
		err.add(ErrInvalidRestriction, "the restriction names no tool")
		return nil, err
	}
	compiled := &restriction{deny: map[string]struct{}{}}
	if len(r.Allow) > 0 {
		compiled.allow = map[string]struct{}{}
	}
	rt.mu.Lock()
	var reserved, local, unknown []string
	check := func(names []string, set map[string]struct{}) {
		for _, name := range names {
			switch {
			case name == ReservedTransport:
				reserved = append(reserved, name)
			case rt.scopes[a] != nil && rt.scopes[a].own.tools[name] != nil:
				local = append(local, name)
			case !rt.inherits(a, name):
				unknown = append(unknown, name)
			}
			set[name] = struct{}{}
		}
	}
	check(r.Allow, compiled.allow)
	check(r.Deny, compiled.deny)
	if len(reserved) > 0 {
		err.add(ErrInvalidRestriction, "names the reserved transport "+joinNames(reserved))
	}
	if len(local) > 0 {
		err.add(ErrInvalidRestriction, "names the scope's own tools "+joinNames(local)+", which restrictions never filter")
	}
	if len(unknown) > 0 {
		err.add(ErrInvalidRestriction, "names tools the scope does not inherit: "+joinNames(unknown))
	}
	if err.orNil() != nil {
		rt.mu.Unlock()
		return nil, err
	}
	s := rt.scopeFor(a)
	s.restrictions = append(s.restrictions, compiled)
	rt.mu.Unlock()
	rt.changed()
	return rt.undo(a, func() bool {
		s := rt.scopes[a]
		if s == nil {
			return false
		}
		n := len(s.restrictions)
		s.restrictions = slices.DeleteFunc(s.restrictions, func(x *restriction) bool { return x == compiled })
		return len(s.restrictions) < n
	}), nil
}

// inherits reports whether a tool of that name is registered in a layer a
// inherits from: the global layer or an ancestor's own; rt.mu must be held.
func (rt *Runtime) inherits(a *Agent, name string) bool {
	if rt.global.tools[name] != nil {
		return true
	}
	for p := a.Parent; p != nil; p = p.Parent {
		if s := rt.scopes[p]; s != nil && s.own.tools[name] != nil {
			return true
		}
	}
	return false
}

func (rt *Runtime) presentAs(a *Agent, m PresentationMode) (Disposer, error) {
	err := &RegistrationError{Name: "presentation"}
	if a == nil {
		err.add(ErrGlobalScope, "PresentAs is scoped only; the deployment default is WithDefaultPresentation")
		return nil, err
	}
	err.Name = "presentation of agent " + a.ID
	if m != PresentNative && m != PresentCode {
		err.add(ErrInvalidDefinition, fmt.Sprintf("unknown presentation mode %q", m))
		return nil, err
	}
	p := &presentation{mode: m}
	rt.mu.Lock()
	s := rt.scopeFor(a)
	if s.present != nil {
		rt.mu.Unlock()
		err.add(ErrPresentationDeclared, "the scope already declared "+string(s.present.mode))
		return nil, err
	}
	s.present = p
	rt.mu.Unlock()
	rt.changed()
	return rt.undo(a, func() bool {
		s := rt.scopes[a]
		if s == nil || s.present != p {
			return false
		}
		s.present = nil
		return true
	}), nil
}

func (rt *Runtime) guard(a *Agent, g Guard) Disposer {
	if g == nil {
		panic("runtime: Guard with a nil guard")
	}
	ge := &guardEntry{agent: a, g: g}
	rt.mu.Lock()
	rt.guards = append(rt.guards, ge)
	rt.rebuildHooks()
	rt.mu.Unlock()
	return once(func() {
		rt.mu.Lock()
		rt.guards = slices.DeleteFunc(rt.guards, func(x *guardEntry) bool { return x == ge })
		rt.rebuildHooks()
		rt.mu.Unlock()
	})
}

// changed runs the tools/change listeners.
func (rt *Runtime) changed() {
	rt.mu.RLock()
	listeners := slices.Clone(rt.changes)
	rt.mu.RUnlock()
	for _, c := range listeners {
		rt.contain("tools/change listener", c.f)
	}
}

// contain runs f, reporting a panic to the error handler.
func (rt *Runtime) contain(what string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			rt.opts.onError(fmt.Errorf("runtime: %s panicked: %v", what, p))
		}
	}()
	f()
}

// Scope is the view of a Runtime that acts for one agent (the seed's
// agent.ctx). The zero agent (rt.Scope(nil)) is the global view.
type Scope struct {
	rt    *Runtime
	agent *Agent
}

// Agent returns the scope's agent, or nil for the global view.
func (s Scope) Agent() *Agent { return s.agent }

// Register registers def in this scope's layer (the global layer for the
// global view). A scoped tool shadows a global one of the same name for the
// agent and its descendants. It fails, changing nothing, when the layer
// already holds the name, when the name is the reserved transport, or when
// the definition is invalid: no output schema or renderer, no body, a
// parameter schema that is not an object-rooted schema of the subset, an
// output schema outside the subset, or a negative timeout. The disposer
// removes exactly this registration.
func (s Scope) Register(def ToolDefinition) (Disposer, error) { return s.rt.register(s.agent, def) }

// Restrict filters what this scope inherits. It fails when the restriction
// names no tool, or names the reserved transport, one of the scope's own
// tools, or a tool registered in no layer the scope inherits from; the
// global view cannot restrict. Restrictions intersect, apply to tools
// registered later (an allow list excludes them, a deny list admits them),
// and copy the names given. The disposer lifts exactly this restriction.
func (s Scope) Restrict(r Restriction) (Disposer, error) { return s.rt.restrict(s.agent, r) }

// Guard adds a guard that sees only this agent's own calls (every call for
// the global view).
func (s Scope) Guard(g Guard) Disposer { return s.rt.guard(s.agent, g) }

// PresentAs declares how this scope's tools are presented, for the agent
// and its descendants; the nearest declaration wins. One declaration per
// scope; the global view cannot declare. The disposer removes it.
func (s Scope) PresentAs(m PresentationMode) (Disposer, error) { return s.rt.presentAs(s.agent, m) }

// OnChange adds an unfiltered tools/change listener; see [Runtime.OnChange].
func (s Scope) OnChange(f func()) Disposer { return s.rt.OnChange(f) }

// Get returns the definition this scope sees under name.
func (s Scope) Get(name string) (ToolDefinition, bool) { return s.rt.Get(name, s.agent) }

// Schemas returns the model-facing schemas this scope sees.
func (s Scope) Schemas() []ToolSchema { return s.rt.Schemas(s.agent) }

// ReportError hands err to the runtime's error handler (WithErrorHandler),
// for policies that must report a problem that has no result to go to.
func (rt *Runtime) ReportError(err error) {
	if err != nil {
		rt.opts.onError(err)
	}
}
