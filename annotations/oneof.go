package annotations

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// Variant is one type named by //toolgen:oneof.
type Variant struct {
	// Name is the type's name in this package.
	Name string
	// Offset is the byte offset of Name in the parsed arguments.
	Offset int
}

// ParseOneOf parses the arguments of //toolgen:oneof: two or more distinct
// Go identifiers, the type names of this package, separated by blanks. It
// reports fewer than two variants, a duplicate, and a token that is not an
// identifier. The variants returned are the valid distinct ones, in order.
func ParseOneOf(args string) ([]Variant, []*Error) {
	var out []Variant
	var errs []*Error
	seen := map[string]bool{}
	toks := splitBlanks(args)
	for _, tok := range toks {
		name := tok.text
		switch {
		case isIdent(name):
		case isQualified(name):
			errs = append(errs, errorf(tok.offset, "%s must name a type of this package, without a package qualifier; declare the variant type next to the interface", name))
			continue
		case strings.Contains(name, ","):
			errs = append(errs, errorf(tok.offset, "%q is not a type name; separate the variants with blanks, not commas, as in //toolgen:oneof A B", name))
			continue
		default:
			errs = append(errs, errorf(tok.offset, "%q is not a Go identifier; list the variant type names of this package separated by blanks, as in //toolgen:oneof A B", name))
			continue
		}
		if seen[name] {
			errs = append(errs, errorf(tok.offset, "duplicate variant %s; list each type once", name))
			continue
		}
		seen[name] = true
		out = append(out, Variant{Name: name, Offset: tok.offset})
	}
	if len(toks) < 2 {
		off := 0
		if len(toks) == 1 {
			off = toks[0].offset
		}
		errs = append(errs, errorf(off, "a oneOf needs at least two variants; list the variant types separated by blanks, as in //toolgen:oneof A B"))
	}
	return out, errs
}

// ParseOpen checks the arguments of //toolgen:open, which takes none.
func ParseOpen(args string) []*Error {
	if strings.TrimSpace(args) == "" {
		return nil
	}
	off := 0
	for off < len(args) && isBlank(args[off]) {
		off++
	}
	if off == len(args) {
		off = 0
	}
	return []*Error{errorf(off, "this directive takes no arguments; delete %q", strings.TrimSpace(args))}
}

// ParseSchema parses the argument of //toolgen:schema: one raw JSON schema
// object of the enforced subset on the rest of the line. It uses
// schemasubset.Parse; each issue becomes an Error at offset 0 whose message
// holds the issue's JSON Pointer and message. Empty args is an error.
func ParseSchema(args string) (*schemasubset.Node, []*Error) {
	if strings.TrimSpace(args) == "" {
		return nil, []*Error{errorf(0, `this directive needs a JSON schema object on the same line, such as //toolgen:schema {"type":"string"}`)}
	}
	n, err := schemasubset.Parse([]byte(args))
	if err == nil {
		return n, nil
	}
	var se *schemasubset.SchemaError
	if !errors.As(err, &se) || len(se.Issues) == 0 {
		return nil, []*Error{errorf(0, "the schema is not supported: %v; write one JSON object of the schema subset", err)}
	}
	var syn *jsonvalue.SyntaxError
	offsets := pointerOffsets(args)
	errs := make([]*Error, 0, len(se.Issues))
	for _, is := range se.Issues {
		off := offsets[is.Pointer]
		if is.Code == schemasubset.IssueInvalidJSON && errors.As(err, &syn) {
			off = int(min(max(syn.Offset, 0), int64(len(args))))
		}
		errs = append(errs, errorf(off, "%s", issueMessage(is)))
	}
	slices.SortStableFunc(errs, func(a, b *Error) int { return cmp.Compare(a.Offset, b.Offset) })
	return nil, errs
}

// pointerOffsets maps the JSON Pointer of each member name and value of
// the JSON text s to the offset of its first token, as far as s is valid
// JSON; the root "" maps to the first token.
func pointerOffsets(s string) map[string]int {
	out := map[string]int{}
	dec := jsontext.NewDecoder(strings.NewReader(s))
	for {
		start := int(dec.InputOffset())
		for start < len(s) && strings.IndexByte(" \t\r\n:,", s[start]) >= 0 {
			start++
		}
		if _, err := dec.ReadToken(); err != nil {
			return out
		}
		if p := string(dec.StackPointer()); !hasKey(out, p) {
			out[p] = start
		}
	}
}

// hasKey reports whether m has key k.
func hasKey(m map[string]int, k string) bool {
	_, ok := m[k]
	return ok
}

// issueMessage words one schemasubset issue, naming its location and
// saying what to write instead.
func issueMessage(is schemasubset.Issue) string {
	if is.Code == schemasubset.IssueInvalidJSON {
		return fmt.Sprintf("the schema is not valid JSON: %s; write one JSON object on the rest of the line", is.Message)
	}
	msg := fmt.Sprintf("schema at %s: %s", is.Pointer, is.Message)
	if is.Pointer == "" {
		msg = fmt.Sprintf("schema root (JSON Pointer \"\"): %s", is.Message)
	}
	if advice := issueAdvice[is.Code]; advice != "" {
		msg += "; " + advice
	}
	return msg
}

// issueAdvice says what to write instead, for each rule of the subset.
var issueAdvice = map[schemasubset.IssueCode]string{
	schemasubset.IssueNotASchema:         `write a JSON object, such as {"type":"string"}`,
	schemasubset.IssueBooleanSchema:      `write a JSON object: {} accepts every value`,
	schemasubset.IssueUnsupportedKeyword: `the subset's keywords are type, oneOf, properties, required, additionalProperties, items, enum, const, description, title, default and examples`,
	schemasubset.IssueInvalidType:        `write one of "object", "array", "string", "number", "integer", "boolean" and "null"`,
	schemasubset.IssueNeedsType:          `add the type it requires to the same node`,
	schemasubset.IssueTooFewBranches:     `list two or more schemas, or write the one schema without oneOf`,
	schemasubset.IssueUndeclaredRequired: `declare the property in properties, or remove it from required`,
	schemasubset.IssueNotScalar:          `list strings, numbers, booleans or null`,
	schemasubset.IssueTypeMismatch:       `give values of the node's type`,
	schemasubset.IssueEmptyEnum:          `list at least one value, or remove enum`,
}
