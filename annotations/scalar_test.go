package annotations_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/annotations"
	"github.com/toolgen-go/toolgen/schemasubset"
)

func TestScalarJSON(t *testing.T) {
	tests := []struct {
		text string
		typ  schemasubset.Type
		want string
	}{
		{"abc", schemasubset.TypeString, `"abc"`},
		{"", schemasubset.TypeString, `""`},
		{`a "q" \ b`, schemasubset.TypeString, `"a \"q\" \\ b"`},
		{"42", schemasubset.TypeString, `"42"`},
		{"é", schemasubset.TypeString, `"é"`},
		{"0", schemasubset.TypeInteger, "0"},
		{"-0", schemasubset.TypeInteger, "-0"},
		{"42", schemasubset.TypeInteger, "42"},
		{"-17", schemasubset.TypeInteger, "-17"},
		{"12345678901234567890123", schemasubset.TypeInteger, "12345678901234567890123"},
		{"1.5", schemasubset.TypeNumber, "1.5"},
		{"1.0", schemasubset.TypeNumber, "1.0"},
		{"-2e3", schemasubset.TypeNumber, "-2e3"},
		{"7", schemasubset.TypeNumber, "7"},
		{"true", schemasubset.TypeBoolean, "true"},
		{"false", schemasubset.TypeBoolean, "false"},
	}
	for _, tt := range tests {
		t.Run(tt.typ.String()+"/"+tt.text, func(t *testing.T) {
			v, err := annotations.ScalarJSON(tt.text, tt.typ)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(v))
		})
	}
}

func TestScalarJSONErrors(t *testing.T) {
	tests := []struct {
		text string
		typ  schemasubset.Type
		want string
	}{
		{"\xff", schemasubset.TypeString, `"\xff" is not valid UTF-8`},
		{"abc", schemasubset.TypeInteger, `"abc" is not an integer; write digits with an optional leading '-' and no leading zeros, such as 42`},
		{"", schemasubset.TypeInteger, `"" is not an integer`},
		{"-", schemasubset.TypeInteger, `"-" is not an integer`},
		{"01", schemasubset.TypeInteger, `"01" is not an integer`},
		{"1.0", schemasubset.TypeInteger, `"1.0" is not an integer`},
		{"1e3", schemasubset.TypeInteger, `"1e3" is not an integer`},
		{"+1", schemasubset.TypeInteger, `"+1" is not an integer`},
		{" 1", schemasubset.TypeInteger, `" 1" is not an integer`},
		{"abc", schemasubset.TypeNumber, `"abc" is not a JSON number; write one such as 1.5, -2 or 3e8`},
		{"1.", schemasubset.TypeNumber, `"1." is not a JSON number`},
		{".5", schemasubset.TypeNumber, `".5" is not a JSON number`},
		{"NaN", schemasubset.TypeNumber, `"NaN" is not a JSON number`},
		{"", schemasubset.TypeNumber, `"" is not a JSON number`},
		{"yes", schemasubset.TypeBoolean, `"yes" is not a boolean; write true or false`},
		{"True", schemasubset.TypeBoolean, `"True" is not a boolean`},
		{"x", schemasubset.TypeAny, "only string, number, integer and boolean fields take a value here; this field's schema has no type"},
		{"x", schemasubset.TypeObject, "only string, number, integer and boolean fields take a value here; this field's schema has type object"},
		{"x", schemasubset.TypeArray, "has type array"},
		{"null", schemasubset.TypeNull, "has type null"},
		{"x", schemasubset.Type(200), "has an unknown type"},
	}
	for _, tt := range tests {
		t.Run(tt.typ.String()+"/"+tt.text, func(t *testing.T) {
			v, err := annotations.ScalarJSON(tt.text, tt.typ)
			require.Error(t, err)
			assert.Nil(t, v)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
