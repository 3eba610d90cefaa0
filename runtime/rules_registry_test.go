package runtime_test

// Rule tests for RULES.md sections 1 to 3 (R1–R32): registration and
// validation, visibility (scopes, shadowing, restrictions, presentation) and
// the Schemas projection, plus two registry tests: restriction intersection
// along a three-level scope chain, and registry consistency under
// concurrent registrations, disposals and reads.

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/timeout"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// ---------------------------------------------------------------------------
// Helpers of this file (prefixed reg).

// regCountChanges counts tools/change events from now on.
func regCountChanges(t testing.TB, rt *runtime.Runtime) func() int {
	t.Helper()
	var n atomic.Int64
	d := rt.OnChange(func() { n.Add(1) })
	t.Cleanup(d)
	return func() int { return int(n.Load()) }
}

// regTool is a tool named name whose description is id and whose body
// returns id as a JSON string, so every check can tell definitions apart.
func regTool(name, id string) runtime.ToolDefinition {
	def := tool(name, constant(strconv.Quote(id)))
	def.Description = id
	return def
}

// regNames returns the names of schemas, in order.
func regNames(schemas []runtime.ToolSchema) []string {
	out := make([]string, 0, len(schemas))
	for _, s := range schemas {
		out = append(out, s.Name)
	}
	return out
}

// regView is what one scope sees through Schemas: name → description.
func regView(rt *runtime.Runtime, a *runtime.Agent) map[string]string {
	out := map[string]string{}
	for _, s := range rt.Schemas(a) {
		out[s.Name] = s.Description
	}
	return out
}

// regRun executes name with {} for agent a and returns the id the body
// returned (a JSON string) or the failure code.
func regRun(t testing.TB, rt *runtime.Runtime, name string, a *runtime.Agent) (id string, failure runtime.ErrorCode) {
	t.Helper()
	res := exec(t, rt, context.Background(), call(name, `{}`, a))
	if res.IsError() {
		return "", code(res)
	}
	s, err := strconv.Unquote(res.Value.String())
	require.NoError(t, err, "body value %s", res.Value)
	return s, ""
}

// regSees checks that Get, Schemas, ExecutionMode and Execute agree on what
// agent a sees under name, and returns the id of that definition, or ""
// when nothing is visible. Definitions built by regTool with a classifier
// that returns true are Parallel exactly when visible.
func regSees(t testing.TB, rt *runtime.Runtime, a *runtime.Agent, name string) string {
	t.Helper()
	def, ok := rt.Get(name, a)
	desc, listed := regView(rt, a)[name]
	mode := rt.ExecutionMode(call(name, `{}`, a))
	id, failure := regRun(t, rt, name, a)
	if !ok {
		assert.False(t, listed, "%s: Get hides it, Schemas lists it", name)
		assert.Equal(t, runtime.Exclusive, mode, "%s: hidden tools are exclusive", name)
		assert.Equal(t, runtime.CodeUnknownTool, failure, "%s: hidden tools are UNKNOWN_TOOL", name)
		return ""
	}
	assert.True(t, listed, "%s: Get sees it, Schemas does not list it", name)
	assert.Equal(t, def.Description, desc, "%s: Schemas shows another definition", name)
	assert.Empty(t, failure, "%s: Get sees it, Execute failed", name)
	assert.Equal(t, def.Description, id, "%s: Execute ran another definition than Get returned", name)
	if def.ConcurrencySafe != nil {
		assert.Equal(t, runtime.Parallel, mode, "%s: ExecutionMode used another definition", name)
	}
	return def.Description
}

// regParallel returns def with a classifier that always answers safe.
func regParallel(def runtime.ToolDefinition) runtime.ToolDefinition {
	def.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
	return def
}

// regMustRestrict applies r to a's scope.
func regMustRestrict(t testing.TB, rt *runtime.Runtime, a *runtime.Agent, r runtime.Restriction) runtime.Disposer {
	t.Helper()
	d, err := rt.Scope(a).Restrict(r)
	require.NoError(t, err)
	return d
}

// regState is everything a failed operation must leave unchanged.
type regState struct {
	views        map[string][]runtime.ToolSchema
	presentation map[string]runtime.PresentationMode
}

func regSnapshot(rt *runtime.Runtime, agents ...*runtime.Agent) regState {
	st := regState{views: map[string][]runtime.ToolSchema{}, presentation: map[string]runtime.PresentationMode{}}
	for _, a := range append([]*runtime.Agent{nil}, agents...) {
		key := "global"
		if a != nil {
			key = a.ID
		}
		st.views[key] = rt.Schemas(a)
		st.presentation[key] = rt.PresentationOf(a)
	}
	return st
}

// ---------------------------------------------------------------------------
// 1. Registration and validation of definitions

func TestR01_OutputIsMandatory(t *testing.T) {
	a, _, _ := agents()
	cases := []struct {
		name string
		edit func(*runtime.ToolDefinition)
	}{
		{"no renderer", func(d *runtime.ToolDefinition) { d.Output.Render = nil }},
		{"no output schema", func(d *runtime.ToolDefinition) { d.Output.Schema = nil }},
		{"no output at all", func(d *runtime.ToolDefinition) { d.Output = runtime.OutputDefinition{} }},
	}
	for _, tc := range cases {
		for _, scope := range []*runtime.Agent{nil, a} {
			t.Run(tc.name+"/"+map[bool]string{true: "global", false: "scoped"}[scope == nil], func(t *testing.T) {
				rt := runtime.New()
				changes := regCountChanges(t, rt)
				def := echo()
				tc.edit(&def)
				d, err := rt.Scope(scope).Register(def)
				require.Error(t, err)
				assert.ErrorIs(t, err, runtime.ErrInvalidDefinition)
				assert.Nil(t, d, "a failed registration returns no disposer")
				_, ok := rt.Get("echo", scope)
				assert.False(t, ok)
				_, ok = rt.Get("echo", nil)
				assert.False(t, ok)
				assert.Empty(t, rt.Schemas(scope))
				assert.Zero(t, changes(), "no tools/change for a refused registration")
			})
		}
	}
}

func TestR02_ParameterSchemaIsCheckedAgainstTheSubset(t *testing.T) {
	// The scenario's schema cannot even become a *schemasubset.Node: the
	// only way in from JSON refuses the unsupported keyword, naming it.
	_, err := schemasubset.Parse([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":0}}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/properties/n/minimum")

	// Nodes built in Go can still break the subset's combination rules;
	// Register must refuse them and name the offending location.
	cases := []struct {
		name    string
		params  *schemasubset.Node
		pointer string
	}{
		{"enum of the wrong type", schemasubset.Object(schemasubset.Prop("n", schemasubset.Integer().WithEnum(jsonvalue.Value(`"x"`)))), "/properties/n/enum/0"},
		{"items without type array", schemasubset.Object(schemasubset.Prop("n", schemasubset.Integer().WithItems(schemasubset.String()))), "/properties/n/items"},
		{"required name not in properties", schemasubset.Object(schemasubset.Prop("n", schemasubset.Integer())).WithRequired("m"), "/required/0"},
		{"oneOf with one branch", schemasubset.Object(schemasubset.Prop("n", schemasubset.OneOf(schemasubset.String()))), "/properties/n/oneOf"},
		{"deeply nested const of the wrong type", schemasubset.Object(schemasubset.Prop("o", schemasubset.Object(schemasubset.Prop("n", schemasubset.String().WithConst(jsonvalue.Value(`1`)))))), "/properties/o/properties/n/const"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			changes := regCountChanges(t, rt)
			def := echo()
			def.Parameters = tc.params
			_, err := rt.Register(def)
			require.Error(t, err, "an unsupported parameter schema must be refused, not accepted and ignored")
			assert.ErrorIs(t, err, runtime.ErrInvalidDefinition)
			assert.Contains(t, err.Error(), tc.pointer)
			var se *schemasubset.SchemaError
			if assert.ErrorAs(t, err, &se) {
				var ptrs []string
				for _, is := range se.Issues {
					ptrs = append(ptrs, is.Pointer)
				}
				assert.Contains(t, ptrs, tc.pointer)
			}
			_, ok := rt.Get("echo", nil)
			assert.False(t, ok)
			assert.Zero(t, changes())
		})
	}
}

func TestR03_ParameterRootIsAnObject(t *testing.T) {
	cases := []struct {
		name   string
		params *schemasubset.Node
	}{
		{"string", schemasubset.String()},
		{"integer", schemasubset.Integer()},
		{"array", schemasubset.Array(nil)},
		{"null", schemasubset.Null()},
		{"empty schema", schemasubset.Any()},
		{"root oneOf of objects", schemasubset.OneOf(schemasubset.Object(), schemasubset.Object())},
		{"nil", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := runtime.New()
			changes := regCountChanges(t, rt)
			def := echo()
			def.Parameters = tc.params
			_, err := rt.Register(def)
			require.Error(t, err)
			assert.ErrorIs(t, err, runtime.ErrInvalidDefinition)
			_, ok := rt.Get("echo", nil)
			assert.False(t, ok)
			assert.Zero(t, changes())
		})
	}
	t.Run("object root registers", func(t *testing.T) {
		rt := runtime.New()
		def := echo()
		def.Parameters = schemasubset.MustParse(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
		mustRegister(t, rt, def)
	})
}

func TestR04_OutputSchemaMayHaveAnyRootButMustBeSupported(t *testing.T) {
	ok := []struct {
		name   string
		schema *schemasubset.Node
		value  string
	}{
		{"string", schemasubset.String(), `"s"`},
		{"null", schemasubset.Null(), `null`},
		{"empty", schemasubset.Any(), `{"a":[1]}`},
		{"integer", schemasubset.Integer(), `3`},
		{"boolean", schemasubset.Boolean(), `true`},
		{"array", schemasubset.Array(schemasubset.Integer()), `[1,2]`},
		{"nullable string", schemasubset.Nullable(schemasubset.String()), `null`},
		{"object", schemasubset.Object(), `{}`},
	}
	for _, tc := range ok {
		t.Run("accepts "+tc.name, func(t *testing.T) {
			rt := runtime.New()
			def := tool("t", constant(tc.value))
			def.Output.Schema = tc.schema
			mustRegister(t, rt, def)
			res := exec(t, rt, context.Background(), call("t", `{}`, nil))
			require.False(t, res.IsError(), "%+v", res.Failure)
			assert.Equal(t, tc.value, res.Value.String())
		})
	}

	// {"type":"string","format":"uri"} cannot become a Node at all.
	_, err := schemasubset.Parse([]byte(`{"type":"string","format":"uri"}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/format")

	bad := []struct {
		name    string
		schema  *schemasubset.Node
		pointer string
	}{
		{"enum of the wrong type", schemasubset.String().WithEnum(jsonvalue.Value(`1`)), "/enum/0"},
		{"items on a scalar", schemasubset.Integer().WithItems(schemasubset.String()), "/items"},
		{"nested oneOf with one branch", schemasubset.Array(schemasubset.OneOf(schemasubset.String())), "/items/oneOf"},
	}
	for _, tc := range bad {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			rt := runtime.New()
			changes := regCountChanges(t, rt)
			def := echo()
			def.Output.Schema = tc.schema
			_, err := rt.Register(def)
			require.Error(t, err)
			assert.ErrorIs(t, err, runtime.ErrInvalidDefinition)
			assert.Contains(t, err.Error(), tc.pointer)
			_, found := rt.Get("echo", nil)
			assert.False(t, found)
			assert.Zero(t, changes())
		})
	}
}

func TestR05_TimeoutMustBePositive(t *testing.T) {
	for _, neg := range []time.Duration{-time.Second, -1} {
		rt := runtime.New()
		changes := regCountChanges(t, rt)
		def := echo()
		def.Timeout = neg
		_, err := rt.Register(def)
		require.Error(t, err, "timeout %v", neg)
		assert.ErrorIs(t, err, runtime.ErrInvalidDefinition)
		_, ok := rt.Get("echo", nil)
		assert.False(t, ok)
		assert.Zero(t, changes())
	}

	// Timeout 0 registers and means "no deadline", with and without the
	// timeout policy; the positive control proves the probe sees deadlines.
	for _, policy := range []bool{false, true} {
		t.Run(map[bool]string{false: "bare runtime", true: "with the timeout policy"}[policy], func(t *testing.T) {
			rt := runtime.New()
			if policy {
				t.Cleanup(timeout.Install(rt))
			}
			deadlines := map[string]bool{}
			var mu sync.Mutex
			probe := func(name string) func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
				return func(ctx context.Context, _ jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
					_, ok := ctx.Deadline()
					mu.Lock()
					deadlines[name] = ok
					mu.Unlock()
					return jsonvalue.Value(`null`), nil
				}
			}
			zero := tool("zero", probe("zero"))
			zero.Timeout = 0
			mustRegister(t, rt, zero)
			hour := tool("hour", probe("hour"))
			hour.Timeout = time.Hour
			mustRegister(t, rt, hour)

			res := exec(t, rt, context.Background(), call("zero", `{}`, nil))
			require.False(t, res.IsError(), "%+v", res.Failure)
			res = exec(t, rt, context.Background(), call("hour", `{}`, nil))
			require.False(t, res.IsError(), "%+v", res.Failure)
			mu.Lock()
			defer mu.Unlock()
			require.Contains(t, deadlines, "zero", "the body ran")
			assert.False(t, deadlines["zero"], "Timeout 0 means no deadline")
			assert.Equal(t, policy, deadlines["hour"], "only the timeout policy turns Timeout into a deadline")
		})
	}
}

func TestR06_NoDuplicatesWithinOneLayer(t *testing.T) {
	a, b, _ := agents()
	for _, scope := range []*runtime.Agent{nil, a} {
		name := map[bool]string{true: "global", false: "scope A"}[scope == nil]
		t.Run(name, func(t *testing.T) {
			rt := runtime.New()
			s := rt.Scope(scope)
			d1 := mustRegister(t, s, regTool("echo", "first"))
			changes := regCountChanges(t, rt)

			d2, err := s.Register(regTool("echo", "second"))
			require.Error(t, err)
			assert.ErrorIs(t, err, runtime.ErrDuplicateTool)
			assert.Nil(t, d2)
			assert.Zero(t, changes())

			def, ok := s.Get("echo")
			require.True(t, ok)
			assert.Equal(t, "first", def.Description, "the first registration stays intact")
			assert.Equal(t, "first", regSees(t, rt, scope, "echo"))
			if scope != nil {
				assert.Equal(t, "first", regSees(t, rt, b, "echo"), "the child still inherits the first")
			}

			// The first disposer still owns the name; afterwards the name
			// is free again.
			d1()
			assert.Equal(t, "", regSees(t, rt, scope, "echo"))
			mustRegister(t, s, regTool("echo", "second"))
			assert.Equal(t, "second", regSees(t, rt, scope, "echo"))
		})
	}
}

func TestR07_SameNameInDifferentLayersIsAllowed(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	changes := regCountChanges(t, rt)
	mustRegister(t, rt, regParallel(regTool("echo", "global")))
	mustRegister(t, rt.Scope(a), regParallel(regTool("echo", "A")))
	mustRegister(t, rt.Scope(c), regParallel(regTool("echo", "C")))
	mustRegister(t, rt.Scope(b), regParallel(regTool("echo", "B")))
	assert.Equal(t, 4, changes())

	assert.Equal(t, "global", regSees(t, rt, nil, "echo"))
	assert.Equal(t, "A", regSees(t, rt, a, "echo"))
	assert.Equal(t, "B", regSees(t, rt, b, "echo"))
	assert.Equal(t, "C", regSees(t, rt, c, "echo"))
}

func TestR08_ReservedNameIsRefused(t *testing.T) {
	a, b, _ := agents()
	require.Equal(t, "run_code", runtime.ReservedTransport)
	for _, scope := range []*runtime.Agent{nil, a, b} {
		rt := runtime.New()
		changes := regCountChanges(t, rt)
		d, err := rt.Scope(scope).Register(tool(runtime.ReservedTransport, nil))
		require.Error(t, err, "scope %v", scope)
		assert.ErrorIs(t, err, runtime.ErrReservedName)
		assert.Nil(t, d)
		_, ok := rt.Get(runtime.ReservedTransport, scope)
		assert.False(t, ok)
		assert.Empty(t, rt.Schemas(scope))
		assert.Zero(t, changes(), "no event for a refused registration")
	}
}

func TestR09_RegisterReturnsAnExactDisposer(t *testing.T) {
	a, b, _ := agents()
	for _, scope := range []*runtime.Agent{nil, a} {
		name := map[bool]string{true: "global", false: "scope A"}[scope == nil]
		t.Run(name, func(t *testing.T) {
			rt := runtime.New()
			s := rt.Scope(scope)
			other := mustRegister(t, s, regTool("other", "other"))
			defer other()
			if scope != nil {
				mustRegister(t, rt, regTool("echo", "global"))
			}
			changes := regCountChanges(t, rt)

			d1 := mustRegister(t, s, regTool("echo", "v1"))
			require.Equal(t, 1, changes())
			d1()
			assert.Equal(t, 2, changes(), "the disposer announces the removal")
			def, ok := s.Get("echo")
			if scope == nil {
				assert.False(t, ok, "the disposer removed the registration")
			} else {
				require.True(t, ok)
				assert.Equal(t, "global", def.Description, "disposing A's echo leaves the global one")
			}
			assert.Equal(t, "other", regSees(t, rt, scope, "other"), "the disposer removed nothing else")

			d1()
			assert.Equal(t, 2, changes(), "a second call does nothing")

			d2 := mustRegister(t, s, regTool("echo", "v2"))
			before := changes()
			d1()
			assert.Equal(t, before, changes(), "a stale disposer emits nothing")
			def, ok = s.Get("echo")
			require.True(t, ok, "a stale disposer never removes a later re-registration")
			assert.Equal(t, "v2", def.Description)
			if scope != nil {
				assert.Equal(t, "v2", regSees(t, rt, b, "echo"))
			}
			d2()
			_, ok = rt.Get("echo", nil)
			assert.Equal(t, scope != nil, ok, "the global layer is untouched by scoped disposers")
		})
	}
}

// regDefSnapshot is a comparable copy of everything in a definition.
type regDefSnapshot struct {
	Name, Description  string
	Params, OutSchema  *schemasubset.Node // pointers, compared for identity
	ParamsCopy         *schemasubset.Node // deep copies, compared with Equal
	OutCopy            *schemasubset.Node
	ParamsJSON         string
	OutJSON            string
	Funcs              map[string]uintptr
	ValidatesArguments bool
	Timeout            time.Duration
}

func regFuncPointer(f any) uintptr {
	v := reflect.ValueOf(f)
	if v.IsNil() {
		return 0
	}
	return v.Pointer()
}

func regSnapshotDef(t testing.TB, def runtime.ToolDefinition) regDefSnapshot {
	t.Helper()
	pj, err := def.Parameters.MarshalJSON()
	require.NoError(t, err)
	oj, err := def.Output.Schema.MarshalJSON()
	require.NoError(t, err)
	return regDefSnapshot{
		Name: def.Name, Description: def.Description,
		Params: def.Parameters, OutSchema: def.Output.Schema,
		ParamsCopy: schemasubset.MustParse(string(pj)), OutCopy: schemasubset.MustParse(string(oj)),
		ParamsJSON: string(pj), OutJSON: string(oj),
		Funcs: map[string]uintptr{
			"Execute":          regFuncPointer(def.Execute),
			"Render":           regFuncPointer(def.Output.Render),
			"PresentationMeta": regFuncPointer(def.Output.PresentationMeta),
			"Validate":         regFuncPointer(def.Output.Validate),
			"FinalizeContent":  regFuncPointer(def.FinalizeContent),
			"ConcurrencySafe":  regFuncPointer(def.ConcurrencySafe),
			"PresentCall":      regFuncPointer(def.PresentCall),
			"PresentResult":    regFuncPointer(def.PresentResult),
		},
		ValidatesArguments: def.ValidatesArguments,
		Timeout:            def.Timeout,
	}
}

func regAssertSameDef(t testing.TB, want regDefSnapshot, def runtime.ToolDefinition) {
	t.Helper()
	got := regSnapshotDef(t, def)
	assert.Equal(t, want.Name, got.Name)
	assert.Equal(t, want.Description, got.Description)
	assert.Same(t, want.Params, got.Params, "parameters node")
	assert.Same(t, want.OutSchema, got.OutSchema, "output schema node")
	assert.True(t, want.ParamsCopy.Equal(def.Parameters), "the parameter schema changed: %s", def.Parameters)
	assert.True(t, want.OutCopy.Equal(def.Output.Schema), "the output schema changed: %s", def.Output.Schema)
	assert.Equal(t, want.ParamsJSON, got.ParamsJSON)
	assert.Equal(t, want.OutJSON, got.OutJSON)
	assert.Equal(t, want.Funcs, got.Funcs)
	assert.Equal(t, want.ValidatesArguments, got.ValidatesArguments)
	assert.Equal(t, want.Timeout, got.Timeout)
	// The callbacks still behave as the caller's do.
	args, value := jsonvalue.Value(`{"n":1}`), jsonvalue.Value(`{"n":2}`)
	content, err := def.Output.Render(args, value)
	assert.NoError(t, err)
	assert.Equal(t, []runtime.ContentBlock{runtime.Text("n=2")}, content)
	meta, err := def.Output.PresentationMeta(args, value)
	assert.NoError(t, err)
	assert.Equal(t, `{"m":1}`, meta.String())
	assert.True(t, def.ConcurrencySafe(args))
	assert.NoError(t, def.Output.Validate(value))
}

func TestR10_DefinitionIsBorrowedReadOnly(t *testing.T) {
	a, _, _ := agents()
	params := schemasubset.Object(
		schemasubset.Prop("n", schemasubset.Integer().WithDescription("a number")),
		schemasubset.Prop("tags", schemasubset.Array(schemasubset.String())),
	).WithRequired("n").Closed()
	out := schemasubset.Object(schemasubset.Prop("n", schemasubset.Integer())).WithRequired("n")
	def := runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{Name: "full", Description: "Every field set.", Parameters: params},
		Output: runtime.OutputDefinition{
			Schema: out,
			Render: func(_, v jsonvalue.Value) ([]runtime.ContentBlock, error) {
				return []runtime.ContentBlock{runtime.Text("n=" + strings.TrimSuffix(strings.TrimPrefix(v.String(), `{"n":`), "}"))}, nil
			},
			PresentationMeta: func(_, _ jsonvalue.Value) (jsonvalue.Value, error) { return jsonvalue.Value(`{"m":1}`), nil },
			Validate:         func(v jsonvalue.Value) error { return schemasubset.Validate(out, v) },
		},
		Execute: func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			return jsonvalue.Value(`{"n":2}`), nil
		},
		FinalizeContent:    func(runtime.Execution, runtime.Result) []runtime.ContentBlock { return nil },
		Timeout:            3 * time.Second,
		ValidatesArguments: false,
		ConcurrencySafe:    func(jsonvalue.Value) bool { return true },
		PresentCall:        func(jsonvalue.Value) *runtime.ToolCallView { return nil },
		PresentResult:      func(jsonvalue.Value, runtime.ToolResult) *runtime.ToolResultView { return nil },
	}
	want := regSnapshotDef(t, def)

	rt := runtime.New()
	mustRegister(t, rt, def)
	mustRegister(t, rt.Scope(a), def)
	regAssertSameDef(t, want, def)

	for _, scope := range []*runtime.Agent{nil, a} {
		schemas := rt.Schemas(scope)
		require.Len(t, schemas, 1)
		assert.Same(t, params, schemas[0].Parameters)
		assert.Equal(t, runtime.Parallel, rt.ExecutionMode(call("full", `{"n":1}`, scope)))
		res := exec(t, rt, context.Background(), call("full", `{"n":1,"tags":["x"]}`, scope))
		require.False(t, res.IsError(), "%+v", res.Failure)
		assert.Equal(t, `{"n":2}`, res.Value.String())
		assert.Equal(t, []runtime.ContentBlock{runtime.Text("n=2")}, res.Content)
		assert.Equal(t, `{"m":1}`, res.Meta.String())
		res = exec(t, rt, context.Background(), call("full", `{"n":"x"}`, scope))
		assert.Equal(t, runtime.CodeInvalidArgs, code(res))
		rt.PresentCall(call("full", `{"n":1}`, scope))
		got, ok := rt.Get("full", scope)
		require.True(t, ok)
		regAssertSameDef(t, want, got)
	}
	regAssertSameDef(t, want, def)

	// The registry holds its own copy of the definition's fields: the
	// caller changing its variable afterwards changes nothing registered.
	def.Description = "changed by the caller"
	def.Timeout = time.Minute
	got, ok := rt.Get("full", nil)
	require.True(t, ok)
	assert.Equal(t, "Every field set.", got.Description)
	assert.Equal(t, 3*time.Second, got.Timeout)
}

func TestR11_FailedRegistrationHasNoSideEffects(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	mustRegister(t, rt, regTool("echo", "global echo"))
	mustRegister(t, rt, regTool("x", "global x"))
	mustRegister(t, rt.Scope(a), regTool("echo", "A echo"))
	mustRegister(t, rt.Scope(a), regTool("reply", "A reply"))
	_, err := rt.Scope(b).PresentAs(runtime.PresentNative)
	require.NoError(t, err)
	noRender := echo()
	noRender.Output.Render = nil

	ops := []struct {
		name string
		op   func() (runtime.Disposer, error)
	}{
		{"R1 global", func() (runtime.Disposer, error) { return rt.Register(noRender) }},
		{"R1 scoped", func() (runtime.Disposer, error) { return rt.Scope(c).Register(noRender) }},
		{"R6 global", func() (runtime.Disposer, error) { return rt.Register(regTool("echo", "dup")) }},
		{"R6 scoped", func() (runtime.Disposer, error) { return rt.Scope(a).Register(regTool("echo", "dup")) }},
		{"R8 global", func() (runtime.Disposer, error) { return rt.Register(tool(runtime.ReservedTransport, nil)) }},
		{"R8 scoped", func() (runtime.Disposer, error) { return rt.Scope(c).Register(tool(runtime.ReservedTransport, nil)) }},
		{"empty restriction", func() (runtime.Disposer, error) { return rt.Scope(a).Restrict(runtime.Restriction{}) }},
		{"unknown name", func() (runtime.Disposer, error) {
			return rt.Scope(a).Restrict(runtime.Restriction{Allow: []string{"nope"}})
		}},
		{"valid and unknown names together", func() (runtime.Disposer, error) {
			return rt.Scope(a).Restrict(runtime.Restriction{Deny: []string{"x", "nope"}})
		}},
		{"allow valid, deny unknown", func() (runtime.Disposer, error) {
			return rt.Scope(c).Restrict(runtime.Restriction{Allow: []string{"x"}, Deny: []string{"nope"}})
		}},
		{"scope-local name", func() (runtime.Disposer, error) {
			return rt.Scope(a).Restrict(runtime.Restriction{Deny: []string{"reply"}})
		}},
		{"reserved name", func() (runtime.Disposer, error) {
			return rt.Scope(c).Restrict(runtime.Restriction{Deny: []string{runtime.ReservedTransport}})
		}},
		{"global restriction", func() (runtime.Disposer, error) {
			return rt.Scope(nil).Restrict(runtime.Restriction{Deny: []string{"x"}})
		}},
		{"second PresentAs", func() (runtime.Disposer, error) { return rt.Scope(b).PresentAs(runtime.PresentCode) }},
		{"global PresentAs", func() (runtime.Disposer, error) { return rt.Scope(nil).PresentAs(runtime.PresentCode) }},
		{"unknown presentation", func() (runtime.Disposer, error) { return rt.Scope(c).PresentAs("fancy") }},
	}
	for _, tc := range ops {
		t.Run(tc.name, func(t *testing.T) {
			before := regSnapshot(rt, a, b, c)
			changes := regCountChanges(t, rt)
			d, err := tc.op()
			require.Error(t, err)
			assert.Nil(t, d)
			assert.Zero(t, changes(), "a refused operation emits no tools/change")
			assert.Equal(t, before, regSnapshot(rt, a, b, c), "a refused operation changes nothing")
		})
	}
	// Refusals left nothing behind that later operations trip over.
	assert.Equal(t, "A echo", regSees(t, rt, a, "echo"))
	assert.Equal(t, "global x", regSees(t, rt, a, "x"))
	assert.Equal(t, "global x", regSees(t, rt, c, "x"))
	mustRegister(t, rt.Scope(c), regTool("echo", "C echo"))
	_, err = rt.Scope(c).PresentAs(runtime.PresentNative)
	assert.NoError(t, err)
}

// ---------------------------------------------------------------------------
// 2. Visibility: scopes, shadowing, restrictions, presentAs / Code Mode

func TestR12_ScopedRegistrationsShadowGlobals(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	global := regTool("echo", "global")
	global.ConcurrencySafe = func(jsonvalue.Value) bool { return false }
	mustRegister(t, rt, global)
	scoped := regTool("echo", "A")
	scoped.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
	dA := mustRegister(t, rt.Scope(a), scoped)

	for _, scope := range []*runtime.Agent{a, b} {
		def, ok := rt.Get("echo", scope)
		require.True(t, ok)
		assert.Equal(t, "A", def.Description)
		assert.Equal(t, map[string]string{"echo": "A"}, regView(rt, scope))
		assert.Equal(t, runtime.Parallel, rt.ExecutionMode(call("echo", `{}`, scope)), "A's classifier")
		id, failure := regRun(t, rt, "echo", scope)
		assert.Empty(t, failure)
		assert.Equal(t, "A", id, "Execute(agent=%s) runs A's body", scope.ID)
	}
	for _, scope := range []*runtime.Agent{nil, c} {
		def, ok := rt.Get("echo", scope)
		require.True(t, ok)
		assert.Equal(t, "global", def.Description)
		assert.Equal(t, map[string]string{"echo": "global"}, regView(rt, scope))
		assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(call("echo", `{}`, scope)), "the global classifier")
		id, _ := regRun(t, rt, "echo", scope)
		assert.Equal(t, "global", id)
	}

	dA()
	for _, scope := range []*runtime.Agent{a, b} {
		def, ok := rt.Get("echo", scope)
		require.True(t, ok)
		assert.Equal(t, "global", def.Description, "disposing A's echo uncovers the global one")
		assert.Equal(t, map[string]string{"echo": "global"}, regView(rt, scope))
		assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(call("echo", `{}`, scope)))
		id, _ := regRun(t, rt, "echo", scope)
		assert.Equal(t, "global", id)
	}
}

func TestR13_ScopeChainsInherit(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	mustRegister(t, rt.Scope(a), regParallel(regTool("t", "A")))

	_, ok := rt.Get("t", b)
	assert.True(t, ok, "B sees its ancestor's tool")
	_, ok = rt.Get("t", c)
	assert.False(t, ok, "sibling C does not see A's tool")
	_, ok = rt.Get("t", nil)
	assert.False(t, ok, "the global view does not see A's tool")
	assert.Equal(t, "A", regSees(t, rt, b, "t"))
	assert.Equal(t, "", regSees(t, rt, c, "t"))

	mustRegister(t, rt.Scope(b), regParallel(regTool("t", "B")))
	assert.Equal(t, "B", regSees(t, rt, b, "t"), "the nearest registration wins")
	assert.Equal(t, "A", regSees(t, rt, a, "t"), "the child's registration does not reach up")

	mustRegister(t, rt, regParallel(regTool("t", "global")))
	assert.Equal(t, "B", regSees(t, rt, b, "t"))
	assert.Equal(t, "A", regSees(t, rt, a, "t"))
	assert.Equal(t, "global", regSees(t, rt, c, "t"))
	assert.Equal(t, "global", regSees(t, rt, nil, "t"))

	// A grandchild inherits through B from A and the global layer.
	d := &runtime.Agent{ID: "D", Parent: b}
	assert.Equal(t, "B", regSees(t, rt, d, "t"))
	mustRegister(t, rt.Scope(a), regParallel(regTool("only_a", "A only")))
	assert.Equal(t, "A only", regSees(t, rt, d, "only_a"))
}

func TestR14_OneVisibilityResolver(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	for _, n := range []string{"x", "y", "echo", "shadow"} {
		mustRegister(t, rt, regParallel(regTool(n, "global "+n)))
	}
	mustRegister(t, rt.Scope(a), regParallel(regTool("shadow", "A shadow")))
	mustRegister(t, rt.Scope(a), regParallel(regTool("a_own", "A a_own")))
	mustRegister(t, rt.Scope(b), regParallel(regTool("b_own", "B b_own")))
	mustRegister(t, rt.Scope(c), regParallel(regTool("echo", "C echo")))
	regMustRestrict(t, rt, a, runtime.Restriction{Deny: []string{"y"}})
	regMustRestrict(t, rt, c, runtime.Restriction{Allow: []string{"x"}})

	names := []string{"x", "y", "echo", "shadow", "a_own", "b_own", "nope", runtime.ReservedTransport}
	want := map[string]map[string]string{
		"global": {"x": "global x", "y": "global y", "echo": "global echo", "shadow": "global shadow"},
		"A":      {"x": "global x", "echo": "global echo", "shadow": "A shadow", "a_own": "A a_own"},
		"B":      {"x": "global x", "echo": "global echo", "shadow": "A shadow", "a_own": "A a_own", "b_own": "B b_own"},
		"C":      {"x": "global x", "echo": "C echo"},
	}
	for _, scope := range []*runtime.Agent{nil, a, b, c} {
		key := "global"
		if scope != nil {
			key = scope.ID
		}
		for _, n := range names {
			t.Run(key+"/"+n, func(t *testing.T) {
				assert.Equal(t, want[key][n], regSees(t, rt, scope, n))
			})
		}
		assert.Equal(t, want[key], regView(rt, scope), "Schemas of %s", key)
	}
}

func TestR15_AllowFilter(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	mustRegister(t, rt, regParallel(regTool("x", "x")))
	mustRegister(t, rt, regParallel(regTool("y", "y")))
	mustRegister(t, rt.Scope(a), regParallel(regTool("own", "A own")))
	regMustRestrict(t, rt, a, runtime.Restriction{Allow: []string{"x"}})

	assert.Equal(t, []string{"own", "x"}, regNames(rt.Schemas(a)))
	assert.Equal(t, "x", regSees(t, rt, a, "x"))
	assert.Equal(t, "", regSees(t, rt, a, "y"))
	assert.Equal(t, "A own", regSees(t, rt, a, "own"))
	res := exec(t, rt, context.Background(), call("y", `{}`, a))
	assert.Equal(t, runtime.CodeUnknownTool, code(res))

	// B inherits A's filtered view; C and the global view are unaffected.
	assert.Equal(t, []string{"own", "x"}, regNames(rt.Schemas(b)))
	assert.Equal(t, "", regSees(t, rt, b, "y"))
	assert.Equal(t, []string{"x", "y"}, regNames(rt.Schemas(c)))
	assert.Equal(t, []string{"x", "y"}, regNames(rt.Schemas(nil)))
}

func TestR16_DenyFilter(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	mustRegister(t, rt, regParallel(regTool("x", "x")))
	mustRegister(t, rt, regParallel(regTool("y", "y")))
	regMustRestrict(t, rt, a, runtime.Restriction{Deny: []string{"y"}})

	_, ok := rt.Get("y", a)
	assert.False(t, ok)
	_, ok = rt.Get("y", nil)
	assert.True(t, ok)
	_, ok = rt.Get("y", c)
	assert.True(t, ok)
	assert.Equal(t, "", regSees(t, rt, a, "y"))
	assert.Equal(t, "", regSees(t, rt, b, "y"), "B inherits A's filtered view")
	assert.Equal(t, "x", regSees(t, rt, a, "x"), "deny removes only the named tool")
	assert.Equal(t, "y", regSees(t, rt, c, "y"))
	assert.Equal(t, "y", regSees(t, rt, nil, "y"))
}

func TestR17_RestrictionsIntersect(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	for _, n := range []string{"x", "y", "z"} {
		mustRegister(t, rt, regParallel(regTool(n, n)))
	}
	regMustRestrict(t, rt, a, runtime.Restriction{Allow: []string{"x", "y"}})
	regMustRestrict(t, rt, b, runtime.Restriction{Deny: []string{"y"}})
	regMustRestrict(t, rt, a, runtime.Restriction{Allow: []string{"x", "z"}})

	assert.Equal(t, []string{"x"}, regNames(rt.Schemas(b)))
	assert.Equal(t, []string{"x"}, regNames(rt.Schemas(a)), "two allow lists in one scope intersect")
	for _, n := range []string{"y", "z"} {
		assert.Equal(t, "", regSees(t, rt, a, n))
		assert.Equal(t, "", regSees(t, rt, b, n))
	}
	assert.Equal(t, "x", regSees(t, rt, b, "x"))
	assert.Equal(t, []string{"x", "y", "z"}, regNames(rt.Schemas(c)))

	// A restriction can only remove: a child's allow list naming a tool its
	// parent hid does not bring it back.
	regMustRestrict(t, rt, b, runtime.Restriction{Allow: []string{"x", "z"}})
	assert.Equal(t, []string{"x"}, regNames(rt.Schemas(b)))
	assert.Equal(t, "", regSees(t, rt, b, "z"))
}

func TestR18_RestrictionsFilterToolsInheritedFromAncestorScopes(t *testing.T) {
	// This implementation follows the seed's prose (Decisions: restrictions
	// filter everything a scope inherits), so Restrict accepts the name of
	// an ancestor-scoped tool and hides it.
	a, b, _ := agents()
	rt := runtime.New()
	mustRegister(t, rt.Scope(a), regParallel(regTool("t", "A t")))
	mustRegister(t, rt.Scope(a), regParallel(regTool("u", "A u")))
	mustRegister(t, rt, regParallel(regTool("x", "x")))

	d, err := rt.Scope(b).Restrict(runtime.Restriction{Deny: []string{"t"}})
	require.NoError(t, err, "the prose reading: an ancestor-scoped name is an inherited name")
	assert.Equal(t, "", regSees(t, rt, b, "t"))
	assert.Equal(t, "A t", regSees(t, rt, a, "t"))
	assert.Equal(t, "A u", regSees(t, rt, b, "u"))
	d()
	assert.Equal(t, "A t", regSees(t, rt, b, "t"))

	// An allow list filters ancestor-scoped tools too.
	regMustRestrict(t, rt, b, runtime.Restriction{Allow: []string{"x"}})
	assert.Equal(t, []string{"x"}, regNames(rt.Schemas(b)))
	assert.Equal(t, "", regSees(t, rt, b, "t"))
	assert.Equal(t, "", regSees(t, rt, b, "u"))
	assert.Equal(t, []string{"t", "u", "x"}, regNames(rt.Schemas(a)))
}

func TestR19_ScopesOwnRegistrationsAreNeverFiltered(t *testing.T) {
	a, b, _ := agents()
	rt := runtime.New()
	mustRegister(t, rt, regParallel(regTool("x", "x")))
	mustRegister(t, rt, regParallel(regTool("w", "global w")))
	mustRegister(t, rt.Scope(a), regParallel(regTool("reply", "A reply")))
	regMustRestrict(t, rt, a, runtime.Restriction{Allow: []string{"x"}})

	assert.Equal(t, "A reply", regSees(t, rt, a, "reply"), "Get, Schemas and Execute keep the scope's own tool")
	assert.Equal(t, []string{"reply", "x"}, regNames(rt.Schemas(a)))
	assert.Equal(t, "A reply", regSees(t, rt, b, "reply"), "B inherits A's own tool")

	// A deny restriction on an inherited name does not hide a later own
	// registration of the same name: the own layer overlays the filter.
	regMustRestrict(t, rt, a, runtime.Restriction{Deny: []string{"w"}})
	assert.Equal(t, "", regSees(t, rt, a, "w"))
	mustRegister(t, rt.Scope(a), regParallel(regTool("w", "A w")))
	assert.Equal(t, "A w", regSees(t, rt, a, "w"))
	assert.Equal(t, []string{"reply", "w", "x"}, regNames(rt.Schemas(a)))
	assert.Equal(t, "global w", regSees(t, rt, nil, "w"))
}

func TestR20_RestrictionsAreLive(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	mustRegister(t, rt, regParallel(regTool("x", "x")))
	regMustRestrict(t, rt, a, runtime.Restriction{Deny: []string{"x"}})
	regMustRestrict(t, rt, c, runtime.Restriction{Allow: []string{"x"}})

	mustRegister(t, rt, regParallel(regTool("w", "w")))
	assert.Equal(t, "w", regSees(t, rt, a, "w"), "a deny-only filter admits later tools")
	assert.Equal(t, "w", regSees(t, rt, b, "w"))
	mustRegister(t, rt, regParallel(regTool("w2", "w2")))
	assert.Equal(t, "", regSees(t, rt, c, "w2"), "an allow list excludes later tools")
	assert.Equal(t, []string{"x"}, regNames(rt.Schemas(c)))

	// Later ancestor-scoped tools are filtered live as well.
	mustRegister(t, rt.Scope(a), regParallel(regTool("late", "A late")))
	regMustRestrict(t, rt, b, runtime.Restriction{Allow: []string{"w"}})
	mustRegister(t, rt.Scope(a), regParallel(regTool("later", "A later")))
	assert.Equal(t, "", regSees(t, rt, b, "later"))
	assert.Equal(t, []string{"w"}, regNames(rt.Schemas(b)))

	// Restrictions are by name: a denied tool re-registered is still
	// denied, an allowed one re-registered is visible again.
	rt2 := runtime.New()
	d := mustRegister(t, rt2, regParallel(regTool("x", "x1")))
	mustRegister(t, rt2, regParallel(regTool("y", "y")))
	regMustRestrict(t, rt2, c, runtime.Restriction{Allow: []string{"x"}})
	regMustRestrict(t, rt2, a, runtime.Restriction{Deny: []string{"x"}})
	d()
	assert.Equal(t, "", regSees(t, rt2, c, "x"))
	mustRegister(t, rt2, regParallel(regTool("x", "x2")))
	assert.Equal(t, "x2", regSees(t, rt2, c, "x"))
	assert.Equal(t, "", regSees(t, rt2, a, "x"))
}

func TestR21_RestrictRejectsEmptyFiltersAndUnknownNames(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	mustRegister(t, rt, regParallel(regTool("x", "x")))
	mustRegister(t, rt.Scope(b), regParallel(regTool("b_only", "B only")))
	mustRegister(t, rt.Scope(c), regParallel(regTool("c_only", "C only")))
	gone := mustRegister(t, rt, regParallel(regTool("gone", "gone")))
	gone()

	cases := []struct {
		name string
		r    runtime.Restriction
	}{
		{"zero restriction", runtime.Restriction{}},
		{"empty non-nil lists", runtime.Restriction{Allow: []string{}, Deny: []string{}}},
		{"unknown allow", runtime.Restriction{Allow: []string{"nope"}}},
		{"unknown deny", runtime.Restriction{Deny: []string{"nope"}}},
		{"known and unknown", runtime.Restriction{Allow: []string{"x", "nope"}}},
		{"disposed tool", runtime.Restriction{Deny: []string{"gone"}}},
		{"a child's tool", runtime.Restriction{Deny: []string{"b_only"}}},
		{"a sibling's tool", runtime.Restriction{Allow: []string{"c_only"}}},
		{"empty name", runtime.Restriction{Deny: []string{""}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := regSnapshot(rt, a, b, c)
			changes := regCountChanges(t, rt)
			d, err := rt.Scope(a).Restrict(tc.r)
			require.Error(t, err)
			assert.ErrorIs(t, err, runtime.ErrInvalidRestriction)
			assert.Nil(t, d)
			assert.Zero(t, changes())
			assert.Equal(t, before, regSnapshot(rt, a, b, c))
		})
	}
	_, err := rt.Scope(nil).Restrict(runtime.Restriction{Deny: []string{"x"}})
	assert.ErrorIs(t, err, runtime.ErrGlobalScope, "the global layer inherits nothing")
	assert.Equal(t, "x", regSees(t, rt, a, "x"))
}

func TestR22_RestrictRejectsScopeLocalAndReservedNames(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	mustRegister(t, rt, regParallel(regTool("x", "global x")))
	mustRegister(t, rt.Scope(a), regParallel(regTool("reply", "A reply")))
	mustRegister(t, rt.Scope(a), regParallel(regTool("x", "A x"))) // shadows global x

	cases := []struct {
		name string
		r    runtime.Restriction
	}{
		{"deny own", runtime.Restriction{Deny: []string{"reply"}}},
		{"allow own", runtime.Restriction{Allow: []string{"reply"}}},
		{"deny own shadowing a global", runtime.Restriction{Deny: []string{"x"}}},
		{"deny reserved", runtime.Restriction{Deny: []string{runtime.ReservedTransport}}},
		{"allow reserved", runtime.Restriction{Allow: []string{runtime.ReservedTransport}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := regSnapshot(rt, a, b, c)
			changes := regCountChanges(t, rt)
			d, err := rt.Scope(a).Restrict(tc.r)
			require.Error(t, err)
			assert.ErrorIs(t, err, runtime.ErrInvalidRestriction)
			assert.Nil(t, d)
			assert.Zero(t, changes())
			assert.Equal(t, before, regSnapshot(rt, a, b, c))
		})
	}
	// The reserved name is refused even where nothing else is wrong.
	_, err := rt.Scope(c).Restrict(runtime.Restriction{Allow: []string{"x", runtime.ReservedTransport}})
	assert.ErrorIs(t, err, runtime.ErrInvalidRestriction)
	assert.Equal(t, "A reply", regSees(t, rt, a, "reply"))
	assert.Equal(t, "A x", regSees(t, rt, a, "x"))
}

func TestR23_RestrictionNamesAreCopied(t *testing.T) {
	a, _, c := agents()
	rt := runtime.New()
	mustRegister(t, rt, regParallel(regTool("x", "x")))
	mustRegister(t, rt, regParallel(regTool("y", "y")))

	allow := []string{"x"}
	regMustRestrict(t, rt, a, runtime.Restriction{Allow: allow})
	allow[0] = "y"
	deny := []string{"y"}
	regMustRestrict(t, rt, c, runtime.Restriction{Deny: deny})
	deny[0] = "x"

	assert.Equal(t, "x", regSees(t, rt, a, "x"))
	assert.Equal(t, "", regSees(t, rt, a, "y"))
	assert.Equal(t, "x", regSees(t, rt, c, "x"))
	assert.Equal(t, "", regSees(t, rt, c, "y"))
}

func TestR24_RestrictReturnsAnExactDisposer(t *testing.T) {
	a, b, _ := agents()
	rt := runtime.New()
	for _, n := range []string{"x", "y", "z"} {
		mustRegister(t, rt, regParallel(regTool(n, n)))
	}
	changes := regCountChanges(t, rt)
	d1 := regMustRestrict(t, rt, a, runtime.Restriction{Deny: []string{"x"}})
	d2 := regMustRestrict(t, rt, a, runtime.Restriction{Deny: []string{"y"}})
	d3 := regMustRestrict(t, rt, a, runtime.Restriction{Deny: []string{"y"}}) // identical to d2
	require.Equal(t, 3, changes(), "every restriction announces itself")
	require.Equal(t, []string{"z"}, regNames(rt.Schemas(a)))

	d1()
	assert.Equal(t, 4, changes(), "lifting a restriction announces it")
	assert.Equal(t, []string{"x", "z"}, regNames(rt.Schemas(a)), "only the first restriction is lifted")
	assert.Equal(t, []string{"x", "z"}, regNames(rt.Schemas(b)))
	d1()
	assert.Equal(t, 4, changes(), "a second call does nothing")
	assert.Equal(t, []string{"x", "z"}, regNames(rt.Schemas(a)))

	d2()
	assert.Equal(t, 5, changes())
	assert.Equal(t, "", regSees(t, rt, a, "y"), "an identical restriction is its own registration")
	d2()
	assert.Equal(t, 5, changes())
	d3()
	assert.Equal(t, 6, changes())
	assert.Equal(t, []string{"x", "y", "z"}, regNames(rt.Schemas(a)))

	// A stale disposer never lifts a later restriction of the same names.
	d4 := regMustRestrict(t, rt, a, runtime.Restriction{Deny: []string{"x"}})
	d1()
	assert.Equal(t, "", regSees(t, rt, a, "x"))
	d4()
	assert.Equal(t, "x", regSees(t, rt, a, "x"))
}

func TestR25_RestrictionsNeverTouchTheCodeModeTransport(t *testing.T) {
	// Deferred in part: the transport is not registrable (run_code is
	// reserved) and not built yet, so "Schemas(A) still shows run_code"
	// cannot be checked. What exists today: no restriction can ever name
	// run_code, and restrictions compose with PresentAs in either order.
	a, b, _ := agents()
	rt := runtime.New()
	mustRegister(t, rt, regParallel(regTool("x", "x")))
	mustRegister(t, rt, regParallel(regTool("y", "y")))

	for _, r := range []runtime.Restriction{
		{Allow: []string{runtime.ReservedTransport}},
		{Deny: []string{runtime.ReservedTransport}},
		{Allow: []string{"x"}, Deny: []string{runtime.ReservedTransport}},
	} {
		_, err := rt.Scope(a).Restrict(r)
		assert.ErrorIs(t, err, runtime.ErrInvalidRestriction, "%+v", r)
	}

	regMustRestrict(t, rt, a, runtime.Restriction{Allow: []string{"x"}})
	dp, err := rt.Scope(a).PresentAs(runtime.PresentCode)
	require.NoError(t, err, "a restriction does not stop PresentAs")
	assert.Equal(t, runtime.PresentCode, rt.PresentationOf(a))
	assert.Equal(t, runtime.PresentCode, rt.PresentationOf(b))
	for _, s := range rt.Schemas(a) {
		assert.Equal(t, runtime.ReservedTransport, s.Name, "under Code Mode only the transport is presented")
	}
	dp()

	_, err = rt.Scope(b).PresentAs(runtime.PresentCode)
	require.NoError(t, err)
	regMustRestrict(t, rt, b, runtime.Restriction{Deny: []string{"x"}})
	assert.Equal(t, runtime.PresentCode, rt.PresentationOf(b), "a restriction does not change the presentation")
	assert.Equal(t, runtime.PresentNative, rt.PresentationOf(a))
	assert.Equal(t, []string{"x"}, regNames(rt.Schemas(a)))
}

func TestR26_PresentAsNearestScopeWinsAndEachScopeDeclaresOnce(t *testing.T) {
	for _, deflt := range []runtime.PresentationMode{runtime.PresentNative, runtime.PresentCode} {
		t.Run("default "+string(deflt), func(t *testing.T) {
			a, b, c := agents()
			d := &runtime.Agent{ID: "D", Parent: b}
			rt := runtime.New(runtime.WithDefaultPresentation(deflt))
			changes := regCountChanges(t, rt)
			other := runtime.PresentCode
			if deflt == runtime.PresentCode {
				other = runtime.PresentNative
			}

			dA, err := rt.Scope(a).PresentAs(other)
			require.NoError(t, err)
			assert.Equal(t, 1, changes())
			assert.Equal(t, other, rt.PresentationOf(a))
			assert.Equal(t, other, rt.PresentationOf(b), "B inherits A's declaration")
			assert.Equal(t, other, rt.PresentationOf(d))
			assert.Equal(t, deflt, rt.PresentationOf(c))
			assert.Equal(t, deflt, rt.PresentationOf(nil))

			dB, err := rt.Scope(b).PresentAs(deflt)
			require.NoError(t, err)
			assert.Equal(t, deflt, rt.PresentationOf(b), "the nearest declaration wins")
			assert.Equal(t, deflt, rt.PresentationOf(d))
			assert.Equal(t, other, rt.PresentationOf(a))

			for _, m := range []runtime.PresentationMode{runtime.PresentNative, runtime.PresentCode} {
				before := changes()
				dx, err := rt.Scope(a).PresentAs(m)
				require.Error(t, err, "a second declaration in one scope fails")
				assert.ErrorIs(t, err, runtime.ErrPresentationDeclared)
				assert.Nil(t, dx)
				assert.Equal(t, before, changes())
				assert.Equal(t, other, rt.PresentationOf(a))
			}

			before := changes()
			dB()
			assert.Equal(t, before+1, changes())
			assert.Equal(t, other, rt.PresentationOf(b), "after B's disposer, B inherits A's declaration")
			dB()
			assert.Equal(t, before+1, changes(), "a second call does nothing")

			dA()
			assert.Equal(t, deflt, rt.PresentationOf(a), "A's disposer restores the deployment default")
			assert.Equal(t, deflt, rt.PresentationOf(b))

			// The scope may declare again, and a stale disposer does not
			// remove the new declaration.
			dA2, err := rt.Scope(a).PresentAs(other)
			require.NoError(t, err)
			dA()
			assert.Equal(t, other, rt.PresentationOf(a))
			dA2()
			assert.Equal(t, deflt, rt.PresentationOf(a))
		})
	}
}

func TestR27_PresentAsIsScopedOnly(t *testing.T) {
	for _, m := range []runtime.PresentationMode{runtime.PresentCode, runtime.PresentNative} {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		changes := regCountChanges(t, rt)
		d, err := rt.Scope(nil).PresentAs(m)
		require.Error(t, err)
		assert.ErrorIs(t, err, runtime.ErrGlobalScope)
		assert.Nil(t, d)
		assert.Zero(t, changes())
		assert.Equal(t, runtime.PresentNative, rt.PresentationOf(nil))
		assert.Equal(t, []string{"echo"}, regNames(rt.Schemas(nil)))
	}
	// The process-wide mode is configuration.
	rt := runtime.New(runtime.WithDefaultPresentation(runtime.PresentCode))
	assert.Equal(t, runtime.PresentCode, rt.PresentationOf(nil))
}

func TestR28_UnderCodeModeModelDirectNativeCallsAreRefused(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	rec := &recorder{}
	body := func(_ context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		rec.add("body:" + rc.Execution().CallID())
		return args, nil
	}
	def := regParallel(tool("echo", body))
	def.Description = "echo"
	mustRegister(t, rt, def)
	for _, s := range []runtime.Scope{rt.Scope(nil), rt.Scope(a)} {
		s.OnPreExecute(func(_ context.Context, e runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
			rec.add("pre:" + e.CallID())
			return next()
		})
		s.Guard(func(e runtime.Execution) error { rec.add("guard:" + e.CallID()); return nil })
		s.WrapExecute(func(ctx context.Context, e runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
			rec.add("wrap:" + e.CallID())
			return next(ctx)
		})
		s.OnPostExecute(func(_ context.Context, e runtime.Execution, _ runtime.Result, next func() runtime.PostDecision) runtime.PostDecision {
			rec.add("post:" + e.CallID())
			return next()
		})
	}
	_, err := rt.Scope(a).PresentAs(runtime.PresentCode)
	require.NoError(t, err)

	for _, scope := range []*runtime.Agent{a, b} {
		in := call("echo", `{"k":1}`, scope)
		in.CallID = "direct-" + scope.ID
		res := exec(t, rt, context.Background(), in)
		assert.Equal(t, runtime.CodeUnknownTool, code(res), "a model-direct native call under Code Mode")
		assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(in))
	}
	assert.Empty(t, rec.list(), "no pre-execute hook, guard, wrapper, body or post-execute hook ran")

	// The same call nested under an enclosing execution dispatches normally.
	var inner runtime.Result
	var innerMode runtime.ExecutionMode
	outer := tool("outer", func(ctx context.Context, _ jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		in := runtime.ExecutionInput{
			CallID: "nested", RootCallID: rc.Execution().RootCallID(), Name: "echo",
			Arguments: []byte(`{"k":1}`), Agent: a, Parent: rc.Execution().Token(),
		}
		innerMode = rt.ExecutionMode(in)
		inner = rt.Execute(ctx, in)
		return jsonvalue.Value(`null`), nil
	})
	mustRegister(t, rt.Scope(c), outer)
	res := exec(t, rt, context.Background(), runtime.ExecutionInput{CallID: "outer", Name: "outer", Arguments: []byte(`{}`), Agent: c})
	require.False(t, res.IsError(), "%+v", res.Failure)
	checkInvariants(t, inner)
	require.False(t, inner.IsError(), "%+v", inner.Failure)
	assert.Equal(t, `{"k":1}`, inner.Value.String())
	assert.Equal(t, runtime.Parallel, innerMode, "a nested call is classified normally")
	var nested []string
	for _, e := range rec.list() {
		if strings.HasSuffix(e, ":nested") {
			nested = append(nested, e)
		}
	}
	assert.Equal(t, []string{
		"pre:nested", "pre:nested", "guard:nested", "guard:nested",
		"wrap:nested", "wrap:nested", "body:nested", "post:nested", "post:nested",
	}, nested, "the nested call runs the whole pipeline")

	// C is native: its model-direct call runs.
	in := call("echo", `{"k":2}`, c)
	res = exec(t, rt, context.Background(), in)
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, runtime.Parallel, rt.ExecutionMode(in))
}

func TestR29_CodeModeShowsTheTransportInsteadOfTheNativeTools(t *testing.T) {
	// Deferred to the Code Mode issue: the transport does not exist yet.
	// What exists today: under PresentCode the scope's Schemas present no
	// native tool (only the transport would be allowed there); native
	// scopes keep presenting them.
	a, b, c := agents()
	rt := runtime.New()
	mustRegister(t, rt, regTool("x", "x"))
	mustRegister(t, rt.Scope(a), regTool("own", "A own"))
	d, err := rt.Scope(a).PresentAs(runtime.PresentCode)
	require.NoError(t, err)

	for _, scope := range []*runtime.Agent{a, b} {
		for _, s := range rt.Schemas(scope) {
			assert.Equal(t, runtime.ReservedTransport, s.Name, "scope %s presents native tool %q under Code Mode", scope.ID, s.Name)
		}
	}
	assert.Equal(t, []string{"x"}, regNames(rt.Schemas(c)))
	assert.Equal(t, []string{"x"}, regNames(rt.Schemas(nil)))

	_, err = rt.Scope(b).PresentAs(runtime.PresentNative)
	require.NoError(t, err)
	assert.Equal(t, []string{"own", "x"}, regNames(rt.Schemas(b)), "a native child of a code scope presents natively")

	d()
	assert.Equal(t, []string{"own", "x"}, regNames(rt.Schemas(a)))

	// The deployment default applies to the global view as well.
	rt2 := runtime.New(runtime.WithDefaultPresentation(runtime.PresentCode))
	mustRegister(t, rt2, regTool("x", "x"))
	for _, s := range rt2.Schemas(nil) {
		assert.Equal(t, runtime.ReservedTransport, s.Name)
	}
	for _, s := range rt2.Schemas(c) {
		assert.Equal(t, runtime.ReservedTransport, s.Name)
	}
}

// ---------------------------------------------------------------------------
// 3. Schemas() projection

func TestR30_OnlyThreeFieldsAreProjected(t *testing.T) {
	rt := runtime.New()
	const timeoutMs = 7777
	def := runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{
			Name:        "full",
			Description: "Every field set.",
			Parameters:  schemasubset.Object(schemasubset.Prop("n", schemasubset.Integer())),
		},
		Output: runtime.OutputDefinition{
			Schema: schemasubset.Object().WithTitle("OUTPUT_SCHEMA_MARKER"),
			Render: func(_, _ jsonvalue.Value) ([]runtime.ContentBlock, error) {
				return []runtime.ContentBlock{runtime.Text("RENDER_MARKER")}, nil
			},
			PresentationMeta: func(_, _ jsonvalue.Value) (jsonvalue.Value, error) { return jsonvalue.Value(`"META_MARKER"`), nil },
			Validate:         func(jsonvalue.Value) error { return nil },
		},
		Execute:            constant(`{}`),
		ValidatesArguments: true,
		FinalizeContent:    func(runtime.Execution, runtime.Result) []runtime.ContentBlock { return nil },
		Timeout:            timeoutMs * time.Millisecond,
		ConcurrencySafe:    func(jsonvalue.Value) bool { return true },
		PresentCall: func(jsonvalue.Value) *runtime.ToolCallView {
			return &runtime.ToolCallView{Card: runtime.CallGeneric, Title: "CALL_MARKER"}
		},
		PresentResult: func(jsonvalue.Value, runtime.ToolResult) *runtime.ToolResultView { return nil },
	}
	mustRegister(t, rt, def)

	// The Go type carries exactly the three fields.
	typ := reflect.TypeOf(runtime.ToolSchema{})
	var fields []string
	for i := range typ.NumField() {
		fields = append(fields, typ.Field(i).Name)
	}
	assert.Equal(t, []string{"Name", "Description", "Parameters"}, fields)

	schemas := rt.Schemas(nil)
	require.Len(t, schemas, 1)
	data, err := json.Marshal(schemas)
	require.NoError(t, err)
	var decoded []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &decoded))
	require.Len(t, decoded, 1)
	keys := make([]string, 0, len(decoded[0]))
	for k := range decoded[0] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	assert.Equal(t, []string{"description", "name", "parameters"}, keys)
	assert.JSONEq(t, `"full"`, string(decoded[0]["name"]))
	assert.JSONEq(t, `"Every field set."`, string(decoded[0]["description"]))
	assert.JSONEq(t, `{"type":"object","properties":{"n":{"type":"integer"}}}`, string(decoded[0]["parameters"]))

	text := string(data)
	for _, leak := range []string{"7777", "7.777", "OUTPUT_SCHEMA_MARKER", "RENDER_MARKER", "META_MARKER", "CALL_MARKER", "timeout", "Timeout", "output", "concurrency"} {
		assert.NotContains(t, text, leak)
	}
}

func TestR31_EachSchemaIsADeepClone(t *testing.T) {
	rt := runtime.New()
	params := schemasubset.Object(
		schemasubset.Prop("n", schemasubset.Integer()),
		schemasubset.Prop("mode", schemasubset.String().WithEnum(jsonvalue.Value(`"a"`), jsonvalue.Value(`"b"`))),
	).WithRequired("n")
	def := echo()
	def.Parameters = params
	mustRegister(t, rt, def)
	first := rt.Schemas(nil)
	require.Len(t, first, 1)
	wantJSON, err := json.Marshal(first)
	require.NoError(t, err)

	// Mutate everything a caller can reach: the slice element, the node
	// through its accessors and With methods, and the marshalled bytes.
	first[0].Name = "hacked"
	first[0].Description = "hacked"
	required, _ := first[0].Parameters.Required()
	required[0] = "mode"
	enum := first[0].Parameters.Property("mode").Enum()
	enum[0][1] = 'z'
	props, _ := first[0].Parameters.Properties()
	props[0].Schema = schemasubset.String()
	_ = first[0].Parameters.WithProperties(schemasubset.Prop("extra", schemasubset.String())).Closed()
	raw, err := first[0].Parameters.MarshalJSON()
	require.NoError(t, err)
	for i := range raw {
		raw[i] = ' '
	}
	first[0].Parameters = first[0].Parameters.WithProperties(schemasubset.Prop("extra", schemasubset.String())).WithRequired("extra").Closed()

	again := rt.Schemas(nil)
	gotJSON, err := json.Marshal(again)
	require.NoError(t, err)
	assert.Equal(t, string(wantJSON), string(gotJSON), "Schemas is unchanged by mutations of an earlier result")
	got, ok := rt.Get("echo", nil)
	require.True(t, ok)
	got.Parameters = schemasubset.Object().Closed()
	got.Name = "hacked"

	// Argument validation is unchanged too.
	cases := []struct {
		args string
		ok   bool
	}{
		{`{"n":1}`, true},
		{`{"n":1,"mode":"a"}`, true},
		{`{"n":1,"other":true}`, true},
		{`{"mode":"a"}`, false},
		{`{"n":"x"}`, false},
		{`{"n":1,"mode":"z"}`, false},
		{`{"n":1,"extra":1}`, true},
	}
	for _, tc := range cases {
		res := exec(t, rt, context.Background(), call("echo", tc.args, nil))
		if tc.ok {
			assert.False(t, res.IsError(), "%s: %+v", tc.args, res.Failure)
		} else {
			assert.Equal(t, runtime.CodeInvalidArgs, code(res), tc.args)
		}
	}
}

func TestR32_OneSchemaPerVisibleTool(t *testing.T) {
	a, b, c := agents()
	rt := runtime.New()
	mustRegister(t, rt, regTool("echo", "global echo"))
	mustRegister(t, rt, regTool("x", "global x"))
	mustRegister(t, rt, regTool("y", "global y"))
	mustRegister(t, rt.Scope(a), regTool("echo", "A echo"))
	mustRegister(t, rt.Scope(a), regTool("a_only", "A only"))
	mustRegister(t, rt.Scope(b), regTool("echo", "B echo"))
	mustRegister(t, rt.Scope(b), regTool("b_only", "B only"))
	mustRegister(t, rt.Scope(c), regTool("c_only", "C only"))
	regMustRestrict(t, rt, a, runtime.Restriction{Deny: []string{"y"}})

	type pair struct{ Name, Description string }
	pairs := func(s []runtime.ToolSchema) []pair {
		out := make([]pair, 0, len(s))
		for _, x := range s {
			out = append(out, pair{x.Name, x.Description})
		}
		return out
	}
	assert.Equal(t, []pair{{"a_only", "A only"}, {"echo", "A echo"}, {"x", "global x"}}, pairs(rt.Schemas(a)))
	assert.Equal(t, []pair{{"a_only", "A only"}, {"b_only", "B only"}, {"echo", "B echo"}, {"x", "global x"}}, pairs(rt.Schemas(b)))
	assert.Equal(t, []pair{{"c_only", "C only"}, {"echo", "global echo"}, {"x", "global x"}, {"y", "global y"}}, pairs(rt.Schemas(c)))
	assert.Equal(t, []pair{{"echo", "global echo"}, {"x", "global x"}, {"y", "global y"}}, pairs(rt.Schemas(nil)))
}

// ---------------------------------------------------------------------------
// Registry tests beyond the checklist

func TestRegistry_RestrictionIntersectionAcrossThreeLevels(t *testing.T) {
	// global ← A ← B ← D, with restrictions at every level and an own
	// registration at every level.
	a, b, c := agents()
	d := &runtime.Agent{ID: "D", Parent: b}
	rt := runtime.New()
	for _, n := range []string{"g1", "g2", "g3", "g4", "g5"} {
		mustRegister(t, rt, regParallel(regTool(n, "global "+n)))
	}
	mustRegister(t, rt.Scope(a), regParallel(regTool("a1", "A a1")))
	mustRegister(t, rt.Scope(b), regParallel(regTool("b1", "B b1")))
	mustRegister(t, rt.Scope(d), regParallel(regTool("d1", "D d1")))

	regMustRestrict(t, rt, a, runtime.Restriction{Allow: []string{"g1", "g2", "g3", "g4"}})
	regMustRestrict(t, rt, a, runtime.Restriction{Deny: []string{"g4"}})
	dB := regMustRestrict(t, rt, b, runtime.Restriction{Deny: []string{"g2", "a1"}})
	// g2 is already hidden from D by B, but it is still a registered
	// inherited tool, so D may name it.
	regMustRestrict(t, rt, d, runtime.Restriction{Allow: []string{"g1", "g2", "g3", "b1"}})

	all := []string{"g1", "g2", "g3", "g4", "g5", "a1", "b1", "d1"}
	check := func(t *testing.T, want map[string][]string) {
		t.Helper()
		for _, scope := range []*runtime.Agent{nil, a, b, d, c} {
			key := "global"
			if scope != nil {
				key = scope.ID
			}
			var seen []string
			for _, n := range all {
				if regSees(t, rt, scope, n) != "" {
					seen = append(seen, n)
				}
			}
			slices.Sort(seen)
			assert.Equal(t, want[key], seen, "what %s sees", key)
			assert.Equal(t, want[key], regNames(rt.Schemas(scope)), "Schemas of %s", key)
		}
	}
	check(t, map[string][]string{
		"global": {"g1", "g2", "g3", "g4", "g5"},
		"A":      {"a1", "g1", "g2", "g3"},
		"B":      {"b1", "g1", "g3"},
		"D":      {"b1", "d1", "g1", "g3"},
		"C":      {"g1", "g2", "g3", "g4", "g5"},
	})

	// Lifting the middle restriction widens B and D, but only as far as
	// A's and D's own restrictions allow.
	dB()
	check(t, map[string][]string{
		"global": {"g1", "g2", "g3", "g4", "g5"},
		"A":      {"a1", "g1", "g2", "g3"},
		"B":      {"a1", "b1", "g1", "g2", "g3"},
		"D":      {"b1", "d1", "g1", "g2", "g3"},
		"C":      {"g1", "g2", "g3", "g4", "g5"},
	})

	// A tool registered later passes a deny-only level but not an allow
	// list above it.
	mustRegister(t, rt, regParallel(regTool("g6", "global g6")))
	all = append(all, "g6")
	mustRegister(t, rt.Scope(a), regParallel(regTool("a2", "A a2")))
	all = append(all, "a2")
	check(t, map[string][]string{
		"global": {"g1", "g2", "g3", "g4", "g5", "g6"},
		"A":      {"a1", "a2", "g1", "g2", "g3"},
		"B":      {"a1", "a2", "b1", "g1", "g2", "g3"},
		"D":      {"b1", "d1", "g1", "g2", "g3"},
		"C":      {"g1", "g2", "g3", "g4", "g5", "g6"},
	})
}

func TestRegistry_ConcurrentRegistrationsDisposalsAndReads(t *testing.T) {
	a, b, c := agents()
	layers := []*runtime.Agent{nil, a, b, c}
	layerKey := func(x *runtime.Agent) string {
		if x == nil {
			return "global"
		}
		return x.ID
	}
	chain := func(x *runtime.Agent) map[string]bool {
		out := map[string]bool{"global": true}
		for ; x != nil; x = x.Parent {
			out[x.ID] = true
		}
		return out
	}

	// Every definition that may be registered, keyed by its id
	// (name|layer|variant), built before the race so it is read-only.
	const names, variants = 8, 3
	type variant struct {
		def   runtime.ToolDefinition
		layer string
	}
	known := map[string]variant{}
	defs := map[string][]runtime.ToolDefinition{} // layer|name → variants
	for _, l := range layers {
		for n := range names {
			name := "n" + strconv.Itoa(n)
			for v := range variants {
				id := name + "|" + layerKey(l) + "|v" + strconv.Itoa(v)
				def := regTool(name, id)
				def.Parameters = schemasubset.Object(schemasubset.Prop("id", schemasubset.String().WithConst(jsonvalue.String(id))))
				known[id] = variant{def: def, layer: layerKey(l)}
				defs[layerKey(l)+"|"+name] = append(defs[layerKey(l)+"|"+name], def)
			}
		}
	}
	checkDef := func(where string, agent *runtime.Agent, name string, def runtime.ToolDefinition) {
		kv, ok := known[def.Description]
		if !assert.True(t, ok, "%s: unknown definition %q", where, def.Description) {
			return
		}
		assert.Equal(t, name, def.Name, where)
		assert.Equal(t, kv.def.Name, def.Name, where)
		assert.Same(t, kv.def.Parameters, def.Parameters, where)
		assert.True(t, chain(agent)[kv.layer], "%s: %s sees a definition of layer %s", where, layerKey(agent), kv.layer)
	}

	rt := runtime.New()
	changes := regCountChanges(t, rt)
	var registered atomic.Int64
	var wg sync.WaitGroup
	const writers, getters, listers, iterations = 40, 30, 30, 150

	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			var stale []runtime.Disposer
			for range iterations {
				l := layers[rng.IntN(len(layers))]
				name := "n" + strconv.Itoa(rng.IntN(names))
				def := defs[layerKey(l)+"|"+name][rng.IntN(variants)]
				d, err := rt.Scope(l).Register(def)
				if err != nil {
					assert.ErrorIs(t, err, runtime.ErrDuplicateTool)
					continue
				}
				registered.Add(1)
				if rng.IntN(4) == 0 {
					stale = append(stale, d) // disposed later, after others re-register
					continue
				}
				d()
				d() // idempotent
			}
			for _, d := range stale {
				d()
				d()
			}
		}()
	}
	for g := range getters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 2))
			for i := range iterations {
				agent := layers[rng.IntN(len(layers))]
				name := "n" + strconv.Itoa(rng.IntN(names))
				if def, ok := rt.Get(name, agent); ok {
					checkDef("Get", agent, name, def)
					v, err := def.Execute(context.Background(), jsonvalue.Value(`{}`), nil)
					assert.NoError(t, err)
					assert.Equal(t, strconv.Quote(def.Description), v.String(), "the body is the definition's own")
				}
				if i%10 == 0 {
					res := rt.Execute(context.Background(), call(name, `{}`, agent))
					checkInvariants(t, res)
					if res.IsError() {
						assert.Equal(t, runtime.CodeUnknownTool, code(res))
					} else {
						id, err := strconv.Unquote(res.Value.String())
						assert.NoError(t, err)
						kv, ok := known[id]
						if assert.True(t, ok, "Execute ran an unknown body %s", id) {
							assert.Equal(t, name, kv.def.Name)
							assert.True(t, chain(agent)[kv.layer])
						}
					}
				}
			}
		}()
	}
	for s := range listers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(s), 3))
			for range iterations {
				agent := layers[rng.IntN(len(layers))]
				schemas := rt.Schemas(agent)
				for i, sc := range schemas {
					if i > 0 {
						assert.Less(t, schemas[i-1].Name, sc.Name, "Schemas is sorted without duplicates")
					}
					kv, ok := known[sc.Description]
					if assert.True(t, ok, "Schemas shows an unknown definition %q", sc.Description) {
						assert.Equal(t, kv.def.Name, sc.Name)
						assert.Same(t, kv.def.Parameters, sc.Parameters)
						assert.True(t, chain(agent)[kv.layer])
					}
				}
			}
		}()
	}
	wg.Wait()

	require.Positive(t, registered.Load())
	assert.Equal(t, int(2*registered.Load()), changes(), "one event per registration and one per disposal")
	for _, l := range layers {
		assert.Empty(t, rt.Schemas(l), "every registration was disposed")
		for n := range names {
			_, ok := rt.Get("n"+strconv.Itoa(n), l)
			assert.False(t, ok)
		}
	}
}
