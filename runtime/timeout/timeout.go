// Package timeout is the cooperative timeout policy: a tools/execute
// wrapper that gives each call the deadline its definition declares
// (ToolDefinition.Timeout) and fails it with TIMEOUT when the deadline
// passes.
//
// The policy is cooperative, as Go requires: it cancels the body's context
// and then waits for the body to return, so nothing is abandoned and no
// goroutine leaks. A body that ignores its context and returns well after
// the deadline is reported (to the runtime's error handler by default)
// rather than left running.
package timeout

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolgen-go/toolgen/runtime"
)

// ErrDeadline is the cancellation cause the policy gives a body whose
// deadline passed.
var ErrDeadline = errors.New("tool call deadline exceeded")

// DefaultGrace is how long after its deadline a body may take to return
// before the overrun is reported.
const DefaultGrace = 100 * time.Millisecond

// Option configures the policy.
type Option func(*config)

type config struct {
	grace  time.Duration
	report func(exec runtime.Execution, overrun time.Duration)
}

// WithGrace sets how long after the deadline a body may take to return
// before its overrun is reported.
func WithGrace(d time.Duration) Option { return func(c *config) { c.grace = d } }

// WithReport sets the function that receives overruns: the execution and
// how long after its deadline the body returned.
func WithReport(f func(exec runtime.Execution, overrun time.Duration)) Option {
	return func(c *config) { c.report = f }
}

// Install adds the policy to rt as a global wrapper. Overruns go to
// rt.ReportError unless WithReport says otherwise.
func Install(rt *runtime.Runtime, opts ...Option) runtime.Disposer {
	report := func(exec runtime.Execution, overrun time.Duration) {
		rt.ReportError(fmt.Errorf("timeout: tool %q (call %s) ignored its deadline of %s and returned %s late",
			exec.Name(), exec.CallID(), exec.Timeout(), overrun.Round(time.Millisecond)))
	}
	return rt.WrapExecute(Wrapper(append([]Option{WithReport(report)}, opts...)...))
}

// Wrapper returns the policy as a wrapper, for runtime.WrapExecute or a
// Scope's WrapExecute.
func Wrapper(opts ...Option) runtime.Wrapper {
	cfg := config{grace: DefaultGrace}
	for _, o := range opts {
		o(&cfg)
	}
	return func(ctx context.Context, exec runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		budget := exec.Timeout()
		if budget <= 0 {
			return next(ctx)
		}
		tctx, cancel := context.WithTimeoutCause(ctx, budget, ErrDeadline)
		defer cancel()
		res := next(tctx)
		// Only this call's own budget counts: when the incoming context
		// ended first (the caller cancelled, or an enclosing call's
		// deadline passed), the result is left for the registry to judge.
		if ctx.Err() != nil || !errors.Is(context.Cause(tctx), ErrDeadline) {
			return res
		}
		deadline, _ := tctx.Deadline()
		if overrun := time.Since(deadline); overrun > cfg.grace && cfg.report != nil {
			cfg.report(exec, overrun)
		}
		return runtime.Fail(runtime.CodeTimeout, fmt.Sprintf("the tool did not finish within its timeout of %s", budget))
	}
}
