package providers_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/providers"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// strictCase is one parameter schema of a tool named "t" and what strict
// mode makes of it: the parameters it sends, or the exact error.
type strictCase struct {
	name   string
	params string
	opt    func() providers.Option
	want   string // the parameters sent, when err is empty
	err    string // the exact error text
	codes  []providers.Code
}

func runStrict(t *testing.T, cases []strictCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool := runtime.ToolSchema{Name: "t", Description: "d", Parameters: schemasubset.MustParse(c.params)}
			decls, err := providers.OpenAIResponses([]runtime.ToolSchema{tool}, c.opt())
			if c.err == "" {
				require.NoError(t, err)
				m, _ := fields(t, decls[0])
				assert.Equal(t, c.want, string(m["parameters"]))
				return
			}
			require.Error(t, err)
			assert.Nil(t, decls)
			assert.Equal(t, c.err, err.Error())
			var pe *providers.Error
			require.ErrorAs(t, err, &pe)
			var codes []providers.Code
			for _, p := range pe.Problems {
				assert.Equal(t, "t", p.Tool)
				codes = append(codes, p.Code)
			}
			assert.Equal(t, c.codes, codes)

			// Chat Completions applies the same conversion.
			_, chatErr := providers.OpenAIChat([]runtime.ToolSchema{tool}, c.opt())
			require.Error(t, chatErr)
			var ce *providers.Error
			require.ErrorAs(t, chatErr, &ce)
			assert.Equal(t, pe.Problems, ce.Problems)
		})
	}
}

const strictHead = "providers: cannot declare tools for openai-responses (strict):\n\t"

func TestStrictFailures(t *testing.T) {
	runStrict(t, []strictCase{
		{
			name:   "open root is closed",
			params: `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`,
			opt:    providers.Strict,
			want:   `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`,
		},
		{
			name:   "closed root stays",
			params: `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`,
			opt:    providers.Strict,
			want:   `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`,
		},
		{
			name:   "explicitly open root",
			params: `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":true}`,
			opt:    providers.Strict,
			err: strictHead + `tool "t": /additionalProperties: additionalProperties is true; strict mode needs false, ` +
				`and closing the object would reject members the tool accepts`,
			codes: []providers.Code{providers.CodeOpenObject},
		},
		{
			name:   "nested open object",
			params: `{"type":"object","properties":{"meta":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}},"required":["meta"]}`,
			opt:    providers.Strict,
			err: strictHead + `tool "t": /properties/meta: the object has no additionalProperties, so it accepts undeclared members; ` +
				`strict mode needs false, and closing it would reject members the tool accepts`,
			codes: []providers.Code{providers.CodeOpenObject},
		},
		{
			name:   "optional properties",
			params: `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"a/b~c":{"type":"string"}},"required":["path"]}`,
			opt:    providers.Strict,
			err: strictHead +
				`tool "t": /properties/offset: the property is optional; strict mode requires every property, and requiring it ` +
				`would change what the tool accepts (OptionalAsNull sends it as required and nullable)` + "\n\t" +
				`tool "t": /properties/a~1b~0c: the property is optional; strict mode requires every property, and requiring it ` +
				`would change what the tool accepts (OptionalAsNull sends it as required and nullable)`,
			codes: []providers.Code{providers.CodeOptional, providers.CodeOptional},
		},
		{
			name:   "untyped schema",
			params: `{"type":"object","properties":{"raw":{"description":"Any JSON."}},"required":["raw"]}`,
			opt:    providers.Strict,
			err: strictHead + `tool "t": /properties/raw: the schema has no type, so it accepts any JSON value; ` +
				`strict mode needs a type on every schema`,
			codes: []providers.Code{providers.CodeUntyped},
		},
		{
			name:   "array of anything",
			params: `{"type":"object","properties":{"xs":{"type":"array"}},"required":["xs"]}`,
			opt:    providers.Strict,
			err: strictHead + `tool "t": /properties/xs: the array has no items schema, so it accepts any element; ` +
				`strict mode needs one`,
			codes: []providers.Code{providers.CodeAnyItems},
		},
		{
			name:   "overlapping oneOf",
			params: `{"type":"object","properties":{"v":{"oneOf":[{"type":"integer"},{"type":"number"},{"type":"string"}]}},"required":["v"]}`,
			opt:    providers.Strict,
			err: strictHead + `tool "t": /properties/v/oneOf: branches 0 and 1 may both match one value; ` +
				`strict mode has only anyOf, which would accept it where oneOf rejects it`,
			codes: []providers.Code{providers.CodeOneOf},
		},
		{
			name: "oneOf of objects that may overlap",
			params: `{"type":"object","properties":{"v":{"oneOf":[` +
				`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false},` +
				`{"type":"object","title":"Same","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}` +
				`]}},"required":["v"]}`,
			opt: providers.Strict,
			err: strictHead + `tool "t": /properties/v/oneOf: branches 0 and 1 may both match one value; ` +
				`strict mode has only anyOf, which would accept it where oneOf rejects it`,
			codes: []providers.Code{providers.CodeOneOf},
		},
		{
			name: "oneOf of objects told apart by a required property",
			params: `{"type":"object","properties":{"v":{"oneOf":[` +
				`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false},` +
				`{"type":"object","properties":{"b":{"type":"string"}},"required":["b"],"additionalProperties":false}` +
				`]}},"required":["v"]}`,
			opt: providers.Strict,
			want: `{"type":"object","properties":{"v":{"anyOf":[` +
				`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false},` +
				`{"type":"object","properties":{"b":{"type":"string"}},"required":["b"],"additionalProperties":false}` +
				`]}},"required":["v"],"additionalProperties":false}`,
		},
		{
			name:   "oneOf of enums with no common value",
			params: `{"type":"object","properties":{"v":{"title":"V","oneOf":[{"type":"integer","enum":[1,2]},{"type":"number","enum":[2.5,1e1]}]}},"required":["v"]}`,
			opt:    providers.Strict,
			want:   `{"type":"object","properties":{"v":{"title":"V","anyOf":[{"type":"integer","enum":[1,2]},{"type":"number","enum":[2.5,1e1]}]}},"required":["v"],"additionalProperties":false}`,
		},
		{
			name:   "oneOf of enums sharing a value spelled apart",
			params: `{"type":"object","properties":{"v":{"oneOf":[{"type":"integer","enum":[1,2]},{"type":"number","enum":[2.0]}]}},"required":["v"]}`,
			opt:    providers.Strict,
			err: strictHead + `tool "t": /properties/v/oneOf: branches 0 and 1 may both match one value; ` +
				`strict mode has only anyOf, which would accept it where oneOf rejects it`,
			codes: []providers.Code{providers.CodeOneOf},
		},
		{
			name:   "oneOf beside type",
			params: `{"type":"object","properties":{"v":{"type":"string","oneOf":[{"type":"string","enum":["a"]},{"type":"string","enum":["b"]}]}},"required":["v"]}`,
			opt:    providers.Strict,
			err: strictHead + `tool "t": /properties/v/oneOf: oneOf beside "type" has no strict form: ` +
				`strict mode documents anyOf only as a schema of its own`,
			codes: []providers.Code{providers.CodeOneOf},
		},
		{
			name: "root oneOf",
			params: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"oneOf":[` +
				`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false},` +
				`{"type":"object","properties":{"b":{"type":"string"}},"required":["b"],"additionalProperties":false}]}`,
			opt: providers.Strict,
			err: strictHead +
				`tool "t": /oneOf: strict mode needs a plain object at the root, and a root oneOf would become a root anyOf, which it rejects` + "\n\t" +
				`tool "t": /properties/a: the property is optional; strict mode requires every property, and requiring it ` +
				`would change what the tool accepts (OptionalAsNull sends it as required and nullable)` + "\n\t" +
				`tool "t": /properties/b: the property is optional; strict mode requires every property, and requiring it ` +
				`would change what the tool accepts (OptionalAsNull sends it as required and nullable)`,
			codes: []providers.Code{providers.CodeOneOf, providers.CodeOptional, providers.CodeOptional},
		},
		{
			name: "every problem in document order",
			params: `{"type":"object","properties":{"raw":{},"meta":{"type":"object"},"items":{"type":"array","items":{"oneOf":[{"type":"string"},{}]}}},` +
				`"required":["raw","meta","items"],"additionalProperties":true}`,
			opt: providers.Strict,
			err: strictHead +
				`tool "t": /additionalProperties: additionalProperties is true; strict mode needs false, and closing the object would reject members the tool accepts` + "\n\t" +
				`tool "t": /properties/raw: the schema has no type, so it accepts any JSON value; strict mode needs a type on every schema` + "\n\t" +
				`tool "t": /properties/meta: the object has no additionalProperties, so it accepts undeclared members; strict mode needs false, and closing it would reject members the tool accepts` + "\n\t" +
				`tool "t": /properties/items/items/oneOf: branches 0 and 1 may both match one value; strict mode has only anyOf, which would accept it where oneOf rejects it` + "\n\t" +
				`tool "t": /properties/items/items/oneOf/1: the schema has no type, so it accepts any JSON value; strict mode needs a type on every schema`,
			codes: []providers.Code{providers.CodeOpenObject, providers.CodeUntyped, providers.CodeOpenObject, providers.CodeOneOf, providers.CodeUntyped},
		},
		{
			name:   "annotations, enum and const are kept",
			params: `{"type":"object","title":"T","description":"D","default":{"n":1.50},"examples":[{"n":2}],"properties":{"n":{"type":"number","const":1.50}},"required":["n"]}`,
			opt:    providers.Strict,
			want:   `{"type":"object","title":"T","description":"D","default":{"n":1.50},"examples":[{"n":2}],"properties":{"n":{"type":"number","const":1.50}},"required":["n"],"additionalProperties":false}`,
		},
	})
}

const nullHead = "providers: cannot declare tools for openai-responses (strict, optional as null):\n\t"

func TestOptionalAsNull(t *testing.T) {
	runStrict(t, []strictCase{
		{
			name:   "optional becomes required and nullable",
			params: `{"type":"object","properties":{"a":{"type":"string","description":"A."},"b":{"type":"integer"},"c":{"type":"boolean"}},"required":["b"]}`,
			opt:    providers.OptionalAsNull,
			want: `{"type":"object","properties":{"a":{"anyOf":[{"type":"string","description":"A."},{"type":"null"}]},"b":{"type":"integer"},` +
				`"c":{"anyOf":[{"type":"boolean"},{"type":"null"}]}},"required":["b","a","c"],"additionalProperties":false}`,
		},
		{
			name:   "no required keyword yet",
			params: `{"type":"object","properties":{"a":{"type":"string"}}}`,
			opt:    providers.OptionalAsNull,
			want:   `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["a"],"additionalProperties":false}`,
		},
		{
			name: "optional in a nullable object",
			params: `{"type":"object","properties":{"opts":{"oneOf":[{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false},{"type":"null"}]}},` +
				`"required":["opts"]}`,
			opt: providers.OptionalAsNull,
			want: `{"type":"object","properties":{"opts":{"anyOf":[{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"null"}]}},` +
				`"required":["x"],"additionalProperties":false},{"type":"null"}]}},"required":["opts"],"additionalProperties":false}`,
		},
		{
			name:   "optional in array items",
			params: `{"type":"object","properties":{"xs":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}}},"required":["xs"]}`,
			opt:    providers.OptionalAsNull,
			want: `{"type":"object","properties":{"xs":{"type":"array","items":{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"null"}]}},` +
				`"required":["x"],"additionalProperties":false}}},"required":["xs"],"additionalProperties":false}`,
		},
		{
			name:   "optional and nullable",
			params: `{"type":"object","properties":{"n":{"oneOf":[{"type":"integer"},{"type":"null"}]}}}`,
			opt:    providers.OptionalAsNull,
			err:    nullHead + `tool "t": /properties/n: the optional property accepts null, so null cannot also stand for its absence`,
			codes:  []providers.Code{providers.CodeOptional},
		},
		{
			name: "optional below variants of one type",
			params: `{"type":"object","properties":{"shape":{"oneOf":[` +
				`{"type":"object","properties":{"kind":{"type":"string","const":"circle"},"label":{"type":"string"}},"required":["kind"],"additionalProperties":false},` +
				`{"type":"object","properties":{"kind":{"type":"string","const":"square"}},"required":["kind"],"additionalProperties":false}` +
				`]}},"required":["shape"]}`,
			opt: providers.OptionalAsNull,
			err: nullHead + `tool "t": /properties/shape/oneOf/0/properties/label: the optional property lies below a oneOf whose branches ` +
				`share a JSON type, so a null sent in its place could not be traced back to it`,
			codes: []providers.Code{providers.CodeOptional},
		},
	})
}

// TestAnthropicRootOneOf checks the one schema rule the Messages API adds.
func TestAnthropicRootOneOf(t *testing.T) {
	params := schemasubset.MustParse(`{"type":"object","oneOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},` +
		`{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}]}`)
	tools := []runtime.ToolSchema{{Name: "t", Parameters: params}}
	_, err := providers.Anthropic(tools)
	require.Error(t, err)
	assert.Equal(t, "providers: cannot declare tools for anthropic:\n\t"+
		`tool "t": /oneOf: the Messages API rejects oneOf, anyOf and allOf at the top level of input_schema`, err.Error())

	// The other formats pass it through as it is.
	_, err = providers.OpenAIChat(tools)
	require.NoError(t, err)
	_, err = providers.Gemini(tools)
	require.NoError(t, err)
}

// TestUnsupportedSchema checks that a schema outside the subset is
// reported issue by issue, in every format.
func TestUnsupportedSchema(t *testing.T) {
	bad := schemasubset.Object(
		schemasubset.Prop("x", schemasubset.String().WithEnum([]byte(`1`))),
		schemasubset.Prop("y", schemasubset.Integer()),
	).WithRequired("x", "z")
	tools := []runtime.ToolSchema{{Name: "t", Parameters: bad}, {Name: "s", Parameters: schemasubset.String()}}
	want := "\n\t" + `tool "t": /required/1: required name "z" is not in properties` +
		"\n\t" + `tool "t": /properties/x/enum/0: enum value (number) does not match type string` +
		"\n\t" + `tool "s": (root): the root schema must have type "object", has "string"`
	for format, declare := range map[string]func([]runtime.ToolSchema) error{
		"openai-chat":                            ignore(providers.OpenAIChat),
		"openai-responses (strict)":              ignore(providers.OpenAIResponses, providers.Strict()),
		"anthropic":                              func(ts []runtime.ToolSchema) error { _, err := providers.Anthropic(ts); return err },
		"gemini":                                 func(ts []runtime.ToolSchema) error { _, err := providers.Gemini(ts); return err },
		"openai-chat (strict, optional as null)": ignore(providers.OpenAIChat, providers.OptionalAsNull()),
	} {
		err := declare(tools)
		require.Error(t, err, format)
		assert.Equal(t, "providers: cannot declare tools for "+format+":"+want, err.Error())
		var pe *providers.Error
		require.ErrorAs(t, err, &pe)
		for _, p := range pe.Problems {
			assert.Equal(t, providers.CodeSchema, p.Code)
		}
	}
}

// TestInvalidDescription checks that a description JSON cannot carry is
// refused rather than altered.
func TestInvalidDescription(t *testing.T) {
	_, err := providers.Anthropic([]runtime.ToolSchema{{Name: "t", Description: "bad \xff byte", Parameters: schemasubset.Object()}})
	require.Error(t, err)
	assert.Equal(t, "providers: cannot declare tools for anthropic:\n\t"+
		`tool "t": description is not valid UTF-8, so JSON cannot carry it unchanged`, err.Error())
}

func ignore(f func([]runtime.ToolSchema, ...providers.Option) ([]json.RawMessage, error), opts ...providers.Option) func([]runtime.ToolSchema) error {
	return func(ts []runtime.ToolSchema) error {
		_, err := f(ts, opts...)
		return err
	}
}
