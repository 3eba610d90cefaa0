package runtime_test

// Rules R108–R120 (cancellation codes, DeferContext and ConcludeTurn) and
// R125–R127 (scope-filtered hook dispatch and change events) of
// ../shared/RULES.md, plus a concurrency test of Execute against
// registrations and disposals.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// canCounted returns a tool named name that counts its invocations in n and
// then runs body (a constant "ok" when body is nil).
func canCounted(name string, n *atomic.Int32, body func(ctx context.Context, rc *runtime.RunContext) (jsonvalue.Value, error)) runtime.ToolDefinition {
	if body == nil {
		body = func(context.Context, *runtime.RunContext) (jsonvalue.Value, error) {
			return jsonvalue.Value(`"ok"`), nil
		}
	}
	return tool(name, func(ctx context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		n.Add(1)
		return body(ctx, rc)
	})
}

// canAsync runs exec in a goroutine and delivers its result.
func canAsync(t *testing.T, rt *runtime.Runtime, ctx context.Context, in runtime.ExecutionInput) <-chan runtime.Result {
	done := make(chan runtime.Result, 1)
	go func() { done <- exec(t, rt, ctx, in) }()
	return done
}

// canMsg returns a user message with one text block.
func canMsg(source, text, meta string) runtime.UserMessage {
	m := runtime.UserMessage{Content: []runtime.ContentBlock{runtime.Text(text)}, Source: source}
	if meta != "" {
		m.Meta = jsonvalue.Value(meta)
	}
	return m
}

// canTrace is what a composite tool saw of its nested dispatch.
type canTrace struct {
	outer, inner runtime.Execution
	nested       runtime.Result
	dispatched   bool
}

// canComposite registers the composite "outer" and its nested tool "inner"
// globally. inner runs innerBody; outer dispatches inner through rt.Execute
// with Parent set to its own token and RootCallID propagated, then forwards
// the nested contexts and/or ConcludeTurn only when asked to, and returns
// "outer".
func canComposite(t *testing.T, rt *runtime.Runtime, tr *canTrace, forwardContexts, forwardConclude bool,
	innerBody func(rc *runtime.RunContext)) {
	t.Helper()
	mustRegister(t, rt, tool("inner", func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		tr.inner = rc.Execution()
		innerBody(rc)
		return jsonvalue.Value(`"inner"`), nil
	}))
	mustRegister(t, rt, tool("outer", func(ctx context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		outer := rc.Execution()
		tr.outer = outer
		tr.nested = rt.Execute(ctx, runtime.ExecutionInput{
			CallID:     outer.CallID() + "/inner",
			RootCallID: outer.RootCallID(),
			Name:       "inner",
			Arguments:  []byte(`{}`),
			Agent:      outer.Agent(),
			Parent:     outer.Token(),
		})
		tr.dispatched = true
		if forwardContexts {
			for _, m := range tr.nested.AdditionalContexts {
				rc.DeferContext(m)
			}
		}
		if forwardConclude && tr.nested.ConcludesTurn {
			rc.ConcludeTurn()
		}
		return jsonvalue.Value(`"outer"`), nil
	}))
}

// canCheckNesting asserts that the nested call ran as a child of the outer
// one, under the same root call id.
func canCheckNesting(t *testing.T, tr *canTrace) {
	t.Helper()
	require.True(t, tr.dispatched, "the outer body dispatched the nested call")
	checkInvariants(t, tr.nested)
	assert.True(t, tr.inner.Parent() == tr.outer.Token(), "the nested execution's parent is the outer token")
	assert.False(t, tr.inner.Token() == tr.outer.Token(), "the nested execution has its own token")
	assert.Equal(t, "c1", tr.inner.RootCallID(), "the root call id is propagated")
}

func TestR108_CancellationBeforeDispatch(t *testing.T) {
	cases := []struct {
		name string
		// opts returns the runtime's options; cancel is the caller's.
		opts func(cancel context.CancelFunc) []runtime.Option
		// setup installs hooks; it may cancel the caller's ctx itself.
		setup func(rt *runtime.Runtime, cancel context.CancelFunc)
	}{
		{
			name:  "already cancelled at entry",
			setup: func(_ *runtime.Runtime, cancel context.CancelFunc) { cancel() },
		},
		{
			name: "cancelled in a pre-execute listener that allows",
			setup: func(rt *runtime.Runtime, cancel context.CancelFunc) {
				rt.OnPreExecute(func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
					cancel()
					return next()
				})
			},
		},
		{
			name: "cancelled while the approval service approves an ask",
			opts: func(cancel context.CancelFunc) []runtime.Option {
				return []runtime.Option{runtime.WithApprover(func(context.Context, runtime.Execution, string) runtime.Approval {
					cancel()
					return runtime.AllowedOnce
				})}
			},
			setup: func(rt *runtime.Runtime, _ context.CancelFunc) {
				rt.OnPreExecute(func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
					return runtime.Ask("check")
				})
			},
		},
		{
			name: "cancelled in a guard that passes",
			setup: func(rt *runtime.Runtime, cancel context.CancelFunc) {
				rt.Guard(func(runtime.Execution) error {
					cancel()
					return nil
				})
			},
		},
		{
			name: "cancelled in a wrapper that then calls next",
			setup: func(rt *runtime.Runtime, cancel context.CancelFunc) {
				rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
					cancel()
					return next(ctx)
				})
			},
		},
		{
			name: "cancelled in a wrapper that then calls next with its own live context",
			setup: func(rt *runtime.Runtime, cancel context.CancelFunc) {
				rt.WrapExecute(func(_ context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
					cancel()
					return next(context.Background())
				})
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, _, _ := agents()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var opts []runtime.Option
			if tc.opts != nil {
				opts = tc.opts(cancel)
			}
			rt := runtime.New(opts...)
			var bodies atomic.Int32
			mustRegister(t, rt, canCounted("t", &bodies, nil))
			tc.setup(rt, cancel)

			res := exec(t, rt, ctx, call("t", `{}`, a))
			assert.Equal(t, runtime.CodeAbortedBeforeDispatch, code(res))
			assert.Zero(t, bodies.Load(), "the body never runs")
		})
	}
}

func TestR109_CancellationAfterASuccessfulBody(t *testing.T) {
	rt := runtime.New()
	var bodies atomic.Int32
	started, proceed := make(chan struct{}), make(chan struct{})
	mustRegister(t, rt, canCounted("t", &bodies, func(_ context.Context, rc *runtime.RunContext) (jsonvalue.Value, error) {
		rc.ConcludeTurn()
		close(started)
		<-proceed // ignores ctx
		return jsonvalue.Value(`"ok"`), nil
	}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	done := canAsync(t, rt, ctx, call("t", `{}`, nil))
	<-started
	cancel()
	close(proceed)
	res := <-done

	assert.Equal(t, runtime.CodeAborted, code(res))
	assert.Nil(t, res.Value, "the value is removed")
	assert.False(t, res.ConcludesTurn, "ConcludesTurn is removed")
	assert.Equal(t, int32(1), bodies.Load())
}

func TestR110_AToolOwnedErrorSurvivesCancellation(t *testing.T) {
	const partial runtime.ErrorCode = "PARTIAL"
	for _, honour := range []bool{false, true} {
		t.Run(fmt.Sprintf("body honours ctx=%v", honour), func(t *testing.T) {
			rt := runtime.New()
			var bodies atomic.Int32
			started, proceed := make(chan struct{}), make(chan struct{})
			mustRegister(t, rt, canCounted("t", &bodies, func(ctx context.Context, _ *runtime.RunContext) (jsonvalue.Value, error) {
				close(started)
				if honour {
					<-ctx.Done()
				} else {
					<-proceed
				}
				return nil, &runtime.ToolError{Code: partial, Message: "only half done"}
			}))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()

			done := canAsync(t, rt, ctx, call("t", `{}`, nil))
			<-started
			cancel()
			close(proceed)
			res := <-done

			assert.Equal(t, partial, code(res))
			assert.Equal(t, "only half done", res.Failure.Message)
			assert.Equal(t, int32(1), bodies.Load())
		})
	}
}

func TestR111_CancellationDuringPostExecute(t *testing.T) {
	rt := runtime.New()
	var bodies atomic.Int32
	mustRegister(t, rt, canCounted("t", &bodies, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sawSuccess bool
	rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, res runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		sawSuccess = !res.IsError()
		cancel()
		return next()
	})

	res := exec(t, rt, ctx, call("t", `{}`, nil))
	require.True(t, sawSuccess, "post-execute saw the body's success")
	assert.Equal(t, runtime.CodeAborted, code(res))
	assert.Nil(t, res.Value)
	assert.Equal(t, int32(1), bodies.Load())
}

func TestR112_TheCodeDependsOnWhetherTheBodyRan(t *testing.T) {
	cases := []struct {
		name         string
		shortCircuit bool   // the wrapper returns a cached success without next
		cancelIn     string // "wrapper" or "post"
		want         runtime.ErrorCode
		wantBodies   int32
	}{
		{"short-circuit, cancelled in post-execute", true, "post", runtime.CodeAbortedBeforeDispatch, 0},
		{"short-circuit, cancelled in the wrapper", true, "wrapper", runtime.CodeAbortedBeforeDispatch, 0},
		{"next called, cancelled in post-execute", false, "post", runtime.CodeAborted, 1},
		{"next called, cancelled in the wrapper after next", false, "wrapper", runtime.CodeAborted, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			var bodies atomic.Int32
			mustRegister(t, rt, canCounted("t", &bodies, nil))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
				var res runtime.Result
				if tc.shortCircuit {
					res = runtime.Success(jsonvalue.Value(`"cached"`), []runtime.ContentBlock{runtime.Text("cached")})
				} else {
					res = next(ctx)
				}
				if tc.cancelIn == "wrapper" {
					cancel()
				}
				return res
			})
			rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
				if tc.cancelIn == "post" {
					cancel()
				}
				return next()
			})

			res := exec(t, rt, ctx, call("t", `{}`, nil))
			assert.Equal(t, tc.want, code(res))
			assert.Equal(t, tc.wantBodies, bodies.Load())
		})
	}
}

func TestR113_OnlySuccessesAreReplaced(t *testing.T) {
	cases := []struct {
		name string
		want runtime.ErrorCode
		// body runs as the tool's body; cancel is the caller's.
		body func(cancel context.CancelFunc) (jsonvalue.Value, error)
		def  func(*runtime.ToolDefinition)
		hook func(rt *runtime.Runtime, cancel context.CancelFunc)
	}{
		{
			name: "post-execute blocks after the caller cancelled",
			want: runtime.CodeBlocked,
			hook: func(rt *runtime.Runtime, cancel context.CancelFunc) {
				rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
					cancel()
					return runtime.Block([]runtime.ContentBlock{runtime.Text("no")})
				})
			},
		},
		{
			name: "the body returns an invalid value after the caller cancelled",
			want: runtime.CodeInvalidToolOutput,
			def:  func(d *runtime.ToolDefinition) { d.Output.Schema = schemasubset.String() },
			body: func(cancel context.CancelFunc) (jsonvalue.Value, error) {
				cancel()
				return jsonvalue.Value(`42`), nil
			},
		},
		{
			name: "the body returns a value that is not JSON after the caller cancelled",
			want: runtime.CodeInvalidToolOutput,
			body: func(cancel context.CancelFunc) (jsonvalue.Value, error) {
				cancel()
				return jsonvalue.Value(`{`), nil
			},
		},
		{
			name: "the body returns a plain error after the caller cancelled",
			want: runtime.CodeToolError,
			body: func(cancel context.CancelFunc) (jsonvalue.Value, error) {
				cancel()
				return nil, errBoom
			},
		},
		{
			name: "the body panics after the caller cancelled",
			want: runtime.CodeToolPanic,
			body: func(cancel context.CancelFunc) (jsonvalue.Value, error) {
				cancel()
				panic("boom")
			},
		},
		{
			name: "post-execute replaces the value with an invalid one after the caller cancelled",
			want: runtime.CodeInvalidToolOutput,
			def:  func(d *runtime.ToolDefinition) { d.Output.Schema = schemasubset.String() },
			hook: func(rt *runtime.Runtime, cancel context.CancelFunc) {
				rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
					cancel()
					return runtime.AcceptValue(jsonvalue.Value(`42`))
				})
			},
		},
		{
			name: "pre-execute denies after the caller cancelled",
			want: runtime.CodeDenied,
			hook: func(rt *runtime.Runtime, cancel context.CancelFunc) {
				rt.OnPreExecute(func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
					cancel()
					return runtime.Deny("no")
				})
			},
		},
		{
			name: "a guard denies after the caller cancelled",
			want: runtime.CodeDenied,
			hook: func(rt *runtime.Runtime, cancel context.CancelFunc) {
				rt.Guard(func(runtime.Execution) error {
					cancel()
					return errors.New("no")
				})
			},
		},
		{
			name: "a post-execute listener panics after the caller cancelled",
			want: runtime.CodeHookPanic,
			hook: func(rt *runtime.Runtime, cancel context.CancelFunc) {
				rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
					cancel()
					panic("boom")
				})
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			def := tool("t", constant(`"ok"`))
			if tc.body != nil {
				def.Execute = func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
					return tc.body(cancel)
				}
			}
			if tc.def != nil {
				tc.def(&def)
			}
			mustRegister(t, rt, def)
			if tc.hook != nil {
				tc.hook(rt, cancel)
			}

			res := exec(t, rt, ctx, call("t", `{}`, nil))
			require.Error(t, ctx.Err(), "the caller cancelled")
			assert.Equal(t, tc.want, code(res))
		})
	}
}

func TestR114_CancellationAfterMaterializationChangesNothing(t *testing.T) {
	rt := runtime.New()
	mustRegister(t, rt, tool("t", constant(`"ok"`)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt.OnResult(func(runtime.Execution, runtime.Result) { cancel() })
	var second runtime.Result
	var secondRan bool
	rt.OnResult(func(_ runtime.Execution, res runtime.Result) { second, secondRan = res, true })

	res := exec(t, rt, ctx, call("t", `{}`, nil))
	require.Error(t, ctx.Err(), "observer 1 cancelled the caller's ctx")
	require.True(t, secondRan)
	assert.False(t, second.IsError(), "observer 2 sees a success: %+v", second.Failure)
	assert.Equal(t, `"ok"`, second.Value.String())
	assert.False(t, res.IsError(), "the caller sees a success: %+v", res.Failure)
	assert.Equal(t, `"ok"`, res.Value.String())
}

func TestR115_OnlyTheCallersCtxCounts(t *testing.T) {
	rt := runtime.New()
	var bodyCtxErr error
	mustRegister(t, rt, tool("t", func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		bodyCtxErr = ctx.Err()
		return jsonvalue.Value(`"ok"`), nil
	}))
	rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		own, stop := context.WithCancel(ctx)
		stop()
		return next(own)
	})

	res := exec(t, rt, context.Background(), call("t", `{}`, nil))
	require.Error(t, bodyCtxErr, "the body got the wrapper's cancelled ctx")
	assert.False(t, res.IsError(), "a success stands: %+v", res.Failure)
	assert.Equal(t, `"ok"`, res.Value.String())
}

func TestR116_DeferContextKeepsCallOrder(t *testing.T) {
	rt := runtime.New()
	m1 := runtime.UserMessage{
		Content: []runtime.ContentBlock{runtime.Text("first"), runtime.Image([]byte{1, 2, 3}, "image/png")},
		Source:  "policy-1",
		Meta:    jsonvalue.Value(`{"n":1,"big":12345678901234567890}`),
	}
	m2 := canMsg("plugin-2", "second", `[2,"two"]`)
	m3 := canMsg("", "third", "")
	mustRegister(t, rt, tool("t", func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		rc.DeferContext(m1)
		rc.DeferContext(m2)
		rc.DeferContext(m3)
		return jsonvalue.Value(`"ok"`), nil
	}))

	res := exec(t, rt, context.Background(), call("t", `{}`, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, []runtime.UserMessage{m1, m2, m3}, res.AdditionalContexts)
}

func TestR117_NestedContextsAreNotInjectedIntoTheOuterCall(t *testing.T) {
	x := canMsg("nested", "X", `{"from":"inner"}`)
	for _, forward := range []bool{false, true} {
		t.Run(fmt.Sprintf("forwarded=%v", forward), func(t *testing.T) {
			rt := runtime.New()
			var tr canTrace
			canComposite(t, rt, &tr, forward, false, func(rc *runtime.RunContext) { rc.DeferContext(x) })

			res := exec(t, rt, context.Background(), call("outer", `{}`, nil))
			require.False(t, res.IsError(), "%+v", res.Failure)
			canCheckNesting(t, &tr)
			assert.Equal(t, []runtime.UserMessage{x}, tr.nested.AdditionalContexts, "the nested result carries X")
			if forward {
				assert.Equal(t, []runtime.UserMessage{x}, res.AdditionalContexts, "forwarded X reaches the outer result")
			} else {
				assert.Empty(t, res.AdditionalContexts, "X is not injected into the outer result")
			}
		})
	}
}

func TestR118_ConcludeTurnMarksASuccess(t *testing.T) {
	cases := []struct {
		name     string
		conclude bool
		post     runtime.PostExecute
	}{
		{name: "not called", conclude: false},
		{name: "called", conclude: true},
		{name: "called, post-execute accepts", conclude: true, post: func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			return next()
		}},
		{name: "called, post-execute replaces the content", conclude: true, post: func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
			return runtime.AcceptContent([]runtime.ContentBlock{runtime.Text("replaced")})
		}},
		{name: "called, post-execute replaces the value", conclude: true, post: func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
			return runtime.AcceptValue(jsonvalue.Value(`"other"`))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			mustRegister(t, rt, tool("t", func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
				if tc.conclude {
					rc.ConcludeTurn()
				}
				return jsonvalue.Value(`"ok"`), nil
			}))
			if tc.post != nil {
				rt.OnPostExecute(tc.post)
			}

			res := exec(t, rt, context.Background(), call("t", `{}`, nil))
			require.False(t, res.IsError(), "%+v", res.Failure)
			assert.Equal(t, tc.conclude, res.ConcludesTurn)
		})
	}
}

func TestR119_ConcludeTurnNeverMarksAFailure(t *testing.T) {
	cases := []struct {
		name string
		want runtime.ErrorCode
		body func(cancel context.CancelFunc) (jsonvalue.Value, error)
		def  func(*runtime.ToolDefinition)
		hook func(rt *runtime.Runtime)
	}{
		{name: "body error", want: runtime.CodeToolError, body: func(context.CancelFunc) (jsonvalue.Value, error) { return nil, errBoom }},
		{name: "tool-owned error", want: "PARTIAL", body: func(context.CancelFunc) (jsonvalue.Value, error) {
			return nil, &runtime.ToolError{Code: "PARTIAL", Message: "half"}
		}},
		{name: "body panic", want: runtime.CodeToolPanic, body: func(context.CancelFunc) (jsonvalue.Value, error) { panic("boom") }},
		{
			name: "invalid output", want: runtime.CodeInvalidToolOutput,
			def:  func(d *runtime.ToolDefinition) { d.Output.Schema = schemasubset.String() },
			body: func(context.CancelFunc) (jsonvalue.Value, error) { return jsonvalue.Value(`42`), nil },
		},
		{name: "output that is not JSON", want: runtime.CodeInvalidToolOutput, body: func(context.CancelFunc) (jsonvalue.Value, error) {
			return jsonvalue.Value(`{"a":`), nil
		}},
		{name: "post-execute block", want: runtime.CodeBlocked, hook: func(rt *runtime.Runtime) {
			rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				return runtime.Block([]runtime.ContentBlock{runtime.Text("blocked")})
			})
		}},
		{
			name: "post-execute replaces the value with an invalid one", want: runtime.CodeInvalidToolOutput,
			def: func(d *runtime.ToolDefinition) { d.Output.Schema = schemasubset.String() },
			hook: func(rt *runtime.Runtime) {
				rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
					return runtime.AcceptValue(jsonvalue.Value(`42`))
				})
			},
		},
		{name: "aborted", want: runtime.CodeAborted, body: func(cancel context.CancelFunc) (jsonvalue.Value, error) {
			cancel()
			return jsonvalue.Value(`"ok"`), nil
		}},
		{
			name: "failure whose content FinalizeContent replaces", want: runtime.CodeToolError,
			body: func(context.CancelFunc) (jsonvalue.Value, error) { return nil, errBoom },
			def: func(d *runtime.ToolDefinition) {
				d.FinalizeContent = func(runtime.Execution, runtime.Result) []runtime.ContentBlock {
					return []runtime.ContentBlock{runtime.Text("finalized")}
				}
			},
		},
		{name: "result that cannot be materialized", want: runtime.CodeInvalidResult, hook: func(rt *runtime.Runtime) {
			rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				return runtime.PostDecision{Kind: runtime.PostAccept, AdditionalContexts: []runtime.UserMessage{{Meta: jsonvalue.Value(`{`)}}}
			})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			def := tool("t", func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
				rc.ConcludeTurn()
				if tc.body == nil {
					return jsonvalue.Value(`"ok"`), nil
				}
				return tc.body(cancel)
			})
			if tc.def != nil {
				tc.def(&def)
			}
			mustRegister(t, rt, def)
			if tc.hook != nil {
				tc.hook(rt)
			}

			res := exec(t, rt, ctx, call("t", `{}`, nil))
			assert.Equal(t, tc.want, code(res))
			assert.False(t, res.ConcludesTurn)
		})
	}
}

func TestR120_NestedConcludeTurnConcludesOnlyWhenForwarded(t *testing.T) {
	cases := []struct {
		name          string
		forward       bool
		blockNested   bool
		wantNested    bool // the nested result concludes the turn
		wantOuter     bool // the outer result concludes the turn
		wantNestedErr runtime.ErrorCode
	}{
		{name: "not forwarded", forward: false, wantNested: true, wantOuter: false},
		{name: "forwarded", forward: true, wantNested: true, wantOuter: true},
		{name: "nested blocked, forwarding attempted", forward: true, blockNested: true, wantNestedErr: runtime.CodeBlocked},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			var tr canTrace
			canComposite(t, rt, &tr, false, tc.forward, func(rc *runtime.RunContext) { rc.ConcludeTurn() })
			if tc.blockNested {
				rt.OnPostExecute(func(_ context.Context, exec runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
					if exec.Name() == "inner" {
						return runtime.Block([]runtime.ContentBlock{runtime.Text("blocked")})
					}
					return next()
				})
			}

			res := exec(t, rt, context.Background(), call("outer", `{}`, nil))
			require.False(t, res.IsError(), "%+v", res.Failure)
			canCheckNesting(t, &tr)
			assert.Equal(t, tc.wantNestedErr, code(tr.nested))
			assert.Equal(t, tc.wantNested, tr.nested.ConcludesTurn, "nested ConcludesTurn")
			assert.Equal(t, tc.wantOuter, res.ConcludesTurn, "outer ConcludesTurn")
		})
	}
}

// canHooks is the hook-registration surface shared by *runtime.Runtime
// (global) and runtime.Scope (agent-scoped).
type canHooks interface {
	OnPreExecute(runtime.PreExecute) runtime.Disposer
	Guard(runtime.Guard) runtime.Disposer
	WrapExecute(runtime.Wrapper) runtime.Disposer
	OnPostExecute(runtime.PostExecute) runtime.Disposer
	OnResult(runtime.Observer) runtime.Disposer
}

// canRecordHooks registers a recorder on every hook of h; each event is
// "owner|hook|caller", the caller being the calling agent's ID or "-".
func canRecordHooks(h canHooks, owner string, rec *recorder) {
	who := func(e runtime.Execution) string {
		if e.Agent() == nil {
			return "-"
		}
		return e.Agent().ID
	}
	add := func(hook string, e runtime.Execution) { rec.add(owner + "|" + hook + "|" + who(e)) }
	h.OnPreExecute(func(_ context.Context, e runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		add("pre", e)
		return next()
	})
	h.Guard(func(e runtime.Execution) error {
		add("guard", e)
		return nil
	})
	h.WrapExecute(func(ctx context.Context, e runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		add("execute", e)
		return next(ctx)
	})
	h.OnPostExecute(func(_ context.Context, e runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		add("post", e)
		return next()
	})
	h.OnResult(func(e runtime.Execution, _ runtime.Result) { add("result", e) })
}

func TestR125_ScopedListenersSeeOnlyTheirAgentsCalls(t *testing.T) {
	// The code-dispatch-log waterfall is part of R125 too, but it comes with
	// the Code Mode transport (a later issue) and has no API yet; its scope
	// filtering is to be added here when it lands.
	a, b, c := agents()
	rt := runtime.New()
	mustRegister(t, rt, echo())
	rec := &recorder{}
	canRecordHooks(rt.Scope(a), "A", rec)
	canRecordHooks(rt, "global", rec)

	// B is A's child: an agent-scoped listener sees the agent's own calls
	// only (Decisions, R61), so B's call reaches global listeners only.
	for _, agent := range []*runtime.Agent{a, b, c, nil} {
		res := exec(t, rt, context.Background(), call("echo", `{}`, agent))
		require.False(t, res.IsError(), "%+v", res.Failure)
	}

	got := map[string][]string{}
	for _, e := range rec.list() {
		owner, rest, _ := strings.Cut(e, "|")
		hook, caller, _ := strings.Cut(rest, "|")
		got[owner+"|"+hook] = append(got[owner+"|"+hook], caller)
	}
	for _, hook := range []string{"pre", "guard", "execute", "post", "result"} {
		assert.Equal(t, []string{"A"}, got["A|"+hook], "A-scoped %s fires once, for A's call", hook)
		assert.Equal(t, []string{"A", "B", "C", "-"}, got["global|"+hook], "global %s fires for every call", hook)
	}
}

func TestR126_ToolsChangeFiresOnEveryToolSetChange(t *testing.T) {
	a, _, _ := agents()
	rt := runtime.New()
	// Each event records whether A sees echo at that moment: the listener
	// runs after the change.
	rec := &recorder{}
	rt.OnChange(func() {
		_, ok := rt.Get("echo", a)
		rec.add(fmt.Sprint(ok))
	})

	var disposeEcho, lift runtime.Disposer
	steps := []struct {
		name string
		do   func(t *testing.T)
		want []string
	}{
		{"register", func(t *testing.T) { disposeEcho = mustRegister(t, rt, echo()) }, []string{"true"}},
		{"failed duplicate registration", func(t *testing.T) {
			_, err := rt.Register(echo())
			require.Error(t, err)
		}, []string{"true"}},
		{"restrict", func(t *testing.T) {
			var err error
			lift, err = rt.Scope(a).Restrict(runtime.Restriction{Deny: []string{"echo"}})
			require.NoError(t, err)
		}, []string{"true", "false"}},
		{"failed restriction", func(t *testing.T) {
			_, err := rt.Scope(a).Restrict(runtime.Restriction{Deny: []string{"nope"}})
			require.Error(t, err)
		}, []string{"true", "false"}},
		{"lift", func(*testing.T) { lift() }, []string{"true", "false", "true"}},
		{"lift again", func(*testing.T) { lift() }, []string{"true", "false", "true"}},
		{"dispose", func(*testing.T) { disposeEcho() }, []string{"true", "false", "true", "false"}},
		{"dispose again", func(*testing.T) { disposeEcho() }, []string{"true", "false", "true", "false"}},
	}
	for _, s := range steps {
		s.do(t)
		assert.Equal(t, s.want, rec.list(), "after %s", s.name)
	}
	assert.Len(t, rec.list(), 4)
}

func TestR127_ToolsChangeIsUnfiltered(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	var n atomic.Int32
	rt.Scope(a).OnChange(func() { n.Add(1) })

	mustRegister(t, rt.Scope(c), tool("t", nil))
	assert.Equal(t, int32(1), n.Load(), "a registration in C's scope")
	mustRegister(t, rt, echo())
	assert.Equal(t, int32(2), n.Load(), "a registration in the global layer")
	_, err := rt.Scope(c).Restrict(runtime.Restriction{Deny: []string{"echo"}})
	require.NoError(t, err)
	assert.Equal(t, int32(3), n.Load(), "a restriction of C")
	mustRegister(t, rt.Scope(b), tool("u", nil))
	assert.Equal(t, int32(4), n.Load(), "a registration in B's scope")
}

// TestConcurrentExecuteWhileRegisteringAndDisposing runs 1,000 calls from
// many goroutines and agents while tools are registered and disposed (and a
// restriction applied and lifted) concurrently. Every result keeps the
// invariants and is the success of a definition the caller could see, or
// UNKNOWN_TOOL.
func TestConcurrentExecuteWhileRegisteringAndDisposing(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	mustRegister(t, rt, echo()) // never disposed nor restricted: always succeeds
	var observed atomic.Int64
	rt.OnResult(func(runtime.Execution, runtime.Result) { observed.Add(1) })
	var changes atomic.Int64
	rt.Scope(c).OnChange(func() { changes.Add(1) })

	const flips = 3
	flipValue := func(i int, layer string) string { return fmt.Sprintf(`{"tool":"flip%d","layer":%q}`, i, layer) }
	// Which layers each caller may see a flip tool from.
	layersOf := map[*runtime.Agent][]string{nil: {"global"}, a: {"global", "A"}, b: {"global", "A"}, c: {"global", "C"}}
	scopes := map[string]runtime.Scope{"global": rt.Scope(nil), "A": rt.Scope(a), "C": rt.Scope(c)}

	stop := make(chan struct{})
	var churn sync.WaitGroup
	var ready sync.WaitGroup
	for i := range flips {
		for layer, s := range scopes {
			def := tool(fmt.Sprintf("flip%d", i), constant(flipValue(i, layer)))
			ready.Add(1)
			churn.Go(func() {
				first := true
				for {
					d, err := s.Register(def)
					if !assert.NoError(t, err) {
						if first {
							ready.Done()
						}
						return
					}
					if first {
						ready.Done()
						first = false
					}
					d()
					select {
					case <-stop:
						return
					default:
					}
				}
			})
		}
	}
	// B restricts flip0 on and off; it fails while flip0 is in no layer B
	// inherits from.
	churn.Go(func() {
		for {
			lift, err := rt.Scope(b).Restrict(runtime.Restriction{Deny: []string{"flip0"}})
			if err == nil {
				lift()
			} else {
				assert.ErrorIs(t, err, runtime.ErrInvalidRestriction)
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	})
	ready.Wait()

	const callers, perCaller = 50, 20
	callerAgents := []*runtime.Agent{nil, a, b, c}
	var successes, unknown atomic.Int64
	var calls sync.WaitGroup
	for g := range callers {
		calls.Go(func() {
			for k := range perCaller {
				n := g*perCaller + k
				agent := callerAgents[n%len(callerAgents)]
				name := "echo"
				if n%5 != 0 {
					name = fmt.Sprintf("flip%d", n%flips)
				}
				args := fmt.Sprintf(`{"n":%d}`, n)
				in := runtime.ExecutionInput{CallID: fmt.Sprintf("call-%d", n), Name: name, Arguments: []byte(args), Agent: agent}
				res := exec(t, rt, context.Background(), in)
				switch {
				case name == "echo":
					if assert.False(t, res.IsError(), "echo always succeeds: %+v", res.Failure) {
						assert.Equal(t, args, res.Value.String())
					}
					successes.Add(1)
				case res.IsError():
					assert.Equal(t, runtime.CodeUnknownTool, code(res), "%s: %+v", name, res.Failure)
					unknown.Add(1)
				default:
					var want []string
					for _, layer := range layersOf[agent] {
						want = append(want, flipValue(n%flips, layer))
					}
					assert.Contains(t, want, res.Value.String(), "%s for agent %v", name, agent)
					successes.Add(1)
				}
			}
		})
	}
	calls.Wait()
	close(stop)
	churn.Wait()

	assert.Equal(t, int64(callers*perCaller), observed.Load(), "every call reached the observer once")
	assert.Equal(t, int64(callers*perCaller), successes.Load()+unknown.Load())
	assert.NotZero(t, changes.Load())
	t.Logf("successes %d, unknown %d, change events %d", successes.Load(), unknown.Load(), changes.Load())
}
