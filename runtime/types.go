package runtime

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/toolgen-go/toolgen/jsonvalue"
)

// Agent is the scope key of one agent: registrations, restrictions, hooks and
// presentation declared through rt.Scope(agent) apply to it (and, where
// inherited, to its descendants). Agents are compared by pointer; Parent
// links an agent to the agent it was delegated from.
type Agent struct {
	// ID names the agent in logs and errors; it is not a key.
	ID string
	// Parent is the agent this one was delegated from, or nil for a
	// top-level agent, whose parent scope is the global layer.
	Parent *Agent
}

// Token is the opaque, registry-assigned identity of one execution. Tokens
// compare with ==; the zero Token is no execution. A nested dispatch passes
// its enclosing execution's token as ExecutionInput.Parent.
// Its identity is the address of the registry's own execution state, which
// is unique for the life of the execution and never reachable through it.
type Token struct{ x *execution }

// IsZero reports whether t is the zero Token.
func (t Token) IsZero() bool { return t.x == nil }

// ExecutionInput is the caller's description of one tool call.
type ExecutionInput struct {
	// CallID identifies the call, usually the model's tool-call id.
	CallID string
	// RootCallID is the model-requested call that owns this execution tree.
	// Root executions leave it empty (it resolves to CallID); nested
	// dispatchers propagate the enclosing value.
	RootCallID string
	// Name is the tool name.
	Name string
	// Arguments is the raw JSON of the call's arguments. It is materialized
	// once (jsonvalue.Materialize) before any policy runs; the caller keeps
	// ownership and may reuse the buffer after Execute returns.
	Arguments []byte
	// Agent is the agent on whose behalf the call runs, or nil.
	Agent *Agent
	// Parent is the token of the enclosing transport execution, for nested
	// dispatches; zero for model-direct calls.
	Parent Token
}

// Execution is the read-only view of one pending call that every hook
// receives: its identity, materialized arguments and registry token. It has
// no setters, and Arguments returns a copy, so no hook can change what
// another hook or the body sees.
// The zero Execution describes no call: its accessors return zero values.
type Execution struct{ x *execution }

// zeroExecution backs the accessors of the zero Execution.
var zeroExecution execution

func (e Execution) state() *execution {
	if e.x == nil {
		return &zeroExecution
	}
	return e.x
}

// execution is the registry-owned state behind an Execution.
type execution struct {
	callID, rootCallID, name string
	args                     jsonvalue.Value
	agent                    *Agent
	parent, token            Token
	timeout                  time.Duration
}

// CallID returns the call id.
func (e Execution) CallID() string { return e.state().callID }

// RootCallID returns the root call id, resolved for root and nested calls.
func (e Execution) RootCallID() string { return e.state().rootCallID }

// Name returns the tool name.
func (e Execution) Name() string { return e.state().name }

// Arguments returns a copy of the materialized arguments.
func (e Execution) Arguments() jsonvalue.Value { return e.state().args.Clone() }

// Agent returns the calling agent, or nil.
func (e Execution) Agent() *Agent { return e.state().agent }

// Parent returns the enclosing execution's token, or the zero Token.
func (e Execution) Parent() Token { return e.state().parent }

// Token returns this execution's registry-assigned token.
func (e Execution) Token() Token { return e.state().token }

// Timeout returns the Timeout of the definition the call resolved, 0 for
// none; the timeout policy reads it.
func (e Execution) Timeout() time.Duration { return e.state().timeout }

// RunContext is what a tool body receives besides its context and
// arguments: the execution's identity and two channels into its own result.
// It is safe for concurrent use by the body's goroutines.
type RunContext struct {
	exec Execution

	mu        sync.Mutex
	contexts  []UserMessage
	concludes bool
}

// Execution returns the execution the body runs for.
func (rc *RunContext) Execution() Execution { return rc.exec }

// DeferContext attaches m to this execution's own result, to reach the
// model after the result; deferred contexts keep their call order.
func (rc *RunContext) DeferContext(m UserMessage) {
	rc.mu.Lock()
	rc.contexts = append(rc.contexts, m)
	rc.mu.Unlock()
}

// ConcludeTurn marks a successful result as the last of the agent's turn.
// It has no effect on a failed result.
func (rc *RunContext) ConcludeTurn() {
	rc.mu.Lock()
	rc.concludes = true
	rc.mu.Unlock()
}

// ErrorCode classifies a failure. The runtime's own codes are the constants
// below; a tool may use its own through ToolError.
type ErrorCode string

// The runtime's error codes.
const (
	// CodeUnknownTool: no tool of that name is visible to the caller.
	CodeUnknownTool ErrorCode = "UNKNOWN_TOOL"
	// CodeInvalidArgs: the arguments are not JSON or break the parameter
	// schema.
	CodeInvalidArgs ErrorCode = "INVALID_ARGS"
	// CodeInvalidToolOutput: the body's value breaks the output schema.
	CodeInvalidToolOutput ErrorCode = "INVALID_TOOL_OUTPUT"
	// CodeDenied: a pre-execute policy denied the call, an ask was not
	// approved, or a guard denied it.
	CodeDenied ErrorCode = "DENIED"
	// CodeBlocked: a post-execute policy blocked the result.
	CodeBlocked ErrorCode = "BLOCKED"
	// CodeAbortedBeforeDispatch: the caller cancelled before the body ran.
	CodeAbortedBeforeDispatch ErrorCode = "ABORTED_BEFORE_DISPATCH"
	// CodeAborted: the caller cancelled after the body started.
	CodeAborted ErrorCode = "ABORTED"
	// CodeTimeout: the timeout policy ended the call.
	CodeTimeout ErrorCode = "TIMEOUT"
	// CodeToolError: the body returned an error.
	CodeToolError ErrorCode = "TOOL_ERROR"
	// CodeToolPanic: the body panicked.
	CodeToolPanic ErrorCode = "TOOL_PANIC"
	// CodeHookPanic: a pre- or post-execute listener, guard or wrapper
	// panicked.
	CodeHookPanic ErrorCode = "HOOK_PANIC"
	// CodeInvalidResult: content, meta or contexts could not be
	// materialized, or a renderer failed.
	CodeInvalidResult ErrorCode = "INVALID_RESULT"
)

// ToolError is a tool's own structured error: a body that returns one (or
// wraps one) fails with its Code instead of TOOL_ERROR.
type ToolError struct {
	// Code is the tool's error code, such as "FILE_NOT_FOUND".
	Code ErrorCode
	// Message is the model-facing message.
	Message string
	// Err is an optional underlying cause.
	Err error
}

// Error returns the message. A nil *ToolError, which a body can return by
// mistake, reads as "tool error".
func (e *ToolError) Error() string {
	switch {
	case e == nil:
		return "tool error"
	case e.Message == "" && e.Err != nil:
		return e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the underlying cause.
func (e *ToolError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// ErrorInfo is the routing detail of a failure.
type ErrorInfo struct {
	// Code classifies the failure.
	Code ErrorCode `json:"code"`
}

// Failure is the detail of a failed result.
type Failure struct {
	// Message is the human-readable message, without an "Error: " prefix.
	Message string `json:"message"`
	// Info carries the failure's code.
	Info ErrorInfo `json:"info"`
}

// Result is the execution-local outcome of one call. A success carries the
// canonical Value; a failure carries Failure and never a value, and only a
// success may conclude the turn. Use [Success] and [Fail] to build one;
// [Result.Check] reports a Result that breaks these invariants.
type Result struct {
	// Value is the canonical value of a success; nil on a failure.
	Value jsonvalue.Value
	// Content is the model-facing content.
	Content []ContentBlock
	// Failure is set on a failure and nil on a success.
	Failure *Failure
	// Meta is optional presentation metadata.
	Meta jsonvalue.Value
	// AdditionalContexts reach the model after this result.
	AdditionalContexts []UserMessage
	// ConcludesTurn ends the agent's turn after this result (success only).
	ConcludesTurn bool
}

// Success returns a successful result.
func Success(value jsonvalue.Value, content []ContentBlock) Result {
	return Result{Value: value, Content: content}
}

// Fail returns a failed result whose content is the message as one text
// block.
func Fail(code ErrorCode, message string) Result {
	return Result{Failure: &Failure{Message: message, Info: ErrorInfo{Code: code}}, Content: []ContentBlock{Text(message)}}
}

// IsError reports whether r is a failure.
func (r Result) IsError() bool { return r.Failure != nil }

// Code returns the failure's code, or "" for a success.
func (r Result) Code() ErrorCode {
	if r.Failure == nil {
		return ""
	}
	return r.Failure.Info.Code
}

// ErrInvalidResult is wrapped by the errors of Result.Check.
var ErrInvalidResult = errors.New("invalid result")

// Check reports whether r keeps the invariants: a success has a value, a
// failure has none and does not conclude the turn.
func (r Result) Check() error {
	switch {
	case r.Failure == nil && r.Value == nil:
		return errors.Join(ErrInvalidResult, errors.New("a success needs a value"))
	case r.Failure != nil && r.Value != nil:
		return errors.Join(ErrInvalidResult, errors.New("a failure never carries a value"))
	case r.Failure != nil && r.ConcludesTurn:
		return errors.Join(ErrInvalidResult, errors.New("only a success concludes the turn"))
	}
	return nil
}

// ToolResult is the durable projection of a result, the part that session
// logs keep and presenters see: never the execution-local value.
type ToolResult struct {
	// Content is the model-facing content.
	Content []ContentBlock
	// IsError reports a failure.
	IsError bool
	// Error is the failure detail, or nil.
	Error *Failure
	// Meta is the presentation metadata, or nil.
	Meta jsonvalue.Value
}

// Durable returns r's durable projection, sharing no memory with r.
func (r Result) Durable() ToolResult {
	return ToolResult{Content: r.Content, IsError: r.Failure != nil, Error: r.Failure, Meta: r.Meta}.clone()
}

// clone returns a copy of r that shares no memory with it.
func (r ToolResult) clone() ToolResult {
	out := ToolResult{Content: cloneBlocks(r.Content), IsError: r.IsError, Meta: r.Meta.Clone()}
	if r.Error != nil {
		f := *r.Error
		out.Error = &f
	}
	return out
}

// MarshalJSON encodes {"content":[...],"isError":...,"error":...,"meta":...}.
func (r ToolResult) MarshalJSON() ([]byte, error) {
	dst := []byte(`{"content":`)
	dst, err := appendBlocks(dst, r.Content)
	if err != nil {
		return nil, err
	}
	if r.IsError {
		dst = append(dst, `,"isError":true`...)
	} else {
		dst = append(dst, `,"isError":false`...)
	}
	if r.Error != nil {
		dst = append(dst, `,"error":{"message":`...)
		dst = append(dst, jsonvalue.String(r.Error.Message)...)
		dst = append(dst, `,"info":{"code":`...)
		dst = append(dst, jsonvalue.String(string(r.Error.Info.Code))...)
		dst = append(dst, `}}`...)
	}
	if r.Meta != nil {
		dst = append(dst, `,"meta":`...)
		dst = append(dst, r.Meta...)
	}
	return append(dst, '}'), nil
}

// PreKind is the kind of a pre-execute decision.
type PreKind uint8

// The pre-execute decisions.
const (
	// PreAllow runs the call.
	PreAllow PreKind = iota
	// PreDeny fails the call with DENIED and the reason.
	PreDeny
	// PreAsk runs the call only if the approval service answers
	// "allowed-once"; otherwise it is denied.
	PreAsk
)

// PreDecision is a pre-execute listener's decision. It has no field for
// arguments: arguments are logged and presented before policy, so no
// decision can rewrite them.
type PreDecision struct {
	Kind   PreKind
	Reason string
}

// Allow returns the decision that runs the call.
func Allow() PreDecision { return PreDecision{Kind: PreAllow} }

// Deny returns the decision that fails the call with reason.
func Deny(reason string) PreDecision { return PreDecision{Kind: PreDeny, Reason: reason} }

// Ask returns the decision that asks the approval service first.
func Ask(reason string) PreDecision { return PreDecision{Kind: PreAsk, Reason: reason} }

// PostKind is the kind of a post-execute decision.
type PostKind uint8

// The post-execute decisions.
const (
	// PostAccept accepts the result, optionally replacing its content or
	// (exclusively) its value.
	PostAccept PostKind = iota
	// PostBlock turns the result into a BLOCKED failure whose content is the
	// feedback.
	PostBlock
)

// PostDecision is a post-execute listener's decision. It is a struct, not
// one type per case, so that an invalid decision (content and value both
// replaced) can be expressed by a listener and rejected by the runtime.
type PostDecision struct {
	Kind PostKind
	// Content replaces the result's content on accept; the value and meta
	// are kept. Nil keeps the content.
	Content []ContentBlock
	// Value replaces the result's value on accept; it is validated again
	// and content and meta are rendered from it. Nil keeps the value.
	Value jsonvalue.Value
	// Feedback is the content of a blocked result.
	Feedback []ContentBlock
	// AdditionalContexts are attached to the result in either case.
	AdditionalContexts []UserMessage
}

// Accept returns the decision that keeps the result.
func Accept() PostDecision { return PostDecision{Kind: PostAccept} }

// AcceptContent returns the decision that replaces the result's content.
func AcceptContent(content []ContentBlock) PostDecision {
	return PostDecision{Kind: PostAccept, Content: content}
}

// AcceptValue returns the decision that replaces the result's value.
func AcceptValue(v jsonvalue.Value) PostDecision { return PostDecision{Kind: PostAccept, Value: v} }

// Block returns the decision that fails the result with feedback.
func Block(feedback []ContentBlock) PostDecision {
	return PostDecision{Kind: PostBlock, Feedback: feedback}
}

// ErrInvalidDecision is wrapped by the errors of PostDecision.Check.
var ErrInvalidDecision = errors.New("invalid post-execute decision")

// Check reports whether d is a decision the runtime can apply.
func (d PostDecision) Check() error {
	switch {
	case d.Kind != PostAccept && d.Kind != PostBlock:
		return errors.Join(ErrInvalidDecision, errors.New("unknown kind"))
	case d.Kind == PostAccept && d.Content != nil && d.Value != nil:
		return errors.Join(ErrInvalidDecision, errors.New("replaces both content and value"))
	case d.Kind == PostAccept && d.Feedback != nil:
		return errors.Join(ErrInvalidDecision, errors.New("accept carries feedback"))
	case d.Kind == PostBlock && (d.Content != nil || d.Value != nil):
		return errors.Join(ErrInvalidDecision, errors.New("block replaces content or value"))
	}
	return nil
}

// ExecutionMode is how a pending call may be scheduled beside its siblings.
// The zero value is Exclusive, so every unknown case fails closed.
type ExecutionMode uint8

// The execution modes.
const (
	// Exclusive runs alone and is an ordering barrier.
	Exclusive ExecutionMode = iota
	// Parallel may overlap with other parallel calls.
	Parallel
)

// String returns "exclusive" or "parallel".
func (m ExecutionMode) String() string {
	if m == Parallel {
		return "parallel"
	}
	return "exclusive"
}

// Restriction filters what one scope inherits (the global layer and its
// ancestor scopes): Allow keeps only the named tools, Deny removes the named
// ones. Several restrictions intersect; a scope's own registrations are
// never filtered.
type Restriction struct {
	Allow []string
	Deny  []string
}

// PresentationMode is how a scope's tools are presented to its model.
type PresentationMode string

// The presentation modes.
const (
	// PresentNative presents every visible tool as a function.
	PresentNative PresentationMode = "native"
	// PresentCode presents the Code Mode transport instead; native tools are
	// reachable only through it.
	PresentCode PresentationMode = "code"
)

// ReservedTransport is the tool name reserved for the Code Mode transport.
const ReservedTransport = "run_code"

// Guard is a monotonic check after the pre-execute waterfall: a non-nil
// error denies the call with its message, nil leaves the decision alone.
// Guards have no way to allow, so no ordering can undo a denial.
type Guard func(Execution) error

// Disposer undoes one registration. Calling it again does nothing, and it
// never undoes a later registration of the same name.
type Disposer func()

// once wraps f so that only its first call runs.
func once(f func()) Disposer {
	var o sync.Once
	return func() { o.Do(f) }
}

// joinNames quotes names for error messages.
func joinNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
	}
	return strings.Join(q, ", ")
}
