package schemasubset

import (
	"bytes"
	"errors"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
)

// AssertSupported returns nil when n and every schema below it keep to the
// subset, and otherwise a [*SchemaError] listing every offending location.
// Nodes from [Parse] always pass; nodes built in Go pass unless a constructor
// was given something the subset forbids.
func AssertSupported(n *Node) error {
	if n == nil {
		return &SchemaError{Issues: []Issue{{Code: IssueNotASchema, Message: "schema is nil"}}}
	}
	if !n.broken {
		return nil
	}
	return &SchemaError{Issues: n.allIssues()}
}

// AssertObject is AssertSupported for consumers that need an object root,
// such as tool parameters and structured outputs: it also requires type
// "object" on the root node itself (a root oneOf of objects does not count).
func AssertObject(n *Node) error {
	var issues []Issue
	if n != nil && n.typ != TypeObject {
		msg := `the root schema must have type "object"`
		if n.typ != TypeAny {
			msg += ", has " + quote(n.typ.String())
		}
		issues = append(issues, Issue{Code: IssueNotObjectRoot, Message: msg})
	}
	var se *SchemaError
	if err := AssertSupported(n); errors.As(err, &se) {
		issues = append(issues, se.Issues...)
	}
	if len(issues) == 0 {
		return nil
	}
	return &SchemaError{Issues: issues}
}

// allIssues collects the issues of n and every schema below it, with their
// pointers made absolute, in a depth-first walk.
func (n *Node) allIssues() []Issue {
	var out []Issue
	var walk func(n *Node, prefix string)
	walk = func(n *Node, prefix string) {
		if n == nil || !n.broken {
			return
		}
		for _, is := range n.issues {
			is.Pointer = prefix + is.Pointer
			out = append(out, is)
		}
		for _, p := range n.props {
			walk(p.node, prefix+"/properties/"+escapePointer(p.name))
		}
		walk(n.items, prefix+"/items")
		for i, b := range n.oneOf {
			walk(b, prefix+"/oneOf/"+itoa(i))
		}
	}
	walk(n, "")
	return out
}

// MarshalJSON returns the canonical JSON of a supported node: compact,
// keywords in the fixed order type, title, description, default, examples,
// enum, const, properties, required, additionalProperties, items, oneOf,
// properties in their declared order, values exactly as given. Equal nodes
// marshal to equal bytes, and Parse of the result is Equal to n. An
// unsupported node is an error: its JSON would not say what it means.
func (n *Node) MarshalJSON() ([]byte, error) {
	if err := AssertSupported(n); err != nil {
		return nil, err
	}
	return n.AppendJSON(nil), nil
}

// String returns the node's canonical JSON, best effort for unsupported
// nodes (keywords Parse rejected are left out).
func (n *Node) String() string {
	if n == nil {
		return "<nil>"
	}
	return string(n.AppendJSON(nil))
}

// AppendJSON appends the canonical JSON of n to dst (see MarshalJSON). It
// does not check that n is supported.
func (n *Node) AppendJSON(dst []byte) []byte {
	if n == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '{')
	start := len(dst)
	member := func(i int) {
		if len(dst) > start {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, keywords[i]...)
		dst = append(dst, '"', ':')
	}
	if n.typ != TypeAny {
		member(iType)
		dst = append(dst, '"')
		dst = append(dst, n.typ.String()...)
		dst = append(dst, '"')
	}
	if n.has&kwTitle != 0 {
		member(iTitle)
		dst, _ = jsontext.AppendQuote(dst, n.title)
	}
	if n.has&kwDescription != 0 {
		member(iDescription)
		dst, _ = jsontext.AppendQuote(dst, n.description)
	}
	if n.def != nil {
		member(iDefault)
		dst = append(dst, n.def...)
	}
	if n.examples != nil {
		member(iExamples)
		dst = append(dst, n.examples...)
	}
	if n.has&kwEnum != 0 {
		member(iEnum)
		dst = appendList(dst, n.enum, func(dst []byte, s scalar) []byte { return appendValue(dst, s.v) })
	}
	if n.has&kwConst != 0 {
		member(iConst)
		dst = appendValue(dst, n.cnst.v)
	}
	if n.has&kwProperties != 0 {
		member(iProperties)
		dst = append(dst, '{')
		for i, p := range n.props {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '"')
			dst = append(dst, p.key...)
			dst = append(dst, '"', ':')
			dst = p.node.AppendJSON(dst)
		}
		dst = append(dst, '}')
	}
	if n.has&kwRequired != 0 {
		member(iRequired)
		dst = appendList(dst, n.required, func(dst []byte, name string) []byte {
			dst, _ = jsontext.AppendQuote(dst, name)
			return dst
		})
	}
	if n.has&kwAdditional != 0 {
		member(iAdditional)
		if n.additional {
			dst = append(dst, "true"...)
		} else {
			dst = append(dst, "false"...)
		}
	}
	if n.items != nil {
		member(iItems)
		dst = n.items.AppendJSON(dst)
	}
	if n.has&kwOneOf != 0 {
		member(iOneOf)
		dst = appendList(dst, n.oneOf, func(dst []byte, b *Node) []byte { return b.AppendJSON(dst) })
	}
	return append(dst, '}')
}

// appendList appends a JSON array of items, each written by one.
func appendList[T any](dst []byte, items []T, one func([]byte, T) []byte) []byte {
	dst = append(dst, '[')
	for i, item := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = one(dst, item)
	}
	return append(dst, ']')
}

func appendValue(dst []byte, v []byte) []byte {
	if len(v) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, v...)
}

// Equal reports whether n and m are the same schema: the same keywords with
// the same values, properties in the same order, and values compared as JSON
// text (so an enum of 1 and one of 1.0 differ, as their JSON does).
func (n *Node) Equal(m *Node) bool {
	if n == nil || m == nil {
		return n == m
	}
	if n.typ != m.typ || n.has != m.has || n.additional != m.additional ||
		n.title != m.title || n.description != m.description ||
		!bytes.Equal(n.def, m.def) || (n.def == nil) != (m.def == nil) ||
		!bytes.Equal(n.examples, m.examples) || (n.examples == nil) != (m.examples == nil) ||
		!bytes.Equal(n.constText(), m.constText()) ||
		!slices.Equal(n.required, m.required) ||
		len(n.enum) != len(m.enum) || len(n.props) != len(m.props) || len(n.oneOf) != len(m.oneOf) ||
		!n.items.Equal(m.items) {
		return false
	}
	for i := range n.enum {
		if !bytes.Equal(n.enum[i].v, m.enum[i].v) {
			return false
		}
	}
	for i := range n.props {
		if n.props[i].name != m.props[i].name || !n.props[i].node.Equal(m.props[i].node) {
			return false
		}
	}
	for i := range n.oneOf {
		if !n.oneOf[i].Equal(m.oneOf[i]) {
			return false
		}
	}
	return true
}
