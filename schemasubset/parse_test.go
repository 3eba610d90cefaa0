package schemasubset_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/internal/conformance"
	"github.com/toolgen-go/toolgen/jsonvalue"
	ss "github.com/toolgen-go/toolgen/schemasubset"
)

func TestParseReportsEveryIssue(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   [][2]string
	}{
		{"unknown keywords at every depth", `{"type":"object","minProperties":1,"properties":{"path":{"type":"string","minimum":1,"format":"uri"},"list":{"type":"array","items":{"pattern":"x"}},"u":{"oneOf":[{"type":"string"},{"$ref":"#"}]}},"x-order":1}`,
			[][2]string{{"/minProperties", "unsupported-keyword"}, {"/x-order", "unsupported-keyword"},
				{"/properties/path/minimum", "unsupported-keyword"}, {"/properties/path/format", "unsupported-keyword"},
				{"/properties/list/items/pattern", "unsupported-keyword"}, {"/properties/u/oneOf/1/$ref", "unsupported-keyword"}}},
		{"escaped keyword names", `{"a/b":1,"c~d":2}`, [][2]string{{"/a~1b", "unsupported-keyword"}, {"/c~0d", "unsupported-keyword"}}},
		{"boolean schemas", `{"type":"object","properties":{"a":true,"b":false},"additionalProperties":false}`,
			[][2]string{{"/properties/a", "boolean-schema"}, {"/properties/b", "boolean-schema"}}},
		{"non-object schemas", `{"type":"array","items":null}`, [][2]string{{"/items", "not-a-schema"}}},
		{"root boolean", `true`, [][2]string{{"", "boolean-schema"}}},
		{"root array", `[]`, [][2]string{{"", "not-a-schema"}}},
		{"type shapes", `{"oneOf":[{"type":["string","null"]},{"type":"float"},{"type":1}]}`,
			[][2]string{{"/oneOf/0/type", "invalid-type"}, {"/oneOf/1/type", "invalid-type"}, {"/oneOf/2/type", "invalid-type"}}},
		{"keywords needing a type", `{"properties":{"a":{}},"required":["a"],"additionalProperties":false,"items":{},"enum":[1],"const":1}`,
			[][2]string{{"/properties", "needs-type"}, {"/required", "needs-type"}, {"/additionalProperties", "needs-type"},
				{"/items", "needs-type"}, {"/enum", "needs-type"}, {"/const", "needs-type"}}},
		{"malformed keyword values", `{"type":"object","title":1,"description":null,"properties":[],"required":"a","additionalProperties":"false"}`,
			[][2]string{{"/title", "malformed-keyword"}, {"/description", "malformed-keyword"}, {"/properties", "malformed-keyword"},
				{"/required", "malformed-keyword"}, {"/additionalProperties", "malformed-keyword"}}},
		{"required of non-strings", `{"type":"object","properties":{"a":{}},"required":["a",1]}`, [][2]string{{"/required", "malformed-keyword"}}},
		{"array forms", `{"type":"array","items":[{}],"oneOf":{}}`, [][2]string{{"/items", "malformed-keyword"}, {"/oneOf", "malformed-keyword"}}},
		{"oneOf sizes", `{"type":"object","properties":{"a":{"oneOf":[]},"b":{"oneOf":[{}]}}}`,
			[][2]string{{"/properties/a/oneOf", "too-few-branches"}, {"/properties/b/oneOf", "too-few-branches"}}},
		{"undeclared required", `{"type":"object","properties":{"a":{}},"required":["a","b","c"]}`,
			[][2]string{{"/required/1", "undeclared-required"}, {"/required/2", "undeclared-required"}}},
		{"enum and const values", `{"oneOf":[{"type":"string","enum":["a",1,null,{}]},{"type":"integer","enum":[1,2.5,1e-400],"const":"1"},{"type":"null","const":[]},{"type":"boolean","enum":"x"},{"type":"number","enum":[]}]}`,
			[][2]string{{"/oneOf/0/enum/1", "type-mismatch"}, {"/oneOf/0/enum/2", "type-mismatch"}, {"/oneOf/0/enum/3", "not-scalar"},
				{"/oneOf/1/enum/1", "type-mismatch"}, {"/oneOf/1/enum/2", "type-mismatch"}, {"/oneOf/1/const", "type-mismatch"},
				{"/oneOf/2/const", "not-scalar"}, {"/oneOf/3/enum", "malformed-keyword"}, {"/oneOf/4/enum", "empty-enum"}}},
		{"schema-like annotations are fine but the rest is not", `{"default":{"$ref":"#"},"examples":[{"minimum":1}],"$schema":"x"}`,
			[][2]string{{"/$schema", "unsupported-keyword"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ss.Parse([]byte(tt.schema))
			assert.Nil(t, n)
			assert.Equal(t, tt.want, issues(t, err))
		})
	}
}

func TestParseMessages(t *testing.T) {
	_, err := ss.Parse([]byte(`{"type":"object","properties":{"path":{"type":"string","minimum":1}},"required":["q"]}`))
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `/properties/path/minimum: unsupported keyword "minimum"`)
	assert.Contains(t, msg, `/required/0: required name "q" is not in properties`)
	_, err = ss.Parse([]byte(`false`))
	assert.Contains(t, err.Error(), "(root): boolean schema false is not supported")
}

func TestParseInvalidJSON(t *testing.T) {
	for _, tt := range []struct {
		in, ptr string
		kind    jsonvalue.ErrorKind
	}{
		{`{"type":"string",}`, "", jsonvalue.InvalidSyntax},
		{`{"properties":{"a":{"type":"x","type":"y"}}}`, "/properties/a/type", jsonvalue.DuplicateName},
		{`{"type":"string"} {}`, "", jsonvalue.TrailingData},
		{``, "", jsonvalue.Truncated},
	} {
		_, err := ss.Parse([]byte(tt.in))
		var se *ss.SchemaError
		require.ErrorAs(t, err, &se, tt.in)
		require.Len(t, se.Issues, 1)
		assert.Equal(t, ss.IssueInvalidJSON, se.Issues[0].Code)
		assert.Equal(t, tt.ptr, se.Issues[0].Pointer, tt.in)
		var syn *jsonvalue.SyntaxError
		require.True(t, errors.As(err, &syn), "the syntax error is wrapped")
		assert.Equal(t, tt.kind, syn.Kind)
	}
	deep := strings.Repeat(`{"items":`, 600) + `{}` + strings.Repeat(`}`, 600)
	_, err := ss.Parse([]byte(deep))
	var syn *jsonvalue.SyntaxError
	require.ErrorAs(t, err, &syn)
	assert.Equal(t, jsonvalue.TooDeep, syn.Kind)
}

func TestParseKeepsPropertyOrderAndValues(t *testing.T) {
	n := ss.MustParse(`{ "type" : "object", "properties" : { "z" : {}, "a" : { "type":"number", "enum":[1.0, 1e400, -0] }, "m" : {} } }`)
	props, _ := n.Properties()
	var names []string
	for _, p := range props {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"z", "a", "m"}, names)
	assert.Equal(t, `{"type":"object","properties":{"z":{},"a":{"type":"number","enum":[1.0,1e400,-0]},"m":{}}}`, n.String())
}

func TestMustParsePanicsOnUnsupported(t *testing.T) {
	assert.Panics(t, func() { ss.MustParse(`{"minimum":1}`) })
	assert.NotPanics(t, func() { ss.MustParse(`{}`) })
}

// FuzzParse checks that Parse never panics, that an accepted schema
// round-trips through MarshalJSON to an equal node and identical bytes, and
// that a rejection always names at least one location.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"type":"object","properties":{"a":{"type":"integer","enum":[1,2.0]}},"required":["a"],"additionalProperties":false}`,
		`{"oneOf":[{"type":"string"},{"type":"null"}]}`, `{"type":"array","items":{"minimum":1}}`, `true`, `{"$ref":"#"}`} {
		f.Add([]byte(s))
	}
	schemas, _ := conformance.Samples()
	for _, s := range schemas {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n, err := ss.Parse(raw)
		if err != nil {
			var se *ss.SchemaError
			require.ErrorAs(t, err, &se)
			require.NotEmpty(t, se.Issues)
			for _, is := range se.Issues {
				require.NotEmpty(t, is.Code)
				require.True(t, is.Pointer == "" || is.Pointer[0] == '/', "pointer %q", is.Pointer)
			}
			return
		}
		require.NoError(t, ss.AssertSupported(n))
		b, err := n.MarshalJSON()
		require.NoError(t, err)
		m, err := ss.Parse(b)
		require.NoError(t, err, "%s", b)
		require.True(t, m.Equal(n), "%s", b)
		b2, err := m.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, string(b), string(b2))
	})
}

func TestParseHostileSizes(t *testing.T) {
	big := strings.Repeat("é\\n\\\"", 10<<20/5)
	n, err := ss.Parse([]byte(`{"type":"string","description":"` + big + `","enum":["` + big + `"]}`))
	require.NoError(t, err)
	require.NoError(t, ss.Validate(n, jsonvalue.String(jsonvalue.Unescape([]byte(big)))))
	var ve *ss.ValidationError
	require.ErrorAs(t, ss.Validate(n, jsonvalue.String("x")), &ve)
	assert.Less(t, len(ve.Message), 400, "messages stay short")

	_, err = ss.Parse([]byte(strings.Repeat(`{"items":`, 100_000) + `{}` + strings.Repeat(`}`, 100_000)))
	var syn *jsonvalue.SyntaxError
	require.ErrorAs(t, err, &syn)
	assert.Equal(t, jsonvalue.TooDeep, syn.Kind)
}
