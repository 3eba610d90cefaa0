// Package canon scans canonical JSON text: the compact form that
// jsonvalue.Materialize produces (no whitespace, strings escaped the one way
// jsontext escapes them, valid UTF-8, no duplicate names).
//
// Because that text was checked once when it was materialized, these scanners
// only find the ends of tokens; they do not re-verify UTF-8, escapes or names.
// They never panic: every function takes any bytes and reports malformed
// structure by returning -1.
package canon

import (
	"bytes"
	"unicode/utf8"
)

// String returns the index just past the JSON string that starts at b[i],
// which must be a double quote, or -1 when there is no closing quote.
func String(b []byte, i int) int {
	j := i + 1
	// Most strings are short: a plain loop beats IndexByte's setup there.
	for end := min(j+16, len(b)); j < end; j++ {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			return stringSlow(b, i, j)
		}
	}
	return stringSlow(b, i, j)
}

// stringSlow finishes String from b[j] for long strings or strings with
// escapes: it jumps between quotes and counts the backslashes before each.
func stringSlow(b []byte, i, j int) int {
	for j < len(b) {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		escapes := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return -1
}

// Number returns the index just past the JSON number that starts at b[i], or
// -1 when the bytes there do not follow the RFC 8259 number grammar.
func Number(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i++
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		if i == start {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		if i == start {
			return -1
		}
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Literal returns the index just past the literal true, false or null at
// b[i], or -1 when none is there.
func Literal(b []byte, i int) int {
	rest := b[min(i, len(b)):]
	switch {
	case bytes.HasPrefix(rest, litTrue):
		return i + len(litTrue)
	case bytes.HasPrefix(rest, litFalse):
		return i + len(litFalse)
	case bytes.HasPrefix(rest, litNull):
		return i + len(litNull)
	}
	return -1
}

var (
	litTrue  = []byte("true")
	litFalse = []byte("false")
	litNull  = []byte("null")
)

// Skip returns the index just past the JSON value that starts at b[i], or -1
// when the bytes there are not one value. It keeps a depth count instead of
// recursing, so arbitrarily deep input costs no stack.
func Skip(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i = String(b, i)
		case '{', '[':
			depth++
			i++
			continue
		case '}', ']':
			depth--
			i++
		case ',', ':':
			if depth == 0 {
				return -1
			}
			i++
			continue
		case 't', 'f', 'n':
			i = Literal(b, i)
		default:
			i = Number(b, i)
		}
		if i < 0 || depth < 0 {
			return -1
		}
		if depth == 0 {
			return i
		}
	}
	return -1
}

// CanonicalString reports whether b is exactly one JSON string in the
// canonical form jsontext writes: valid UTF-8, no raw control characters,
// '"' and '\\' escaped with a backslash, \b \f \n \r \t in short form, and
// other control characters as \u00xx in lower-case hex; nothing else escaped.
func CanonicalString(b []byte) bool {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return false
	}
	s := b[1 : len(b)-1]
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '"' || c < 0x20:
			return false
		case c == '\\':
			if i+1 >= len(s) {
				return false
			}
			switch s[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) || !canonicalControlEscape(s[i+2:i+6]) {
					return false
				}
				i += 6
			default:
				return false
			}
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			i += size
		}
	}
	return true
}

// canonicalControlEscape reports whether hex, the four digits of a \u
// escape, is the canonical spelling of a control character that has no
// short escape.
func canonicalControlEscape(hex []byte) bool {
	if hex[0] != '0' || hex[1] != '0' || (hex[2] != '0' && hex[2] != '1') {
		return false
	}
	c := hex[3]
	var low byte
	switch {
	case c >= '0' && c <= '9':
		low = c - '0'
	case c >= 'a' && c <= 'f':
		low = c - 'a' + 10
	default:
		return false
	}
	switch (hex[2]-'0')<<4 | low {
	case '\b', '\f', '\n', '\r', '\t':
		return false
	}
	return true
}

// Scalar reports whether b is exactly one canonical JSON scalar: a
// canonical string, a number, true, false or null.
func Scalar(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	switch b[0] {
	case '"':
		return CanonicalString(b)
	case 't', 'f', 'n':
		return Literal(b, 0) == len(b)
	}
	return Number(b, 0) == len(b)
}
