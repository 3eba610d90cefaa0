package schemasubset_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	ss "github.com/toolgen-go/toolgen/schemasubset"
)

func str(s string) jsonvalue.Value { return jsonvalue.String(s) }

func num(s string) jsonvalue.Value {
	v, err := jsonvalue.Number(s)
	if err != nil {
		panic(err)
	}
	return v
}

// issues returns the (pointer, code) pairs of a *SchemaError.
func issues(t *testing.T, err error) [][2]string {
	t.Helper()
	var se *ss.SchemaError
	require.ErrorAs(t, err, &se)
	var out [][2]string
	for _, is := range se.Issues {
		out = append(out, [2]string{is.Pointer, string(is.Code)})
		assert.NotEmpty(t, is.Message)
	}
	return out
}

func TestConstructorsMatchParse(t *testing.T) {
	tests := []struct {
		name string
		node *ss.Node
		json string
	}{
		{"any", ss.Any(), `{}`},
		{"scalars", ss.Array(ss.OneOf(ss.String(), ss.Number(), ss.Integer(), ss.Boolean(), ss.Null())),
			`{"type":"array","items":{"oneOf":[{"type":"string"},{"type":"number"},{"type":"integer"},{"type":"boolean"},{"type":"null"}]}}`},
		{"array without items", ss.Array(nil), `{"type":"array"}`},
		{"read_file args", ss.Object(
			ss.Prop("path", ss.String().WithDescription("Absolute path.")),
			ss.Prop("offset", ss.Integer().WithDefault(num("1"))),
			ss.Prop("mode", ss.String().WithEnum(str("text"), str("base64"))),
		).WithRequired("path").WithDescription("Read a file."),
			`{"description":"Read a file.","required":["path"],"type":"object","properties":{"path":{"description":"Absolute path.","type":"string"},"offset":{"type":"integer","default":1},"mode":{"enum":["text","base64"],"type":"string"}}}`},
		{"closed nested", ss.Object(ss.Prop("edits", ss.Array(ss.Object(
			ss.Prop("old_text", ss.String()), ss.Prop("new_text", ss.String())).WithRequired("old_text", "new_text").Closed()))),
			`{"type":"object","properties":{"edits":{"type":"array","items":{"type":"object","properties":{"old_text":{"type":"string"},"new_text":{"type":"string"}},"required":["old_text","new_text"],"additionalProperties":false}}}}`},
		{"explicit empty keywords", ss.Object().WithProperties().WithRequired().WithAdditionalProperties(true),
			`{"type":"object","properties":{},"required":[],"additionalProperties":true}`},
		{"annotations", ss.Any().WithTitle("T").WithDescription("").WithExamples(jsonvalue.Value(`[1,"x",{"minimum":3}]`)).WithDefault(jsonvalue.Value(`{"$ref":"#"}`)),
			`{"title":"T","description":"","examples":[1,"x",{"minimum":3}],"default":{"$ref":"#"}}`},
		{"const and typed oneOf", ss.OneOf(ss.Integer(), ss.Number().WithEnum(num("1.5"), num("2.5"))).WithType(ss.TypeNumber).WithConst(num("1e400")),
			`{"type":"number","const":1e400,"oneOf":[{"type":"integer"},{"type":"number","enum":[1.5,2.5]}]}`},
		{"nullable", ss.Nullable(ss.String()), `{"oneOf":[{"type":"string"},{"type":"null"}]}`},
		{"odd names", ss.Object(ss.Prop("a/b", ss.Any()), ss.Prop("c~d", ss.Any()), ss.Prop("q\"\n", ss.Any()), ss.Prop("$ref", ss.String())).WithRequired("$ref"),
			`{"type":"object","properties":{"a/b":{},"c~d":{},"q\"\n":{},"$ref":{"type":"string"}},"required":["$ref"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, ss.AssertSupported(tt.node))
			parsed, err := ss.Parse([]byte(tt.json))
			require.NoError(t, err)
			assert.True(t, tt.node.Equal(parsed), "constructed %s\nparsed      %s", tt.node, parsed)
			assert.True(t, parsed.Equal(tt.node))
			b1, err := tt.node.MarshalJSON()
			require.NoError(t, err)
			b2, err := parsed.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, string(b2), string(b1), "equal nodes marshal to equal bytes")
			again, err := ss.Parse(b1)
			require.NoError(t, err)
			assert.True(t, again.Equal(tt.node), "Parse(Marshal(n)) equals n")
			m, err := jsonvalue.Materialize(b1)
			require.NoError(t, err)
			assert.Equal(t, string(m), string(b1), "the marshaled form is canonical JSON")
		})
	}
}

func TestMarshalKeywordOrderIsFixed(t *testing.T) {
	n := ss.MustParse(`{"additionalProperties":false,"required":["a"],"properties":{"a":{}},"examples":0,"default":0,"description":"d","title":"t","type":"object"}`)
	assert.Equal(t, `{"type":"object","title":"t","description":"d","default":0,"examples":0,"properties":{"a":{}},"required":["a"],"additionalProperties":false}`, n.String())
}

func TestWithReturnsCopies(t *testing.T) {
	base := ss.Object(ss.Prop("a", ss.String()), ss.Prop("b", ss.Integer()))
	before := base.String()
	req := base.WithRequired("b")
	closed := req.Closed()
	_ = closed.WithDescription("x").WithTitle("y").WithProperties(ss.Prop("z", ss.Null()))
	assert.Equal(t, before, base.String())
	assert.Equal(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["b"]}`, req.String())

	// The required bit computed for a copy must not leak into the original.
	require.NoError(t, ss.Validate(base, jsonvalue.Value(`{}`)))
	require.Error(t, ss.Validate(req, jsonvalue.Value(`{}`)))

	var nilNode *ss.Node
	assert.Equal(t, `{"type":"string"}`, nilNode.WithType(ss.TypeString).String())
}

func TestAccessors(t *testing.T) {
	n := ss.MustParse(`{"type":"object","title":"T","description":"D","default":{"a":1},"examples":[1],
		"properties":{"a":{"type":"string","enum":["x","y"]},"b":{"type":"integer","const":3}},"required":["a"],"additionalProperties":false}`)
	assert.Equal(t, ss.TypeObject, n.Type())
	title, ok := n.Title()
	assert.True(t, ok)
	assert.Equal(t, "T", title)
	desc, ok := n.Description()
	assert.True(t, ok)
	assert.Equal(t, "D", desc)
	assert.Equal(t, `{"a":1}`, n.Default().String())
	assert.Equal(t, `[1]`, n.Examples().String())
	props, ok := n.Properties()
	assert.True(t, ok)
	require.Len(t, props, 2)
	assert.Equal(t, "a", props[0].Name)
	assert.Equal(t, []jsonvalue.Value{str("x"), str("y")}, props[0].Schema.Enum())
	c, ok := n.Property("b").Const()
	assert.True(t, ok)
	assert.Equal(t, "3", c.String())
	assert.Nil(t, n.Property("zz"))
	req, ok := n.Required()
	assert.True(t, ok)
	assert.Equal(t, []string{"a"}, req)
	allowed, present := n.AdditionalProperties()
	assert.False(t, allowed)
	assert.True(t, present)
	assert.Nil(t, n.Items())
	assert.Nil(t, n.OneOf())
	assert.Nil(t, ss.String().Enum())

	// Accessors hand out copies.
	props[0].Schema.Enum()[0][1] = 'Z'
	req[0] = "zz"
	assert.Equal(t, `"x"`, n.Property("a").Enum()[0].String())
	got, _ := n.Required()
	assert.Equal(t, []string{"a"}, got)

	assert.Equal(t, "integer", ss.TypeInteger.String())
	assert.Equal(t, "", ss.TypeAny.String())
	typ, ok := ss.ParseType("boolean")
	assert.True(t, ok)
	assert.Equal(t, ss.TypeBoolean, typ)
	_, ok = ss.ParseType("float")
	assert.False(t, ok)
	_, ok = ss.ParseType("")
	assert.False(t, ok)
}

func TestConstructedNodesReportEveryIssue(t *testing.T) {
	n := ss.Object(
		ss.Prop("mode", ss.String().WithEnum(str("a"), num("1"))),
		ss.Prop("n", ss.Integer().WithEnum(num("1"), num("1.5")).WithConst(jsonvalue.Bool(true))),
		ss.Prop("dup", ss.String()),
		ss.Prop("dup", ss.String()),
		ss.Prop("nil", nil),
		ss.Prop("bad", ss.String().WithEnum(jsonvalue.Value(`"\u0041"`), jsonvalue.Value(`{}`), jsonvalue.Value(`01`))),
		ss.Prop("none", ss.String().WithEnum()),
		ss.Prop("one", ss.OneOf(ss.String())),
		ss.Prop("nilbranch", ss.OneOf(ss.String(), nil)),
		ss.Prop("def", ss.Any().WithDefault(jsonvalue.Value(`{"a":1,"a":2}`)).WithExamples(jsonvalue.Value(`[1 ]`))),
		ss.Prop("untyped", ss.Any().WithConst(str("x")).WithItems(ss.Any()).WithRequired()),
	).WithRequired("mode", "missing")
	assert.Equal(t, [][2]string{
		{"/properties/dup", "duplicate-property"},
		{"/required/1", "undeclared-required"},
		{"/properties/nil", "not-a-schema"},
		{"/properties/mode/enum/1", "type-mismatch"},
		{"/properties/n/enum/1", "type-mismatch"},
		{"/properties/n/const", "type-mismatch"},
		{"/properties/bad/enum/0", "not-lossless"},
		{"/properties/bad/enum/1", "not-scalar"},
		{"/properties/bad/enum/2", "not-lossless"},
		{"/properties/none/enum", "empty-enum"},
		{"/properties/one/oneOf", "too-few-branches"},
		{"/properties/nilbranch/oneOf/1", "not-a-schema"},
		{"/properties/def/default", "not-lossless"},
		{"/properties/def/examples", "not-lossless"},
		{"/properties/untyped/required", "needs-type"},
		{"/properties/untyped/items", "needs-type"},
		{"/properties/untyped/const", "needs-type"},
	}, issues(t, ss.AssertSupported(n)))

	// An unsupported node neither validates nor marshals.
	verr := ss.Validate(n, jsonvalue.Value(`{}`))
	var ve *ss.ValidationError
	require.ErrorAs(t, verr, &ve)
	assert.Equal(t, ss.RuleUnsupportedSchema, ve.Rule)
	var se *ss.SchemaError
	assert.ErrorAs(t, verr, &se)
	_, err := n.MarshalJSON()
	assert.ErrorAs(t, err, &se)
	assert.NotEmpty(t, n.String(), "String is best effort")
}

func TestAssertObject(t *testing.T) {
	require.NoError(t, ss.AssertObject(ss.Object()))
	assert.Equal(t, [][2]string{{"", "not-object-root"}}, issues(t, ss.AssertObject(ss.String())))
	assert.Equal(t, [][2]string{{"", "not-object-root"}}, issues(t, ss.AssertObject(ss.OneOf(ss.Object(), ss.Object()))))
	assert.Equal(t, [][2]string{{"", "not-object-root"}, {"/oneOf", "too-few-branches"}}, issues(t, ss.AssertObject(ss.OneOf(ss.Object()))))
	assert.Equal(t, [][2]string{{"/required/0", "undeclared-required"}}, issues(t, ss.AssertObject(ss.Object().WithRequired("x"))))
	assert.Equal(t, [][2]string{{"", "not-a-schema"}}, issues(t, ss.AssertObject(nil)))
	assert.Equal(t, [][2]string{{"", "not-a-schema"}}, issues(t, ss.AssertSupported(nil)))
}

func TestNodeInStructs(t *testing.T) {
	var cfg struct {
		Schema *ss.Node `json:"schema"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"schema": {"type": "string", "enum": ["a"]}}`), &cfg))
	assert.Equal(t, `{"type":"string","enum":["a"]}`, cfg.Schema.String())
	out, err := json.Marshal(cfg)
	require.NoError(t, err)
	assert.Equal(t, `{"schema":{"type":"string","enum":["a"]}}`, string(out))

	err = json.Unmarshal([]byte(`{"schema": {"type": "string", "minLength": 1}}`), &cfg)
	var se *ss.SchemaError
	assert.True(t, errors.As(err, &se), "%v", err)
}

func TestZeroNodeIsTheEmptySchema(t *testing.T) {
	var zero ss.Node
	require.NoError(t, ss.AssertSupported(&zero))
	assert.NoError(t, ss.Validate(&zero, jsonvalue.Value(`{"any":[1]}`)))
	assert.Equal(t, `{}`, zero.String())
	assert.True(t, zero.Equal(ss.Any()))
}

func TestInvalidUTF8IsNotLossless(t *testing.T) {
	n := ss.Object(ss.Prop("a\xff", ss.String())).WithRequired("b\xff").WithTitle("t\xff").WithDescription("d\xff")
	assert.Equal(t, [][2]string{
		{"/title", "not-lossless"}, {"/description", "not-lossless"},
		{"/properties/a\xff", "not-lossless"}, {"/required/0", "not-lossless"},
	}, issues(t, ss.AssertSupported(n)))
}

func TestAcceptsAnything(t *testing.T) {
	for _, n := range []*ss.Node{ss.Any(), ss.Any().WithDescription("d").WithTitle("t").WithDefault(jsonvalue.Value(`1`)), new(ss.Node)} {
		assert.True(t, n.AcceptsAnything(), "%s", n)
	}
	for _, n := range []*ss.Node{nil, ss.String(), ss.OneOf(ss.Any(), ss.Null()), ss.Object(), ss.Any().WithEnum(str("a")), ss.Any().WithItems(ss.Any())} {
		assert.False(t, n.AcceptsAnything(), "%s", n)
	}
}
