package gosrc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFieldDocAndEmbeddedIdent(t *testing.T) {
	src := `package p

type S struct {
	// Doc wins.
	//toolgen:ignored
	A int // line
	B int // Line only.
	C int
	*T
	q.U
	G[int]
	H[int, string] // Embedded.
}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ParseComments)
	require.NoError(t, err)
	fields := f.Decls[0].(*ast.GenDecl).Specs[0].(*ast.TypeSpec).Type.(*ast.StructType).Fields.List
	require.Len(t, fields, 7)

	docs := []string{"Doc wins.", "Line only.", "", "", "", "", "Embedded."}
	for i, want := range docs {
		assert.Equal(t, want, FieldDoc(fields[i]), "field %d", i)
	}
	assert.Empty(t, FieldDoc(nil))

	names := []string{"T", "U", "G", "H"}
	for i, want := range names {
		id := EmbeddedIdent(fields[3+i].Type)
		require.NotNil(t, id)
		assert.Equal(t, want, id.Name)
	}
	assert.Nil(t, EmbeddedIdent(&ast.ArrayType{Elt: ast.NewIdent("x")}))
}

func TestTypeSpecs(t *testing.T) {
	src := `package p

type A int

var v = 1

type (
	B string
	C struct{}
)

func f() { type Local int }
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	require.NoError(t, err)
	var names []string
	var groups []bool
	for gd, ts := range TypeSpecs(f) {
		names = append(names, ts.Name.Name)
		groups = append(groups, gd.Lparen.IsValid())
	}
	assert.Equal(t, []string{"A", "B", "C"}, names)
	assert.Equal(t, []bool{false, true, true}, groups)

	// Stopping early stops the walk.
	for range TypeSpecs(f) {
		break
	}
}
