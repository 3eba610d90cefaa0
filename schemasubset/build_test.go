package schemasubset_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// specOf writes n as a Spec through its accessors, the way the generator
// does; a node with an empty title or description goes in as it is.
func specOf(n *schemasubset.Node) *schemasubset.Spec {
	title, hasTitle := n.Title()
	desc, hasDesc := n.Description()
	if hasTitle && title == "" || hasDesc && desc == "" {
		return &schemasubset.Spec{Node: n}
	}
	s := &schemasubset.Spec{
		Type: n.Type(), Title: title, Description: desc,
		Default: n.Default(), Examples: n.Examples(), Enum: n.Enum(),
	}
	if v, ok := n.Const(); ok {
		s.Const = v
	}
	if props, ok := n.Properties(); ok {
		s.Properties = []schemasubset.SpecProperty{}
		for _, p := range props {
			s.Properties = append(s.Properties, schemasubset.SpecProperty{Name: p.Name, Schema: *specOf(p.Schema)})
		}
	}
	if req, ok := n.Required(); ok {
		s.Required = append([]string{}, req...)
	}
	if allowed, ok := n.AdditionalProperties(); ok {
		s.Additional = schemasubset.AdditionalForbidden
		if allowed {
			s.Additional = schemasubset.AdditionalAllowed
		}
	}
	if items := n.Items(); items != nil {
		s.Items = specOf(items)
	}
	if branches := n.OneOf(); branches != nil {
		s.OneOf = []schemasubset.Spec{}
		for _, b := range branches {
			s.OneOf = append(s.OneOf, *specOf(b))
		}
	}
	return s
}

func v(s string) jsonvalue.Value { return jsonvalue.Value(s) }

// TestBuild compares Build with the constructors on nodes that keep and
// break the subset's rules: equal nodes, equal canonical JSON, the same
// issues from AssertSupported.
func TestBuild(t *testing.T) {
	many := make([]schemasubset.Property, 20)
	for i := range many {
		many[i] = schemasubset.Prop(strings.Repeat("p", i+1), schemasubset.Integer())
	}
	tests := []struct {
		name string
		node *schemasubset.Node
	}{
		{"any", schemasubset.Any()},
		{"annotated", schemasubset.String().WithTitle("T").WithDescription("D").WithDefault(v(`"x"`)).WithExamples(v(`["x"]`))},
		{"enum and const", schemasubset.Integer().WithEnum(v("1"), v("2e0")).WithConst(v("1"))},
		{"object", schemasubset.Object(
			schemasubset.Prop("a", schemasubset.String()),
			schemasubset.Prop("b\n\"c\"", schemasubset.Array(schemasubset.Boolean())),
			schemasubset.Prop("é", schemasubset.Nullable(schemasubset.Number())),
		).WithRequired("a").Closed()},
		{"empty properties and required", schemasubset.Object().WithProperties().WithRequired()},
		{"open", schemasubset.Object(schemasubset.Prop("a", schemasubset.Any())).WithAdditionalProperties(true)},
		{"large object", schemasubset.Object(many...).WithRequired("ppp", "p")},
		{"typed oneOf", schemasubset.String().WithOneOf(schemasubset.String().WithConst(v(`"a"`)), schemasubset.String().WithEnum(v(`"b"`)))},
		{"empty title", schemasubset.Object(schemasubset.Prop("a", schemasubset.String().WithTitle("")))},
		{"array of any", schemasubset.Array(nil)},
		// Nodes that break rules report the same issues.
		{"enum of the wrong type", schemasubset.String().WithEnum(v("1"))},
		{"empty enum", schemasubset.String().WithEnum()},
		{"undeclared required", schemasubset.Object(schemasubset.Prop("a", schemasubset.String())).WithRequired("b")},
		{"duplicate property", schemasubset.Object(schemasubset.Prop("a", schemasubset.String()), schemasubset.Prop("a", schemasubset.Integer()))},
		{"duplicate in a large object", schemasubset.Object(append(many, schemasubset.Prop("p", schemasubset.Any()))...)},
		{"one branch", schemasubset.OneOf(schemasubset.String())},
		{"broken child", schemasubset.Array(schemasubset.Integer().WithConst(v(`"x"`)))},
		{"items without array", schemasubset.String().WithItems(schemasubset.String())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := schemasubset.Build(specOf(tt.node))
			require.NotNil(t, got)
			assert.True(t, got.Equal(tt.node))
			assert.Equal(t, string(tt.node.AppendJSON(nil)), string(got.AppendJSON(nil)))
			assert.Equal(t, schemasubset.AssertSupported(tt.node), schemasubset.AssertSupported(got))
			assert.Equal(t, tt.node.AcceptsAnything(), got.AcceptsAnything())
		})
	}
}

// TestBuildValidates checks that a built node validates like a constructed
// one, on values that reach every keyword.
func TestBuildValidates(t *testing.T) {
	n := schemasubset.Object(
		schemasubset.Prop("mode", schemasubset.String().WithEnum(v(`"a"`), v(`"b"`))),
		schemasubset.Prop("n", schemasubset.Integer().WithConst(v("3"))),
		schemasubset.Prop("list", schemasubset.Array(schemasubset.Object(schemasubset.Prop("x", schemasubset.Boolean())).WithRequired("x").Closed())),
		schemasubset.Prop("either", schemasubset.OneOf(schemasubset.String(), schemasubset.Null())),
	).WithRequired("mode")
	built := schemasubset.Build(specOf(n))
	for _, doc := range []string{
		`{"mode":"a"}`, `{"mode":"c"}`, `{}`, `{"mode":"a","n":3.0}`, `{"mode":"a","n":4}`,
		`{"mode":"b","list":[{"x":true},{"x":1}]}`, `{"mode":"b","list":[{"x":true,"y":1}]}`,
		`{"mode":"a","either":null}`, `{"mode":"a","either":1}`, `{"mode":"a","extra":[]}`,
	} {
		val, err := jsonvalue.Materialize([]byte(doc))
		require.NoError(t, err)
		assert.Equal(t, schemasubset.Validate(n, val), schemasubset.Validate(built, val), doc)
	}
}

// TestBuildShares checks that nodes in a Spec's Node field are used as they
// are and that built trees do not alias one another.
func TestBuildShares(t *testing.T) {
	shared := schemasubset.String().WithTitle("")
	spec := &schemasubset.Spec{Type: schemasubset.TypeArray, Items: &schemasubset.Spec{Node: shared}}
	a, b := schemasubset.Build(spec), schemasubset.Build(spec)
	assert.Same(t, shared, a.Items())
	assert.NotSame(t, a, b)
	assert.True(t, a.Equal(b))
}

var sinkNode *schemasubset.Node

// startupSpec is the parameter schema of a typical tool: five fields, an
// enum and a nested closed object in a slice.
var startupSpec = schemasubset.Spec{
	Type: schemasubset.TypeObject,
	Properties: []schemasubset.SpecProperty{
		{Name: "path", Schema: schemasubset.Spec{Type: schemasubset.TypeString, Description: "Path to act on."}},
		{Name: "offset", Schema: schemasubset.Spec{Type: schemasubset.TypeInteger, Description: "Offset is the first line."}},
		{Name: "limit", Schema: schemasubset.Spec{Type: schemasubset.TypeInteger, Description: "Limit caps lines."}},
		{Name: "mode", Schema: schemasubset.Spec{Type: schemasubset.TypeString, Description: "Mode picks the output.", Enum: []jsonvalue.Value{jsonvalue.Value(`"a"`), jsonvalue.Value(`"b"`)}}},
		{Name: "items", Schema: schemasubset.Spec{Type: schemasubset.TypeArray, Description: "Items are nested.", Items: &schemasubset.Spec{
			Type: schemasubset.TypeObject,
			Properties: []schemasubset.SpecProperty{
				{Name: "name", Schema: schemasubset.Spec{Type: schemasubset.TypeString, Description: "Name names it."}},
				{Name: "on", Schema: schemasubset.Spec{Type: schemasubset.TypeBoolean, Description: "On switches it."}},
			},
			Required:   []string{"name"},
			Additional: schemasubset.AdditionalForbidden,
		}}},
	},
	Required: []string{"path"},
}

// BenchmarkBuild builds a typical tool's parameter schema from its Spec,
// as a generated package does at start-up.
func BenchmarkBuild(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkNode = schemasubset.Build(&startupSpec)
	}
}

// BenchmarkConstruct builds the same schema with the constructors and With
// methods, for comparison.
func BenchmarkConstruct(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkNode = schemasubset.Object(
			schemasubset.Prop("path", schemasubset.String().WithDescription("Path to act on.")),
			schemasubset.Prop("offset", schemasubset.Integer().WithDescription("Offset is the first line.")),
			schemasubset.Prop("limit", schemasubset.Integer().WithDescription("Limit caps lines.")),
			schemasubset.Prop("mode", schemasubset.String().WithDescription("Mode picks the output.").WithEnum(v(`"a"`), v(`"b"`))),
			schemasubset.Prop("items", schemasubset.Array(schemasubset.Object(
				schemasubset.Prop("name", schemasubset.String().WithDescription("Name names it.")),
				schemasubset.Prop("on", schemasubset.Boolean().WithDescription("On switches it.")),
			).WithRequired("name").Closed()).WithDescription("Items are nested.")),
		).WithRequired("path")
	}
}
