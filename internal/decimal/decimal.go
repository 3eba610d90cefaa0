// Package decimal answers questions about JSON number text exactly, on the
// decimal value the text spells and never through float64: whether a number
// is an integer, and whether two numbers are equal.
//
// A float64 gets these wrong at the edges that matter to strict validation:
// 1e400 overflows, 1e-400 underflows to zero, and 12345678901234567891 rounds
// to the same float as 12345678901234567890. This package works on the digits.
package decimal

import (
	"bytes"
	"math/big"
)

// Number is the exact value of one JSON number text in a normal form where
// equal values have equal parts: value = (-1)^neg × D × 10^exp, where D is the
// digit string hi followed by lo, with no leading or trailing zeros.
//
// A Number refers to the bytes it was parsed from; it does not copy them.
type Number struct {
	// hi and lo are the significant digits, split where the text had its
	// decimal point, so that parsing needs no copy.
	hi, lo []byte
	// exp is the exponent of the last significant digit. When huge is set,
	// the exponent part of the text did not fit in int64 arithmetic and exp
	// only carries its sign.
	exp  int64
	neg  bool
	zero bool
	huge bool
	// expText, fracLen and trailing let a huge exponent be recomputed exactly.
	expText  []byte
	fracLen  int
	trailing int
}

// maxExpDigits is the number of exponent digits that int64 arithmetic on the
// exponent can take without overflow, with room for the fraction length.
const maxExpDigits = 17

// Parse reads one JSON number text (RFC 8259 grammar, no surrounding
// whitespace). It reports false when text is not exactly one number.
func Parse(text []byte) (Number, bool) {
	var n Number
	i := 0
	if i < len(text) && text[i] == '-' {
		n.neg = true
		i++
	}
	intStart := i
	switch {
	case i < len(text) && text[i] == '0':
		i++
	case i < len(text) && text[i] >= '1' && text[i] <= '9':
		for i < len(text) && isDigit(text[i]) {
			i++
		}
	default:
		return Number{}, false
	}
	intPart := text[intStart:i]
	var frac []byte
	if i < len(text) && text[i] == '.' {
		i++
		start := i
		for i < len(text) && isDigit(text[i]) {
			i++
		}
		if i == start {
			return Number{}, false
		}
		frac = text[start:i]
	}
	var expVal int64
	expNeg := false
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		i++
		signStart := i
		if i < len(text) && (text[i] == '+' || text[i] == '-') {
			expNeg = text[i] == '-'
			i++
		}
		start := i
		for i < len(text) && isDigit(text[i]) {
			i++
		}
		if i == start {
			return Number{}, false
		}
		digits := text[start:i]
		for len(digits) > 1 && digits[0] == '0' {
			digits = digits[1:]
		}
		if len(digits) > maxExpDigits {
			n.huge = true
			n.expText = text[signStart:i]
		} else {
			for _, c := range digits {
				expVal = expVal*10 + int64(c-'0')
			}
			if expNeg {
				expVal = -expVal
			}
		}
	}
	if i != len(text) {
		return Number{}, false
	}

	hi, lo := intPart, frac
	for len(hi) > 0 && hi[0] == '0' {
		hi = hi[1:]
	}
	if len(hi) == 0 {
		for len(lo) > 0 && lo[0] == '0' {
			lo = lo[1:]
		}
	}
	trailing := 0
	for len(lo) > 0 && lo[len(lo)-1] == '0' {
		lo = lo[:len(lo)-1]
		trailing++
	}
	if len(lo) == 0 {
		for len(hi) > 0 && hi[len(hi)-1] == '0' {
			hi = hi[:len(hi)-1]
			trailing++
		}
	}
	n.hi, n.lo = hi, lo
	n.zero = len(hi) == 0 && len(lo) == 0
	n.fracLen = len(frac)
	n.trailing = trailing
	if n.huge {
		// Only the sign of a huge exponent survives in exp: the fraction
		// length and stripped zeros are bounded by the text length, far below
		// 10^17, so they cannot change it.
		n.exp = 1
		if expNeg {
			n.exp = -1
		}
	} else {
		n.exp = expVal - int64(len(frac)) + int64(trailing)
	}
	return n, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// IsZero reports whether the number is zero (0, -0, 0.0, 0e5 and so on).
func (n Number) IsZero() bool { return n.zero }

// IsInteger reports whether the number has a zero fractional part:
// 1, 1.0, 1e2, -0 and 1e400 are integers; 1.5 and 1e-400 are not.
func (n Number) IsInteger() bool {
	return n.zero || n.exp >= 0
}

// Equal reports whether a and b denote the same mathematical value, so that
// 1, 1.0 and 1e0 are equal, and 0 equals -0.
func (n Number) Equal(m Number) bool {
	if n.zero || m.zero {
		return n.zero && m.zero
	}
	if n.neg != m.neg || len(n.hi)+len(n.lo) != len(m.hi)+len(m.lo) || !sameDigits(n, m) {
		return false
	}
	if !n.huge && !m.huge {
		return n.exp == m.exp
	}
	if (n.exp < 0) != (m.exp < 0) {
		return false
	}
	return n.exactExp().Cmp(m.exactExp()) == 0
}

// sameDigits compares the digit strings of two numbers of equal digit count.
func sameDigits(n, m Number) bool {
	x, xs := n.hi, n.lo
	y, ys := m.hi, m.lo
	for {
		if len(x) == 0 {
			x, xs = xs, nil
		}
		if len(y) == 0 {
			y, ys = ys, nil
		}
		if len(x) == 0 || len(y) == 0 {
			return len(x) == len(y)
		}
		k := min(len(x), len(y))
		if !bytes.Equal(x[:k], y[:k]) {
			return false
		}
		x, y = x[k:], y[k:]
	}
}

// exactExp computes the exponent of the last significant digit exactly.
func (n Number) exactExp() *big.Int {
	if !n.huge {
		return big.NewInt(n.exp)
	}
	e := new(big.Int)
	e.SetString(string(n.expText), 10)
	e.Sub(e, big.NewInt(int64(n.fracLen)))
	return e.Add(e, big.NewInt(int64(n.trailing)))
}

// IsInteger reports whether text, which must be JSON number text, has a zero
// fractional part. It is the fast path of Parse(text).IsInteger(): text
// without a fraction or exponent is an integer without further work.
func IsInteger(text []byte) bool {
	for _, c := range text {
		if c == '.' || c == 'e' || c == 'E' {
			n, ok := Parse(text)
			return ok && n.IsInteger()
		}
	}
	return true
}

// Uint64 returns the magnitude of an integer number as a uint64; ok is false
// when the number is not an integer or its magnitude does not fit.
func (n Number) Uint64() (mag uint64, ok bool) {
	if n.zero {
		return 0, true
	}
	if n.huge || n.exp < 0 || int64(len(n.hi)+len(n.lo))+n.exp > 20 {
		return 0, false
	}
	const cutoff = (1<<64 - 1) / 10
	digit := func(c byte) bool {
		d := uint64(c - '0')
		if mag > cutoff || mag*10 > 1<<64-1-d {
			return false
		}
		mag = mag*10 + d
		return true
	}
	for _, c := range n.hi {
		if !digit(c) {
			return 0, false
		}
	}
	for _, c := range n.lo {
		if !digit(c) {
			return 0, false
		}
	}
	for range n.exp {
		if !digit('0') {
			return 0, false
		}
	}
	return mag, true
}

// Negative reports whether the number is below zero (-0 is not).
func (n Number) Negative() bool { return n.neg && !n.zero }
