package jsonvalue

import "strconv"

// ErrorKind names what made input not one lossless JSON value.
type ErrorKind uint8

// The kinds of [SyntaxError].
const (
	// InvalidSyntax is input that breaks the JSON grammar, NaN and Infinity
	// included.
	InvalidSyntax ErrorKind = iota + 1
	// InvalidUTF8 is a byte sequence that is not UTF-8.
	InvalidUTF8
	// LoneSurrogate is a \uXXXX escape of one half of a UTF-16 surrogate
	// pair without the other half: it names no character.
	LoneSurrogate
	// DuplicateName is a second member with the same name in one object.
	DuplicateName
	// TrailingData is anything but whitespace after the value.
	TrailingData
	// Truncated is input that ends inside the value, or holds no value.
	Truncated
	// TooDeep is nesting beyond the materialization limit.
	TooDeep
)

var kindNames = [...]string{
	InvalidSyntax: "invalid-syntax",
	InvalidUTF8:   "invalid-utf8",
	LoneSurrogate: "lone-surrogate",
	DuplicateName: "duplicate-name",
	TrailingData:  "trailing-data",
	Truncated:     "truncated",
	TooDeep:       "too-deep",
}

// String returns the kind's stable code, such as "duplicate-name".
func (k ErrorKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "ErrorKind(" + strconv.Itoa(int(k)) + ")"
}

// SyntaxError reports why input is not exactly one lossless JSON value.
// Callers branch on Kind; Detail is for people.
type SyntaxError struct {
	// Offset is the byte offset in the input where the problem starts.
	Offset int64
	// Pointer is the JSON Pointer (RFC 6901) of the innermost value that
	// holds the problem, empty for the top level or when unknown.
	Pointer string
	// Kind says what the problem is.
	Kind ErrorKind
	// Detail describes the problem in words.
	Detail string

	err error // the parser's own error, when there is one
}

// Error returns "jsonvalue: <detail> at offset N (within /pointer)".
func (e *SyntaxError) Error() string {
	s := "jsonvalue: " + e.Detail + " at offset " + strconv.FormatInt(e.Offset, 10)
	if e.Pointer != "" {
		s += " (within " + e.Pointer + ")"
	}
	return s
}

// Unwrap returns the underlying jsontext error, if any.
func (e *SyntaxError) Unwrap() error { return e.err }
