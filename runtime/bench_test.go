package runtime_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// benchChain builds global ← A ← B ← D with 100 global tools, 10 tools of
// A's own, a deny and an allow-list restriction on B, and a classified tool.
func benchChain(b *testing.B) (*runtime.Runtime, *runtime.Agent) {
	rt := runtime.New()
	a := &runtime.Agent{ID: "A"}
	bb := &runtime.Agent{ID: "B", Parent: a}
	d := &runtime.Agent{ID: "D", Parent: bb}
	var allow []string
	for i := range 100 {
		def := echo()
		def.Name = fmt.Sprintf("tool_%03d", i)
		def.Parameters = schemasubset.Object(schemasubset.Prop("path", schemasubset.String())).WithRequired("path")
		def.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
		mustRegister(b, rt, def)
		if i%2 == 0 {
			allow = append(allow, def.Name)
		}
	}
	for i := range 10 {
		mustRegister(b, rt.Scope(a), tool(fmt.Sprintf("a_%d", i), nil))
	}
	_, err := rt.Scope(bb).Restrict(runtime.Restriction{Deny: []string{"tool_000"}})
	require.NoError(b, err)
	_, err = rt.Scope(bb).Restrict(runtime.Restriction{Allow: append(allow, "a_1", "a_2")})
	require.NoError(b, err)
	return rt, d
}

// BenchmarkSchemas measures Schemas of 100 tools seen through a scope with
// two restrictions: allocations depend on the number of tools only.
func BenchmarkSchemas(b *testing.B) {
	rt := runtime.New()
	a := &runtime.Agent{ID: "A"}
	for i := range 100 {
		def := echo()
		def.Name = fmt.Sprintf("tool_%03d", i)
		mustRegister(b, rt.Scope(a), def)
	}
	for i := range 20 {
		mustRegister(b, rt, tool(fmt.Sprintf("global_%02d", i), nil))
	}
	_, err := rt.Scope(a).Restrict(runtime.Restriction{Deny: []string{"global_00"}})
	require.NoError(b, err)
	_, err = rt.Scope(a).Restrict(runtime.Restriction{Allow: []string{"global_01", "global_02"}})
	require.NoError(b, err)
	require.Len(b, rt.Schemas(a), 102)
	b.ReportAllocs()
	for b.Loop() {
		_ = rt.Schemas(a)
	}
}

// BenchmarkGet measures Get on a three-level scope chain.
func BenchmarkGet(b *testing.B) {
	rt, d := benchChain(b)
	_, ok := rt.Get("tool_050", d)
	require.True(b, ok)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = rt.Get("tool_050", d)
	}
}

// BenchmarkExecutionMode measures ExecutionMode with a classifier, on a
// three-level scope chain, for canonical arguments.
func BenchmarkExecutionMode(b *testing.B) {
	rt, d := benchChain(b)
	in := runtime.ExecutionInput{CallID: "c", Name: "tool_050", Arguments: []byte(`{"path":"/src/main.go","offset":1}`), Agent: d}
	require.Equal(b, runtime.Parallel, rt.ExecutionMode(in))
	b.ReportAllocs()
	for b.Loop() {
		_ = rt.ExecutionMode(in)
	}
}

// BenchmarkExecute measures one call of echo with no hooks.
func BenchmarkExecute(b *testing.B) {
	rt := runtime.New()
	mustRegister(b, rt, echo())
	in := call("echo", `{"path":"/src/main.go","offset":120,"limit":200}`, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := rt.Execute(ctx, in); res.IsError() {
			b.Fatal(res.Failure.Message)
		}
	}
}
