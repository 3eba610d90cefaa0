package providers

import (
	"strconv"
	"strings"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// strictConverter writes the OpenAI strict-mode form of one tool's
// parameter schema, recording every place that has none.
//
// The output follows schemasubset's canonical JSON: the same keyword order
// (with anyOf where oneOf would be), the same escaping, and nodes that need
// no change (every scalar schema) written by Node.AppendJSON itself, so a
// schema that is already strict comes out byte for byte as its canonical
// JSON, plus "additionalProperties":false on an open root.
type strictConverter struct {
	tool           string
	optionalAsNull bool
	err            *Error
	failed         bool
}

func (s *strictConverter) fail(code Code, ptr, msg string) {
	s.failed = true
	s.err.add(s.tool, code, ptr, msg)
}

// root returns the strict form of the parameter root n, an object-rooted
// supported schema, or nil when it has none.
func (s *strictConverter) root(n *schemasubset.Node) []byte {
	if len(n.OneOf()) > 0 {
		s.fail(CodeOneOf, "/oneOf", "strict mode needs a plain object at the root, and a root oneOf would become a root anyOf, which it rejects")
	}
	out := s.node(nil, n, "", true, false)
	if s.failed {
		return nil
	}
	return out
}

// node appends the strict form of n, found at ptr, to dst. ambiguous
// reports that n lies below a oneOf whose branches share a JSON type, where
// an optional property cannot be emulated with null.
func (s *strictConverter) node(dst []byte, n *schemasubset.Node, ptr string, root, ambiguous bool) []byte {
	branches := n.OneOf()
	switch {
	case len(branches) > 0 && !root: // a root oneOf is reported by root
		return s.union(dst, n, branches, ptr, ambiguous)
	case n.Type() == schemasubset.TypeAny:
		s.fail(CodeUntyped, ptr, "the schema has no type, so it accepts any JSON value; strict mode needs a type on every schema")
		return dst
	case n.Type() == schemasubset.TypeObject:
		return s.object(dst, n, ptr, root, ambiguous)
	case n.Type() == schemasubset.TypeArray:
		items := n.Items()
		if items == nil {
			s.fail(CodeAnyItems, ptr, "the array has no items schema, so it accepts any element; strict mode needs one")
			return dst
		}
		w := s.open(dst, n)
		w.key("items")
		w.dst = s.node(w.dst, items, ptr+"/items", false, ambiguous)
		return w.close()
	}
	return n.AppendJSON(dst)
}

// union appends n's oneOf as an anyOf, which accepts the same values when
// no value matches two branches.
func (s *strictConverter) union(dst []byte, n *schemasubset.Node, branches []*schemasubset.Node, ptr string, ambiguous bool) []byte {
	if n.Type() != schemasubset.TypeAny {
		s.fail(CodeOneOf, ptr+"/oneOf", "oneOf beside \"type\" has no strict form: strict mode documents anyOf only as a schema of its own")
		return dst
	}
	sameKind := false
	for i := range branches {
		for j := i + 1; j < len(branches); j++ {
			if kindsOf(branches[i])&kindsOf(branches[j]) != 0 {
				sameKind = true
			}
			if !disjoint(branches[i], branches[j]) {
				s.fail(CodeOneOf, ptr+"/oneOf", "branches "+strconv.Itoa(i)+" and "+strconv.Itoa(j)+
					" may both match one value; strict mode has only anyOf, which would accept it where oneOf rejects it")
			}
		}
	}
	w := s.open(dst, n)
	w.key("anyOf")
	w.dst = append(w.dst, '[')
	for i, b := range branches {
		if i > 0 {
			w.dst = append(w.dst, ',')
		}
		w.dst = s.node(w.dst, b, ptr+"/oneOf/"+strconv.Itoa(i), false, ambiguous || sameKind)
	}
	w.dst = append(w.dst, ']')
	return w.close()
}

// object appends the strict form of the object schema n.
func (s *strictConverter) object(dst []byte, n *schemasubset.Node, ptr string, root, ambiguous bool) []byte {
	allowed, present := n.AdditionalProperties()
	switch {
	case present && allowed:
		s.fail(CodeOpenObject, ptr+"/additionalProperties", "additionalProperties is true; strict mode needs false, and closing the object would reject members the tool accepts")
	case !present && !root:
		s.fail(CodeOpenObject, ptr, "the object has no additionalProperties, so it accepts undeclared members; strict mode needs false, and closing it would reject members the tool accepts")
	}
	props, hasProps := n.Properties()
	required, hasRequired := n.Required()
	isRequired := make(map[string]bool, len(required))
	for _, r := range required {
		isRequired[r] = true
	}

	w := s.open(dst, n)
	var added []string
	if hasProps {
		w.key("properties")
		w.dst = append(w.dst, '{')
		for i, p := range props {
			if i > 0 {
				w.dst = append(w.dst, ',')
			}
			w.dst = appendString(w.dst, p.Name)
			w.dst = append(w.dst, ':')
			pptr := ptr + "/properties/" + escapePointer(p.Name)
			if isRequired[p.Name] {
				w.dst = s.node(w.dst, p.Schema, pptr, false, ambiguous)
				continue
			}
			switch {
			case !s.optionalAsNull:
				s.fail(CodeOptional, pptr, "the property is optional; strict mode requires every property, and requiring it would change what the tool accepts (OptionalAsNull sends it as required and nullable)")
			case ambiguous:
				s.fail(CodeOptional, pptr, "the optional property lies below a oneOf whose branches share a JSON type, so a null sent in its place could not be traced back to it")
			case acceptsNull(p.Schema):
				s.fail(CodeOptional, pptr, "the optional property accepts null, so null cannot also stand for its absence")
			}
			added = append(added, p.Name)
			w.dst = append(w.dst, `{"anyOf":[`...)
			w.dst = s.node(w.dst, p.Schema, pptr, false, ambiguous)
			w.dst = append(w.dst, `,{"type":"null"}]}`...)
		}
		w.dst = append(w.dst, '}')
	}
	if hasRequired || len(added) > 0 {
		w.key("required")
		w.dst = append(w.dst, '[')
		for i, r := range append(required, added...) {
			if i > 0 {
				w.dst = append(w.dst, ',')
			}
			w.dst = appendString(w.dst, r)
		}
		w.dst = append(w.dst, ']')
	}
	w.key("additionalProperties")
	w.dst = append(w.dst, "false"...)
	return w.close()
}

// open starts writing n as a JSON object with the keywords that strict mode
// keeps as they are, in canonical order: type, title, description, default,
// examples, enum and const. The caller adds the rest.
func (s *strictConverter) open(dst []byte, n *schemasubset.Node) *objectWriter {
	w := &objectWriter{dst: append(dst, '{')}
	if t := n.Type(); t != schemasubset.TypeAny {
		w.key("type")
		w.dst = appendString(w.dst, t.String())
	}
	if v, ok := n.Title(); ok {
		w.key("title")
		w.dst = appendString(w.dst, v)
	}
	if v, ok := n.Description(); ok {
		w.key("description")
		w.dst = appendString(w.dst, v)
	}
	if v := n.Default(); v != nil {
		w.key("default")
		w.dst = append(w.dst, v...)
	}
	if v := n.Examples(); v != nil {
		w.key("examples")
		w.dst = append(w.dst, v...)
	}
	if values := n.Enum(); values != nil {
		w.key("enum")
		w.dst = append(w.dst, '[')
		for i, v := range values {
			if i > 0 {
				w.dst = append(w.dst, ',')
			}
			w.dst = append(w.dst, v...)
		}
		w.dst = append(w.dst, ']')
	}
	if v, ok := n.Const(); ok {
		w.key("const")
		w.dst = append(w.dst, v...)
	}
	return w
}

// objectWriter writes the members of one JSON object.
type objectWriter struct {
	dst     []byte
	members int
}

// key writes the separator and the name of the next member.
func (w *objectWriter) key(name string) {
	if w.members > 0 {
		w.dst = append(w.dst, ',')
	}
	w.members++
	w.dst = append(w.dst, '"')
	w.dst = append(w.dst, name...)
	w.dst = append(w.dst, '"', ':')
}

func (w *objectWriter) close() []byte { return append(w.dst, '}') }

// escapePointer escapes one JSON Pointer reference token (RFC 6901).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// acceptsNull reports whether null is a valid value of n.
func acceptsNull(n *schemasubset.Node) bool {
	return schemasubset.Validate(n, jsonvalue.Null()) == nil
}

// kinds is a set of JSON value kinds; integer values are numbers.
type kinds uint8

const (
	kindObject kinds = 1 << iota
	kindArray
	kindString
	kindNumber
	kindBoolean
	kindNull

	kindAll = kindObject | kindArray | kindString | kindNumber | kindBoolean | kindNull
)

// kindOf returns the kind of a value of JSON kind k.
func kindOf(k jsonvalue.Kind) kinds {
	switch k {
	case jsonvalue.KindObject:
		return kindObject
	case jsonvalue.KindArray:
		return kindArray
	case jsonvalue.KindString:
		return kindString
	case jsonvalue.KindNumber:
		return kindNumber
	case jsonvalue.KindTrue, jsonvalue.KindFalse:
		return kindBoolean
	case jsonvalue.KindNull:
		return kindNull
	}
	return 0
}

// kindsOf returns a superset of the kinds of the values n accepts.
func kindsOf(n *schemasubset.Node) kinds {
	k := kindAll
	switch n.Type() {
	case schemasubset.TypeObject:
		k = kindObject
	case schemasubset.TypeArray:
		k = kindArray
	case schemasubset.TypeString:
		k = kindString
	case schemasubset.TypeNumber, schemasubset.TypeInteger:
		k = kindNumber
	case schemasubset.TypeBoolean:
		k = kindBoolean
	case schemasubset.TypeNull:
		k = kindNull
	}
	if branches := n.OneOf(); len(branches) > 0 {
		var u kinds
		for _, b := range branches {
			u |= kindsOf(b)
		}
		k &= u
	}
	if values, ok := valueSet(n); ok {
		var u kinds
		for _, v := range values {
			u |= kindOf(v.Kind())
		}
		k &= u
	}
	return k
}

// valueSet returns the finite set of values n's enum or const allows.
func valueSet(n *schemasubset.Node) ([]jsonvalue.Value, bool) {
	if v, ok := n.Const(); ok {
		return []jsonvalue.Value{v}, true
	}
	if values := n.Enum(); values != nil {
		return values, true
	}
	return nil, false
}

// disjoint reports whether no JSON value can match both a and b. It is
// sound, not complete: true is a proof, false means "may overlap". The
// proofs: the schemas accept different JSON types; one allows finitely many
// values (enum, const) and the other accepts none of them; every branch of
// one's oneOf is disjoint from the other; or they are objects and one
// requires a property the other declares with a disjoint schema, or does
// not declare while rejecting undeclared members.
func disjoint(a, b *schemasubset.Node) bool {
	if kindsOf(a)&kindsOf(b) == 0 {
		return true
	}
	if values, ok := valueSet(a); ok && noneValid(values, b) {
		return true
	}
	if values, ok := valueSet(b); ok && noneValid(values, a) {
		return true
	}
	if allDisjoint(a.OneOf(), b) || allDisjoint(b.OneOf(), a) {
		return true
	}
	if a.Type() == schemasubset.TypeObject && b.Type() == schemasubset.TypeObject {
		return requiredApart(a, b) || requiredApart(b, a)
	}
	return false
}

// noneValid reports whether no value of values is valid against n.
func noneValid(values []jsonvalue.Value, n *schemasubset.Node) bool {
	for _, v := range values {
		if schemasubset.Validate(n, v) == nil {
			return false
		}
	}
	return true
}

// allDisjoint reports whether branches is not empty and every branch is
// disjoint from b.
func allDisjoint(branches []*schemasubset.Node, b *schemasubset.Node) bool {
	if len(branches) == 0 {
		return false
	}
	for _, x := range branches {
		if !disjoint(x, b) {
			return false
		}
	}
	return true
}

// requiredApart reports whether the object schema b requires a property
// that every value of the object schema a lacks or holds a disjoint value
// at.
func requiredApart(a, b *schemasubset.Node) bool {
	allowed, present := a.AdditionalProperties()
	closed := present && !allowed
	required, _ := b.Required()
	for _, name := range required {
		pa, pb := a.Property(name), b.Property(name)
		switch {
		case pb == nil:
		case pa == nil:
			if closed {
				return true
			}
		case disjoint(pa, pb):
			return true
		}
	}
	return false
}
