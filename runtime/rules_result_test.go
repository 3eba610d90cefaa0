package runtime_test

// Rule tests for RULES.md sections 9 to 12 (R75–R107): body outcome, output
// validation, render and presentation meta; post-execute decisions;
// FinalizeContent; result freezing and observers. Helpers in this file are
// prefixed "res".

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// ---------------------------------------------------------------------------
// Helpers (prefixed res).

// resPathParams is a parameter schema with one required string field.
func resPathParams() *schemasubset.Node {
	return schemasubset.MustParse(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
}

const resGoodArgs = `{"path":"p"}`

// resEnv is one fresh runtime with recording hooks around a tool named "t":
// an outermost pre-execute listener recording tokens, an outermost
// post-execute listener recording what it sees, and an observer recording
// every final result. The tool's render, meta, body and finalizer record
// their calls in rec.
type resEnv struct {
	rt     *runtime.Runtime
	rec    *recorder
	agent  *runtime.Agent
	ctx    context.Context
	cancel context.CancelFunc

	mu         sync.Mutex
	preExecs   []runtime.Execution
	postExecs  []runtime.Execution
	postSeen   []runtime.Result
	finalExecs []runtime.Execution
	finalSeen  []runtime.Result
	obsExecs   []runtime.Execution
	obsSeen    []runtime.Result
	errs       []error
}

func resNewEnv(t *testing.T, opts ...runtime.Option) *resEnv {
	t.Helper()
	e := &resEnv{rec: &recorder{}}
	e.agent, _, _ = agents()
	e.ctx, e.cancel = context.WithCancel(context.Background())
	t.Cleanup(e.cancel)
	base := []runtime.Option{
		runtime.WithApprover(func(context.Context, runtime.Execution, string) runtime.Approval { return runtime.Denied }),
		runtime.WithErrorHandler(func(err error) {
			e.mu.Lock()
			e.errs = append(e.errs, err)
			e.mu.Unlock()
		}),
	}
	e.rt = runtime.New(append(base, opts...)...)
	e.rt.OnPreExecute(func(_ context.Context, exec runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		e.mu.Lock()
		e.preExecs = append(e.preExecs, exec)
		e.mu.Unlock()
		e.rec.add("pre")
		return next()
	})
	e.rt.OnPostExecute(func(_ context.Context, exec runtime.Execution, res runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		e.mu.Lock()
		e.postExecs = append(e.postExecs, exec)
		e.postSeen = append(e.postSeen, resDeepCopy(res))
		e.mu.Unlock()
		e.rec.add("post")
		return next()
	})
	e.rt.OnResult(func(exec runtime.Execution, res runtime.Result) {
		e.mu.Lock()
		e.obsExecs = append(e.obsExecs, exec)
		e.obsSeen = append(e.obsSeen, resDeepCopy(res))
		e.mu.Unlock()
		e.rec.add("observer")
	})
	return e
}

// def returns the recording tool "t": required string "path", output schema
// string, body returning "ok", a one-block renderer, meta {"meta":value}
// and a finalizer that records what it sees and keeps the content.
func (e *resEnv) def() runtime.ToolDefinition {
	return runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{Name: "t", Description: "The recording tool.", Parameters: resPathParams()},
		Output: runtime.OutputDefinition{
			Schema: schemasubset.String(),
			Render: func(_, v jsonvalue.Value) ([]runtime.ContentBlock, error) {
				e.rec.add("render")
				return []runtime.ContentBlock{runtime.Text("rendered " + v.String())}, nil
			},
			PresentationMeta: func(_, v jsonvalue.Value) (jsonvalue.Value, error) {
				e.rec.add("meta")
				return jsonvalue.Value(`{"meta":` + v.String() + `}`), nil
			},
		},
		Execute: func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
			e.rec.add("body")
			return jsonvalue.String("ok"), nil
		},
		FinalizeContent: func(exec runtime.Execution, res runtime.Result) []runtime.ContentBlock {
			e.mu.Lock()
			e.finalExecs = append(e.finalExecs, exec)
			e.finalSeen = append(e.finalSeen, resDeepCopy(res))
			e.mu.Unlock()
			e.rec.add("finalize")
			return nil
		},
	}
}

func (e *resEnv) lastFinal(t *testing.T) runtime.Result {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	require.NotEmpty(t, e.finalSeen, "FinalizeContent ran")
	return e.finalSeen[len(e.finalSeen)-1]
}

func (e *resEnv) lastPost(t *testing.T) runtime.Result {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	require.NotEmpty(t, e.postSeen, "the post-execute listener ran")
	return e.postSeen[len(e.postSeen)-1]
}

func (e *resEnv) errCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.errs)
}

// resDeepCopy returns a copy of r that shares nothing with it.
func resDeepCopy(r runtime.Result) runtime.Result {
	out := r
	out.Value = r.Value.Clone()
	out.Meta = r.Meta.Clone()
	out.Content = slices.Clone(r.Content)
	if r.Failure != nil {
		f := *r.Failure
		out.Failure = &f
	}
	if r.AdditionalContexts != nil {
		out.AdditionalContexts = make([]runtime.UserMessage, len(r.AdditionalContexts))
		for i, m := range r.AdditionalContexts {
			out.AdditionalContexts[i] = runtime.UserMessage{Content: slices.Clone(m.Content), Source: m.Source, Meta: m.Meta.Clone()}
		}
	}
	return out
}

// resTamper overwrites everything reachable through r in place.
func resTamper(r runtime.Result) {
	for i := range r.Content {
		r.Content[i].Text = "tampered"
	}
	for i := range r.Value {
		r.Value[i] = 'X'
	}
	for i := range r.Meta {
		r.Meta[i] = 'X'
	}
	if r.Failure != nil {
		r.Failure.Message = "tampered"
		r.Failure.Info.Code = "TAMPERED"
	}
	for _, m := range r.AdditionalContexts {
		for i := range m.Content {
			m.Content[i].Text = "tampered"
		}
		for i := range m.Meta {
			m.Meta[i] = 'X'
		}
	}
}

func resMsg(text string) runtime.UserMessage {
	return runtime.UserMessage{Content: []runtime.ContentBlock{runtime.Text(text)}, Source: "test"}
}

func resBlocks(texts ...string) []runtime.ContentBlock {
	out := make([]runtime.ContentBlock, len(texts))
	for i, s := range texts {
		out[i] = runtime.Text(s)
	}
	return out
}

// resOutcome is one outcome of a call of "t" in a resEnv.
type resOutcome struct {
	name     string
	args     string // default resGoodArgs
	toolName string // default "t"
	agent    bool   // call as agent A
	setup    func(e *resEnv, def *runtime.ToolDefinition)
	want     runtime.ErrorCode // "" for a success
	post     bool              // the post-execute waterfall sees the call
	pre      bool              // the pre-execute waterfall sees the call
}

func (o resOutcome) run(t *testing.T) (*resEnv, runtime.Result) {
	t.Helper()
	e := resNewEnv(t)
	def := e.def()
	if o.setup != nil {
		o.setup(e, &def)
	}
	mustRegister(t, e.rt, def)
	args, name := o.args, o.toolName
	if args == "" {
		args = resGoodArgs
	}
	if name == "" {
		name = "t"
	}
	var agent *runtime.Agent
	if o.agent {
		agent = e.agent
	}
	res := exec(t, e.rt, e.ctx, call(name, args, agent))
	return e, res
}

// resOutcomes is every outcome of a resolved definition that R95 and R104
// list, and more.
func resOutcomes() []resOutcome {
	body := func(f func(ctx context.Context, rc *runtime.RunContext) (jsonvalue.Value, error)) func(*resEnv, *runtime.ToolDefinition) {
		return func(e *resEnv, def *runtime.ToolDefinition) {
			def.Execute = func(ctx context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
				e.rec.add("body")
				return f(ctx, rc)
			}
		}
	}
	return []resOutcome{
		{name: "success", want: "", pre: true, post: true},
		{name: "tool error", setup: body(func(context.Context, *runtime.RunContext) (jsonvalue.Value, error) { return nil, errBoom }),
			want: runtime.CodeToolError, pre: true, post: true},
		{name: "tool-owned error", setup: body(func(context.Context, *runtime.RunContext) (jsonvalue.Value, error) {
			return nil, &runtime.ToolError{Code: "RATE_LIMITED", Message: "slow down"}
		}), want: "RATE_LIMITED", pre: true, post: true},
		{name: "tool panic", setup: body(func(context.Context, *runtime.RunContext) (jsonvalue.Value, error) { panic("kaboom") }),
			want: runtime.CodeToolPanic, pre: true, post: true},
		{name: "invalid args (schema)", args: `{}`, want: runtime.CodeInvalidArgs, pre: true, post: true},
		{name: "invalid args (not JSON)", args: `{"path":`, want: runtime.CodeInvalidArgs},
		{name: "invalid tool output", setup: body(func(context.Context, *runtime.RunContext) (jsonvalue.Value, error) { return jsonvalue.Int(5), nil }),
			want: runtime.CodeInvalidToolOutput, pre: true, post: true},
		{name: "render panic", setup: func(_ *resEnv, def *runtime.ToolDefinition) {
			def.Output.Render = func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error) { panic("render") }
		}, want: runtime.CodeInvalidResult, pre: true, post: true},
		{name: "non-JSON content", setup: func(_ *resEnv, def *runtime.ToolDefinition) {
			def.Output.Render = func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error) { return resBlocks("\xff"), nil }
		}, want: runtime.CodeInvalidResult, pre: true, post: true},
		{name: "pre-execute deny", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.OnPreExecute(func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
				return runtime.Deny("no")
			})
		}, want: runtime.CodeDenied, pre: true},
		{name: "pre-execute panic", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.OnPreExecute(func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision { panic("pre") })
		}, want: runtime.CodeHookPanic, pre: true},
		{name: "guard deny", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.Guard(func(runtime.Execution) error { return errors.New("guarded") })
		}, want: runtime.CodeDenied, pre: true},
		{name: "guard panic", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.Guard(func(runtime.Execution) error { panic("guard") })
		}, want: runtime.CodeHookPanic, pre: true},
		{name: "ask denied by the approver", agent: true, setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.Scope(e.agent).OnPreExecute(func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
				return runtime.Ask("may I?")
			})
		}, want: runtime.CodeDenied, pre: true},
		{name: "ask without an agent", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.OnPreExecute(func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
				return runtime.Ask("may I?")
			})
		}, want: runtime.CodeDenied, pre: true},
		{name: "aborted before dispatch", setup: func(e *resEnv, _ *runtime.ToolDefinition) { e.cancel() },
			want: runtime.CodeAbortedBeforeDispatch},
		{name: "aborted before dispatch (cancelled during pre-execute)", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.OnPreExecute(func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
				e.cancel()
				return next()
			})
		}, want: runtime.CodeAbortedBeforeDispatch, pre: true},
		{name: "aborted", setup: func(e *resEnv, def *runtime.ToolDefinition) {
			body(func(context.Context, *runtime.RunContext) (jsonvalue.Value, error) {
				e.cancel()
				return jsonvalue.String("ok"), nil
			})(e, def)
		}, want: runtime.CodeAborted, pre: true, post: true},
		{name: "block", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				return runtime.Block(resBlocks("fix it"))
			})
		}, want: runtime.CodeBlocked, pre: true, post: true},
		{name: "post-execute panic", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				panic("post")
			})
		}, want: runtime.CodeHookPanic, pre: true, post: true},
		{name: "invalid post-execute decision", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				return runtime.PostDecision{Kind: runtime.PostAccept, Content: resBlocks("x"), Value: jsonvalue.String("y")}
			})
		}, want: runtime.CodeInvalidResult, pre: true, post: true},
		{name: "wrapper panic", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.WrapExecute(func(context.Context, runtime.Execution, func(context.Context) runtime.Result) runtime.Result {
				panic("wrap")
			})
		}, want: runtime.CodeHookPanic, pre: true, post: true},
		{name: "wrapper short-circuit", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.WrapExecute(func(context.Context, runtime.Execution, func(context.Context) runtime.Result) runtime.Result {
				return runtime.Fail("CACHED_FAILURE", "from the wrapper")
			})
		}, want: "CACHED_FAILURE", pre: true, post: true},
		{name: "wrapper returns an invalid result", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.WrapExecute(func(context.Context, runtime.Execution, func(context.Context) runtime.Result) runtime.Result {
				r := runtime.Fail("X", "bad")
				r.Value = jsonvalue.String("v")
				return r
			})
		}, want: runtime.CodeInvalidResult, pre: true, post: true},
		{name: "wrapper retry (R69)", setup: func(e *resEnv, def *runtime.ToolDefinition) {
			var n atomic.Int32
			body(func(context.Context, *runtime.RunContext) (jsonvalue.Value, error) {
				if n.Add(1) == 1 {
					return nil, errBoom
				}
				return jsonvalue.String("ok"), nil
			})(e, def)
			e.rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
				if r := next(ctx); !r.IsError() {
					return r
				}
				return next(ctx)
			})
		}, want: "", pre: true, post: true},
	}
}

// ---------------------------------------------------------------------------
// 9. Body outcome, output validation, render, presentationMeta

func TestR75_BadArgumentsAreAnOrdinaryToolError(t *testing.T) {
	// The RULES scenario uses a generated tool; that variant is tested with
	// the generator. Here: a hand-written definition the runtime validates,
	// and one that validates its own arguments the way generated adapters
	// do (ValidatesArguments with a *ToolError of CodeInvalidArgs).
	variants := []struct {
		name  string
		setup func(e *resEnv, def *runtime.ToolDefinition, typed *atomic.Int32)
	}{
		{"runtime validates Parameters", func(e *resEnv, def *runtime.ToolDefinition, typed *atomic.Int32) {
			def.Execute = func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
				typed.Add(1)
				return jsonvalue.String("ok"), nil
			}
		}},
		{"ValidatesArguments body", func(e *resEnv, def *runtime.ToolDefinition, typed *atomic.Int32) {
			def.ValidatesArguments = true
			def.Execute = func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
				// An adapter: decode and validate, then call the typed function.
				if err := schemasubset.Validate(resPathParams(), args); err != nil {
					return nil, &runtime.ToolError{Code: runtime.CodeInvalidArgs, Message: "invalid arguments: " + err.Error()}
				}
				typed.Add(1)
				return jsonvalue.String("ok"), nil
			}
		}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			e := resNewEnv(t)
			def := e.def()
			var typed atomic.Int32
			v.setup(e, &def, &typed)
			mustRegister(t, e.rt, def)

			ok := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
			require.False(t, ok.IsError(), "valid arguments succeed: %+v", ok.Failure)
			require.EqualValues(t, 1, typed.Load())

			res := exec(t, e.rt, context.Background(), call("t", `{"other":1}`, nil))
			assert.Equal(t, runtime.CodeInvalidArgs, code(res))
			assert.Nil(t, res.Value)
			assert.EqualValues(t, 1, typed.Load(), "the typed function is not called")
			post := e.lastPost(t)
			assert.True(t, post.IsError(), "post-execute sees the failure")
			assert.Equal(t, runtime.CodeInvalidArgs, code(post))
			assert.Equal(t, 2, e.rec.count("post"))
			assert.Equal(t, 2, e.rec.count("finalize"), "FinalizeContent runs once per call")
			assert.Equal(t, runtime.CodeInvalidArgs, code(e.lastFinal(t)))
			assert.Equal(t, 1, e.rec.count("render"), "no render for bad arguments")
		})
	}
}

func TestR76_BodyErrorBecomesFailureWithRawMessage(t *testing.T) {
	cases := []struct {
		name string
		err  error
		msg  string
	}{
		{"plain", errBoom, "boom"},
		{"wrapped", fmt.Errorf("reading x: %w", errBoom), "reading x: boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := resNewEnv(t)
			def := e.def()
			def.Execute = func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
				return nil, c.err
			}
			mustRegister(t, e.rt, def)
			res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
			require.True(t, res.IsError())
			assert.Equal(t, c.msg, res.Failure.Message, "the raw message, no Error: prefix")
			assert.Equal(t, runtime.CodeToolError, code(res))
			for _, b := range res.Content {
				assert.False(t, strings.HasPrefix(b.Text, "Error: "), b.Text)
			}
			post := e.lastPost(t)
			assert.True(t, post.IsError())
			assert.Equal(t, runtime.CodeToolError, code(post))
			assert.Equal(t, c.msg, post.Failure.Message)
		})
	}
}

func TestR77_ToolOwnedErrorCodeIsKept(t *testing.T) {
	cases := []struct {
		name string
		err  error
		msg  string
	}{
		{"direct", &runtime.ToolError{Code: "RATE_LIMITED", Message: "slow down"}, "slow down"},
		{"wrapped", fmt.Errorf("fetch: %w", &runtime.ToolError{Code: "RATE_LIMITED", Message: "slow down"}), "fetch: slow down"},
		{"cause only", &runtime.ToolError{Code: "RATE_LIMITED", Err: errBoom}, "boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := resNewEnv(t)
			def := e.def()
			def.Execute = func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
				return nil, c.err
			}
			mustRegister(t, e.rt, def)
			res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
			assert.Equal(t, runtime.ErrorCode("RATE_LIMITED"), code(res))
			require.NotNil(t, res.Failure)
			assert.Equal(t, c.msg, res.Failure.Message)
			assert.Equal(t, runtime.ErrorCode("RATE_LIMITED"), code(e.lastPost(t)))
		})
	}
}

func TestR78_BodyPanicBecomesFailure(t *testing.T) {
	cases := []struct {
		name  string
		value any
		text  string
	}{
		{"string", "kaboom", "kaboom"},
		{"error", errBoom, "boom"},
		{"nil", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := resNewEnv(t)
			def := e.def()
			def.Execute = func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) { panic(c.value) }
			mustRegister(t, e.rt, def)
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil)) })
			require.True(t, res.IsError())
			assert.Equal(t, runtime.CodeToolPanic, code(res))
			assert.Contains(t, res.Failure.Message, c.text)
			post := e.lastPost(t)
			assert.True(t, post.IsError(), "post-execute saw the panic as a failure")
			assert.Equal(t, runtime.CodeToolPanic, code(post))
			assert.Equal(t, 1, e.rec.count("finalize"))
		})
	}
}

func TestR79_OutputValidatedOnEverySuccess(t *testing.T) {
	cases := []struct {
		name     string
		value    jsonvalue.Value
		validate bool // use a static Output.Validate
		want     runtime.ErrorCode
	}{
		{"schema: number for string", jsonvalue.Int(5), false, runtime.CodeInvalidToolOutput},
		{"schema: not JSON", jsonvalue.Value(`{"a":`), false, runtime.CodeInvalidToolOutput},
		{"schema: nil value", nil, false, runtime.CodeInvalidToolOutput},
		{"schema: valid", jsonvalue.String("ok"), false, ""},
		{"static validator: number for string", jsonvalue.Int(5), true, runtime.CodeInvalidToolOutput},
		{"static validator: valid", jsonvalue.String("ok"), true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := resNewEnv(t)
			def := e.def()
			def.Execute = func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
				return c.value, nil
			}
			if c.validate {
				def.Output.Validate = func(v jsonvalue.Value) error {
					e.rec.add("validate")
					if v.Kind() != jsonvalue.KindString {
						return errors.New("not a string")
					}
					return nil
				}
			}
			mustRegister(t, e.rt, def)
			res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
			assert.Equal(t, c.want, code(res))
			if c.validate {
				assert.Equal(t, 1, e.rec.count("validate"), "the static validator runs once")
			}
			if c.want != "" {
				assert.Nil(t, res.Value)
				assert.Equal(t, 0, e.rec.count("render"), "no render for an invalid value")
				assert.Equal(t, 0, e.rec.count("meta"), "no meta for an invalid value")
			} else {
				assert.Equal(t, 1, e.rec.count("render"))
			}
		})
	}
}

func TestR80_BodyValueIsSnapshotted(t *testing.T) {
	e := resNewEnv(t)
	def := e.def()
	def.Output.Schema = schemasubset.Any()
	const original = `{"k":"original"}`
	buf := []byte(original)
	def.Execute = func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
		return jsonvalue.Value(buf), nil
	}
	mustRegister(t, e.rt, def)
	overwrite := func() {
		for i := range buf {
			buf[i] = 'x'
		}
	}
	// The body has returned by the time post-execute runs: mutate the
	// buffer before the result is frozen, and again after Execute returns.
	e.rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		overwrite()
		return next()
	})
	res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	overwrite()
	assert.Equal(t, original, res.Value.String())
	assert.Equal(t, resBlocks("rendered "+original), res.Content)
	require.Len(t, e.obsSeen, 1)
	assert.Equal(t, original, e.obsSeen[0].Value.String())
}

func TestR81_RenderBuildsContent(t *testing.T) {
	e := resNewEnv(t)
	def := e.def()
	def.Parameters = schemasubset.Object()
	def.Output.Schema = schemasubset.Any()
	var gotArgs, gotValue []jsonvalue.Value
	def.Output.Render = func(args, v jsonvalue.Value) ([]runtime.ContentBlock, error) {
		gotArgs = append(gotArgs, args.Clone())
		gotValue = append(gotValue, v.Clone())
		return resBlocks("args="+args.String(), "value="+v.String()), nil
	}
	def.Execute = func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
		return jsonvalue.Value(` { "v" : "x" } `), nil
	}
	mustRegister(t, e.rt, def)
	res := exec(t, e.rt, context.Background(), call("t", ` { "a" : [1, 2.50] } `, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	require.Len(t, gotArgs, 1, "render runs once")
	assert.Equal(t, `{"a":[1,2.50]}`, gotArgs[0].String(), "render gets the materialized arguments")
	assert.Equal(t, `{"v":"x"}`, gotValue[0].String(), "render gets the validated, canonical value")
	assert.Equal(t, resBlocks(`args={"a":[1,2.50]}`, `value={"v":"x"}`), res.Content)
	assert.Equal(t, `{"v":"x"}`, res.Value.String())
}

func TestR82_RenderFailureBecomesJSONSafeError(t *testing.T) {
	cases := map[string]func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error){
		"panic":       func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error) { panic("render broke") },
		"panic error": func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error) { panic(errBoom) },
		"error":       func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error) { return nil, errBoom },
	}
	for name, render := range cases {
		t.Run(name, func(t *testing.T) {
			e := resNewEnv(t)
			def := e.def()
			def.Output.Render = render
			mustRegister(t, e.rt, def)
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil)) })
			assert.True(t, res.IsError())
			assert.Nil(t, res.Value)
			assert.Equal(t, runtime.CodeInvalidResult, code(res))
			assert.Equal(t, 1, e.rec.count("finalize"))
			raw, err := json.Marshal(res.Durable())
			require.NoError(t, err)
			assert.True(t, json.Valid(raw))
		})
	}
}

func TestR83_MetaIsForTopLevelCallsOnly(t *testing.T) {
	t.Run("top-level", func(t *testing.T) {
		e := resNewEnv(t)
		mustRegister(t, e.rt, e.def())
		res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, 1, e.rec.count("meta"))
		assert.Equal(t, `{"meta":"ok"}`, res.Meta.String())
	})
	t.Run("nested", func(t *testing.T) {
		e := resNewEnv(t)
		mustRegister(t, e.rt, e.def())
		// A post-execute value replacement re-renders but must not compute
		// meta for a nested call either.
		e.rt.OnPostExecute(func(_ context.Context, exec runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			if exec.Name() == "t" {
				return runtime.AcceptValue(jsonvalue.String("replaced"))
			}
			return next()
		})
		var nested runtime.Result
		outer := tool("outer", func(ctx context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			x := rc.Execution()
			nested = e.rt.Execute(ctx, runtime.ExecutionInput{
				CallID: x.CallID() + ":1", RootCallID: x.RootCallID(), Name: "t",
				Arguments: []byte(resGoodArgs), Parent: x.Token(),
			})
			return jsonvalue.String("outer"), nil
		})
		mustRegister(t, e.rt, outer)
		res := exec(t, e.rt, context.Background(), call("outer", `{}`, nil))
		require.False(t, res.IsError(), "%+v", res.Failure)
		checkInvariants(t, nested)
		require.False(t, nested.IsError(), "%+v", nested.Failure)
		assert.Equal(t, `"replaced"`, nested.Value.String())
		assert.Equal(t, 0, e.rec.count("meta"), "PresentationMeta is not called for a nested call")
		assert.Nil(t, nested.Meta)
	})
}

func TestR84_MetaFailureBecomesError(t *testing.T) {
	cases := []struct {
		name     string
		meta     func(_, _ jsonvalue.Value) (jsonvalue.Value, error)
		want     runtime.ErrorCode
		wantMeta string // Meta of a success
	}{
		{"truncated JSON", func(_, _ jsonvalue.Value) (jsonvalue.Value, error) { return jsonvalue.Value("{"), nil }, runtime.CodeInvalidResult, ""},
		{"invalid UTF-8", func(_, _ jsonvalue.Value) (jsonvalue.Value, error) { return jsonvalue.Value("\"\xff\""), nil }, runtime.CodeInvalidResult, ""},
		{"duplicate names", func(_, _ jsonvalue.Value) (jsonvalue.Value, error) { return jsonvalue.Value(`{"a":1,"a":2}`), nil }, runtime.CodeInvalidResult, ""},
		{"panic", func(_, _ jsonvalue.Value) (jsonvalue.Value, error) { panic("meta broke") }, runtime.CodeInvalidResult, ""},
		{"error", func(_, _ jsonvalue.Value) (jsonvalue.Value, error) { return nil, errBoom }, runtime.CodeInvalidResult, ""},
		{"non-canonical JSON is canonicalized", func(_, _ jsonvalue.Value) (jsonvalue.Value, error) {
			return jsonvalue.Value(` { "a" : 1 } `), nil
		}, "", `{"a":1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := resNewEnv(t)
			def := e.def()
			def.Output.PresentationMeta = c.meta
			mustRegister(t, e.rt, def)
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil)) })
			assert.Equal(t, c.want, code(res))
			if c.want != "" {
				assert.True(t, res.IsError())
				assert.Nil(t, res.Value)
			} else {
				assert.Equal(t, c.wantMeta, res.Meta.String())
			}
			if res.Meta != nil {
				assert.True(t, json.Valid(res.Meta), "Meta is valid JSON or absent: %q", res.Meta)
			}
			raw, err := json.Marshal(res.Durable())
			require.NoError(t, err)
			assert.True(t, json.Valid(raw))
		})
	}
}

func TestR85_NonJSONContentOrContextsBecomeError(t *testing.T) {
	cases := []struct {
		name  string
		setup func(e *resEnv, def *runtime.ToolDefinition)
	}{
		{"render text not UTF-8", func(_ *resEnv, def *runtime.ToolDefinition) {
			def.Output.Render = func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error) { return resBlocks("\xff"), nil }
		}},
		{"render image not base64", func(_ *resEnv, def *runtime.ToolDefinition) {
			def.Output.Render = func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error) {
				return []runtime.ContentBlock{{Type: runtime.ContentImage, Data: "!!", MimeType: "image/png"}}, nil
			}
		}},
		{"render unknown block type", func(_ *resEnv, def *runtime.ToolDefinition) {
			def.Output.Render = func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error) {
				return []runtime.ContentBlock{{Type: "video", Text: "x"}}, nil
			}
		}},
		{"deferred context not UTF-8", func(_ *resEnv, def *runtime.ToolDefinition) {
			def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
				rc.DeferContext(resMsg("\xff"))
				return jsonvalue.String("ok"), nil
			}
		}},
		{"deferred context meta not JSON", func(_ *resEnv, def *runtime.ToolDefinition) {
			def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
				m := resMsg("fine")
				m.Meta = jsonvalue.Value("{")
				rc.DeferContext(m)
				return jsonvalue.String("ok"), nil
			}
		}},
		{"body error message not UTF-8", func(_ *resEnv, def *runtime.ToolDefinition) {
			def.Execute = func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
				return nil, errors.New("bad \xff")
			}
		}},
		{"tool error code not UTF-8", func(_ *resEnv, def *runtime.ToolDefinition) {
			def.Execute = func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
				return nil, &runtime.ToolError{Code: "\xff", Message: "fine"}
			}
		}},
		{"post-execute replacement content not UTF-8", func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				return runtime.AcceptContent(resBlocks("\xff"))
			})
		}},
		{"post-execute decision context not UTF-8", func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				d := runtime.Accept()
				d.AdditionalContexts = []runtime.UserMessage{{Source: "\xff"}}
				return d
			})
		}},
		{"block feedback not UTF-8", func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				return runtime.Block(resBlocks("\xff"))
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := resNewEnv(t)
			def := e.def()
			c.setup(e, &def)
			mustRegister(t, e.rt, def)
			res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
			assert.True(t, res.IsError())
			assert.Equal(t, runtime.CodeInvalidResult, code(res))
			require.Equal(t, 1, e.rec.count("finalize"))
			final := e.lastFinal(t)
			assert.True(t, final.IsError(), "finalize sees the error")
			assert.Equal(t, runtime.CodeInvalidResult, code(final))
			raw, err := json.Marshal(res.Durable())
			require.NoError(t, err)
			assert.True(t, utf8.Valid(raw) && json.Valid(raw), "%q", raw)
			for _, m := range res.AdditionalContexts {
				assert.NoError(t, m.Check())
			}
		})
	}
}

// ---------------------------------------------------------------------------
// 10. Post-execute decisions

func TestR86_PostExecuteAcceptsByDefault(t *testing.T) {
	t.Run("no listeners", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		res := exec(t, rt, context.Background(), call("echo", `{"a":1}`, nil))
		require.False(t, res.IsError())
		assert.Equal(t, `{"a":1}`, res.Value.String())
		assert.Equal(t, resBlocks(`{"a":1}`), res.Content)
	})
	t.Run("next accepts, outer blocks", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		var inner runtime.PostDecision
		rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			inner = next()
			return runtime.Block(resBlocks("no"))
		})
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.Equal(t, runtime.Accept(), inner)
		assert.Equal(t, runtime.CodeBlocked, code(res))
	})
	t.Run("short-circuit", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		rec := &recorder{}
		rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
			rec.add("L1")
			return runtime.Accept()
		})
		rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
			rec.add("L2")
			return runtime.Block(resBlocks("no"))
		})
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.False(t, res.IsError())
		assert.Equal(t, []string{"L1"}, rec.list())
	})
	t.Run("outer sees and overrides the inner decision", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		rec := &recorder{}
		var seen runtime.PostDecision
		rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			rec.add("L1 in")
			seen = next()
			rec.add("L1 out")
			return runtime.Accept()
		})
		rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
			rec.add("L2")
			return runtime.Block(resBlocks("inner block"))
		})
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.Equal(t, []string{"L1 in", "L2", "L1 out"}, rec.list())
		assert.Equal(t, runtime.Block(resBlocks("inner block")), seen)
		assert.False(t, res.IsError(), "the waterfall is not monotonic")
	})
	t.Run("outer passes the inner decision through", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			return next()
		})
		rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
			return runtime.AcceptContent(resBlocks("X"))
		})
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		assert.Equal(t, resBlocks("X"), res.Content)
	})
}

func TestR87_FailuresReachPostExecute(t *testing.T) {
	for _, o := range resOutcomes() {
		if !o.post || o.want == "" {
			continue
		}
		t.Run(o.name, func(t *testing.T) {
			e, res := o.run(t)
			require.Equal(t, o.want, code(res))
			require.Equal(t, 1, e.rec.count("post"), "post-execute ran once")
			post := e.lastPost(t)
			if o.name == "aborted" || o.name == "block" || o.name == "post-execute panic" ||
				o.name == "invalid post-execute decision" || o.name == "non-JSON content" {
				// These fail at or after post-execute: the listener saw
				// the body's success.
				return
			}
			assert.True(t, post.IsError(), "post-execute sees the failure")
			assert.Equal(t, o.want, code(post))
		})
	}
}

func TestR88_SomeFailuresBypassPostExecute(t *testing.T) {
	cases := []resOutcome{
		{name: "unknown tool", toolName: "nope", want: runtime.CodeUnknownTool},
	}
	for _, o := range resOutcomes() {
		if !o.post {
			cases = append(cases, o)
		}
	}
	seen := map[runtime.ErrorCode]bool{}
	for _, o := range cases {
		t.Run(o.name, func(t *testing.T) {
			e, res := o.run(t)
			assert.Equal(t, o.want, code(res))
			assert.Equal(t, 0, e.rec.count("post"), "post-execute never runs")
			assert.Equal(t, 0, e.rec.count("body"))
			seen[o.want] = true
		})
	}
	for _, c := range []runtime.ErrorCode{runtime.CodeUnknownTool, runtime.CodeDenied, runtime.CodeAbortedBeforeDispatch} {
		assert.True(t, seen[c], "covered: %s", c)
	}
}

func TestR89_ReplacingContentKeepsValueAndMeta(t *testing.T) {
	e := resNewEnv(t)
	def := e.def()
	def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		rc.DeferContext(resMsg("deferred"))
		rc.ConcludeTurn()
		return jsonvalue.String("body"), nil
	}
	mustRegister(t, e.rt, def)
	e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
		return runtime.AcceptContent(resBlocks("X"))
	})
	res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, resBlocks("X"), res.Content)
	assert.Equal(t, `"body"`, res.Value.String())
	assert.Equal(t, `{"meta":"body"}`, res.Meta.String())
	assert.Equal(t, []runtime.UserMessage{resMsg("deferred")}, res.AdditionalContexts)
	assert.True(t, res.ConcludesTurn)
	assert.Equal(t, 1, e.rec.count("render"), "render is not called again")
	assert.Equal(t, 1, e.rec.count("meta"), "meta is not recomputed")
}

func TestR90_ReplacingValueRevalidatesAndRerenders(t *testing.T) {
	t.Run("valid replacement", func(t *testing.T) {
		e := resNewEnv(t)
		def := e.def()
		var renderArgs []string
		render := def.Output.Render
		def.Output.Render = func(args, v jsonvalue.Value) ([]runtime.ContentBlock, error) {
			renderArgs = append(renderArgs, args.String())
			return render(args, v)
		}
		def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			rc.DeferContext(resMsg("deferred"))
			return jsonvalue.String("old"), nil
		}
		mustRegister(t, e.rt, def)
		e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
			return runtime.AcceptValue(jsonvalue.Value(` "new" `))
		})
		res := exec(t, e.rt, context.Background(), call("t", ` {"path" : "p"} `, nil))
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, `"new"`, res.Value.String())
		assert.Equal(t, resBlocks(`rendered "new"`), res.Content)
		assert.Equal(t, `{"meta":"new"}`, res.Meta.String())
		assert.Equal(t, 2, e.rec.count("render"))
		assert.Equal(t, 2, e.rec.count("meta"))
		assert.Equal(t, []string{resGoodArgs, resGoodArgs}, renderArgs, "both renders get the materialized arguments")
		assert.Equal(t, []runtime.UserMessage{resMsg("deferred")}, res.AdditionalContexts)
	})
	for name, v := range map[string]jsonvalue.Value{
		"number against a string schema": jsonvalue.Int(5),
		"not JSON":                       jsonvalue.Value(`"open`),
	} {
		t.Run("invalid replacement: "+name, func(t *testing.T) {
			e := resNewEnv(t)
			mustRegister(t, e.rt, e.def())
			e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				return runtime.AcceptValue(v)
			})
			res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
			assert.Equal(t, runtime.CodeInvalidToolOutput, code(res))
			assert.Nil(t, res.Value)
			assert.Equal(t, 1, e.rec.count("render"), "an invalid replacement is not rendered")
		})
	}
	t.Run("the replacement is snapshotted", func(t *testing.T) {
		e := resNewEnv(t)
		mustRegister(t, e.rt, e.def())
		buf := []byte(`"new"`)
		e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
			return runtime.AcceptValue(jsonvalue.Value(buf))
		})
		res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
		copy(buf, `"BAD"`)
		assert.Equal(t, `"new"`, res.Value.String())
	})
}

func TestR91_ContentAndValueTogetherRejected(t *testing.T) {
	decisions := map[string]runtime.PostDecision{
		"content and value": {Kind: runtime.PostAccept, Content: resBlocks("X"), Value: jsonvalue.String("new")},
		// Further malformed decisions the struct can express.
		"unknown kind":         {Kind: 99},
		"accept with feedback": {Kind: runtime.PostAccept, Feedback: resBlocks("F")},
		"block with content":   {Kind: runtime.PostBlock, Feedback: resBlocks("F"), Content: resBlocks("X")},
		"block with a value":   {Kind: runtime.PostBlock, Feedback: resBlocks("F"), Value: jsonvalue.String("v")},
	}
	for name, d := range decisions {
		t.Run(name, func(t *testing.T) {
			e := resNewEnv(t)
			mustRegister(t, e.rt, e.def())
			e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				return d
			})
			res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
			assert.True(t, res.IsError())
			assert.Nil(t, res.Value)
			assert.NotEqual(t, resBlocks("X"), res.Content, "the rejected content is not applied")
			assert.Equal(t, 1, e.rec.count("finalize"))
			assert.Equal(t, 1, e.rec.count("render"), "the rejected value is not rendered")
			assert.Equal(t, 1, e.rec.count("observer"))
		})
	}
}

func TestR92_BlockFailsWithFeedback(t *testing.T) {
	e := resNewEnv(t)
	def := e.def()
	def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		rc.ConcludeTurn()
		return jsonvalue.String("ok"), nil
	}
	mustRegister(t, e.rt, def)
	feedback := []runtime.ContentBlock{runtime.Text("F"), runtime.Image([]byte{1, 2, 3}, "image/png")}
	e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
		return runtime.Block(feedback)
	})
	res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
	require.True(t, res.IsError())
	assert.Nil(t, res.Value)
	assert.Nil(t, res.Meta, "block removes the value and its meta")
	assert.False(t, res.ConcludesTurn)
	assert.Equal(t, runtime.CodeBlocked, code(res))
	assert.Equal(t, feedback, res.Content)
	final := e.lastFinal(t)
	assert.Equal(t, feedback, final.Content, "finalize sees the feedback as content")
	assert.True(t, final.IsError())
	assert.False(t, final.ConcludesTurn)
}

func TestR93_DecisionContextsRideTheResult(t *testing.T) {
	m := resMsg("M")
	cases := []struct {
		name     string
		deferred bool
		decide   func() runtime.PostDecision
		failure  bool
	}{
		{"block", false, func() runtime.PostDecision { return runtime.Block(resBlocks("F")) }, true},
		{"block after deferred", true, func() runtime.PostDecision { return runtime.Block(resBlocks("F")) }, true},
		{"accept", true, func() runtime.PostDecision { return runtime.Accept() }, false},
		{"accept content", true, func() runtime.PostDecision { return runtime.AcceptContent(resBlocks("X")) }, false},
		{"accept value", true, func() runtime.PostDecision { return runtime.AcceptValue(jsonvalue.String("new")) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := resNewEnv(t)
			def := e.def()
			if c.deferred {
				def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
					rc.DeferContext(resMsg("D1"))
					rc.DeferContext(resMsg("D2"))
					return jsonvalue.String("ok"), nil
				}
			}
			mustRegister(t, e.rt, def)
			e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				d := c.decide()
				d.AdditionalContexts = []runtime.UserMessage{m}
				return d
			})
			res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
			assert.Equal(t, c.failure, res.IsError(), "%+v", res.Failure)
			want := []runtime.UserMessage{m}
			if c.deferred {
				want = []runtime.UserMessage{resMsg("D1"), resMsg("D2"), m}
			}
			assert.Equal(t, want, res.AdditionalContexts, "deferred contexts first, then decision contexts")
		})
	}
	t.Run("contexts of a failed body", func(t *testing.T) {
		e := resNewEnv(t)
		def := e.def()
		def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			rc.DeferContext(resMsg("D1"))
			return nil, errBoom
		}
		mustRegister(t, e.rt, def)
		e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
			d := runtime.Accept()
			d.AdditionalContexts = []runtime.UserMessage{m}
			return d
		})
		res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
		assert.Equal(t, runtime.CodeToolError, code(res))
		assert.Equal(t, []runtime.UserMessage{resMsg("D1"), m}, res.AdditionalContexts)
	})
}

func TestR94_PostExecutePanicsAndSeesReadOnlyView(t *testing.T) {
	for name, after := range map[string]bool{"before next": false, "after next": true} {
		t.Run("panic "+name, func(t *testing.T) {
			e := resNewEnv(t)
			mustRegister(t, e.rt, e.def())
			e.rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
				if after {
					next()
				}
				panic("post broke")
			})
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil)) })
			assert.True(t, res.IsError())
			assert.Equal(t, runtime.CodeHookPanic, code(res))
			assert.Equal(t, 1, e.rec.count("finalize"))
			assert.Equal(t, 1, e.rec.count("observer"))
		})
	}

	// The fixture for the mutation runs: a success with content, value,
	// meta and a deferred context, all reachable from the listener's view.
	setup := func(t *testing.T) *resEnv {
		e := resNewEnv(t)
		def := e.def()
		def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			m := resMsg("deferred")
			m.Meta = jsonvalue.Value(`{"m":1}`)
			rc.DeferContext(m)
			return jsonvalue.String("ok"), nil
		}
		mustRegister(t, e.rt, def)
		return e
	}
	tamper := func(exec runtime.Execution, res runtime.Result) {
		resTamper(res)
		args := exec.Arguments()
		for i := range args {
			args[i] = 'X'
		}
	}

	t.Run("mutation does not change the outcome", func(t *testing.T) {
		base := setup(t)
		want := exec(t, base.rt, context.Background(), call("t", resGoodArgs, nil))
		require.False(t, want.IsError(), "%+v", want.Failure)

		e := setup(t)
		var postExec runtime.Execution
		e.rt.OnPostExecute(func(_ context.Context, exec runtime.Execution, res runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			postExec = exec
			tamper(exec, res)
			return next()
		})
		res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
		assert.Equal(t, want, res)
		require.Len(t, e.preExecs, 1)
		assert.Equal(t, e.preExecs[0].Token(), postExec.Token(), "the listener gets the caller's execution")
		assert.Equal(t, resGoodArgs, postExec.Arguments().String())
		require.Len(t, e.finalExecs, 1)
		assert.Equal(t, resGoodArgs, e.finalExecs[0].Arguments().String())
	})
	t.Run("each listener gets its own copy", func(t *testing.T) {
		// hooks.go: "res is the listener's own copy: changing it changes
		// nothing" — so an outer listener's mutation must not reach an
		// inner listener's view, on which the inner listener decides.
		e := setup(t)
		e.rt.OnPostExecute(func(_ context.Context, exec runtime.Execution, res runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			tamper(exec, res)
			return next()
		})
		var inner runtime.Result
		e.rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, res runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			inner = resDeepCopy(res)
			return next()
		})
		exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
		outer := e.lastPost(t) // the recording listener ran before the tamperer
		assert.Equal(t, outer, inner, "the inner listener sees the untampered result")
	})
}

// ---------------------------------------------------------------------------
// 11. FinalizeContent

func TestR95_FinalizeRunsExactlyOnce(t *testing.T) {
	for _, o := range resOutcomes() {
		t.Run(o.name, func(t *testing.T) {
			e, res := o.run(t)
			assert.Equal(t, o.want, code(res), "%+v", res.Failure)
			assert.Equal(t, 1, e.rec.count("finalize"), "FinalizeContent runs exactly once")
		})
	}
	t.Run("unknown tool", func(t *testing.T) {
		e, res := resOutcome{toolName: "nope"}.run(t)
		assert.Equal(t, runtime.CodeUnknownTool, code(res))
		assert.Equal(t, 0, e.rec.count("finalize"), "no definition, no finalizer")
	})
	t.Run("retry runs the body twice", func(t *testing.T) {
		var retry resOutcome
		for _, o := range resOutcomes() {
			if o.name == "wrapper retry (R69)" {
				retry = o
			}
		}
		require.NotNil(t, retry.setup)
		e, res := retry.run(t)
		assert.False(t, res.IsError())
		assert.Equal(t, 2, e.rec.count("body"))
		assert.Equal(t, 1, e.rec.count("finalize"))
	})
}

func TestR96_FinalizeOwnsOnlyTheContent(t *testing.T) {
	t.Run("denied failure", func(t *testing.T) {
		e := resNewEnv(t)
		def := e.def()
		def.FinalizeContent = func(runtime.Execution, runtime.Result) []runtime.ContentBlock { return resBlocks("X") }
		mustRegister(t, e.rt, def)
		e.rt.OnPreExecute(func(context.Context, runtime.Execution, func() runtime.PreDecision) runtime.PreDecision {
			return runtime.Deny("not allowed")
		})
		res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
		require.True(t, res.IsError())
		assert.Equal(t, runtime.CodeDenied, code(res))
		assert.Equal(t, "not allowed", res.Failure.Message)
		assert.Equal(t, resBlocks("X"), res.Content)
		assert.Nil(t, res.Value)
	})

	// A rich outcome: success with meta, deferred and decision contexts and
	// ConcludesTurn; and a blocked failure with contexts.
	run := func(t *testing.T, block bool, finalize func(runtime.Execution, runtime.Result) []runtime.ContentBlock) runtime.Result {
		e := resNewEnv(t)
		def := e.def()
		def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			rc.DeferContext(resMsg("deferred"))
			rc.ConcludeTurn()
			return jsonvalue.String("ok"), nil
		}
		def.FinalizeContent = finalize
		mustRegister(t, e.rt, def)
		e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
			d := runtime.Accept()
			if block {
				d = runtime.Block(resBlocks("F"))
			}
			d.AdditionalContexts = []runtime.UserMessage{resMsg("decision")}
			return d
		})
		return exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
	}
	for _, block := range []bool{false, true} {
		name := map[bool]string{false: "success", true: "blocked failure"}[block]
		t.Run(name, func(t *testing.T) {
			want := run(t, block, nil)
			if block {
				require.Equal(t, runtime.CodeBlocked, code(want))
			} else {
				require.False(t, want.IsError(), "%+v", want.Failure)
				require.True(t, want.ConcludesTurn)
				require.NotNil(t, want.Meta)
			}
			require.Len(t, want.AdditionalContexts, 2)

			got := run(t, block, func(runtime.Execution, runtime.Result) []runtime.ContentBlock { return resBlocks("Y") })
			assert.Equal(t, resBlocks("Y"), got.Content)
			got.Content = want.Content
			assert.Equal(t, want, got, "every field but the content is kept")

			kept := run(t, block, func(runtime.Execution, runtime.Result) []runtime.ContentBlock { return nil })
			assert.Equal(t, want, kept, "nil keeps the content")
		})
	}
}

func TestR97_FinalizeSeesTheNormalizedCandidate(t *testing.T) {
	cases := []resOutcome{}
	for _, o := range resOutcomes() {
		switch o.name {
		case "aborted", "block", "non-JSON content", "invalid post-execute decision", "wrapper returns an invalid result":
			cases = append(cases, o)
		}
	}
	require.Len(t, cases, 5)
	cases = append(cases, resOutcome{name: "content replaced by post-execute", setup: func(e *resEnv, _ *runtime.ToolDefinition) {
		e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
			d := runtime.AcceptContent(resBlocks("X"))
			d.AdditionalContexts = []runtime.UserMessage{resMsg("M")}
			return d
		})
	}})
	for _, o := range cases {
		t.Run(o.name, func(t *testing.T) {
			e, res := o.run(t)
			assert.Equal(t, o.want, code(res))
			final := e.lastFinal(t)
			// The finalizer keeps the content, so what it saw is exactly
			// the final result.
			assert.Equal(t, res, final, "finalize sees the normalized candidate")
		})
	}
	t.Run("cancelled during the body", func(t *testing.T) {
		var aborted resOutcome
		for _, o := range resOutcomes() {
			if o.name == "aborted" {
				aborted = o
			}
		}
		e, _ := aborted.run(t)
		final := e.lastFinal(t)
		assert.Equal(t, runtime.CodeAborted, code(final))
		assert.Nil(t, final.Value)
	})
}

func TestR98_FinalizerCapturedAtStart(t *testing.T) {
	rt := runtime.New()
	rec := &recorder{}
	started, release := make(chan struct{}), make(chan struct{})
	orig := echo()
	orig.Execute = func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		close(started)
		<-release
		return args, nil
	}
	orig.FinalizeContent = func(runtime.Execution, runtime.Result) []runtime.ContentBlock {
		rec.add("original")
		return resBlocks("original")
	}
	dispose := mustRegister(t, rt, orig)

	done := make(chan runtime.Result)
	go func() { done <- rt.Execute(context.Background(), call("echo", `{}`, nil)) }()
	<-started
	dispose()
	repl := echo()
	repl.FinalizeContent = func(runtime.Execution, runtime.Result) []runtime.ContentBlock {
		rec.add("replacement")
		return resBlocks("replacement")
	}
	mustRegister(t, rt, repl)
	close(release)
	res := <-done
	checkInvariants(t, res)
	assert.Equal(t, []string{"original"}, rec.list())
	assert.Equal(t, resBlocks("original"), res.Content)

	// The replacement is in place for the next call.
	res = exec(t, rt, context.Background(), call("echo", `{}`, nil))
	assert.Equal(t, resBlocks("replacement"), res.Content)
	assert.Equal(t, []string{"original", "replacement"}, rec.list())
}

func TestR99_PanickingFinalizerIsContained(t *testing.T) {
	cases := []struct {
		name     string
		body     func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error)
		finalize func(runtime.Execution, runtime.Result) []runtime.ContentBlock
		content  []runtime.ContentBlock
		code     runtime.ErrorCode
	}{
		{"panic on success", nil,
			func(runtime.Execution, runtime.Result) []runtime.ContentBlock { panic("finalize broke") },
			resBlocks(`rendered "ok"`), ""},
		{"panic on failure", func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
			return nil, errBoom
		},
			func(runtime.Execution, runtime.Result) []runtime.ContentBlock { panic(errBoom) },
			resBlocks("boom"), runtime.CodeToolError},
		{"non-JSON content", nil,
			func(runtime.Execution, runtime.Result) []runtime.ContentBlock { return resBlocks("\xff") },
			resBlocks(`rendered "ok"`), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := resNewEnv(t)
			def := e.def()
			if c.body != nil {
				def.Execute = c.body
			}
			def.FinalizeContent = c.finalize
			mustRegister(t, e.rt, def)
			var res runtime.Result
			require.NotPanics(t, func() { res = exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil)) })
			assert.Equal(t, c.code, code(res))
			assert.Equal(t, c.content, res.Content, "the candidate's content is kept")
			assert.Equal(t, 1, e.rec.count("observer"))
			require.Len(t, e.obsSeen, 1)
			assert.Equal(t, res, e.obsSeen[0])
			assert.Equal(t, 1, e.errCount(), "the failure is reported to the error handler")
		})
	}
}

func TestR100_FinalizeGetsReadOnlyExecution(t *testing.T) {
	e := resNewEnv(t)
	def := e.def()
	var finalArgs []jsonvalue.Value
	def.FinalizeContent = func(exec runtime.Execution, _ runtime.Result) []runtime.ContentBlock {
		e.mu.Lock()
		e.finalExecs = append(e.finalExecs, exec)
		e.mu.Unlock()
		a := exec.Arguments()
		finalArgs = append(finalArgs, a.Clone())
		for i := range a { // a copy: changing it changes nothing
			a[i] = 'X'
		}
		return nil
	}
	mustRegister(t, e.rt, def)
	in := call("t", ` { "path" : 7 } `, e.agent)
	in.CallID, in.RootCallID = "call-9", "root-1"
	res := exec(t, e.rt, context.Background(), in)
	require.Equal(t, runtime.CodeInvalidArgs, code(res))
	require.Len(t, e.finalExecs, 1)
	require.Len(t, e.preExecs, 1)
	require.Len(t, e.obsExecs, 1)
	fx := e.finalExecs[0]
	assert.Equal(t, []jsonvalue.Value{jsonvalue.Value(`{"path":7}`)}, finalArgs, "the raw materialized arguments")
	assert.False(t, fx.Token().IsZero())
	assert.Equal(t, e.preExecs[0].Token(), fx.Token(), "the same token as the other hooks")
	assert.Equal(t, e.obsExecs[0].Token(), fx.Token())
	assert.Equal(t, "call-9", fx.CallID())
	assert.Equal(t, "root-1", fx.RootCallID())
	assert.Equal(t, "t", fx.Name())
	assert.Same(t, e.agent, fx.Agent())
	assert.True(t, fx.Parent().IsZero())
	assert.Equal(t, `{"path":7}`, e.obsExecs[0].Arguments().String(), "the finalizer's mutation reached no one")
}

// ---------------------------------------------------------------------------
// 12. Result freezing and observers

func TestR101_CallerAndObserversGetTheSameSnapshot(t *testing.T) {
	outcomes := map[string]bool{"success": false, "blocked failure": true}
	for name, block := range outcomes {
		t.Run(name, func(t *testing.T) {
			e := resNewEnv(t)
			def := e.def()
			def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
				m := resMsg("deferred")
				m.Meta = jsonvalue.Value(`{"m":1}`)
				rc.DeferContext(m)
				rc.ConcludeTurn()
				return jsonvalue.String("ok"), nil
			}
			mustRegister(t, e.rt, def)
			if block {
				e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
					return runtime.Block(resBlocks("F"))
				})
			}
			// Two observers keep their own views, untouched, past Execute.
			var live1, live2 runtime.Result
			e.rt.OnResult(func(_ runtime.Execution, res runtime.Result) { live1 = res })
			e.rt.OnResult(func(_ runtime.Execution, res runtime.Result) { live2 = res })
			res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
			assert.Equal(t, block, res.IsError())
			require.Len(t, e.obsSeen, 1)
			assert.Equal(t, res, e.obsSeen[0], "the observer received the returned result")
			assert.Equal(t, res, live1)
			returned := resDeepCopy(res)

			resTamper(live1)
			assert.Equal(t, returned, res, "mutating an observer's result does not reach the caller's")
			assert.Equal(t, returned, live2, "nor another observer's")
			resTamper(res)
			assert.Equal(t, returned, live2, "mutating the returned result does not reach an observer's")
		})
	}
	t.Run("observer mutation does not reach the caller", func(t *testing.T) {
		e := resNewEnv(t)
		mustRegister(t, e.rt, e.def())
		base := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
		e.rt.OnResult(func(_ runtime.Execution, res runtime.Result) { resTamper(res) })
		res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
		assert.Equal(t, base, res)
	})
}

func TestR102_ObserversCannotTransformTheResult(t *testing.T) {
	build := func(t *testing.T, tamper bool) (runtime.Result, runtime.Result) {
		e := resNewEnv(t)
		def := e.def()
		def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			rc.DeferContext(resMsg("deferred"))
			return jsonvalue.String("ok"), nil
		}
		mustRegister(t, e.rt, def)
		if tamper {
			e.rt.OnResult(func(_ runtime.Execution, res runtime.Result) {
				resTamper(res)
				res.Content = append(res.Content, runtime.Text("appended"))
			})
		}
		var second runtime.Result
		e.rt.OnResult(func(_ runtime.Execution, res runtime.Result) { second = resDeepCopy(res) })
		res := exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil))
		return res, second
	}
	want, _ := build(t, false)
	require.False(t, want.IsError())
	res, second := build(t, true)
	assert.Equal(t, want, second, "a later observer sees the original")
	assert.Equal(t, want, res, "the caller sees the original")
}

func TestR103_ObserverPanicsAreIsolated(t *testing.T) {
	for _, v := range []any{"observer broke", errBoom, nil} {
		t.Run(fmt.Sprint(v), func(t *testing.T) {
			build := func(t *testing.T, panics bool) (*resEnv, runtime.Result, *recorder) {
				e := resNewEnv(t)
				mustRegister(t, e.rt, e.def())
				rec := &recorder{}
				if panics {
					e.rt.OnResult(func(runtime.Execution, runtime.Result) { rec.add("O1"); panic(v) })
				}
				e.rt.OnResult(func(runtime.Execution, runtime.Result) { rec.add("O2") })
				var res runtime.Result
				require.NotPanics(t, func() { res = exec(t, e.rt, context.Background(), call("t", resGoodArgs, nil)) })
				return e, res, rec
			}
			_, want, _ := build(t, false)
			e, res, rec := build(t, true)
			assert.Equal(t, []string{"O1", "O2"}, rec.list(), "the later observer ran")
			assert.Equal(t, want, res, "the result is the no-panic result")
			assert.Equal(t, 1, e.rec.count("observer"))
			assert.Equal(t, 1, e.errCount(), "the panic is reported")
		})
	}
}

func TestR104_ObserversSeeEveryOutcome(t *testing.T) {
	cases := append(resOutcomes(), resOutcome{name: "unknown tool", toolName: "nope", want: runtime.CodeUnknownTool})
	for _, o := range cases {
		t.Run(o.name, func(t *testing.T) {
			e, res := o.run(t)
			assert.Equal(t, o.want, code(res))
			require.Equal(t, 1, e.rec.count("observer"), "the observer runs once")
			ox := e.obsExecs[0]
			assert.Equal(t, res, e.obsSeen[0])
			assert.False(t, ox.Token().IsZero())
			assert.Equal(t, "c1", ox.CallID())
			wantName := o.toolName
			if wantName == "" {
				wantName = "t"
			}
			assert.Equal(t, wantName, ox.Name())
			if o.pre {
				require.Len(t, e.preExecs, 1, "pre-execute ran")
				assert.Equal(t, e.preExecs[0].Token(), ox.Token(), "the pre-execute token")
			} else {
				assert.Empty(t, e.preExecs)
			}
			for _, fx := range e.finalExecs {
				assert.Equal(t, fx.Token(), ox.Token())
			}
			for _, px := range e.postExecs {
				assert.Equal(t, px.Token(), ox.Token())
			}
		})
	}
}

func TestR105_ResultInvariants(t *testing.T) {
	// exec (helpers_test.go) asserts the invariants on every result of
	// every test; here the outcomes most likely to break them.
	concluding := func(f func(ctx context.Context) (jsonvalue.Value, error)) func(*resEnv, *runtime.ToolDefinition) {
		return func(_ *resEnv, def *runtime.ToolDefinition) {
			def.Execute = func(ctx context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
				rc.ConcludeTurn()
				return f(ctx)
			}
		}
	}
	ok := func(context.Context) (jsonvalue.Value, error) { return jsonvalue.String("ok"), nil }
	post := func(d runtime.PostDecision) func(*resEnv, *runtime.ToolDefinition) {
		return func(e *resEnv, def *runtime.ToolDefinition) {
			concluding(ok)(e, def)
			e.rt.OnPostExecute(func(context.Context, runtime.Execution, runtime.Result, func() runtime.PostDecision) runtime.PostDecision {
				return d
			})
		}
	}
	wrapper := func(r runtime.Result) func(*resEnv, *runtime.ToolDefinition) {
		return func(e *resEnv, _ *runtime.ToolDefinition) {
			e.rt.WrapExecute(func(context.Context, runtime.Execution, func(context.Context) runtime.Result) runtime.Result {
				return r
			})
		}
	}
	failConcludes := runtime.Fail("X", "bad")
	failConcludes.ConcludesTurn = true
	failValue := runtime.Fail("X", "bad")
	failValue.Value = jsonvalue.String("v")
	cases := append(resOutcomes(),
		resOutcome{name: "unknown tool", toolName: "nope", want: runtime.CodeUnknownTool},
		resOutcome{name: "concluding success", setup: concluding(ok)},
		resOutcome{name: "concluding body error", setup: concluding(func(context.Context) (jsonvalue.Value, error) { return nil, errBoom }), want: runtime.CodeToolError},
		resOutcome{name: "concluding invalid output", setup: concluding(func(context.Context) (jsonvalue.Value, error) { return jsonvalue.Int(1), nil }), want: runtime.CodeInvalidToolOutput},
		resOutcome{name: "concluding then blocked", setup: post(runtime.Block(resBlocks("F"))), want: runtime.CodeBlocked},
		resOutcome{name: "concluding then invalid replacement", setup: post(runtime.AcceptValue(jsonvalue.Int(5))), want: runtime.CodeInvalidToolOutput},
		resOutcome{name: "concluding then cancelled", setup: func(e *resEnv, def *runtime.ToolDefinition) {
			concluding(func(context.Context) (jsonvalue.Value, error) { e.cancel(); return jsonvalue.String("ok"), nil })(e, def)
		}, want: runtime.CodeAborted},
		resOutcome{name: "wrapper: failure concluding", setup: wrapper(failConcludes), want: runtime.CodeInvalidResult},
		resOutcome{name: "wrapper: failure with value", setup: wrapper(failValue), want: runtime.CodeInvalidResult},
		resOutcome{name: "wrapper: neither success nor failure", setup: wrapper(runtime.Result{}), want: runtime.CodeInvalidResult},
	)
	for _, o := range cases {
		t.Run(o.name, func(t *testing.T) {
			e, res := o.run(t)
			assert.Equal(t, o.want, code(res), "%+v", res.Failure)
			assert.NoError(t, res.Check())
			for _, seen := range [][]runtime.Result{e.postSeen, e.finalSeen, e.obsSeen} {
				for _, r := range seen {
					assert.NoError(t, r.Check(), "every hook sees a well-formed result")
				}
			}
			if o.name == "concluding success" {
				assert.True(t, res.ConcludesTurn)
			}
		})
	}
	t.Run("constructors and Check", func(t *testing.T) {
		assert.NoError(t, runtime.Success(jsonvalue.Null(), nil).Check())
		assert.NoError(t, runtime.Fail("X", "m").Check())
		assert.ErrorIs(t, failConcludes.Check(), runtime.ErrInvalidResult)
		assert.ErrorIs(t, failValue.Check(), runtime.ErrInvalidResult)
		assert.ErrorIs(t, runtime.Result{}.Check(), runtime.ErrInvalidResult)
	})
}

// resOpt is one choice along one fault dimension of TestR106.
type resOpt struct {
	name  string
	fails bool // the call must fail when this choice is reached
}

// resCombo is one combination of choices, by index into resDims.
type resCombo [11]int

// resDims are the fault dimensions of TestR106, in pipeline order.
var resDims = [11]struct {
	name string
	opts []resOpt
}{
	{"args", []resOpt{{"valid", false}, {"wrong type", true}, {"missing", true}, {"truncated", true}, {"duplicate", true}, {"too deep", true}, {"bad UTF-8", true}}},
	{"pre", []resOpt{{"next", false}, {"deny", true}, {"panic", true}, {"panic after next", true}, {"ask approved", false}, {"ask, approver panics", true}, {"unknown kind", true}}},
	{"guard", []resOpt{{"none", false}, {"allow", false}, {"deny empty", true}, {"panic", true}}},
	{"wrap", []resOpt{{"none", false}, {"next", false}, {"new ctx", false}, {"retry", false}, {"panic", true}, {"panic after next", true}, {"failure with value", true}, {"empty result", true}, {"non-JSON value", true}, {"bad content", true}, {"short-circuit", true}}},
	{"body", []resOpt{{"ok", false}, {"concludes", false}, {"error", true}, {"tool error", true}, {"panic", true}, {"panic error", true}, {"panic nil", true}, {"non-JSON", true}, {"wrong type", true}, {"nil value", true}, {"typed nil ToolError", true}, {"bad context", true}}},
	{"render", []resOpt{{"ok", false}, {"nil", false}, {"panic", true}, {"error", true}, {"bad UTF-8", true}, {"bad image", true}}},
	{"meta", []resOpt{{"none", false}, {"ok", false}, {"nil", false}, {"panic", true}, {"truncated", true}, {"error", true}}},
	{"post", []resOpt{{"none", false}, {"next", false}, {"content", false}, {"panic", true}, {"block", true}, {"both", true}, {"unknown kind", true}, {"wrong value", true}, {"bad content", true}, {"bad context", true}}},
	{"finalize", []resOpt{{"none", false}, {"keep", false}, {"replace", false}, {"panic", false}, {"bad content", false}}},
	{"observer", []resOpt{{"ok", false}, {"panics first", false}, {"tampers first", false}}},
	{"cancel", []resOpt{{"none", false}, {"before", true}, {"in body", true}, {"in post", true}}},
}

func (c resCombo) String() string {
	var parts []string
	for i, k := range c {
		parts = append(parts, resDims[i].name+"="+resDims[i].opts[k].name)
	}
	return strings.Join(parts, " ")
}

func (c resCombo) fails() bool {
	for i, k := range c {
		if !resDims[i].opts[k].fails {
			continue
		}
		// Content that cannot be materialized is detected after
		// post-execute, so a content replacement there repairs it.
		if c.opt("post") == "content" && (resDims[i].name == "render" && strings.HasPrefix(resDims[i].opts[k].name, "bad") ||
			resDims[i].name == "wrap" && resDims[i].opts[k].name == "bad content") {
			continue
		}
		return true
	}
	return false
}

func (c resCombo) opt(dim string) string {
	for i, d := range resDims {
		if d.name == dim {
			return d.opts[c[i]].name
		}
	}
	panic("no dimension " + dim)
}

// resRunCombo runs one combination and returns the violations it finds.
func resRunCombo(c resCombo) (violations []string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, _, _ := agents()
	rt := runtime.New(
		runtime.WithErrorHandler(func(error) {}),
		runtime.WithApprover(func(_ context.Context, _ runtime.Execution, reason string) runtime.Approval {
			if reason == "panic" {
				panic("approver broke")
			}
			return runtime.AllowedOnce
		}),
	)
	var finalized, observed int
	var observedRes runtime.Result

	bad := resBlocks("\xff")
	def := runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{Name: "t", Description: "Faulty.", Parameters: resPathParams()},
		Output:     runtime.OutputDefinition{Schema: schemasubset.String()},
	}
	def.Execute = func(_ context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		if c.opt("cancel") == "in body" {
			cancel()
		}
		switch c.opt("body") {
		case "concludes":
			rc.ConcludeTurn()
		case "error":
			return nil, errBoom
		case "tool error":
			return nil, &runtime.ToolError{Code: "OWN", Message: "own"}
		case "panic":
			panic("body")
		case "panic error":
			panic(errBoom)
		case "panic nil":
			panic(nil)
		case "non-JSON":
			return jsonvalue.Value(`"open`), nil
		case "wrong type":
			return jsonvalue.Int(1), nil
		case "nil value":
			return nil, nil
		case "typed nil ToolError":
			var te *runtime.ToolError
			return nil, te
		case "bad context":
			rc.DeferContext(runtime.UserMessage{Content: bad})
		}
		return jsonvalue.String("ok"), nil
	}
	def.Output.Render = func(_, v jsonvalue.Value) ([]runtime.ContentBlock, error) {
		switch c.opt("render") {
		case "nil":
			return nil, nil
		case "panic":
			panic("render")
		case "error":
			return nil, errBoom
		case "bad UTF-8":
			return bad, nil
		case "bad image":
			return []runtime.ContentBlock{{Type: runtime.ContentImage, Data: "***"}}, nil
		}
		return resBlocks(v.String()), nil
	}
	if m := c.opt("meta"); m != "none" {
		def.Output.PresentationMeta = func(_, v jsonvalue.Value) (jsonvalue.Value, error) {
			switch m {
			case "nil":
				return nil, nil
			case "panic":
				panic("meta")
			case "truncated":
				return jsonvalue.Value(`{"a":`), nil
			case "error":
				return nil, errBoom
			}
			return v, nil
		}
	}
	if f := c.opt("finalize"); f != "none" {
		def.FinalizeContent = func(runtime.Execution, runtime.Result) []runtime.ContentBlock {
			finalized++
			switch f {
			case "replace":
				return resBlocks("final")
			case "panic":
				panic("finalize")
			case "bad content":
				return bad
			}
			return nil
		}
	}
	if _, err := rt.Register(def); err != nil {
		return []string{"register: " + err.Error()}
	}

	rt.OnPreExecute(func(_ context.Context, _ runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		switch c.opt("pre") {
		case "deny":
			return runtime.Deny("no")
		case "panic":
			panic("pre")
		case "panic after next":
			next()
			panic("pre")
		case "ask approved":
			return runtime.Ask("allow")
		case "ask, approver panics":
			return runtime.Ask("panic")
		case "unknown kind":
			return runtime.PreDecision{Kind: 42}
		}
		return next()
	})
	switch c.opt("guard") {
	case "allow":
		rt.Guard(func(runtime.Execution) error { return nil })
	case "deny empty":
		rt.Guard(func(runtime.Execution) error { return errors.New(" ") })
	case "panic":
		rt.Guard(func(runtime.Execution) error { panic("guard") })
	}
	if w := c.opt("wrap"); w != "none" {
		rt.WrapExecute(func(ctx context.Context, _ runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
			switch w {
			case "new ctx":
				return next(context.WithValue(ctx, resCtxKey{}, 1))
			case "retry":
				next(nil)
				return next(nil)
			case "panic":
				panic("wrap")
			case "panic after next":
				next(ctx)
				panic("wrap")
			case "failure with value":
				r := runtime.Fail("X", "bad")
				r.Value, r.ConcludesTurn = jsonvalue.String("v"), true
				return r
			case "empty result":
				return runtime.Result{}
			case "non-JSON value":
				return runtime.Success(jsonvalue.Value(`{"a":`), resBlocks("fine"))
			case "bad content":
				return runtime.Success(jsonvalue.String("v"), bad)
			case "short-circuit":
				return runtime.Fail("CACHED", "cached")
			}
			return next(ctx)
		})
	}
	rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
		if c.opt("cancel") == "in post" {
			cancel()
		}
		return next()
	})
	if p := c.opt("post"); p != "none" {
		rt.OnPostExecute(func(_ context.Context, _ runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			switch p {
			case "content":
				return runtime.AcceptContent(resBlocks("replaced"))
			case "panic":
				panic("post")
			case "block":
				return runtime.Block(resBlocks("blocked"))
			case "both":
				return runtime.PostDecision{Content: resBlocks("x"), Value: jsonvalue.String("y")}
			case "unknown kind":
				return runtime.PostDecision{Kind: 7}
			case "wrong value":
				return runtime.AcceptValue(jsonvalue.Int(5))
			case "bad content":
				return runtime.AcceptContent(bad)
			case "bad context":
				d := next()
				d.AdditionalContexts = append(d.AdditionalContexts, runtime.UserMessage{Content: bad})
				return d
			}
			return next()
		})
	}
	switch c.opt("observer") {
	case "panics first":
		rt.OnResult(func(runtime.Execution, runtime.Result) { panic("observer") })
	case "tampers first":
		rt.OnResult(func(_ runtime.Execution, r runtime.Result) { resTamper(r) })
	}
	rt.OnResult(func(_ runtime.Execution, r runtime.Result) {
		observed++
		observedRes = resDeepCopy(r)
	})

	args := map[string]string{
		"valid": resGoodArgs, "wrong type": `{"path":1}`, "missing": `{}`, "truncated": `{"path":`,
		"duplicate": `{"path":"a","path":"b"}`, "bad UTF-8": "{\"path\":\"\xff\"}",
		"too deep": `{"path":"p","x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
	}[c.opt("args")]
	if c.opt("cancel") == "before" {
		cancel()
	}

	var res runtime.Result
	panicked := func() (p any) {
		defer func() { p = recover() }()
		res = rt.Execute(ctx, call("t", args, a))
		return nil
	}()
	if panicked != nil {
		return []string{fmt.Sprintf("Execute panicked: %v", panicked)}
	}
	v := func(format string, args ...any) { violations = append(violations, fmt.Sprintf(format, args...)) }
	if err := res.Check(); err != nil {
		v("Check: %v", err)
	}
	if res.IsError() && res.Code() == "" {
		v("a failure without a code")
	}
	if !res.IsError() && !jsonvalue.IsCanonical(res.Value) {
		v("a success whose Value is not canonical JSON")
	}
	if res.Meta != nil && !json.Valid(res.Meta) {
		v("Meta is not JSON")
	}
	if raw, err := json.Marshal(res.Durable()); err != nil {
		v("the durable projection does not marshal: %v", err)
	} else if !json.Valid(raw) {
		v("the durable projection is not JSON")
	}
	for _, m := range res.AdditionalContexts {
		if err := m.Check(); err != nil {
			v("a context does not marshal: %v", err)
		}
	}
	if res.IsError() != c.fails() {
		v("IsError=%v, want %v", res.IsError(), c.fails())
	}
	switch c.opt("args") {
	case "truncated", "duplicate", "bad UTF-8", "too deep":
		if res.Code() != runtime.CodeInvalidArgs {
			v("non-JSON arguments give %s, want INVALID_ARGS", res.Code())
		}
	}
	if c.opt("finalize") != "none" && finalized != 1 {
		v("FinalizeContent ran %d times, want 1", finalized)
	}
	if observed != 1 {
		v("the observer ran %d times, want 1", observed)
	} else if !reflect.DeepEqual(observedRes, res) {
		v("the observer saw a different result")
	}
	return violations
}

type resCtxKey struct{}

func TestR106_ExecuteNeverPanics(t *testing.T) {
	var combos []resCombo
	// Every single fault on an otherwise clean call.
	for i, d := range resDims {
		for k := range d.opts {
			var c resCombo
			c[i] = k
			combos = append(combos, c)
		}
	}
	// Then a deterministic random sample of combined faults.
	r := rand.New(rand.NewPCG(106, 2024))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for range n {
		var c resCombo
		for i, d := range resDims {
			// Bias towards the clean choice so that later stages are reached.
			if r.IntN(3) > 0 {
				c[i] = r.IntN(len(d.opts))
			}
		}
		combos = append(combos, c)
	}

	type hit struct {
		count int
		first resCombo
	}
	found := map[string]*hit{}
	for _, c := range combos {
		for _, msg := range resRunCombo(c) {
			h := found[msg]
			if h == nil {
				h = &hit{first: c}
				found[msg] = h
			}
			h.count++
		}
	}
	msgs := make([]string, 0, len(found))
	for m := range found {
		msgs = append(msgs, m)
	}
	sort.Strings(msgs)
	for _, m := range msgs {
		t.Errorf("%s (%d of %d combinations), first: %s", m, found[m].count, len(combos), found[m].first)
	}

	t.Run("typed nil ToolError is the tool's fault", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, tool("t", func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
			var te *runtime.ToolError
			return nil, te
		}))
		var res runtime.Result
		require.NotPanics(t, func() { res = exec(t, rt, context.Background(), call("t", `{}`, nil)) })
		assert.True(t, res.IsError())
		// No hook is registered, so HOOK_PANIC ("a listener, guard or
		// wrapper panicked") would blame the wrong party.
		assert.Contains(t, []runtime.ErrorCode{runtime.CodeToolError, runtime.CodeToolPanic}, code(res), "%+v", res.Failure)
	})
	t.Run("wrapper returning a non-JSON value", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		rt.WrapExecute(func(context.Context, runtime.Execution, func(context.Context) runtime.Result) runtime.Result {
			return runtime.Success(jsonvalue.Value(`{"a":`), resBlocks("fine"))
		})
		res := exec(t, rt, context.Background(), call("echo", `{}`, nil))
		// The candidate must be materialized like content and meta are
		// (R74, DESIGN §4): a value that is not JSON is INVALID_RESULT.
		assert.True(t, res.IsError(), "Value %q", res.Value)
		assert.Equal(t, runtime.CodeInvalidResult, code(res))
	})
}

func TestR107_DurableProjectionHasNoValue(t *testing.T) {
	const secret = "SECRET-VALUE-42"
	e := resNewEnv(t)
	def := e.def()
	def.Execute = func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
		return jsonvalue.String(secret), nil
	}
	def.Output.Render = func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error) { return resBlocks("rendered"), nil }
	def.Output.PresentationMeta = func(_, _ jsonvalue.Value) (jsonvalue.Value, error) { return jsonvalue.Value(`{"m":1}`), nil }
	var presented []runtime.ToolResult
	def.PresentResult = func(_ jsonvalue.Value, r runtime.ToolResult) *runtime.ToolResultView {
		presented = append(presented, r)
		return nil
	}
	mustRegister(t, e.rt, def)

	_, hasValue := reflect.TypeFor[runtime.ToolResult]().FieldByName("Value")
	assert.False(t, hasValue, "ToolResult has no value field")

	keys := func(t *testing.T, raw []byte) []string {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &m), "%s", raw)
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}

	t.Run("success", func(t *testing.T) {
		in := call("t", resGoodArgs, nil)
		res := exec(t, e.rt, context.Background(), in)
		require.False(t, res.IsError(), "%+v", res.Failure)
		require.Equal(t, `"`+secret+`"`, res.Value.String())
		d := res.Durable()
		raw, err := json.Marshal(d)
		require.NoError(t, err)
		assert.Equal(t, []string{"content", "isError", "meta"}, keys(t, raw))
		assert.NotContains(t, string(raw), secret)
		assert.JSONEq(t, `{"content":[{"type":"text","text":"rendered"}],"isError":false,"meta":{"m":1}}`, string(raw))

		e.rt.PresentResult(in, d)
		require.Len(t, presented, 1)
		assert.Equal(t, d, presented[0])
		raw, err = json.Marshal(presented[0])
		require.NoError(t, err)
		assert.NotContains(t, string(raw), secret, "PresentResult receives no value")
	})
	t.Run("failure", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, tool("f", func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
			return nil, &runtime.ToolError{Code: "OWN", Message: "went wrong"}
		}))
		res := exec(t, rt, context.Background(), call("f", `{}`, nil))
		raw, err := json.Marshal(res.Durable())
		require.NoError(t, err)
		assert.Equal(t, []string{"content", "error", "isError"}, keys(t, raw))
		assert.JSONEq(t, `{"content":[{"type":"text","text":"went wrong"}],"isError":true,"error":{"message":"went wrong","info":{"code":"OWN"}}}`, string(raw))
	})
	t.Run("the projection is detached from the result", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, tool("f", func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
			return nil, errBoom
		}))
		res := exec(t, rt, context.Background(), call("f", `{}`, nil))
		d := res.Durable()
		require.NotNil(t, d.Error)
		d.Content[0].Text = "tampered"
		d.Error.Message = "tampered"
		assert.Equal(t, resBlocks("boom"), res.Content)
		assert.Equal(t, "boom", res.Failure.Message, "changing the projection's error changes the result")
	})
}
