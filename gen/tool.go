package gen

import (
	"go/token"
	"go/types"
	"strings"

	"github.com/toolgen-go/toolgen/annotations"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// The accepted tool signatures, as messages spell them.
const wantToolSig = "func(context.Context, P) (O, error) or func(context.Context, P, *runtime.RunContext) (O, error)"

// tool checks one tool function and builds its model; nil after reporting
// why it cannot be one. A tool whose types could not be mapped is still
// returned, without schemas, so that its name is checked too.
func (b *builder) tool(d toolDecl) *Tool {
	fn := d.fn
	at := fn.Name.Pos()
	argPos := d.comment.Slash + token.Pos(d.dir.ArgsOffset)
	opts, errs := annotations.ParseTool(d.dir.Args)
	for _, e := range errs {
		b.diags.errorf(argPos+token.Pos(e.Offset), "//toolgen:tool: %s", e.Message)
	}
	if fn.Recv != nil {
		b.diags.errorf(at, "//toolgen:tool must be on a package-level function, not a method")
		return nil
	}
	obj, ok := b.pkg.TypesInfo.Defs[fn.Name].(*types.Func)
	if !ok {
		return nil
	}
	sig := obj.Type().(*types.Signature)
	if sig.TypeParams().Len() > 0 {
		b.diags.errorf(at, "tool function %s must not be generic; write one function per parameter type", fn.Name.Name)
		return nil
	}
	params, results := sig.Params(), sig.Results()
	shapeOK := (params.Len() == 2 || params.Len() == 3) && results.Len() == 2 && !sig.Variadic() &&
		isNamed(params.At(0).Type(), contextPath, "Context") &&
		isNamed(results.At(1).Type(), "", "error") &&
		(params.Len() == 2 || isPointerTo(params.At(2).Type(), runtimePath, "RunContext"))
	if !shapeOK {
		b.diags.errorf(at, "tool function %s has signature %s; want %s", fn.Name.Name, b.sigString(sig), wantToolSig)
		return nil
	}
	pt := types.Unalias(params.At(1).Type())
	if ptr, isPtr := pt.(*types.Pointer); isPtr && isStruct(ptr.Elem()) {
		b.diags.errorf(at, "parameter type %s must be a struct, not a pointer; take %s by value", b.typeString(pt), b.typeString(ptr.Elem()))
		return nil
	}
	if !isStruct(pt) {
		b.diags.errorf(at, "parameter type %s must be a struct, because a tool's arguments are a JSON object; declare type %sArgs struct{...} with the parameters as fields", b.typeString(pt), fn.Name.Name)
		return nil
	}
	if _, named := pt.(*types.Named); !named {
		b.diags.errorf(at, "parameter type must be a named struct type; declare type %sArgs struct{...}", fn.Name.Name)
		return nil
	}
	if why := b.ownWireForm(pt.(*types.Named)); why != "" {
		b.diags.errorf(at, "parameter type %s %s, so it is not decoded as the object of its fields; take a plain struct whose fields are the parameters", b.typeString(pt), why)
		return nil
	}
	ot := results.At(0).Type()

	t := &Tool{
		Name:        snakeCase(fn.Name.Name),
		Func:        fn.Name.Name,
		Description: strings.TrimSpace(fn.Doc.Text()),
		Pos:         b.fset.Position(at),
		RunContext:  params.Len() == 3,
	}
	if opts.Name.Set {
		t.Name = opts.Name.Text
	} else if !validToolName(t.Name) {
		b.diags.errorf(at, "the tool name %q derived from %s is not 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'; give one with name=", t.Name, fn.Name.Name)
	}
	if t.Description == "" {
		b.diags.errorf(at, "tool function %s has no doc comment besides its directives; models choose tools by their description, so describe what %s does", fn.Name.Name, t.Name)
	}
	t.Timeout = opts.TimeoutValue

	var ok1, ok2 bool
	t.Params, ok1 = b.mapType(pt, site{path: b.typeString(pt), pos: at}, true)
	t.Output, ok2 = b.mapType(ot, site{path: "output of " + t.Func, pos: at}, false)
	if ok1 && ok2 {
		t.ParamsSchema = objectSchema(t.Params.Fields, true)
		t.OutputSchema = t.Output.Schema
		if err := schemasubset.AssertObject(t.ParamsSchema); err != nil {
			b.diags.errorf(at, "parameter schema of %s is not supported: %v", t.Name, err)
		}
		if err := schemasubset.AssertSupported(t.OutputSchema); err != nil {
			b.diags.errorf(at, "output schema of %s is not supported: %v", t.Name, err)
		}
	}
	// The functions named by options are checked even when a type could
	// not be mapped, so that all of a tool's problems come in one run.

	rt := func(prefix, name string) sigType { return sigType{s: prefix + runtimePath + "." + name} }
	P, O := sigType{t: pt}, sigType{t: ot}
	switch opts.Concurrency.Text {
	case "":
	case "safe":
		t.Concurrency = Concurrency{Kind: ConcurrencySafe}
	case "exclusive":
		t.Concurrency = Concurrency{Kind: ConcurrencyExclusive}
	default:
		if b.checkFunc(argPos, "concurrency", opts.Concurrency, []sigType{P}, []sigType{{s: "bool"}}) {
			t.Concurrency = Concurrency{Kind: ConcurrencyFunc, Func: opts.Concurrency.Text}
		}
	}
	named := []struct {
		key  string
		v    annotations.Value
		in   []sigType
		out  []sigType
		dest *string
	}{
		{"render", opts.Render, []sigType{P, O}, []sigType{rt("[]", "ContentBlock")}, &t.Render},
		{"meta", opts.Meta, []sigType{P, O}, []sigType{{s: jsonvaluePath + ".Value"}}, &t.Meta},
		{"present_call", opts.PresentCall, []sigType{P}, []sigType{rt("*", "ToolCallView")}, &t.PresentCall},
		{"present_result", opts.PresentResult, []sigType{P, rt("", "ToolResult")}, []sigType{rt("*", "ToolResultView")}, &t.PresentResult},
		{"finalize", opts.Finalize, []sigType{rt("", "Execution"), rt("", "Result")}, []sigType{rt("[]", "ContentBlock")}, &t.Finalize},
	}
	for _, n := range named {
		if n.v.Set && b.checkFunc(argPos, n.key, n.v, n.in, n.out) {
			*n.dest = n.v.Text
		}
	}
	return t
}

// sigType is a parameter or result type a directive option's function
// must have: the tool's own parameter or output type t, compared by
// identity (so aliases match), or a type s spelled with full import paths,
// such as "[]github.com/toolgen-go/toolgen/runtime.ContentBlock", which an
// alias of it or of its element matches too.
type sigType struct {
	t types.Type
	s string
}

// matches reports whether got is the type st stands for.
func (b *builder) matches(st sigType, got types.Type) bool {
	if st.t != nil {
		return types.Identical(got, st.t)
	}
	got = types.Unalias(got)
	prefix := ""
	switch g := got.(type) {
	case *types.Pointer:
		prefix, got = "*", g.Elem()
	case *types.Slice:
		prefix, got = "[]", g.Elem()
	}
	return prefix+b.fullString(types.Unalias(got)) == st.s
}

// checkFunc checks that the function named by a directive option exists in
// the package with the signature func(in...) (out...).
func (b *builder) checkFunc(argPos token.Pos, key string, v annotations.Value, in, out []sigType) bool {
	pos := argPos + token.Pos(v.Offset)
	spell := func(ts []sigType) string {
		var parts []string
		for _, st := range ts {
			if st.t != nil {
				parts = append(parts, b.typeString(st.t))
			} else {
				parts = append(parts, b.shorten(st.s))
			}
		}
		return strings.Join(parts, ", ")
	}
	want := "func(" + spell(in) + ") " + spell(out)
	obj := b.pkg.Types.Scope().Lookup(v.Text)
	fn, ok := obj.(*types.Func)
	if !ok {
		what := "nothing"
		if obj != nil {
			what = "a " + objectKind(obj)
		}
		alt := ""
		if key == "concurrency" {
			alt = "concurrency=safe, concurrency=exclusive or "
		}
		b.diags.errorf(pos, "%s=%s: %s names %s in package %s; want %sa function %s", key, v.Text, v.Text, what, b.pkg.Name, alt, want)
		return false
	}
	sig := fn.Type().(*types.Signature)
	match := !sig.Variadic() && sig.TypeParams().Len() == 0 && sig.Params().Len() == len(in) && sig.Results().Len() == len(out)
	for i := 0; match && i < len(in); i++ {
		match = b.matches(in[i], sig.Params().At(i).Type())
	}
	for i := 0; match && i < len(out); i++ {
		match = b.matches(out[i], sig.Results().At(i).Type())
	}
	if !match && sig.TypeParams().Len() > 0 {
		b.diags.errorf(pos, "%s=%s: %s is generic; want a non-generic function %s", key, v.Text, v.Text, want)
		return false
	}
	if !match {
		b.diags.errorf(pos, "%s=%s: %s has signature %s; want %s", key, v.Text, v.Text, b.sigString(sig), want)
		return false
	}
	return true
}

// objectKind names what kind of declaration obj is.
func objectKind(obj types.Object) string {
	switch obj.(type) {
	case *types.TypeName:
		return "type"
	case *types.Const:
		return "constant"
	case *types.Var:
		return "variable"
	}
	return "declaration"
}

// sigString spells a signature without parameter names, relative to the
// package.
func (b *builder) sigString(sig *types.Signature) string {
	var parts []string
	for i := range sig.Params().Len() {
		s := b.typeString(sig.Params().At(i).Type())
		if sig.Variadic() && i == sig.Params().Len()-1 {
			s = "..." + strings.TrimPrefix(s, "[]")
		}
		parts = append(parts, s)
	}
	out := "func(" + strings.Join(parts, ", ") + ")"
	var res []string
	for i := range sig.Results().Len() {
		res = append(res, b.typeString(sig.Results().At(i).Type()))
	}
	switch len(res) {
	case 0:
	case 1:
		out += " " + res[0]
	default:
		out += " (" + strings.Join(res, ", ") + ")"
	}
	return out
}

// typeString spells t as the package's own source would.
func (b *builder) typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == b.pkg.Types {
			return ""
		}
		return p.Name()
	})
}

// fullString spells t with full import paths, for comparisons.
func (b *builder) fullString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Path() })
}

// shorten rewrites full import paths in a type string to package names,
// and drops the package's own path.
func (b *builder) shorten(s string) string {
	s = strings.ReplaceAll(s, b.pkg.PkgPath+".", "")
	s = strings.ReplaceAll(s, runtimePath+".", "runtime.")
	s = strings.ReplaceAll(s, jsonvaluePath+".", "jsonvalue.")
	return s
}

// isNamed reports whether t is the named type path.name ("" path for
// predeclared names such as error).
func isNamed(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	obj := n.Obj()
	if obj.Name() != name {
		return false
	}
	if obj.Pkg() == nil {
		return path == ""
	}
	return obj.Pkg().Path() == path
}

// isPointerTo reports whether t is *path.name.
func isPointerTo(t types.Type, path, name string) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), path, name)
}

// ownWireForm says why a struct type has a wire form of its own rather
// than the object of its fields; "" when it has none.
func (b *builder) ownWireForm(t *types.Named) string {
	switch b.wireFormOf(t, b.typeDirectivesOf(t.Obj())) {
	case wireSchema:
		return "declares its schema with //toolgen:schema"
	case wireTime:
		return "is time.Time, a string on the wire"
	case wireJSON:
		return "implements json.Unmarshaler" + promotedHint(t, "UnmarshalJSON")
	case wireText:
		return "implements encoding.TextUnmarshaler, a string on the wire" + promotedHint(t, "UnmarshalText")
	}
	return ""
}

// promotedHint names the embedded field a method is promoted from.
func promotedHint(t types.Type, method string) string {
	_, index, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, nil, method)
	st, ok := t.Underlying().(*types.Struct)
	if len(index) < 2 || !ok {
		return ""
	}
	return " (through its embedded field " + st.Field(index[0]).Name() + ", whose methods are promoted: give that field a name)"
}

// isStruct reports whether t's underlying type is a struct.
func isStruct(t types.Type) bool {
	_, ok := t.Underlying().(*types.Struct)
	return ok
}

// validToolName reports whether name is 1 to 128 characters of A-Z, a-z,
// 0-9, '_', '-' and '.', the runtime's rule.
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
