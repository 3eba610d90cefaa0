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
		{`{"type":`, []wantErr{{0, "the schema is not valid JSON"}}},
		{`{"a":1,"a":2}`, []wantErr{{0, "the schema is not valid JSON"}}},
		{`{"type":"string"} x`, []wantErr{{0, "the schema is not valid JSON"}}},
		{`true`, []wantErr{{0, "schema root"}}},
		{`{"type":"string","minLength":1}`, []wantErr{{0, "/minLength"}}},
		{`{"type":"object","properties":{"a":{"format":"x"},"b":{"$ref":"#"}}}`, []wantErr{{0, "/properties/a/format"}, {0, "/properties/b/$ref"}}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			n, errs := annotations.ParseSchema(tt.args)
			assert.Nil(t, n)
			checkErrs(t, errs, tt.want)
		})
	}
}
