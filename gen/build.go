package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"unicode"

	"golang.org/x/tools/go/packages"

	"github.com/toolgen-go/toolgen/annotations"
	"github.com/toolgen-go/toolgen/internal/gosrc"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// Import paths the generator recognises.
const (
	runtimePath   = "github.com/toolgen-go/toolgen/runtime"
	jsonvaluePath = "github.com/toolgen-go/toolgen/jsonvalue"
	schemaPath    = "github.com/toolgen-go/toolgen/schemasubset"
	contextPath   = "context"
)

// builder turns one loaded package into its model.
type builder struct {
	fset  *token.FileSet
	pkg   *packages.Package
	diags *diagnostics

	// syntax indexes declarations by "file:line:col" of their name, for the
	// package itself and for other packages' files parsed on demand.
	syntax map[string]ast.Node
	// docs holds the doc comment of each indexed type spec.
	docs map[*ast.TypeSpec]*ast.CommentGroup
	// parsed lists the other packages' files already indexed.
	parsed map[string]bool
	// consumed marks the directive comments that belong to a declaration.
	consumed map[*ast.Comment]bool
	// maybeTool is set when a misspelled, misplaced or malformed directive
	// was reported that may have been meant as a //toolgen:tool, so that
	// a package without tools is not reported a second time for it.
	maybeTool bool

	dirs  map[*types.TypeName]*typeDirectives
	types map[types.Type]*Type
	stack []*types.Named
}

// typeDirectives are the //toolgen: directives on one type declaration.
type typeDirectives struct {
	open     bool
	oneOf    []annotations.Variant
	oneOfPos token.Pos
	schema   *schemasubset.Node
	pos      token.Pos
	// invalid is set when a //toolgen:oneof or //toolgen:schema directive
	// was reported as malformed beyond use (a schema that does not parse,
	// fewer than two valid variants); the type is then not mapped, so
	// that one mistake gives one diagnostic.
	invalid bool
}

// toolDecl is a function with a //toolgen:tool directive.
type toolDecl struct {
	fn      *ast.FuncDecl
	dir     annotations.Directive
	comment *ast.Comment
}

func newBuilder(fset *token.FileSet, pkg *packages.Package, diags *diagnostics) *builder {
	return &builder{
		fset:     fset,
		pkg:      pkg,
		diags:    diags,
		syntax:   make(map[string]ast.Node),
		docs:     make(map[*ast.TypeSpec]*ast.CommentGroup),
		parsed:   make(map[string]bool),
		consumed: make(map[*ast.Comment]bool),
		dirs:     make(map[*types.TypeName]*typeDirectives),
		types:    make(map[types.Type]*Type),
	}
}

// build returns the package's model, or nil after reporting why there is
// none.
func (b *builder) build() *Package {
	var decls []toolDecl
	for _, f := range b.pkg.Syntax {
		b.index(f)
		decls = append(decls, b.toolDecls(f)...)
	}
	for _, f := range b.pkg.Syntax {
		b.strayDirectives(f)
	}
	m := &Package{Name: b.pkg.Name, Path: b.pkg.PkgPath, Dir: packageDir(b.pkg), Scope: b.pkg.Types.Scope().Names()}
	names := make(map[string]token.Pos)
	for _, d := range decls {
		t := b.tool(d)
		if t == nil {
			continue
		}
		// A name given with name= is reported at its value, a derived one
		// at the function's name.
		namePos := d.fn.Name.Pos()
		if opts, _ := annotations.ParseTool(d.dir.Args); opts.Name.Set {
			namePos = d.comment.Slash + token.Pos(d.dir.ArgsOffset+opts.Name.Offset)
		}
		if prev, dup := names[t.Name]; dup {
			b.diags.errorf(namePos, "tool name %q is already used by the tool at %s; give one of them another name=", t.Name, b.short(prev))
			continue
		}
		names[t.Name] = namePos
		if t.ParamsSchema == nil {
			continue // its types could not be mapped, which was reported
		}
		m.Tools = append(m.Tools, t)
	}
	b.checkDirectiveTypes()
	if len(decls) == 0 && len(b.pkg.Syntax) > 0 && !b.maybeTool {
		f := b.pkg.Syntax[0]
		b.diags.errorf(f.Name.Pos(), "package %s has no //toolgen:tool functions; mark a function with //toolgen:tool in its doc comment", b.pkg.Name)
	}
	return m
}

// checkDirectiveTypes maps every type of the package that carries a type
// directive, so that a directive on a type no tool uses yet is checked too
// (types the tools use were mapped already, and are not reported twice).
func (b *builder) checkDirectiveTypes() {
	for _, f := range b.pkg.Syntax {
		for _, ts := range gosrc.TypeSpecs(f) {
			tn, ok := b.pkg.TypesInfo.Defs[ts.Name].(*types.TypeName)
			if !ok || ts.TypeParams != nil || b.typeDirectivesOf(tn) == nil {
				continue
			}
			if tn.IsAlias() {
				// Fields of the alias's type never see its directives.
				b.diags.errorf(ts.Name.Pos(), "type %s is an alias, and directives apply only to defined types; declare it without '=' (type %s %s) or put the directives on the aliased type", tn.Name(), tn.Name(), b.typeString(types.Unalias(tn.Type())))
				continue
			}
			b.mapType(tn.Type(), site{path: tn.Name(), pos: ts.Name.Pos()}, false)
		}
	}
}

// short formats pos as "file.go:12:6" with the base name only.
func (b *builder) short(pos token.Pos) string {
	p := b.fset.Position(pos)
	return fmt.Sprintf("%s:%d:%d", baseName(p.Filename), p.Line, p.Column)
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}

// posKey is the index key of a position.
func posKey(p token.Position) string {
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
}

// lineKey keys a declared name by file and line: the positions of objects
// of packages loaded from export data keep their lines but not always
// their columns.
func lineKey(p token.Position, name string) string {
	return fmt.Sprintf("%s:%d:%s", p.Filename, p.Line, name)
}

// index records the type specs and struct fields of f.
func (b *builder) index(f *ast.File) {
	for gd, ts := range gosrc.TypeSpecs(f) {
		doc := ts.Doc
		if doc == nil && len(gd.Specs) == 1 && !gd.Lparen.IsValid() {
			doc = gd.Doc
		}
		b.docs[ts] = doc
		b.syntax[posKey(b.fset.Position(ts.Name.Pos()))] = ts
		b.syntax[lineKey(b.fset.Position(ts.Name.Pos()), ts.Name.Name)] = ts
		ast.Inspect(ts.Type, func(n ast.Node) bool {
			if fl, ok := n.(*ast.Field); ok {
				for _, name := range fl.Names {
					b.syntax[posKey(b.fset.Position(name.Pos()))] = fl
					b.syntax[lineKey(b.fset.Position(name.Pos()), name.Name)] = fl
				}
				if id := gosrc.EmbeddedIdent(fl.Type); len(fl.Names) == 0 && id != nil {
					p := b.fset.Position(id.Pos())
					b.syntax[posKey(p)] = fl
					b.syntax[lineKey(p, id.Name)] = fl
				}
			}
			return true
		})
	}
}

// lookupSyntax finds the declaration at pos, parsing the file of another
// package the first time one of its positions is asked for.
func (b *builder) lookupSyntax(pos token.Pos, name string) ast.Node {
	p := b.fset.Position(pos)
	if !p.IsValid() {
		return nil
	}
	find := func() (ast.Node, bool) {
		if n, ok := b.syntax[posKey(p)]; ok {
			return n, true
		}
		n, ok := b.syntax[lineKey(p, name)]
		return n, ok
	}
	if n, ok := find(); ok {
		return n
	}
	if p.Filename == "" || b.parsed[p.Filename] {
		return nil
	}
	b.parsed[p.Filename] = true
	f, err := parser.ParseFile(b.fset, p.Filename, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	b.index(f)
	n, _ := find()
	return n
}

// toolDecls finds the tool functions of f and checks where the other
// directives are.
func (b *builder) toolDecls(f *ast.File) []toolDecl {
	var out []toolDecl
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			var found *toolDecl
			for _, c := range docComments(d.Doc) {
				dir, ok := annotations.ParseDirective(c.Text)
				if !ok {
					continue
				}
				b.consumed[c] = true
				if e := annotations.CheckDirectiveName(dir); e != nil {
					b.diags.errorf(c.Slash+token.Pos(e.Offset), "%s", e.Message)
					b.maybeTool = true
					continue
				}
				switch {
				case dir.Name != annotations.DirectiveTool:
					b.diags.errorf(c.Slash, "//toolgen:%s belongs in the doc comment of a type declaration, not a function", dir.Name)
				case found != nil:
					b.diags.errorf(c.Slash, "duplicate //toolgen:tool directive; give all options on one line")
				default:
					found = &toolDecl{fn: d, dir: dir, comment: c}
				}
			}
			if found != nil {
				out = append(out, *found)
			}
		case *ast.GenDecl:
			b.genDeclDirectives(d)
		}
	}
	return out
}

// docComments lists the comments of a doc comment group.
func docComments(g *ast.CommentGroup) []*ast.Comment {
	if g == nil {
		return nil
	}
	return g.List
}

// genDeclDirectives checks the directives in the doc comments of a general
// declaration: only type declarations take them, and never //toolgen:tool.
func (b *builder) genDeclDirectives(gd *ast.GenDecl) {
	groups := []*ast.CommentGroup{gd.Doc}
	for _, spec := range gd.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			groups = append(groups, s.Doc)
		case *ast.ValueSpec:
			groups = append(groups, s.Doc)
		}
	}
	for _, g := range groups {
		for _, c := range docComments(g) {
			dir, ok := annotations.ParseDirective(c.Text)
			if !ok {
				continue
			}
			b.consumed[c] = true
			if e := annotations.CheckDirectiveName(dir); e != nil {
				b.diags.errorf(c.Slash+token.Pos(e.Offset), "%s", e.Message)
				b.maybeTool = true
				continue
			}
			if dir.Name == annotations.DirectiveTool {
				b.diags.errorf(c.Slash, "//toolgen:tool belongs in the doc comment of a function")
				b.maybeTool = true
				continue
			}
			if gd.Tok != token.TYPE {
				b.diags.errorf(c.Slash, "//toolgen:%s belongs in the doc comment of a type declaration", dir.Name)
				continue
			}
			if g == gd.Doc && (len(gd.Specs) != 1 || gd.Lparen.IsValid()) {
				b.diags.errorf(c.Slash, "//toolgen:%s above a grouped type declaration is ambiguous; put it in the doc comment of one type inside the group", dir.Name)
			}
		}
	}
}

// strayDirectives reports directives outside any doc comment, and comments
// that look like directives but are not.
func (b *builder) strayDirectives(f *ast.File) {
	for _, g := range f.Comments {
		for _, c := range g.List {
			if b.consumed[c] {
				continue
			}
			if dir, ok := annotations.ParseDirective(c.Text); ok {
				if e := annotations.CheckDirectiveName(dir); e != nil {
					b.diags.errorf(c.Slash+token.Pos(e.Offset), "%s", e.Message)
					b.maybeTool = true
					continue
				}
				b.diags.errorf(c.Slash, "//toolgen:%s is not in the doc comment of a declaration; put it directly above the %s it applies to", dir.Name, directiveTarget(dir.Name))
				b.maybeTool = b.maybeTool || dir.Name == annotations.DirectiveTool
				continue
			}
			if annotations.LooksLikeDirective(c.Text) {
				b.diags.errorf(c.Slash, "%q is not a directive; write //toolgen:NAME with no space after //", strings.TrimSpace(c.Text))
				b.maybeTool = true
			}
		}
	}
}

// directiveTarget names what a directive is written on.
func directiveTarget(name string) string {
	if name == annotations.DirectiveTool {
		return "function"
	}
	return "type"
}

// typeDirectivesOf returns the directives on a named type's declaration,
// reading another package's source when needed; nil when it has none.
func (b *builder) typeDirectivesOf(tn *types.TypeName) *typeDirectives {
	if d, ok := b.dirs[tn]; ok {
		return d
	}
	b.dirs[tn] = nil
	ts, ok := b.lookupSyntax(tn.Pos(), tn.Name()).(*ast.TypeSpec)
	if !ok {
		return nil
	}
	var td *typeDirectives
	seenOneOf, seenSchema := false, false
	for _, c := range docComments(b.docs[ts]) {
		dir, ok := annotations.ParseDirective(c.Text)
		if !ok || dir.Name == annotations.DirectiveTool || annotations.CheckDirectiveName(dir) != nil {
			continue
		}
		if td == nil {
			td = &typeDirectives{pos: ts.Name.Pos()}
		}
		argPos := c.Slash + token.Pos(dir.ArgsOffset)
		report := func(errs []*annotations.Error) {
			for _, e := range errs {
				b.diags.errorf(argPos+token.Pos(e.Offset), "//toolgen:%s: %s", dir.Name, e.Message)
			}
		}
		switch dir.Name {
		case annotations.DirectiveOpen:
			if td.open {
				b.diags.errorf(c.Slash, "duplicate //toolgen:open directive; give it once")
			}
			report(annotations.ParseOpen(dir.Args))
			td.open = true
		case annotations.DirectiveOneOf:
			if seenOneOf {
				b.diags.errorf(c.Slash, "duplicate //toolgen:oneof directive; list every variant on one line")
				continue
			}
			seenOneOf = true
			vs, errs := annotations.ParseOneOf(dir.Args)
			report(errs)
			// With two or more valid variants left, the type is still
			// mapped, so that the variants' own problems are reported in
			// the same run.
			if len(vs) >= 2 {
				td.oneOf, td.oneOfPos = vs, argPos
			} else {
				td.invalid = true
			}
		case annotations.DirectiveSchema:
			if seenSchema {
				b.diags.errorf(c.Slash, "duplicate //toolgen:schema directive; give the type one schema")
				continue
			}
			seenSchema = true
			n, errs := annotations.ParseSchema(dir.Args)
			report(errs)
			if len(errs) == 0 {
				td.schema = n
			} else {
				td.invalid = true
			}
		}
	}
	b.dirs[tn] = td
	return td
}

// fieldSyntax returns the syntax of a struct field, when its source is
// available.
func (b *builder) fieldSyntax(v *types.Var) *ast.Field {
	f, _ := b.lookupSyntax(v.Pos(), v.Name()).(*ast.Field)
	return f
}

// snakeCase derives a tool name from a Go function name: ReadFile →
// read_file, HTTPGet → http_get, ReadURLs → read_urls.
func snakeCase(name string) string {
	rs := []rune(name)
	var sb strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1]) && !(rs[i+1] == 's' && i+2 == len(rs))
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					sb.WriteByte('_')
				}
			}
			sb.WriteRune(unicode.ToLower(r))
			continue
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
