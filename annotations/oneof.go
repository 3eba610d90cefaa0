package annotations

import (
	"errors"
	"fmt"
	"strings"

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
	errs := make([]*Error, 0, len(se.Issues))
	for _, is := range se.Issues {
		errs = append(errs, errorf(0, "%s", issueMessage(is)))
	}
	return nil, errs
}

// issueMessage words one schemasubset issue, naming its location.
func issueMessage(is schemasubset.Issue) string {
	if is.Code == schemasubset.IssueInvalidJSON {
		return fmt.Sprintf("the schema is not valid JSON: %s; write one JSON object on the rest of the line", is.Message)
	}
	if is.Pointer == "" {
		return fmt.Sprintf("schema root (JSON Pointer \"\"): %s", is.Message)
	}
	return fmt.Sprintf("schema at %s: %s", is.Pointer, is.Message)
}
