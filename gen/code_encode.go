package gen

import (
	"slices"

	"github.com/dave/jennifer/jen"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgen-go/toolgen/schemasubset"
)

// Output encoders append the canonical JSON of a Go value as encoding/json
// would write it (field names and order, omitempty, omitzero, embedded
// structs, Marshal methods), with two deliberate differences: a nil slice
// is written as [] (as encoding/json/v2 does), because an array schema
// never accepts the null encoding/json writes; and a string that is not
// UTF-8 fails instead of being repaired. Enum and const are checked by the
// generated output validator the runtime runs on every value.

// encode returns statements that append the value of the addressable
// expression src, of type t, to dst; a failure returns from the helper
// with the error located at step.
func (c *coder) encode(f *fn, t *Type, src string, step jen.Code) []jen.Code {
	wrap := func(errExpr jen.Code) jen.Code {
		return jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("dst"), jv("Within").Call(step, errExpr)))
	}
	switch t.Kind {
	case KindString:
		return []jen.Code{
			jen.List(jen.Id("dst"), jen.Err()).Op("=").Add(jv("AppendString")).Call(jen.Id("dst"), jen.String().Call(jen.Id(src))),
			wrap(jen.Err()),
		}
	case KindBool:
		return []jen.Code{jen.Id("dst").Op("=").Qual("strconv", "AppendBool").Call(jen.Id("dst"), jen.Bool().Call(jen.Id(src)))}
	case KindInt:
		return []jen.Code{jen.Id("dst").Op("=").Qual("strconv", "AppendInt").Call(jen.Id("dst"), jen.Int64().Call(jen.Id(src)), jen.Lit(10))}
	case KindUint:
		return []jen.Code{jen.Id("dst").Op("=").Qual("strconv", "AppendUint").Call(jen.Id("dst"), jen.Uint64().Call(jen.Id(src)), jen.Lit(10))}
	case KindFloat:
		return []jen.Code{
			jen.List(jen.Id("dst"), jen.Err()).Op("=").Add(jv("AppendFloat")).Call(jen.Id("dst"), jen.Float64().Call(jen.Id(src)), jen.Lit(t.Bits)),
			wrap(jen.Err()),
		}
	case KindNumber:
		return []jen.Code{
			jen.List(jen.Id("dst"), jen.Err()).Op("=").Add(jv("AppendNumber")).Call(jen.Id("dst"), jen.String().Call(jen.Id(src))),
			wrap(jen.Err()),
		}
	case KindRaw:
		return []jen.Code{jen.Id("dst").Op("=").Add(jv("AppendRaw")).Call(jen.Id("dst"), jen.Index().Byte().Call(jen.Id(src)))}
	case KindTime:
		return []jen.Code{
			jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.LitRune('"')),
			jen.List(jen.Id("dst"), jen.Err()).Op("=").Id(src).Dot("AppendText").Call(jen.Id("dst")),
			wrap(jen.Err()),
			jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.LitRune('"')),
		}
	case KindText, KindCustom:
		b := f.v("b")
		switch {
		case t.Kind == KindCustom && t.MarshalJSON:
			return []jen.Code{
				jen.List(jen.Id(b), jen.Err()).Op(":=").Id(src).Dot("MarshalJSON").Call(),
				wrap(jen.Err()),
				jen.Id("dst").Op("=").Add(jv("AppendRaw")).Call(jen.Id("dst"), jen.Id(b)),
			}
		case t.MarshalText:
			return []jen.Code{
				jen.List(jen.Id(b), jen.Err()).Op(":=").Id(src).Dot("MarshalText").Call(),
				wrap(jen.Err()),
				jen.List(jen.Id("dst"), jen.Err()).Op("=").Add(jv("AppendString")).Call(jen.Id("dst"), jen.String().Call(jen.Id(b))),
				wrap(jen.Err()),
			}
		}
		want := "a MarshalText method"
		if t.Kind == KindCustom {
			want = "a MarshalJSON or MarshalText method"
		}
		c.failf("output type %s is decoded through its Unmarshal method but lacks %s, so encoding/json would not write what its schema says; add one", t.GoString, want)
		return nil
	case KindStruct:
		name := c.structEncoder(t)
		ptr := addressOf(src)
		return []jen.Code{
			jen.List(jen.Id("dst"), jen.Err()).Op("=").Id(name).Call(jen.Id("dst"), ptr),
			wrap(jen.Err()),
		}
	case KindPointer:
		return []jen.Code{jen.If(jen.Id(src).Op("==").Nil()).Block(
			jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Lit("null").Op("...")),
		).Else().Block(c.encode(f, t.Elem, "(*"+src+")", step)...)}
	case KindSlice:
		i := f.v("i")
		elemStep := jen.Add(step).Op("+").Lit("/").Op("+").Qual("strconv", "Itoa").Call(jen.Id(i))
		body := []jen.Code{jen.If(jen.Id(i).Op(">").Lit(0)).Block(jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.LitRune(',')))}
		body = append(body, c.encode(f, t.Elem, src+"["+i+"]", elemStep)...)
		return []jen.Code{
			jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.LitRune('[')),
			jen.For(jen.Id(i).Op(":=").Range().Id(src)).Block(body...),
			jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.LitRune(']')),
		}
	case KindOneOf:
		x := f.v("x")
		cases := []jen.Code{jen.Case(jen.Nil()).Block(jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Lit("null").Op("...")))}
		for _, vr := range t.Variants {
			if vr.Pointer {
				cases = append(cases, jen.Case(jen.Op("*").Add(typeExpr(vr.Type))).Block(
					jen.If(jen.Id(x).Op("==").Nil()).Block(
						jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Lit("null").Op("...")),
					).Else().Block(c.encode(f, vr.Type, "(*"+x+")", step)...),
				))
			} else {
				cases = append(cases, jen.Case(typeExpr(vr.Type)).Block(c.encode(f, vr.Type, x, step)...))
			}
		}
		cases = append(cases, jen.Default().Block(jen.Return(jen.Id("dst"), jv("Within").Call(step, jv("ErrNotAVariant")))))
		return []jen.Code{jen.Switch(jen.Id(x).Op(":=").Id(src).Assert(jen.Type())).Block(cases...)}
	}
	c.failf("no encoder for %s (%s)", t.GoString, t.Kind)
	return nil
}

// structEncoder returns the helper that appends struct t as an object.
func (c *coder) structEncoder(t *Type) string {
	type key struct{ t *Type }
	return c.helper(key{t}, "encode"+typeBase(t), func(name string) jen.Code {
		f := &fn{}
		body := []jen.Code{
			jen.Var().Err().Error(),
			jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.LitRune('{')),
		}
		// written: 0 while no member can have been written, 1 when one may
		// have been (the "more" variable knows), 2 when one has been.
		written, usesMore := 0, false
		var members []jen.Code
		for _, fd := range t.Fields {
			src := "v"
			var guards []jen.Code
			for _, e := range fd.Path {
				src += "." + e.GoName
				if e.Pointer {
					guards = append(guards, jen.Id(src).Op("!=").Nil())
				}
			}
			src += "." + fd.GoName
			if cond := c.omitted(fd, src); cond != nil {
				guards = append(guards, jen.Op("!").Parens(cond))
			}
			nameLit, _ := jsontext.AppendQuote(nil, fd.Name)
			var write []jen.Code
			switch written {
			case 0:
				write = append(write, jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Lit(string(nameLit)+":").Op("...")))
			case 1:
				write = append(write,
					jen.If(jen.Id("more")).Block(jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.LitRune(','))),
					jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Lit(string(nameLit)+":").Op("...")))
			case 2:
				write = append(write, jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Lit(","+string(nameLit)+":").Op("...")))
			}
			write = append(write, c.encode(f, fd.Type, src, jen.Lit("/"+pointerToken(fd.Name)))...)
			if len(guards) == 0 {
				members = append(members, write...)
				written = 2
				continue
			}
			if written < 2 {
				usesMore = true
				write = append(write, jen.Id("more").Op("=").True())
				written = 1
			}
			cond := guards[0]
			for _, g := range guards[1:] {
				cond = jen.Add(cond).Op("&&").Add(g)
			}
			members = append(members, jen.If(cond).Block(write...))
		}
		if usesMore {
			body = append(body, jen.Id("more").Op(":=").False())
		}
		body = append(body, members...)
		if usesMore {
			body = append(body, jen.Id("_").Op("=").Id("more"))
		}
		body = append(body,
			jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.LitRune('}')),
			jen.Return(jen.Id("dst"), jen.Err()),
		)
		return jen.Commentf("%s appends a %s as a JSON object.", name, t.GoString).Line().
			Func().Id(name).Params(jen.Id("dst").Index().Byte(), jen.Id("v").Op("*").Add(typeExpr(t))).Params(jen.Index().Byte(), jen.Error()).Block(body...)
	})
}

// omitted is the condition under which encoding/json leaves field fd out,
// or nil when it always writes it.
func (c *coder) omitted(fd *Field, src string) jen.Code {
	t := fd.Type
	var conds []jen.Code
	if fd.OmitEmpty {
		switch t.Kind {
		case KindString, KindNumber:
			conds = append(conds, jen.Id(src).Op("==").Lit(""))
		case KindBool:
			conds = append(conds, jen.Op("!").Id(src))
		case KindInt, KindUint, KindFloat:
			conds = append(conds, jen.Id(src).Op("==").Lit(0))
		case KindSlice, KindRaw:
			conds = append(conds, jen.Len(jen.Id(src)).Op("==").Lit(0))
		case KindPointer, KindOneOf:
			conds = append(conds, jen.Id(src).Op("==").Nil())
		}
	}
	if fd.OmitZero {
		switch {
		case t.Kind == KindPointer || t.Kind == KindOneOf:
			conds = append(conds, jen.Id(src).Op("==").Nil())
		case t.IsZeroMethod:
			conds = append(conds, jen.Id(src).Dot("IsZero").Call())
		case t.Kind == KindString || t.Kind == KindNumber:
			conds = append(conds, jen.Id(src).Op("==").Lit(""))
		case t.Kind == KindBool:
			conds = append(conds, jen.Op("!").Id(src))
		case t.Kind == KindInt || t.Kind == KindUint || t.Kind == KindFloat:
			conds = append(conds, jen.Id(src).Op("==").Lit(0))
		case t.Kind == KindSlice || t.Kind == KindRaw:
			conds = append(conds, jen.Id(src).Op("==").Nil())
		case t.Comparable:
			conds = append(conds, jen.Id(src).Op("==").Parens(jen.Add(typeExpr(t)).Values()))
		default:
			c.failf("field %s (%s): omitzero on %s, which is not comparable and has no IsZero method, is not supported by the generated encoder; add an IsZero() bool method or use a pointer", fd.GoName, fd.Pos, t.GoString)
		}
	}
	switch len(conds) {
	case 0:
		return nil
	case 1:
		return conds[0]
	}
	return jen.Add(conds[0]).Op("||").Add(conds[1])
}

// pointerToken escapes a member name as a JSON Pointer reference token.
func pointerToken(name string) string {
	out := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '~':
			out = append(out, "~0"...)
		case '/':
			out = append(out, "~1"...)
		default:
			out = append(out, name[i])
		}
	}
	return string(out)
}

// staticallyValid reports whether every value the encoder writes for t is
// valid against n by construction, so that the generated adapter can tell
// the runtime not to validate it again: it holds for shapes without enum,
// const, oneOf, custom wire forms, pointers that may write a forbidden
// null, or required fields that omitempty or a nil embedded pointer may
// leave out.
func staticallyValid(t *Type, n *schemasubset.Node) bool {
	if n == nil {
		n = schemasubset.Any()
	}
	if br := n.OneOf(); t.Kind != KindOneOf && len(br) == 2 && br[1].Type() == schemasubset.TypeNull && n.Type() == schemasubset.TypeAny {
		if t.Kind == KindPointer {
			return staticallyValid(t.Elem, br[0])
		}
		return staticallyValid(t, br[0])
	}
	if hasValueChecks(n) || len(n.OneOf()) > 0 {
		return false
	}
	typ := n.Type()
	switch t.Kind {
	case KindString, KindTime, KindText:
		return typ == schemasubset.TypeString || n.AcceptsAnything()
	case KindBool:
		return typ == schemasubset.TypeBoolean || n.AcceptsAnything()
	case KindInt, KindUint:
		return typ == schemasubset.TypeInteger || typ == schemasubset.TypeNumber || n.AcceptsAnything()
	case KindFloat, KindNumber:
		return typ == schemasubset.TypeNumber || n.AcceptsAnything()
	case KindRaw:
		return n.AcceptsAnything()
	case KindSlice:
		if typ != schemasubset.TypeArray && !n.AcceptsAnything() {
			return false
		}
		return staticallyValid(t.Elem, n.Items())
	case KindStruct:
		if typ != schemasubset.TypeObject {
			return false
		}
		for _, f := range t.Fields {
			if f.Required && (f.OmitEmpty || f.OmitZero || slices.ContainsFunc(f.Path, func(e Embedded) bool { return e.Pointer })) {
				return false
			}
			if n.Property(f.Name) == nil || !staticallyValid(f.Type, f.Schema) {
				return false
			}
		}
		return true
	}
	return false // pointers (nil writes null), oneOf, custom wire forms
}
