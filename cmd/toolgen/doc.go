// Command toolgen generates the static schemas and runtime glue of the
// LLM-agent tools in a Go package.
//
// An author writes plain Go functions over typed parameter and output
// structs and marks each with a //toolgen:tool directive:
//
//	// ReadFile returns a window of lines from a UTF-8 text file.
//	//
//	//toolgen:tool name=read_file timeout=30s concurrency=safe
//	func ReadFile(ctx context.Context, args ReadFileArgs) (ReadFileResult, error)
//
// and adds one line to any file of the package:
//
//	//go:generate go tool toolgen -catalog TOOLS.md
//
// after installing the command as a module tool:
//
//	go get -tool github.com/toolgen-go/toolgen/cmd/toolgen
//
// (a toolgen binary on PATH works too: //go:generate toolgen). go generate
// then writes toolgen_gen.go beside the package's files: each tool's
// parameter and output schemas as schemasubset literals with their canonical
// JSON, a compile-time check of each tool function's signature, and the
// version handshake with the runtime package.
//
// # Usage
//
//	toolgen [flags] [packages]
//
// With no packages toolgen generates the package in the current directory,
// which is what go generate runs it in. Packages are go list patterns
// (./..., example.com/tools/fs); each gets its own file in its own
// directory.
//
// The flags are:
//
//	-o file
//		Name of the generated Go file in each package directory
//		(default toolgen_gen.go). It must end in .go and not _test.go.
//	-catalog file
//		Also write a Markdown catalog of the package's tools (name,
//		description, options, parameter table, output schema), relative to
//		each package directory unless absolute.
//	-check
//		Write nothing. Exit 1, printing a unified diff, when a generated
//		file or catalog is missing or differs from what toolgen would write.
//		The environment variable TOOLGEN_CHECK=1 turns this on too, so
//		TOOLGEN_CHECK=1 go generate ./... checks every package with the
//		flags of its own //go:generate line.
//	-tags list
//		Comma-separated build tags for loading the packages.
//	-version
//		Print toolgen's version and the generated-code version.
//
// toolgen is quiet on success. It exits 2 on a usage mistake and 1 when
// generation fails or, under -check, when something is stale. It writes
// nothing unless every file of every package generated: a run either
// updates everything or leaves the tree as it was. An existing generated
// file is ignored while the package loads, so a stale one never blocks
// regeneration; a file of the output's name that toolgen did not write is
// never overwritten.
//
// # Diagnostics
//
// The Go loader's errors (syntax and type errors) are printed first and
// unchanged. Then every problem toolgen finds is printed the way the Go
// toolchain prints its own, all of them in one run, in source order:
//
//	tools.go:12:6: toolgen: parameter type *ReadFileArgs must be a struct, not a pointer; take ReadFileArgs by value
//	tools.go:20:2: toolgen: ReadFileArgs.Filter: map[string]string is not supported: a map has no schema in the subset; ...
//
// # Directives
//
// //toolgen:tool, in a function's doc comment, makes the function a tool. It
// takes blank-separated key=value options, each at most once:
//
//	name=NAME              the wire name (default: the function name in snake_case)
//	timeout=DURATION       a positive Go duration, such as 30s
//	concurrency=KIND       safe, exclusive (the default), or a func(P) bool classifier
//	render=FUNC            func(P, O) []runtime.ContentBlock (default: the value as JSON text)
//	meta=FUNC              func(P, O) jsonvalue.Value
//	present_call=FUNC      func(P) *runtime.ToolCallView
//	present_result=FUNC    func(P, runtime.ToolResult) *runtime.ToolResultView
//	finalize=FUNC          func(runtime.Execution, runtime.Result) []runtime.ContentBlock
//
// A tool function has the signature func(context.Context, P) (O, error) or
// func(context.Context, P, *runtime.RunContext) (O, error), where P is a
// named struct type and O any supported type. Its doc comment, without
// directive lines, is the tool's description.
//
// On type declarations:
//
//	//toolgen:open            the struct's object accepts unknown members
//	//toolgen:oneof A B ...   the sealed interface is one of these variants
//	//toolgen:schema {...}    the type's schema, raw JSON of the subset; the
//	                          type decodes through UnmarshalJSON or UnmarshalText
//
// # Types
//
// Strings, booleans, every integer width (range-checked against the Go type),
// floats and json.Number map to their JSON types; a named string or integer
// type with constants of its type in its package becomes an enum of their
// values; slices become arrays; structs become objects named by their json
// tags (embedded structs flatten as in encoding/json), closed unless
// //toolgen:open, except the parameter root, which is always open; pointers
// take their element's schema; json.RawMessage and jsonvalue.Value accept
// any JSON; time.Time and encoding.TextUnmarshaler types are strings. Maps,
// channels, functions, interfaces other than //toolgen:oneof ones, fixed-size
// arrays, []byte and recursive types are errors that say what to use instead.
//
// A field is required unless its json tag has omitempty or omitzero;
// jsonschema:"required" forces it. The jsonschema tag takes the
// invopop/jsonschema spelling of the keywords the subset has: title=,
// description= (else the field's doc comment), enum= (repeatable), const=,
// default=, example= (repeatable) and nullable; a comma inside a value is
// written \,. Keywords outside the subset (minimum, pattern, format, ...)
// are errors, never dropped.
package main
