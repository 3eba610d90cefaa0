package argsgen

import (
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// kind is the kind of a generated value.
type kind uint8

const (
	kNull kind = iota
	kFalse
	kTrue
	kNumber
	kString
	kArray
	kObject
	kRaw // JSON text kept as it is, for an enum value this package does not take apart
)

// val is a generated JSON value before it is written out.
type val struct {
	k kind
	// s is the number text, the string's content (not escaped), or the raw
	// JSON text.
	s     string
	elems []*val
	mems  []member
	// nodes are the schema nodes the value was generated for, outermost
	// first: the node of its position, then the oneOf branches taken. It
	// is nil for values no schema governs (inside an arbitrary value, or an
	// unknown member of an open object).
	nodes []*schemasubset.Node
}

// member is one object member.
type member struct {
	name string
	v    *val
}

// clone returns a deep copy of v.
func (v *val) clone() *val {
	c := *v
	c.elems = make([]*val, len(v.elems))
	for i, e := range v.elems {
		c.elems[i] = e.clone()
	}
	c.mems = make([]member, len(v.mems))
	for i, m := range v.mems {
		c.mems[i] = member{m.name, m.v.clone()}
	}
	return &c
}

// writePlain appends v to dst as compact JSON with the jsontext escapes.
func writePlain(dst []byte, v *val) []byte {
	return writer{}.value(dst, v)
}

// write appends v to dst as JSON, with random whitespace and escapes that
// Materialize removes again.
func (g *Generator) write(dst []byte, v *val) []byte {
	return writer{rng: g.rng}.value(dst, v)
}

// writer writes values; with a nil rng it writes compact canonical text.
type writer struct{ rng *rand.Rand }

var spaces = []string{" ", "\n", "\t", "\r\n  "}

func (w writer) space(dst []byte) []byte {
	if w.rng != nil && w.rng.IntN(8) == 0 {
		dst = append(dst, spaces[w.rng.IntN(len(spaces))]...)
	}
	return dst
}

func (w writer) value(dst []byte, v *val) []byte {
	dst = w.space(dst)
	switch v.k {
	case kNull:
		dst = append(dst, "null"...)
	case kFalse:
		dst = append(dst, "false"...)
	case kTrue:
		dst = append(dst, "true"...)
	case kNumber, kRaw:
		dst = append(dst, v.s...)
	case kString:
		dst = w.str(dst, v.s)
	case kArray:
		dst = append(dst, '[')
		for i, e := range v.elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = w.value(dst, e)
		}
		dst = append(w.space(dst), ']')
	case kObject:
		dst = append(dst, '{')
		for i, m := range v.mems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = w.str(w.space(dst), m.name)
			dst = append(w.space(dst), ':')
			dst = w.value(dst, m.v)
		}
		dst = append(w.space(dst), '}')
	}
	return w.space(dst)
}

// shortEscapes are the two-character escapes of JSON other than \" and \\.
var shortEscapes = map[rune]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// str appends s quoted. A writer with an rng sometimes spells characters
// with escapes that are not canonical (\u0041, \/, surrogate pairs).
func (w writer) str(dst []byte, s string) []byte {
	if w.rng == nil || w.rng.IntN(4) != 0 {
		dst, _ = jsontext.AppendQuote(dst, s)
		return dst
	}
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			if w.rng.IntN(4) == 0 {
				dst = appendU(dst, r)
			} else {
				dst = append(dst, '\\', byte(r))
			}
		case r < 0x20:
			if c, ok := shortEscapes[r]; ok && w.rng.IntN(2) == 0 {
				dst = append(dst, '\\', c)
			} else {
				dst = appendU(dst, r)
			}
		case r == '/' && w.rng.IntN(2) == 0:
			dst = append(dst, `\/`...)
		case r < utf8.RuneSelf && w.rng.IntN(16) == 0:
			dst = appendU(dst, r)
		case r >= utf8.RuneSelf && w.rng.IntN(4) == 0:
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				dst = appendU(appendU(dst, r1), r2)
			} else {
				dst = appendU(dst, r)
			}
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}

// appendU appends the escape \uXXXX of the UTF-16 code unit r, with hex
// letters in upper or lower case depending on r.
func appendU(dst []byte, r rune) []byte {
	hex := strconv.FormatInt(int64(r)|0x10000, 16)[1:]
	if r%3 == 0 {
		hex = strings.ToUpper(hex)
	}
	return append(append(dst, `\u`...), hex...)
}

// Strings.

var (
	// bmpRunes are non-ASCII runes of the Basic Multilingual Plane,
	// including the UTF-8 length boundaries and the separators that
	// JavaScript treats as line ends.
	bmpRunes = []rune{'é', 'ü', 'ß', 'Ω', 'ж', '中', '文', 'ア', 0x80, 0x7ff, 0x800, 0x2028, 0x2029, 0xfeff, 0xfffd, 0xffff, 0xe000}
	// astralRunes are runes above the BMP, which UTF-16 spells as pairs.
	astralRunes = []rune{0x10000, 0x1f600, 0x1f4a9, 0x20000, 0x10ffff}
	// wholeStrings are strings that look like other JSON or are edge cases.
	wholeStrings = []string{"", " ", "true", "null", "0", "-1", "1e400", "{}", "[]", `"`, `\`, "\x00", "a\u2028b", "\U0001f600"}
)

const asciiChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-. "

// str returns a random valid UTF-8 string.
func (g *Generator) str() string {
	r := g.rng
	if r.IntN(10) == 0 {
		return wholeStrings[r.IntN(len(wholeStrings))]
	}
	var b []byte
	for range r.IntN(9) {
		switch p := r.IntN(100); {
		case p < 50:
			b = append(b, asciiChars[r.IntN(len(asciiChars))])
		case p < 60:
			b = append(b, `"\/`[r.IntN(3)])
		case p < 70:
			if r.IntN(8) == 0 {
				b = append(b, 0x7f)
			} else {
				b = append(b, byte(r.IntN(0x20)))
			}
		case p < 85:
			b = utf8.AppendRune(b, bmpRunes[r.IntN(len(bmpRunes))])
		case p < 95:
			b = utf8.AppendRune(b, astralRunes[r.IntN(len(astralRunes))])
		default:
			c := rune(0x80 + r.IntN(0xd800-0x80))
			if r.IntN(2) == 0 {
				c = rune(0xe000 + r.IntN(0x10000-0xe000))
			}
			b = utf8.AppendRune(b, c)
		}
	}
	return string(b)
}

// Numbers.

// boundaryIntegers are the limits of the Go integer types and the values
// next to them, for both signs, plus the exactness limits of float32 and
// float64: the values whose range checks decoders get wrong.
var boundaryIntegers = func() []string {
	var out []string
	one := big.NewInt(1)
	for _, bits := range []uint{7, 8, 15, 16, 24, 31, 32, 53, 63, 64} {
		p := new(big.Int).Lsh(one, bits)
		for _, d := range []int64{-1, 0, 1} {
			v := new(big.Int).Add(p, big.NewInt(d))
			out = append(out, v.String(), "-"+v.String())
		}
	}
	return out
}()

// oddIntegers are integers in spellings that are not plain digits, and
// magnitudes beyond every Go type.
var oddIntegers = []string{
	"0", "-0", "0.0", "-0.0", "0e0", "0E-5", "-0.000e10", "3", "3.0", "3e0", "30e-1", "0.3e1", "3.000", "3E+0",
	"1e2", "1E2", "1e+2", "100e-2", "2.5e1", "-4.0", "127.0", "1.27e2", "1280e-1", "3.2768e4",
	"9.223372036854775807e18", "9223372036854775808.0", "1.8446744073709551616e19",
	"12345678901234567890", "99999999999999999999999", "1e19", "1e20", "1e400", "-1e400", "1e309", "-1e309",
	"1.7976931348623157e308", "3.4028234663852886e38", "3.4e39", "-3.4e39", "9007199254740993", "16777217",
}

// fractions are numbers with a nonzero fraction, and magnitudes at and
// beyond the float32 and float64 limits.
var fractions = []string{
	"0.5", "-0.5", "1.5", "-1.25", "0.1", "0.30000000000000004", "1e-7", "2.5E-3", "-1.25e-3", "123456789.123456789",
	"3.4e38", "3.4028235e38", "3.4028235677973366e38", "3.4e39", "-3.4e39", "1.7976931348623157e308",
	"1.7976931348623159e308", "1e309", "-1e309", "5e-324", "2e-324", "1e-400", "-1e-400", "1.401298464324817e-45", "1e-46",
	"3.141592653589793238462643383279", "6.02214076e23", "-0.0001",
}

// integer returns the text of a random integer.
func (g *Generator) integer() string {
	r := g.rng
	switch p := r.IntN(100); {
	case p < 40:
		s := boundaryIntegers[r.IntN(len(boundaryIntegers))]
		if r.IntN(4) == 0 {
			s = g.respell(s)
		}
		return s
	case p < 65:
		s := strconv.Itoa(r.IntN(601) - 300)
		if r.IntN(2) == 0 {
			s = g.respell(s)
		}
		return s
	case p < 90:
		return oddIntegers[r.IntN(len(oddIntegers))]
	case p < 95:
		return strconv.FormatUint(r.Uint64(), 10)
	}
	return strconv.FormatInt(int64(r.Uint64()), 10)
}

// number returns the text of a random number, integer or not.
func (g *Generator) number() string {
	r := g.rng
	switch p := r.IntN(100); {
	case p < 35:
		return g.integer()
	case p < 75:
		return fractions[r.IntN(len(fractions))]
	}
	f := r.NormFloat64() * []float64{1, 1e3, 1e-5, 1e30}[r.IntN(4)]
	format := []byte{'g', 'e', 'f', 'E'}[r.IntN(4)]
	if format == 'f' && (f > 1e21 || f < -1e21) {
		format = 'g'
	}
	return strconv.FormatFloat(f, format, -1, 64)
}

// respell returns another spelling of the same number: 3 becomes 3.0, 3e0,
// 30e-1, 3E+0 or 3.0e0; text with an exponent is returned as it is.
func (g *Generator) respell(s string) string {
	if strings.ContainsAny(s, "eE") {
		return s
	}
	hasDot := strings.Contains(s, ".")
	digits := strings.TrimPrefix(s, "-")
	sign := s[:len(s)-len(digits)]
	switch g.rng.IntN(6) {
	case 0:
		if !hasDot {
			return s + ".0"
		}
		return s + "0"
	case 1:
		return s + "e0"
	case 2:
		if digits == "0" || strings.HasPrefix(digits, "0.") && strings.Trim(digits, "0.") == "" {
			return sign + "0e-1"
		}
		if !hasDot {
			return s + "0e-1"
		}
		return s + "E+0"
	case 3:
		return s + "E+0"
	case 4:
		if !hasDot && len(digits) > 1 {
			// 32768 as 3.2768e4.
			return sign + digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(len(digits)-1)
		}
		return s + "e-0"
	}
	if digits == "0" {
		return "-0"
	}
	return s
}
