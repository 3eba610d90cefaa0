package gen

import (
	"time"

	"github.com/dave/jennifer/jen"
)

// adapter returns the run-time declarations of tool t: its argument and
// output decoders, output encoder and validator, and the functions its
// ToolDefinition refers to. It returns the ToolDefinition literal that
// Tools lists.
func (c *coder) adapter(t *Tool) (decls []jen.Code, def jen.Code) {
	c.tool = t
	n := func(suffix string) string { return prefix + t.Func + "_" + suffix }
	schemaName, outputName := n("schema"), n("output")
	f := &fn{}

	// The argument decoder.
	argStmts := []jen.Code{
		jen.Var().Id("out").Add(typeExpr(t.Params)),
		jen.Var().Id("rd").Qual(jsonvaluePath, "Reader"),
		jen.Id("rd").Dot("Reset").Call(jen.Id("v")),
		jen.Id("r").Op(":=").Op("&").Id("rd"),
	}
	argStmts = append(argStmts, c.decode(f, t.Params, t.ParamsSchema, "out")...)
	argStmts = append(argStmts,
		jen.If(jen.Err().Op(":=").Id("r").Dot("Done").Call(), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Id("out"), ss("Locate").Call(jen.Err(), jen.Id(schemaName).Dot("Parameters"), jen.Id("v"))),
		),
		jen.Return(jen.Id("out"), jen.Nil()),
	)
	decls = append(decls, jen.Line(),
		jen.Commentf("%s decodes the arguments of %s, enforcing the parameter", n("decodeArgs"), t.Name).Line().
			Comment("schema while it fills the struct; a violation is reported as").Line().
			Comment("schemasubset.Validate reports it.").Line().
			Func().Id(n("decodeArgs")).Params(jen.Id("v").Qual(jsonvaluePath, "Value")).Params(typeExpr(t.Params), jen.Error()).Block(argStmts...))

	// The output validator.
	check := c.checker(t.OutputSchema)
	decls = append(decls, jen.Line(),
		jen.Commentf("%s checks a value against the output schema of %s.", n("validateOutput"), t.Name).Line().
			Func().Id(n("validateOutput")).Params(jen.Id("v").Qual(jsonvaluePath, "Value")).Error().Block(
			jen.Var().Id("r").Qual(jsonvaluePath, "Reader"),
			jen.Id("r").Dot("Reset").Call(jen.Id("v")),
			jen.Id(check).Call(jen.Op("&").Id("r")),
			jen.If(jen.Err().Op(":=").Id("r").Dot("Done").Call(), jen.Err().Op("!=").Nil()).Block(
				jen.Return(ss("Locate").Call(jen.Err(), jen.Id(outputName), jen.Id("v"))),
			),
			jen.Return(jen.Nil()),
		))

	// The output encoder.
	encStmts := []jen.Code{
		jen.Var().Err().Error(),
		jen.Id("dst").Op(":=").Make(jen.Index().Byte(), jen.Lit(0), jen.Lit(256)),
	}
	encStmts = append(encStmts, c.encode(f, t.Output, "(*v)", jen.Lit(""))...)
	encStmts = append(encStmts, jen.Return(jen.Id("dst"), jen.Err()))
	decls = append(decls, jen.Line(),
		jen.Commentf("%s writes an output of %s as canonical JSON.", n("encodeOutput"), t.Name).Line().
			Func().Id(n("encodeOutput")).Params(jen.Id("v").Op("*").Add(typeExpr(t.Output))).Params(jen.Index().Byte(), jen.Error()).Block(encStmts...))

	// The body.
	call := []jen.Code{jen.Id("ctx"), jen.Id("p")}
	if t.RunContext {
		call = append(call, jen.Id("rc"))
	}
	decls = append(decls, jen.Line(),
		jen.Commentf("%s runs one call of %s: decode, call %s, encode.", n("execute"), t.Name, t.Func).Line().
			Func().Id(n("execute")).Params(jen.Id("ctx").Qual(contextPath, "Context"), jen.Id("args").Qual(jsonvaluePath, "Value"), jen.Id("rc").Op("*").Qual(runtimePath, "RunContext")).Params(jen.Qual(jsonvaluePath, "Value"), jen.Error()).Block(
			jen.List(jen.Id("p"), jen.Err()).Op(":=").Id(n("decodeArgs")).Call(jen.Id("args")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), invalidArgs())),
			jen.List(jen.Id("o"), jen.Err()).Op(":=").Id(t.Func).Call(call...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.List(jen.Id("out"), jen.Err()).Op(":=").Id(n("encodeOutput")).Call(jen.Op("&").Id("o")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Op("&").Qual(runtimePath, "ToolError").Values(jen.Dict{
				jen.Id("Code"):    jen.Qual(runtimePath, "CodeInvalidToolOutput"),
				jen.Id("Message"): jen.Lit("invalid tool output: ").Op("+").Err().Dot("Error").Call(),
				jen.Id("Err"):     jen.Err(),
			}))),
			jen.Return(jen.Id("out"), jen.Nil()),
		))

	render, meta := jen.Id(prefix+"renderJSON"), jen.Code(nil)
	decodeOutput := func() string {
		name := n("decodeOutput")
		if c.used[name] {
			return name
		}
		c.used[name] = true
		g := &fn{}
		stmts := []jen.Code{
			jen.Var().Id("out").Add(typeExpr(t.Output)),
			jen.Var().Id("rd").Qual(jsonvaluePath, "Reader"),
			jen.Id("rd").Dot("Reset").Call(jen.Id("v")),
			jen.Id("r").Op(":=").Op("&").Id("rd"),
		}
		stmts = append(stmts, c.decode(g, t.Output, t.OutputSchema, "out")...)
		stmts = append(stmts,
			jen.If(jen.Err().Op(":=").Id("r").Dot("Done").Call(), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Id("out"), ss("Locate").Call(jen.Err(), jen.Id(outputName), jen.Id("v"))),
			),
			jen.Return(jen.Id("out"), jen.Nil()),
		)
		decls = append(decls, jen.Line(),
			jen.Commentf("%s decodes an output value of %s for its renderers.", name, t.Name).Line().
				Func().Id(name).Params(jen.Id("v").Qual(jsonvaluePath, "Value")).Params(typeExpr(t.Output), jen.Error()).Block(stmts...))
		return name
	}
	typed := func(hook, name string, result jen.Code, ret func(call jen.Code) jen.Code) {
		decls = append(decls, jen.Line(),
			jen.Commentf("%s calls %s with the decoded arguments and value.", prefix+t.Func+"_"+hook, name).Line().
				Func().Id(prefix+t.Func+"_"+hook).Params(jen.Id("args"), jen.Id("value").Qual(jsonvaluePath, "Value")).Params(result, jen.Error()).Block(
				jen.List(jen.Id("p"), jen.Err()).Op(":=").Id(n("decodeArgs")).Call(jen.Id("args")),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.List(jen.Id("o"), jen.Err()).Op(":=").Id(decodeOutput()).Call(jen.Id("value")),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				ret(jen.Id(name).Call(jen.Id("p"), jen.Id("o"))),
			))
	}
	if t.Render != "" {
		typed("render", t.Render, jen.Index().Qual(runtimePath, "ContentBlock"), func(call jen.Code) jen.Code { return jen.Return(call, jen.Nil()) })
		render = jen.Id(n("render"))
	}
	if t.Meta != "" {
		typed("meta", t.Meta, jen.Qual(jsonvaluePath, "Value"), func(call jen.Code) jen.Code { return jen.Return(call, jen.Nil()) })
		meta = jen.Id(n("meta"))
	}
	field := func(name string, v jen.Code) jen.Code { return jen.Id(name).Op(":").Add(v) }
	outFields := []jen.Code{
		field("Schema", jen.Id(outputName)),
		field("Render", render),
	}
	if meta != nil {
		outFields = append(outFields, field("PresentationMeta", meta))
	}
	outFields = append(outFields, field("Validate", jen.Id(n("validateOutput"))))
	d := []jen.Code{
		field("ToolSchema", jen.Id(schemaName)),
		field("Output", jen.Qual(runtimePath, "OutputDefinition").Custom(fields, outFields...)),
		field("Execute", jen.Id(n("execute"))),
		field("ValidatesArguments", jen.True()),
	}
	if staticallyValid(t.Output, t.OutputSchema) {
		d = append(d, field("ValidatesOutput", jen.True()))
	}
	if t.Timeout > 0 {
		d = append(d, field("Timeout", durationExpr(t.Timeout)))
	}
	if t.Finalize != "" {
		d = append(d, field("FinalizeContent", jen.Id(t.Finalize)))
	}
	argsHook := func(hook, name string, params []jen.Code, result jen.Code, fallback jen.Code, fallbackText string, args ...jen.Code) {
		decls = append(decls, jen.Line(),
			jen.Commentf("%s calls %s with the decoded arguments; invalid arguments", n(hook), name).Line().
				Commentf("give %s.", fallbackText).Line().
				Func().Id(n(hook)).Params(params...).Add(result).Block(
				jen.List(jen.Id("p"), jen.Err()).Op(":=").Id(n("decodeArgs")).Call(jen.Id("args")),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(fallback)),
				jen.Return(jen.Id(name).Call(append([]jen.Code{jen.Id("p")}, args...)...)),
			))
	}
	switch t.Concurrency.Kind {
	case ConcurrencySafe:
		d = append(d, field("ConcurrencySafe", jen.Id(prefix+"always")))
	case ConcurrencyFunc:
		argsHook("concurrencySafe", t.Concurrency.Func, []jen.Code{jen.Id("args").Qual(jsonvaluePath, "Value")}, jen.Bool(), jen.False(), "false (exclusive)")
		d = append(d, field("ConcurrencySafe", jen.Id(n("concurrencySafe"))))
	}
	if t.PresentCall != "" {
		argsHook("presentCall", t.PresentCall, []jen.Code{jen.Id("args").Qual(jsonvaluePath, "Value")}, jen.Op("*").Qual(runtimePath, "ToolCallView"), jen.Nil(), "nil (the generic card)")
		d = append(d, field("PresentCall", jen.Id(n("presentCall"))))
	}
	if t.PresentResult != "" {
		argsHook("presentResult", t.PresentResult, []jen.Code{jen.Id("args").Qual(jsonvaluePath, "Value"), jen.Id("result").Qual(runtimePath, "ToolResult")}, jen.Op("*").Qual(runtimePath, "ToolResultView"), jen.Nil(), "nil (the pending card and raw content)", jen.Id("result"))
		d = append(d, field("PresentResult", jen.Id(n("presentResult"))))
	}
	return decls, jen.Custom(fields, d...)
}

// durationExpr spells d in the largest unit that divides it, such as
// 90 * time.Second.
func durationExpr(d time.Duration) jen.Code {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"}} {
		if d%u.d == 0 {
			return jen.Lit(int(d/u.d)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Lit(int64(d)))
}

// invalidArgs is the error a generated body returns for arguments that
// break the schema, in the runtime's own words.
func invalidArgs() jen.Code {
	return jen.Op("&").Qual(runtimePath, "ToolError").Values(jen.Dict{
		jen.Id("Code"):    jen.Qual(runtimePath, "CodeInvalidArgs"),
		jen.Id("Message"): jen.Lit("invalid arguments: ").Op("+").Err().Dot("Error").Call(),
		jen.Id("Err"):     jen.Err(),
	})
}
