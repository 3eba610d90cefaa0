// Package reflecttool derives tool schemas and tool definitions from Go
// types and functions at run time, with reflection, for tools that are not
// generated: prototypes, tools built
// from types only known at start-up, and the comparison of toolgen's
// generated path with the reflective one that most Go MCP libraries take.
//
// [ParamsSchema] and [OutputSchema] run an invopop/jsonschema Reflector
// configured for toolgen's rules and convert its result into the
// schemasubset, rejecting anything the subset cannot hold:
//
//   - definitions are inlined ($ref and $defs never appear) and the root's
//     $schema and $id are dropped;
//   - a parameter root is an open object (no additionalProperties), every
//     other struct is closed (additionalProperties false);
//   - names, requiredness, title=, description=, enum=, default=, example=
//     and nullable come from the json and jsonschema tags as invopop reads
//     them: a field is required unless its json tag says omitempty or
//     omitzero, and jsonschema:"required" forces it;
//   - json.Number is a number, time.Time a string (without a format, which
//     the subset does not hold), an encoding.TextUnmarshaler a string, and
//     json.RawMessage and jsonvalue.Value the unconstrained schema {};
//   - descriptions sit on properties only: a field's jsonschema
//     description=, else its Go doc or line comment when [Comments] holds
//     the source (types' own comments are not copied into the schema);
//   - maps, channels, functions, interfaces, fixed-size arrays, complex
//     numbers, byte slices, generic types, json.Unmarshalers, recursive
//     types and embedded fields that shadow one another are refused with an
//     [*Error] that names the Go field path, before invopop sees the type.
//     A tag keyword the subset rejects (minimum=, pattern=, format=, ...)
//     is refused with the JSON Pointer of the offending schema location.
//
// For every tool in toolgen's generated_test golden cases the reflected
// schemas equal the generated ones byte for byte, except where the
// generator reads something reflection cannot see. These exceptions are
// the whole list, and the oracle test in generated_test holds the same
// table:
//
//	What the generator reads          | Reflected instead
//	----------------------------------|------------------------------------------
//	enum of a named type's constants  | the plain string or integer schema
//	jsonschema:"const=..."            | no const (invopop has no const keyword)
//	//toolgen:oneof sealed interfaces | an *Error: an interface has no schema
//	//toolgen:schema declarations     | the schema of the Go type itself, or an
//	                                  | *Error for a json.Unmarshaler
//	//toolgen:open on a struct type   | a closed object
//	embedded fields shadowed by depth | an *Error: invopop flattens embedded
//	                                  | structs without encoding/json's rules
//	json:"-," (a member named "-")    | no member: invopop skips the field
//	jsonschema:"nullable=true"        | not nullable: invopop reads only the
//	                                  | bare nullable option
//	example= on a boolean field       | no examples: invopop ignores them
//
// [New] and [NewWithRunContext] are the Execute half: they turn a typed Go
// function, func(context.Context, P) (O, error) or the same with a
// trailing *runtime.RunContext, into a runtime.ToolDefinition whose
// parameter schema is ParamsSchema of P and whose output schema is
// OutputSchema of O. The definition's Execute validates the arguments with
// schemasubset.Validate, decodes them into a P with encoding/json, calls
// the function and encodes its output with encoding/json; it sets
// ValidatesArguments, so the runtime does not validate the arguments a
// second time, and it leaves Output.Validate nil, so the runtime validates
// the value against the output schema. Arguments that break the schema, or
// that encoding/json cannot hold in a P (such as an integer outside an
// int8's range), fail with INVALID_ARGS; an output that encoding/json
// cannot encode (such as a NaN) fails with INVALID_TOOL_OUTPUT; an error
// the function returns is passed on unchanged. The successful value is
// rendered as one JSON text block, the default renderer of generated
// tools.
//
// This is the path that most Go MCP libraries take, and it is the baseline
// that toolgen's generated adapters are measured against. Because it
// decodes with encoding/json, it differs from a generated adapter in three
// ways. Member names match case-insensitively, so an unknown top-level key
// such as "PATH", which the open parameter root lets through, can still
// set the field named "path". An error for a value outside a Go type's
// range names the Go field path rather than a JSON Pointer. A nil slice or
// pointer in the output encodes as null, which a reflected array or object
// schema without the nullable option refuses with INVALID_TOOL_OUTPUT.
//
// Only this package imports invopop/jsonschema; generated code never does.
package reflecttool
