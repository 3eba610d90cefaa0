package providers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/providers"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// restoreSchema has optional properties at the root, in a nullable object,
// in array items and below a oneOf told apart by type, beside required,
// nullable and unconstrained ones.
const restoreSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string"},` +
	`"offset":{"type":"integer"},` +
	`"limit":{"oneOf":[{"type":"integer"},{"type":"null"}]},` +
	`"opts":{"oneOf":[{"type":"object","properties":{"deep":{"type":"boolean"},"tag":{"type":"string"}},"required":["tag"],"additionalProperties":false},{"type":"null"}]},` +
	`"rows":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"number"}},"required":["k"],"additionalProperties":false}},` +
	`"either":{"oneOf":[{"type":"string"},{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}]},` +
	`"any":{}` +
	`},"required":["path","limit"]}`

func TestRestoreOptional(t *testing.T) {
	params := schemasubset.MustParse(restoreSchema)
	cases := []struct{ name, in, want string }{
		{"emulated nulls dropped", `{"path":"a","offset":null,"limit":null}`, `{"path":"a","limit":null}`},
		{"values kept", `{"path":"a","offset":3,"limit":7}`, `{"path":"a","offset":3,"limit":7}`},
		{"whitespace and order", ` { "offset" : null , "path" : "a\u00e9" , "limit" : 1 } `, `{"path":"aé","limit":1}`},
		{"nullable required keeps null", `{"path":"a","limit":null}`, `{"path":"a","limit":null}`},
		{"optional nullable object kept as null", `{"path":"a","limit":1,"opts":null}`, `{"path":"a","limit":1,"opts":null}`},
		{"inside a nullable object", `{"path":"a","limit":1,"opts":{"deep":null,"tag":"t"}}`, `{"path":"a","limit":1,"opts":{"tag":"t"}}`},
		{"required null inside stays", `{"path":"a","limit":1,"opts":{"deep":true,"tag":null}}`, `{"path":"a","limit":1,"opts":{"deep":true,"tag":null}}`},
		{"array items", `{"path":"a","limit":1,"rows":[{"k":"a","v":null},{"k":"b","v":2}]}`, `{"path":"a","limit":1,"rows":[{"k":"a"},{"k":"b","v":2}]}`},
		{"oneOf branch by type", `{"path":"a","limit":1,"either":{"x":null}}`, `{"path":"a","limit":1,"either":{}}`},
		{"oneOf other branch", `{"path":"a","limit":1,"either":"s"}`, `{"path":"a","limit":1,"either":"s"}`},
		{"unconstrained kept", `{"path":"a","limit":1,"any":null}`, `{"path":"a","limit":1,"any":null}`},
		{"unknown members kept", `{"path":"a","limit":1,"extra":null}`, `{"path":"a","limit":1,"extra":null}`},
		{"wrong kinds left alone", `{"path":null,"offset":"x","rows":{"k":null}}`, `{"path":null,"offset":"x","rows":{"k":null}}`},
		{"not an object", `[null]`, `[null]`},
		{"big numbers verbatim", `{"path":"a","limit":12345678901234567890.0,"offset":null}`, `{"path":"a","limit":12345678901234567890.0}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := providers.RestoreOptional(params, []byte(c.in))
			require.NoError(t, err)
			assert.Equal(t, c.want, string(got))
			assert.True(t, jsonvalue.IsCanonical(got))
		})
	}
}

func TestRestoreOptionalErrors(t *testing.T) {
	params := schemasubset.MustParse(restoreSchema)
	_, err := providers.RestoreOptional(params, []byte(`{"path":"a",}`))
	var se *jsonvalue.SyntaxError
	require.ErrorAs(t, err, &se)
	_, err = providers.RestoreOptional(params, []byte(`{"a":1,"a":2}`))
	require.ErrorAs(t, err, &se)
	_, err = providers.RestoreOptional(nil, []byte(`{}`))
	require.EqualError(t, err, "providers: RestoreOptional: the parameter schema is nil")
}

// TestRestoreUndoesEmulation checks the round trip the emulation promises:
// take valid arguments, fill in null for every optional property that is
// absent (what a strict-mode model sends), and RestoreOptional gives back
// the original.
func TestRestoreUndoesEmulation(t *testing.T) {
	params := schemasubset.MustParse(restoreSchema)
	_, err := providers.OpenAIChat([]runtime.ToolSchema{{Name: "t", Parameters: params}}, providers.OptionalAsNull())
	require.Error(t, err, "the unconstrained property has no strict form")

	declared := schemasubset.MustParse(`{"type":"object","properties":{` +
		`"path":{"type":"string"},"offset":{"type":"integer"},` +
		`"opts":{"oneOf":[{"type":"object","properties":{"deep":{"type":"boolean"},"tag":{"type":"string"}},"required":["tag"],"additionalProperties":false},{"type":"null"}]},` +
		`"rows":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"number"}},"required":["k"],"additionalProperties":false}}` +
		`},"required":["path","opts"]}`)
	_, err = providers.OpenAIChat([]runtime.ToolSchema{{Name: "t", Parameters: declared}}, providers.OptionalAsNull())
	require.NoError(t, err)
	pairs := []struct{ original, sent string }{
		{`{"path":"a","opts":null}`, `{"path":"a","offset":null,"opts":null,"rows":null}`},
		{`{"path":"a","opts":{"tag":"t"}}`, `{"path":"a","offset":null,"opts":{"deep":null,"tag":"t"},"rows":null}`},
		{`{"path":"a","opts":null,"rows":[{"k":"x"},{"k":"y","v":1}]}`, `{"path":"a","offset":null,"opts":null,"rows":[{"k":"x","v":null},{"k":"y","v":1}]}`},
	}
	for _, p := range pairs {
		require.NoError(t, schemasubset.Validate(declared, jsonvalue.Value(p.original)))
		require.Error(t, schemasubset.Validate(declared, jsonvalue.Value(p.sent)))
		got, err := providers.RestoreOptional(declared, []byte(p.sent))
		require.NoError(t, err)
		assert.Equal(t, p.original, string(got))
	}
}

// FuzzRestoreOptional checks that RestoreOptional never panics, returns
// canonical JSON, is idempotent, only ever removes members, and leaves
// arguments that are already valid unchanged.
func FuzzRestoreOptional(f *testing.F) {
	params := schemasubset.MustParse(restoreSchema)
	for _, s := range []string{
		`{"path":"a","offset":null,"limit":null}`,
		`{"path":"a","limit":1,"opts":{"deep":null,"tag":"t"},"rows":[{"k":"a","v":null}],"either":{"x":null}}`,
		`{"path":"a","limit":1,"either":"s","any":[null,{"a":null}]}`,
		`[{"offset":null}]`, `null`, `"x"`, `{"path":"a",}`, ` {"rows":[{}, {"v":null}]} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		v, merr := jsonvalue.Materialize(args)
		got, err := providers.RestoreOptional(params, args)
		if merr != nil {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		require.True(t, jsonvalue.IsCanonical(got), "%s", got)
		require.LessOrEqual(t, len(got), len(v))
		again, err := providers.RestoreOptional(params, got)
		require.NoError(t, err)
		require.Equal(t, string(got), string(again), "idempotent")
		if schemasubset.Validate(params, v) == nil {
			require.Equal(t, string(v), string(got), "valid arguments are unchanged")
		}
	})
}
