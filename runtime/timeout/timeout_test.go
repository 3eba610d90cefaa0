package timeout_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/timeout"
	"github.com/toolgen-go/toolgen/schemasubset"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// hang bounds waits that only a broken policy would make endless, so a
// regression fails instead of hanging. It is never asserted on.
const hang = 10 * time.Second

type body = func(ctx context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error)

// def returns a tool named name with the given timeout and body.
func def(name string, d time.Duration, b body) runtime.ToolDefinition {
	return runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{Name: name, Description: "The " + name + " tool.", Parameters: schemasubset.Object()},
		Output: runtime.OutputDefinition{Schema: schemasubset.Any(), Render: func(_, v jsonvalue.Value) ([]runtime.ContentBlock, error) {
			return []runtime.ContentBlock{runtime.Text(v.String())}, nil
		}},
		Execute: b,
		Timeout: d,
	}
}

func register(t *testing.T, s interface {
	Register(runtime.ToolDefinition) (runtime.Disposer, error)
}, d runtime.ToolDefinition) {
	t.Helper()
	_, err := s.Register(d)
	require.NoError(t, err)
}

func in(name string, agent *runtime.Agent) runtime.ExecutionInput {
	return runtime.ExecutionInput{CallID: "call-" + name, Name: name, Arguments: []byte(`{}`), Agent: agent}
}

// waitDone waits for ctx to end; false means it never did.
func waitDone(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	case <-time.After(hang):
		return false
	}
}

// cooperative is a body that returns as soon as its context ends, or at
// once when it has no deadline.
func cooperative(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
	if _, ok := ctx.Deadline(); !ok {
		return jsonvalue.Value(`"no deadline"`), nil
	}
	if !waitDone(ctx) {
		return jsonvalue.Value(`"never cancelled"`), nil
	}
	return nil, ctx.Err()
}

// ignoring returns a body that ignores its context for d and then records
// that it returned.
func ignoring(d time.Duration, returned *atomic.Bool) body {
	return func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
		time.Sleep(d)
		returned.Store(true)
		return jsonvalue.Value(`"late"`), nil
	}
}

func checkFailure(t *testing.T, res runtime.Result) {
	t.Helper()
	if res.IsError() {
		assert.Nil(t, res.Value, "a failure never carries a value")
		assert.False(t, res.ConcludesTurn)
	}
}

func TestR73_TimeoutPolicy(t *testing.T) {
	rt := runtime.New()
	timeout.Install(rt)
	const budget = 20 * time.Millisecond
	var (
		returned    atomic.Bool
		hadDeadline bool
		cause       error
		finalized   int
		observed    []runtime.Result
	)
	d := def("slow", budget, func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		_, hadDeadline = ctx.Deadline()
		waitDone(ctx)
		cause = context.Cause(ctx)
		time.Sleep(10 * time.Millisecond) // reaches quiescence a little later
		returned.Store(true)
		return jsonvalue.Value(`"too late"`), nil
	})
	d.FinalizeContent = func(runtime.Execution, runtime.Result) []runtime.ContentBlock { finalized++; return nil }
	register(t, rt, d)
	rt.OnResult(func(_ runtime.Execution, r runtime.Result) { observed = append(observed, r) })

	start := time.Now()
	res := rt.Execute(context.Background(), in("slow", nil))
	elapsed := time.Since(start)
	checkFailure(t, res)
	assert.True(t, returned.Load(), "Execute returns only after the body")
	assert.True(t, hadDeadline, "the body gets a deadline")
	assert.ErrorIs(t, cause, timeout.ErrDeadline, "the body's cancellation cause is the policy's")
	assert.GreaterOrEqual(t, elapsed, budget)
	assert.True(t, res.IsError())
	assert.Equal(t, runtime.CodeTimeout, res.Code())
	assert.Contains(t, res.Failure.Message, budget.String())
	assert.Equal(t, 1, finalized)
	require.Len(t, observed, 1)
	assert.Equal(t, runtime.CodeTimeout, observed[0].Code())
}

func TestTimeout_DeadlineIsTheToolsTimeout(t *testing.T) {
	t.Run("no Timeout means no deadline", func(t *testing.T) {
		rt := runtime.New()
		timeout.Install(rt)
		var hadDeadline atomic.Bool
		var seen time.Duration = -1
		register(t, rt, def("free", 0, func(ctx context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			_, ok := ctx.Deadline()
			hadDeadline.Store(ok)
			seen = rc.Execution().Timeout()
			return jsonvalue.Value(`1`), nil
		}))
		res := rt.Execute(context.Background(), in("free", nil))
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.False(t, hadDeadline.Load(), "a tool without Timeout has no deadline")
		assert.Zero(t, seen)
	})

	t.Run("the deadline is Timeout from the call", func(t *testing.T) {
		rt := runtime.New()
		timeout.Install(rt)
		const budget = time.Hour
		var deadline, bodyAt time.Time
		var ok bool
		register(t, rt, def("bounded", budget, func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			bodyAt = time.Now()
			deadline, ok = ctx.Deadline()
			return jsonvalue.Value(`1`), nil
		}))
		before := time.Now()
		res := rt.Execute(context.Background(), in("bounded", nil))
		require.False(t, res.IsError(), "a body within its budget succeeds: %+v", res.Failure)
		assert.Equal(t, `1`, res.Value.String())
		require.True(t, ok)
		assert.False(t, deadline.Before(before.Add(budget)), "deadline %v is not before the call start + Timeout", deadline)
		assert.False(t, deadline.After(bodyAt.Add(budget)), "deadline %v is not after the body start + Timeout", deadline)
	})

	t.Run("a caller's earlier deadline is kept", func(t *testing.T) {
		rt := runtime.New()
		timeout.Install(rt)
		var deadline time.Time
		register(t, rt, def("bounded", time.Hour, func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			deadline, _ = ctx.Deadline()
			return jsonvalue.Value(`1`), nil
		}))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		want, _ := ctx.Deadline()
		res := rt.Execute(ctx, in("bounded", nil))
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.True(t, deadline.Equal(want))
	})
}

func TestTimeout_IgnoringBodyIsDrainedAndReported(t *testing.T) {
	type report struct {
		callID, name string
		timeout      time.Duration
		overrun      time.Duration
	}
	const budget, grace, sleep = 10 * time.Millisecond, 20 * time.Millisecond, 150 * time.Millisecond
	var mu sync.Mutex
	var reports []report
	rt := runtime.New()
	rt.WrapExecute(timeout.Wrapper(timeout.WithGrace(grace), timeout.WithReport(func(e runtime.Execution, overrun time.Duration) {
		mu.Lock()
		reports = append(reports, report{e.CallID(), e.Name(), e.Timeout(), overrun})
		mu.Unlock()
	})))
	var returned atomic.Bool
	register(t, rt, def("stubborn", budget, ignoring(sleep, &returned)))
	register(t, rt, def("polite", budget, cooperative))

	res := rt.Execute(context.Background(), in("stubborn", nil))
	checkFailure(t, res)
	assert.True(t, returned.Load(), "Execute returned before the body: it was abandoned")
	assert.Equal(t, runtime.CodeTimeout, res.Code(), "a late success is still a timeout")
	mu.Lock()
	got := append([]report(nil), reports...)
	mu.Unlock()
	require.Len(t, got, 1, "the overrun is reported once")
	assert.Equal(t, "call-stubborn", got[0].callID)
	assert.Equal(t, "stubborn", got[0].name)
	assert.Equal(t, budget, got[0].timeout)
	assert.Greater(t, got[0].overrun, grace)
	assert.GreaterOrEqual(t, got[0].overrun, sleep-budget, "the overrun is measured from the deadline")

	t.Run("a cooperative body is not reported", func(t *testing.T) {
		var n atomic.Int32
		rt := runtime.New()
		rt.WrapExecute(timeout.Wrapper(timeout.WithGrace(time.Minute), timeout.WithReport(func(runtime.Execution, time.Duration) { n.Add(1) })))
		register(t, rt, def("polite", budget, cooperative))
		res := rt.Execute(context.Background(), in("polite", nil))
		assert.Equal(t, runtime.CodeTimeout, res.Code())
		assert.Zero(t, n.Load())
	})
}

func TestTimeout_InstallReportsThroughErrorHandler(t *testing.T) {
	var mu sync.Mutex
	var errs []error
	handler := runtime.WithErrorHandler(func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	})
	reset := func() {
		mu.Lock()
		errs = nil
		mu.Unlock()
	}
	reported := func() []error {
		mu.Lock()
		defer mu.Unlock()
		return append([]error(nil), errs...)
	}

	t.Run("overrun goes to the error handler", func(t *testing.T) {
		reset()
		rt := runtime.New(handler)
		timeout.Install(rt, timeout.WithGrace(10*time.Millisecond))
		var returned atomic.Bool
		register(t, rt, def("stubborn", 10*time.Millisecond, ignoring(120*time.Millisecond, &returned)))
		res := rt.Execute(context.Background(), in("stubborn", nil))
		assert.True(t, returned.Load())
		assert.Equal(t, runtime.CodeTimeout, res.Code())
		got := reported()
		require.Len(t, got, 1)
		assert.Contains(t, got[0].Error(), `"stubborn"`)
		assert.Contains(t, got[0].Error(), "call-stubborn")
	})

	t.Run("WithReport overrides the error handler", func(t *testing.T) {
		reset()
		var n atomic.Int32
		rt := runtime.New(handler)
		timeout.Install(rt, timeout.WithGrace(10*time.Millisecond), timeout.WithReport(func(runtime.Execution, time.Duration) { n.Add(1) }))
		var returned atomic.Bool
		register(t, rt, def("stubborn", 10*time.Millisecond, ignoring(120*time.Millisecond, &returned)))
		res := rt.Execute(context.Background(), in("stubborn", nil))
		assert.Equal(t, runtime.CodeTimeout, res.Code())
		assert.EqualValues(t, 1, n.Load())
		assert.Empty(t, reported())
	})

	t.Run("a cooperative body is not reported", func(t *testing.T) {
		reset()
		rt := runtime.New(handler)
		timeout.Install(rt, timeout.WithGrace(time.Minute))
		register(t, rt, def("polite", 10*time.Millisecond, cooperative))
		res := rt.Execute(context.Background(), in("polite", nil))
		assert.Equal(t, runtime.CodeTimeout, res.Code())
		assert.Empty(t, reported())
	})

	t.Run("the disposer removes the policy", func(t *testing.T) {
		reset()
		rt := runtime.New(handler)
		dispose := timeout.Install(rt)
		register(t, rt, def("polite", 10*time.Millisecond, cooperative))
		require.Equal(t, runtime.CodeTimeout, rt.Execute(context.Background(), in("polite", nil)).Code())
		dispose()
		res := rt.Execute(context.Background(), in("polite", nil))
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, `"no deadline"`, res.Value.String())
	})
}

func TestTimeout_CallerCancellationIsNotTimeout(t *testing.T) {
	t.Run("the caller cancels", func(t *testing.T) {
		var n atomic.Int32
		rt := runtime.New()
		rt.WrapExecute(timeout.Wrapper(timeout.WithGrace(0), timeout.WithReport(func(runtime.Execution, time.Duration) { n.Add(1) })))
		started := make(chan struct{})
		register(t, rt, def("wait", time.Hour, func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			close(started)
			waitDone(ctx)
			return jsonvalue.Value(`"stopped"`), nil
		}))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan runtime.Result, 1)
		go func() { done <- rt.Execute(ctx, in("wait", nil)) }()
		<-started
		cancel()
		res := <-done
		checkFailure(t, res)
		assert.Equal(t, runtime.CodeAborted, res.Code())
		assert.Zero(t, n.Load(), "a caller's cancellation is not an overrun")
	})

	t.Run("the caller's deadline comes first", func(t *testing.T) {
		var n atomic.Int32
		rt := runtime.New()
		rt.WrapExecute(timeout.Wrapper(timeout.WithGrace(0), timeout.WithReport(func(runtime.Execution, time.Duration) { n.Add(1) })))
		register(t, rt, def("wait", time.Hour, func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			waitDone(ctx)
			return jsonvalue.Value(`"stopped"`), nil
		}))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		res := rt.Execute(ctx, in("wait", nil))
		checkFailure(t, res)
		assert.Equal(t, runtime.CodeAborted, res.Code())
		assert.Zero(t, n.Load())
	})

	// A nested call's caller is the outer body; when the outer call's
	// timeout fires, the nested call is cancelled by its caller, whatever
	// the nested tool's own Timeout.
	for _, nestedBudget := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprintf("a nested call cancelled by its caller's timeout (nested Timeout %v)", nestedBudget), func(t *testing.T) {
			var reports []string
			var mu sync.Mutex
			rt := runtime.New()
			rt.WrapExecute(timeout.Wrapper(timeout.WithGrace(time.Minute), timeout.WithReport(func(e runtime.Execution, _ time.Duration) {
				mu.Lock()
				reports = append(reports, e.Name())
				mu.Unlock()
			})))
			register(t, rt, def("inner", nestedBudget, func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
				waitDone(ctx)
				return jsonvalue.Value(`"stopped"`), nil
			}))
			var nested runtime.Result
			register(t, rt, def("outer", 20*time.Millisecond, func(ctx context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
				nested = rt.Execute(ctx, runtime.ExecutionInput{
					CallID: "call-outer:code:1", RootCallID: rc.Execution().RootCallID(), Name: "inner",
					Arguments: []byte(`{}`), Parent: rc.Execution().Token(),
				})
				return jsonvalue.Value(`"outer done"`), nil
			}))
			res := rt.Execute(context.Background(), in("outer", nil))
			checkFailure(t, res)
			checkFailure(t, nested)
			assert.Equal(t, runtime.CodeTimeout, res.Code(), "the outer call timed out")
			assert.Equal(t, runtime.CodeAborted, nested.Code(), "the nested call was cancelled by its caller; its own budget did not run out")
			assert.Empty(t, reports)
		})
	}
}

func TestTimeout_ScopedWrapper(t *testing.T) {
	a := &runtime.Agent{ID: "A"}
	c := &runtime.Agent{ID: "C"}
	rt := runtime.New()
	rt.Scope(a).WrapExecute(timeout.Wrapper())
	register(t, rt, def("polite", 10*time.Millisecond, cooperative))
	assert.Equal(t, runtime.CodeTimeout, rt.Execute(context.Background(), in("polite", a)).Code(), "A's calls have the policy")
	res := rt.Execute(context.Background(), in("polite", c))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, `"no deadline"`, res.Value.String(), "C's calls do not")
}

func TestTimeout_NoGoroutineLeaks(t *testing.T) {
	rt := runtime.New()
	timeout.Install(rt, timeout.WithGrace(0))
	var returned atomic.Bool
	register(t, rt, def("polite", 5*time.Millisecond, cooperative))
	register(t, rt, def("stubborn", 5*time.Millisecond, ignoring(20*time.Millisecond, &returned)))
	register(t, rt, def("worker", 5*time.Millisecond, func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		// A body with helpers of its own, stopped through the context and
		// joined before it returns.
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { waitDone(ctx) })
		}
		wg.Wait()
		return nil, ctx.Err()
	}))
	var wg sync.WaitGroup
	results := make([]runtime.Result, 30)
	names := []string{"polite", "stubborn", "worker"}
	for i := range results {
		wg.Go(func() { results[i] = rt.Execute(context.Background(), in(names[i%len(names)], nil)) })
	}
	wg.Wait()
	batch := rt.ExecuteBatch(context.Background(), []runtime.ExecutionInput{in("polite", nil), in("worker", nil), in("stubborn", nil)}, runtime.BatchOptions{})
	for i, r := range append(results, batch...) {
		checkFailure(t, r)
		assert.Equal(t, runtime.CodeTimeout, r.Code(), "result %d", i)
	}
	goleak.VerifyNone(t)
}

// TestTimeout_ErrDeadline checks the exported cause is a distinct error.
func TestTimeout_ErrDeadline(t *testing.T) {
	require.Error(t, timeout.ErrDeadline)
	assert.False(t, errors.Is(timeout.ErrDeadline, context.DeadlineExceeded), "the policy's cause is told apart from a caller's deadline")
	assert.True(t, strings.TrimSpace(timeout.ErrDeadline.Error()) != "")
}
