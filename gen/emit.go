package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// Version is the generated-code version this generator writes; the runtime
// accepts it through runtime.EnforceVersion.
const Version = 1

// File is one generated file: where it goes and its bytes. Emitters return
// files; only the command writes them.
type File struct {
	// Path is the file's path.
	Path string
	// Content is the file's complete content.
	Content []byte
}

// prefix starts every unexported name the generated file declares, so that
// it never collides with the author's names.
const prefix = "_toolgen_"

// GoFile returns the generated Go file of a package: per tool, its
// parameter and output schemas as schemasubset literals with their
// canonical JSON, the runtime version handshake and a compile-time check of
// each tool function's signature. The bytes are gofmt-clean and the same on
// every run.
//
// Imports keep their package names unless a name is taken: declared at
// package level by the package's own files (p.Scope), or declared anywhere
// in the generated file itself (a parameter or local variable, which would
// shadow it). A package whose name is taken is imported as "toolgen" and
// its name (toolgenruntime, toolgenmath), with a number appended while
// that is taken too.
func GoFile(p *Package) ([]byte, error) {
	aliases := make(map[string]string)
	for range 8 {
		src, err := goFile(p, aliases)
		if err != nil {
			return nil, err
		}
		more, err := importClashes(src, p.Scope, aliases)
		if err != nil {
			return nil, fmt.Errorf("toolgen: reading back the generated file of %s: %w", p.Path, err)
		}
		if len(more) == 0 {
			return src, nil
		}
		for path, alias := range more {
			aliases[path] = alias
		}
	}
	return nil, fmt.Errorf("toolgen: %s: found no import names that the package's own names leave free", p.Path)
}

// importClashes parses a generated file and returns, by import path, an
// alias for each import not yet in aliases whose name, or conventional
// name (a later render could give it that), is taken: one of the
// package-level names scope, or a name the file declares. The imports the
// generator names itself pick their aliases before the ones jennifer
// named.
func importClashes(src []byte, scope []string, aliases map[string]string) (map[string]string, error) {
	file, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	taken := declaredNames(file)
	for _, name := range scope {
		taken[name] = true
	}
	type imp struct{ path, name string }
	var own, named []imp
	used := make(map[string]bool)
	for _, spec := range file.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return nil, err
		}
		if spec.Name == nil {
			own = append(own, imp{path, importName(path)})
			used[importName(path)] = true
		} else {
			named = append(named, imp{path, spec.Name.Name})
			used[spec.Name.Name] = true
		}
	}
	more := make(map[string]string)
	for _, im := range append(own, named...) {
		if _, ok := aliases[im.path]; ok || !taken[im.name] && !taken[importName(im.path)] {
			continue
		}
		base := "toolgen" + strings.Map(func(r rune) rune {
			if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
				return r
			}
			return -1
		}, strings.ToLower(importName(im.path)))
		alias := base
		for n := 2; taken[alias] || used[alias]; n++ {
			alias = base + strconv.Itoa(n)
		}
		used[alias] = true
		more[im.path] = alias
	}
	return more, nil
}

// declaredNames returns every name a file declares, at package level or
// in a function: functions, types, variables, constants, parameters and
// results, := and range variables. Import names are not among them.
func declaredNames(file *ast.File) map[string]bool {
	names := make(map[string]bool)
	idents := func(list ...ast.Expr) {
		for _, e := range list {
			if id, ok := e.(*ast.Ident); ok {
				names[id.Name] = true
			}
		}
	}
	fieldNames := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			for _, id := range f.Names {
				names[id.Name] = true
			}
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			names[n.Name.Name] = true
			fieldNames(n.Recv)
		case *ast.FuncType:
			fieldNames(n.TypeParams)
			fieldNames(n.Params)
			fieldNames(n.Results)
		case *ast.TypeSpec:
			names[n.Name.Name] = true
		case *ast.ValueSpec:
			for _, id := range n.Names {
				names[id.Name] = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				idents(n.Lhs...)
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				idents(n.Key, n.Value)
			}
		}
		return true
	})
	return names
}

// importName is the package name an import path has by convention: its
// last element, or the one before a major-version suffix (math/rand/v2).
// Only paths whose packages follow the convention are imported without an
// explicit name: the generator's own and the standard library's.
func importName(path string) string {
	elems := strings.Split(path, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	return name
}

// goFile renders the generated file of p, importing the paths in aliases
// under their aliases.
func goFile(p *Package, aliases map[string]string) ([]byte, error) {
	f := jen.NewFilePathName(p.Path, p.Name)
	f.HeaderComment(generatedHeader[3:])
	f.ImportName(runtimePath, "runtime")
	f.ImportName(schemaPath, "schemasubset")
	f.ImportName(jsonvaluePath, "jsonvalue")
	f.ImportName(contextPath, "context")
	for path, alias := range aliases {
		f.ImportAlias(path, alias)
	}

	f.Comment("The generated-code version of this file: compiling it against a runtime")
	f.Comment("that does not support the version fails here.")
	f.Const().Defs(
		jen.Id("_").Op("=").Qual(runtimePath, "EnforceVersion").Call(jen.Lit(Version).Op("-").Qual(runtimePath, "MinGeneratedVersion")),
		jen.Id("_").Op("=").Qual(runtimePath, "EnforceVersion").Call(jen.Qual(runtimePath, "MaxGeneratedVersion").Op("-").Lit(Version)),
	)

	var guards []jen.Code
	for _, t := range p.Tools {
		params := []jen.Code{jen.Qual(contextPath, "Context"), typeExpr(t.Params)}
		if t.RunContext {
			params = append(params, jen.Op("*").Qual(runtimePath, "RunContext"))
		}
		guards = append(guards, jen.Id("_").Func().Params(params...).Params(typeExpr(t.Output), jen.Error()).Op("=").Id(t.Func))
	}
	f.Line()
	f.Comment("Each tool function must keep the signature its code was generated for;")
	f.Comment("after a change, run go generate again.")
	f.Var().Defs(guards...)

	for _, t := range p.Tools {
		paramsJSON, err := t.ParamsSchema.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("toolgen: %s: parameter schema: %w", t.Name, err)
		}
		outputJSON, err := t.OutputSchema.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("toolgen: %s: output schema: %w", t.Name, err)
		}
		schemaName := prefix + t.Func + "_schema"
		outputName := prefix + t.Func + "_output"
		f.Line()
		f.Commentf("%s is the model-facing declaration of the %s tool.", schemaName, t.Name)
		f.Var().Id(schemaName).Op("=").Qual(runtimePath, "ToolSchema").Custom(fields,
			jen.Id("Name").Op(":").Lit(t.Name),
			jen.Id("Description").Op(":").Lit(t.Description),
			jen.Id("Parameters").Op(":").Qual(schemaPath, "Build").Call(jen.Op("&").Id(schemaName+"Spec")),
		)
		f.Line()
		f.Commentf("%s is the schema of the %s tool's output.", outputName, t.Name)
		f.Var().Id(outputName).Op("=").Qual(schemaPath, "Build").Call(jen.Op("&").Id(outputName + "Spec"))
		f.Line()
		f.Commentf("%sSpec and %sSpec are the two schemas as data", schemaName, outputName)
		f.Comment("the compiler lays out statically; Build makes nodes of each with a few")
		f.Comment("allocations.")
		f.Var().Defs(
			jen.Id(schemaName+"Spec").Op("=").Add(specLit(t.ParamsSchema, true)),
			jen.Id(outputName+"Spec").Op("=").Add(specLit(t.OutputSchema, true)),
		)
		f.Line()
		f.Commentf("%s%s_paramsJSON and %s%s_outputJSON are the canonical JSON of", prefix, t.Func, prefix, t.Func)
		f.Comment("the two schemas, byte for byte what their MarshalJSON returns.")
		f.Const().Defs(
			jen.Id(prefix+t.Func+"_paramsJSON").Op("=").Add(stringLit(string(paramsJSON))),
			jen.Id(prefix+t.Func+"_outputJSON").Op("=").Add(stringLit(string(outputJSON))),
		)
	}

	c := newCoder()
	var defs []jen.Code
	var adapters []jen.Code
	needRender, needAlways := false, false
	for _, t := range p.Tools {
		decls, def := c.adapter(t)
		adapters = append(adapters, decls...)
		defs = append(defs, def)
		needRender = needRender || t.Render == ""
		needAlways = needAlways || t.Concurrency.Kind == ConcurrencySafe
	}
	if c.err != nil {
		return nil, c.err
	}
	f.Line()
	f.Comment("Tools returns the package's tools, in source order, ready for")
	f.Comment("runtime.Runtime.Register. Each call returns new definitions that share")
	f.Comment("the package's immutable schemas.")
	f.Func().Id("Tools").Params().Index().Qual(runtimePath, "ToolDefinition").Block(
		jen.Return(jen.Index().Qual(runtimePath, "ToolDefinition").Custom(fields, defs...)),
	)
	for _, d := range adapters {
		f.Add(d)
	}
	for _, d := range c.decls {
		f.Add(d)
	}
	if needRender {
		f.Line()
		f.Commentf("%srenderJSON is the default renderer: the value as one JSON text block.", prefix)
		f.Func().Id(prefix+"renderJSON").Params(jen.Id("_"), jen.Id("value").Qual(jsonvaluePath, "Value")).Params(jen.Index().Qual(runtimePath, "ContentBlock"), jen.Error()).Block(
			jen.Return(jen.Index().Qual(runtimePath, "ContentBlock").Values(jen.Qual(runtimePath, "Text").Call(jen.String().Call(jen.Id("value")))), jen.Nil()),
		)
	}
	if needAlways {
		f.Line()
		f.Commentf("%salways classifies every call of a concurrency=safe tool as parallel.", prefix)
		f.Func().Id(prefix + "always").Params(jen.Qual(jsonvaluePath, "Value")).Bool().Block(jen.Return(jen.True()))
	}

	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, fmt.Errorf("toolgen: formatting the generated file of %s: %w", p.Path, err)
	}
	return buf.Bytes(), nil
}

// typeExpr spells a model type in generated code.
func typeExpr(t *Type) jen.Code {
	switch {
	case !t.Named.IsZero():
		return jen.Qual(t.Named.ImportPath, t.Named.Name)
	case t.Kind == KindSlice:
		return jen.Index().Add(typeExpr(t.Elem))
	case t.Kind == KindPointer:
		return jen.Op("*").Add(typeExpr(t.Elem))
	case t.Spelling != nil:
		// An unnamed struct: its source text, with the names of other
		// packages qualified so that their imports are written.
		s := jen.Null()
		for _, p := range t.Spelling {
			if p.Ident.IsZero() {
				s.Op(p.Text)
			} else {
				s.Qual(p.Ident.ImportPath, p.Ident.Name)
			}
		}
		return s
	}
	// Predeclared types: the only unnamed types left once unnamed
	// interfaces have been rejected.
	return jen.Id(t.GoString)
}

// specLit returns a schemasubset.Spec literal describing n, with its type
// name when typed is set (an element of a []Spec elides it). A node with a
// present but empty title or description, which a Spec cannot spell, goes
// in whole through the Node field.
func specLit(n *schemasubset.Node, typed bool) *jen.Statement {
	q := func(name string) *jen.Statement { return jen.Qual(schemaPath, name) }
	lit := func(items ...jen.Code) *jen.Statement {
		if typed {
			return q("Spec").Custom(fields, items...)
		}
		return jen.Custom(fields, items...)
	}
	title, hasTitle := n.Title()
	desc, hasDesc := n.Description()
	if hasTitle && title == "" || hasDesc && desc == "" {
		return lit(jen.Id("Node").Op(":").Add(schemaLit(n)))
	}
	var items []jen.Code
	field := func(name string, v jen.Code) { items = append(items, jen.Id(name).Op(":").Add(v)) }
	if typ := n.Type(); typ != schemasubset.TypeAny {
		field("Type", q(typeConst[typ]))
	}
	if hasTitle {
		field("Title", jen.Lit(title))
	}
	if hasDesc {
		field("Description", jen.Lit(desc))
	}
	if v := n.Default(); v != nil {
		field("Default", valueLit(v))
	}
	if v := n.Examples(); v != nil {
		field("Examples", valueLit(v))
	}
	if vs := n.Enum(); vs != nil {
		lits := make([]jen.Code, len(vs))
		for i, v := range vs {
			lits[i] = valueLit(v)
		}
		field("Enum", jen.Index().Qual(jsonvaluePath, "Value").Values(lits...))
	}
	if v, ok := n.Const(); ok {
		field("Const", valueLit(v))
	}
	if props, ok := n.Properties(); ok {
		lits := make([]jen.Code, len(props))
		for i, p := range props {
			lits[i] = jen.Values(jen.Id("Name").Op(":").Lit(p.Name), jen.Id("Schema").Op(":").Add(specLit(p.Schema, true)))
		}
		field("Properties", jen.Index().Qual(schemaPath, "SpecProperty").Custom(fields, lits...))
	}
	if req, ok := n.Required(); ok {
		lits := make([]jen.Code, len(req))
		for i, r := range req {
			lits[i] = jen.Lit(r)
		}
		field("Required", jen.Index().String().Values(lits...))
	}
	if allowed, ok := n.AdditionalProperties(); ok {
		if allowed {
			field("Additional", q("AdditionalAllowed"))
		} else {
			field("Additional", q("AdditionalForbidden"))
		}
	}
	if items := n.Items(); items != nil {
		field("Items", jen.Op("&").Add(specLit(items, true)))
	}
	if branches := n.OneOf(); branches != nil {
		lits := make([]jen.Code, len(branches))
		for i, b := range branches {
			lits[i] = specLit(b, false)
		}
		field("OneOf", jen.Index().Qual(schemaPath, "Spec").Custom(fields, lits...))
	}
	return lit(items...)
}

// typeConst names the schemasubset constant of each type.
var typeConst = map[schemasubset.Type]string{
	schemasubset.TypeObject:  "TypeObject",
	schemasubset.TypeArray:   "TypeArray",
	schemasubset.TypeString:  "TypeString",
	schemasubset.TypeNumber:  "TypeNumber",
	schemasubset.TypeInteger: "TypeInteger",
	schemasubset.TypeBoolean: "TypeBoolean",
	schemasubset.TypeNull:    "TypeNull",
}

// schemaLit returns a schemasubset expression that builds a node equal to n.
func schemaLit(n *schemasubset.Node) *jen.Statement {
	q := func(name string) *jen.Statement { return jen.Qual(schemaPath, name) }
	var s *jen.Statement
	oneOfDone := false
	switch n.Type() {
	case schemasubset.TypeAny:
		if branches := n.OneOf(); len(branches) > 0 {
			s = q("OneOf").Custom(multi, nodeLits(branches)...)
			oneOfDone = true
		} else {
			s = q("Any").Call()
		}
	case schemasubset.TypeObject:
		props, has := n.Properties()
		items := make([]jen.Code, len(props))
		for i, p := range props {
			items[i] = q("Prop").Call(jen.Lit(p.Name), schemaLit(p.Schema))
		}
		s = q("Object").Custom(multi, items...)
		if has && len(props) == 0 {
			s = s.Dot("WithProperties").Call()
		}
	case schemasubset.TypeArray:
		if items := n.Items(); items != nil {
			s = q("Array").Call(schemaLit(items))
		} else {
			s = q("Array").Call(jen.Nil())
		}
	case schemasubset.TypeString:
		s = q("String").Call()
	case schemasubset.TypeNumber:
		s = q("Number").Call()
	case schemasubset.TypeInteger:
		s = q("Integer").Call()
	case schemasubset.TypeBoolean:
		s = q("Boolean").Call()
	case schemasubset.TypeNull:
		s = q("Null").Call()
	}
	if v, ok := n.Title(); ok {
		s = s.Dot("WithTitle").Call(jen.Lit(v))
	}
	if v, ok := n.Description(); ok {
		s = s.Dot("WithDescription").Call(jen.Lit(v))
	}
	if v := n.Default(); v != nil {
		s = s.Dot("WithDefault").Call(valueLit(v))
	}
	if v := n.Examples(); v != nil {
		s = s.Dot("WithExamples").Call(valueLit(v))
	}
	if vs := n.Enum(); vs != nil {
		lits := make([]jen.Code, len(vs))
		for i, v := range vs {
			lits[i] = valueLit(v)
		}
		s = s.Dot("WithEnum").Call(lits...)
	}
	if v, ok := n.Const(); ok {
		s = s.Dot("WithConst").Call(valueLit(v))
	}
	if req, ok := n.Required(); ok {
		lits := make([]jen.Code, len(req))
		for i, r := range req {
			lits[i] = jen.Lit(r)
		}
		s = s.Dot("WithRequired").Call(lits...)
	}
	if allowed, ok := n.AdditionalProperties(); ok {
		if allowed {
			s = s.Dot("WithAdditionalProperties").Call(jen.True())
		} else {
			s = s.Dot("Closed").Call()
		}
	}
	if branches := n.OneOf(); len(branches) > 0 && !oneOfDone {
		s = s.Dot("WithOneOf").Custom(multi, nodeLits(branches)...)
	}
	return s
}

// multi lays a call's arguments out one per line.
var multi = jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}

// fields lays a composite literal's fields out one per line, in order.
var fields = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}

// stringLit spells s as a raw string literal when it can be one (valid
// UTF-8 without backquotes, carriage returns or other control characters
// but tab), which keeps JSON readable, and as a quoted literal otherwise.
func stringLit(s string) jen.Code {
	if !utf8.ValidString(s) {
		return jen.Lit(s)
	}
	for _, r := range s {
		if r == '`' || r == utf8.RuneError || r < ' ' && r != '\t' || r == 0x7f || r == 0xFEFF {
			return jen.Lit(s)
		}
	}
	return jen.Op("`" + s + "`")
}

func nodeLits(ns []*schemasubset.Node) []jen.Code {
	out := make([]jen.Code, len(ns))
	for i, b := range ns {
		out[i] = schemaLit(b)
	}
	return out
}

// valueLit spells a JSON value as a jsonvalue.Value conversion of its
// canonical text: a literal, nothing parsed at init.
func valueLit(v jsonvalue.Value) jen.Code {
	return jen.Qual(jsonvaluePath, "Value").Call(jen.Lit(string(v)))
}
