// Package gosrc holds the readings of Go syntax that the generator and
// runtime/reflecttool must agree on: which comment describes a struct
// field, and which name an embedded field has.
package gosrc

import (
	"go/ast"
	"strings"
)

// FieldDoc returns the description of a struct field: its doc comment,
// else its line comment, trimmed, without directive lines such as
// //toolgen:open (which go/ast leaves out of the text). It is "" for a
// nil field.
func FieldDoc(f *ast.Field) string {
	if f == nil {
		return ""
	}
	txt := f.Doc.Text()
	if txt == "" {
		txt = f.Comment.Text()
	}
	return strings.TrimSpace(txt)
}

// EmbeddedIdent returns the identifier that names an embedded field: the
// type name of its type expression (T, *T, pkg.T, T[X]). go/types places
// the field at this identifier. It is nil for an expression that cannot
// be embedded.
func EmbeddedIdent(e ast.Expr) *ast.Ident {
	switch x := e.(type) {
	case *ast.Ident:
		return x
	case *ast.StarExpr:
		return EmbeddedIdent(x.X)
	case *ast.SelectorExpr:
		return x.Sel
	case *ast.IndexExpr:
		return EmbeddedIdent(x.X)
	case *ast.IndexListExpr:
		return EmbeddedIdent(x.X)
	}
	return nil
}
