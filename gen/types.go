package gen

import (
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolgen-go/toolgen/annotations"
	"github.com/toolgen-go/toolgen/internal/gosrc"
	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// site is where a type is met: the Go path of the field for messages
// (ReadFileArgs.Filter.Tags) and the position to report at.
type site struct {
	path string
	pos  token.Pos
}

// field returns the site of a field below s.
func (s site) field(name string, pos token.Pos) site {
	if !pos.IsValid() {
		pos = s.pos
	}
	return site{path: s.base() + "." + name, pos: pos}
}

// elem returns the site of a slice's elements.
func (s site) elem() site { return site{path: s.base() + "[]", pos: s.pos} }

// base is the path to extend with a field or element: a root path in
// words, such as "output of ReadFile", is put in parentheses.
func (s site) base() string {
	if strings.Contains(s.path, " ") && !strings.HasPrefix(s.path, "(") {
		return "(" + s.path + ")"
	}
	return s.path
}

// mapType maps a Go type to its model and schema. It reports every problem
// and returns false when the type cannot be mapped. root is set for a
// tool's parameter type, whose struct fields are modelled but whose own
// object schema is built open by the caller.
func (b *builder) mapType(t types.Type, at site, root bool) (*Type, bool) {
	t = types.Unalias(t)
	if m, ok := b.types[t]; ok {
		return m, m != nil
	}
	named, isNamedType := t.(*types.Named)
	if isNamedType {
		if slices.Contains(b.stack, named) {
			b.diags.errorf(at.pos, "%s: type %s refers to itself; the schema subset has no references, so a recursive type has no schema: nest distinct types to the depth you need, or use jsonvalue.Value for the recursive part", at.path, b.typeString(t))
			return nil, false
		}
		b.stack = append(b.stack, named)
		defer func() { b.stack = b.stack[:len(b.stack)-1] }()
	}
	m, ok := b.mapUncached(t, at, root)
	if !ok {
		m = nil
	} else {
		m.MarshalJSON = hasAppendMethod(t, "MarshalJSON")
		m.MarshalText = hasAppendMethod(t, "MarshalText")
		m.IsZeroMethod = hasIsZero(t)
		m.Comparable = types.Comparable(t)
	}
	if isNamedType {
		// Named types map the same wherever they are met; problems in them
		// are reported once.
		b.types[t] = m
	}
	return m, ok
}

// wireForm says what decides a type's wire form, in the mapping's order
// of precedence: a declared schema, one of the types with a built-in form,
// a decoding method, or else the type's Go structure.
type wireForm uint8

const (
	wireStructural wireForm = iota // the object, array or scalar of its Go type
	wireSchema                     // its //toolgen:schema declaration
	wireRaw                        // json.RawMessage or jsonvalue.Value
	wireNumber                     // json.Number
	wireTime                       // time.Time
	wireJSON                       // an UnmarshalJSON method, with no declared schema
	wireText                       // an UnmarshalText method
)

// wireFormOf classifies t, whose type directives are dirs (nil for none).
func (b *builder) wireFormOf(t types.Type, dirs *typeDirectives) wireForm {
	switch {
	case dirs != nil && dirs.schema != nil:
		return wireSchema
	case isNamed(t, "encoding/json", "RawMessage") || isNamed(t, jsonvaluePath, "Value"):
		return wireRaw
	case isNamed(t, "encoding/json", "Number"):
		return wireNumber
	case isNamed(t, "time", "Time"):
		return wireTime
	case hasByteMethod(t, "UnmarshalJSON"):
		return wireJSON
	case hasByteMethod(t, "UnmarshalText"):
		return wireText
	}
	return wireStructural
}

func (b *builder) mapUncached(t types.Type, at site, root bool) (*Type, bool) {
	m := &Type{GoString: b.typeString(t)}
	named, _ := t.(*types.Named)
	if named != nil {
		obj := named.Obj()
		if obj.Pkg() != nil {
			m.Named = GoIdent{ImportPath: obj.Pkg().Path(), Name: obj.Name()}
		}
		if named.TypeArgs().Len() > 0 {
			b.diags.errorf(at.pos, "%s: generic type %s is not supported; declare a non-generic type", at.path, m.GoString)
			return nil, false
		}
	}
	var dirs *typeDirectives
	if named != nil {
		dirs = b.typeDirectivesOf(named.Obj())
		if dirs != nil && dirs.invalid {
			return nil, false
		}
	}
	if dirs != nil && (dirs.open || dirs.oneOf != nil) {
		// A type with a wire form of its own is never the object of its
		// fields nor a oneOf of variants.
		own := ""
		switch b.wireFormOf(t, dirs) {
		case wireSchema:
			own = "its //toolgen:schema"
		case wireJSON:
			own = "its own (it has an UnmarshalJSON method)"
		case wireText:
			own = "a string (it has an UnmarshalText method)"
		}
		for _, d := range []struct {
			name string
			set  bool
		}{{annotations.DirectiveOpen, dirs.open}, {annotations.DirectiveOneOf, dirs.oneOf != nil}} {
			if d.set && own != "" {
				b.diags.errorf(dirs.pos, "//toolgen:%s has no effect on %s, whose wire form is %s; remove the directive", d.name, m.GoString, own)
			}
		}
	}

	switch b.wireFormOf(t, dirs) {
	case wireSchema:
		m.Kind = KindCustom
		m.UnmarshalJSON = hasByteMethod(t, "UnmarshalJSON")
		m.UnmarshalText = hasByteMethod(t, "UnmarshalText")
		if !m.UnmarshalJSON && !m.UnmarshalText {
			b.diags.errorf(dirs.pos, "type %s has //toolgen:schema but no UnmarshalJSON([]byte) error or UnmarshalText([]byte) error method; add one on *%s so the decoder can read it", m.GoString, named.Obj().Name())
			return nil, false
		}
		m.Schema = dirs.schema
		return m, true
	case wireRaw:
		m.Kind, m.Schema = KindRaw, schemasubset.Any()
		return m, true
	case wireNumber:
		m.Kind, m.Schema = KindNumber, schemasubset.Number()
		return m, true
	case wireTime:
		m.Kind, m.Schema = KindTime, schemasubset.String()
		return m, true
	case wireJSON:
		if hint := promotedHint(t, "UnmarshalJSON"); hint != "" {
			b.diags.errorf(at.pos, "%s: %s implements json.Unmarshaler%s, so encoding/json reads it through that method and never sees its other fields", at.path, m.GoString, hint)
			return nil, false
		}
		b.diags.errorf(at.pos, "%s: %s implements json.Unmarshaler, so its wire form is its own; declare its schema with //toolgen:schema {...} on the type declaration", at.path, m.GoString)
		return nil, false
	case wireText:
		if hint := promotedHint(t, "UnmarshalText"); hint != "" {
			b.diags.errorf(at.pos, "%s: %s implements encoding.TextUnmarshaler%s, so encoding/json reads it from a string and never sees its other fields", at.path, m.GoString, hint)
			return nil, false
		}
		m.Kind, m.Schema, m.UnmarshalText = KindText, schemasubset.String(), true
		return m, true
	}
	if dirs != nil && dirs.open && !isStruct(t) {
		b.diags.errorf(dirs.pos, "//toolgen:open applies to struct types; %s is not a struct", m.GoString)
	}
	if dirs != nil && dirs.oneOf != nil {
		if _, isIface := t.Underlying().(*types.Interface); !isIface {
			b.diags.errorf(dirs.pos, "//toolgen:oneof applies to interface types; %s is not an interface", m.GoString)
			return nil, false
		}
	}

	switch u := t.Underlying().(type) {
	case *types.Basic:
		return b.mapBasic(m, t, u, at)
	case *types.Struct:
		m.Kind = KindStruct
		m.Open = dirs != nil && dirs.open
		fields, ok := b.structFields(u, at)
		if !ok {
			return nil, false
		}
		m.Fields = fields
		m.Schema = objectSchema(fields, m.Open)
		if named == nil {
			m.Spelling = b.spelling(t)
		}
		return m, true
	case *types.Slice:
		if eb, ok := types.Unalias(u.Elem()).Underlying().(*types.Basic); ok && eb.Kind() == types.Uint8 {
			return b.unsupported(m, at, "a byte slice is base64 text in encoding/json, which the subset cannot describe; use string, or jsonvalue.Value for raw JSON")
		}
		elem, ok := b.mapType(u.Elem(), at.elem(), false)
		if !ok {
			return nil, false
		}
		m.Kind, m.Elem, m.Schema = KindSlice, elem, schemasubset.Array(elem.Schema)
		return m, true
	case *types.Pointer:
		elem, ok := b.mapType(u.Elem(), at, false)
		if !ok {
			return nil, false
		}
		m.Kind, m.Elem, m.Schema = KindPointer, elem, elem.Schema
		return m, true
	case *types.Interface:
		if dirs == nil || dirs.oneOf == nil {
			what := m.GoString
			if u.Empty() {
				what = "any"
			}
			b.diags.errorf(at.pos, "%s: %s is not supported: an interface has no schema; use a concrete type, jsonvalue.Value for any JSON, or list the variants of a sealed interface with //toolgen:oneof", at.path, what)
			return nil, false
		}
		return b.mapOneOf(m, named, u, dirs, at)
	case *types.Map:
		return b.unsupported(m, at, "a map has no schema in the subset; use a slice of structs with explicit key and value fields, or jsonvalue.Value for free-form JSON")
	case *types.Chan:
		return b.unsupported(m, at, "a channel has no JSON form; use a type that has one, or skip the field with json:\"-\"")
	case *types.Signature:
		return b.unsupported(m, at, "a function has no JSON form; use a type that has one, or skip the field with json:\"-\"")
	case *types.Array:
		return b.unsupported(m, at, fmt.Sprintf("fixed-size arrays are not supported; use a slice ([]%s)", b.typeString(u.Elem())))
	}
	return b.unsupported(m, at, "this type has no schema in the subset")
}

// spelling splits the source form of t into text and the names it refers
// to in other packages: the qualifier marks each package reference, and the
// name that follows it is cut out as an identifier.
func (b *builder) spelling(t types.Type) []SpellingPart {
	var pkgs []*types.Package
	s := types.TypeString(t, func(p *types.Package) string {
		if p == b.pkg.Types {
			return ""
		}
		pkgs = append(pkgs, p)
		return fmt.Sprintf("\x00%d\x01", len(pkgs)-1)
	})
	var parts []SpellingPart
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], 1)
		var n int
		fmt.Sscanf(s[i+1:i+j], "%d", &n)
		rest := s[i+j+2:] // the marker, then "."
		k := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
		if k < 0 {
			k = len(rest)
		}
		parts = append(parts, SpellingPart{Text: s[:i]}, SpellingPart{Ident: GoIdent{ImportPath: pkgs[n].Path(), Name: rest[:k]}})
		s = rest[k:]
	}
	return append(parts, SpellingPart{Text: s})
}

// unsupported reports a type the subset cannot describe, with the advice
// of what to use instead.
func (b *builder) unsupported(m *Type, at site, advice string) (*Type, bool) {
	b.diags.errorf(at.pos, "%s: %s is not supported: %s", at.path, m.GoString, advice)
	return nil, false
}

// mapBasic maps strings, booleans and numbers, with the enum of a named
// type's package constants.
func (b *builder) mapBasic(m *Type, t types.Type, u *types.Basic, at site) (*Type, bool) {
	info := u.Info()
	switch {
	case u.Kind() == types.String:
		m.Kind, m.Schema = KindString, schemasubset.String()
	case u.Kind() == types.Bool:
		m.Kind, m.Schema = KindBool, schemasubset.Boolean()
	case info&types.IsInteger != 0 && info&types.IsUnsigned == 0:
		m.Kind, m.Bits, m.Schema = KindInt, intBits(u.Kind()), schemasubset.Integer()
	case info&types.IsInteger != 0:
		m.Kind, m.Bits, m.Schema = KindUint, intBits(u.Kind()), schemasubset.Integer()
	case info&types.IsFloat != 0:
		m.Kind, m.Bits, m.Schema = KindFloat, 64, schemasubset.Number()
		if u.Kind() == types.Float32 {
			m.Bits = 32
		}
	case info&types.IsComplex != 0:
		return b.unsupported(m, at, "complex numbers have no JSON form; use two float64 fields")
	default:
		return b.unsupported(m, at, "this basic type has no JSON form; use a type that has one, or skip the field with json:\"-\"")
	}
	if named, ok := t.(*types.Named); ok && (m.Kind == KindString || m.Kind == KindInt || m.Kind == KindUint) {
		m.Enum = b.enumConsts(named)
		if len(m.Enum) > 0 {
			vals := make([]jsonvalue.Value, 0, len(m.Enum))
			for _, c := range m.Enum {
				if !slices.ContainsFunc(vals, func(v jsonvalue.Value) bool { return string(v) == string(c.Value) }) {
					vals = append(vals, c.Value)
				}
			}
			m.Schema = m.Schema.WithEnum(vals...)
		}
	}
	return m, true
}

// intBits is the size of an integer kind; 0 for int, uint and uintptr,
// whose size is the platform's.
func intBits(k types.BasicKind) int {
	switch k {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32:
		return 32
	case types.Int64, types.Uint64:
		return 64
	}
	return 0
}

// enumConsts lists the constants of a named string or integer type declared
// in its package, in source order.
func (b *builder) enumConsts(named *types.Named) []EnumConst {
	pkg := named.Obj().Pkg()
	if pkg == nil {
		return nil
	}
	var consts []*types.Const
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		c, ok := scope.Lookup(name).(*types.Const)
		if ok && types.Identical(c.Type(), named) {
			consts = append(consts, c)
		}
	}
	slices.SortFunc(consts, func(x, y *types.Const) int {
		px, py := b.fset.Position(x.Pos()), b.fset.Position(y.Pos())
		return cmp.Or(cmp.Compare(px.Filename, py.Filename), cmp.Compare(px.Offset, py.Offset), cmp.Compare(x.Name(), y.Name()))
	})
	out := make([]EnumConst, 0, len(consts))
	for _, c := range consts {
		var v jsonvalue.Value
		switch c.Val().Kind() {
		case constant.String:
			v = jsonvalue.String(constant.StringVal(c.Val()))
		case constant.Int:
			v = jsonvalue.Value(c.Val().ExactString())
		default:
			continue
		}
		out = append(out, EnumConst{Name: GoIdent{ImportPath: pkg.Path(), Name: c.Name()}, Value: v})
	}
	return out
}

// hasByteMethod reports whether t or *t has method name with the signature
// func([]byte) error, as UnmarshalJSON and UnmarshalText have.
func hasByteMethod(t types.Type, name string) bool {
	if _, isPtr := t.Underlying().(*types.Pointer); isPtr {
		return false
	}
	sig := methodSig(t, name)
	return sig != nil && sig.Params().Len() == 1 && sig.Results().Len() == 1 && !sig.Variadic() &&
		isBytes(sig.Params().At(0).Type()) && isNamed(sig.Results().At(0).Type(), "", "error")
}

// hasAppendMethod reports whether t or *t has method name with the
// signature func() ([]byte, error), as MarshalJSON and MarshalText have.
func hasAppendMethod(t types.Type, name string) bool {
	sig := methodSig(t, name)
	return sig != nil && sig.Params().Len() == 0 && sig.Results().Len() == 2 &&
		isBytes(sig.Results().At(0).Type()) && isNamed(sig.Results().At(1).Type(), "", "error")
}

// methodSig returns the signature of method name of *t (so value and
// pointer receivers both count), or nil when there is none or t is an
// interface.
func methodSig(t types.Type, name string) *types.Signature {
	if _, isIface := t.Underlying().(*types.Interface); isIface {
		return nil
	}
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, nil, name)
	fn, ok := obj.(*types.Func)
	if !ok {
		return nil
	}
	return fn.Type().(*types.Signature)
}

// isBytes reports whether t is []byte.
func isBytes(t types.Type) bool {
	s, ok := types.Unalias(t).(*types.Slice)
	if !ok {
		return false
	}
	bt, ok := types.Unalias(s.Elem()).(*types.Basic)
	return ok && bt.Kind() == types.Uint8
}

// hasIsZero reports whether t has an IsZero() bool method (on its value),
// which encoding/json's omitzero consults.
func hasIsZero(t types.Type) bool {
	if _, isIface := t.Underlying().(*types.Interface); isIface {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "IsZero")
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	return sig.Params().Len() == 0 && sig.Results().Len() == 1 && isNamed(sig.Results().At(0).Type(), "", "bool")
}

// mapOneOf maps a sealed interface listed by //toolgen:oneof.
func (b *builder) mapOneOf(m *Type, named *types.Named, iface *types.Interface, dirs *typeDirectives, at site) (*Type, bool) {
	m.Kind = KindOneOf
	sealed := false
	for i := range iface.NumMethods() {
		if !iface.Method(i).Exported() {
			sealed = true
		}
	}
	if !sealed {
		b.diags.errorf(dirs.pos, "//toolgen:oneof needs a sealed interface, one with an unexported method such as is%s(), so that no other package adds variants", named.Obj().Name())
		return nil, false
	}
	pkg := named.Obj().Pkg()
	ok := true
	var branches []*schemasubset.Node
	var variantIndex []int // index in dirs.oneOf of each mapped variant
	for vi, v := range dirs.oneOf {
		pos := dirs.oneOfPos + token.Pos(v.Offset)
		tn, isType := pkg.Scope().Lookup(v.Name).(*types.TypeName)
		if !isType {
			b.diags.errorf(pos, "//toolgen:oneof: %s is not a type of package %s", v.Name, pkg.Name())
			ok = false
			continue
		}
		vt := tn.Type()
		variant := &Variant{}
		switch {
		case types.Implements(vt, iface):
		case types.Implements(types.NewPointer(vt), iface):
			variant.Pointer = true
		default:
			b.diags.errorf(pos, "//toolgen:oneof: %s does not implement %s; add its methods or remove it from the list", v.Name, named.Obj().Name())
			ok = false
			continue
		}
		vpos := tn.Pos()
		if ts, ok := b.lookupSyntax(tn.Pos(), tn.Name()).(*ast.TypeSpec); ok {
			vpos = ts.Name.Pos()
		}
		vm, vok := b.mapType(vt, site{path: at.base() + "(" + v.Name + ")", pos: vpos}, false)
		if !vok {
			ok = false
			continue
		}
		variant.Type = vm
		m.Variants = append(m.Variants, variant)
		branches = append(branches, vm.Schema)
		variantIndex = append(variantIndex, vi)
	}
	// Variants of one schema can never be told apart: every value that
	// matches one matches both, and a oneOf needs exactly one match.
	for j := range m.Variants {
		for i := range j {
			if branches[i].Equal(branches[j]) {
				b.diags.errorf(dirs.oneOfPos+token.Pos(dirs.oneOf[variantIndex[j]].Offset), "//toolgen:oneof: variants %s and %s have the same schema, so no value matches exactly one of them; give them different fields, such as a const kind field, or list only one", dirs.oneOf[variantIndex[i]].Name, dirs.oneOf[variantIndex[j]].Name)
				ok = false
				break
			}
		}
	}
	if !ok {
		return nil, false
	}
	m.Schema = schemasubset.OneOf(branches...)
	return m, true
}

// objectSchema builds a struct's object schema; the parameter root and
// //toolgen:open structs are open, every other struct is closed.
func objectSchema(fields []*Field, open bool) *schemasubset.Node {
	props := make([]schemasubset.Property, len(fields))
	var required []string
	for i, f := range fields {
		props[i] = schemasubset.Prop(f.Name, f.Schema)
		if f.Required {
			required = append(required, f.Name)
		}
	}
	n := schemasubset.Object(props...)
	if len(required) > 0 {
		n = n.WithRequired(required...)
	}
	if !open {
		n = n.Closed()
	}
	return n
}

// candidate is a struct field met while flattening embedded structs.
type candidate struct {
	field  *Field
	depth  int
	tagged bool
}

// structFields lists a struct's wire fields by encoding/json's rules:
// embedded structs without a json name are flattened; among fields of one
// name the shallowest wins, then the tagged one; a tie that encoding/json
// would resolve by dropping both is an error here.
func (b *builder) structFields(st *types.Struct, at site) ([]*Field, bool) {
	var cands []candidate
	ok := b.collectFields(st, at, 0, nil, &cands, map[*types.Struct]bool{})
	byName := make(map[string][]int)
	var order []string
	for i, c := range cands {
		if _, seen := byName[c.field.Name]; !seen {
			order = append(order, c.field.Name)
		}
		byName[c.field.Name] = append(byName[c.field.Name], i)
	}
	keep := make(map[int]bool)
	for _, name := range order {
		idx := byName[name]
		best := idx[0]
		for _, i := range idx[1:] {
			if cands[i].depth < cands[best].depth {
				best = i
			}
		}
		var top []int
		for _, i := range idx {
			if cands[i].depth == cands[best].depth {
				top = append(top, i)
			}
		}
		if len(top) > 1 {
			var tagged []int
			for _, i := range top {
				if cands[i].tagged {
					tagged = append(tagged, i)
				}
			}
			if len(tagged) != 1 {
				var where []string
				for _, i := range top {
					where = append(where, fieldPath(cands[i].field))
				}
				b.diags.at(b.conflictPos(st, cands[top[0]].field, cands[top[1]].field), fmt.Sprintf("%s: fields %s all have the JSON name %q at the same depth, so encoding/json would drop them all; rename all but one with a json tag", at.path, strings.Join(where, " and "), name))
				ok = false
				continue
			}
			best = tagged[0]
		}
		keep[best] = true
	}
	var out []*Field
	for i, c := range cands {
		if keep[i] {
			out = append(out, c.field)
		}
	}
	return out, ok
}

// conflictPos is where two fields of one JSON name in st are reported: at
// the second one's embedded field of st, when they come through different
// embedded fields (the embedding makes the conflict, and the fields may be
// declared in another package), else at the second field itself.
func (b *builder) conflictPos(st *types.Struct, first, second *Field) token.Position {
	if len(second.Path) == 0 || len(first.Path) > 0 && first.Path[0].GoName == second.Path[0].GoName {
		return second.Pos
	}
	for i := range st.NumFields() {
		if v := st.Field(i); v.Embedded() && v.Name() == second.Path[0].GoName {
			return b.fset.Position(b.fieldPos(v, b.fieldSyntax(v)))
		}
	}
	return second.Pos
}

// fieldPath spells a field with the embedded fields leading to it.
func fieldPath(f *Field) string {
	var parts []string
	for _, e := range f.Path {
		parts = append(parts, e.GoName)
	}
	return strings.Join(append(parts, f.GoName), ".")
}

// collectFields appends the candidate fields of st, recursing into embedded
// structs, and reports tag and type problems.
func (b *builder) collectFields(st *types.Struct, at site, depth int, via []Embedded, out *[]candidate, visiting map[*types.Struct]bool) bool {
	if visiting[st] {
		return true
	}
	visiting[st] = true
	defer delete(visiting, st)
	ok := true
	for i := range st.NumFields() {
		v := st.Field(i)
		syn := b.fieldSyntax(v)
		vpos := b.fieldPos(v, syn)
		tag, tagOK := b.parseTag(st.Tag(i), syn, vpos)
		if !tagOK {
			ok = false
		}
		if tag.JSON.Skip && tag.Schema.Present && !tag.Schema.Skip {
			b.diags.errorf(vpos, "%s: field %s is skipped with json:\"-\", so its jsonschema tag has no effect; remove the jsonschema tag, or give the field a json name", at.path, v.Name())
			ok = false
		}
		if tag.JSON.Skip || tag.Schema.Skip {
			continue
		}
		if v.Embedded() && tag.JSON.Name == "" {
			ft := types.Unalias(v.Type())
			ptr := false
			if p, isPtr := ft.(*types.Pointer); isPtr {
				ft, ptr = types.Unalias(p.Elem()), true
			}
			if est, isStruct := ft.Underlying().(*types.Struct); isStruct {
				if ptr && !v.Exported() {
					b.diags.errorf(vpos, "%s: embedded pointer to unexported struct %s cannot be filled by a decoder; embed it by value or export it", at.path, b.typeString(ft))
					ok = false
					continue
				}
				emb := Embedded{GoName: v.Name(), Pointer: ptr}
				if n, isNamed := ft.(*types.Named); isNamed && n.Obj().Pkg() != nil {
					emb.Type = GoIdent{ImportPath: n.Obj().Pkg().Path(), Name: n.Obj().Name()}
				}
				if n, isNamed := ft.(*types.Named); isNamed {
					if d := b.typeDirectivesOf(n.Obj()); d != nil && d.open {
						b.diags.errorf(vpos, "%s: embedded struct %s is //toolgen:open, but its fields are flattened into the enclosing object; give the field a json name to keep it a nested open object", at.path, b.typeString(ft))
						ok = false
					}
				}
				if tag.Schema.Present {
					b.diags.errorf(vpos, "%s: the jsonschema tag of embedded struct %s has no effect, because its fields are flattened into the enclosing object; move the options to its fields, or give the field a json name to keep it a nested object", at.path, b.typeString(ft))
					ok = false
				}
				if !b.collectFields(est, at, depth+1, append(slices.Clone(via), emb), out, visiting) {
					ok = false
				}
				continue
			}
			if !v.Exported() {
				ok = b.checkUnexported(v, tag, at, vpos) && ok
				continue
			}
		} else if !v.Exported() {
			ok = b.checkUnexported(v, tag, at, vpos) && ok
			continue
		}
		name := v.Name()
		if tag.JSON.Name != "" {
			name = tag.JSON.Name
		}
		fs := at.field(v.Name(), vpos)
		ft, tok := b.mapType(v.Type(), fs, false)
		if !tok {
			ok = false
			continue
		}
		f := &Field{
			Name:      name,
			GoName:    v.Name(),
			Path:      via,
			Required:  !(tag.JSON.OmitEmpty || tag.JSON.OmitZero) || tag.Schema.Required,
			OmitEmpty: tag.JSON.OmitEmpty,
			OmitZero:  tag.JSON.OmitZero,
			Nullable:  tag.Schema.Nullable,
			Type:      ft,
			Pos:       b.fset.Position(vpos),
		}
		schema, sok := b.fieldSchema(ft, tag, gosrc.FieldDoc(syn), fs, syn)
		if !sok {
			ok = false
			continue
		}
		f.Schema = schema
		*out = append(*out, candidate{field: f, depth: depth, tagged: tag.JSON.Name != ""})
	}
	return ok
}

// checkUnexported reports an unexported field with a json or jsonschema
// tag: encoding/json ignores unexported fields, so the tag would be
// silently lost.
func (b *builder) checkUnexported(v *types.Var, tag annotations.Field, at site, pos token.Pos) bool {
	key := "json"
	switch {
	case tag.JSON.Present:
	case tag.Schema.Present:
		key = "jsonschema"
	default:
		return true
	}
	b.diags.errorf(pos, "%s: unexported field %s has a %s tag, but encoding/json ignores unexported fields; export the field, or remove the tag", at.path, v.Name(), key)
	return false
}

// fieldPos is the position of a struct field's name (of its type, for an
// embedded field) in its syntax when that is available: the positions of
// packages loaded from export data keep their lines but not always their
// columns.
func (b *builder) fieldPos(v *types.Var, syn *ast.Field) token.Pos {
	if syn == nil {
		return v.Pos()
	}
	for _, name := range syn.Names {
		if name.Name == v.Name() {
			return name.Pos()
		}
	}
	if id := gosrc.EmbeddedIdent(syn.Type); len(syn.Names) == 0 && id != nil && id.Name == v.Name() {
		return id.Pos()
	}
	return v.Pos()
}

// parseTag parses a field's tag, reporting problems at their place in the
// tag literal when the source is available.
func (b *builder) parseTag(tag string, syn *ast.Field, fallback token.Pos) (annotations.Field, bool) {
	f, errs := annotations.ParseTag(tag)
	for _, e := range errs {
		b.diags.errorf(b.tagPos(syn, e.Offset, fallback), "%s", e.Message)
	}
	return f, len(errs) == 0
}

// tagPos converts an offset into a tag's text to a position in its literal.
func (b *builder) tagPos(syn *ast.Field, offset int, fallback token.Pos) token.Pos {
	if syn == nil || syn.Tag == nil {
		return fallback
	}
	if strings.HasPrefix(syn.Tag.Value, "`") {
		return syn.Tag.Pos() + 1 + token.Pos(offset)
	}
	return syn.Tag.Pos()
}

// fieldSchema applies a field's annotations to its type's schema: title,
// description (the tag's, else the doc comment), enum, const, default and
// examples, then nullability.
func (b *builder) fieldSchema(ft *Type, tag annotations.Field, doc string, at site, syn *ast.Field) (*schemasubset.Node, bool) {
	s := ft.Schema
	st := tag.Schema
	ok := true
	bad := func(v annotations.Value, format string, args ...any) {
		b.diags.errorf(b.tagPos(syn, v.Offset, at.pos), "%s: "+format, append([]any{at.path}, args...)...)
		ok = false
	}
	scalar := func(v annotations.Value, key string, t schemasubset.Type) (jsonvalue.Value, bool) {
		val, err := annotations.ScalarJSON(v.Text, t)
		if err != nil {
			bad(v, "jsonschema %s: %v", key, err)
			return nil, false
		}
		gt := ft
		if key == "enum=" && ft.Kind == KindSlice && ft.Elem != nil {
			gt = ft.Elem
		}
		if why := outOfGoRange(val, gt); why != "" {
			bad(v, "jsonschema %s: %s", key, why)
			return nil, false
		}
		return val, true
	}
	if st.Title.Set {
		s = s.WithTitle(st.Title.Text)
	}
	desc := doc
	if st.Description.Set {
		desc = st.Description.Text
	}
	if desc != "" {
		s = s.WithDescription(desc)
	}
	if st.Default.Set {
		if v, vok := scalar(st.Default, "default=", s.Type()); vok {
			s = s.WithDefault(v)
		}
	}
	if len(st.Examples) > 0 {
		items := make([]string, 0, len(st.Examples))
		for _, e := range st.Examples {
			if v, vok := scalar(e, "example=", s.Type()); vok {
				items = append(items, string(v))
			}
		}
		if len(items) == len(st.Examples) {
			s = s.WithExamples(jsonvalue.Value("[" + strings.Join(items, ",") + "]"))
		}
	}
	if len(st.Enum) > 0 {
		target := s
		if ft.Kind == KindSlice && ft.Elem != nil {
			target = ft.Elem.Schema
		}
		if len(enumOf(ft)) > 0 {
			bad(st.Enum[0], "type %s already takes its enum from its constants; drop the enum= options or use a plain %s field", enumOwner(ft), target.Type())
		} else {
			var vals []jsonvalue.Value
			for _, e := range st.Enum {
				if v, vok := scalar(e, "enum=", target.Type()); vok {
					vals = append(vals, v)
				}
			}
			if len(vals) == len(st.Enum) {
				if target != s {
					s = s.WithItems(target.WithEnum(vals...))
				} else {
					s = s.WithEnum(vals...)
				}
			}
		}
	}
	noConst := s // for checking the other values when the const is wrong
	if st.Const.Set {
		if v, vok := scalar(st.Const, "const=", s.Type()); vok {
			s = s.WithConst(v)
		}
	}
	if err := schemasubset.AssertSupported(s); err != nil {
		b.diags.errorf(at.pos, "%s: the field's schema breaks the subset: %v", at.path, err)
		return nil, false
	}
	// A const, default or example that the field's own schema rejects
	// (one outside its enum) tells a model of a value it cannot send.
	against := s
	conforms := func(v annotations.Value, key string, val jsonvalue.Value) bool {
		var ve *schemasubset.ValidationError
		if err := schemasubset.Validate(against, val); errors.As(err, &ve) {
			bad(v, "jsonschema %s%s does not match the field's own schema: %s", key, v.Text, ve.Message)
			return false
		}
		return true
	}
	if c, has := s.Const(); has && st.Const.Set && !conforms(st.Const, "const=", c) {
		// A wrong const is one mistake: check the other values against
		// the schema without it.
		against = noConst
	}
	if d := s.Default(); d != nil && st.Default.Set {
		conforms(st.Default, "default=", d)
	}
	if s.Examples() != nil {
		for _, e := range st.Examples {
			if v, err := annotations.ScalarJSON(e.Text, s.Type()); err == nil {
				conforms(e, "example=", v)
			}
		}
	}
	if st.Nullable {
		if schemasubset.Validate(s, jsonvalue.Null()) == nil {
			b.diags.errorf(b.tagPos(syn, st.NullableOffset, at.pos), "%s: jsonschema nullable: the field's schema already accepts null; drop nullable", at.path)
			return nil, false
		}
		s = schemasubset.Nullable(s)
	}
	return s, ok
}

// outOfGoRange says why a number value of a tag does not fit the Go
// integer or float type it would decode into (behind any pointers), so
// that the schema never offers a value the decoder rejects; "" when it
// fits.
func outOfGoRange(val jsonvalue.Value, t *Type) string {
	for t != nil && t.Kind == KindPointer {
		t = t.Elem
	}
	if t == nil {
		return ""
	}
	text := string(val)
	switch t.Kind {
	case KindInt, KindUint:
		n, ok := new(big.Int).SetString(text, 10)
		if !ok {
			return ""
		}
		bits := t.Bits
		if bits == 0 {
			bits = 64
		}
		lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), uint(bits))
		if t.Kind == KindInt {
			hi.Rsh(hi, 1)
			lo.Neg(hi)
		}
		hi.Sub(hi, big.NewInt(1))
		if n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
			return fmt.Sprintf("%s does not fit %s, which holds %s to %s; give a value in that range or use a wider type", text, t.GoString, lo, hi)
		}
	case KindFloat:
		if _, err := strconv.ParseFloat(text, t.Bits); err != nil {
			return fmt.Sprintf("%s overflows %s; give a smaller value or use a wider type", text, t.GoString)
		}
	}
	return ""
}

// enumOf returns the constants enum of a type or of the element of a slice
// or pointer.
func enumOf(t *Type) []EnumConst {
	for t != nil && (t.Kind == KindSlice || t.Kind == KindPointer) {
		t = t.Elem
	}
	if t == nil {
		return nil
	}
	return t.Enum
}

// enumOwner names the type whose constants give the enum.
func enumOwner(t *Type) string {
	for t != nil && (t.Kind == KindSlice || t.Kind == KindPointer) {
		t = t.Elem
	}
	return t.GoString
}
