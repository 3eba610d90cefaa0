package gen

import (
	"go/token"
	"time"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// Package is the model of one Go package's tools: plain data with positions
// and resolved names, built by [Load] and read by the emitters. Emitters
// never look at go/types or the syntax tree.
type Package struct {
	// Name is the Go package name.
	Name string
	// Path is the package's import path.
	Path string
	// Dir is the directory holding the package's files.
	Dir string
	// Tools lists the package's tools in source order.
	Tools []*Tool
	// Scope lists, sorted, the package-level names the package's own files
	// declare (the generated file's excepted); the generated file imports
	// a package whose name is one of them under an alias.
	Scope []string
}

// Tool is one //toolgen:tool function.
type Tool struct {
	// Name is the wire name models call the tool by.
	Name string
	// Func is the Go function's name.
	Func string
	// Description is the function's doc comment without directive lines.
	Description string
	// Pos is the position of the function's name.
	Pos token.Position
	// RunContext is set when the function takes a third *runtime.RunContext
	// parameter.
	RunContext bool
	// Params is the parameter type (always a struct, possibly named in
	// another package).
	Params *Type
	// Output is the output type.
	Output *Type
	// ParamsSchema is the parameter schema (open object root).
	ParamsSchema *schemasubset.Node
	// OutputSchema is the output schema.
	OutputSchema *schemasubset.Node
	// Timeout is the directive's timeout, zero when none was given.
	Timeout time.Duration
	// Concurrency is the directive's concurrency option.
	Concurrency Concurrency
	// Render, Meta, PresentCall, PresentResult and Finalize name the
	// functions of the directive's options of the same names, "" when
	// absent. Their signatures have been checked.
	Render, Meta, PresentCall, PresentResult, Finalize string
}

// ConcurrencyKind says how a tool's calls may overlap.
type ConcurrencyKind uint8

// The concurrency kinds of a tool.
const (
	// ConcurrencyDefault is the runtime's default: exclusive.
	ConcurrencyDefault ConcurrencyKind = iota
	// ConcurrencySafe lets calls run in parallel.
	ConcurrencySafe
	// ConcurrencyExclusive makes every call exclusive.
	ConcurrencyExclusive
	// ConcurrencyFunc classifies each call with a func(P) bool.
	ConcurrencyFunc
)

// Concurrency is a tool's concurrency option.
type Concurrency struct {
	// Kind is the option's kind.
	Kind ConcurrencyKind
	// Func names the classifier when Kind is ConcurrencyFunc.
	Func string
}

// String returns the option as the directive spells it, or "exclusive
// (default)" when none was given.
func (c Concurrency) String() string {
	switch c.Kind {
	case ConcurrencySafe:
		return "safe"
	case ConcurrencyExclusive:
		return "exclusive"
	case ConcurrencyFunc:
		return c.Func
	}
	return "exclusive (default)"
}

// Kind is the wire form a Go type takes.
type Kind uint8

// The kinds of [Type].
const (
	// KindString is a Go string kind.
	KindString Kind = iota + 1
	// KindBool is a Go bool kind.
	KindBool
	// KindInt is a signed integer of Bits bits.
	KindInt
	// KindUint is an unsigned integer of Bits bits.
	KindUint
	// KindFloat is a float of Bits bits.
	KindFloat
	// KindNumber is encoding/json's Number: a lossless number text.
	KindNumber
	// KindRaw is json.RawMessage or jsonvalue.Value: any JSON, kept verbatim.
	KindRaw
	// KindTime is time.Time as an RFC 3339 string.
	KindTime
	// KindText is an encoding.TextUnmarshaler decoded from a string.
	KindText
	// KindCustom is a type with a //toolgen:schema declaration, decoded
	// through its UnmarshalJSON (or UnmarshalText) method.
	KindCustom
	// KindStruct is a struct, an object on the wire.
	KindStruct
	// KindSlice is a slice, an array on the wire.
	KindSlice
	// KindPointer is a pointer; its wire form is its element's.
	KindPointer
	// KindOneOf is a sealed interface listed by //toolgen:oneof.
	KindOneOf
)

var kindNames = [...]string{
	KindString: "string", KindBool: "bool", KindInt: "int", KindUint: "uint",
	KindFloat: "float", KindNumber: "json.Number", KindRaw: "raw JSON",
	KindTime: "time.Time", KindText: "TextUnmarshaler", KindCustom: "custom",
	KindStruct: "struct", KindSlice: "slice", KindPointer: "pointer", KindOneOf: "oneOf",
}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "invalid"
}

// GoIdent is a resolved Go name: the import path of its package and the
// name within it. The zero GoIdent names nothing (an unnamed type).
type GoIdent struct {
	// ImportPath is the package's import path ("" for predeclared names).
	ImportPath string
	// Name is the identifier.
	Name string
}

// IsZero reports whether id names nothing.
func (id GoIdent) IsZero() bool { return id.Name == "" }

// Type is the model of one Go type as toolgen maps it.
type Type struct {
	// Kind is the wire form.
	Kind Kind
	// Named is the type's name when it is a named (defined) type.
	Named GoIdent
	// GoString is the type as Go source spells it relative to the tool's
	// package (for catalogs and messages), such as "[]fs.Entry".
	GoString string
	// Bits is the size of KindInt, KindUint and KindFloat values.
	Bits int
	// Elem is the element of KindSlice and KindPointer.
	Elem *Type
	// Fields are the wire fields of KindStruct, promoted ones included, in
	// encoding/json order.
	Fields []*Field
	// Open is set on a struct with //toolgen:open.
	Open bool
	// Enum lists the package constants of a named string or integer type,
	// in declaration order; empty when the type has none.
	Enum []EnumConst
	// Variants are the branches of KindOneOf, in directive order.
	Variants []*Variant
	// Schema is the type's own schema (a struct's is closed unless Open).
	Schema *schemasubset.Node
	// UnmarshalJSON and UnmarshalText say which decoding method a
	// KindCustom or KindText type has (on its pointer receiver).
	UnmarshalJSON, UnmarshalText bool
	// MarshalJSON and MarshalText say which encoding method the type has
	// (on its value or pointer receiver); the output encoder uses them for
	// KindCustom and KindText types.
	MarshalJSON, MarshalText bool
	// IsZeroMethod is set when the type has an IsZero() bool method, which
	// omitzero consults.
	IsZeroMethod bool
	// Comparable is set when values of the type can be compared with ==.
	Comparable bool
	// Spelling is an unnamed struct type as Go source spells it, split
	// into text and the package-qualified names it refers to, so that the
	// emitters can import their packages.
	Spelling []SpellingPart
}

// SpellingPart is a piece of a type's spelling: Text verbatim, or the
// qualified name Ident.
type SpellingPart struct {
	// Text is source text, when Ident is zero.
	Text string
	// Ident is a name of another package.
	Ident GoIdent
}

// EnumConst is one package constant of an enum type.
type EnumConst struct {
	// Name is the constant.
	Name GoIdent
	// Value is the constant's JSON value.
	Value jsonvalue.Value
}

// Variant is one branch of a sealed-interface oneOf.
type Variant struct {
	// Type is the variant's type, a struct or a pointer to one.
	Type *Type
	// Pointer is set when the pointer type implements the interface and the
	// value type does not.
	Pointer bool
}

// Field is one wire field of a struct.
type Field struct {
	// Name is the JSON member name.
	Name string
	// GoName is the Go field name.
	GoName string
	// Path is the chain of embedded field names leading to the field,
	// outermost first; empty for a field of the struct itself.
	Path []Embedded
	// Required is set when the member must be present.
	Required bool
	// OmitEmpty and OmitZero are the json tag's options, which the output
	// encoder follows as encoding/json does.
	OmitEmpty, OmitZero bool
	// Nullable is set when null is accepted (the field's schema is
	// oneOf [T, null]); null leaves the Go zero value.
	Nullable bool
	// Type is the field's type.
	Type *Type
	// Schema is the member's schema with the field's annotations
	// (description, title, enum, ...) and nullability applied.
	Schema *schemasubset.Node
	// Pos is the field's position.
	Pos token.Position
}

// Embedded is one embedded struct on the way to a promoted field.
type Embedded struct {
	// GoName is the embedded field's name.
	GoName string
	// Pointer is set when the embedded field is a pointer, which decoding
	// allocates.
	Pointer bool
	// Type is the embedded struct type (the element, for a pointer).
	Type GoIdent
}
