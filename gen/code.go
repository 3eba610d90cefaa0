package gen

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// coder emits the run-time code of one generated file: decoders that read
// a jsonvalue.Reader straight into Go values while enforcing the schema,
// schema-only checkers (for oneOf branches, //toolgen:schema types and
// output validation) and output encoders. Each helper function is emitted
// once, named in the order it is first needed, so the output is
// deterministic.
//
// A decoder records only the rule and byte offset of a violation; the
// entry points pass the reader's error through schemasubset.Locate, which
// finds the paths and message Validate would report, so the straight-line
// code never builds paths.
type coder struct {
	decls []jen.Code
	names map[any]string
	used  map[string]bool
	// checks counts the schema-only checkers, which are named by number.
	checks int
	// tool is the tool being emitted, for positioned errors.
	tool *Tool
	err  error
}

func newCoder() *coder {
	return &coder{names: map[any]string{}, used: map[string]bool{}}
}

// fn is the state of one function being emitted: a counter that keeps
// local names unique.
type fn struct{ n int }

func (f *fn) v(base string) string {
	f.n++
	return base + strconv.Itoa(f.n)
}

// failf records the first emission problem, at the position of the tool
// being emitted; the file is not written.
func (c *coder) failf(format string, args ...any) {
	if c.err == nil {
		msg := fmt.Sprintf(format, args...)
		if c.tool != nil {
			msg = fmt.Sprintf("%s: toolgen: tool %s: %s", c.tool.Pos, c.tool.Name, msg)
		} else {
			msg = "toolgen: " + msg
		}
		c.err = errors.New(msg)
	}
}

// helper returns the name of the helper function for key, emitting it with
// build the first time; base names it.
func (c *coder) helper(key any, base string, build func(name string) jen.Code) string {
	if name, ok := c.names[key]; ok {
		return name
	}
	name := prefix + base
	for i := 2; c.used[name]; i++ {
		name = prefix + base + strconv.Itoa(i)
	}
	c.used[name] = true
	c.names[key] = name
	decl := build(name)
	c.decls = append(c.decls, jen.Line(), decl)
	return name
}

func jv(name string) *jen.Statement { return jen.Qual(jsonvaluePath, name) }
func ss(name string) *jen.Statement { return jen.Qual(schemaPath, name) }

// reader is the *jsonvalue.Reader every helper takes.
var readerParam = jen.Id("r").Op("*").Qual(jsonvaluePath, "Reader")

// fail is r.Fail(schemasubset.Violation(rule, at)).
func fail(rule string, at string) jen.Code {
	return jen.Id("r").Dot("Fail").Call(ss("Violation").Call(ss(rule), jen.Id(at)))
}

// quotedText returns the canonical escaped text (between the quotes) of a
// JSON string value.
func quotedText(v jsonvalue.Value) string { return string(v[1 : len(v)-1]) }

// nameText returns a member name's canonical escaped text, as
// Reader.NextName returns it.
func nameText(name string) string {
	q, err := jsontext.AppendQuote(nil, name)
	if err != nil {
		return name
	}
	return string(q[1 : len(q)-1])
}

// ---- decoders ----

// decode returns statements that read the next value, against schema n,
// into the addressable Go expression target of type t.
func (c *coder) decode(f *fn, t *Type, n *schemasubset.Node, target string) []jen.Code {
	if n == nil {
		n = schemasubset.Any()
	}
	if t.Kind != KindOneOf && isNullable(n) {
		// A sealed interface's own oneOf can look like this too, so a
		// nullable one is recognized by its field (structDecoder).
		return c.decodeNullable(f, t, n, target)
	}
	switch t.Kind {
	case KindPointer:
		p := f.v("p")
		out := []jen.Code{jen.Id(p).Op(":=").New(typeExpr(t.Elem))}
		out = append(out, c.decode(f, t.Elem, n, "(*"+p+")")...)
		return append(out, jen.Id(target).Op("=").Id(p))
	case KindString:
		q := f.v("q")
		out := c.quoted(f, n, q)
		return append(out, jen.Id(target).Op("=").Add(convert(t, jv("Unescape").Call(jen.Id(q)))))
	case KindBool:
		b, out := c.readBool(f, n)
		return append(out, jen.Id(target).Op("=").Add(convert(t, jen.Id(b))))
	case KindInt, KindUint:
		return c.decodeInteger(f, t, n, target)
	case KindFloat:
		out, at := c.numberChecks(f, n)
		_ = at
		x := jen.Id("r").Dot("ReadFloat").Call(jen.Lit(t.Bits))
		return append(out, jen.Id(target).Op("=").Add(typeExpr(t)).Call(x))
	case KindNumber:
		out, _ := c.numberChecks(f, n)
		return append(out, jen.Id(target).Op("=").Add(typeExpr(t)).Call(jen.Id("r").Dot("ReadNumber").Call()))
	case KindRaw:
		return []jen.Code{jen.Id(target).Op("=").Add(typeExpr(t)).Call(jen.Id("r").Dot("ReadValue").Call().Dot("Clone").Call())}
	case KindTime, KindText:
		q := f.v("q")
		at := f.v("at")
		out := []jen.Code{jen.Id(at).Op(":=").Id("r").Dot("Offset").Call()}
		out = append(out, c.quoted(f, n, q)...)
		return append(out, jen.If(jen.Id("r").Dot("Err").Call().Op("==").Nil()).Block(
			jen.If(jen.Err().Op(":=").Id(target).Dot("UnmarshalText").Call(jv("UnescapeBytes").Call(jen.Id(q))), jen.Err().Op("!=").Nil()).Block(
				jen.Id("r").Dot("Reject").Call(jen.Id(at), jen.Lit(t.GoString), jen.Err()),
			),
		))
	case KindCustom:
		return c.decodeCustom(f, t, target)
	case KindStruct:
		closed := true
		if allowed, present := n.AdditionalProperties(); !present || allowed {
			closed = false
		}
		name := c.structDecoder(t, closed)
		return []jen.Code{jen.Id(name).Call(jen.Id("r"), addressOf(target))}
	case KindSlice:
		return c.decodeSlice(f, t, n, target)
	case KindOneOf:
		return c.decodeOneOf(f, t, n, target)
	}
	c.failf("no decoder for %s (%s)", t.GoString, t.Kind)
	return nil
}

// convert converts x to t's Go type when t is named.
func convert(t *Type, x jen.Code) jen.Code {
	if t.Named.IsZero() {
		return x
	}
	return jen.Add(typeExpr(t)).Call(x)
}

func hasValueChecks(n *schemasubset.Node) bool {
	_, hasConst := n.Const()
	return hasConst || len(n.Enum()) > 0
}

// quoted reads a string's quoted text into q, checking the node's const
// and enum on the canonical text (both are canonical, so equal strings
// have equal bytes).
func (c *coder) quoted(f *fn, n *schemasubset.Node, q string) []jen.Code {
	var out []jen.Code
	at := ""
	if hasValueChecks(n) {
		at = f.v("at")
		out = append(out, jen.Id(at).Op(":=").Id("r").Dot("Offset").Call())
	}
	out = append(out, jen.Id(q).Op(":=").Id("r").Dot("ReadQuoted").Call())
	if cv, ok := n.Const(); ok {
		out = append(out, jen.If(jen.String().Call(jen.Id(q)).Op("!=").Add(constText(cv))).Block(fail("RuleConst", at)))
	}
	if vals := n.Enum(); len(vals) > 0 {
		var cases []jen.Code
		for _, v := range vals {
			if v.Kind() == jsonvalue.KindString {
				cases = append(cases, jen.Lit(quotedText(v)))
			}
		}
		if len(cases) == 0 {
			out = append(out, fail("RuleEnum", at))
		} else {
			out = append(out, jen.Switch(jen.String().Call(jen.Id(q))).Block(
				jen.Case(cases...),
				jen.Default().Block(fail("RuleEnum", at)),
			))
		}
	}
	return out
}

// constText is the text a string const is compared with: never equal
// when the const is not a string.
func constText(v jsonvalue.Value) jen.Code {
	if v.Kind() != jsonvalue.KindString {
		return jen.Lit("\x00not a string")
	}
	return jen.Lit(quotedText(v))
}

// readBool reads a boolean into a new variable, which it returns with the
// statements, checking the node's const and enum.
func (c *coder) readBool(f *fn, n *schemasubset.Node) (string, []jen.Code) {
	b := f.v("b")
	var out []jen.Code
	at := ""
	if hasValueChecks(n) {
		at = f.v("at")
		out = append(out, jen.Id(at).Op(":=").Id("r").Dot("Offset").Call())
	}
	out = append(out, jen.Id(b).Op(":=").Id("r").Dot("ReadBool").Call())
	return b, append(out, c.boolChecks(n, b, at)...)
}

func (c *coder) boolChecks(n *schemasubset.Node, b, at string) []jen.Code {
	var out []jen.Code
	if cv, ok := n.Const(); ok {
		switch cv.Kind() {
		case jsonvalue.KindTrue:
			out = append(out, jen.If(jen.Op("!").Id(b)).Block(fail("RuleConst", at)))
		case jsonvalue.KindFalse:
			out = append(out, jen.If(jen.Id(b)).Block(fail("RuleConst", at)))
		default:
			out = append(out, fail("RuleConst", at))
		}
	}
	if vals := n.Enum(); len(vals) > 0 {
		t, fl := false, false
		for _, v := range vals {
			t = t || v.Kind() == jsonvalue.KindTrue
			fl = fl || v.Kind() == jsonvalue.KindFalse
		}
		switch {
		case t && fl:
		case t:
			out = append(out, jen.If(jen.Op("!").Id(b)).Block(fail("RuleEnum", at)))
		case fl:
			out = append(out, jen.If(jen.Id(b)).Block(fail("RuleEnum", at)))
		default:
			out = append(out, fail("RuleEnum", at))
		}
	}
	return out
}

// numberChecks checks a number node's const and enum by exact decimal
// value on a probe, before the value is read (Validate's order: type, then
// const, then enum); a value of another kind is left to the read, which
// reports the type.
func (c *coder) numberChecks(f *fn, n *schemasubset.Node) ([]jen.Code, string) {
	if !hasValueChecks(n) {
		return nil, ""
	}
	at := f.v("at")
	text := f.v("text")
	p := f.v("p")
	body := []jen.Code{
		jen.Id(p).Op(":=").Id("r").Dot("Probe").Call(),
		jen.Id(text).Op(":=").Id(p).Dot("ReadNumber").Call(),
	}
	if n.Type() == schemasubset.TypeInteger {
		body[1] = jen.Id(text).Op(":=").Id(p).Dot("ReadInteger").Call()
		body = append(body, jen.If(jen.Id(p).Dot("Err").Call().Op("!=").Nil()).Block(jen.Id("r").Dot("Fail").Call(jen.Id(p).Dot("Err").Call())))
	}
	if cv, ok := n.Const(); ok {
		body = append(body, jen.If(jen.Id("r").Dot("Err").Call().Op("==").Nil().Op("&&").Op("!").Add(jv("NumberEqual").Call(jen.Id(text), jen.Index().Byte().Call(jen.Lit(string(cv)))))).Block(fail("RuleConst", at)))
	}
	if vals := n.Enum(); len(vals) > 0 {
		var cond jen.Code = jen.True()
		for i, v := range vals {
			eq := jen.Op("!").Add(jv("NumberEqual").Call(jen.Id(text), jen.Index().Byte().Call(jen.Lit(string(v)))))
			if i == 0 {
				cond = eq
			} else {
				cond = jen.Add(cond).Op("&&").Add(eq)
			}
		}
		body = append(body, jen.If(jen.Id("r").Dot("Err").Call().Op("==").Nil().Op("&&").Add(cond)).Block(fail("RuleEnum", at)))
	}
	return []jen.Code{
		jen.If(jen.Id(at).Op(":=").Id("r").Dot("Offset").Call(), jen.Id("r").Dot("Peek").Call().Op("==").Add(jv("KindNumber"))).Block(body...),
	}, at
}

// decodeInteger reads an integer of t's width: type (an integer, decided
// on the exact text), const and enum by value, then the Go range.
func (c *coder) decodeInteger(f *fn, t *Type, n *schemasubset.Node, target string) []jen.Code {
	at, x, fits := f.v("at"), f.v("x"), f.v("fits")
	read := "ReadInt"
	if t.Kind == KindUint {
		read = "ReadUint"
	}
	out := []jen.Code{
		jen.Id(at).Op(":=").Id("r").Dot("Offset").Call(),
		jen.List(jen.Id(x), jen.Id(fits)).Op(":=").Id("r").Dot(read).Call(),
	}
	literal := func(v jsonvalue.Value) (jen.Code, bool) {
		rat, ok := new(big.Rat).SetString(string(v))
		if !ok || !rat.IsInt() {
			return nil, false
		}
		num := rat.Num()
		if t.Kind == KindUint {
			if !num.IsUint64() {
				return nil, false
			}
			return jen.Lit(num.Uint64()), true
		}
		if !num.IsInt64() {
			return nil, false
		}
		return jen.Lit(num.Int64()), true
	}
	matchAny := func(vals []jsonvalue.Value) jen.Code {
		var cond jen.Code
		for _, v := range vals {
			lit, ok := literal(v)
			if !ok {
				continue // a value no integer of this type equals
			}
			eq := jen.Id(x).Op("==").Add(lit)
			if cond == nil {
				cond = eq
			} else {
				cond = jen.Add(cond).Op("||").Add(eq)
			}
		}
		if cond == nil {
			return jen.False()
		}
		return jen.Id(fits).Op("&&").Parens(cond)
	}
	if cv, ok := n.Const(); ok {
		out = append(out, jen.If(jen.Op("!").Parens(matchAny([]jsonvalue.Value{cv}))).Block(fail("RuleConst", at)))
	}
	if vals := n.Enum(); len(vals) > 0 {
		out = append(out, jen.If(jen.Op("!").Parens(matchAny(vals))).Block(fail("RuleEnum", at)))
	}
	outOfRange := jen.Op("!").Id(fits)
	switch {
	case t.Bits == 0 && t.Kind == KindUint:
		// uint and uintptr: as wide as the platform's words.
		outOfRange = jen.Op("!").Id(fits).Op("||").Id(x).Op(">").Qual("math", "MaxUint")
	case t.Bits == 0:
		outOfRange = jen.Op("!").Id(fits).Op("||").Id(x).Op("<").Qual("math", "MinInt").Op("||").Id(x).Op(">").Qual("math", "MaxInt")
	case t.Bits < 64:
		if t.Kind == KindUint {
			outOfRange = jen.Op("!").Id(fits).Op("||").Id(x).Op(">").Lit(uint64(1)<<t.Bits - 1)
		} else {
			outOfRange = jen.Op("!").Id(fits).Op("||").Id(x).Op("<").Lit(-int64(1) << (t.Bits - 1)).Op("||").Id(x).Op(">").Lit(int64(1)<<(t.Bits-1) - 1)
		}
	}
	goType := t.GoString
	if !t.Named.IsZero() {
		goType = fmt.Sprintf("%s (%s)", t.GoString, basicName(t))
	}
	out = append(out, jen.If(outOfRange).Block(jen.Id("r").Dot("Reject").Call(jen.Id(at), jen.Lit(goType), jen.Nil())))
	return append(out, jen.Id(target).Op("=").Add(typeExpr(t)).Call(jen.Id(x)))
}

// basicName is the predeclared name of an integer or float kind's width.
func basicName(t *Type) string {
	switch t.Kind {
	case KindInt:
		if t.Bits == 0 {
			return "int"
		}
		return "int" + strconv.Itoa(t.Bits)
	case KindUint:
		if t.Bits == 0 {
			return "uint"
		}
		return "uint" + strconv.Itoa(t.Bits)
	}
	return "float" + strconv.Itoa(t.Bits)
}

// decodeCustom checks a //toolgen:schema value against its declared schema,
// then hands it to the type's own method.
func (c *coder) decodeCustom(f *fn, t *Type, target string) []jen.Code {
	at, p := f.v("at"), f.v("p")
	check := c.checker(t.Schema)
	var read []jen.Code
	if t.UnmarshalJSON {
		read = []jen.Code{
			jen.If(jen.Err().Op(":=").Id(target).Dot("UnmarshalJSON").Call(jen.Id("r").Dot("ReadValue").Call()), jen.Err().Op("!=").Nil()).Block(
				jen.Id("r").Dot("Reject").Call(jen.Id(at), jen.Lit(t.GoString), jen.Err()),
			),
		}
	} else {
		// encoding/json calls UnmarshalText only for strings.
		read = []jen.Code{
			jen.If(jen.Id("r").Dot("Peek").Call().Op("!=").Add(jv("KindString"))).Block(
				jen.Id("r").Dot("Reject").Call(jen.Id(at), jen.Lit(t.GoString), jen.Nil()),
				jen.Return(),
			),
			jen.If(jen.Err().Op(":=").Id(target).Dot("UnmarshalText").Call(jv("UnescapeBytes").Call(jen.Id("r").Dot("ReadQuoted").Call())), jen.Err().Op("!=").Nil()).Block(
				jen.Id("r").Dot("Reject").Call(jen.Id(at), jen.Lit(t.GoString), jen.Err()),
			),
		}
	}
	return []jen.Code{jen.Func().Params().BlockFunc(func(g *jen.Group) {
		g.Id(at).Op(":=").Id("r").Dot("Offset").Call()
		g.Id(p).Op(":=").Id("r").Dot("Probe").Call()
		g.Id(check).Call(jen.Op("&").Id(p))
		g.If(jen.Id(p).Dot("Err").Call().Op("!=").Nil()).Block(
			jen.Id("r").Dot("Fail").Call(jen.Id(p).Dot("Err").Call()),
			jen.Return(),
		)
		for _, s := range read {
			g.Add(s)
		}
	}).Call()}
}

func (c *coder) decodeSlice(f *fn, t *Type, n *schemasubset.Node, target string) []jen.Code {
	count, s := f.v("n"), f.v("s")
	items := n.Items()
	elem := f.v("e")
	body := []jen.Code{
		jen.Var().Id(elem).Add(typeExpr(t.Elem)),
		jen.Id(s).Op("=").Append(jen.Id(s), jen.Id(elem)),
	}
	body = append(body, c.decode(f, t.Elem, items, s+"[len("+s+")-1]")...)
	return []jen.Code{
		jen.Id(count).Op(":=").Id("r").Dot("Elements").Call(),
		jen.If(jen.Id("r").Dot("BeginArray").Call()).Block(
			jen.Id(s).Op(":=").Make(typeExpr(t), jen.Lit(0), jen.Id(count)),
			jen.For(jen.Id("r").Dot("NextElement").Call()).Block(body...),
			jen.Id(target).Op("=").Id(s),
		),
	}
}

// isNullable reports whether n is the schema of a nullable field,
// oneOf [T, null].
func isNullable(n *schemasubset.Node) bool {
	return len(n.OneOf()) == 2 && n.OneOf()[1].Type() == schemasubset.TypeNull && n.Type() == schemasubset.TypeAny
}

// decodeNullable returns statements that decode the value of a nullable
// field, schema n = oneOf [T, null]: null leaves the zero value; any other
// value must match T, and a failure there is the oneOf's.
func (c *coder) decodeNullable(f *fn, t *Type, n *schemasubset.Node, target string) []jen.Code {
	at := f.v("at")
	inner := c.decode(f, t, n.OneOf()[0], target)
	inner = append(inner, jen.If(jen.Err().Op(":=").Id("r").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(
		jen.Id("r").Dot("SetErr").Call(ss("BranchFailure").Call(jen.Err(), jen.Id(at))),
	))
	return []jen.Code{
		jen.If(jen.Id(at).Op(":=").Id("r").Dot("Offset").Call(), jen.Id("r").Dot("Peek").Call().Op("==").Add(jv("KindNull"))).Block(
			jen.Id("r").Dot("ReadNull").Call(),
		).Else().Block(inner...),
	}
}

// decodeOneOf counts the branches a sealed interface's value matches with
// the schema-only checkers (exactly one must), then decodes that variant.
func (c *coder) decodeOneOf(f *fn, t *Type, n *schemasubset.Node, target string) []jen.Code {
	branches := n.OneOf()
	if len(branches) != len(t.Variants) {
		c.failf("%s: %d variants but %d oneOf branches", t.GoString, len(t.Variants), len(branches))
		return nil
	}
	at := f.v("at")
	out := []jen.Code{jen.Id(at).Op(":=").Id("r").Dot("Offset").Call()}
	first, second, probes := c.probe(f, branches)
	out = append(out, probes...)
	var cases []jen.Code
	cases = append(cases, jen.Case(jen.Id(first).Op("<").Lit(0).Op("||").Id(second).Op(">=").Lit(0)).Block(
		jen.Id("r").Dot("Fail").Call(ss("OneOfFailure").Call(jen.Id(at), jen.Id(first), jen.Id(second))),
	))
	for i, vr := range t.Variants {
		x := f.v("x")
		body := []jen.Code{jen.Var().Id(x).Add(typeExpr(vr.Type))}
		body = append(body, c.decode(f, vr.Type, branches[i], x)...)
		if vr.Pointer {
			body = append(body, jen.Id(target).Op("=").Op("&").Id(x))
		} else {
			body = append(body, jen.Id(target).Op("=").Id(x))
		}
		cases = append(cases, jen.Case(jen.Id(first).Op("==").Lit(i)).Block(body...))
	}
	return append(out, jen.Switch().Block(cases...))
}

// probe returns statements that try the next value against each oneOf
// branch with the schema-only checkers, without consuming it, and set the
// variables first and second to the first two matching branches (-1 when
// none), stopping at the second match as Validate does.
func (c *coder) probe(f *fn, branches []*schemasubset.Node) (first, second string, out []jen.Code) {
	first, second = f.v("first"), f.v("second")
	out = []jen.Code{jen.List(jen.Id(first), jen.Id(second)).Op(":=").List(jen.Lit(-1), jen.Lit(-1))}
	for i, br := range branches {
		check := c.checker(br)
		p := f.v("p")
		out = append(out, jen.If(jen.Id(second).Op("<").Lit(0)).Block(
			jen.Id(p).Op(":=").Id("r").Dot("Probe").Call(),
			jen.Id(check).Call(jen.Op("&").Id(p)),
			jen.If(jen.Id(p).Dot("Err").Call().Op("==").Nil().Op("&&").Id(first).Op("<").Lit(0)).Block(
				jen.Id(first).Op("=").Lit(i),
			).Else().If(jen.Id(p).Dot("Err").Call().Op("==").Nil()).Block(
				jen.Id(second).Op("=").Lit(i),
			),
		))
	}
	return first, second, out
}

// structDecoder returns the helper that decodes struct t, closed or open to
// unknown members.
func (c *coder) structDecoder(t *Type, closed bool) string {
	type key struct {
		t      *Type
		closed bool
	}
	base := "decode" + typeBase(t)
	if !closed {
		base += "Open"
	}
	return c.helper(key{t, closed}, base, func(name string) jen.Code {
		f := &fn{}
		schema := t.Schema
		required, _ := schema.Required()
		members := make([]member, len(t.Fields))
		for i, fd := range t.Fields {
			target := "out"
			var stmts []jen.Code
			for _, e := range fd.Path {
				target += "." + e.GoName
				if e.Pointer {
					stmts = append(stmts, jen.If(jen.Id(target).Op("==").Nil()).Block(jen.Id(target).Op("=").New(jen.Qual(e.Type.ImportPath, e.Type.Name))))
				}
			}
			decode := c.decode
			if fd.Nullable && fd.Type.Kind == KindOneOf {
				decode = c.decodeNullable
			}
			members[i] = member{name: fd.Name, read: append(stmts, decode(f, fd.Type, fd.Schema, target+"."+fd.GoName)...)}
		}
		body := objectBody(members, required, closed)
		return jen.Commentf("%s decodes a %s, checking it against its schema as it goes.", name, t.GoString).Line().
			Func().Id(name).Params(readerParam, jen.Id("out").Op("*").Add(typeExpr(t))).Block(body...)
	})
}

// requiredChecks reports the first required property, in required order,
// that the object did not have; it runs once the object closed cleanly.
func requiredChecks(required []string) []jen.Code {
	if len(required) == 0 {
		return nil
	}
	var checks []jen.Code
	for i, name := range required {
		checks = append(checks, jen.If(jen.Id("seen").Index(jen.Lit(i/64)).Op("&").Lit(uint64(1)<<(i%64)).Op("==").Lit(0)).Block(
			jen.Id("r").Dot("Fail").Call(ss("Missing").Call(jen.Id("at"), jen.Lit(name))),
			jen.Return(),
		))
	}
	return []jen.Code{jen.If(jen.Id("r").Dot("Err").Call().Op("==").Nil()).Block(checks...)}
}

// typeBase is a readable base for a helper's name.
func typeBase(t *Type) string {
	if !t.Named.IsZero() {
		return "_" + t.Named.Name
	}
	return "_struct"
}

// ---- schema-only checkers ----

// checker returns the helper that reads one value and checks it against
// n, with Validate's rules and order, keeping nothing.
func (c *coder) checker(n *schemasubset.Node) string {
	key := "check:" + n.String()
	if name, ok := c.names[key]; ok {
		return name
	}
	c.checks++
	return c.helper(key, "check"+strconv.Itoa(c.checks), func(name string) jen.Code {
		f := &fn{}
		return jen.Commentf("%s reads one value and checks it against the schema", name).Line().
			Commentf("%s.", n.String()).Line().
			Func().Id(name).Params(readerParam).Block(c.check(f, n)...)
	})
}

// check returns statements that read the next value and check it against
// n.
func (c *coder) check(f *fn, n *schemasubset.Node) []jen.Code {
	var out []jen.Code
	typ := n.Type()
	branches := n.OneOf()
	structural := false
	if props, has := n.Properties(); has || len(props) > 0 {
		structural = true
	}
	if _, has := n.Required(); has {
		structural = true
	}
	if _, has := n.AdditionalProperties(); has {
		structural = true
	}
	if n.Items() != nil {
		structural = true
	}
	if len(branches) > 0 || (hasValueChecks(n) && typ == schemasubset.TypeAny) {
		// Rare shapes (a typed node with oneOf, a //toolgen:schema of its
		// own making): check the kind first, then branches, then the rest.
		at := f.v("at")
		out = append(out, jen.Id(at).Op(":=").Id("r").Dot("Offset").Call())
		if typ != schemasubset.TypeAny {
			out = append(out, jen.If(jen.Op("!").Parens(kindFits(typ))).Block(fail("RuleType", at), jen.Return()))
		}
		if len(branches) > 0 {
			first, second, probes := c.probe(f, branches)
			out = append(out, probes...)
			// Validate checks const and enum before oneOf.
			vc := c.anyValueChecks(f, n, at)
			out = append(out, vc...)
			out = append(out, jen.If(jen.Id("r").Dot("Err").Call().Op("==").Nil().Op("&&").Parens(jen.Id(first).Op("<").Lit(0).Op("||").Id(second).Op(">=").Lit(0))).Block(
				jen.Id("r").Dot("Fail").Call(ss("OneOfFailure").Call(jen.Id(at), jen.Id(first), jen.Id(second))),
				jen.Return(),
			))
		} else {
			out = append(out, c.anyValueChecks(f, n, at)...)
		}
		if !structural || typ == schemasubset.TypeAny {
			return append(out, jen.Id("r").Dot("ReadValue").Call())
		}
	}
	switch typ {
	case schemasubset.TypeAny:
		return append(out, jen.Id("r").Dot("ReadValue").Call())
	case schemasubset.TypeString:
		q := f.v("q")
		out = append(out, c.quoted(f, n, q)...)
		return append(out, jen.Id("_").Op("=").Id(q))
	case schemasubset.TypeBoolean:
		b, read := c.readBool(f, n)
		out = append(out, read...)
		return append(out, jen.Id("_").Op("=").Id(b))
	case schemasubset.TypeNull:
		return append(out, jen.Id("r").Dot("ReadNull").Call())
	case schemasubset.TypeNumber, schemasubset.TypeInteger:
		checks, _ := c.numberChecks(f, n)
		out = append(out, checks...)
		if typ == schemasubset.TypeInteger {
			return append(out, jen.Id("r").Dot("ReadInteger").Call())
		}
		return append(out, jen.Id("r").Dot("ReadNumber").Call())
	case schemasubset.TypeArray:
		if n.Items() == nil {
			return append(out, jen.If(jen.Id("r").Dot("Peek").Call().Op("!=").Add(jv("KindArray"))).Block(
				jen.Id("r").Dot("BeginArray").Call(), jen.Return()),
				jen.Id("r").Dot("ReadValue").Call())
		}
		items := c.checker(n.Items())
		return append(out, jen.If(jen.Id("r").Dot("BeginArray").Call()).Block(
			jen.For(jen.Id("r").Dot("NextElement").Call()).Block(jen.Id(items).Call(jen.Id("r"))),
		))
	case schemasubset.TypeObject:
		return append(out, c.checkObject(f, n)...)
	}
	c.failf("no checker for schema %s", n.String())
	return nil
}

// anyValueChecks checks const and enum on a node of any type, on the
// value's exact text: numbers by value, other scalars by canonical text.
func (c *coder) anyValueChecks(f *fn, n *schemasubset.Node, at string) []jen.Code {
	if !hasValueChecks(n) {
		return nil
	}
	p, v := f.v("p"), f.v("v")
	match := func(vals []jsonvalue.Value) jen.Code {
		var cond jen.Code = jen.False()
		for i, val := range vals {
			var eq jen.Code
			if val.Kind() == jsonvalue.KindNumber {
				eq = jen.Id(v).Dot("Kind").Call().Op("==").Add(jv("KindNumber")).Op("&&").Add(jv("NumberEqual").Call(jen.Id(v), jen.Index().Byte().Call(jen.Lit(string(val)))))
			} else {
				eq = jen.String().Call(jen.Id(v)).Op("==").Lit(string(val))
			}
			if i == 0 {
				cond = eq
			} else {
				cond = jen.Add(cond).Op("||").Add(eq)
			}
		}
		return cond
	}
	out := []jen.Code{
		jen.Id(p).Op(":=").Id("r").Dot("Probe").Call(),
		jen.Id(v).Op(":=").Id(p).Dot("ReadValue").Call(),
	}
	if cv, ok := n.Const(); ok {
		out = append(out, jen.If(jen.Op("!").Parens(match([]jsonvalue.Value{cv}))).Block(fail("RuleConst", at), jen.Return()))
	}
	if vals := n.Enum(); len(vals) > 0 {
		out = append(out, jen.If(jen.Op("!").Parens(match(vals))).Block(fail("RuleEnum", at), jen.Return()))
	}
	return out
}

// kindFits is the condition that the next value's kind fits type t.
func kindFits(t schemasubset.Type) jen.Code {
	peek := jen.Id("r").Dot("Peek").Call()
	switch t {
	case schemasubset.TypeObject:
		return jen.Add(peek).Op("==").Add(jv("KindObject"))
	case schemasubset.TypeArray:
		return jen.Add(peek).Op("==").Add(jv("KindArray"))
	case schemasubset.TypeString:
		return jen.Add(peek).Op("==").Add(jv("KindString"))
	case schemasubset.TypeNumber, schemasubset.TypeInteger:
		return jen.Add(peek).Op("==").Add(jv("KindNumber"))
	case schemasubset.TypeBoolean:
		return jen.Add(peek).Op("==").Add(jv("KindTrue")).Op("||").Add(jen.Id("r").Dot("Peek").Call()).Op("==").Add(jv("KindFalse"))
	case schemasubset.TypeNull:
		return jen.Add(peek).Op("==").Add(jv("KindNull"))
	}
	return jen.True()
}

// checkObject checks an object node's members, additionalProperties and
// required.
func (c *coder) checkObject(f *fn, n *schemasubset.Node) []jen.Code {
	props, _ := n.Properties()
	required, _ := n.Required()
	allowed, present := n.AdditionalProperties()
	closed := present && !allowed
	if len(props) == 0 && len(required) == 0 && !closed {
		return []jen.Code{jen.If(jen.Id("r").Dot("Peek").Call().Op("!=").Add(jv("KindObject"))).Block(
			jen.Id("r").Dot("BeginObject").Call(), jen.Return()),
			jen.Id("r").Dot("ReadValue").Call()}
	}
	members := make([]member, len(props))
	for i, p := range props {
		members[i] = member{name: p.Name, read: []jen.Code{jen.Id(c.checker(p.Schema)).Call(jen.Id("r"))}}
	}
	return objectBody(members, required, closed)
}

// member is one property an object body reads, with the statements that
// read its value.
type member struct {
	name string
	read []jen.Code
}

// objectBody returns the statements of a helper that reads an object:
// its members in document order (unknown ones skipped, or refused when
// closed), then its required properties once it closed cleanly.
func objectBody(members []member, required []string, closed bool) []jen.Code {
	bit := map[string]int{}
	for i, r := range required {
		bit[r] = i
	}
	var body []jen.Code
	if len(required) > 0 {
		body = append(body, jen.Id("at").Op(":=").Id("r").Dot("Offset").Call())
	}
	body = append(body, jen.If(jen.Op("!").Id("r").Dot("BeginObject").Call()).Block(jen.Return()))
	if words := (len(required) + 63) / 64; words > 0 {
		body = append(body, jen.Var().Id("seen").Index(jen.Lit(words)).Uint64())
	}
	var cases []jen.Code
	for _, m := range members {
		stmts := m.read
		if i, ok := bit[m.name]; ok {
			stmts = append(stmts, jen.Id("seen").Index(jen.Lit(i/64)).Op("|=").Lit(uint64(1)<<(i%64)))
		}
		cases = append(cases, jen.Case(jen.Lit(nameText(m.name))).Block(stmts...))
	}
	if closed {
		cases = append(cases, jen.Default().Block(
			jen.Id("r").Dot("Fail").Call(ss("Extra").Call(jen.Id("r").Dot("Offset").Call(), jv("Unescape").Call(jen.Id("name")))),
			jen.Return(),
		))
	} else {
		cases = append(cases, jen.Default().Block(jen.Id("r").Dot("ReadValue").Call()))
	}
	body = append(body, jen.For().Block(
		jen.List(jen.Id("name"), jen.Id("ok")).Op(":=").Id("r").Dot("NextName").Call(),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Break()),
		jen.Switch(jen.String().Call(jen.Id("name"))).Block(cases...),
	))
	return append(body, requiredChecks(required)...)
}

// addressOf spells &target, simplifying &(*p) to p.
func addressOf(target string) jen.Code {
	if strings.HasPrefix(target, "(*") && strings.HasSuffix(target, ")") {
		return jen.Id(target[2 : len(target)-1])
	}
	return jen.Op("&").Id(target)
}
