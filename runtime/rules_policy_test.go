package runtime_test

// Rule tests R39–R74 (RULES.md §5–§8): argument materialization and
// execution identity, pre-execute and approval, guards, execute wrappers and
// context fusing. Helpers here are prefixed pol.

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

// polKey is a context key for values that wrappers and callers install.
type polKey string

// polHang bounds waits that only a broken runtime would make endless, so a
// regression fails instead of hanging the suite. It is never asserted on.
const polHang = 10 * time.Second

// polRecTool returns a tool named name whose body records "body" and
// returns its arguments, and whose FinalizeContent records "finalize".
func polRecTool(rec *recorder, name string) runtime.ToolDefinition {
	return polFinal(rec, tool(name, func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		rec.add("body")
		return args, nil
	}))
}

// polFinal adds a FinalizeContent that records "finalize" and keeps the
// content.
func polFinal(rec *recorder, def runtime.ToolDefinition) runtime.ToolDefinition {
	def.FinalizeContent = func(runtime.Execution, runtime.Result) []runtime.ContentBlock {
		rec.add("finalize")
		return nil
	}
	return def
}

// polRecordAll registers one recording hook of every kind on rt: "pre",
// "guard", "before"/"after" (a wrapper around next), "post" and "result".
func polRecordAll(rt *runtime.Runtime, rec *recorder) {
	rt.OnPreExecute(func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		rec.add("pre")
		return next()
	})
	rt.Guard(func(runtime.Execution) error {
		rec.add("guard")
		return nil
	})
	rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		rec.add("before")
		r := next(ctx)
		rec.add("after")
		return r
	})
	rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		rec.add("post")
		return next()
	})
	rt.OnResult(func(runtime.Execution, runtime.Result) { rec.add("result") })
}

// polPre is a pre-execute listener that records name and delegates.
func polPre(rec *recorder, name string) runtime.PreExecute {
	return func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		rec.add(name)
		return next()
	}
}

// polDecide is a pre-execute listener that returns d without calling next.
func polDecide(rec *recorder, name string, d runtime.PreDecision) runtime.PreExecute {
	return func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
		rec.add(name)
		return d
	}
}

// polWaitDone waits for ctx to end and reports whether it did (false means
// the hang bound passed first: the cancellation never arrived).
func polWaitDone(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	case <-time.After(polHang):
		return false
	}
}

// polExecCancel runs in on rt in its own goroutine with a cancellable
// context, cancels it as soon as started is closed, and returns the result
// with how long after the cancel Execute returned.
func polExecCancel(t *testing.T, rt *runtime.Runtime, parent context.Context, in runtime.ExecutionInput, started <-chan struct{}) (runtime.Result, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	done := make(chan runtime.Result, 1)
	go func() { done <- rt.Execute(ctx, in) }()
	select {
	case <-started:
	case res := <-done:
		t.Fatalf("Execute returned before the point of cancellation was reached: %+v", res.Failure)
	case <-time.After(polHang):
		t.Fatal("the point of cancellation was never reached")
	}
	at := time.Now()
	cancel()
	res := <-done
	elapsed := time.Since(at)
	checkInvariants(t, res)
	return res, elapsed
}

// polCloser closes ch once, however often it is called.
func polCloser(ch chan struct{}) func() {
	var o sync.Once
	return func() { o.Do(func() { close(ch) }) }
}

// ---------------------------------------------------------------------------
// §5 Argument materialization and execution identity

func TestR39_NonJSONArgumentsRejectedBeforePolicy(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 513) + `1` + strings.Repeat(`}`, 513)
	cases := []struct {
		name, args string
		message    string // a substring the message must hold
	}{
		{"duplicate names", `{"a":1,"a":2}`, ""},
		{"invalid JSON", `{"a":`, ""},
		{"invalid syntax", `{a:1}`, ""},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", ""},
		{"lone surrogate", `{"a":"\ud800"}`, ""},
		{"trailing data", `{} {}`, ""},
		{"trailing garbage", `{"a":1}x`, ""},
		{"NaN", `{"a":NaN}`, ""},
		{"too deep", deep, "512"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			rec := &recorder{}
			mustRegister(t, rt, polRecTool(rec, "echo"))
			polRecordAll(rt, rec)
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, rt, context.Background(), call("echo", tc.args, nil)) })
			assert.True(t, res.IsError())
			assert.Equal(t, runtime.CodeInvalidArgs, code(res))
			for _, e := range []string{"pre", "guard", "before", "body", "after", "post"} {
				assert.Zero(t, rec.count(e), "%s ran for non-JSON arguments: %v", e, rec.list())
			}
			if tc.message != "" {
				assert.Contains(t, res.Failure.Message, tc.message, "the message names the depth limit")
			}
		})
	}

	t.Run("at the depth limit is accepted", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		args := strings.Repeat(`{"a":`, 512) + `1` + strings.Repeat(`}`, 512)
		res := exec(t, rt, context.Background(), call("echo", args, nil))
		assert.NotEqual(t, runtime.CodeInvalidArgs, code(res), "nesting of exactly 512 is within the limit: %+v", res.Failure)
		assert.Equal(t, 1, rec.count("body"))
	})
}

func TestR40_OneLosslessMaterialization(t *testing.T) {
	const raw = ` { "n" : 12345678901234567890123, "f": 1.0 } `
	const want = `{"n":12345678901234567890123,"f":1.0}`
	rt := runtime.New(runtime.WithApprover(func(_ context.Context, e runtime.Execution, _ string) runtime.Approval {
		return runtime.AllowedOnce
	}))
	a, _, _ := agents()
	var mu sync.Mutex
	seen := map[string]string{}
	see := func(where string, v jsonvalue.Value) {
		mu.Lock()
		seen[where] = v.String()
		mu.Unlock()
	}
	def := tool("echo", func(_ context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		see("body", args)
		see("body rc", rc.Execution().Arguments())
		return args, nil
	})
	def.Output.Render = func(args, value jsonvalue.Value) ([]runtime.ContentBlock, error) {
		see("render", args)
		return renderText(args, value)
	}
	def.FinalizeContent = func(e runtime.Execution, _ runtime.Result) []runtime.ContentBlock {
		see("finalize", e.Arguments())
		return nil
	}
	mustRegister(t, rt, def)
	rt.OnPreExecute(func(_ context.Context, e runtime.Execution, _ func() runtime.PreDecision) runtime.PreDecision {
		see("pre", e.Arguments())
		return runtime.Ask("check")
	})
	rt.Guard(func(e runtime.Execution) error { see("guard", e.Arguments()); return nil })
	rt.WrapExecute(func(ctx context.Context, e runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		see("wrapper", e.Arguments())
		return next(ctx)
	})
	rt.OnPostExecute(func(_ context.Context, e runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		see("post", e.Arguments())
		return next()
	})
	rt.OnResult(func(e runtime.Execution, _ runtime.Result) { see("observer", e.Arguments()) })

	res := exec(t, rt, context.Background(), call("echo", raw, a))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, want, res.Value.String())
	for _, where := range []string{"pre", "guard", "wrapper", "body", "body rc", "render", "post", "finalize", "observer"} {
		assert.Equal(t, want, seen[where], "arguments seen by %s", where)
	}
}

func TestR41_ArgumentsSnapshottedAndFrozen(t *testing.T) {
	const orig = `{"k":"original"}`

	t.Run("caller mutates its buffer after Execute starts", func(t *testing.T) {
		rt := runtime.New()
		var got string
		mustRegister(t, rt, tool("echo", func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			got = args.String()
			return args, nil
		}))
		entered, proceed := make(chan struct{}), make(chan struct{})
		var later []string
		rt.OnPreExecute(func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
			close(entered)
			<-proceed
			return next()
		})
		rt.Guard(func(e runtime.Execution) error { later = append(later, e.Arguments().String()); return nil })
		buf := []byte(orig)
		done := make(chan runtime.Result, 1)
		in := call("echo", "", nil)
		in.Arguments = buf // the caller's own buffer, not a copy
		go func() { done <- rt.Execute(context.Background(), in) }()
		<-entered
		copy(buf, `{"k":"OVERWRITE"}`) // same length: a shared buffer would change in place
		close(proceed)
		res := <-done
		checkInvariants(t, res)
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, orig, got, "the body sees the original arguments")
		assert.Equal(t, orig, res.Value.String())
		assert.Equal(t, []string{orig}, later, "later hooks see the original arguments")
	})

	t.Run("a hook writes into the bytes it got", func(t *testing.T) {
		rt := runtime.New()
		var body, guard, post string
		mustRegister(t, rt, tool("echo", func(_ context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			body = args.String()
			// The body too may scribble on its own copy.
			for i := range args {
				args[i] = ' '
			}
			return jsonvalue.Value(`"ok"`), nil
		}))
		scribble := func(v jsonvalue.Value) {
			for i := range v {
				v[i] = 'X'
			}
		}
		rt.OnPreExecute(func(_ context.Context, e runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
			scribble(e.Arguments())
			return next()
		})
		rt.Guard(func(e runtime.Execution) error {
			guard = e.Arguments().String()
			scribble(e.Arguments())
			return nil
		})
		rt.WrapExecute(func(ctx context.Context, e runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
			scribble(e.Arguments())
			return next(ctx)
		})
		rt.OnPostExecute(func(_ context.Context, e runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			post = e.Arguments().String()
			return next()
		})
		res := exec(t, rt, context.Background(), call("echo", orig, nil))
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, orig, guard)
		assert.Equal(t, orig, body)
		assert.Equal(t, orig, post, "a body scribbling on its args changes nothing either")
	})
}

func TestR42_RegistryAssignedToken(t *testing.T) {
	a, _, _ := agents()
	var mu sync.Mutex
	var toks []runtime.Token
	var where []string
	see := func(w string, tok runtime.Token) {
		mu.Lock()
		where, toks = append(where, w), append(toks, tok)
		mu.Unlock()
	}
	rt := runtime.New(runtime.WithApprover(func(_ context.Context, e runtime.Execution, _ string) runtime.Approval {
		see("approver", e.Token())
		return runtime.AllowedOnce
	}))
	def := tool("echo", func(_ context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		see("body", rc.Execution().Token())
		return args, nil
	})
	def.FinalizeContent = func(e runtime.Execution, _ runtime.Result) []runtime.ContentBlock {
		see("finalize", e.Token())
		return nil
	}
	mustRegister(t, rt, def)
	rt.OnPreExecute(func(_ context.Context, e runtime.Execution, _ func() runtime.PreDecision) runtime.PreDecision {
		see("pre", e.Token())
		return runtime.Ask("?")
	})
	rt.Guard(func(e runtime.Execution) error { see("guard", e.Token()); return nil })
	rt.WrapExecute(func(ctx context.Context, e runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		see("wrapper", e.Token())
		return next(ctx)
	})
	rt.OnPostExecute(func(_ context.Context, e runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		see("post", e.Token())
		return next()
	})
	rt.OnResult(func(e runtime.Execution, _ runtime.Result) { see("observer", e.Token()) })

	res := exec(t, rt, context.Background(), call("echo", `{}`, a))
	require.False(t, res.IsError(), "%+v", res.Failure)
	require.Equal(t, []string{"pre", "approver", "guard", "wrapper", "body", "post", "finalize", "observer"}, where)
	first := toks[0]
	assert.False(t, first.IsZero(), "an assigned token is not the zero token")
	assert.NotEqual(t, runtime.Token{}, first)
	for i, tok := range toks {
		assert.True(t, tok == first, "%s sees the same token", where[i])
	}

	// A second execution gets a different token, even with the same input,
	// and a caller-supplied Parent is not adopted as the call's own token.
	where, toks = nil, nil
	in := call("echo", `{}`, a)
	in.Parent = first
	exec(t, rt, context.Background(), in)
	require.NotEmpty(t, toks)
	second := toks[0]
	assert.False(t, second == first, "two executions get different tokens")
	assert.False(t, second.IsZero())
	for i, tok := range toks {
		assert.True(t, tok == second, "%s sees the second token", where[i])
	}

	// ExecutionInput has no field through which a caller could choose the
	// call's own token: its only Token field is Parent.
	typ := reflect.TypeFor[runtime.ExecutionInput]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type == reflect.TypeFor[runtime.Token]() {
			assert.Equal(t, "Parent", f.Name, "the only token a caller passes is the parent's")
		}
	}
}

func TestR43_RootCallIDResolved(t *testing.T) {
	rt := runtime.New()
	var mu sync.Mutex
	roots := map[string][]string{} // call id → root ids seen
	see := func(e runtime.Execution) {
		mu.Lock()
		roots[e.CallID()] = append(roots[e.CallID()], e.RootCallID())
		mu.Unlock()
	}
	var outerTok runtime.Token
	mustRegister(t, rt, tool("outer", func(ctx context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		see(rc.Execution())
		outerTok = rc.Execution().Token()
		res := rt.Execute(ctx, runtime.ExecutionInput{
			CallID: rc.Execution().CallID() + ":code:1", RootCallID: rc.Execution().RootCallID(),
			Name: "echo", Arguments: []byte(`{}`), Parent: rc.Execution().Token(),
		})
		if res.IsError() {
			return nil, errors.New(res.Failure.Message)
		}
		return jsonvalue.Value(`"done"`), nil
	}))
	mustRegister(t, rt, tool("echo", func(_ context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		see(rc.Execution())
		return args, nil
	}))
	rt.OnPreExecute(func(_ context.Context, e runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		see(e)
		return next()
	})
	rt.OnResult(func(e runtime.Execution, _ runtime.Result) { see(e) })

	res := exec(t, rt, context.Background(), call("outer", `{}`, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	require.False(t, outerTok.IsZero())
	assert.Equal(t, []string{"c1", "c1", "c1"}, roots["c1"], "a root call's root is its own call id")
	assert.Equal(t, []string{"c1", "c1", "c1"}, roots["c1:code:1"], "a nested call's root is the propagated one")

	// An explicit RootCallID on a root call is kept as given.
	roots = map[string][]string{}
	in := call("echo", `{}`, nil)
	in.RootCallID = "r0"
	exec(t, rt, context.Background(), in)
	assert.Equal(t, []string{"r0", "r0", "r0"}, roots["c1"])
}

// polIdentity is everything identifying one execution.
type polIdentity struct {
	CallID, RootCallID, Name string
	Agent                    *runtime.Agent
	Parent, Token            runtime.Token
}

func polIdentityOf(e runtime.Execution) polIdentity {
	return polIdentity{e.CallID(), e.RootCallID(), e.Name(), e.Agent(), e.Parent(), e.Token()}
}

func TestR44_IdentityIsImmutable(t *testing.T) {
	a, _, _ := agents()
	var mu sync.Mutex
	var ids []polIdentity
	var where []string
	see := func(w string, e runtime.Execution) {
		mu.Lock()
		where, ids = append(where, w), append(ids, polIdentityOf(e))
		mu.Unlock()
	}
	rt := runtime.New(runtime.WithApprover(func(_ context.Context, e runtime.Execution, _ string) runtime.Approval {
		see("approver", e)
		return runtime.AllowedOnce
	}))
	def := tool("echo", func(_ context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		see("body", rc.Execution())
		return args, nil
	})
	def.FinalizeContent = func(e runtime.Execution, _ runtime.Result) []runtime.ContentBlock {
		see("finalize", e)
		return nil
	}
	mustRegister(t, rt, def)
	rt.OnPreExecute(func(_ context.Context, e runtime.Execution, _ func() runtime.PreDecision) runtime.PreDecision {
		see("pre", e)
		return runtime.Ask("?")
	})
	rt.Guard(func(e runtime.Execution) error { see("guard", e); return nil })
	rt.WrapExecute(func(ctx context.Context, e runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		see("outer wrapper", e)
		r := next(context.WithValue(context.Background(), polKey("k"), "v"))
		see("outer wrapper after", e)
		return r
	})
	rt.WrapExecute(func(ctx context.Context, e runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		see("inner wrapper", e)
		return next(ctx)
	})
	rt.OnPostExecute(func(_ context.Context, e runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		see("post", e)
		return next()
	})
	rt.OnResult(func(e runtime.Execution, _ runtime.Result) { see("observer", e) })

	// A parent token from an earlier execution, so every field is set.
	var parent runtime.Token
	d := rt.OnResult(func(e runtime.Execution, _ runtime.Result) { parent = e.Token() })
	exec(t, rt, context.Background(), call("echo", `{}`, a))
	d()
	require.False(t, parent.IsZero())
	mu.Lock()
	where, ids = nil, nil
	mu.Unlock()

	in := runtime.ExecutionInput{CallID: "c1:code:1", RootCallID: "c1", Name: "echo", Arguments: []byte(`{}`), Agent: a, Parent: parent}
	res := exec(t, rt, context.Background(), in)
	require.False(t, res.IsError(), "%+v", res.Failure)
	require.Equal(t, []string{"pre", "approver", "guard", "outer wrapper", "inner wrapper", "body", "outer wrapper after", "post", "finalize", "observer"}, where)
	want := polIdentity{CallID: "c1:code:1", RootCallID: "c1", Name: "echo", Agent: a, Parent: parent, Token: ids[0].Token}
	for i, id := range ids {
		assert.True(t, id == want, "%s sees %+v, want %+v", where[i], id, want)
	}

	// Execution has no exported field and no method that takes an argument:
	// nothing can set its identity.
	for _, typ := range []reflect.Type{reflect.TypeFor[runtime.Execution](), reflect.TypeFor[*runtime.Execution]()} {
		if typ.Kind() == reflect.Struct {
			for i := range typ.NumField() {
				assert.False(t, typ.Field(i).IsExported(), "Execution exports field %s", typ.Field(i).Name)
			}
		}
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			assert.Equal(t, 1, m.Type.NumIn(), "%v.%s takes arguments: a setter?", typ, m.Name)
		}
	}
}

func TestR45_ParentTokenPropagates(t *testing.T) {
	rt := runtime.New()
	var outerTok, nestedTok, nestedParent, bodyParent runtime.Token
	mustRegister(t, rt, tool("outer", func(ctx context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		outerTok = rc.Execution().Token()
		res := rt.Execute(ctx, runtime.ExecutionInput{
			CallID: "c1:code:1", RootCallID: "c1", Name: "echo", Arguments: []byte(`{}`), Parent: rc.Execution().Token(),
		})
		return jsonvalue.Value(`"` + string(res.Code()) + `"`), nil
	}))
	mustRegister(t, rt, tool("echo", func(_ context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		bodyParent = rc.Execution().Parent()
		return args, nil
	}))
	rt.OnPreExecute(func(_ context.Context, e runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		if e.Name() == "echo" {
			nestedTok, nestedParent = e.Token(), e.Parent()
		} else {
			assert.True(t, e.Parent().IsZero(), "a model-direct call has no parent")
		}
		return next()
	})

	res := exec(t, rt, context.Background(), call("outer", `{}`, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	require.Equal(t, `""`, res.Value.String(), "the nested call succeeded")
	require.False(t, outerTok.IsZero())
	assert.True(t, nestedParent == outerTok, "the nested call's parent is the outer token")
	assert.True(t, bodyParent == outerTok, "the nested body's RunContext exposes the parent too")
	assert.False(t, nestedTok == outerTok, "the nested call has its own token")
	assert.False(t, nestedTok.IsZero())
}

func TestR46_ArgumentsCannotBeRewritten(t *testing.T) {
	// No decision type carries replacement arguments.
	for _, typ := range []reflect.Type{reflect.TypeFor[runtime.PreDecision](), reflect.TypeFor[runtime.PostDecision]()} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			name := strings.ToLower(f.Name)
			assert.False(t, strings.Contains(name, "arg") || strings.Contains(name, "input") || strings.Contains(name, "param"),
				"%v has a field %s that could rewrite arguments", typ, f.Name)
			assert.NotEqual(t, reflect.TypeFor[runtime.ExecutionInput](), f.Type)
		}
	}

	// The body and the renderer see the original arguments after a
	// pre-execute allow and even after a post-execute value replacement.
	const orig = `{"q":"original"}`
	rt := runtime.New()
	var body []string
	var renders []string
	def := tool("echo", func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		body = append(body, args.String())
		return jsonvalue.Value(`{"out":1}`), nil
	})
	def.Output.Render = func(args, value jsonvalue.Value) ([]runtime.ContentBlock, error) {
		renders = append(renders, args.String())
		return renderText(args, value)
	}
	mustRegister(t, rt, def)
	rt.OnPreExecute(func(_ context.Context, _ runtime.Execution, _ func() runtime.PreDecision) runtime.PreDecision {
		return runtime.Allow()
	})
	rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
		return runtime.AcceptValue(jsonvalue.Value(`{"out":2}`))
	})
	res := exec(t, rt, context.Background(), call("echo", orig, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, `{"out":2}`, res.Value.String())
	assert.Equal(t, []string{orig}, body)
	assert.Equal(t, []string{orig, orig}, renders, "render of the body's value and of the replaced value")
}

func TestR47_UnknownToolGivesUNKNOWN_TOOL(t *testing.T) {
	a, _, c := agents()
	cases := []struct {
		name  string
		setup func(t *testing.T, rt *runtime.Runtime, rec *recorder)
		in    runtime.ExecutionInput
	}{
		{"never registered", func(*testing.T, *runtime.Runtime, *recorder) {}, call("nope", `{}`, nil)},
		{"registered for another agent", func(t *testing.T, rt *runtime.Runtime, rec *recorder) {
			mustRegister(t, rt.Scope(a), polRecTool(rec, "secret"))
		}, call("secret", `{}`, c)},
		{"registered for an agent, called without one", func(t *testing.T, rt *runtime.Runtime, rec *recorder) {
			mustRegister(t, rt.Scope(a), polRecTool(rec, "secret"))
		}, call("secret", `{}`, nil)},
		{"restricted away", func(t *testing.T, rt *runtime.Runtime, rec *recorder) {
			mustRegister(t, rt, polRecTool(rec, "echo"))
			_, err := rt.Scope(a).Restrict(runtime.Restriction{Deny: []string{"echo"}})
			require.NoError(t, err)
		}, call("echo", `{}`, a)},
		{"disposed", func(t *testing.T, rt *runtime.Runtime, rec *recorder) {
			mustRegister(t, rt, polRecTool(rec, "echo"))()
		}, call("echo", `{}`, nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			rec := &recorder{}
			tc.setup(t, rt, rec)
			var observed []runtime.ErrorCode
			rt.OnResult(func(_ runtime.Execution, r runtime.Result) { observed = append(observed, r.Code()) })
			rt.Scope(a).OnResult(func(_ runtime.Execution, r runtime.Result) { observed = append(observed, r.Code()) })
			rt.Scope(c).OnResult(func(_ runtime.Execution, r runtime.Result) { observed = append(observed, r.Code()) })
			rt.OnPreExecute(polPre(rec, "pre"))
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, rt, context.Background(), tc.in) })
			assert.True(t, res.IsError())
			assert.Equal(t, runtime.CodeUnknownTool, code(res))
			assert.Nil(t, res.Value)
			assert.Zero(t, rec.count("body"), "the body does not run")
			assert.Zero(t, rec.count("finalize"), "an unknown tool has no definition to finalize")
			assert.Zero(t, rec.count("pre"), "UNKNOWN_TOOL is resolved before pre-execute (DESIGN §4)")
			want := 1 // the global observer
			if tc.in.Agent != nil {
				want++ // and the caller's own
			}
			assert.Len(t, observed, want, "the observers see the failure: the turn goes on")
			for _, oc := range observed {
				assert.Equal(t, runtime.CodeUnknownTool, oc)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// §6 Pre-execute, ask and approval

func TestR48_PreExecuteWaterfallDefaultsToAllow(t *testing.T) {
	t.Run("no listeners", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, 1, rec.count("body"))
	})

	t.Run("three delegating listeners", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		var innermost runtime.PreDecision
		for _, n := range []string{"L1", "L2", "L3"} {
			rt.OnPreExecute(func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
				rec.add(n)
				d := next()
				if n == "L3" {
					innermost = d
				}
				rec.add(n + " done")
				return d
			})
		}
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, []string{"L1", "L2", "L3", "L3 done", "L2 done", "L1 done", "body", "finalize"}, rec.list(),
			"listeners registered earlier are outside those registered later")
		assert.Equal(t, runtime.PreAllow, innermost.Kind, "the innermost default is allow")
	})
}

func TestR49_PreExecuteShortCircuit(t *testing.T) {
	cases := []struct {
		name    string
		d       runtime.PreDecision
		success bool
	}{
		{"allow", runtime.Allow(), true},
		{"deny", runtime.Deny("stop"), false},
		{"ask without approver", runtime.Ask("stop"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			rec := &recorder{}
			mustRegister(t, rt, polRecTool(rec, "echo"))
			rt.OnPreExecute(polDecide(rec, "L1", tc.d))
			rt.OnPreExecute(polPre(rec, "L2"))
			rt.Guard(func(runtime.Execution) error { rec.add("guard"); return nil })
			res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
			assert.Zero(t, rec.count("L2"), "the inner listener never runs")
			assert.Equal(t, tc.success, !res.IsError(), "%+v", res.Failure)
			if tc.success {
				assert.Equal(t, []string{"L1", "guard", "body", "finalize"}, rec.list(), "guards still apply")
			} else {
				assert.Equal(t, runtime.CodeDenied, code(res))
				assert.Zero(t, rec.count("body"))
			}
		})
	}
}

func TestR50_PreExecuteIsNotMonotonic(t *testing.T) {
	cases := []struct {
		name           string
		outer, inner   runtime.PreDecision
		success        bool
		innerSeenKinds runtime.PreKind
	}{
		{"outer allow overrides inner deny", runtime.Allow(), runtime.Deny("inner says no"), true, runtime.PreDeny},
		{"outer allow overrides inner ask", runtime.Allow(), runtime.Ask("inner asks"), true, runtime.PreAsk},
		{"outer deny overrides inner allow", runtime.Deny("outer says no"), runtime.Allow(), false, runtime.PreAllow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			rec := &recorder{}
			mustRegister(t, rt, polRecTool(rec, "echo"))
			var got runtime.PreDecision
			rt.OnPreExecute(func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
				got = next()
				return tc.outer
			})
			rt.OnPreExecute(polDecide(rec, "L2", tc.inner))
			res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
			assert.Equal(t, tc.innerSeenKinds, got.Kind, "L1 got L2's decision from next")
			assert.Equal(t, tc.success, !res.IsError(), "%+v", res.Failure)
			if tc.success {
				assert.Equal(t, 1, rec.count("body"))
			} else {
				assert.Contains(t, res.Failure.Message, "outer says no")
				assert.Zero(t, rec.count("body"))
			}
		})
	}
}

func TestR51_PreExecuteDeny(t *testing.T) {
	rt := runtime.New()
	rec := &recorder{}
	var finalized runtime.Result
	def := polRecTool(rec, "echo")
	def.FinalizeContent = func(_ runtime.Execution, r runtime.Result) []runtime.ContentBlock {
		rec.add("finalize")
		finalized = r
		return nil
	}
	mustRegister(t, rt, def)
	rt.OnPreExecute(func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
		rec.add("pre")
		return runtime.Deny("no-entry-for-you")
	})
	rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		rec.add("wrapper")
		return next(ctx)
	})
	rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		rec.add("post")
		return next()
	})
	var observed runtime.Result
	rt.OnResult(func(_ runtime.Execution, r runtime.Result) { rec.add("result"); observed = r })

	res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
	assert.True(t, res.IsError())
	assert.Equal(t, runtime.CodeDenied, code(res))
	assert.Contains(t, res.Failure.Message, "no-entry-for-you")
	assert.Equal(t, []string{"pre", "finalize", "result"}, rec.list())
	assert.Equal(t, runtime.CodeDenied, finalized.Code(), "finalize sees the failure")
	assert.Equal(t, res, observed, "observers see the same failure")

	t.Run("an unknown decision kind denies", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		rt.OnPreExecute(polDecide(rec, "pre", runtime.PreDecision{Kind: 42, Reason: "odd"}))
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.Equal(t, runtime.CodeDenied, code(res), "an unknown kind fails closed")
		assert.Zero(t, rec.count("body"))
	})

	t.Run("empty reason gets a default", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		rt.OnPreExecute(polDecide(&recorder{}, "pre", runtime.Deny("  ")))
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.Equal(t, runtime.CodeDenied, code(res))
		assert.NotEmpty(t, strings.TrimSpace(res.Failure.Message))
	})
}

func TestR52_AskApprovedOnlyByAllowedOnce(t *testing.T) {
	a, _, _ := agents()
	type asked struct {
		id     polIdentity
		reason string
		value  any
	}
	var got []asked
	rec := &recorder{}
	rt := runtime.New(runtime.WithApprover(func(ctx context.Context, e runtime.Execution, reason string) runtime.Approval {
		rec.add("approver")
		got = append(got, asked{polIdentityOf(e), reason, ctx.Value(polKey("caller"))})
		return runtime.AllowedOnce
	}))
	mustRegister(t, rt, polRecTool(rec, "echo"))
	var preID polIdentity
	rt.OnPreExecute(func(_ context.Context, e runtime.Execution, _ func() runtime.PreDecision) runtime.PreDecision {
		rec.add("pre")
		preID = polIdentityOf(e)
		return runtime.Ask("may I write /etc?")
	})
	rt.Guard(func(runtime.Execution) error { rec.add("guard"); return nil })
	ctx := context.WithValue(context.Background(), polKey("caller"), "yes")
	res := exec(t, rt, ctx, call("echo", `{"x":1}`, a))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, `{"x":1}`, res.Value.String())
	assert.Equal(t, []string{"pre", "approver", "guard", "body", "finalize"}, rec.list(), "approval, then guards, then the body")
	require.Len(t, got, 1)
	assert.Equal(t, preID, got[0].id, "the approver receives the call")
	assert.Equal(t, a, got[0].id.Agent)
	assert.Equal(t, "may I write /etc?", got[0].reason, "the approver receives the ask reason")
	assert.Equal(t, "yes", got[0].value, "the approver gets the caller's context")
}

func TestR53_AskAnyOtherAnswerDenies(t *testing.T) {
	a, _, _ := agents()
	for _, answer := range []runtime.Approval{runtime.Denied, "allowed-always", "always", "", "ALLOWED-ONCE", "allowed-once ", "allowed"} {
		t.Run(string(answer), func(t *testing.T) {
			rec := &recorder{}
			rt := runtime.New(runtime.WithApprover(func(context.Context, runtime.Execution, string) runtime.Approval {
				rec.add("approver")
				return answer
			}))
			mustRegister(t, rt, polRecTool(rec, "echo"))
			rt.OnPreExecute(polDecide(rec, "pre", runtime.Ask("reason")))
			res := exec(t, rt, context.Background(), call("echo", `{}`, a))
			assert.True(t, res.IsError())
			assert.Equal(t, runtime.CodeDenied, code(res))
			assert.Equal(t, 1, rec.count("approver"))
			assert.Zero(t, rec.count("body"))
			assert.Equal(t, 1, rec.count("finalize"))
		})
	}

	t.Run("panicking approver", func(t *testing.T) {
		rec := &recorder{}
		var reported []error
		rt := runtime.New(runtime.WithApprover(func(context.Context, runtime.Execution, string) runtime.Approval {
			panic("approval service down")
		}), runtime.WithErrorHandler(func(err error) { reported = append(reported, err) }))
		mustRegister(t, rt, polRecTool(rec, "echo"))
		rt.OnPreExecute(polDecide(rec, "pre", runtime.Ask("reason")))
		var res runtime.Result
		require.NotPanics(t, func() { res = exec(t, rt, context.Background(), call("echo", `{}`, a)) })
		assert.True(t, res.IsError())
		assert.Zero(t, rec.count("body"))
	})
}

func TestR54_AskWithNoApproverDenies(t *testing.T) {
	a, _, _ := agents()
	rt := runtime.New()
	rec := &recorder{}
	mustRegister(t, rt, polRecTool(rec, "echo"))
	rt.OnPreExecute(polDecide(rec, "pre", runtime.Ask("please")))
	res := exec(t, rt, context.Background(), call("echo", `{}`, a))
	assert.True(t, res.IsError())
	assert.Equal(t, runtime.CodeDenied, code(res))
	assert.Zero(t, rec.count("body"))
}

func TestR55_AgentlessAskDenied(t *testing.T) {
	var asked atomic.Int32
	rt := runtime.New(runtime.WithApprover(func(context.Context, runtime.Execution, string) runtime.Approval {
		asked.Add(1)
		return runtime.AllowedOnce
	}))
	rec := &recorder{}
	mustRegister(t, rt, polRecTool(rec, "echo"))
	rt.OnPreExecute(polDecide(rec, "pre", runtime.Ask("please")))
	res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
	assert.True(t, res.IsError())
	assert.Equal(t, runtime.CodeDenied, code(res))
	assert.Zero(t, asked.Load(), "the approver is not consulted for an agent-less call")
	assert.Zero(t, rec.count("body"))

	// Control: the same approver is consulted for a call with an agent.
	a, _, _ := agents()
	res = exec(t, rt, context.Background(), call("echo", `{}`, a))
	assert.False(t, res.IsError(), "%+v", res.Failure)
	assert.EqualValues(t, 1, asked.Load())
}

func TestR56_PreExecuteListenerPanics(t *testing.T) {
	cases := []struct {
		name   string
		listen func(rec *recorder) []runtime.PreExecute
	}{
		{"string panic", func(*recorder) []runtime.PreExecute {
			return []runtime.PreExecute{func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
				panic("listener exploded")
			}}
		}},
		{"error panic", func(*recorder) []runtime.PreExecute {
			return []runtime.PreExecute{func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
				panic(errBoom)
			}}
		}},
		{"inner listener panics under a delegating one", func(rec *recorder) []runtime.PreExecute {
			return []runtime.PreExecute{polPre(rec, "outer"), func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
				panic("inner exploded")
			}}
		}},
		{"panic after an inner allow", func(*recorder) []runtime.PreExecute {
			return []runtime.PreExecute{func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
				next()
				panic("late explosion")
			}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			rec := &recorder{}
			mustRegister(t, rt, polRecTool(rec, "echo"))
			for _, l := range tc.listen(rec) {
				rt.OnPreExecute(l)
			}
			var observed []runtime.Result
			rt.OnResult(func(_ runtime.Execution, r runtime.Result) { observed = append(observed, r) })
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, rt, context.Background(), call("echo", `{}`, nil)) })
			assert.True(t, res.IsError())
			assert.Equal(t, runtime.CodeHookPanic, code(res))
			assert.Zero(t, rec.count("body"))
			assert.Equal(t, 1, rec.count("finalize"))
			require.Len(t, observed, 1)
			assert.Equal(t, res, observed[0])
		})
	}
}

func TestR57_CancelDuringGateGivesABORTED_BEFORE_DISPATCH(t *testing.T) {
	a, _, _ := agents()
	cases := []struct {
		name  string
		setup func(rt **runtime.Runtime, rec *recorder, started func())
	}{
		{"pre-execute listener", func(rt **runtime.Runtime, rec *recorder, started func()) {
			*rt = runtime.New()
			(*rt).OnPreExecute(func(ctx context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
				started()
				if !polWaitDone(ctx) {
					rec.add("not cancelled")
				}
				return runtime.Allow()
			})
		}},
		{"approver", func(rt **runtime.Runtime, rec *recorder, started func()) {
			*rt = runtime.New(runtime.WithApprover(func(ctx context.Context, _ runtime.Execution, _ string) runtime.Approval {
				started()
				if !polWaitDone(ctx) {
					rec.add("not cancelled")
				}
				return runtime.AllowedOnce
			}))
			(*rt).OnPreExecute(polDecide(rec, "pre", runtime.Ask("wait")))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			var rt *runtime.Runtime
			startedCh := make(chan struct{})
			tc.setup(&rt, rec, polCloser(startedCh))
			mustRegister(t, rt, polRecTool(rec, "echo"))
			rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
				rec.add("wrapper")
				return next(ctx)
			})
			res, _ := polExecCancel(t, rt, context.Background(), call("echo", `{}`, a), startedCh)
			assert.Zero(t, rec.count("not cancelled"), "the gate saw the cancellation")
			assert.Equal(t, runtime.CodeAbortedBeforeDispatch, code(res))
			assert.Zero(t, rec.count("wrapper"), "no wrapper runs")
			assert.Zero(t, rec.count("body"), "the body does not run")
			assert.Equal(t, 1, rec.count("finalize"))
		})
	}
}

func TestR58_GatesAreNeverAbandoned(t *testing.T) {
	a, _, _ := agents()
	const linger = 100 * time.Millisecond
	cases := []struct {
		name  string
		setup func(gate func(ctx context.Context)) *runtime.Runtime
	}{
		{"pre-execute listener", func(gate func(context.Context)) *runtime.Runtime {
			rt := runtime.New()
			rt.OnPreExecute(func(ctx context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
				gate(ctx)
				return next()
			})
			return rt
		}},
		{"approver", func(gate func(context.Context)) *runtime.Runtime {
			rt := runtime.New(runtime.WithApprover(func(ctx context.Context, _ runtime.Execution, _ string) runtime.Approval {
				gate(ctx)
				return runtime.AllowedOnce
			}))
			rt.OnPreExecute(polDecide(&recorder{}, "pre", runtime.Ask("wait")))
			return rt
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			startedCh := make(chan struct{})
			started := polCloser(startedCh)
			var gateReturned atomic.Bool
			rt := tc.setup(func(ctx context.Context) {
				started()
				polWaitDone(ctx)
				time.Sleep(linger)
				gateReturned.Store(true)
			})
			rec := &recorder{}
			mustRegister(t, rt, polRecTool(rec, "echo"))
			res, elapsed := polExecCancel(t, rt, context.Background(), call("echo", `{}`, a), startedCh)
			assert.True(t, gateReturned.Load(), "Execute returned while the gate was still running")
			assert.GreaterOrEqual(t, elapsed, linger, "Execute returns only after the gate settles")
			assert.Equal(t, runtime.CodeAbortedBeforeDispatch, code(res))
			assert.Zero(t, rec.count("body"))
		})
	}
}

// ---------------------------------------------------------------------------
// §7 Guards

func TestR59_GuardsRunAfterPreExecuteBeforeDispatch(t *testing.T) {
	a, _, _ := agents()
	t.Run("pre-execute allows, guard denies", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		rt.Guard(func(runtime.Execution) error { rec.add("guard"); return errors.New("nope") })
		rt.OnPreExecute(polPre(rec, "pre1")) // registered after the guard, still before it
		rt.OnPreExecute(polDecide(rec, "pre2", runtime.Allow()))
		rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
			rec.add("wrapper")
			return next(ctx)
		})
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.True(t, res.IsError())
		assert.Equal(t, runtime.CodeDenied, code(res))
		assert.Contains(t, res.Failure.Message, "nope")
		assert.Equal(t, []string{"pre1", "pre2", "guard", "finalize"}, rec.list())
	})

	t.Run("ask approved, guard denies", func(t *testing.T) {
		rec := &recorder{}
		rt := runtime.New(runtime.WithApprover(func(context.Context, runtime.Execution, string) runtime.Approval {
			rec.add("approver")
			return runtime.AllowedOnce
		}))
		mustRegister(t, rt, polRecTool(rec, "echo"))
		rt.OnPreExecute(polDecide(rec, "pre", runtime.Ask("?")))
		rt.Guard(func(runtime.Execution) error { rec.add("guard"); return errors.New("final denial") })
		res := exec(t, rt, context.Background(), call("echo", `{}`, a))
		assert.Equal(t, runtime.CodeDenied, code(res))
		assert.Contains(t, res.Failure.Message, "final denial")
		assert.Equal(t, []string{"pre", "approver", "guard", "finalize"}, rec.list())
	})

	t.Run("empty message denies with a default reason", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		rt.Guard(func(runtime.Execution) error { return errors.New("") })
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.Equal(t, runtime.CodeDenied, code(res))
		assert.NotEmpty(t, strings.TrimSpace(res.Failure.Message))
		assert.Zero(t, rec.count("body"))
	})

	t.Run("nil leaves the call alone", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		rt.Guard(func(runtime.Execution) error { rec.add("guard"); return nil })
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, []string{"guard", "body", "finalize"}, rec.list())
	})
}

func TestR60_GuardsAreMonotonic(t *testing.T) {
	pass := func(runtime.Execution) error { return nil }
	deny := func(runtime.Execution) error { return errors.New("x-denied") }
	a, _, _ := agents()
	cases := []struct {
		name   string
		guards []func(rt *runtime.Runtime)
	}{
		{"pass then deny", []func(*runtime.Runtime){
			func(rt *runtime.Runtime) { rt.Guard(pass) }, func(rt *runtime.Runtime) { rt.Guard(deny) }}},
		{"deny then pass", []func(*runtime.Runtime){
			func(rt *runtime.Runtime) { rt.Guard(deny) }, func(rt *runtime.Runtime) { rt.Guard(pass) }}},
		{"scoped pass, global deny", []func(*runtime.Runtime){
			func(rt *runtime.Runtime) { rt.Scope(a).Guard(pass) }, func(rt *runtime.Runtime) { rt.Guard(deny) }}},
		{"global pass, scoped deny", []func(*runtime.Runtime){
			func(rt *runtime.Runtime) { rt.Guard(pass) }, func(rt *runtime.Runtime) { rt.Scope(a).Guard(deny) }}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			rec := &recorder{}
			mustRegister(t, rt, polRecTool(rec, "echo"))
			for _, g := range tc.guards {
				g(rt)
			}
			// A pre-execute listener that allows, registered last, cannot
			// override a guard either.
			rt.OnPreExecute(polDecide(rec, "pre", runtime.Allow()))
			res := exec(t, rt, context.Background(), call("echo", `{}`, a))
			assert.Equal(t, runtime.CodeDenied, code(res))
			assert.Contains(t, res.Failure.Message, "x-denied")
			assert.Zero(t, rec.count("body"))
		})
	}

	t.Run("a passing guard does not revive a pre-execute deny", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		rt.OnPreExecute(polDecide(rec, "pre", runtime.Deny("pre-reason")))
		rt.Guard(pass)
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.Equal(t, runtime.CodeDenied, code(res))
		assert.Contains(t, res.Failure.Message, "pre-reason")
		assert.Zero(t, rec.count("body"))
	})
}

func TestR61_GuardScoping(t *testing.T) {
	a, b, c := agents()
	callers := []struct {
		name  string
		agent *runtime.Agent
	}{{"A", a}, {"B (child of A)", b}, {"C", c}, {"no agent", nil}}

	t.Run("guard through A", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		rt.Scope(a).Guard(func(runtime.Execution) error { return errors.New("A's guard") })
		for _, cl := range callers {
			res := exec(t, rt, context.Background(), call("echo", `{}`, cl.agent))
			if cl.agent == a {
				assert.Equal(t, runtime.CodeDenied, code(res), cl.name)
			} else {
				assert.False(t, res.IsError(), "%s: %+v", cl.name, res.Failure)
			}
		}
	})

	t.Run("global guard", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		rt.Guard(func(runtime.Execution) error { return errors.New("global guard") })
		for _, cl := range callers {
			res := exec(t, rt, context.Background(), call("echo", `{}`, cl.agent))
			assert.Equal(t, runtime.CodeDenied, code(res), cl.name)
		}
	})
}

func TestR62_GuardDisposer(t *testing.T) {
	rt := runtime.New()
	mustRegister(t, rt, echo())
	d1 := rt.Guard(func(runtime.Execution) error { return errors.New("one") })
	res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
	require.Equal(t, runtime.CodeDenied, code(res))
	d1()
	res = exec(t, rt, context.Background(), call("echo", `{}`, nil))
	assert.False(t, res.IsError(), "the disposed guard no longer denies: %+v", res.Failure)

	two := func(runtime.Execution) error { return errors.New("two") }
	d2 := rt.Guard(two)
	rt.Guard(two) // the same function twice: two registrations
	d1()          // disposing again removes nothing else
	res = exec(t, rt, context.Background(), call("echo", `{}`, nil))
	assert.Equal(t, runtime.CodeDenied, code(res))
	d2()
	d2()
	res = exec(t, rt, context.Background(), call("echo", `{}`, nil))
	assert.Equal(t, runtime.CodeDenied, code(res), "disposing d2 twice removes exactly one registration")
	assert.Contains(t, res.Failure.Message, "two")
}

func TestR63_GuardReadOnlyViewAndPanicDenies(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    any
	}{{"string", "guard exploded"}, {"error", errBoom}, {"nil", nil}} {
		t.Run("panic "+tc.name, func(t *testing.T) {
			rt := runtime.New()
			rec := &recorder{}
			mustRegister(t, rt, polRecTool(rec, "echo"))
			rt.Guard(func(runtime.Execution) error { panic(tc.p) })
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, rt, context.Background(), call("echo", `{}`, nil)) })
			assert.True(t, res.IsError(), "a panicking guard fails closed")
			assert.Equal(t, runtime.CodeHookPanic, code(res))
			assert.Zero(t, rec.count("body"))
			assert.Equal(t, 1, rec.count("finalize"))
		})
	}

	t.Run("read-only view", func(t *testing.T) {
		rt := runtime.New()
		var body string
		mustRegister(t, rt, tool("echo", func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			body = args.String()
			return args, nil
		}))
		rt.Guard(func(e runtime.Execution) error {
			v := e.Arguments()
			for i := range v {
				v[i] = '!'
			}
			return nil
		})
		res := exec(t, rt, context.Background(), call("echo", `{"a":"b"}`, nil))
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, `{"a":"b"}`, body)
	})
}

// ---------------------------------------------------------------------------
// §8 Execute wrappers and context fusing

func TestR64_WrappersGoAroundDispatch(t *testing.T) {
	t.Run("order", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		polRecordAll(rt, rec)
		rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
			rec.add("inner before")
			r := next(ctx)
			rec.add("inner after")
			return r
		})
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, []string{"pre", "guard", "before", "inner before", "body", "inner after", "after", "post", "finalize", "result"}, rec.list())
	})

	bodies := []struct {
		name  string
		body  func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error)
		check func(t *testing.T, r runtime.Result)
	}{
		{"success is canonical and rendered", func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
			return jsonvalue.Value(` { "x" : 1 } `), nil
		}, func(t *testing.T, r runtime.Result) {
			require.False(t, r.IsError(), "%+v", r.Failure)
			assert.Equal(t, `{"x":1}`, r.Value.String())
			assert.Equal(t, []runtime.ContentBlock{runtime.Text(`{"x":1}`)}, r.Content)
		}},
		{"error is a failure", func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
			return nil, errBoom
		}, func(t *testing.T, r runtime.Result) {
			assert.Equal(t, runtime.CodeToolError, r.Code())
			assert.Nil(t, r.Value)
		}},
		{"panic is a failure", func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
			panic("kaboom")
		}, func(t *testing.T, r runtime.Result) {
			assert.Equal(t, runtime.CodeToolPanic, r.Code())
			assert.Nil(t, r.Value)
		}},
		{"invalid output is a failure", func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
			return jsonvalue.Value(`{bad`), nil
		}, func(t *testing.T, r runtime.Result) {
			assert.Equal(t, runtime.CodeInvalidToolOutput, r.Code())
			assert.Nil(t, r.Value)
		}},
	}
	for _, tc := range bodies {
		t.Run("next returns the normalized result: "+tc.name, func(t *testing.T) {
			rt := runtime.New()
			mustRegister(t, rt, tool("t", tc.body))
			var inner runtime.Result
			rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
				inner = next(ctx)
				return inner
			})
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, rt, context.Background(), call("t", `{}`, nil)) })
			checkInvariants(t, inner)
			tc.check(t, inner)
			assert.Equal(t, inner, res, "returned as is, it is the final result")
		})
	}

	t.Run("the wrapper may replace the result", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
			if r := next(ctx); r.IsError() {
				return r
			}
			return runtime.Success(jsonvalue.Value(`"replaced"`), []runtime.ContentBlock{runtime.Text("replaced")})
		})
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, `"replaced"`, res.Value.String())
		assert.Equal(t, []runtime.ContentBlock{runtime.Text("replaced")}, res.Content)
		assert.Equal(t, 1, rec.count("body"))
	})
}

func TestR65_ReplacedContextFlowsInward(t *testing.T) {
	rt := runtime.New()
	type seen struct {
		v1, v2   any
		deadline time.Time
		ok       bool
	}
	var inner, body seen
	var want time.Time
	mustRegister(t, rt, tool("echo", func(ctx context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		d, ok := ctx.Deadline()
		body = seen{ctx.Value(polKey("outer")), ctx.Value(polKey("inner")), d, ok}
		return args, nil
	}))
	rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		wctx, cancel := context.WithTimeout(context.WithValue(ctx, polKey("outer"), "v"), 50*time.Millisecond)
		defer cancel()
		want, _ = wctx.Deadline()
		return next(wctx)
	})
	rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		d, ok := ctx.Deadline()
		inner = seen{ctx.Value(polKey("outer")), nil, d, ok}
		return next(context.WithValue(ctx, polKey("inner"), "w"))
	})
	res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, "v", inner.v1, "the inner wrapper sees the outer wrapper's value")
	assert.True(t, inner.ok, "the inner wrapper sees the deadline")
	assert.True(t, inner.deadline.Equal(want))
	assert.Equal(t, "v", body.v1, "the body sees the outer wrapper's value")
	assert.Equal(t, "w", body.v2, "the body sees the inner wrapper's value")
	assert.True(t, body.ok, "the body sees the deadline")
	assert.True(t, body.deadline.Equal(want), "the body's deadline is the wrapper's: %v vs %v", body.deadline, want)
}

// polCancelledBody returns a body that closes started, waits for its ctx to
// end and returns a value, recording on rec whether the cancellation
// arrived ("cancelled") or not ("not cancelled").
func polCancelledBody(rec *recorder, started func()) func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
	return func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		rec.add("body")
		if ctx == nil {
			rec.add("nil ctx")
			started()
			return jsonvalue.Value(`"nil"`), nil
		}
		started()
		if polWaitDone(ctx) {
			rec.add("cancelled")
		} else {
			rec.add("not cancelled")
		}
		return jsonvalue.Value(`"returned"`), nil
	}
}

func TestR66_CallerContextFusedBeforeBody(t *testing.T) {
	cases := []struct {
		name    string
		replace func(t *testing.T, ctx context.Context) context.Context
	}{
		{"context.Background()", func(*testing.T, context.Context) context.Context { return context.Background() }},
		{"context.TODO()", func(*testing.T, context.Context) context.Context { return context.TODO() }},
		{"context.WithoutCancel", func(_ *testing.T, ctx context.Context) context.Context { return context.WithoutCancel(ctx) }},
		{"a fresh cancellable context", func(t *testing.T, _ context.Context) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel) // cancelled only after the test
			return ctx
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			rec := &recorder{}
			startedCh := make(chan struct{})
			mustRegister(t, rt, tool("wait", polCancelledBody(rec, polCloser(startedCh))))
			rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
				return next(tc.replace(t, ctx))
			})
			res, _ := polExecCancel(t, rt, context.Background(), call("wait", `{}`, nil), startedCh)
			assert.Equal(t, []string{"body", "cancelled"}, rec.list(), "caller cancellation reaches the body")
			assert.Equal(t, runtime.CodeAborted, code(res), "the body ran and the caller cancelled")
		})
	}
}

func TestPolicy_BackgroundWrapperStillCancelledByCaller(t *testing.T) {
	background := func(_ context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		return next(context.Background())
	}

	t.Run("cancel while the body runs", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		startedCh := make(chan struct{})
		mustRegister(t, rt, tool("wait", polCancelledBody(rec, polCloser(startedCh))))
		rt.WrapExecute(background)
		res, _ := polExecCancel(t, rt, context.Background(), call("wait", `{}`, nil), startedCh)
		assert.Equal(t, []string{"body", "cancelled"}, rec.list())
		assert.Equal(t, runtime.CodeAborted, code(res))
	})

	t.Run("two wrappers both swap in Background", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		startedCh := make(chan struct{})
		mustRegister(t, rt, tool("wait", polCancelledBody(rec, polCloser(startedCh))))
		rt.WrapExecute(background)
		rt.WrapExecute(background)
		res, _ := polExecCancel(t, rt, context.Background(), call("wait", `{}`, nil), startedCh)
		assert.Equal(t, []string{"body", "cancelled"}, rec.list())
		assert.Equal(t, runtime.CodeAborted, code(res))
	})

	t.Run("a body goroutine on the swapped context is cancelled too", func(t *testing.T) {
		rt := runtime.New()
		startedCh := make(chan struct{})
		started := polCloser(startedCh)
		var workerCancelled atomic.Bool
		mustRegister(t, rt, tool("wait", func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			var wg sync.WaitGroup
			wg.Go(func() { workerCancelled.Store(polWaitDone(ctx)) })
			started()
			wg.Wait()
			return jsonvalue.Value(`1`), nil
		}))
		rt.WrapExecute(background)
		res, _ := polExecCancel(t, rt, context.Background(), call("wait", `{}`, nil), startedCh)
		assert.True(t, workerCancelled.Load())
		assert.Equal(t, runtime.CodeAborted, code(res))
	})

	t.Run("cancel before the wrapper calls next", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		startedCh := make(chan struct{})
		started := polCloser(startedCh)
		rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
			started()
			polWaitDone(ctx)
			return next(context.Background())
		})
		res, _ := polExecCancel(t, rt, context.Background(), call("echo", `{}`, nil), startedCh)
		assert.Zero(t, rec.count("body"), "the body is not started after the caller cancelled")
		assert.Equal(t, runtime.CodeAbortedBeforeDispatch, code(res))
	})
}

func TestR67_WrapperCannotRemoveContext(t *testing.T) {
	rt := runtime.New()
	rec := &recorder{}
	startedCh := make(chan struct{})
	mustRegister(t, rt, tool("wait", polCancelledBody(rec, polCloser(startedCh))))
	var innerNil atomic.Bool
	rt.WrapExecute(func(_ context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		return next(nil) //nolint:staticcheck // the point of the test
	})
	rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		innerNil.Store(ctx == nil)
		return next(nil) //nolint:staticcheck // the point of the test
	})
	var res runtime.Result
	require.NotPanics(t, func() {
		res, _ = polExecCancel(t, rt, context.Background(), call("wait", `{}`, nil), startedCh)
	})
	assert.False(t, innerNil.Load(), "the inner wrapper gets a live ctx")
	assert.Equal(t, []string{"body", "cancelled"}, rec.list(), "the body has a live ctx tied to the caller")
	assert.Equal(t, runtime.CodeAborted, code(res))
}

// TestPolicy_NilContextMeansWrapperContext checks the Wrapper doc: "next
// runs the rest of the chain with the given context (nil means ctx)", where
// ctx is the wrapper's own: an inner wrapper passing nil keeps what the
// outer wrapper installed.
func TestPolicy_NilContextMeansWrapperContext(t *testing.T) {
	rt := runtime.New()
	var got any
	var hasDeadline bool
	mustRegister(t, rt, tool("echo", func(ctx context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		got = ctx.Value(polKey("outer"))
		_, hasDeadline = ctx.Deadline()
		return args, nil
	}))
	rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		wctx, cancel := context.WithTimeout(context.WithValue(ctx, polKey("outer"), "v"), time.Hour)
		defer cancel()
		return next(wctx)
	})
	rt.WrapExecute(func(_ context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		return next(nil) //nolint:staticcheck // nil means "my ctx"
	})
	res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, "v", got, "nil keeps the ctx the inner wrapper received, with the outer wrapper's value")
	assert.True(t, hasDeadline, "nil keeps the outer wrapper's deadline")
}

func TestR68_ReplacementLastsOnlyForDelegation(t *testing.T) {
	a, _, _ := agents()
	rt := runtime.New(runtime.WithApprover(func(ctx context.Context, _ runtime.Execution, _ string) runtime.Approval {
		return runtime.AllowedOnce
	}))
	var mu sync.Mutex
	seen := map[string][2]any{} // where → {wrapper value, caller value}
	see := func(where string, ctx context.Context) {
		mu.Lock()
		seen[where] = [2]any{ctx.Value(polKey("wrapper")), ctx.Value(polKey("caller"))}
		mu.Unlock()
	}
	var bodyTok, afterTok runtime.Token
	def := tool("echo", func(ctx context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		see("body", ctx)
		bodyTok = rc.Execution().Token()
		return args, nil
	})
	def.FinalizeContent = func(e runtime.Execution, _ runtime.Result) []runtime.ContentBlock {
		mu.Lock()
		afterTok = e.Token()
		mu.Unlock()
		return nil
	}
	mustRegister(t, rt, def)
	rt.OnPreExecute(func(ctx context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		see("pre", ctx)
		return next()
	})
	rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		r := next(context.WithValue(ctx, polKey("wrapper"), "w"))
		see("wrapper after next", ctx)
		return r
	})
	rt.OnPostExecute(func(ctx context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		see("post", ctx)
		return next()
	})
	var obsTok runtime.Token
	rt.OnResult(func(e runtime.Execution, _ runtime.Result) { obsTok = e.Token() })

	ctx := context.WithValue(context.Background(), polKey("caller"), "c")
	for round := range 2 { // a second call must not see the first's replacement either
		res := exec(t, rt, ctx, call("echo", `{}`, a))
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, [2]any{"w", "c"}, seen["body"], "round %d: the body sees the replacement", round)
		for _, where := range []string{"pre", "wrapper after next", "post"} {
			assert.Equal(t, [2]any{nil, "c"}, seen[where], "round %d: %s sees the caller's ctx", round, where)
		}
		assert.True(t, afterTok == bodyTok && obsTok == bodyTok, "finalize and observers see the same execution")
	}
}

func TestR69_WrappersMayRetry(t *testing.T) {
	rt := runtime.New()
	rec := &recorder{}
	var attempts atomic.Int32
	var toks []runtime.Token
	def := polFinal(rec, tool("flaky", func(_ context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		rec.add("body")
		toks = append(toks, rc.Execution().Token())
		if attempts.Add(1) == 1 {
			return nil, errBoom
		}
		return args, nil
	}))
	mustRegister(t, rt, def)
	var first runtime.Result
	rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		r := next(ctx)
		if r.IsError() {
			first = r
			r = next(ctx)
		}
		return r
	})
	rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		rec.add("post")
		return next()
	})
	rt.OnResult(func(runtime.Execution, runtime.Result) { rec.add("result") })
	res := exec(t, rt, context.Background(), call("flaky", `{"try":true}`, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, `{"try":true}`, res.Value.String())
	assert.Equal(t, runtime.CodeToolError, first.Code(), "the first attempt failed")
	assert.Equal(t, 2, rec.count("body"))
	assert.Equal(t, 1, rec.count("post"))
	assert.Equal(t, 1, rec.count("finalize"))
	assert.Equal(t, 1, rec.count("result"))
	require.Len(t, toks, 2)
	assert.True(t, toks[0] == toks[1], "a retry is the same execution")
}

func TestR70_WrappersMayShortCircuit(t *testing.T) {
	rt := runtime.New()
	rec := &recorder{}
	var finalized, posted runtime.Result
	def := polRecTool(rec, "echo")
	def.FinalizeContent = func(_ runtime.Execution, r runtime.Result) []runtime.ContentBlock {
		rec.add("finalize")
		finalized = r
		return nil
	}
	mustRegister(t, rt, def)
	cached := runtime.Success(jsonvalue.Value(`{"cached":true}`), []runtime.ContentBlock{runtime.Text("from cache")})
	rt.WrapExecute(func(context.Context, runtime.Execution, func(context.Context) runtime.Result) runtime.Result {
		return cached
	})
	rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, r runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		rec.add("post")
		posted = r
		return next()
	})
	rt.OnResult(func(runtime.Execution, runtime.Result) { rec.add("result") })
	res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, []string{"post", "finalize", "result"}, rec.list(), "no body, but post, finalize and observers")
	assert.Equal(t, `{"cached":true}`, res.Value.String())
	assert.Equal(t, cached.Content, res.Content)
	assert.Equal(t, `{"cached":true}`, posted.Value.String(), "post-execute sees the wrapper's result")
	assert.Equal(t, `{"cached":true}`, finalized.Value.String(), "finalize sees the wrapper's result")
}

func TestR71_WrapperPanics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after bool
	}{{"before next", false}, {"after next", true}} {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			rec := &recorder{}
			mustRegister(t, rt, polRecTool(rec, "echo"))
			rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
				if tc.after {
					next(ctx)
				}
				panic("wrapper exploded")
			})
			var observed []runtime.Result
			rt.OnResult(func(_ runtime.Execution, r runtime.Result) { observed = append(observed, r) })
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, rt, context.Background(), call("echo", `{}`, nil)) })
			assert.True(t, res.IsError())
			assert.Equal(t, runtime.CodeHookPanic, code(res))
			assert.Equal(t, 1, rec.count("finalize"))
			if tc.after {
				assert.Equal(t, 1, rec.count("body"))
			} else {
				assert.Zero(t, rec.count("body"))
			}
			require.Len(t, observed, 1)
			assert.Equal(t, res, observed[0])
		})
	}

	t.Run("inner wrapper panics under an outer one", func(t *testing.T) {
		rt := runtime.New()
		rec := &recorder{}
		mustRegister(t, rt, polRecTool(rec, "echo"))
		rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
			return next(ctx)
		})
		rt.WrapExecute(func(context.Context, runtime.Execution, func(context.Context) runtime.Result) runtime.Result {
			panic(errBoom)
		})
		var res runtime.Result
		require.NotPanics(t, func() { res = exec(t, rt, context.Background(), call("echo", `{}`, nil)) })
		assert.Equal(t, runtime.CodeHookPanic, code(res))
		assert.Equal(t, 1, rec.count("finalize"))
	})
}

func TestR72_StartedWorkIsDrained(t *testing.T) {
	const linger = 100 * time.Millisecond
	rt := runtime.New()
	startedCh := make(chan struct{})
	started := polCloser(startedCh)
	var returned atomic.Bool
	mustRegister(t, rt, tool("stubborn", func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		started()
		polWaitDone(ctx)
		time.Sleep(linger) // ignores the cancellation for a while
		returned.Store(true)
		return jsonvalue.Value(`"late"`), nil
	}))
	rt.WrapExecute(func(_ context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		return next(context.Background())
	})
	res, elapsed := polExecCancel(t, rt, context.Background(), call("stubborn", `{}`, nil), startedCh)
	assert.True(t, returned.Load(), "Execute returned before the body did")
	assert.GreaterOrEqual(t, elapsed, linger)
	assert.Equal(t, runtime.CodeAborted, code(res))
}

func TestR74_MalformedWrapperResultsNormalized(t *testing.T) {
	failure := func() *runtime.Failure {
		return &runtime.Failure{Message: "failed", Info: runtime.ErrorInfo{Code: "X"}}
	}
	text := []runtime.ContentBlock{runtime.Text("t")}
	cases := []struct {
		name string
		res  runtime.Result
	}{
		{"failure with a value", runtime.Result{Failure: failure(), Value: jsonvalue.Value(`1`), Content: text}},
		{"failure that concludes the turn", runtime.Result{Failure: failure(), ConcludesTurn: true, Content: text}},
		{"neither success nor failure", runtime.Result{Content: text}},
		{"the zero result", runtime.Result{}},
		{"non-JSON meta", runtime.Result{Value: jsonvalue.Value(`1`), Content: text, Meta: jsonvalue.Value(`{bad`)}},
		{"failure with non-JSON meta", runtime.Result{Failure: failure(), Content: text, Meta: jsonvalue.Value(`nope`)}},
		{"content not UTF-8", runtime.Result{Value: jsonvalue.Value(`1`), Content: []runtime.ContentBlock{runtime.Text("\xff")}}},
		{"content of unknown type", runtime.Result{Value: jsonvalue.Value(`1`), Content: []runtime.ContentBlock{{Type: "video"}}}},
		{"image without base64", runtime.Result{Value: jsonvalue.Value(`1`), Content: []runtime.ContentBlock{{Type: runtime.ContentImage, Data: "!!", MimeType: "image/png"}}}},
		{"additional context not JSON", runtime.Result{Value: jsonvalue.Value(`1`), Content: text,
			AdditionalContexts: []runtime.UserMessage{{Content: text, Meta: jsonvalue.Value(`{bad`)}}}},
		{"failure message not UTF-8", runtime.Result{Failure: &runtime.Failure{Message: "\xfe", Info: runtime.ErrorInfo{Code: "X"}}, Content: text}},
		{"success with a non-JSON value", runtime.Result{Value: jsonvalue.Value(`{bad`), Content: text}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			rec := &recorder{}
			var finalized runtime.Result
			def := polRecTool(rec, "echo")
			def.FinalizeContent = func(_ runtime.Execution, r runtime.Result) []runtime.ContentBlock {
				rec.add("finalize")
				finalized = r
				return nil
			}
			mustRegister(t, rt, def)
			rt.WrapExecute(func(context.Context, runtime.Execution, func(context.Context) runtime.Result) runtime.Result {
				return tc.res
			})
			var observed []runtime.Result
			rt.OnResult(func(_ runtime.Execution, r runtime.Result) { observed = append(observed, r) })
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, rt, context.Background(), call("echo", `{}`, nil)) })
			assert.True(t, res.IsError())
			assert.Nil(t, res.Value)
			assert.False(t, res.ConcludesTurn)
			assert.Equal(t, runtime.CodeInvalidResult, code(res))
			_, err := res.Durable().MarshalJSON()
			assert.NoError(t, err, "the failure is JSON-safe")
			assert.Equal(t, 1, rec.count("finalize"))
			assert.Equal(t, runtime.CodeInvalidResult, finalized.Code(), "finalize sees the normalized failure")
			require.Len(t, observed, 1)
			assert.Equal(t, res, observed[0])
		})
	}
}
