package reflecttool

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/toolgen-go/toolgen/internal/gosrc"
)

// Comments holds the doc and line comments of struct fields, read from Go
// source, keyed by the field's package, type and name. The zero Comments
// is empty; [Comments.AddDir] fills it.
type Comments struct {
	fields map[string]string
}

// AddDir reads the .go files of dir and of its subdirectories, whose
// import paths are importPath followed by the subdirectory's
// slash-separated path; the types of an external test package (package
// x_test) are keyed under the import path plus "_test", as reflection
// names them. A field's comment is its doc
// comment, else its line comment, trimmed; directive lines such as
// //toolgen:open are not part of it. Directories named testdata or
// vendor, or starting with . or _, are skipped as the go command does.
func (c *Comments) AddDir(importPath, dir string) error {
	if c.fields == nil {
		c.fields = make(map[string]string)
	}
	fset := token.NewFileSet()
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("reflecttool: reading comments: %w", err)
		}
		rel, err := filepath.Rel(dir, filepath.Dir(p))
		if err != nil {
			return fmt.Errorf("reflecttool: reading comments: %w", err)
		}
		pkg := importPath
		if rel != "." {
			pkg = path.Join(importPath, filepath.ToSlash(rel))
		}
		if strings.HasSuffix(f.Name.Name, "_test") {
			pkg += "_test"
		}
		c.addFile(pkg, f)
		return nil
	})
}

// addFile records the field comments of every struct type declared at the
// top level of f.
func (c *Comments) addFile(pkg string, f *ast.File) {
	for _, ts := range gosrc.TypeSpecs(f) {
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, field := range st.Fields.List {
			text := gosrc.FieldDoc(field)
			if text == "" {
				continue
			}
			for _, n := range field.Names {
				c.fields[pkg+"."+ts.Name.Name+"."+n.Name] = text
			}
			if id := gosrc.EmbeddedIdent(field.Type); len(field.Names) == 0 && id != nil {
				c.fields[pkg+"."+ts.Name.Name+"."+id.Name] = text
			}
		}
	}
}

// field returns the comment of field name of struct type t.
func (c *Comments) field(t reflect.Type, name string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" || c.fields == nil {
		return ""
	}
	return c.fields[t.PkgPath()+"."+t.Name()+"."+name]
}
