package argsgen

import (
	"slices"

	"github.com/toolgen-go/toolgen/jsonvalue"
)

// interestingBytes are the bytes Mutate inserts or flips to most often:
// JSON punctuation, number characters, escapes and UTF-8 lead bytes.
const interestingBytes = "{}[]\":,0-.eE+\\u /\x00\x1f\x7f\xc3\xe2\xf0\x80\xff"

// interestingTokens are the tokens Mutate puts in place of another.
var interestingTokens = []string{
	"null", "true", "false", "0", "-0", "1.5", "1e400", "-1e400", "9223372036854775808", "18446744073709551616",
	`""`, `"\u0000"`, `"\ud800"`, "{}", "[]", `{"":0}`, "[null]",
}

// Mutate returns a byte-level mutation of doc: bytes flipped, inserted,
// deleted or duplicated, two tokens swapped, a token replaced, or the text
// truncated. When the mutated bytes are still one JSON value, it returns
// them materialized (canonical, as [jsonvalue.Materialize] returns them)
// and true; otherwise it returns nil and false. The mutation may leave a
// document equal to doc.
func (g *Generator) Mutate(doc jsonvalue.Value) (jsonvalue.Value, bool) {
	b := g.mutateBytes(slices.Clone([]byte(doc)))
	out, err := jsonvalue.Materialize(b)
	if err != nil {
		return nil, false
	}
	return out, true
}

// mutateBytes applies one random byte-level mutation to b, which it owns.
func (g *Generator) mutateBytes(b []byte) []byte {
	r := g.rng
	pick := func() byte {
		if r.IntN(2) == 0 {
			return interestingBytes[r.IntN(len(interestingBytes))]
		}
		return byte(r.UintN(256))
	}
	if len(b) == 0 {
		return append(b, pick())
	}
	switch r.IntN(7) {
	case 0: // flip one bit
		i := r.IntN(len(b))
		b[i] ^= 1 << r.IntN(8)
	case 1: // overwrite or insert one byte
		i := r.IntN(len(b) + 1)
		if i < len(b) && r.IntN(2) == 0 {
			b[i] = pick()
		} else {
			b = slices.Insert(b, i, pick())
		}
	case 2: // delete a short range
		i := r.IntN(len(b))
		b = slices.Delete(b, i, min(len(b), i+1+r.IntN(3)))
	case 3: // duplicate a range in place
		i := r.IntN(len(b))
		j := i + 1 + r.IntN(len(b)-i)
		b = slices.Insert(b, j, slices.Clone(b[i:j])...)
	case 4: // swap two tokens
		toks := tokens(b)
		if len(toks) < 2 {
			return g.mutateBytes(b)
		}
		i := r.IntN(len(toks))
		j := (i + 1 + r.IntN(len(toks)-1)) % len(toks)
		if i > j {
			i, j = j, i
		}
		ti, tj := toks[i], toks[j]
		var out []byte
		out = append(out, b[:ti.start]...)
		out = append(out, b[tj.start:tj.end]...)
		out = append(out, b[ti.end:tj.start]...)
		out = append(out, b[ti.start:ti.end]...)
		b = append(out, b[tj.end:]...)
	case 5: // replace a token
		toks := tokens(b)
		t := toks[r.IntN(len(toks))]
		b = slices.Replace(b, t.start, t.end, []byte(interestingTokens[r.IntN(len(interestingTokens))])...)
	default: // truncate
		b = b[:r.IntN(len(b))]
	}
	return b
}

// span is the byte range of one token.
type span struct{ start, end int }

// tokens splits JSON text into tokens: strings, punctuation, and runs of
// other bytes (numbers, literals). It accepts any bytes.
func tokens(b []byte) []span {
	var out []span
	for i := 0; i < len(b); {
		start := i
		switch c := b[i]; {
		case c == '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			i = min(i+1, len(b))
		case isDelim(c):
			i++
		default:
			for i < len(b) && !isDelim(b[i]) && b[i] != '"' {
				i++
			}
		}
		out = append(out, span{start, i})
	}
	return out
}

func isDelim(c byte) bool {
	switch c {
	case '{', '}', '[', ']', ',', ':', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
