package schemasubset_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/internal/conformance"
	"github.com/toolgen-go/toolgen/jsonvalue"
	ss "github.com/toolgen-go/toolgen/schemasubset"
)

type verdict struct {
	rule     ss.Rule
	instance string
	schema   string
}

func validate(t *testing.T, n *ss.Node, value string) *verdict {
	t.Helper()
	v, err := jsonvalue.Materialize([]byte(value))
	require.NoError(t, err, value)
	err = ss.Validate(n, v)
	if err == nil {
		return nil
	}
	var ve *ss.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.NotEmpty(t, ve.Message)
	return &verdict{ve.Rule, ve.InstancePath, ve.SchemaPath}
}

var editSchema = ss.MustParse(`{"type":"object","properties":{
	"path":{"type":"string"},
	"edits":{"type":"array","items":{"type":"object","properties":{
		"old_text":{"type":"string"},"new_text":{"type":"string"},"replace_all":{"type":"boolean"}},
		"required":["old_text","new_text"],"additionalProperties":false}},
	"mode":{"type":"string","enum":["a","b"]},
	"n":{"type":"integer"},
	"kind":{"type":"string","const":"edit"},
	"open":{"type":"object","properties":{"x":{"type":"null"}}},
	"u":{"oneOf":[{"type":"string"},{"type":"integer"},{"type":"number","enum":[2.5]}]},
	"a/b~c":{"type":"boolean"}},
	"required":["path"]}`)

func TestValidateReportsPathAndRule(t *testing.T) {
	tests := []struct {
		name, value string
		want        *verdict
	}{
		{"valid", `{"path":"/x","edits":[{"old_text":"a","new_text":"b"}],"mode":"a","n":1e2,"kind":"edit","u":2.5}`, nil},
		{"open root ignores unknown keys", `{"path":"/x","extra":[1,{"deep":true}]}`, nil},
		{"wrong root type", `[]`, &verdict{ss.RuleType, "", "/type"}},
		{"required inside an item", `{"path":"/x","edits":[{},{},{},{"old_text":5,"new_text":"b"}]}`,
			&verdict{ss.RuleRequired, "/edits/0", "/properties/edits/items/required"}},
		{"type at depth", `{"path":"/x","edits":[{"old_text":"a","new_text":"b"},{"old_text":"a","new_text":"b"},{"old_text":"a","new_text":"b"},{"old_text":5,"new_text":"b"}]}`,
			&verdict{ss.RuleType, "/edits/3/old_text", "/properties/edits/items/properties/old_text/type"}},
		{"required at object close", `{"edits":[]}`, &verdict{ss.RuleRequired, "", "/required"}},
		{"a violation inside comes before required", `{"mode":"z"}`, &verdict{ss.RuleEnum, "/mode", "/properties/mode/enum"}},
		{"closed nested object", `{"path":"/x","edits":[{"old_text":"a","new_text":"b","dry_run":true}]}`,
			&verdict{ss.RuleAdditionalProperties, "/edits/0/dry_run", "/properties/edits/items/additionalProperties"}},
		{"open nested object", `{"path":"/x","open":{"x":null,"y":1}}`, nil},
		{"enum", `{"path":"/x","mode":"c"}`, &verdict{ss.RuleEnum, "/mode", "/properties/mode/enum"}},
		{"const", `{"path":"/x","kind":"Edit"}`, &verdict{ss.RuleConst, "/kind", "/properties/kind/const"}},
		{"integer with fraction", `{"path":"/x","n":1.5}`, &verdict{ss.RuleType, "/n", "/properties/n/type"}},
		{"integer spelled as float", `{"path":"/x","n":-3.000}`, nil},
		{"oneOf none", `{"path":"/x","u":true}`, &verdict{ss.RuleOneOf, "/u", "/properties/u/oneOf"}},
		{"oneOf two", `{"path":"/x","u":"s"}`, nil},
		{"oneOf exact", `{"path":"/x","u":7}`, nil},
		{"oneOf enum branch", `{"path":"/x","u":2.50}`, nil},
		{"escaped pointer", `{"path":"/x","a/b~c":1}`, &verdict{ss.RuleType, "/a~1b~0c", "/properties/a~1b~0c/type"}},
		{"first violation in document order", `{"n":"x","path":5}`, &verdict{ss.RuleType, "/n", "/properties/n/type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, validate(t, editSchema, tt.value))
		})
	}
}

func TestValidateMessages(t *testing.T) {
	v := jsonvalue.Value(`{"path":"/x","edits":[{"old_text":"a","new_text":"b"},{"old_text":"a","new_text":"b"},{"old_text":"a","new_text":"b"},{"old_text":5,"new_text":"b"}]}`)
	err := ss.Validate(editSchema, v)
	require.Error(t, err)
	assert.Equal(t, "/edits/3/old_text: want string, got number", err.Error())

	for value, msg := range map[string]string{
		`[]`:                     "(root): want object, got array",
		`{}`:                     `(root): missing required property "path"`,
		`{"path":"","n":1.5}`:    "/n: want integer, got 1.5",
		`{"path":"","mode":"c"}`: `/mode: want one of "a", "b"; got "c"`,
		`{"path":"","kind":7}`:   `/kind: want string, got number`,
		`{"path":"","kind":"x"}`: `/kind: want "edit", got "x"`,
		`{"path":"","u":null}`:   "/u: matches none of the 3 oneOf branches",
		`{"path":"","edits":[{"old_text":"","new_text":"","x":1}]}`: `/edits/0/x: property "x" is not allowed (additionalProperties is false)`,
	} {
		assert.Equal(t, msg, ss.Validate(editSchema, mustValue(t, value)).Error(), value)
	}
	both := ss.MustParse(`{"oneOf":[{"type":"number"},{"type":"integer"}]}`)
	assert.Equal(t, "(root): matches oneOf branches 0 and 1, want exactly one", ss.Validate(both, jsonvalue.Value(`1`)).Error())

	long := `"` + strings.Repeat("é", 100) + `"`
	msg := ss.Validate(ss.String().WithEnum(str("a")), jsonvalue.Value(long)).Error()
	assert.Less(t, len(msg), 120)
	assert.True(t, strings.HasSuffix(msg, "..."))
	assert.NotContains(t, msg, "\ufffd", "excerpts do not split characters")
}

func mustValue(t testing.TB, s string) jsonvalue.Value {
	t.Helper()
	v, err := jsonvalue.Materialize([]byte(s))
	require.NoError(t, err, s)
	return v
}

func TestValidateExactNumbers(t *testing.T) {
	tests := []struct {
		schema *ss.Node
		value  string
		ok     bool
	}{
		{ss.Integer(), `1e400`, true},
		{ss.Integer(), `1e-400`, false},
		{ss.Integer(), `12345678901234567890`, true},
		{ss.Integer(), `12345678901234567890.5`, false},
		{ss.Integer(), `-0`, true},
		{ss.Integer(), `0.0`, true},
		{ss.Integer().WithConst(num("12345678901234567890")), `12345678901234567890`, true},
		{ss.Integer().WithConst(num("12345678901234567890")), `12345678901234567891`, false},
		{ss.Integer().WithConst(num("12345678901234567890")), `1.2345678901234567890e19`, true},
		{ss.Number().WithConst(num("0.1")), `0.1000000000000000000001`, false},
		{ss.Number().WithConst(num("0.1")), `1e-1`, true},
		{ss.Integer().WithConst(num("0")), `-0`, true},
		{ss.Integer().WithConst(num("0")), `1e-400`, false},
		{ss.Integer().WithEnum(num("1"), num("2.0"), num("10.0")), `2`, true},
		{ss.Integer().WithEnum(num("1"), num("2.0"), num("10.0")), `1e1`, true},
		{ss.Integer().WithEnum(num("0"), num("1")), `true`, false},
		{ss.Number().WithEnum(num("1e99999999999999999999")), `10e99999999999999999998`, true},
		{ss.Number().WithEnum(num("1e99999999999999999999")), `1e99999999999999999998`, false},
		{ss.Boolean(), `0`, false},
		{ss.String().WithEnum(str("é")), `"é"`, true},
		{ss.String().WithEnum(str("é")), "\"e\u0301\"", false},
		{ss.String().WithConst(str("a\"\n")), `"a\u0022\n"`, true},
	}
	for _, tt := range tests {
		err := ss.Validate(tt.schema, mustValue(t, tt.value))
		assert.Equal(t, tt.ok, err == nil, "%s against %s: %v", tt.value, tt.schema, err)
	}
}

func TestValidateEmptyAndAnnotationSchemasAcceptAnything(t *testing.T) {
	for _, n := range []*ss.Node{ss.Any(), ss.Any().WithDescription("x").WithTitle("t"), ss.MustParse(`{"default":5,"examples":[]}`)} {
		for _, v := range []string{`null`, `[1]`, `"s"`, `{"a":{"b":[]}}`, `1e400`, `false`} {
			assert.NoError(t, ss.Validate(n, mustValue(t, v)), "%s against %s", v, n)
		}
	}
}

func TestValidateTitleAndDescriptionChangeNothing(t *testing.T) {
	plain := ss.Object(ss.Prop("a", ss.String())).WithRequired("a")
	annotated := ss.Object(ss.Prop("a", ss.String().WithTitle("A").WithDescription("the a"))).WithRequired("a").WithTitle("T").WithDescription("D")
	for _, v := range []string{`{"a":"x"}`, `{}`, `{"a":1}`, `[]`} {
		assert.Equal(t, validate(t, plain, v), validate(t, annotated, v), v)
	}
}

func TestValidateIsNotDepthCapped(t *testing.T) {
	n := ss.Integer()
	value := "1.5"
	wantInst, wantSchema := "", "/type"
	for i := 20; i > 0; i-- {
		name := "l" + itoa(i)
		n = ss.Object(ss.Prop(name, n)).WithRequired(name).Closed()
		value = `{"` + name + `":` + value + `}`
		wantInst = "/" + name + wantInst
		wantSchema = "/properties/" + name + wantSchema
	}
	assert.Equal(t, &verdict{ss.RuleType, wantInst, wantSchema}, validate(t, n, value))
}

func TestValidateManyPropertiesAndRequired(t *testing.T) {
	var props []ss.Property
	var names []string
	var value strings.Builder
	value.WriteString("{")
	for i := range 100 {
		name := "p" + itoa(i)
		props = append(props, ss.Prop(name, ss.Integer()))
		names = append(names, name)
		if i > 0 {
			value.WriteString(",")
		}
		value.WriteString(`"` + name + `":` + itoa(i))
	}
	value.WriteString("}")
	n := ss.Object(props...).WithRequired(names...).Closed()
	assert.Nil(t, validate(t, n, value.String()))
	missing := strings.Replace(value.String(), `"p70":70,`, "", 1)
	assert.Equal(t, &verdict{ss.RuleRequired, "", "/required"}, validate(t, n, missing))
	assert.Contains(t, ss.Validate(n, mustValue(t, missing)).Error(), `"p70"`)
	assert.Equal(t, &verdict{ss.RuleAdditionalProperties, "/zz", "/additionalProperties"}, validate(t, n, `{"p1":1,"zz":1}`))
	assert.Equal(t, &verdict{ss.RuleType, "/p99", "/properties/p99/type"}, validate(t, n, `{"p99":"x"}`))
}

func TestValidateDuplicateRequiredNames(t *testing.T) {
	n := ss.MustParse(`{"type":"object","properties":{"a":{}},"required":["a","a"]}`)
	assert.Nil(t, validate(t, n, `{"a":1}`))
	assert.Equal(t, &verdict{ss.RuleRequired, "", "/required"}, validate(t, n, `{}`))
}

func TestValidateNeverPanicsOnDamagedValues(t *testing.T) {
	for _, s := range []string{"", "{", `{"path"`, `{"path":`, `{"path":"x"`, `{"path":"x",}`, `{"path" "x"}`, `[`, `{"edits":[{"old_text":"a"`,
		`{"path":"x"} `, `{"path":"x"}x`, ` {"path":"x"}`, `{"u":tru}`, `{"n":1.}`, `{"n":-}`, `{"path":"x","open":{"x":nul}}`, "\x00",
		`{"edits":[1,]}`, `{"edits":[1 2]}`, `{"path":"x","extra":[}`} {
		err := ss.Validate(editSchema, jsonvalue.Value(s))
		var ve *ss.ValidationError
		if assert.ErrorAs(t, err, &ve, "%q", s) {
			assert.Contains(t, []ss.Rule{ss.RuleInvalidValue, ss.RuleType, ss.RuleRequired}, ve.Rule, "%q: %v", s, err)
		}
	}
	err := ss.Validate(ss.Any(), jsonvalue.Value(`[1] [2]`))
	var ve *ss.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, ss.RuleInvalidValue, ve.Rule)
	assert.Equal(t, 3, ve.Offset)
	require.ErrorAs(t, ss.Validate(ss.Any(), nil), &ve)
	assert.Equal(t, ss.RuleInvalidValue, ve.Rule)
	require.ErrorAs(t, ss.Validate(ss.OneOf(ss.String(), ss.Integer()), jsonvalue.Value(`tru`)), &ve)
	assert.Equal(t, ss.RuleInvalidValue, ve.Rule, "damage inside oneOf branches is reported as such")
}

func TestValidateHostileSizes(t *testing.T) {
	deep := jsonvalue.Value(strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000))
	assert.NoError(t, ss.Validate(ss.Any(), deep))
	assert.NoError(t, ss.Validate(ss.Array(nil), deep))
	n := ss.Array(ss.Any())
	for range 1000 {
		n = ss.Array(n)
	}
	assert.NoError(t, ss.Validate(n, deep))
	var ve *ss.ValidationError
	require.ErrorAs(t, ss.Validate(n, jsonvalue.Value(strings.Repeat("[", 500)+"1"+strings.Repeat("]", 500))), &ve)
	assert.Equal(t, ss.RuleType, ve.Rule)
	assert.Equal(t, strings.Repeat("/0", 500), ve.InstancePath)

	big := `"` + strings.Repeat(`a\"é`, 10<<20/5) + `"`
	assert.NoError(t, ss.Validate(ss.String(), mustValue(t, big)))
	require.ErrorAs(t, ss.Validate(ss.String().WithEnum(str("x")), mustValue(t, big)), &ve)
	assert.Equal(t, ss.RuleEnum, ve.Rule)
	assert.Less(t, len(ve.Message), 200)
}

func benchPayloads(t testing.TB) map[string][2][]byte {
	dir, ok := conformance.Find()
	bench := filepath.Join(filepath.Dir(dir), "bench")
	out := map[string][2][]byte{}
	if !ok {
		return out
	}
	for _, p := range []string{"small", "medium", "nested"} {
		schema, err1 := os.ReadFile(filepath.Join(bench, p+".schema.json"))
		value, err2 := os.ReadFile(filepath.Join(bench, p+".json"))
		if err1 == nil && err2 == nil {
			out[p] = [2][]byte{schema, value}
		}
	}
	return out
}

func TestValidateDoesNotAllocateOnValidValues(t *testing.T) {
	cases := map[string][2]*ss.Node{}
	for name, p := range benchPayloads(t) {
		n, err := ss.Parse(p[0])
		require.NoError(t, err)
		cases[name] = [2]*ss.Node{n}
		v := mustValue(t, string(p[1]))
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = ss.Validate(n, v) }), name)
	}
	v := mustValue(t, `{"path":"/x","edits":[{"old_text":"a","new_text":"b","replace_all":true}],"mode":"b","n":1.0e3,"kind":"edit","u":"s","open":{"x":null,"q":[1,{"z":2}]}}`)
	require.NoError(t, ss.Validate(editSchema, v))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = ss.Validate(editSchema, v) }))
}
