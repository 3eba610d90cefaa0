package providers

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// The declaration formats, as [Error.Format] names them.
const (
	// FormatOpenAIChat names OpenAI Chat Completions "tools" entries:
	// {"type":"function","function":{"name","description","parameters","strict"?}}.
	FormatOpenAIChat = "openai-chat"
	// FormatOpenAIResponses names OpenAI Responses API function tools:
	// {"type":"function","name","description","parameters","strict"}.
	FormatOpenAIResponses = "openai-responses"
	// FormatAnthropic names Anthropic Messages API "tools" entries:
	// {"name","description","input_schema"}.
	FormatAnthropic = "anthropic"
	// FormatGemini names the Gemini API "tools" entry:
	// {"functionDeclarations":[{"name","description","parametersJsonSchema"}]}.
	FormatGemini = "gemini"
)

// Option changes how [OpenAIChat] and [OpenAIResponses] declare tools.
type Option func(*config)

type config struct {
	strict         bool
	optionalAsNull bool
}

// Strict declares every tool with "strict":true and a parameter schema
// converted to the subset OpenAI's strict mode (Structured Outputs)
// accepts, failing with every place that cannot be converted without
// changing which arguments the tool accepts; the package documentation
// lists the rules.
func Strict() Option { return func(c *config) { c.strict = true } }

// OptionalAsNull is [Strict], except that an optional property is sent as
// required and nullable, {"anyOf":[schema,{"type":"null"}]}, the emulation
// of optional fields OpenAI's strict mode documentation recommends. The
// model then sends null for a property it leaves out, which the tool's own
// schema rejects, so the arguments of every call must go through
// [RestoreOptional] before they are executed.
//
// The emulation is refused, with an error, where a null could not be told
// from a value: for an optional property whose schema already accepts null,
// and for an optional property below a oneOf whose branches are not all of
// different JSON types (RestoreOptional picks a branch by the type of the
// value).
func OptionalAsNull() Option {
	return func(c *config) { c.strict, c.optionalAsNull = true, true }
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// mode names c's mode for error messages.
func (c config) mode() string {
	switch {
	case c.optionalAsNull:
		return "strict, optional as null"
	case c.strict:
		return "strict"
	}
	return ""
}

// OpenAIChat returns one OpenAI Chat Completions "tools" entry per tool, in
// order: {"type":"function","function":{"name":...,"description":...,
// "parameters":...}}, with "strict":true last in "function" under [Strict]
// and no "strict" member otherwise (it defaults to false). Names must match
// ^[a-zA-Z0-9_-]{1,64}$. It fails with an [*Error] listing every problem.
func OpenAIChat(tools []runtime.ToolSchema, opts ...Option) ([]json.RawMessage, error) {
	c := newConfig(opts)
	return declare(tools, FormatOpenAIChat, c, openAIName, func(dst []byte, t runtime.ToolSchema, params []byte) []byte {
		dst = append(dst, `{"type":"function","function":{"name":`...)
		dst = appendString(dst, t.Name)
		dst = append(dst, `,"description":`...)
		dst = appendString(dst, t.Description)
		dst = append(dst, `,"parameters":`...)
		dst = append(dst, params...)
		if c.strict {
			dst = append(dst, `,"strict":true`...)
		}
		return append(dst, "}}"...)
	})
}

// OpenAIResponses returns one OpenAI Responses API function tool per tool,
// in order: {"type":"function","name":...,"description":...,
// "parameters":...,"strict":false}, with "strict":true under [Strict]. The
// Responses API requires the strict member, so it is always present. Names
// must match ^[a-zA-Z0-9_-]{1,64}$. It fails with an [*Error] listing every
// problem.
func OpenAIResponses(tools []runtime.ToolSchema, opts ...Option) ([]json.RawMessage, error) {
	c := newConfig(opts)
	return declare(tools, FormatOpenAIResponses, c, openAIName, func(dst []byte, t runtime.ToolSchema, params []byte) []byte {
		dst = append(dst, `{"type":"function","name":`...)
		dst = appendString(dst, t.Name)
		dst = append(dst, `,"description":`...)
		dst = appendString(dst, t.Description)
		dst = append(dst, `,"parameters":`...)
		dst = append(dst, params...)
		if c.strict {
			return append(dst, `,"strict":true}`...)
		}
		return append(dst, `,"strict":false}`...)
	})
}

// Anthropic returns one Anthropic Messages API "tools" entry per tool, in
// order: {"name":...,"description":...,"input_schema":...}. Names must
// match ^[a-zA-Z0-9_-]{1,64}$, and the schema root must not carry oneOf
// (the API rejects oneOf, anyOf and allOf at the top level of
// input_schema). It fails with an [*Error] listing every problem.
func Anthropic(tools []runtime.ToolSchema) ([]json.RawMessage, error) {
	return declare(tools, FormatAnthropic, config{}, anthropicName, func(dst []byte, t runtime.ToolSchema, params []byte) []byte {
		dst = append(dst, `{"name":`...)
		dst = appendString(dst, t.Name)
		dst = append(dst, `,"description":`...)
		dst = appendString(dst, t.Description)
		dst = append(dst, `,"input_schema":`...)
		dst = append(dst, params...)
		return append(dst, '}')
	})
}

// Gemini returns the one Gemini API "tools" entry that declares every tool,
// in order: {"functionDeclarations":[{"name":...,"description":...,
// "parametersJsonSchema":...},...]}. parametersJsonSchema takes JSON Schema
// as it is, unlike the OpenAPI-subset "parameters" field, which is not used.
// Names must start with a letter or '_' and hold up to 128 characters of
// a-z, A-Z, 0-9, '_', '.', ':' and '-'. With no tools the entry declares
// none; leave it out of the request then. It fails with an [*Error] listing
// every problem.
func Gemini(tools []runtime.ToolSchema) (json.RawMessage, error) {
	decls, err := declare(tools, FormatGemini, config{}, geminiName, func(dst []byte, t runtime.ToolSchema, params []byte) []byte {
		dst = append(dst, `{"name":`...)
		dst = appendString(dst, t.Name)
		dst = append(dst, `,"description":`...)
		dst = appendString(dst, t.Description)
		dst = append(dst, `,"parametersJsonSchema":`...)
		dst = append(dst, params...)
		return append(dst, '}')
	})
	if err != nil {
		return nil, err
	}
	size := len(`{"functionDeclarations":[]}`)
	for _, d := range decls {
		size += len(d) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, `{"functionDeclarations":[`...)
	for i, d := range decls {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, d...)
	}
	return append(out, "]}"...), nil
}

// declare checks every tool for format and, when none has a problem,
// returns each one's declaration as entry writes it, all sharing one
// buffer.
func declare(tools []runtime.ToolSchema, format string, c config, name nameRule,
	entry func(dst []byte, t runtime.ToolSchema, params []byte) []byte) ([]json.RawMessage, error) {
	e := &Error{Format: format, Mode: c.mode()}
	params := make([][]byte, len(tools))
	seen := make(map[string]bool, len(tools))
	for i, t := range tools {
		if !name.ok(t.Name) {
			e.add(t.Name, CodeName, "", "name must match "+name.pattern)
		}
		if seen[t.Name] {
			e.add(t.Name, CodeDuplicateName, "", "name is declared more than once")
		}
		seen[t.Name] = true
		if !utf8.ValidString(t.Description) {
			e.add(t.Name, CodeDescription, "", "description is not valid UTF-8, so JSON cannot carry it unchanged")
		}
		if !checkSchema(e, t) {
			continue
		}
		switch {
		case c.strict:
			s := strictConverter{tool: t.Name, optionalAsNull: c.optionalAsNull, err: e}
			params[i] = s.root(t.Parameters)
		case format == FormatAnthropic && len(t.Parameters.OneOf()) > 0:
			e.add(t.Name, CodeOneOf, "/oneOf", "the Messages API rejects oneOf, anyOf and allOf at the top level of input_schema")
		default:
			params[i] = t.Parameters.AppendJSON(nil)
		}
	}
	if len(e.Problems) > 0 {
		return nil, e
	}
	size := 0
	for i, t := range tools {
		size += len(params[i]) + len(t.Name) + len(t.Description) + 96
	}
	buf := make([]byte, 0, size)
	out := make([]json.RawMessage, len(tools))
	for i, t := range tools {
		start := len(buf)
		buf = entry(buf, t, params[i])
		out[i] = json.RawMessage(buf[start:len(buf):len(buf)])
	}
	return out, nil
}

// checkSchema records why t's parameters are not an object-rooted subset
// schema and reports whether they are one.
func checkSchema(e *Error, t runtime.ToolSchema) bool {
	if t.Parameters == nil {
		e.add(t.Name, CodeSchema, "", "the parameter schema is nil")
		return false
	}
	err := schemasubset.AssertObject(t.Parameters)
	if err == nil {
		return true
	}
	var se *schemasubset.SchemaError
	if !errors.As(err, &se) {
		e.add(t.Name, CodeSchema, "", err.Error())
		return false
	}
	for _, is := range se.Issues {
		e.add(t.Name, CodeSchema, is.Pointer, is.Message)
	}
	return false
}

// appendString appends s as a JSON string, escaped the way schemasubset
// writes annotations. declare refuses names and descriptions that are not
// valid UTF-8 (JSON cannot carry them unchanged), so its output never
// holds the U+FFFD the encoder puts in place of bad bytes.
func appendString(dst []byte, s string) []byte {
	out, _ := jsontext.AppendQuote(dst, s)
	return out
}

// Code names the kind of a [Problem]. Callers branch on codes, never on
// message text.
type Code string

// The problems a declaration can have.
const (
	// CodeName: the provider does not accept the tool's name.
	CodeName Code = "name"
	// CodeDuplicateName: two tools in the list share a name.
	CodeDuplicateName Code = "duplicate-name"
	// CodeDescription: the tool's description is not valid UTF-8.
	CodeDescription Code = "description"
	// CodeSchema: the parameter schema is nil or not an object-rooted
	// schema of the enforced subset (schemasubset.AssertObject fails).
	CodeSchema Code = "schema"
	// CodeOpenObject: strict mode needs a closed object where the schema
	// accepts undeclared members that may mean something.
	CodeOpenObject Code = "open-object"
	// CodeOptional: strict mode needs every property required, and the
	// property is optional (or, under OptionalAsNull, its absence cannot be
	// emulated with null).
	CodeOptional Code = "optional-property"
	// CodeUntyped: strict mode needs a type where the schema accepts any
	// JSON value.
	CodeUntyped Code = "untyped"
	// CodeAnyItems: strict mode needs an item schema where an array
	// accepts any element.
	CodeAnyItems Code = "any-items"
	// CodeOneOf: a oneOf the format cannot carry: at the root, beside
	// "type", or (strict mode, which has only anyOf) with branches that
	// may overlap.
	CodeOneOf Code = "one-of"
)

// Problem is one reason a tool cannot be declared.
type Problem struct {
	// Tool is the tool's name.
	Tool string
	// Code names the kind of problem.
	Code Code
	// Pointer is the JSON Pointer (RFC 6901) of the offending place inside
	// the tool's parameter schema: "" for the root. Problems with the name
	// or the description (CodeName, CodeDuplicateName, CodeDescription)
	// have none.
	Pointer string
	// Message describes the problem in words.
	Message string
}

// String returns `tool "name": pointer: message`, with "(root)" for the
// root pointer, or `tool "name": message` for a problem with the name or
// the description.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString("tool ")
	b.Write(appendString(nil, p.Tool))
	b.WriteString(": ")
	if p.Code != CodeName && p.Code != CodeDuplicateName && p.Code != CodeDescription {
		if p.Pointer == "" {
			b.WriteString("(root)")
		} else {
			b.WriteString(p.Pointer)
		}
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Error reports every problem that keeps a list of tools from being
// declared in one format: every tool, every problem, never only the first.
type Error struct {
	// Format is the declaration format, one of the Format constants.
	Format string
	// Mode is "strict" or "strict, optional as null" for OpenAI strict
	// mode, and empty otherwise.
	Mode string
	// Problems lists the problems in tool order, then in schema document
	// order; it is never empty.
	Problems []Problem
}

// Error returns "providers: cannot declare tools for FORMAT (MODE):"
// followed by one problem per line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("providers: cannot declare tools for ")
	b.WriteString(e.Format)
	if e.Mode != "" {
		b.WriteString(" (" + e.Mode + ")")
	}
	b.WriteString(":")
	for _, p := range e.Problems {
		b.WriteString("\n\t")
		b.WriteString(p.String())
	}
	return b.String()
}

func (e *Error) add(tool string, code Code, pointer, msg string) {
	e.Problems = append(e.Problems, Problem{Tool: tool, Code: code, Pointer: pointer, Message: msg})
}
