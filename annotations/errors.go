package annotations

import (
	"fmt"
	"go/token"
	"strings"
)

// Error is one problem in annotation text. Offset is a byte offset into the
// string that was given to the parser (the gen package adds it to a source
// position).
type Error struct {
	// Offset is the byte offset of the offending text, in [0, len(input)].
	Offset int
	// Message says what is wrong and what to write instead.
	Message string
}

// Error returns the message, so that an *Error can be used as an error.
func (e *Error) Error() string { return e.Message }

// Value is one option value with where it appeared.
type Value struct {
	// Text is the value text, unescaped.
	Text string
	// Offset is the byte offset of the value's first byte in the parsed
	// string.
	Offset int
	// Set reports that the option was present (and, for the directive
	// options, valid).
	Set bool
}

// errorf builds an *Error at offset.
func errorf(offset int, format string, args ...any) *Error {
	return &Error{Offset: offset, Message: fmt.Sprintf(format, args...)}
}

// isBlank reports whether c separates tokens in directive arguments.
func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// token is one blank-separated token of directive arguments.
type argToken struct {
	text   string
	offset int
}

// splitBlanks splits s into its blank-separated tokens with their offsets.
func splitBlanks(s string) []argToken {
	var out []argToken
	i := 0
	for i < len(s) {
		for i < len(s) && isBlank(s[i]) {
			i++
		}
		start := i
		for i < len(s) && !isBlank(s[i]) {
			i++
		}
		if i > start {
			out = append(out, argToken{text: s[start:i], offset: start})
		}
	}
	return out
}

// isIdent reports whether s is a Go identifier that can name a declaration:
// not a keyword and not the blank identifier.
func isIdent(s string) bool {
	return s != "_" && token.IsIdentifier(s)
}

// isQualified reports whether s looks like pkg.Name, a qualified identifier.
func isQualified(s string) bool {
	pkg, name, ok := strings.Cut(s, ".")
	return ok && token.IsIdentifier(pkg) && token.IsIdentifier(name)
}

// closest returns the candidate nearest to s by edit distance, ignoring case
// and the characters '_' and '-', when it is near enough to be a plausible
// typo; "" otherwise.
func closest(s string, candidates []string) string {
	norm := func(x string) string {
		return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(x))
	}
	ns := norm(s)
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(ns, norm(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(ns) <= 4 {
		limit = 1
	}
	if best == "" || bestD > limit || ns == "" {
		return ""
	}
	return best
}

// editDistance is the edit distance between a and b, in bytes, counting a
// swap of two adjacent bytes as one edit (the optimal string alignment
// distance), so that "opne" is one edit from "open".
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		// Long inputs are never typos of the short known names.
		return len(a) + len(b)
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// listWords joins words as "a, b and c".
func listWords(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
