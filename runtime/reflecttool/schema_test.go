package reflecttool_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime/reflecttool"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// Level is a named string; reflection cannot see its constants.
type Level string

// Window is a nested struct; its own comment never becomes a description.
type Window struct {
	// First line, 1-based.
	Offset int `json:"offset,omitempty"`
	Limit  int `json:"limit"` // How many lines.
}

// hex is a TextUnmarshaler read from a string.
type hex uint32

func (h *hex) UnmarshalText(b []byte) error { *h = hex(len(b)); return nil }

// Base is embedded and flattened.
type Base struct {
	// Who asks.
	User string `json:"user"`
}

type inner struct {
	Trace bool `json:"trace,omitempty"`
}

// Args covers every supported mapping reflection can see.
type Args struct {
	Base
	inner
	// Path of the file.
	Path     string          `json:"path"`
	Count    int8            `json:"count,omitempty" jsonschema:"required"`
	Ratio    float32         `json:"ratio,omitzero"`
	N        json.Number     `json:"n"`
	Level    Level           `json:"level" jsonschema:"enum=low,enum=high,default=low"`
	Tags     []string        `json:"tags,omitempty" jsonschema:"enum=a,enum=b"`
	Window   *Window         `json:"window,omitempty" jsonschema:"nullable,description=Line window"`
	Windows  []Window        `json:"windows,omitempty"`
	When     time.Time       `json:"when"`
	Code     hex             `json:"code"`
	Raw      json.RawMessage `json:"raw,omitempty"`
	Value    jsonvalue.Value `json:"value,omitempty"`
	Title    string          `json:"title,omitempty" jsonschema:"title=Heading,example=one,example=two"`
	Skipped  string          `json:"-"`
	Ignored  string          `jsonschema:"-"`
	private  string          //lint:ignore U1000 unexported fields are not part of the wire form, which is what this field shows
	NoTag    bool
	Renamed  uint64 `json:"renamed,omitempty"`
	_        struct{}
	Unicode  string  `json:"ünï,omitempty"`
	Optional *int    `json:"optional,omitempty"`
	Address  uintptr `json:"address,omitempty"`
}

func TestParamsSchema(t *testing.T) {
	var comments reflecttool.Comments
	require.NoError(t, comments.AddDir("github.com/toolgen-go/toolgen/runtime/reflecttool", "."))

	got, err := reflecttool.ParamsSchema(reflect.TypeFor[Args](), reflecttool.Options{Comments: &comments})
	require.NoError(t, err)
	require.NoError(t, schemasubset.AssertObject(got))

	window := schemasubset.Object(
		schemasubset.Prop("offset", schemasubset.Integer().WithDescription("First line, 1-based.")),
		schemasubset.Prop("limit", schemasubset.Integer().WithDescription("How many lines.")),
	).WithRequired("limit").Closed()
	want := schemasubset.Object(
		schemasubset.Prop("user", schemasubset.String().WithDescription("Who asks.")),
		schemasubset.Prop("trace", schemasubset.Boolean()),
		schemasubset.Prop("path", schemasubset.String().WithDescription("Path of the file.")),
		schemasubset.Prop("count", schemasubset.Integer()),
		schemasubset.Prop("ratio", schemasubset.Number()),
		schemasubset.Prop("n", schemasubset.Number()),
		schemasubset.Prop("level", schemasubset.String().WithDefault(jsonvalue.String("low")).WithEnum(jsonvalue.String("low"), jsonvalue.String("high"))),
		schemasubset.Prop("tags", schemasubset.Array(schemasubset.String().WithEnum(jsonvalue.String("a"), jsonvalue.String("b")))),
		schemasubset.Prop("window", schemasubset.Nullable(window.WithDescription("Line window"))),
		schemasubset.Prop("windows", schemasubset.Array(window)),
		schemasubset.Prop("when", schemasubset.String()),
		schemasubset.Prop("code", schemasubset.String()),
		schemasubset.Prop("raw", schemasubset.Any()),
		schemasubset.Prop("value", schemasubset.Any()),
		schemasubset.Prop("title", schemasubset.String().WithTitle("Heading").WithExamples(jsonvalue.Value(`["one","two"]`))),
		schemasubset.Prop("NoTag", schemasubset.Boolean()),
		schemasubset.Prop("renamed", schemasubset.Integer()),
		schemasubset.Prop("ünï", schemasubset.String()),
		schemasubset.Prop("optional", schemasubset.Integer()),
		schemasubset.Prop("address", schemasubset.Integer()),
	).WithRequired("user", "path", "count", "n", "level", "when", "code", "NoTag")
	assert.Equal(t, want.String(), got.String())

	// Pointers to the parameter type reflect the same, and without
	// comments only tags describe fields.
	plain, err := reflecttool.ParamsSchema(reflect.TypeFor[*Args](), reflecttool.Options{})
	require.NoError(t, err)
	assert.NotContains(t, plain.String(), "Path of the file.")
	assert.Contains(t, plain.String(), "Line window")
}

func TestOutputSchema(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want *schemasubset.Node
	}{
		{"string", reflect.TypeFor[string](), schemasubset.String()},
		{"named string", reflect.TypeFor[Level](), schemasubset.String()},
		{"pointer", reflect.TypeFor[*uint16](), schemasubset.Integer()},
		{"slice", reflect.TypeFor[[]float64](), schemasubset.Array(schemasubset.Number())},
		{"raw", reflect.TypeFor[json.RawMessage](), schemasubset.Any()},
		{"time", reflect.TypeFor[time.Time](), schemasubset.String()},
		{"closed struct root", reflect.TypeFor[Window](), schemasubset.Object(
			schemasubset.Prop("offset", schemasubset.Integer()),
			schemasubset.Prop("limit", schemasubset.Integer()),
		).WithRequired("limit").Closed()},
		{"slice of structs", reflect.TypeFor[[]Base](), schemasubset.Array(
			schemasubset.Object(schemasubset.Prop("user", schemasubset.String())).WithRequired("user").Closed())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reflecttool.OutputSchema(tt.typ, reflecttool.Options{})
			require.NoError(t, err)
			assert.Equal(t, tt.want.String(), got.String())
		})
	}
}

type (
	withMap     struct{ M map[string]int }
	withChan    struct{ C chan int }
	withFunc    struct{ F func() }
	withAny     struct{ A any }
	withArray   struct{ A [3]int }
	withComplex struct{ C complex128 }
	withBytes   struct{ B []byte }
	recursive   struct {
		Children []recursive `json:"children"`
	}
	generic[T any] struct{ V T }
	withGeneric    struct{ G generic[int] }
	unmarshaler    struct{ V string }
	withUnmarsh    struct{ U unmarshaler }
	shadowA        struct{ Name string }
	shadowB        struct{ Name string }
	withShadow     struct {
		shadowA
		shadowB
	}
	nullableRaw struct {
		R json.RawMessage `json:"r" jsonschema:"nullable"`
	}
	withMinimum struct {
		Deep struct {
			N int `json:"n" jsonschema:"minimum=1"`
		} `json:"deep"`
	}
	withFormat struct {
		S string `json:"s" jsonschema:"format=email"`
	}
	unexportedPtr struct{ *inner }
)

func (u *unmarshaler) UnmarshalJSON([]byte) error { return nil }

func TestUnsupported(t *testing.T) {
	tests := []struct {
		name    string
		typ     reflect.Type
		params  bool
		path    string
		pointer string
		is      error
		message string
	}{
		{"map", reflect.TypeFor[withMap](), true, "withMap.M", "", reflecttool.ErrUnsupportedType, "a map has no schema"},
		{"chan", reflect.TypeFor[withChan](), true, "withChan.C", "", reflecttool.ErrUnsupportedType, "a channel has no JSON form"},
		{"func", reflect.TypeFor[withFunc](), true, "withFunc.F", "", reflecttool.ErrUnsupportedType, "a function has no JSON form"},
		{"any", reflect.TypeFor[withAny](), true, "withAny.A", "", reflecttool.ErrUnsupportedType, "an interface has no schema"},
		{"array", reflect.TypeFor[withArray](), true, "withArray.A", "", reflecttool.ErrUnsupportedType, "use a slice ([]int)"},
		{"complex", reflect.TypeFor[withComplex](), true, "withComplex.C", "", reflecttool.ErrUnsupportedType, "complex numbers"},
		{"bytes", reflect.TypeFor[withBytes](), true, "withBytes.B", "", reflecttool.ErrUnsupportedType, "byte slice is base64"},
		{"recursion", reflect.TypeFor[recursive](), true, "recursive.Children[]", "", reflecttool.ErrUnsupportedType, "refers to itself"},
		{"generic", reflect.TypeFor[withGeneric](), true, "withGeneric.G", "", reflecttool.ErrUnsupportedType, "generic types"},
		{"unmarshaler", reflect.TypeFor[withUnmarsh](), true, "withUnmarsh.U", "", reflecttool.ErrUnsupportedType, "//toolgen:schema"},
		{"shadowing", reflect.TypeFor[withShadow](), true, "withShadow", "", reflecttool.ErrUnsupportedType, `fields shadowA.Name and shadowB.Name share the JSON name "Name"`},
		{"nullable raw", reflect.TypeFor[nullableRaw](), true, "nullableRaw.R", "", reflecttool.ErrUnsupportedType, "already accepts null"},
		{"unexported embedded pointer", reflect.TypeFor[unexportedPtr](), true, "unexportedPtr", "", reflecttool.ErrUnsupportedType, "embedded pointer to unexported struct"},
		{"minimum tag", reflect.TypeFor[withMinimum](), true, "withMinimum", "/properties/deep/properties/n/minimum", reflecttool.ErrOutsideSubset, "leaves the subset"},
		{"format tag", reflect.TypeFor[withFormat](), false, "withFormat", "/properties/s/format", reflecttool.ErrOutsideSubset, "leaves the subset"},
		{"params not a struct", reflect.TypeFor[[]string](), true, "[]string", "", reflecttool.ErrUnsupportedType, "parameter type must be a struct"},
		{"params time", reflect.TypeFor[time.Time](), true, "Time", "", reflecttool.ErrUnsupportedType, "parameter type must be a struct"},
		{"output map", reflect.TypeFor[map[string]string](), false, "map[string]string", "", reflecttool.ErrUnsupportedType, "a map has no schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			derive := reflecttool.OutputSchema
			if tt.params {
				derive = reflecttool.ParamsSchema
			}
			n, err := derive(tt.typ, reflecttool.Options{})
			require.Error(t, err)
			assert.Nil(t, n)
			var e *reflecttool.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.path, e.Path)
			assert.Equal(t, tt.pointer, e.Pointer)
			assert.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.message)
			if errors.Is(err, reflecttool.ErrOutsideSubset) {
				var se *schemasubset.SchemaError
				assert.ErrorAs(t, err, &se)
			}
		})
	}
}

func TestNilType(t *testing.T) {
	_, err := reflecttool.ParamsSchema(nil, reflecttool.Options{})
	assert.ErrorIs(t, err, reflecttool.ErrUnsupportedType)
	_, err = reflecttool.OutputSchema(nil, reflecttool.Options{})
	assert.ErrorIs(t, err, reflecttool.ErrUnsupportedType)
}

func TestCommentsAddDirErrors(t *testing.T) {
	var c reflecttool.Comments
	assert.Error(t, c.AddDir("example.com/missing", "does-not-exist"))
}

// BenchmarkParamsSchema measures deriving the schema of a many-field
// parameter struct by reflection, the start-up cost generated code avoids.
func BenchmarkParamsSchema(b *testing.B) {
	typ := reflect.TypeFor[Args]()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reflecttool.ParamsSchema(typ, reflecttool.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
