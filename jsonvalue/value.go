// Package jsonvalue holds lossless JSON values.
//
// A [Value] is one JSON text in canonical form: compact (no insignificant
// whitespace), object members in the order they were written, number text
// kept exactly as written (12345678901234567890123 and 1.0 survive), and
// strings escaped the single way the jsontext encoder escapes them. Two
// Values hold the same JSON text exactly when their bytes are equal.
//
// [Materialize] is the one way in from untrusted bytes: it parses once with
// github.com/go-json-experiment/json/jsontext and rejects, with a
// [*SyntaxError] carrying the byte offset, anything that is not exactly one
// JSON value: invalid syntax, invalid UTF-8, lone surrogate escapes,
// duplicate object member names, trailing data, and nesting deeper than a
// limit (512 by default, a deliberate bound against stack exhaustion in
// whatever walks the value next).
//
// The constructors ([String], [Int], [Float], ...) build canonical scalars
// from Go values, and [Reader] walks a Value token by token for generated
// decoders and validators.
package jsonvalue

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolgen-go/toolgen/internal/canon"
)

// Value is one JSON text in canonical form (see the package documentation).
//
// A nil or empty Value means "no value"; it is not valid JSON. Values are
// immutable by convention: code that receives a Value must not write to it,
// and code that needs to change bytes works on a copy ([Value.Clone]).
// A Value built by converting arbitrary bytes rather than by [Materialize] or
// a constructor is the converter's responsibility: readers of a Value trust
// its canonical form and only guard against panics.
type Value []byte

// Kind is the kind of a JSON value, named by the first byte of its text.
type Kind byte

// The kinds of JSON values. KindInvalid is the kind of an empty Value and of
// bytes that do not start a JSON value.
const (
	KindInvalid Kind = 0
	KindNull    Kind = 'n'
	KindFalse   Kind = 'f'
	KindTrue    Kind = 't'
	KindString  Kind = '"'
	KindNumber  Kind = '0'
	KindObject  Kind = '{'
	KindArray   Kind = '['
)

// String returns the JSON Schema name of the kind: "null", "boolean",
// "string", "number", "object" or "array", and "invalid" for KindInvalid.
func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindFalse, KindTrue:
		return "boolean"
	case KindString:
		return "string"
	case KindNumber:
		return "number"
	case KindObject:
		return "object"
	case KindArray:
		return "array"
	}
	return "invalid"
}

// KindOf returns the kind of the value whose text starts with c.
func KindOf(c byte) Kind {
	switch c {
	case 'n', 'f', 't', '"', '{', '[':
		return Kind(c)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return KindNumber
	}
	return KindInvalid
}

// Kind returns the kind of v.
func (v Value) Kind() Kind {
	if len(v) == 0 {
		return KindInvalid
	}
	return KindOf(v[0])
}

// Clone returns a copy of v that shares no memory with it.
func (v Value) Clone() Value {
	if v == nil {
		return nil
	}
	return bytes.Clone(v)
}

// String returns the JSON text of v, or the empty string when v is empty.
func (v Value) String() string { return string(v) }

// Equal reports whether v and w hold the same JSON text. Because both are
// canonical this is byte equality: it keeps number spelling, so 1 and 1.0
// differ (compare numbers by value in the schema layer).
func (v Value) Equal(w Value) bool { return bytes.Equal(v, w) }

// MarshalJSON returns v itself, so a Value embeds verbatim in encoding/json
// output. An empty Value marshals as null.
func (v Value) MarshalJSON() ([]byte, error) {
	if len(v) == 0 {
		return []byte("null"), nil
	}
	return v, nil
}

// UnmarshalJSON materializes b into v with the default limits.
func (v *Value) UnmarshalJSON(b []byte) error {
	m, err := Materialize(b)
	if err != nil {
		return err
	}
	*v = m
	return nil
}

// Null returns the JSON null value.
func Null() Value { return Value("null") }

// Bool returns the JSON boolean b.
func Bool(b bool) Value {
	if b {
		return Value("true")
	}
	return Value("false")
}

// String returns s as a canonical JSON string. Invalid UTF-8 in s is replaced
// by U+FFFD, as encoding/json does; use [StringStrict] to reject it instead.
func String(s string) Value {
	out, _ := jsontext.AppendQuote(make([]byte, 0, len(s)+2), s)
	return out
}

// StringStrict returns s as a canonical JSON string, or an error when s is
// not valid UTF-8 (a JSON string cannot carry it losslessly).
func StringStrict(s string) (Value, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("jsonvalue: string is not valid UTF-8")
	}
	return String(s), nil
}

// Int returns n as a JSON number.
func Int(n int64) Value { return strconv.AppendInt(nil, n, 10) }

// Uint returns n as a JSON number.
func Uint(n uint64) Value { return strconv.AppendUint(nil, n, 10) }

// Float returns f as a JSON number in the shortest form that reads back as
// the same float64. NaN and infinities have no JSON form and are an error.
func Float(f float64) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("jsonvalue: %v is not a JSON number", f)
	}
	return jsontext.AppendFloat(nil, f, 64), nil
}

// Number returns text as a JSON number, kept exactly as written, or an error
// when text does not follow the JSON number grammar.
func Number(text string) (Value, error) {
	if canon.Number([]byte(text), 0) != len(text) {
		return nil, fmt.Errorf("jsonvalue: %q is not a JSON number", text)
	}
	return Value(text), nil
}

// IsCanonical reports whether raw is already one JSON value in canonical
// form with the default limits, so that it can be used as a Value without
// materializing a copy. It allocates nothing. A false answer means only that
// raw needs Materialize, which may still accept it.
func IsCanonical(raw []byte) bool {
	_, ok := fast(raw, nil, DefaultMaxDepth, true)
	return ok
}

// Valid reports whether v is exactly one JSON value in canonical form, as
// Materialize would return it: what a Value built by conversion must be.
func (v Value) Valid() bool {
	if IsCanonical(v) {
		return true
	}
	m, err := Materialize(v)
	return err == nil && m.Equal(v)
}
