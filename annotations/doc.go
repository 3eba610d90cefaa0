// Package annotations parses the text an author writes to describe a tool:
// the //toolgen: directive comments and the json and jsonschema struct
// tags. It is pure text processing: every parser takes a string and returns
// what it says plus every problem found, each as an *Error whose Offset is a
// byte offset into that string (the gen package turns it into a source
// position). No parser panics on any input.
//
// This documentation is the reference for what an author may write.
//
// # Directives
//
// A directive is a line comment that starts exactly with "//toolgen:" (no
// space after "//", Go's directive convention) followed by a name, then
// optionally blanks (spaces or tabs) and arguments up to the end of the
// line:
//
//	directive = "//toolgen:" name [ blanks args ] .
//
// The names are tool, oneof, open and schema; any other name is an error
// that suggests the closest one. A comment such as "// toolgen:tool" (with a
// blank after "//") is not a directive, and the generator reports it
// (LooksLikeDirective). Block comments are never directives.
//
// # //toolgen:tool
//
// In the doc comment of a tool function:
//
//	//toolgen:tool [ option { blanks option } ]
//	option = key "=" value .   value: one or more non-blank characters, no quoting
//
// Each key may be given once:
//
//	name=N            the tool's wire name: 1 to 128 characters of A-Z, a-z,
//	                  0-9, '_', '-' and '.'; the default is the snake_case
//	                  function name
//	timeout=D         a positive Go duration (time.ParseDuration), such as 30s
//	concurrency=C     safe, exclusive, or the name of a classifier function
//	                  func(P) bool of this package
//	render=F          func(P, O) []runtime.ContentBlock
//	meta=F            func(P, O) jsonvalue.Value
//	present_call=F    func(P) *runtime.ToolCallView
//	present_result=F  func(P, runtime.ToolResult) *runtime.ToolResultView
//	finalize=F        func(runtime.Execution, runtime.Result) []runtime.ContentBlock
//
// A function is named by a Go identifier of this package (unexported names
// are fine; pkg.F is not). The generator checks its signature.
//
//	//toolgen:tool name=read_file timeout=30s concurrency=safe render=renderFile
//
// # //toolgen:oneof, //toolgen:open, //toolgen:schema
//
// In the doc comment of a type declaration:
//
//	//toolgen:oneof A B ...   on a sealed interface: two or more distinct type
//	                          names of this package, separated by blanks
//	//toolgen:open            on a struct: its object schema accepts unknown
//	                          members; takes no arguments
//	//toolgen:schema {...}    one JSON schema object of the enforced subset
//	                          (package schemasubset) on the rest of the line;
//	                          the type decodes through its own UnmarshalJSON
//	                          or UnmarshalText
//
// # Struct tags
//
// A field's tag is key:"value" pairs separated by spaces, each value a Go
// double-quoted string, as reflect.StructTag reads it. These keys are read;
// every other key (yaml, db, ...) is left alone. Each may appear once.
//
// json, with encoding/json's meaning:
//
//	json:"-"                  skip the field
//	json:"-,"                 the member is named "-"
//	json:"name"               the member name; empty means the Go field name
//	json:"name,omitempty"     the field is optional (so is omitzero)
//
// A field is required unless it has omitempty or omitzero (or
// jsonschema:"required" forces it). The option string (it changes the wire
// form), inline (not encoding/json's; embed the struct instead), empty
// options and every other option are errors, since a misspelled option
// would silently change requiredness.
//
// jsonschema, in invopop/jsonschema's spelling: options separated by commas,
// where "\," is a comma inside an option (so in a raw string tag
// `jsonschema:"description=a\\, b"` is the text "a, b"):
//
//	"-"                skip the field (alone: jsonschema:"-")
//	required           the field is required even with omitempty
//	nullable           null is accepted too (oneOf[T, null]); nullable=true
//	                   is the same and nullable=false is the default
//	title=TEXT         the title
//	description=TEXT   the description (instead of the doc comment)
//	enum=V             one allowed value; repeat it for each value
//	const=V            the only allowed value
//	default=V          the default value, for documentation
//	example=V          one example; repeat it for each
//
// V is read by the field's schema type (ScalarJSON): the text verbatim for
// a string, a JSON integer or number literal, or true or false. Title,
// description, const and default may each be given once. Options that
// invopop/jsonschema knows but the subset rejects (minimum, maxLength,
// pattern, format, minItems, type, oneof_type, anyof_ref, ... ) are errors
// that say what to do instead; so is every unknown option.
//
// jsonschema_description:"TEXT" is the same as description=TEXT (give only
// one of them), and jsonschema_extras is an error unless empty, since the
// subset accepts no extra keywords.
package annotations
