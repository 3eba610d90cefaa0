// Package gosrc holds the readings of Go syntax that the generator and
// runtime/reflecttool must agree on: the type declarations of a file,
// which comment describes a struct field, and which name an embedded field
// has.
package gosrc

import (
	"go/ast"
	"go/token"
	"iter"
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

// TypeSpecs yields every top-level type declaration of f with the general
// declaration holding it, in source order.
func TypeSpecs(f *ast.File) iter.Seq2[*ast.GenDecl, *ast.TypeSpec] {
	return func(yield func(*ast.GenDecl, *ast.TypeSpec) bool) {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				if !yield(gd, spec.(*ast.TypeSpec)) {
					return
				}
			}
		}
	}
}
