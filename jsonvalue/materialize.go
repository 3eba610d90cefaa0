package jsonvalue

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// DefaultMaxDepth is the nesting limit [Materialize] applies: a value may
// hold at most this many levels of objects and arrays.
const DefaultMaxDepth = 512

// MaxDepthLimit is the largest nesting limit an [Options] value can set. It
// is the bound of the underlying jsontext parser; larger settings act as it.
const MaxDepthLimit = 10000

// Options are the limits of one materialization. The zero value applies the
// defaults.
type Options struct {
	// MaxDepth is the deepest nesting of objects and arrays accepted: 0 or a
	// negative value means DefaultMaxDepth, and values above MaxDepthLimit
	// act as MaxDepthLimit. A top-level scalar has depth 0, [] has depth 1.
	MaxDepth int
}

func (o Options) maxDepth() int {
	switch {
	case o.MaxDepth <= 0:
		return DefaultMaxDepth
	case o.MaxDepth > MaxDepthLimit:
		return MaxDepthLimit
	}
	return o.MaxDepth
}

// Materialize parses raw as exactly one JSON value with the default limits
// and returns it in canonical form. See [Options.Materialize].
func Materialize(raw []byte) (Value, error) {
	return Options{}.Materialize(raw)
}

// Materialize parses raw as exactly one JSON value, surrounded by optional
// whitespace, and returns it in canonical form: whitespace removed, strings
// re-escaped canonically, numbers and member order kept as written.
//
// It rejects with a [*SyntaxError] naming the byte offset and the problem:
// invalid syntax (including NaN or Infinity, which JSON does not have),
// invalid UTF-8, escapes of lone UTF-16 surrogates, duplicate member names
// in one object, data after the value, truncated input, and nesting deeper
// than o.MaxDepth. The result never aliases raw.
func (o Options) Materialize(raw []byte) (Value, error) {
	return materialize(raw, o.maxDepth(), true)
}

// materialize is Materialize, with the fast path optional for tests that
// compare the two paths.
func materialize(raw []byte, limit int, tryFast bool) (Value, error) {
	if tryFast {
		// The fast path checks depth itself, exactly.
		if out, ok := fast(raw, make([]byte, 0, len(raw)), limit, false); ok {
			if cap(out)-len(out) > len(out)/2+64 {
				out = bytes.Clone(out) // do not keep the input's whitespace allocated
			}
			return out, nil
		}
	}

	// Counting brackets is far cheaper than parsing; only input that could
	// be too deep pays for the exact, string-aware depth scan.
	if bytes.Count(raw, []byte{'{'})+bytes.Count(raw, []byte{'['}) > limit {
		if at := tooDeepAt(raw, limit); at >= 0 {
			return nil, depthError(raw, at, limit)
		}
	}

	m := materializers.Get().(*materializer)
	defer m.release()
	if err := m.enc.WriteValue(raw); err != nil {
		return nil, classify(raw, err)
	}
	out := m.buf.Bytes()
	// The encoder ends every top-level value with a newline.
	out = out[:len(out)-1]
	return bytes.Clone(out), nil
}

// materializer is a reusable canonicalizing jsontext encoder.
type materializer struct {
	buf bytes.Buffer
	enc *jsontext.Encoder
}

// maxPooledBuffer bounds the buffer a pooled materializer keeps, so that one
// huge input does not pin its memory for the life of the process.
const maxPooledBuffer = 64 << 10

var materializers = sync.Pool{New: func() any {
	m := new(materializer)
	m.enc = jsontext.NewEncoder(&m.buf)
	return m
}}

func (m *materializer) release() {
	if m.buf.Cap() > maxPooledBuffer {
		return
	}
	m.buf.Reset()
	m.enc.Reset(&m.buf)
	materializers.Put(m)
}

// tooDeepAt returns the offset of the first '{' or '[' in raw that opens a
// level deeper than limit, or -1. It skips strings but checks nothing else:
// syntax is the parser's job.
func tooDeepAt(raw []byte, limit int) int {
	depth := 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
			if depth > limit {
				return i
			}
		case '}', ']':
			depth--
		}
	}
	return -1
}

// depthError reports nesting beyond limit at offset at, unless the input
// already has a syntax error before that point, which is then reported
// instead so that the first problem in the input is the one named.
func depthError(raw []byte, at, limit int) error {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	for dec.InputOffset() <= int64(at) {
		if _, err := dec.ReadToken(); err != nil {
			var se *jsontext.SyntacticError
			if errors.As(err, &se) && se.ByteOffset < int64(at) {
				return classify(raw, err)
			}
			break
		}
	}
	return &SyntaxError{
		Offset: int64(at),
		Kind:   TooDeep,
		Detail: fmt.Sprintf("nesting deeper than the limit of %d levels", limit),
	}
}

// classify turns a jsontext error for raw into a *SyntaxError. Nesting is
// never jsontext's to reject: the depth check before parsing is stricter.
func classify(raw []byte, err error) error {
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return &SyntaxError{Kind: InvalidSyntax, Detail: err.Error(), err: err}
	}
	e := &SyntaxError{Offset: se.ByteOffset, Pointer: string(se.JSONPointer), err: err}
	at := raw[min(int(se.ByteOffset), len(raw)):]
	switch {
	case errors.Is(err, jsontext.ErrDuplicateName):
		e.Kind = DuplicateName
		e.Detail = "duplicate object member name"
		if name, ok := quotedPrefix(at); ok {
			e.Detail += " " + name
		}
	case errors.Is(err, io.ErrUnexpectedEOF):
		e.Kind = Truncated
		e.Detail = "unexpected end of input"
		if len(bytes.TrimLeft(raw, " \t\r\n")) == 0 {
			e.Detail = "empty input: want one JSON value"
		}
	case len(at) > 0 && !utf8.FullRune(at) || startsInvalidRune(at):
		e.Kind = InvalidUTF8
		e.Detail = "invalid UTF-8"
	case bytes.HasPrefix(at, []byte(`\u`)) && isSurrogateEscape(at):
		e.Kind = LoneSurrogate
		e.Detail = "escape " + string(at[:6]) + " is half of a UTF-16 surrogate pair with no matching half"
	case trailingAfterValue(raw):
		e.Kind = TrailingData
		e.Detail = "data after the top-level value"
	default:
		e.Kind = InvalidSyntax
		e.Detail = se.Err.Error()
	}
	return e
}

func startsInvalidRune(b []byte) bool {
	if len(b) == 0 || b[0] < utf8.RuneSelf {
		return false
	}
	r, size := utf8.DecodeRune(b)
	return r == utf8.RuneError && size <= 1
}

// isSurrogateEscape reports whether b starts with \uXXXX naming a UTF-16
// surrogate code unit.
func isSurrogateEscape(b []byte) bool {
	if len(b) < 6 {
		return false
	}
	var v rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return false
		}
	}
	return v >= 0xD800 && v <= 0xDFFF
}

// trailingAfterValue reports whether raw starts with one complete, valid
// JSON value followed by something other than whitespace.
func trailingAfterValue(raw []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.ReadValue(); err != nil {
		return false
	}
	return len(bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n")) > 0
}

// quotedPrefix returns the JSON string at the start of b as written, for
// error messages, or false.
func quotedPrefix(b []byte) (string, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true))
	v, err := dec.ReadValue()
	if err != nil || v.Kind() != '"' {
		return "", false
	}
	return string(v), true
}
