package runtime_test

// Rules R33–R38 (RULES.md section 4): ExecutionMode and the batch scheduler
// rt.ExecuteBatch.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// modeWait bounds every wait in this file, so that a scheduler that does not
// overlap or does not release fails instead of hanging.
const modeWait = 5 * time.Second

// modeCounter is a ConcurrencySafe classifier that answers safe and counts
// its calls.
type modeCounter struct {
	safe  bool
	calls atomic.Int32
	mu    sync.Mutex
	seen  []string
}

func (c *modeCounter) classify(args jsonvalue.Value) bool {
	c.calls.Add(1)
	c.mu.Lock()
	c.seen = append(c.seen, args.String())
	c.mu.Unlock()
	return c.safe
}

func (c *modeCounter) count() int { return int(c.calls.Load()) }

// modeClassified returns echo renamed name with classifier f.
func modeClassified(name string, f func(jsonvalue.Value) bool) runtime.ToolDefinition {
	def := tool(name, nil)
	def.ConcurrencySafe = f
	return def
}

// modeToken returns a non-zero execution token, taken from a real execution,
// for nested-dispatch inputs (ExecutionInput.Parent).
func modeToken(t *testing.T) runtime.Token {
	t.Helper()
	var tok runtime.Token
	rt := runtime.New()
	mustRegister(t, rt, tool("capture", func(_ context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		tok = rc.Execution().Token()
		return args, nil
	}))
	res := rt.Execute(context.Background(), call("capture", `{}`, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	require.False(t, tok.IsZero())
	return tok
}

// modeIn builds an input with its own call id.
func modeIn(id, name, args string, agent *runtime.Agent) runtime.ExecutionInput {
	return runtime.ExecutionInput{CallID: id, Name: name, Arguments: []byte(args), Agent: agent}
}

// modeBatch runs rt.ExecuteBatch in a goroutine and fails the test if it
// does not return within modeWait. On timeout it cancels ctx (every body in
// this file honours it) and waits for the batch, so nothing outlives the
// test.
func modeBatch(t *testing.T, rt *runtime.Runtime, ctx context.Context, cancel context.CancelFunc, calls []runtime.ExecutionInput, opts runtime.BatchOptions) []runtime.Result {
	t.Helper()
	done := make(chan []runtime.Result, 1)
	go func() { done <- rt.ExecuteBatch(ctx, calls, opts) }()
	select {
	case res := <-done:
		for _, r := range res {
			checkInvariants(t, r)
		}
		return res
	case <-time.After(2 * modeWait):
		cancel()
		<-done
		require.FailNow(t, "ExecuteBatch did not return: the scheduler deadlocked")
		return nil
	}
}

// modeBarrier is a barrier of n: Wait returns true once n parties have
// arrived, false on timeout or cancellation.
type modeBarrier struct {
	n       int
	mu      sync.Mutex
	arrived int
	open    chan struct{}
}

func modeNewBarrier(n int) *modeBarrier { return &modeBarrier{n: n, open: make(chan struct{})} }

func (b *modeBarrier) Wait(ctx context.Context) bool {
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.n {
		close(b.open)
	}
	b.mu.Unlock()
	select {
	case <-b.open:
		return true
	case <-ctx.Done():
		return false
	case <-time.After(modeWait):
		return false
	}
}

// modeIndex returns the position of e in events, or -1.
func modeIndex(events []string, e string) int { return slices.Index(events, e) }

// modeID decodes the "id" member of a call's arguments, or "".
func modeID(args jsonvalue.Value) string {
	id := ""
	r := jsonvalue.NewReader(args)
	if r.BeginObject() {
		for {
			name, ok := r.NextName()
			if !ok {
				break
			}
			if string(name) == "id" {
				id = r.ReadString()
			} else {
				r.ReadValue()
			}
		}
	}
	return id
}

func TestR33_OnlyAnExactTrueIsParallel(t *testing.T) {
	assert.Equal(t, runtime.Exclusive, runtime.ExecutionMode(0), "the zero mode fails closed")
	assert.Equal(t, "parallel", runtime.Parallel.String())
	assert.Equal(t, "exclusive", runtime.Exclusive.String())

	tests := []struct {
		name       string
		classifier func(jsonvalue.Value) bool
		want       runtime.ExecutionMode
	}{
		{"classifier true", func(jsonvalue.Value) bool { return true }, runtime.Parallel},
		{"classifier false", func(jsonvalue.Value) bool { return false }, runtime.Exclusive},
		{"no classifier", nil, runtime.Exclusive},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			mustRegister(t, rt, modeClassified("t", tc.classifier))
			assert.Equal(t, tc.want, rt.ExecutionMode(call("t", `{}`, nil)))
		})
	}

	t.Run("the classifier sees the materialized arguments", func(t *testing.T) {
		rt := runtime.New()
		c := &modeCounter{safe: true}
		mustRegister(t, rt, modeClassified("t", c.classify))
		assert.Equal(t, runtime.Parallel, rt.ExecutionMode(call("t", " { \"a\" : 1.0 } ", nil)))
		assert.Equal(t, []string{`{"a":1.0}`}, c.seen)
	})
}

func TestR34_APanickingClassifierIsExclusive(t *testing.T) {
	panics := []struct {
		name  string
		value any
	}{
		{"string", "classifier broke"},
		{"error", errBoom},
		{"nil", nil},
	}
	for _, p := range panics {
		t.Run(p.name, func(t *testing.T) {
			var reported []error
			var mu sync.Mutex
			rt := runtime.New(runtime.WithErrorHandler(func(err error) {
				mu.Lock()
				reported = append(reported, err)
				mu.Unlock()
			}))
			mustRegister(t, rt, modeClassified("t", func(jsonvalue.Value) bool { panic(p.value) }))
			var mode runtime.ExecutionMode
			require.NotPanics(t, func() { mode = rt.ExecutionMode(call("t", `{}`, nil)) })
			assert.Equal(t, runtime.Exclusive, mode)
			mu.Lock()
			assert.Len(t, reported, 1, "the contained panic is reported")
			mu.Unlock()

			// The scheduler survives it too, and still runs the call.
			var res []runtime.Result
			require.NotPanics(t, func() {
				res = rt.ExecuteBatch(context.Background(), []runtime.ExecutionInput{call("t", `{"x":1}`, nil)}, runtime.BatchOptions{})
			})
			require.Len(t, res, 1)
			assert.False(t, res[0].IsError(), "%+v", res[0].Failure)
		})
	}
}

func TestR35_UnknownOrHiddenToolsAreExclusive(t *testing.T) {
	a, b, c := agents()
	tok := modeToken(t)

	tests := []struct {
		name  string
		setup func(t *testing.T, rt *runtime.Runtime, def runtime.ToolDefinition)
		in    runtime.ExecutionInput
	}{
		{
			name:  "unknown name",
			setup: func(t *testing.T, rt *runtime.Runtime, def runtime.ToolDefinition) { mustRegister(t, rt, def) },
			in:    call("nope", `{}`, nil),
		},
		{
			name: "restricted away",
			setup: func(t *testing.T, rt *runtime.Runtime, def runtime.ToolDefinition) {
				mustRegister(t, rt, def)
				_, err := rt.Scope(a).Restrict(runtime.Restriction{Deny: []string{"t"}})
				require.NoError(t, err)
			},
			in: call("t", `{}`, a),
		},
		{
			name: "outside an allow list",
			setup: func(t *testing.T, rt *runtime.Runtime, def runtime.ToolDefinition) {
				mustRegister(t, rt, def)
				mustRegister(t, rt, echo())
				_, err := rt.Scope(a).Restrict(runtime.Restriction{Allow: []string{"echo"}})
				require.NoError(t, err)
			},
			in: call("t", `{}`, b), // B inherits A's restriction
		},
		{
			name:  "a sibling's scope",
			setup: func(t *testing.T, rt *runtime.Runtime, def runtime.ToolDefinition) { mustRegister(t, rt.Scope(c), def) },
			in:    call("t", `{}`, a),
		},
		{
			name:  "a child's scope",
			setup: func(t *testing.T, rt *runtime.Runtime, def runtime.ToolDefinition) { mustRegister(t, rt.Scope(b), def) },
			in:    call("t", `{}`, a),
		},
		{
			name:  "an agent's scope, from the global view",
			setup: func(t *testing.T, rt *runtime.Runtime, def runtime.ToolDefinition) { mustRegister(t, rt.Scope(a), def) },
			in:    call("t", `{}`, nil),
		},
		{
			name: "a model-direct call under Code Mode",
			setup: func(t *testing.T, rt *runtime.Runtime, def runtime.ToolDefinition) {
				mustRegister(t, rt, def)
				_, err := rt.Scope(a).PresentAs(runtime.PresentCode)
				require.NoError(t, err)
			},
			in: call("t", `{}`, a),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			counter := &modeCounter{safe: true}
			tc.setup(t, rt, modeClassified("t", counter.classify))
			assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(tc.in))
			assert.Zero(t, counter.count(), "the hidden definition's classifier is not called")
		})
	}

	// Controls: the same classifier is consulted where the tool is visible,
	// so the zero counts above are not vacuous.
	t.Run("controls", func(t *testing.T) {
		rt := runtime.New()
		counter := &modeCounter{safe: true}
		mustRegister(t, rt.Scope(a), modeClassified("t", counter.classify))
		_, err := rt.Scope(a).PresentAs(runtime.PresentCode)
		require.NoError(t, err)
		nested := call("t", `{}`, a)
		nested.Parent = tok
		assert.Equal(t, runtime.Parallel, rt.ExecutionMode(nested), "a nested call under Code Mode sees the tool")
		nested.Agent = b
		assert.Equal(t, runtime.Parallel, rt.ExecutionMode(nested), "B inherits A's registration")
		assert.Equal(t, 2, counter.count())
	})
}

// TestR36_InvalidArgumentsAreExclusive uses a hand-written definition whose
// classifier counts its calls. The generated-tool variant of this rule (a
// defineTool with concurrency=Fn, arguments missing a required field) comes
// with the generator and is tested there.
func TestR36_InvalidArgumentsAreExclusive(t *testing.T) {
	params := schemasubset.MustParse(`{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer"}},"required":["path"],"additionalProperties":false}`)
	tests := []struct {
		name, args string
	}{
		{"missing a required field", `{}`},
		{"wrong type", `{"path":1}`},
		{"wrong nested type", `{"path":"a","n":1.5}`},
		{"unknown property", `{"path":"a","extra":true}`},
		{"not an object", `["path"]`},
		{"null", `null`},
		{"not JSON", `{`},
		{"empty", ``},
		{"trailing data", `{"path":"a"} {}`},
		{"duplicate member", `{"path":"a","path":"b"}`},
		{"invalid UTF-8", "{\"path\":\"\xff\"}"},
		{"lone surrogate", `{"path":"\ud800"}`},
		{"NaN", `{"path":"a","n":NaN}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			counter := &modeCounter{safe: true}
			def := modeClassified("t", counter.classify)
			def.Parameters = params
			mustRegister(t, rt, def)
			var mode runtime.ExecutionMode
			require.NotPanics(t, func() { mode = rt.ExecutionMode(call("t", tc.args, nil)) })
			assert.Equal(t, runtime.Exclusive, mode)
			assert.Zero(t, counter.count(), "the classifier is not called for invalid arguments")
			// Execute agrees that these arguments are invalid.
			assert.Equal(t, runtime.CodeInvalidArgs, code(exec(t, rt, context.Background(), call("t", tc.args, nil))))
		})
	}

	t.Run("control: valid arguments are classified", func(t *testing.T) {
		rt := runtime.New()
		counter := &modeCounter{safe: true}
		def := modeClassified("t", counter.classify)
		def.Parameters = params
		mustRegister(t, rt, def)
		assert.Equal(t, runtime.Parallel, rt.ExecutionMode(call("t", `{"path":"a","n":2}`, nil)))
		assert.Equal(t, 1, counter.count())
	})

	t.Run("a definition that validates its own arguments is still exclusive", func(t *testing.T) {
		rt := runtime.New()
		counter := &modeCounter{safe: true}
		def := modeClassified("t", counter.classify)
		def.Parameters = params
		def.ValidatesArguments = true
		mustRegister(t, rt, def)
		assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(call("t", `{}`, nil)))
		assert.Zero(t, counter.count())
	})
}

func TestR37_ClassificationUsesTheCallersVisibleDefinition(t *testing.T) {
	a, b, c := agents()

	t.Run("a shadow without a classifier", func(t *testing.T) {
		rt := runtime.New()
		global := &modeCounter{safe: true}
		mustRegister(t, rt, modeClassified("echo", global.classify))
		mustRegister(t, rt.Scope(a), echo())

		assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(call("echo", `{}`, a)))
		assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(call("echo", `{}`, b)), "B sees A's shadow")
		assert.Zero(t, global.count(), "the shadowed classifier is not consulted for A or B")
		assert.Equal(t, runtime.Parallel, rt.ExecutionMode(call("echo", `{}`, nil)))
		assert.Equal(t, runtime.Parallel, rt.ExecutionMode(call("echo", `{}`, c)), "the sibling C sees the global tool")
		assert.Equal(t, 2, global.count())
	})

	t.Run("a shadow with its own classifier", func(t *testing.T) {
		rt := runtime.New()
		global := &modeCounter{safe: false}
		scoped := &modeCounter{safe: true}
		mustRegister(t, rt, modeClassified("echo", global.classify))
		dispose := mustRegister(t, rt.Scope(a), modeClassified("echo", scoped.classify))

		assert.Equal(t, runtime.Parallel, rt.ExecutionMode(call("echo", `{}`, a)))
		assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(call("echo", `{}`, nil)))
		assert.Equal(t, 1, scoped.count())
		assert.Equal(t, 1, global.count())

		dispose()
		assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(call("echo", `{}`, a)), "after disposal A sees the global tool")
		assert.Equal(t, 1, scoped.count())
		assert.Equal(t, 2, global.count())
	})

	t.Run("the shadow's parameter schema decides validity", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, modeClassified("echo", func(jsonvalue.Value) bool { return true }))
		shadow := modeClassified("echo", func(jsonvalue.Value) bool { return true })
		shadow.Parameters = schemasubset.MustParse(`{"type":"object","properties":{"x":{}},"required":["x"]}`)
		mustRegister(t, rt.Scope(a), shadow)
		assert.Equal(t, runtime.Parallel, rt.ExecutionMode(call("echo", `{}`, nil)))
		assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(call("echo", `{}`, a)))
		assert.Equal(t, runtime.Parallel, rt.ExecutionMode(call("echo", `{"x":1}`, a)))
	})
}

// modeProbe records the start and end of every body and how many run at
// once.
type modeProbe struct {
	rec     recorder
	running atomic.Int32
	peak    atomic.Int32
	// overlapped is set when an exclusive body saw another body running.
	overlapped atomic.Bool
}

func (p *modeProbe) enter(id string, exclusive bool) {
	n := p.running.Add(1)
	for {
		m := p.peak.Load()
		if n <= m || p.peak.CompareAndSwap(m, n) {
			break
		}
	}
	if exclusive && n != 1 {
		p.overlapped.Store(true)
	}
	p.rec.add("start:" + id)
}

func (p *modeProbe) leave(id string, exclusive bool) {
	p.rec.add("end:" + id)
	if exclusive && p.running.Load() != 1 {
		p.overlapped.Store(true)
	}
	p.running.Add(-1)
}

// body returns a tool body that records itself around work; the value is
// {"id":id}.
func (p *modeProbe) body(exclusive bool, work func(ctx context.Context, id string) error) func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
	return func(ctx context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		id := modeID(args)
		p.enter(id, exclusive)
		defer p.leave(id, exclusive)
		if work != nil {
			if err := work(ctx, id); err != nil {
				return nil, err
			}
		}
		return jsonvalue.Value(`{"id":` + jsonvalue.String(id).String() + `}`), nil
	}
}

func TestR38_TheBatchScheduler(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*modeWait)
	defer cancel()
	rt := runtime.New()
	p := &modeProbe{}
	barrier := modeNewBarrier(2)
	par := tool("par", p.body(false, func(ctx context.Context, id string) error {
		if id == "P3" {
			return nil
		}
		if !barrier.Wait(ctx) {
			return errors.New(id + ": P1 and P2 did not run at the same time")
		}
		if id == "P1" {
			time.Sleep(20 * time.Millisecond) // P2 finishes first
		}
		return nil
	}))
	par.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
	mustRegister(t, rt, par)
	mustRegister(t, rt, tool("excl", p.body(true, func(context.Context, string) error {
		time.Sleep(10 * time.Millisecond)
		return nil
	})))

	calls := []runtime.ExecutionInput{
		modeIn("c1", "par", `{"id":"P1"}`, nil),
		modeIn("c2", "par", `{"id":"P2"}`, nil),
		modeIn("c3", "excl", `{"id":"E"}`, nil),
		modeIn("c4", "par", `{"id":"P3"}`, nil),
	}
	modes := make([]runtime.ExecutionMode, len(calls))
	for i, in := range calls {
		modes[i] = rt.ExecutionMode(in)
	}
	require.Equal(t, []runtime.ExecutionMode{runtime.Parallel, runtime.Parallel, runtime.Exclusive, runtime.Parallel}, modes)

	results := modeBatch(t, rt, ctx, cancel, calls, runtime.BatchOptions{Width: 4})
	require.Len(t, results, len(calls))
	for i, want := range []string{"P1", "P2", "E", "P3"} {
		require.False(t, results[i].IsError(), "%s: %+v", want, results[i].Failure)
		assert.Equal(t, `{"id":"`+want+`"}`, results[i].Value.String(), "results are in input order")
	}

	ev := p.rec.list()
	require.Len(t, ev, 8, "%v", ev)
	at := func(e string) int {
		i := modeIndex(ev, e)
		require.GreaterOrEqual(t, i, 0, "missing event %s in %v", e, ev)
		return i
	}
	assert.Less(t, at("start:P1"), at("end:P2"), "P1 and P2 overlap: %v", ev)
	assert.Less(t, at("start:P2"), at("end:P1"), "P1 and P2 overlap: %v", ev)
	assert.Less(t, at("end:P2"), at("end:P1"), "P2 finished first: %v", ev)
	assert.Greater(t, at("start:E"), at("end:P1"), "E starts after P1 finished: %v", ev)
	assert.Greater(t, at("start:E"), at("end:P2"), "E starts after P2 finished: %v", ev)
	assert.Equal(t, at("start:E")+1, at("end:E"), "E runs alone: %v", ev)
	assert.Greater(t, at("start:P3"), at("end:E"), "P3 starts after E: %v", ev)
	assert.False(t, p.overlapped.Load(), "an exclusive body overlapped another: %v", ev)
}

func TestBatchEmpty(t *testing.T) {
	rt := runtime.New()
	assert.Empty(t, rt.ExecuteBatch(context.Background(), nil, runtime.BatchOptions{}))
	assert.Empty(t, rt.ExecuteBatch(context.Background(), []runtime.ExecutionInput{}, runtime.BatchOptions{Width: 3}))
}

func TestBatchRollingPoolWidth(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*modeWait)
	defer cancel()
	rt := runtime.New()
	p := &modeProbe{}
	started := make(chan string, 5)
	release := make(chan struct{}, 5)
	par := tool("par", p.body(false, func(ctx context.Context, id string) error {
		started <- id
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}))
	par.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
	mustRegister(t, rt, par)

	var calls []runtime.ExecutionInput
	for i := range 5 {
		calls = append(calls, modeIn(fmt.Sprint("c", i), "par", fmt.Sprintf(`{"id":"P%d"}`, i), nil))
	}
	done := make(chan []runtime.Result, 1)
	go func() { done <- rt.ExecuteBatch(ctx, calls, runtime.BatchOptions{Width: 2}) }()
	finish := func() []runtime.Result {
		cancel()
		return <-done
	}

	var seen []string
	expectStart := func(what string) bool {
		select {
		case id := <-started:
			seen = append(seen, id)
			return true
		case <-time.After(modeWait):
			assert.Fail(t, "no body started: "+what)
			return false
		}
	}
	expectNoStart := func(what string) bool {
		select {
		case id := <-started:
			seen = append(seen, id)
			assert.Fail(t, "a body started beyond the width: "+what, "body %s", id)
			return false
		case <-time.After(50 * time.Millisecond):
			return true
		}
	}

	ok := expectStart("first") && expectStart("second") && expectNoStart("with 2 running")
	for k := 0; ok && k < 3; k++ {
		// Releasing one body frees one slot: exactly one more starts while
		// the other keeps running (a rolling pool, not waves of 2).
		release <- struct{}{}
		ok = expectStart(fmt.Sprint("after release ", k+1)) && expectNoStart(fmt.Sprint("after release ", k+1))
	}
	if !ok {
		finish()
		t.FailNow()
	}
	release <- struct{}{}
	release <- struct{}{}
	var results []runtime.Result
	select {
	case results = <-done:
	case <-time.After(modeWait):
		finish()
		require.FailNow(t, "the batch did not finish")
	}

	assert.LessOrEqual(t, p.peak.Load(), int32(2), "never more than the width at once")
	assert.Equal(t, int32(2), p.peak.Load(), "the width is used")
	assert.ElementsMatch(t, []string{"P0", "P1", "P2", "P3", "P4"}, seen, "all five ran")
	require.Len(t, results, 5)
	for i, r := range results {
		checkInvariants(t, r)
		require.False(t, r.IsError(), "%+v", r.Failure)
		assert.Equal(t, fmt.Sprintf(`{"id":"P%d"}`, i), r.Value.String())
	}

	t.Run("default width", func(t *testing.T) {
		rt := runtime.New()
		p := &modeProbe{}
		par := tool("par", p.body(false, func(context.Context, string) error {
			time.Sleep(5 * time.Millisecond)
			return nil
		}))
		par.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
		mustRegister(t, rt, par)
		var calls []runtime.ExecutionInput
		for i := range 3 * runtime.DefaultBatchWidth {
			calls = append(calls, modeIn(fmt.Sprint(i), "par", fmt.Sprintf(`{"id":"%d"}`, i), nil))
		}
		for _, width := range []int{0, -1} {
			p.peak.Store(0)
			results := rt.ExecuteBatch(context.Background(), calls, runtime.BatchOptions{Width: width})
			require.Len(t, results, len(calls))
			assert.LessOrEqual(t, p.peak.Load(), int32(runtime.DefaultBatchWidth), "width %d", width)
			for i, r := range results {
				assert.Equal(t, fmt.Sprintf(`{"id":"%d"}`, i), r.Value.String())
			}
		}
	})
}

func TestBatchApprovalsPrecedeTheBodiesOfTheirRun(t *testing.T) {
	a, _, _ := agents()
	p := &modeProbe{}
	var busy atomic.Bool // an ask happened while a body was running
	rt := runtime.New(runtime.WithApprover(func(_ context.Context, exec runtime.Execution, reason string) runtime.Approval {
		if p.running.Load() != 0 {
			busy.Store(true)
		}
		p.rec.add("ask:" + modeID(exec.Arguments()))
		if reason != "confirm" {
			return runtime.Denied
		}
		if modeID(exec.Arguments()) == "P2" {
			return runtime.Denied
		}
		return runtime.AllowedOnce
	}))
	rt.OnPreExecute(func(_ context.Context, _ runtime.Execution, _ func() runtime.PreDecision) runtime.PreDecision {
		return runtime.Ask("confirm")
	})
	par := tool("par", p.body(false, func(context.Context, string) error {
		time.Sleep(5 * time.Millisecond)
		return nil
	}))
	par.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
	mustRegister(t, rt, par)
	mustRegister(t, rt, tool("excl", p.body(true, nil)))

	calls := []runtime.ExecutionInput{
		modeIn("c1", "par", `{"id":"P1"}`, a),
		modeIn("c2", "par", `{"id":"P2"}`, a),
		modeIn("c3", "par", `{"id":"P3"}`, a),
		modeIn("c4", "excl", `{"id":"E"}`, a),
		modeIn("c5", "par", `{"id":"P4"}`, a),
		modeIn("c6", "par", `{"id":"P5"}`, a),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*modeWait)
	defer cancel()
	results := modeBatch(t, rt, ctx, cancel, calls, runtime.BatchOptions{Width: 3})
	require.Len(t, results, len(calls))
	for i, id := range []string{"P1", "P2", "P3", "E", "P4", "P5"} {
		if id == "P2" {
			assert.Equal(t, runtime.CodeDenied, code(results[i]))
			continue
		}
		require.False(t, results[i].IsError(), "%s: %+v", id, results[i].Failure)
		assert.Equal(t, `{"id":"`+id+`"}`, results[i].Value.String())
	}

	ev := p.rec.list()
	var asks []string
	for _, e := range ev {
		if len(e) > 4 && e[:4] == "ask:" {
			asks = append(asks, e)
		}
	}
	assert.Equal(t, []string{"ask:P1", "ask:P2", "ask:P3", "ask:E", "ask:P4", "ask:P5"}, asks, "every call is asked, in order")
	assert.False(t, busy.Load(), "no approval is asked while a body runs: %v", ev)
	assert.Equal(t, -1, modeIndex(ev, "start:P2"), "the denied call never runs")

	at := func(e string) int {
		i := modeIndex(ev, e)
		require.GreaterOrEqual(t, i, 0, "missing event %s in %v", e, ev)
		return i
	}
	firstRun := max(at("ask:P1"), at("ask:P2"), at("ask:P3"))
	assert.Less(t, firstRun, min(at("start:P1"), at("start:P3")), "the first run's approvals all precede its bodies: %v", ev)
	assert.Less(t, max(at("end:P1"), at("end:P3")), at("ask:E"), "E is asked after the first run: %v", ev)
	assert.Less(t, at("ask:E"), at("start:E"))
	assert.Less(t, at("end:E"), at("ask:P4"), "the second run is asked after E: %v", ev)
	assert.Less(t, max(at("ask:P4"), at("ask:P5")), min(at("start:P4"), at("start:P5")), "the second run's approvals all precede its bodies: %v", ev)
}

func TestBatchCancellationReachesTheCalls(t *testing.T) {
	t.Run("cancelled while the bodies run", func(t *testing.T) {
		rt := runtime.New()
		started := make(chan string, 2)
		var sawCancel atomic.Int32
		par := tool("par", func(ctx context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			started <- modeID(args)
			select {
			case <-ctx.Done():
				sawCancel.Add(1)
				return args, nil // a success after cancellation becomes ABORTED
			case <-time.After(modeWait):
				return nil, errors.New("the body's context was never cancelled")
			}
		})
		par.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
		mustRegister(t, rt, par)
		var exclRan atomic.Int32
		mustRegister(t, rt, tool("excl", func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			exclRan.Add(1)
			return args, nil
		}))

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		calls := []runtime.ExecutionInput{
			modeIn("c1", "par", `{"id":"P1"}`, nil),
			modeIn("c2", "par", `{"id":"P2"}`, nil),
			modeIn("c3", "excl", `{"id":"E"}`, nil),
			modeIn("c4", "par", `{"id":"P3"}`, nil),
		}
		done := make(chan []runtime.Result, 1)
		go func() { done <- rt.ExecuteBatch(ctx, calls, runtime.BatchOptions{}) }()
		for range 2 {
			select {
			case <-started:
			case <-time.After(modeWait):
				cancel()
				<-done
				require.FailNow(t, "the parallel bodies did not start")
			}
		}
		cancel()
		var results []runtime.Result
		select {
		case results = <-done:
		case <-time.After(2 * modeWait):
			require.FailNow(t, "the batch did not return after cancellation")
		}
		require.Len(t, results, 4)
		for _, r := range results {
			checkInvariants(t, r)
		}
		assert.Equal(t, int32(2), sawCancel.Load(), "both running bodies saw the cancellation")
		assert.Equal(t, runtime.CodeAborted, code(results[0]))
		assert.Equal(t, runtime.CodeAborted, code(results[1]))
		assert.Equal(t, runtime.CodeAbortedBeforeDispatch, code(results[2]))
		assert.Equal(t, runtime.CodeAbortedBeforeDispatch, code(results[3]))
		assert.Zero(t, exclRan.Load(), "nothing is dispatched after cancellation")
		assert.Empty(t, started, "P3 never started")
	})

	t.Run("cancelled before the batch", func(t *testing.T) {
		rt := runtime.New()
		var ran atomic.Int32
		var pre atomic.Int32
		rt.OnPreExecute(func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
			pre.Add(1)
			return next()
		})
		body := func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			ran.Add(1)
			return args, nil
		}
		par := tool("par", body)
		par.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
		mustRegister(t, rt, par)
		mustRegister(t, rt, tool("excl", body))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		results := rt.ExecuteBatch(ctx, []runtime.ExecutionInput{
			modeIn("c1", "par", `{}`, nil),
			modeIn("c2", "par", `{}`, nil),
			modeIn("c3", "excl", `{}`, nil),
		}, runtime.BatchOptions{})
		require.Len(t, results, 3)
		for _, r := range results {
			checkInvariants(t, r)
			assert.Equal(t, runtime.CodeAbortedBeforeDispatch, code(r))
		}
		assert.Zero(t, ran.Load(), "no body runs")
		assert.Zero(t, pre.Load(), "no policy runs for a call cancelled before entry")
	})

	t.Run("the cause reaches the result", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, modeClassified("par", func(jsonvalue.Value) bool { return true }))
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errors.New("user pressed stop"))
		results := rt.ExecuteBatch(ctx, []runtime.ExecutionInput{modeIn("c1", "par", `{}`, nil), modeIn("c2", "par", `{}`, nil)}, runtime.BatchOptions{})
		require.Len(t, results, 2)
		for _, r := range results {
			assert.Equal(t, runtime.CodeAbortedBeforeDispatch, code(r))
			assert.Contains(t, r.Failure.Message, "user pressed stop")
		}
	})
}

func TestBatchExclusivity(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*modeWait)
	defer cancel()
	a, _, _ := agents()
	rt := runtime.New()
	p := &modeProbe{}
	hold := func(context.Context, string) error {
		time.Sleep(10 * time.Millisecond)
		return nil
	}
	par := tool("par", p.body(false, hold))
	par.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
	mustRegister(t, rt, par)
	mustRegister(t, rt, tool("excl", p.body(true, hold))) // no classifier
	unsafe := tool("unsafe", p.body(true, hold))
	unsafe.ConcurrencySafe = func(jsonvalue.Value) bool { return false }
	mustRegister(t, rt, unsafe)
	strict := tool("strict", p.body(true, hold))
	strict.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
	strict.Parameters = schemasubset.MustParse(`{"type":"object","properties":{"id":{},"ok":{}},"required":["id","ok"]}`)
	mustRegister(t, rt, strict)
	// A's shadow of par has no classifier, so A's call to it is exclusive.
	mustRegister(t, rt.Scope(a), tool("par", p.body(true, hold)))

	calls := []runtime.ExecutionInput{
		modeIn("c0", "par", `{"id":"P0"}`, nil),
		modeIn("c1", "par", `{"id":"P1"}`, nil),
		modeIn("c2", "excl", `{"id":"E1"}`, nil),
		modeIn("c3", "excl", `{"id":"E2"}`, nil),
		modeIn("c4", "par", `{"id":"P2"}`, nil),
		modeIn("c5", "unsafe", `{"id":"E3"}`, nil),
		modeIn("c6", "par", `{"id":"P3"}`, nil),
		modeIn("c7", "strict", `{"id":"E4"}`, nil), // invalid arguments: exclusive, fails INVALID_ARGS
		modeIn("c8", "nope", `{"id":"E5"}`, nil),   // unknown: exclusive, fails UNKNOWN_TOOL
		modeIn("c9", "par", `{"id":"P4"}`, nil),
		modeIn("c10", "par", `{"id":"E6"}`, a), // A's exclusive shadow
		modeIn("c11", "par", `{"id":"P5"}`, nil),
		modeIn("c12", "par", `{"id":"P6"}`, nil),
	}
	results := modeBatch(t, rt, ctx, cancel, calls, runtime.BatchOptions{})
	require.Len(t, results, len(calls))
	for i, in := range calls {
		id := modeID(jsonvalue.Value(in.Arguments))
		switch id {
		case "E4":
			assert.Equal(t, runtime.CodeInvalidArgs, code(results[i]))
		case "E5":
			assert.Equal(t, runtime.CodeUnknownTool, code(results[i]))
		default:
			require.False(t, results[i].IsError(), "%s: %+v", id, results[i].Failure)
			assert.Equal(t, `{"id":"`+id+`"}`, results[i].Value.String(), "result %d", i)
		}
	}

	ev := p.rec.list()
	assert.False(t, p.overlapped.Load(), "an exclusive body overlapped another: %v", ev)
	at := func(e string) int {
		i := modeIndex(ev, e)
		require.GreaterOrEqual(t, i, 0, "missing event %s in %v", e, ev)
		return i
	}
	// Each exclusive body runs alone, in order, as a barrier.
	for _, e := range []string{"E1", "E2", "E3", "E6"} {
		assert.Equal(t, at("start:"+e)+1, at("end:"+e), "%s runs alone: %v", e, ev)
	}
	before := func(x, y string) {
		assert.Less(t, at("end:"+x), at("start:"+y), "%s finishes before %s starts: %v", x, y, ev)
	}
	before("P0", "E1")
	before("P1", "E1")
	before("E1", "E2")
	before("E2", "P2")
	before("P2", "E3")
	before("E3", "P3")
	before("P3", "P4") // E4 and E5 are barriers even though they fail
	before("P4", "E6")
	before("E6", "P5")
	before("E6", "P6")
}
