package annotations_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/annotations"
)

func TestParseOneOfAccepted(t *testing.T) {
	tests := []struct {
		args string
		want []annotations.Variant
	}{
		{"A B", []annotations.Variant{{"A", 0}, {"B", 2}}},
		{"Circle \t Square  triangle", []annotations.Variant{{"Circle", 0}, {"Square", 9}, {"triangle", 17}}},
		{"Ä_1 B2", []annotations.Variant{{"Ä_1", 0}, {"B2", 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got, errs := annotations.ParseOneOf(tt.args)
			require.Empty(t, errs)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseOneOfErrors(t *testing.T) {
	tests := []struct {
		args string
		want []wantErr
		vars []annotations.Variant
	}{
		{"", []wantErr{{0, "a oneOf needs at least two variants"}}, nil},
		{"   ", []wantErr{{0, "a oneOf needs at least two variants"}}, nil},
		{"  A", []wantErr{{2, "a oneOf needs at least two variants; list the variant types separated by blanks, as in //toolgen:oneof A B"}}, []annotations.Variant{{"A", 2}}},
		{"A A", []wantErr{{2, "duplicate variant A; list each type once"}}, []annotations.Variant{{"A", 0}}},
		{"A B A", []wantErr{{4, "duplicate variant A"}}, []annotations.Variant{{"A", 0}, {"B", 2}}},
		{"A 1B", []wantErr{{2, `"1B" is not a Go identifier; list the variant type names of this package`}}, []annotations.Variant{{"A", 0}}},
		{"A func", []wantErr{{2, `"func" is not a Go identifier`}}, []annotations.Variant{{"A", 0}}},
		{"A _", []wantErr{{2, `"_" is not a Go identifier`}}, []annotations.Variant{{"A", 0}}},
		{"A *B", []wantErr{{2, `"*B" is not a Go identifier`}}, []annotations.Variant{{"A", 0}}},
		{"A pkg.B", []wantErr{{2, "pkg.B must name a type of this package, without a package qualifier"}}, []annotations.Variant{{"A", 0}}},
		{"A, B", []wantErr{{0, `"A," is not a type name; separate the variants with blanks, not commas`}}, []annotations.Variant{{"B", 3}}},
		{"A,B", []wantErr{{0, "separate the variants with blanks"}, {0, "at least two variants"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got, errs := annotations.ParseOneOf(tt.args)
			checkErrs(t, errs, tt.want)
			assert.Equal(t, tt.vars, got)
		})
	}
}

func TestParseOpen(t *testing.T) {
	assert.Empty(t, annotations.ParseOpen(""))
	assert.Empty(t, annotations.ParseOpen(" \t"))
	checkErrs(t, annotations.ParseOpen("x y"), []wantErr{{0, `this directive takes no arguments; delete "x y"`}})
	checkErrs(t, annotations.ParseOpen("  true"), []wantErr{{2, `delete "true"`}})
}

func TestParseSchemaAccepted(t *testing.T) {
	tests := []struct {
		args string
		want string
	}{
		{`{"type":"string"}`, `{"type":"string"}`},
		{`{}`, `{}`},
		{`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`, `"required":["a"]`},
		{`{"type":"string","enum":["a","b"],"description":"d"}`, `"enum":["a","b"]`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			n, errs := annotations.ParseSchema(tt.args)
			require.Empty(t, errs)
			require.NotNil(t, n)
			b, err := n.MarshalJSON()
			require.NoError(t, err)
			assert.Contains(t, string(b), tt.want)
		})
	}
}

func TestParseSchemaErrors(t *testing.T) {
	tests := []struct {
		args string
		want []wantErr
	}{
		{"", []wantErr{{0, `this directive needs a JSON schema object on the same line, such as //toolgen:schema {"type":"string"}`}}},
		{"  ", []wantErr{{0, "needs a JSON schema object"}}},
		{`{"type":`, []wantErr{{8, "the schema is not valid JSON"}}},
		{`{"a":1,"a":2}`, []wantErr{{7, "the schema is not valid JSON"}}},
		{`{"type":"string"} x`, []wantErr{{18, "the schema is not valid JSON"}}},
		{`true`, []wantErr{{0, `schema root (JSON Pointer ""): boolean schema true is not supported; write a JSON object: {} accepts every value`}}},
		{`"string"`, []wantErr{{0, `write a JSON object, such as {"type":"string"}`}}},
		{`{"type":"string","minLength":1}`, []wantErr{{17, `schema at /minLength: unsupported keyword "minLength"; the subset's keywords are type, oneOf,`}}},
		{`{"type":"object","properties":{"a":{"format":"x"},"b":{"$ref":"#"}}}`, []wantErr{{36, "/properties/a/format"}, {55, "/properties/b/$ref"}}},
		// Issues are sorted by offset, not by the depth-first walk.
		{`{"type":"object", "properties":{"a":{"type":"int"}},"required":["b"]}`, []wantErr{
			{37, `schema at /properties/a/type: unknown type "int"; write one of "object"`},
			{64, `schema at /required/0: required name "b" is not in properties; declare the property in properties, or remove it from required`},
		}},
		{` {"items":{}}`, []wantErr{{2, `schema at /items: items requires type "array"; add the type it requires to the same node`}}},
		{`{"type":"string","oneOf":[{}]}`, []wantErr{{17, "list two or more schemas"}}},
		{`{"a~b/c":1}`, []wantErr{{1, `schema at /a~0b~1c: unsupported keyword "a~b/c"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			n, errs := annotations.ParseSchema(tt.args)
			assert.Nil(t, n)
			checkErrs(t, errs, tt.want)
		})
	}
}
