package jsonvalue

import (
	"bytes"
	"errors"
	"math"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolgen-go/toolgen/internal/canon"
	"github.com/toolgen-go/toolgen/internal/decimal"
)

// This file holds what generated decoders and encoders need beyond the
// token reader: typed number reads that keep the exact-decimal rules of the
// schema subset, Go-type rejections, probing for oneOf, and canonical
// appenders. It is for generated code; hand-written code rarely needs it.

// IntegerError reports a number with a fractional part where an integer was
// asked for (the subset's "integer" type decided on the exact text, so 1.0
// and 1e2 are integers and 1.5 is not).
type IntegerError struct {
	// Offset is the byte offset of the number.
	Offset int
	// Text is the number as written.
	Text string
}

// Error returns "jsonvalue: want an integer, got 1.5 at offset N".
func (e *IntegerError) Error() string {
	return "jsonvalue: want an integer, got " + e.Text + " at offset " + strconv.Itoa(e.Offset)
}

// GoTypeError reports a value that is valid JSON of the right kind but does
// not fit the Go type it decodes into: an integer outside an int8's range, a
// float that overflows, a string a TextUnmarshaler refuses.
type GoTypeError struct {
	// Offset is the byte offset of the value.
	Offset int
	// Type is the Go type, as source spells it.
	Type string
	// Err is the decoding method's error; nil for a number out of range.
	Err error
}

// Error returns "jsonvalue: value at offset N does not fit int8" or the
// method's reason.
func (e *GoTypeError) Error() string {
	if e.Err != nil {
		return "jsonvalue: value at offset " + strconv.Itoa(e.Offset) + " is not a valid " + e.Type + ": " + e.Err.Error()
	}
	return "jsonvalue: value at offset " + strconv.Itoa(e.Offset) + " does not fit " + e.Type
}

// Unwrap returns the decoding method's error.
func (e *GoTypeError) Unwrap() error { return e.Err }

// ReadInt consumes a number that must be an integer and returns its value;
// fits is false, with a zero value, when the integer is outside int64's
// range (the caller decides whether that is an enum miss or a Go range
// error). A fractional number records an [*IntegerError].
func (r *Reader) ReadInt() (v int64, fits bool) {
	at := r.pos
	text := r.ReadNumber()
	if text == nil {
		return 0, false
	}
	if mag, neg, ok := smallInteger(text); ok {
		if neg {
			return -int64(mag), true
		}
		return int64(mag), true
	}
	mag, neg, ok := r.slowInteger(text, at)
	switch {
	case !ok:
		return 0, false
	case neg && mag <= 1<<63:
		return int64(-mag), true
	case !neg && mag < 1<<63:
		return int64(mag), true
	}
	return 0, false
}

// ReadUint consumes a number that must be an integer and returns its value;
// fits is false, with a zero value, when the integer is negative or above
// uint64's range. A fractional number records an [*IntegerError].
func (r *Reader) ReadUint() (v uint64, fits bool) {
	at := r.pos
	text := r.ReadNumber()
	if text == nil {
		return 0, false
	}
	if mag, neg, ok := smallInteger(text); ok {
		return mag, !neg || mag == 0
	}
	mag, neg, ok := r.slowInteger(text, at)
	if !ok || neg {
		return 0, false
	}
	return mag, true
}

// smallInteger reads text made only of an optional '-' and at most 18
// digits, the form almost every integer argument takes.
func smallInteger(text []byte) (mag uint64, neg, ok bool) {
	digits := text
	if len(digits) > 0 && digits[0] == '-' {
		neg, digits = true, digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false, false
		}
		mag = mag*10 + uint64(c-'0')
	}
	return mag, neg, true
}

// slowInteger decides integer-ness and magnitude on the exact decimal text;
// ok is false when the number is not an integer (recorded) or its
// magnitude exceeds uint64.
func (r *Reader) slowInteger(text []byte, at int) (mag uint64, neg, ok bool) {
	n, parsed := decimal.Parse(text)
	if !parsed {
		r.malformed("malformed number")
		return 0, false, false
	}
	if !n.IsInteger() {
		r.Fail(&IntegerError{Offset: at, Text: string(text)})
		return 0, false, false
	}
	mag, ok = n.Uint64()
	return mag, n.Negative(), ok
}

// ReadFloat consumes a number and returns it as a float of bits (32 or 64)
// bits, rounding to the nearest; a number whose magnitude overflows the
// float records a [*GoTypeError].
func (r *Reader) ReadFloat(bits int) float64 {
	at := r.pos
	text := r.ReadNumber()
	if text == nil {
		return 0
	}
	f, err := strconv.ParseFloat(string(text), bits)
	if err != nil {
		goType := "float64"
		if bits == 32 {
			goType = "float32"
		}
		r.Reject(at, goType, nil)
		return 0
	}
	return f
}

// Reject records that the value at offset does not fit the Go type goType;
// cause is the decoding method's error, if any. Reading goes on: the
// rejection is what [Reader.Done] reports only if the rest of the value
// breaks no rule, because a Go-type rejection is the one way a decoder may
// differ from schema validation, and only for schema-valid values. [Reader.Err]
// does not report it.
func (r *Reader) Reject(offset int, goType string, cause error) {
	if r.goErr == nil && r.err == nil {
		r.goErr = &GoTypeError{Offset: offset, Type: goType, Err: cause}
	}
}

// Probe returns a Reader at r's position with no error, to try a value
// against one oneOf branch without consuming it from r.
func (r *Reader) Probe() Reader { return Reader{v: r.v, pos: r.pos} }

// SetErr replaces r's problem with err, which generated code does when a
// failure inside a oneOf branch becomes the oneOf's own failure.
func (r *Reader) SetErr(err error) { r.err = err }

// Elements returns the number of elements of the array at r's position
// without consuming it, so that decoders allocate a slice once; 0 when no
// array starts there. It trusts the canonical form (strings hold '"' only
// escaped) and counts commas at the array's own depth, jumping over
// strings, so it costs a fraction of reading the array; a malformed array
// is reported when it is read.
func (r *Reader) Elements() int {
	if r.Peek() != KindArray {
		return 0
	}
	b := r.v
	i := r.pos + 1
	if i < len(b) && b[i] == ']' {
		return 0
	}
	n, depth := 1, 1
	for i < len(b) {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
			if i < 0 {
				return 0
			}
			continue
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return n
			}
		case ',':
			if depth == 1 {
				n++
			}
		}
		i++
	}
	return 0
}

// stringEnd returns the index just past the string starting at b[i], or
// -1 when it does not end.
func stringEnd(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		backslashes := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			backslashes++
		}
		j++
		if backslashes%2 == 0 {
			return j
		}
	}
}

// NumberEqual reports whether two JSON number texts denote the same value
// (1, 1.0 and 1e0 are equal), as enum and const compare numbers.
func NumberEqual(a, b []byte) bool {
	x, ok := decimal.Parse(a)
	y, ok2 := decimal.Parse(b)
	return ok && ok2 && x.Equal(y)
}

// AppendString appends s as a canonical JSON string. A string that is not
// valid UTF-8 is reported, never silently repaired.
func AppendString(dst []byte, s string) ([]byte, error) {
	return jsontext.AppendQuote(dst, s)
}

// AppendFloat appends f, a float of bits (32 or 64) bits, as the shortest
// JSON number text that reads back as f, in exponent form outside
// [1e-6, 1e21) as ECMAScript writes numbers. NaN and infinities are not
// JSON and are reported.
func AppendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, &UnsupportedFloatError{Value: f}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 32 {
			abs = float64(float32(abs))
		}
		if abs < 1e-6 || abs >= 1e21 {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// e-07 → e-7, as ECMAScript writes exponents.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// UnsupportedFloatError reports a NaN or an infinity, which JSON cannot
// hold.
type UnsupportedFloatError struct {
	// Value is the float.
	Value float64
}

// Error returns "jsonvalue: NaN is not a JSON number".
func (e *UnsupportedFloatError) Error() string {
	return "jsonvalue: " + strconv.FormatFloat(e.Value, 'g', -1, 64) + " is not a JSON number"
}

// ReadInteger consumes a number that must be an integer and returns its
// text; a fractional number records an [*IntegerError].
func (r *Reader) ReadInteger() []byte {
	at := r.pos
	text := r.ReadNumber()
	if text == nil {
		return nil
	}
	if _, _, ok := smallInteger(text); ok {
		return text
	}
	n, parsed := decimal.Parse(text)
	switch {
	case !parsed:
		r.malformed("malformed number")
		return nil
	case !n.IsInteger():
		r.Fail(&IntegerError{Offset: at, Text: string(text)})
		return nil
	}
	return text
}

// UnescapeBytes is [Unescape] for byte-oriented methods such as
// UnmarshalText: it returns quoted itself when it holds no escape, so the
// result aliases the Value and must not be kept or modified.
func UnescapeBytes(quoted []byte) []byte {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return quoted
	}
	return []byte(Unescape(quoted))
}

// AppendNumber appends text, which must be one JSON number text, and
// reports text that is not. The empty text appends 0, as encoding/json
// writes an empty json.Number.
func AppendNumber(dst []byte, text string) ([]byte, error) {
	if text == "" {
		return append(dst, '0'), nil
	}
	if canon.Number([]byte(text), 0) != len(text) {
		return dst, &SyntaxError{Kind: InvalidSyntax, Detail: "invalid number text " + strconv.Quote(text)}
	}
	return append(dst, text...), nil
}

// AppendRaw appends raw, which should hold one JSON value, verbatim; nil or
// empty raw appends null, as encoding/json writes an empty RawMessage. The
// runtime materializes a value that is not canonical, so raw may hold
// whitespace; it is not checked here.
func AppendRaw(dst []byte, raw []byte) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, raw...)
}

// EncodeError reports a field an output encoder could not write: a string
// that is not UTF-8, a NaN, a method's error, an interface holding a type
// that is none of its oneOf variants.
type EncodeError struct {
	// Path is the JSON Pointer of the field in the output.
	Path string
	// Err is the problem.
	Err error
}

// Error returns "jsonvalue: cannot encode /path: problem".
func (e *EncodeError) Error() string {
	p := e.Path
	if p == "" {
		p = "(root)"
	}
	return "jsonvalue: cannot encode " + p + ": " + e.Err.Error()
}

// Unwrap returns the problem.
func (e *EncodeError) Unwrap() error { return e.Err }

// Within returns err located inside the member or element step ("/name" or
// "/3", already escaped): an [*EncodeError] gains the step in front of its
// path, any other error becomes one.
func Within(step string, err error) error {
	if e, ok := err.(*EncodeError); ok {
		return &EncodeError{Path: step + e.Path, Err: e.Err}
	}
	return &EncodeError{Path: step, Err: err}
}

// ErrNotAVariant is the problem of an interface-typed output field that
// holds a type none of its //toolgen:oneof variants is.
var ErrNotAVariant = errors.New("the interface holds a type that is none of its oneOf variants")
