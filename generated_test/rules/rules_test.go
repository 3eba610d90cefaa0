package rules

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// generated lists every tool of the package with its generated
// declarations.
var generated = []struct {
	schema     runtime.ToolSchema
	output     *schemasubset.Node
	paramsJSON string
	outputJSON string
}{
	{_toolgen_Lookup_schema, _toolgen_Lookup_output, _toolgen_Lookup_paramsJSON, _toolgen_Lookup_outputJSON},
	{_toolgen_Draw_schema, _toolgen_Draw_output, _toolgen_Draw_paramsJSON, _toolgen_Draw_outputJSON},
	{_toolgen_Anything_schema, _toolgen_Anything_output, _toolgen_Anything_paramsJSON, _toolgen_Anything_outputJSON},
	{_toolgen_Deep_schema, _toolgen_Deep_output, _toolgen_Deep_paramsJSON, _toolgen_Deep_outputJSON},
}

// definition builds a ToolDefinition from generated schemas and a body
// over raw JSON, so these rules run before generated adapters exist; the
// runtime validates arguments and output against the generated schemas.
func definition(schema runtime.ToolSchema, output *schemasubset.Node, body func(ctx context.Context, args jsonvalue.Value) (jsonvalue.Value, error)) runtime.ToolDefinition {
	return runtime.ToolDefinition{
		ToolSchema: schema,
		Output: runtime.OutputDefinition{
			Schema: output,
			Render: func(_, value jsonvalue.Value) ([]runtime.ContentBlock, error) {
				return []runtime.ContentBlock{runtime.Text(string(value))}, nil
			},
		},
		Execute: func(ctx context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			return body(ctx, args)
		},
	}
}

// lookupBody decodes the arguments with encoding/json and calls Lookup.
func lookupBody(seen *LookupArgs) func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) {
	return func(ctx context.Context, args jsonvalue.Value) (jsonvalue.Value, error) {
		var a LookupArgs
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		*seen = a
		out, err := Lookup(ctx, a)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(out)
		return jsonvalue.Value(b), err
	}
}

func newRuntime(t *testing.T, defs ...runtime.ToolDefinition) *runtime.Runtime {
	t.Helper()
	rt := runtime.New()
	for _, d := range defs {
		_, err := rt.Register(d)
		require.NoError(t, err)
	}
	return rt
}

func call(rt *runtime.Runtime, name, args string) runtime.Result {
	return rt.Execute(context.Background(), runtime.ExecutionInput{CallID: "c1", Name: name, Arguments: []byte(args)})
}

// assertInvalid checks a failure's code and that its message names path.
func assertInvalid(t *testing.T, res runtime.Result, code runtime.ErrorCode, path string) {
	t.Helper()
	require.True(t, res.IsError(), "want %s, got success %s", code, res.Value)
	assert.Equal(t, code, res.Code())
	assert.True(t, strings.Contains(res.Failure.Message, path+": "), "message %q should name %s", res.Failure.Message, path)
}

func TestR135_ParameterRootIsOpen(t *testing.T) {
	var seen LookupArgs
	rt := newRuntime(t, definition(_toolgen_Lookup_schema, _toolgen_Lookup_output, lookupBody(&seen)))
	res := call(rt, "lookup", `{"path":"/x","extra":1}`)
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, "/x", seen.Path)
	_, has := _toolgen_Lookup_schema.Parameters.AdditionalProperties()
	assert.False(t, has, "the generated parameter root declares no additionalProperties")
}

func TestR136_AdditionalProperties(t *testing.T) {
	var seen LookupArgs
	rt := newRuntime(t, definition(_toolgen_Lookup_schema, _toolgen_Lookup_output, lookupBody(&seen)))

	res := call(rt, "lookup", `{"path":"/x","inner":{"name":"n","extra":1}}`)
	assertInvalid(t, res, runtime.CodeInvalidArgs, "/inner/extra")
	err := schemasubset.Validate(_toolgen_Lookup_schema.Parameters, jsonvalue.Value(`{"path":"/x","inner":{"name":"n","extra":1}}`))
	var ve *schemasubset.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, schemasubset.RuleAdditionalProperties, ve.Rule)
	assert.Equal(t, "/inner/extra", ve.InstancePath)

	res = call(rt, "lookup", `{"path":"/x","loose":{"name":"n","extra":1}}`)
	require.False(t, res.IsError(), "an open nested struct accepts unknown keys: %+v", res.Failure)
	assert.Equal(t, "n", seen.Loose.Name)
}

func TestR137_OneOfExactlyOne(t *testing.T) {
	rt := newRuntime(t, definition(_toolgen_Draw_schema, _toolgen_Draw_output, func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) {
		return jsonvalue.Null(), nil
	}))
	// {} is a Circle and a Square: both are closed objects of optional fields.
	assertInvalid(t, call(rt, "draw", `{"shape":{}}`), runtime.CodeInvalidArgs, "/shape")
	assert.False(t, call(rt, "draw", `{"shape":{"r":1}}`).IsError())
	assertInvalid(t, call(rt, "draw", `{"shape":{"r":1,"s":2}}`), runtime.CodeInvalidArgs, "/shape")

	// On output: a value matching both branches is INVALID_TOOL_OUTPUT.
	rt2 := newRuntime(t, definition(_toolgen_Anything_schema, _toolgen_Draw_schema.Parameters.Property("shape"), func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) {
		return jsonvalue.Value(`{}`), nil
	}))
	res := call(rt2, "anything", `{}`)
	require.True(t, res.IsError())
	assert.Equal(t, runtime.CodeInvalidToolOutput, res.Code())
}

func TestR138_EmptySchemaAcceptsAnything(t *testing.T) {
	require.True(t, _toolgen_Anything_output.AcceptsAnything())
	for _, v := range []string{`null`, `[1]`, `"s"`} {
		rt := newRuntime(t, definition(_toolgen_Anything_schema, _toolgen_Anything_output, func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) {
			return jsonvalue.Value(v), nil
		}))
		res := call(rt, "anything", `{}`)
		require.False(t, res.IsError(), "%s: %+v", v, res.Failure)
		assert.Equal(t, v, string(res.Value))
	}
}

func TestR139_EnumFromConstants(t *testing.T) {
	var seen LookupArgs
	rt := newRuntime(t, definition(_toolgen_Lookup_schema, _toolgen_Lookup_output, lookupBody(&seen)))
	assertInvalid(t, call(rt, "lookup", `{"path":"/x","mode":"c"}`), runtime.CodeInvalidArgs, "/mode")
	res := call(rt, "lookup", `{"path":"/x","mode":"b"}`)
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Equal(t, ModeB, seen.Mode)
}

func TestR140_AnnotationsDoNotValidate(t *testing.T) {
	label := _toolgen_Lookup_schema.Parameters.Property("label")
	require.NotNil(t, label)
	title, _ := label.Title()
	desc, _ := label.Description()
	assert.Equal(t, "Label", title)
	assert.Equal(t, "A label that is only shown", desc)
	var seen LookupArgs
	rt := newRuntime(t, definition(_toolgen_Lookup_schema, _toolgen_Lookup_output, lookupBody(&seen)))
	res := call(rt, "lookup", `{"path":"/x","label":"anything at all"}`)
	require.False(t, res.IsError(), "%+v", res.Failure)
}

func TestR141_ValidationIsNotDepthCapped(t *testing.T) {
	wrong := strings.Repeat(`{"next":`, 19) + `{"value":7}` + strings.Repeat(`}`, 19)
	rt := newRuntime(t, definition(_toolgen_Deep_schema, _toolgen_Deep_output, func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) {
		return jsonvalue.Value(wrong), nil
	}))
	res := call(rt, "deep", `{}`)
	assertInvalid(t, res, runtime.CodeInvalidToolOutput, strings.Repeat("/next", 19)+"/value")

	right := strings.Repeat(`{"next":`, 19) + `{"value":"v"}` + strings.Repeat(`}`, 19)
	require.NoError(t, schemasubset.Validate(_toolgen_Deep_output, jsonvalue.Value(right)))
}

func TestR142_OneDeclaration(t *testing.T) {
	var defs []runtime.ToolDefinition
	for _, g := range generated {
		got, err := g.schema.Parameters.MarshalJSON()
		require.NoError(t, err)
		assert.Equal(t, g.paramsJSON, string(got), "%s: the parameter literal marshals to its canonical JSON", g.schema.Name)
		got, err = g.output.MarshalJSON()
		require.NoError(t, err)
		assert.Equal(t, g.outputJSON, string(got), "%s: the output literal marshals to its canonical JSON", g.schema.Name)
		require.NoError(t, schemasubset.AssertObject(g.schema.Parameters))
		require.NoError(t, schemasubset.AssertSupported(g.output))
		defs = append(defs, definition(g.schema, g.output, func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) { return jsonvalue.Null(), nil }))
	}
	rt := newRuntime(t, defs...)
	byName := make(map[string]string)
	for _, g := range generated {
		byName[g.schema.Name] = g.paramsJSON
	}
	schemas := rt.Schemas(nil)
	require.Len(t, schemas, len(generated))
	for _, s := range schemas {
		got, err := s.Parameters.MarshalJSON()
		require.NoError(t, err)
		assert.Equal(t, byName[s.Name], string(got), "%s: Schemas() shows the generated declaration", s.Name)
	}
}
