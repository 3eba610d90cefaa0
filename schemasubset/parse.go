package schemasubset

import (
	"errors"

	"github.com/toolgen-go/toolgen/jsonvalue"
)

// The keywords of the subset, in canonical order: the order MarshalJSON
// writes them in.
var keywords = [...]string{
	"type", "title", "description", "default", "examples", "enum", "const",
	"properties", "required", "additionalProperties", "items", "oneOf",
}

const (
	iType = iota
	iTitle
	iDescription
	iDefault
	iExamples
	iEnum
	iConst
	iProperties
	iRequired
	iAdditional
	iItems
	iOneOf
)

// Parse reads a schema document and returns its node, or a [*SchemaError]
// listing every location where it leaves the subset. The document is first
// materialized (jsonvalue.Materialize), so it must be one lossless JSON
// value.
//
// The rules, checked at every depth:
//   - A schema is a JSON object whose keywords are among type, oneOf,
//     properties, required, additionalProperties, items, enum, const,
//     description, title, default and examples. Boolean schemas and other
//     JSON values are not schemas.
//   - type is one of "object", "array", "string", "number", "integer",
//     "boolean", "null"; type arrays are not supported.
//   - oneOf is an array of at least two schemas.
//   - properties (an object of schemas), required (an array of names, each
//     a key of properties) and additionalProperties (a boolean; absent means
//     open) need type "object" on the same node.
//   - items is one schema and needs type "array"; absent accepts any item.
//   - enum (a non-empty array) and const need a type on the same node, and
//     their values are scalars of that type; integer values may be spelled
//     2.0 or 1e1.
//   - title and description are strings; default and examples are any JSON
//     and are never interpreted as schemas.
//
// The empty schema and annotation-only schemas accept every JSON value.
// Parse keeps the order of properties; keyword order is not kept, since
// [Node.MarshalJSON] writes keywords in a fixed order.
func Parse(data []byte) (*Node, error) {
	v, err := jsonvalue.Materialize(data)
	if err != nil {
		is := Issue{Code: IssueInvalidJSON, Message: err.Error()}
		var se *jsonvalue.SyntaxError
		if errors.As(err, &se) {
			is.Pointer = se.Pointer
		}
		return nil, &SchemaError{Issues: []Issue{is}, err: err}
	}
	n := parseNode(v)
	if err := AssertSupported(n); err != nil {
		return nil, err
	}
	return n, nil
}

// MustParse is Parse for schemas known to be valid, such as literals in
// tests and examples; it panics with the *SchemaError otherwise.
func MustParse(data string) *Node {
	n, err := Parse([]byte(data))
	if err != nil {
		panic(err)
	}
	return n
}

// UnmarshalJSON parses data into n, so that a *Node can sit in a struct
// decoded by encoding/json. It fails like Parse.
func (n *Node) UnmarshalJSON(data []byte) error {
	m, err := Parse(data)
	if err != nil {
		return err
	}
	*n = *m
	return nil
}

// parseNode builds the node for one materialized schema value, recording
// what the Node fields cannot hold as issues.
func parseNode(v jsonvalue.Value) *Node {
	n := &Node{}
	note := func(ptr string, code IssueCode, msg string) {
		n.parsed = append(n.parsed, Issue{Pointer: ptr, Code: code, Message: msg})
	}
	switch k := v.Kind(); k {
	case jsonvalue.KindObject:
	case jsonvalue.KindTrue, jsonvalue.KindFalse:
		note("", IssueBooleanSchema, "boolean schema "+v.String()+" is not supported")
		return finish(n)
	default:
		note("", IssueNotASchema, "schema must be a JSON object, got "+k.String())
		return finish(n)
	}

	var vals [len(keywords)]jsonvalue.Value
	r := jsonvalue.NewReader(v)
	r.BeginObject()
	for {
		name, ok := r.NextName()
		if !ok {
			break
		}
		val := r.ReadValue()
		i := keywordIndex(name)
		if i < 0 {
			word := jsonvalue.Unescape(name)
			note("/"+escapePointer(word), IssueUnsupportedKeyword, "unsupported keyword "+quote(word))
			continue
		}
		vals[i] = val
	}

	if t := vals[iType]; t != nil {
		switch t.Kind() {
		case jsonvalue.KindString:
			name := jsonvalue.Unescape(t[1 : len(t)-1])
			if typ, ok := ParseType(name); ok {
				n.typ = typ
			} else {
				note("/type", IssueInvalidType, "unknown type "+quote(name))
			}
		case jsonvalue.KindArray:
			note("/type", IssueInvalidType, "type arrays are not supported")
		default:
			note("/type", IssueInvalidType, "type must be a string, got "+t.Kind().String())
		}
	}
	if s, ok := parseString(vals[iTitle], "/title", "title", note); ok {
		n.title, n.has = s, n.has|kwTitle
	}
	if s, ok := parseString(vals[iDescription], "/description", "description", note); ok {
		n.description, n.has = s, n.has|kwDescription
	}
	n.def, n.examples = vals[iDefault], vals[iExamples]

	if e := vals[iEnum]; e != nil {
		n.has |= kwEnum
		if e.Kind() == jsonvalue.KindArray {
			n.enum = []scalar{}
			each(e, func(item jsonvalue.Value) { n.enum = append(n.enum, newScalar(item)) })
		} else {
			note("/enum", IssueMalformedKeyword, "enum must be an array")
		}
	}
	if c := vals[iConst]; c != nil {
		n.has |= kwConst
		s := newScalar(c)
		n.cnst = &s
	}
	if p := vals[iProperties]; p != nil {
		n.has |= kwProperties
		if p.Kind() == jsonvalue.KindObject {
			pr := jsonvalue.NewReader(p)
			pr.BeginObject()
			for {
				key, ok := pr.NextName()
				if !ok {
					break
				}
				n.props = append(n.props, property{
					name: jsonvalue.Unescape(key),
					key:  string(key),
					node: parseNode(pr.ReadValue()),
					bit:  -1,
				})
			}
		} else {
			note("/properties", IssueMalformedKeyword, "properties must be an object")
		}
	}
	if q := vals[iRequired]; q != nil {
		n.has |= kwRequired
		names, ok := parseNames(q)
		if ok {
			n.required = names
		} else {
			note("/required", IssueMalformedKeyword, "required must be an array of strings")
		}
	}
	if a := vals[iAdditional]; a != nil {
		n.has |= kwAdditional
		switch a.Kind() {
		case jsonvalue.KindTrue:
			n.additional = true
		case jsonvalue.KindFalse:
		default:
			note("/additionalProperties", IssueMalformedKeyword, "additionalProperties must be a boolean")
		}
	}
	if it := vals[iItems]; it != nil {
		n.has |= kwItems
		if it.Kind() == jsonvalue.KindArray {
			note("/items", IssueMalformedKeyword, "array-form items is not supported")
		} else {
			n.items = parseNode(it)
		}
	}
	if o := vals[iOneOf]; o != nil {
		n.has |= kwOneOf
		if o.Kind() == jsonvalue.KindArray {
			n.oneOf = []*Node{}
			each(o, func(b jsonvalue.Value) { n.oneOf = append(n.oneOf, parseNode(b)) })
		} else {
			note("/oneOf", IssueMalformedKeyword, "oneOf must be an array")
		}
	}
	return finish(n)
}

// keywordIndex returns the index in keywords of a member name in canonical
// escaped form, or -1. No keyword needs escaping, so the bytes compare as is.
func keywordIndex(name []byte) int {
	for i, k := range keywords {
		if string(name) == k {
			return i
		}
	}
	return -1
}

func parseString(v jsonvalue.Value, ptr, what string, note func(string, IssueCode, string)) (string, bool) {
	if v == nil {
		return "", false
	}
	if v.Kind() != jsonvalue.KindString {
		note(ptr, IssueMalformedKeyword, what+" must be a string, got "+v.Kind().String())
		return "", false
	}
	return jsonvalue.Unescape(v[1 : len(v)-1]), true
}

// parseNames reads an array of strings.
func parseNames(v jsonvalue.Value) ([]string, bool) {
	if v.Kind() != jsonvalue.KindArray {
		return nil, false
	}
	names := []string{}
	ok := true
	each(v, func(item jsonvalue.Value) {
		if item.Kind() != jsonvalue.KindString {
			ok = false
			return
		}
		names = append(names, jsonvalue.Unescape(item[1:len(item)-1]))
	})
	return names, ok
}

// each calls f with every element of the array v.
func each(v jsonvalue.Value, f func(jsonvalue.Value)) {
	r := jsonvalue.NewReader(v)
	r.BeginArray()
	for r.NextElement() {
		f(r.ReadValue())
	}
}
