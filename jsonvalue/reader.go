package jsonvalue

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolgen-go/toolgen/internal/canon"
)

// Reader reads one Value token by token, for generated decoders and
// validators. It keeps sticky error state: after the first problem every
// method does nothing and returns a zero result, so calling code can run
// straight-line and check [Reader.Err] once.
//
// A Reader trusts the canonical form that [Materialize] guarantees (no
// whitespace, valid UTF-8, no duplicate names) and does not re-check it; it
// still never panics, and reports bytes it cannot read as a [*SyntaxError].
// Byte slices it returns alias the Value and must not be modified.
//
// The zero Reader holds an empty Value; [Reader.Reset] points it at another.
type Reader struct {
	v   Value
	pos int
	err error
	// goErr is the first Go-type rejection ([Reader.Reject]); it is
	// reported by Done only when the value broke no schema rule, so that
	// schema violations later in the document win, as Validate sees them.
	goErr error
}

// NewReader returns a Reader positioned at the start of v.
func NewReader(v Value) *Reader { return &Reader{v: v} }

// Reset points r at the start of v and clears its error.
func (r *Reader) Reset(v Value) { *r = Reader{v: v} }

// Err returns the first problem r met, or nil.
func (r *Reader) Err() error { return r.err }

// Fail records err as r's problem unless it already has one. Generated code
// uses it to stop a read on a semantic error (a schema violation).
func (r *Reader) Fail(err error) {
	if r.err == nil && err != nil {
		r.err = err
	}
}

// Offset returns the byte offset of the next unread byte.
func (r *Reader) Offset() int { return r.pos }

// Peek returns the kind of the next value without consuming it, or
// KindInvalid after a problem or when no value starts there.
func (r *Reader) Peek() Kind {
	if r.err != nil || r.pos >= len(r.v) {
		return KindInvalid
	}
	return KindOf(r.v[r.pos])
}

// Done reports r's problem, or an error when bytes remain after the value,
// or else the first Go-type rejection recorded with [Reader.Reject].
func (r *Reader) Done() error {
	if r.err == nil && r.pos != len(r.v) {
		r.malformed("data after the value")
	}
	if r.err == nil {
		return r.goErr
	}
	return r.err
}

// ReadNull consumes a null.
func (r *Reader) ReadNull() {
	if r.want(KindNull) {
		r.advance(canon.Literal(r.v, r.pos))
	}
}

// ReadBool consumes true or false.
func (r *Reader) ReadBool() bool {
	switch r.Peek() {
	case KindTrue:
		r.advance(canon.Literal(r.v, r.pos))
		return r.err == nil
	case KindFalse:
		r.advance(canon.Literal(r.v, r.pos))
		return false
	}
	r.want(KindTrue)
	return false
}

// ReadQuoted consumes a string and returns its text between the quotes, in
// canonical escaped form: byte-identical to the string itself unless it holds
// '"', '\\' or control characters. See [Unescape].
func (r *Reader) ReadQuoted() []byte {
	if !r.want(KindString) {
		return nil
	}
	start := r.pos
	if !r.advance(canon.String(r.v, r.pos)) {
		return nil
	}
	return r.v[start+1 : r.pos-1]
}

// ReadString consumes a string and returns it unescaped.
func (r *Reader) ReadString() string {
	return Unescape(r.ReadQuoted())
}

// ReadNumber consumes a number and returns its text exactly as written.
func (r *Reader) ReadNumber() []byte {
	if !r.want(KindNumber) {
		return nil
	}
	start := r.pos
	if !r.advance(canon.Number(r.v, r.pos)) {
		return nil
	}
	return r.v[start:r.pos]
}

// ReadValue consumes the next value, whatever its kind, and returns it. A
// part of a canonical Value is itself canonical.
func (r *Reader) ReadValue() Value {
	if r.err != nil {
		return nil
	}
	start := r.pos
	if !r.advance(canon.Skip(r.v, r.pos)) {
		return nil
	}
	return r.v[start:r.pos:r.pos]
}

// BeginObject consumes the '{' of an object. Read its members with
// [Reader.NextName] until it reports false.
func (r *Reader) BeginObject() bool {
	if !r.want(KindObject) {
		return false
	}
	r.pos++
	return true
}

// NextName moves to the next member of the object being read and returns its
// name in canonical escaped form (see [Reader.ReadQuoted]); the caller then
// reads the member's value. At the closing '}' it consumes it and reports
// false.
func (r *Reader) NextName() ([]byte, bool) {
	if r.err != nil || r.pos >= len(r.v) {
		r.malformed("unterminated object")
		return nil, false
	}
	switch c := r.v[r.pos]; {
	case c == '}':
		r.pos++
		return nil, false
	case r.pos > 0 && r.v[r.pos-1] == '{':
	case c == ',':
		r.pos++
	default:
		r.malformed("want ',' or '}' after an object member")
		return nil, false
	}
	if r.pos >= len(r.v) || r.v[r.pos] != '"' {
		r.malformed("want a member name")
		return nil, false
	}
	name := r.ReadQuoted()
	if r.err != nil {
		return nil, false
	}
	if r.pos >= len(r.v) || r.v[r.pos] != ':' {
		r.malformed("want ':' after a member name")
		return nil, false
	}
	r.pos++
	return name, true
}

// BeginArray consumes the '[' of an array. Read its elements while
// [Reader.NextElement] reports true.
func (r *Reader) BeginArray() bool {
	if !r.want(KindArray) {
		return false
	}
	r.pos++
	return true
}

// NextElement moves to the next element of the array being read; the caller
// then reads it. At the closing ']' it consumes it and reports false.
func (r *Reader) NextElement() bool {
	if r.err != nil || r.pos >= len(r.v) {
		r.malformed("unterminated array")
		return false
	}
	switch c := r.v[r.pos]; {
	case c == ']':
		r.pos++
		return false
	case r.pos > 0 && r.v[r.pos-1] == '[':
		return true
	case c == ',':
		r.pos++
		return true
	}
	r.malformed("want ',' or ']' after an array element")
	return false
}

// want checks that the next value has kind k (either boolean for KindTrue
// and KindFalse) and records a *KindError when it has not.
func (r *Reader) want(k Kind) bool {
	got := r.Peek()
	if got == k || (k == KindTrue || k == KindFalse) && (got == KindTrue || got == KindFalse) {
		return true
	}
	if r.err == nil {
		if got == KindInvalid {
			r.malformed("want a value")
		} else {
			r.err = &KindError{Offset: r.pos, Want: k, Got: got}
		}
	}
	return false
}

// advance moves to end, which a canon scanner returned, recording malformed
// input when it is negative.
func (r *Reader) advance(end int) bool {
	if end < 0 {
		r.malformed("malformed " + r.Peek().String())
		return false
	}
	r.pos = end
	return true
}

func (r *Reader) malformed(what string) {
	if r.err == nil {
		r.err = &SyntaxError{Offset: int64(r.pos), Kind: InvalidSyntax, Detail: "not canonical JSON: " + what}
	}
}

// KindError reports a value of another kind than the reader was asked for.
type KindError struct {
	// Offset is the byte offset of the value.
	Offset int
	// Want and Got are the kinds asked for and found.
	Want, Got Kind
}

// Error returns "jsonvalue: want string, got number at offset N".
func (e *KindError) Error() string {
	return "jsonvalue: want " + e.Want.String() + ", got " + e.Got.String() + " at offset " + strconv.Itoa(e.Offset)
}

// Unescape returns the string whose canonical escaped form (the text between
// the quotes, as [Reader.ReadQuoted] returns it) is quoted. It allocates
// once: the result.
func Unescape(quoted []byte) string {
	i := bytes.IndexByte(quoted, '\\')
	if i < 0 {
		return string(quoted)
	}
	var b strings.Builder
	b.Grow(len(quoted))
	b.Write(quoted[:i])
	for i < len(quoted) {
		c := quoted[i]
		if c != '\\' || i+1 >= len(quoted) {
			j := bytes.IndexByte(quoted[i+1:], '\\')
			if j < 0 {
				b.Write(quoted[i:])
				break
			}
			b.Write(quoted[i : i+1+j])
			i += 1 + j
			continue
		}
		switch e := quoted[i+1]; e {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, n := unicodeEscape(quoted[i:])
			b.WriteRune(r)
			i += n
			continue
		default: // '"', '\\', '/'
			b.WriteByte(e)
		}
		i += 2
	}
	return b.String()
}

// unicodeEscape decodes the \uXXXX escape (or surrogate pair of two) at the
// start of s and returns the rune and the bytes it took; a malformed or
// lone escape gives U+FFFD.
func unicodeEscape(s []byte) (rune, int) {
	r, ok := hex4(s)
	if !ok {
		return utf8.RuneError, min(len(s), 2)
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex4(s[6:]); ok && len(s) >= 12 {
			if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
				return pair, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// hex4 reads the four hex digits of a \uXXXX escape at the start of s.
func hex4(s []byte) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
