package jsonvalue

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/toolgen-go/toolgen/internal/canon"
)

// This file is Materialize's fast path. Most input is already canonical but
// for whitespace: strings use only the short escapes, numbers need no change.
// For such input the canonical form is the input without its whitespace, so
// one pass that checks the grammar, UTF-8, duplicate names and depth, and
// copies everything but whitespace, is enough. The fast path never reports
// an error and never rewrites anything: whenever the input is not plainly
// valid and canonical (an error, a \u escape, an escaped '/', an object too
// large for its duplicate check) it gives up, and the jsontext path, which is
// the authority on every error and every rewrite, takes over. A differential
// fuzz test holds the two paths to identical output.

// maxFastMembers is the largest object whose names the fast path checks for
// duplicates by pairwise comparison; larger objects take the jsontext path.
const maxFastMembers = 32

// scanner is the fast path's state.
type scanner struct {
	stack []byte // '{' or '[' per open container
	names []span // member names of the open objects, as offsets into raw
	marks []int  // per open object, where its names start in names
}

type span struct{ start, end int }

// fast appends the canonical form of raw to out and reports true, or
// reports false when raw needs the jsontext path.
//
// With verify set it copies nothing and also gives up on any whitespace:
// it then reports whether raw is already exactly canonical.
func fast(raw, out []byte, limit int, verify bool) ([]byte, bool) {
	// Small fixed buffers keep ordinary input off the heap; they are
	// zeroed on every call, so they are sized for typical tool arguments
	// (a few levels, a few dozen names) and grow on the heap beyond that.
	var stack [8]byte
	var names [16]span
	var marks [8]int
	s := scanner{stack: stack[:0], names: names[:0], marks: marks[:0]}
	i, plain := space(raw, 0, verify)
	if !plain || i >= len(raw) {
		return nil, false
	}
	ok := false
value:
	for i < len(raw) {
		switch c := raw[i]; {
		case c == '{' || c == '[':
			if len(s.stack) >= limit {
				return nil, false
			}
			s.stack = append(s.stack, c)
			if !verify {
				out = append(out, c)
			}
			if i, plain = space(raw, i+1, verify); !plain || i >= len(raw) {
				return nil, false
			}
			if c == '{' {
				s.marks = append(s.marks, len(s.names))
				if raw[i] == '}' {
					i++
					if !verify {
						out = append(out, '}')
					}
					s.pop()
					goto after
				}
				goto name
			}
			if raw[i] == ']' {
				i++
				if !verify {
					out = append(out, ']')
				}
				s.pop()
				goto after
			}
			continue value
		case c == '"':
			end := fastString(raw, i)
			if end < 0 {
				return nil, false
			}
			if !verify {
				out = append(out, raw[i:end]...)
			}
			i = end
		case c == '-' || c >= '0' && c <= '9':
			end := fastNumber(raw, i)
			if end < 0 {
				return nil, false
			}
			if !verify {
				out = append(out, raw[i:end]...)
			}
			i = end
		case c == 't' || c == 'f' || c == 'n':
			end := fastLiteral(raw, i)
			if end < 0 {
				return nil, false
			}
			if !verify {
				out = append(out, raw[i:end]...)
			}
			i = end
		default:
			return nil, false
		}
		goto after

	name:
		if raw[i] != '"' {
			return nil, false
		}
		{
			end := fastString(raw, i)
			if end < 0 {
				return nil, false
			}
			if !verify {
				out = append(out, raw[i:end]...)
			}
			mark := s.marks[len(s.marks)-1]
			if len(s.names)-mark >= maxFastMembers {
				return nil, false
			}
			// Names are copied verbatim, so comparing input bytes compares
			// names.
			for _, n := range s.names[mark:] {
				if string(raw[n.start:n.end]) == string(raw[i:end]) {
					return nil, false
				}
			}
			s.names = append(s.names, span{i, end})
			if i, plain = space(raw, end, verify); !plain || i >= len(raw) || raw[i] != ':' {
				return nil, false
			}
			if !verify {
				out = append(out, ':')
			}
			if i, plain = space(raw, i+1, verify); !plain {
				return nil, false
			}
			continue value
		}

	after:
		for {
			if len(s.stack) == 0 {
				end, plain := space(raw, i, verify)
				ok = plain && end == len(raw)
				break value
			}
			if i, plain = space(raw, i, verify); !plain || i >= len(raw) {
				return nil, false
			}
			top := s.stack[len(s.stack)-1]
			switch c := raw[i]; {
			case c == ',':
				if !verify {
					out = append(out, ',')
				}
				if i, plain = space(raw, i+1, verify); !plain || i >= len(raw) {
					return nil, false
				}
				if top == '{' {
					goto name
				}
				continue value
			case c == '}' && top == '{' || c == ']' && top == '[':
				if !verify {
					out = append(out, c)
				}
				i++
				s.pop()
			default:
				return nil, false
			}
		}
	}
	return out, ok
}

func (s *scanner) pop() {
	if s.stack[len(s.stack)-1] == '{' {
		s.names = s.names[:s.marks[len(s.marks)-1]]
		s.marks = s.marks[:len(s.marks)-1]
	}
	s.stack = s.stack[:len(s.stack)-1]
}

// space skips whitespace from i and reports false when, in verify mode,
// there was any.
func space(b []byte, i int, verify bool) (int, bool) {
	j := skipSpace(b, i)
	return j, !verify || j == i
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special returns a word whose high bit is set in the lowest byte of w that
// is a control character, '"', '\\' or a non-ASCII byte, or 0 when there is
// none. Borrows can also flag bytes above the first special one, never below
// it, so only the lowest flag is exact.
func special(w uint64) uint64 {
	quote := w ^ (lsb * '"')
	back := w ^ (lsb * '\\')
	m := (w - lsb*0x20) & ^w // bytes below 0x20
	m |= (quote - lsb) & ^quote
	m |= (back - lsb) & ^back
	m |= w // non-ASCII bytes
	return m & msb
}

// fastString returns the end of the canonical string at b[i], or -1 when
// the string is invalid or needs rewriting (a \u escape or "\/").
func fastString(b []byte, i int) int {
	j := i + 1
	for {
		for j+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[j:])); m != 0 {
				j += bits.TrailingZeros64(m) >> 3
				break
			}
			j += 8
		}
		for j < len(b) && b[j] >= 0x20 && b[j] < utf8.RuneSelf && b[j] != '"' && b[j] != '\\' {
			j++
		}
		if j >= len(b) {
			return -1
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1
		case c == '\\':
			if j+1 >= len(b) {
				return -1
			}
			switch b[j+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				j += 2
			default:
				return -1
			}
		case c < 0x20:
			return -1
		case c < utf8.RuneSelf:
			j++
		case c >= 0xC2 && c < 0xE0 && j+1 < len(b) && b[j+1]&0xC0 == 0x80:
			j += 2 // a two-byte sequence, the common case of non-ASCII text
		default:
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				return -1
			}
			j += size
		}
	}
}

// fastNumber returns the end of the number at b[i], or -1. Unlike
// canon.Number it insists on a delimiter after the number, so that "01"
// and "1x" go to the path that reports them.
func fastNumber(b []byte, i int) int { return delimited(b, canon.Number(b, i)) }

// fastLiteral returns the end of the literal at b[i], or -1; see fastNumber.
func fastLiteral(b []byte, i int) int { return delimited(b, canon.Literal(b, i)) }

// delimited returns end when a token ending there is followed by the end of
// input or a byte that may follow a value, and -1 otherwise.
func delimited(b []byte, end int) int {
	if end < 0 || end == len(b) {
		return end
	}
	switch b[end] {
	case ',', '}', ']', ':', ' ', '\n', '\r', '\t':
		return end
	}
	return -1
}
