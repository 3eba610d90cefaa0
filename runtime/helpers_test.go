package runtime_test

// Shared fixtures for the rule tests (RULES.md "Conventions of this
// checklist"): rt is a fresh runtime, the scope chain is global ← A ← B (B a
// child of A) with C a sibling of A, echo is a tool whose parameters are
// {"type":"object"}, whose output schema is {} and whose body returns its
// arguments, rendered as one text block; a recorder appends hook names.

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// agents returns the fixture chain: A and C top-level, B a child of A.
func agents() (a, b, c *runtime.Agent) {
	a = &runtime.Agent{ID: "A"}
	b = &runtime.Agent{ID: "B", Parent: a}
	c = &runtime.Agent{ID: "C"}
	return a, b, c
}

// recorder collects event names from concurrent hooks.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(e string) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func (r *recorder) count(e string) int {
	n := 0
	for _, x := range r.list() {
		if x == e {
			n++
		}
	}
	return n
}

// renderText renders a value as one text block holding its JSON.
func renderText(_, value jsonvalue.Value) ([]runtime.ContentBlock, error) {
	return []runtime.ContentBlock{runtime.Text(value.String())}, nil
}

// echo returns the fixture tool: it returns its arguments.
func echo() runtime.ToolDefinition {
	return runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{Name: "echo", Description: "Echo the arguments.", Parameters: schemasubset.Object()},
		Output:     runtime.OutputDefinition{Schema: schemasubset.Any(), Render: renderText},
		Execute: func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			return args, nil
		},
	}
}

// tool returns a tool named name whose body runs body.
func tool(name string, body func(ctx context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error)) runtime.ToolDefinition {
	def := echo()
	def.Name = name
	def.Description = "The " + name + " tool."
	if body != nil {
		def.Execute = body
	}
	return def
}

// constant returns a body that returns v.
func constant(v string) func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
	return func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
		return jsonvalue.Value(v), nil
	}
}

// mustRegister registers def and returns its disposer.
func mustRegister(t testing.TB, s interface {
	Register(runtime.ToolDefinition) (runtime.Disposer, error)
}, def runtime.ToolDefinition) runtime.Disposer {
	t.Helper()
	d, err := s.Register(def)
	require.NoError(t, err, def.Name)
	return d
}

// call builds an ExecutionInput.
func call(name, args string, agent *runtime.Agent) runtime.ExecutionInput {
	return runtime.ExecutionInput{CallID: "c1", Name: name, Arguments: []byte(args), Agent: agent}
}

// exec runs one call and checks the result invariants (R105).
func exec(t testing.TB, rt *runtime.Runtime, ctx context.Context, in runtime.ExecutionInput) runtime.Result {
	t.Helper()
	res := rt.Execute(ctx, in)
	checkInvariants(t, res)
	return res
}

// checkInvariants asserts R105 on any result: a failure never has a value
// and never concludes the turn; a success has a value; everything in it is
// lossless JSON.
func checkInvariants(t testing.TB, res runtime.Result) {
	t.Helper()
	if res.IsError() {
		assert.Nil(t, res.Value, "a failure never carries a value")
		assert.False(t, res.ConcludesTurn, "a failure never concludes the turn")
		assert.NotEmpty(t, res.Failure.Info.Code, "a failure has a code")
	} else {
		assert.NotNil(t, res.Value, "a success carries a value")
	}
	_, err := res.Durable().MarshalJSON()
	assert.NoError(t, err, "the durable projection is JSON")
	for _, m := range res.AdditionalContexts {
		_, err := m.MarshalJSON()
		assert.NoError(t, err)
	}
}

// code returns the failure code of res, or "" for a success.
func code(res runtime.Result) runtime.ErrorCode { return res.Code() }

var errBoom = errors.New("boom")
