package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// Execute runs one call through the pipeline and returns its final result,
// the same frozen snapshot the tools/result observers receive:
//
//  1. The arguments are materialized once (jsonvalue.Materialize); bytes
//     that are not one lossless JSON value fail with INVALID_ARGS before any
//     hook. The call gets its token.
//  2. A name the caller cannot see fails with UNKNOWN_TOOL, and so does a
//     model-direct call (no Parent) to a native tool under Code Mode.
//  3. The pre-execute waterfall decides: allow, deny (DENIED), or ask the
//     approval service, where only AllowedOnce proceeds and a call without
//     an agent, or a runtime without an approver, is denied.
//  4. Guards may deny (DENIED); none can allow.
//  5. Wrappers run around dispatch. Innermost, the registry fuses the
//     caller's context back in, validates the arguments against the
//     parameter schema (unless the definition validates them itself), runs
//     the body, snapshots and validates its value (INVALID_TOOL_OUTPUT),
//     renders content and, for top-level calls, presentation meta.
//  6. The post-execute waterfall may accept, replace the content or the
//     value (not both), or block (BLOCKED).
//  7. Caller cancellation since entry turns a success into ABORTED when the
//     body ran and ABORTED_BEFORE_DISPATCH when it did not; a failure keeps
//     its own code, except that a body returning the cancellation itself
//     (an error that is context.Canceled or DeadlineExceeded, after the
//     caller cancelled) is ABORTED. Failures before dispatch skip steps 5
//     and 6.
//  8. The candidate is materialized (INVALID_RESULT when content, meta or
//     contexts are not lossless), the definition's FinalizeContent runs
//     exactly once, the result is frozen, and observers see it.
//
// Every failure, a panicking body or hook included, is a result: Execute
// never panics and never returns a Go error. It returns only after the work
// it started (gates, wrappers, the body) has returned.
func (rt *Runtime) Execute(ctx context.Context, in ExecutionInput) Result {
	c := rt.begin(ctx, in)
	c.gate()
	c.dispatch()
	return c.end()
}

// call is the state of one execution moving through the pipeline.
type call struct {
	rt    *Runtime
	ctx   context.Context // the caller's
	state execution
	x     *execution // &state
	exec  Execution
	// def is the definition the call resolved, captured at the start (its
	// FinalizeContent included); nil for an unknown tool.
	def   *ToolDefinition
	hooks *callHooks

	// settled is set once res is an outcome that skips the remaining
	// stages before end.
	settled bool
	invoked atomic.Bool // the body was called at least once
	rc      RunContext  // the first invocation's
	// lastValue and lastContent identify the last success the body's
	// projection produced, so that a wrapper passing it on is not copied.
	lastValue   *byte
	lastContent *ContentBlock
	res         Result
}

// settle records a final outcome that bypasses the remaining stages.
func (c *call) settle(r Result) {
	c.res, c.settled = r, true
}

// begin materializes the arguments, assigns the token and resolves the
// definition and listeners.
func (rt *Runtime) begin(ctx context.Context, in ExecutionInput) *call {
	if ctx == nil {
		ctx = context.Background()
	}
	c := &call{rt: rt, ctx: ctx}
	x := &c.state
	*x = execution{
		callID: in.CallID, rootCallID: in.RootCallID, name: in.Name,
		agent: in.Agent, parent: in.Parent,
	}
	x.token = Token{x}
	if x.rootCallID == "" {
		x.rootCallID = x.callID
	}
	c.x, c.exec = x, Execution{x}
	args, argErr := jsonvalue.Materialize(in.Arguments)
	x.args = args

	rt.mu.RLock()
	e := rt.resolve(in.Agent, in.Name)
	hidden := e != nil && in.Parent.IsZero() && in.Name != ReservedTransport && rt.presentationOf(in.Agent) == PresentCode
	if e != nil && !hidden {
		c.def = &e.def
		x.timeout = e.def.Timeout
	}
	c.hooks = rt.hooksFor(in.Agent)
	rt.mu.RUnlock()

	switch {
	case argErr != nil:
		c.settle(Fail(CodeInvalidArgs, "arguments are not valid JSON: "+argErr.Error()))
	case c.def == nil:
		c.settle(Fail(CodeUnknownTool, fmt.Sprintf("unknown tool %q", in.Name)))
	}
	return c
}

// gate runs the pre-execute waterfall, the approval service and the guards.
func (c *call) gate() {
	if c.settled {
		return
	}
	if c.aborted() {
		return
	}
	d, panicked := c.pre()
	if panicked != nil {
		c.settle(Fail(CodeHookPanic, "a pre-execute policy failed: "+panicked.Error()))
		return
	}
	switch d.Kind {
	case PreAllow:
	case PreAsk:
		if ok, why := c.approve(d.Reason); !ok {
			c.settle(Fail(CodeDenied, why))
			return
		}
	default:
		c.settle(Fail(CodeDenied, reasonOr(d.Reason, "denied by policy")))
		return
	}
	if c.aborted() {
		return
	}
	for _, g := range c.hooks.guards {
		err, panicked := c.guard(g)
		if panicked != nil {
			c.settle(Fail(CodeHookPanic, "a guard failed: "+panicked.Error()))
			return
		}
		if err != nil {
			c.settle(Fail(CodeDenied, reasonOr(err.Error(), "denied by guard")))
			return
		}
	}
	c.aborted()
}

// aborted settles the call as ABORTED_BEFORE_DISPATCH when the caller has
// cancelled, and reports whether it did.
func (c *call) aborted() bool {
	if c.ctx.Err() == nil {
		return false
	}
	c.settle(abortedResult(CodeAbortedBeforeDispatch, c.ctx))
	return true
}

func abortedResult(code ErrorCode, ctx context.Context) Result {
	msg := "the call was cancelled before the tool ran"
	if code == CodeAborted {
		msg = "the call was cancelled while the tool ran"
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		msg += ": " + cause.Error()
	}
	return Fail(code, msg)
}

func reasonOr(reason, fallback string) string {
	if strings.TrimSpace(reason) == "" {
		return fallback
	}
	return reason
}

// pre runs the pre-execute waterfall; a panic anywhere in it ends it.
func (c *call) pre() (d PreDecision, panicked error) {
	if len(c.hooks.pre) == 0 {
		return Allow(), nil
	}
	defer recoverInto(&panicked)
	// One next function serves every level: the listeners of a waterfall
	// run on this goroutine, one level at a time, so a level counter that
	// each call restores says which listener is next (a listener may call
	// next more than once).
	level := 0
	var next func() PreDecision
	next = func() PreDecision {
		if level == len(c.hooks.pre) {
			return Allow()
		}
		l := c.hooks.pre[level]
		level++
		defer func() { level-- }()
		return l(c.ctx, c.exec, next)
	}
	return next(), nil
}

// approve asks the approval service; only AllowedOnce approves.
func (c *call) approve(reason string) (bool, string) {
	ask := "approval required"
	if reason != "" {
		ask += ": " + reason
	}
	switch {
	case c.x.agent == nil:
		return false, ask + " (denied: the call has no agent to ask for)"
	case c.rt.opts.approver == nil:
		return false, ask + " (denied: no approval service)"
	}
	var answer Approval
	var panicked error
	func() {
		defer recoverInto(&panicked)
		answer = c.rt.opts.approver(c.ctx, c.exec, reason)
	}()
	switch {
	case panicked != nil:
		c.rt.opts.onError(fmt.Errorf("runtime: approver panicked: %w", panicked))
		return false, ask + " (denied: the approval service failed)"
	case answer != AllowedOnce:
		return false, ask + " (denied)"
	}
	return true, ""
}

func (c *call) guard(g Guard) (err, panicked error) {
	defer recoverInto(&panicked)
	return g(c.exec), nil
}

// dispatch runs the wrappers around the body, then the post-execute
// waterfall.
func (c *call) dispatch() {
	if c.settled {
		return
	}
	res, panicked := c.wrapped()
	switch {
	case panicked != nil:
		res = Fail(CodeHookPanic, "an execute wrapper failed: "+panicked.Error())
	case res.Check() != nil:
		res = Fail(CodeInvalidResult, "an execute wrapper returned an invalid result: "+res.Check().Error())
	case len(c.hooks.wrap) > 0 && res.Value != nil && !res.Value.Valid():
		// Values the registry projected are canonical; a wrapper's own
		// value (a cached result, say) has to be checked.
		res = Fail(CodeInvalidResult, "an execute wrapper returned a value that is not canonical JSON")
	case len(c.hooks.wrap) > 0 && !c.isLast(res):
		// A wrapper's own result: from here on the registry owns every
		// byte of it.
		res = res.clone()
	}
	c.res = c.post(res)
}

// wrapped runs the wrapper chain; a panic anywhere in it ends it.
func (c *call) wrapped() (res Result, panicked error) {
	if len(c.hooks.wrap) == 0 {
		return c.innermost(c.ctx), nil
	}
	defer recoverInto(&panicked)
	// step runs the chain from wrapper i with ctx; a wrapper that passes a
	// nil context keeps the one it received.
	var step func(i int, ctx context.Context) Result
	step = func(i int, ctx context.Context) Result {
		if i == len(c.hooks.wrap) {
			return c.innermost(ctx)
		}
		return c.hooks.wrap[i](ctx, c.exec, func(inner context.Context) Result {
			if inner == nil {
				inner = ctx
			}
			return step(i+1, inner)
		})
	}
	return step(0, c.ctx), nil
}

// innermost is the end of the wrapper chain: fuse the caller's context
// back in, validate the arguments, run the body and build its result. A
// panic in the tool's own code (an error type that panics when inspected,
// say) is the tool's failure, not a wrapper's.
func (c *call) innermost(ctx context.Context) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = Fail(CodeToolPanic, fmt.Sprintf("the tool panicked: %v", p))
		}
	}()
	return c.dispatchBody(ctx)
}

func (c *call) dispatchBody(ctx context.Context) Result {
	if c.ctx.Err() != nil {
		return abortedResult(CodeAbortedBeforeDispatch, c.ctx)
	}
	if ctx != c.ctx {
		fused, cancel := context.WithCancelCause(ctx)
		stop := context.AfterFunc(c.ctx, func() { cancel(context.Cause(c.ctx)) })
		defer func() {
			stop()
			cancel(context.Canceled)
		}()
		ctx = fused
	}
	if !c.def.ValidatesArguments {
		if err := schemasubset.Validate(c.def.Parameters, c.x.args); err != nil {
			return Fail(CodeInvalidArgs, "invalid arguments: "+err.Error())
		}
	}
	// The first invocation uses the call's own RunContext; a retrying
	// wrapper's later ones get fresh ones, so attempts never share contexts.
	rc := &c.rc
	if c.invoked.Swap(true) {
		rc = &RunContext{}
	}
	rc.exec = c.exec
	value, err := c.body(ctx, rc)
	rc.mu.Lock()
	contexts, concludes := rc.contexts, rc.concludes
	rc.mu.Unlock()
	if err != nil {
		res := failureOf(err)
		if res.Code() == CodeToolError && c.ctx.Err() != nil && isContextError(err) {
			// A body that honoured the caller's cancellation by returning
			// ctx.Err() was aborted; it did not fail on its own.
			res = abortedResult(CodeAborted, c.ctx)
		}
		res.AdditionalContexts = contexts
		return res
	}
	res := c.project(value, c.def.ValidatesOutput)
	if !res.IsError() {
		res.ConcludesTurn = concludes
	}
	res.AdditionalContexts = append(contexts, res.AdditionalContexts...)
	if !res.IsError() {
		c.lastValue, c.lastContent = &res.Value[0], nil
		if len(res.Content) > 0 {
			c.lastContent = &res.Content[0]
		}
	}
	return res
}

// isLast reports whether res is, in the same memory, the success the
// body's projection last produced, so a wrapper only passed it on. A
// result with meta is always copied, since a wrapper may have set it.
func (c *call) isLast(res Result) bool {
	if res.Failure != nil || len(res.Value) == 0 || &res.Value[0] != c.lastValue {
		return false
	}
	if len(res.Content) == 0 {
		return c.lastContent == nil
	}
	return &res.Content[0] == c.lastContent && res.Meta == nil
}

// bodyPanic is the error a recovered body panic becomes.
type bodyPanic struct{ p any }

func (b bodyPanic) Error() string { return fmt.Sprint(b.p) }

func (c *call) body(ctx context.Context, rc *RunContext) (v jsonvalue.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, bodyPanic{p}
		}
	}()
	return c.def.Execute(ctx, c.x.args.Clone(), rc)
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// failureOf turns a body error into a failed result, keeping a tool's own
// code.
func failureOf(err error) Result {
	var te *ToolError
	var bp bodyPanic
	switch {
	case errors.As(err, &bp):
		return Fail(CodeToolPanic, "the tool panicked: "+bp.Error())
	case errors.As(err, &te) && te != nil && te.Code != "":
		return Fail(te.Code, err.Error())
	}
	return Fail(CodeToolError, err.Error())
}

// project snapshots and validates a successful value and renders it; a
// value the body vouches for (ValidatesOutput) is not validated again.
func (c *call) project(value jsonvalue.Value, trusted bool) Result {
	// The snapshot: a copy the body cannot change afterwards.
	var v jsonvalue.Value
	var err error
	if jsonvalue.IsCanonical(value) {
		v = value.Clone()
	} else if v, err = jsonvalue.Materialize(value); err != nil {
		return Fail(CodeInvalidToolOutput, "the tool returned a value that is not JSON: "+err.Error())
	}
	switch {
	case trusted:
	case c.def.Output.Validate != nil:
		err = c.def.Output.Validate(v)
	case !c.def.Output.Schema.AcceptsAnything():
		err = schemasubset.Validate(c.def.Output.Schema, v)
	}
	if err != nil {
		return Fail(CodeInvalidToolOutput, "invalid tool output: "+err.Error())
	}
	content, err := c.render(v)
	if err != nil {
		return Fail(CodeInvalidResult, "rendering the result failed: "+err.Error())
	}
	res := Result{Value: v, Content: content}
	if c.x.parent.IsZero() && c.def.Output.PresentationMeta != nil {
		meta, err := c.meta(v)
		if err != nil {
			return Fail(CodeInvalidResult, "presentation meta failed: "+err.Error())
		}
		res.Meta = meta
	}
	return res
}

// render and meta pass the tool's own projections the registry's copies of
// the arguments and value: they are the tool's code, documented as pure,
// and hooks only ever see copies.
func (c *call) render(v jsonvalue.Value) (content []ContentBlock, err error) {
	defer recoverInto(&err)
	return c.def.Output.Render(c.x.args, v)
}

func (c *call) meta(v jsonvalue.Value) (meta jsonvalue.Value, err error) {
	defer recoverInto(&err)
	meta, err = c.def.Output.PresentationMeta(c.x.args, v)
	if err != nil || meta == nil {
		return meta, err
	}
	canonical, err := jsonvalue.Materialize(meta)
	if err != nil {
		return nil, fmt.Errorf("meta is not JSON: %w", err)
	}
	return canonical, nil
}

// post runs the post-execute waterfall over res and applies its decision.
func (c *call) post(res Result) Result {
	if len(c.hooks.post) == 0 {
		return res
	}
	d, panicked := c.decide(res)
	if panicked != nil {
		return Fail(CodeHookPanic, "a post-execute policy failed: "+panicked.Error())
	}
	if err := d.Check(); err != nil {
		return Fail(CodeInvalidResult, err.Error())
	}
	if d.Kind == PostAccept && d.Value != nil && res.IsError() {
		return Fail(CodeInvalidResult, "a post-execute policy replaced the value of a failed result")
	}
	contexts := append(res.AdditionalContexts, cloneMessages(d.AdditionalContexts)...)
	switch {
	case d.Kind == PostBlock:
		res = Fail(CodeBlocked, blockMessage(d.Feedback))
		res.Content = cloneBlocks(d.Feedback)
	case d.Value != nil:
		concludes := res.ConcludesTurn
		res = c.project(d.Value, false)
		res.ConcludesTurn = concludes && !res.IsError()
	case d.Content != nil:
		res.Content = cloneBlocks(d.Content)
	}
	res.AdditionalContexts = contexts
	return res
}

func (c *call) decide(res Result) (d PostDecision, panicked error) {
	defer recoverInto(&panicked)
	level := 0 // see pre
	var next func() PostDecision
	next = func() PostDecision {
		if level == len(c.hooks.post) {
			return Accept()
		}
		l := c.hooks.post[level]
		level++
		defer func() { level-- }()
		return l(c.ctx, c.exec, res.clone(), next)
	}
	return next(), nil
}

func blockMessage(feedback []ContentBlock) string {
	var parts []string
	for _, b := range feedback {
		if b.Type == ContentText && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	if len(parts) == 0 {
		return "blocked by policy"
	}
	return strings.Join(parts, "\n")
}

// end applies cancellation, materializes the candidate, finalizes its
// content, freezes it and notifies the observers.
func (c *call) end() Result {
	res := c.res
	if !res.IsError() && c.ctx.Err() != nil {
		code := CodeAbortedBeforeDispatch
		if c.invoked.Load() {
			code = CodeAborted
		}
		contexts := res.AdditionalContexts
		res = abortedResult(code, c.ctx)
		res.AdditionalContexts = contexts
	}
	if err := checkCandidate(res); err != nil {
		res = Fail(CodeInvalidResult, "the result cannot be materialized: "+err.Error())
	}
	if c.def != nil && c.def.FinalizeContent != nil {
		res.Content = c.finalize(res)
	}
	// Freeze: the value, meta and failure are the registry's own by now
	// (snapshots, materializations, clones); content and contexts may still
	// be shared with tool or policy code.
	final := res
	final.Content = cloneBlocks(res.Content)
	final.AdditionalContexts = cloneMessages(res.AdditionalContexts)
	for _, o := range c.hooks.obs {
		view := final.clone()
		c.rt.contain("tools/result observer", func() { o(c.exec, view) })
	}
	return final
}

// finalize runs FinalizeContent once; a panic or unmaterializable content
// keeps the candidate's content and is reported.
func (c *call) finalize(res Result) []ContentBlock {
	var out []ContentBlock
	var panicked error
	func() {
		defer recoverInto(&panicked)
		out = c.def.FinalizeContent(c.exec, res.clone())
	}()
	if panicked == nil && out != nil {
		if err := checkBlocks(out); err != nil {
			panicked = fmt.Errorf("returned content that cannot be materialized: %w", err)
		}
	}
	if panicked != nil {
		c.rt.opts.onError(fmt.Errorf("runtime: FinalizeContent of %q: %w", c.x.name, panicked))
		return res.Content
	}
	if out == nil {
		return res.Content
	}
	return cloneBlocks(out)
}

// checkCandidate reports what in res cannot be materialized losslessly, or
// breaks the result invariants.
func checkCandidate(res Result) error {
	if err := res.Check(); err != nil {
		return err
	}
	if err := checkBlocks(res.Content); err != nil {
		return err
	}
	for i, m := range res.AdditionalContexts {
		if err := m.Check(); err != nil {
			return fmt.Errorf("additional context %d: %w", i, err)
		}
	}
	if res.Meta != nil && !res.Meta.Valid() {
		return errors.New("meta is not canonical JSON")
	}
	if f := res.Failure; f != nil && (!utf8.ValidString(f.Message) || !utf8.ValidString(string(f.Info.Code))) {
		return errors.New("the failure is not valid UTF-8")
	}
	return nil
}

// clone returns a deep copy of r.
func (r Result) clone() Result {
	out := Result{
		Value:              r.Value.Clone(),
		Content:            cloneBlocks(r.Content),
		Meta:               r.Meta.Clone(),
		AdditionalContexts: cloneMessages(r.AdditionalContexts),
		ConcludesTurn:      r.ConcludesTurn,
	}
	if r.Failure != nil {
		f := *r.Failure
		out.Failure = &f
	}
	return out
}

// recoverInto turns a panic into an error in *err. It must be deferred
// directly.
func recoverInto(err *error) {
	if p := recover(); p != nil {
		if e, ok := p.(error); ok {
			*err = fmt.Errorf("panic: %w", e)
		} else {
			*err = fmt.Errorf("panic: %v", p)
		}
	}
}
