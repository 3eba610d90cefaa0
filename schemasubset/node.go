// Package schemasubset holds the enforced JSON Schema subset: the raw schema
// vocabulary that toolgen tools, sub-agents, workflows, MCP imports and
// dynamic registrations share.
//
// A schema node is a JSON object with only these keywords: type, oneOf,
// properties, required, additionalProperties, items, enum, const,
// description, title, default and examples. Anything else ($ref, minimum,
// format, anyOf, x-..., boolean schemas, type arrays) is rejected, never
// ignored, and a rejection lists every offending location as a JSON Pointer.
// The exact rules are in the documentation of [Parse].
//
// A [*Node] is immutable once built, so it can be shared freely. Build one by
// parsing JSON ([Parse]) or in Go with the constructors ([Object], [String],
// [OneOf], ...) and With methods, which generated code uses as literals
// without parsing anything at init. [AssertSupported] and [AssertObject]
// check a node; [Validate] checks a [jsonvalue.Value] against it, exactly on
// the decimal text of numbers, and returns a [*ValidationError] naming the
// instance path, the schema path and the [Rule].
package schemasubset

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolgen-go/toolgen/internal/canon"
	"github.com/toolgen-go/toolgen/internal/decimal"
	"github.com/toolgen-go/toolgen/jsonvalue"
)

// Type is the value of a node's type keyword. TypeAny means the keyword is
// absent.
type Type uint8

// The seven types of the subset.
const (
	TypeAny Type = iota
	TypeObject
	TypeArray
	TypeString
	TypeNumber
	TypeInteger
	TypeBoolean
	TypeNull
)

var typeNames = [...]string{
	TypeObject:  "object",
	TypeArray:   "array",
	TypeString:  "string",
	TypeNumber:  "number",
	TypeInteger: "integer",
	TypeBoolean: "boolean",
	TypeNull:    "null",
}

// String returns the type's JSON Schema name, or "" for TypeAny.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return ""
}

// ParseType returns the Type named s, or false when s names none of the
// seven types.
func ParseType(s string) (Type, bool) {
	for t, name := range typeNames {
		if name != "" && name == s {
			return Type(t), true
		}
	}
	return TypeAny, false
}

// keyword is a set of the keywords present on a node.
type keyword uint16

const (
	kwTitle keyword = 1 << iota
	kwDescription
	kwEnum
	kwConst
	kwProperties
	kwRequired
	kwAdditional
	kwItems
	kwOneOf
)

// Property is one named property schema, in the order of a node's
// properties.
type Property struct {
	// Name is the property name as it appears in values.
	Name string
	// Schema is the property's schema.
	Schema *Node
}

// Prop returns the property name with schema s.
func Prop(name string, s *Node) Property { return Property{Name: name, Schema: s} }

// Node is one schema node of the subset. It is immutable: the With methods
// return modified copies, and accessors return copies of slices, so one
// *Node can be shared by any number of registries, schemas and goroutines.
// Never assign through a shared pointer (*n = m); build a new node instead.
//
// A Node built in Go may break the subset's rules (an enum value of the wrong
// type, a required name with no property); such a node reports every
// problem through [AssertSupported] and makes [Validate] fail, and it never
// panics. A Node from [Parse] is always supported, and the zero Node is the
// empty schema {}.
type Node struct {
	typ         Type
	has         keyword
	additional  bool
	title       string
	description string
	def         jsonvalue.Value
	examples    jsonvalue.Value
	enum        []scalar
	cnst        *scalar // set exactly when has includes kwConst
	props       []property
	required    []string
	items       *Node
	oneOf       []*Node

	// parsed holds the problems Parse found that the fields above cannot
	// express (unknown keywords, malformed keyword values).
	parsed []Issue

	// Derived by finish, for AssertSupported and Validate.
	issues []Issue
	// broken is set when n or a schema below it breaks a rule; the zero
	// Node is the empty schema, which breaks none.
	broken   bool
	index    map[string]int
	reqCount int
}

// property is a Property with its lookup key and required bit.
type property struct {
	name string
	key  string // the name's canonical escaped form, as values spell it
	node *Node
	bit  int // index among the distinct required names, or -1
}

// scalar is an enum or const value with its number read once.
type scalar struct {
	v   jsonvalue.Value
	num decimal.Number
}

// linearLookup is the number of properties up to which a scan beats a map.
const linearLookup = 16

// Any returns the empty schema {}, which accepts every JSON value.
func Any() *Node { return finish(&Node{}) }

// Object returns {"type":"object"} with the given properties, in order. With
// no properties it has no properties keyword; see [Node.WithProperties].
func Object(props ...Property) *Node {
	n := &Node{typ: TypeObject}
	if len(props) > 0 {
		n.has |= kwProperties
		n.props = toProperties(props)
	}
	return finish(n)
}

// Array returns {"type":"array"} with items as its item schema; a nil items
// accepts any item.
func Array(items *Node) *Node {
	n := &Node{typ: TypeArray, items: items}
	if items != nil {
		n.has |= kwItems
	}
	return finish(n)
}

// String returns {"type":"string"}.
func String() *Node { return finish(&Node{typ: TypeString}) }

// Number returns {"type":"number"}.
func Number() *Node { return finish(&Node{typ: TypeNumber}) }

// Integer returns {"type":"integer"}: numbers with a zero fractional part.
func Integer() *Node { return finish(&Node{typ: TypeInteger}) }

// Boolean returns {"type":"boolean"}.
func Boolean() *Node { return finish(&Node{typ: TypeBoolean}) }

// Null returns {"type":"null"}.
func Null() *Node { return finish(&Node{typ: TypeNull}) }

// OneOf returns {"oneOf":[...]}: a value must match exactly one branch, and
// there must be at least two.
func OneOf(branches ...*Node) *Node {
	return finish(&Node{has: kwOneOf, oneOf: slices.Clone(branches)})
}

// Nullable returns {"oneOf":[s,{"type":"null"}]}, the subset's spelling of a
// value that may also be null.
func Nullable(s *Node) *Node { return OneOf(s, Null()) }

// copyOf returns a shallow copy of n whose derived state finish recomputes.
func (n *Node) copyOf() *Node {
	if n == nil {
		return &Node{}
	}
	c := *n
	c.props = slices.Clone(n.props) // finish rewrites their required bits
	return &c
}

// WithType returns a copy of n with type t (TypeAny removes the keyword).
func (n *Node) WithType(t Type) *Node {
	c := n.copyOf()
	c.typ = t
	return finish(c)
}

// WithTitle returns a copy of n with the title annotation s.
func (n *Node) WithTitle(s string) *Node {
	c := n.copyOf()
	c.title, c.has = s, c.has|kwTitle
	return finish(c)
}

// WithDescription returns a copy of n with the description annotation s.
func (n *Node) WithDescription(s string) *Node {
	c := n.copyOf()
	c.description, c.has = s, c.has|kwDescription
	return finish(c)
}

// WithDefault returns a copy of n with the default annotation v, which must
// be a canonical JSON value of any shape; nil removes it.
func (n *Node) WithDefault(v jsonvalue.Value) *Node {
	c := n.copyOf()
	c.def = v.Clone()
	return finish(c)
}

// WithExamples returns a copy of n with the examples annotation v, which
// must be a canonical JSON value of any shape; nil removes it.
func (n *Node) WithExamples(v jsonvalue.Value) *Node {
	c := n.copyOf()
	c.examples = v.Clone()
	return finish(c)
}

// WithEnum returns a copy of n whose value must be one of values: canonical
// scalars of n's type.
func (n *Node) WithEnum(values ...jsonvalue.Value) *Node {
	c := n.copyOf()
	c.has |= kwEnum
	c.enum = make([]scalar, len(values))
	for i, v := range values {
		c.enum[i] = newScalar(v.Clone())
	}
	return finish(c)
}

// WithConst returns a copy of n whose value must be v: a canonical scalar of
// n's type.
func (n *Node) WithConst(v jsonvalue.Value) *Node {
	c := n.copyOf()
	c.has |= kwConst
	s := newScalar(v.Clone())
	c.cnst = &s
	return finish(c)
}

// WithProperties returns a copy of n with exactly these properties, in
// order; with none it still carries an empty properties keyword.
func (n *Node) WithProperties(props ...Property) *Node {
	c := n.copyOf()
	c.has |= kwProperties
	c.props = toProperties(props)
	return finish(c)
}

// WithRequired returns a copy of n that requires the named properties.
func (n *Node) WithRequired(names ...string) *Node {
	c := n.copyOf()
	c.has |= kwRequired
	c.required = slices.Clone(names)
	if c.required == nil {
		c.required = []string{}
	}
	return finish(c)
}

// WithAdditionalProperties returns a copy of n with additionalProperties set
// to allowed: false rejects keys that properties does not declare.
func (n *Node) WithAdditionalProperties(allowed bool) *Node {
	c := n.copyOf()
	c.has |= kwAdditional
	c.additional = allowed
	return finish(c)
}

// Closed returns a copy of n with additionalProperties false.
func (n *Node) Closed() *Node { return n.WithAdditionalProperties(false) }

// WithItems returns a copy of n with item schema s; nil removes items.
func (n *Node) WithItems(s *Node) *Node {
	c := n.copyOf()
	c.items = s
	c.has &^= kwItems
	if s != nil {
		c.has |= kwItems
	}
	return finish(c)
}

// WithOneOf returns a copy of n with these oneOf branches, for a oneOf
// beside other keywords such as type.
func (n *Node) WithOneOf(branches ...*Node) *Node {
	c := n.copyOf()
	c.has |= kwOneOf
	c.oneOf = slices.Clone(branches)
	return finish(c)
}

func toProperties(props []Property) []property {
	out := make([]property, len(props))
	for i, p := range props {
		out[i] = property{name: p.Name, key: escapedName(p.Name), node: p.Schema, bit: -1}
	}
	return out
}

func newScalar(v jsonvalue.Value) scalar {
	s := scalar{v: v}
	if v.Kind() == jsonvalue.KindNumber {
		s.num, _ = decimal.Parse(v)
	}
	return s
}

// Type returns the node's type, or TypeAny when it has none.
func (n *Node) Type() Type { return n.typ }

// Title returns the title annotation and whether it is present.
func (n *Node) Title() (string, bool) { return n.title, n.has&kwTitle != 0 }

// Description returns the description annotation and whether it is present.
func (n *Node) Description() (string, bool) { return n.description, n.has&kwDescription != 0 }

// Default returns a copy of the default annotation, or nil.
func (n *Node) Default() jsonvalue.Value { return n.def.Clone() }

// Examples returns a copy of the examples annotation, or nil.
func (n *Node) Examples() jsonvalue.Value { return n.examples.Clone() }

// Enum returns copies of the enum values, or nil when there is no enum.
func (n *Node) Enum() []jsonvalue.Value {
	if n.has&kwEnum == 0 {
		return nil
	}
	out := make([]jsonvalue.Value, len(n.enum))
	for i, s := range n.enum {
		out[i] = s.v.Clone()
	}
	return out
}

// Const returns a copy of the const value and whether there is one.
func (n *Node) Const() (jsonvalue.Value, bool) {
	if n.has&kwConst == 0 {
		return nil, false
	}
	return n.cnst.v.Clone(), true
}

// Properties returns the properties in order, and whether the properties
// keyword is present.
func (n *Node) Properties() ([]Property, bool) {
	out := make([]Property, len(n.props))
	for i, p := range n.props {
		out[i] = Property{Name: p.name, Schema: p.node}
	}
	return out, n.has&kwProperties != 0
}

// Property returns the schema of the named property, or nil.
func (n *Node) Property(name string) *Node {
	for _, p := range n.props {
		if p.name == name {
			return p.node
		}
	}
	return nil
}

// Required returns the required names, and whether the keyword is present.
func (n *Node) Required() ([]string, bool) {
	return slices.Clone(n.required), n.has&kwRequired != 0
}

// AdditionalProperties returns the additionalProperties value and whether
// it is present; absent means open.
func (n *Node) AdditionalProperties() (allowed, present bool) {
	return n.additional, n.has&kwAdditional != 0
}

// Items returns the item schema, or nil.
func (n *Node) Items() *Node { return n.items }

// OneOf returns the oneOf branches, or nil.
func (n *Node) OneOf() []*Node { return slices.Clone(n.oneOf) }

// finish derives n's lookup tables and checks the rules that involve only n
// itself, then returns n.
func finish(n *Node) *Node {
	n.issues = slices.Clone(n.parsed)
	n.index = nil
	n.reqCount = 0
	bad := func(ptr string, code IssueCode, msg string) {
		n.issues = append(n.issues, Issue{Pointer: ptr, Code: code, Message: msg})
	}

	if n.has&kwProperties != 0 && n.typ != TypeObject {
		bad("/properties", IssueNeedsType, `properties requires type "object"`)
	}
	if n.has&kwRequired != 0 && n.typ != TypeObject {
		bad("/required", IssueNeedsType, `required requires type "object"`)
	}
	if n.has&kwAdditional != 0 && n.typ != TypeObject {
		bad("/additionalProperties", IssueNeedsType, `additionalProperties requires type "object"`)
	}
	if n.has&kwItems != 0 && n.typ != TypeArray {
		bad("/items", IssueNeedsType, `items requires type "array"`)
	}

	if n.has&kwTitle != 0 && !utf8.ValidString(n.title) {
		bad("/title", IssueNotLossless, "title is not valid UTF-8")
	}
	if n.has&kwDescription != 0 && !utf8.ValidString(n.description) {
		bad("/description", IssueNotLossless, "description is not valid UTF-8")
	}
	if len(n.props) > linearLookup {
		n.index = make(map[string]int, len(n.props))
	}
	for i := range n.props {
		p := &n.props[i]
		p.bit = -1
		if !utf8.ValidString(p.name) {
			bad("/properties/"+escapePointer(p.name), IssueNotLossless, "property name is not valid UTF-8")
		}
		if n.declaredBefore(i) {
			bad("/properties/"+escapePointer(p.name), IssueDuplicateProperty, "duplicate property name "+quote(p.name))
		} else if n.index != nil {
			n.index[p.key] = i
		}
	}
	for i, name := range n.required {
		if !utf8.ValidString(name) {
			bad("/required/"+itoa(i), IssueNotLossless, "required name is not valid UTF-8")
			continue
		}
		j := n.propIndex(name)
		switch {
		case j < 0:
			bad("/required/"+itoa(i), IssueUndeclaredRequired, "required name "+quote(name)+" is not in properties")
		case n.props[j].bit < 0:
			n.props[j].bit = n.reqCount
			n.reqCount++
		}
	}

	if n.has&kwEnum != 0 {
		if n.typ == TypeAny {
			bad("/enum", IssueNeedsType, "enum requires a type")
		}
		if len(n.enum) == 0 && !hasIssue(n.parsed, "/enum") {
			bad("/enum", IssueEmptyEnum, "enum needs at least one value")
		}
		for i, s := range n.enum {
			checkScalar(n, "/enum/"+itoa(i), "enum value", s, bad)
		}
	}
	if n.has&kwConst != 0 {
		if n.typ == TypeAny {
			bad("/const", IssueNeedsType, "const requires a type")
		}
		checkScalar(n, "/const", "const", *n.cnst, bad)
	}
	if n.def != nil && !lossless(n.def) {
		bad("/default", IssueNotLossless, "default is not canonical JSON")
	}
	if n.examples != nil && !lossless(n.examples) {
		bad("/examples", IssueNotLossless, "examples is not canonical JSON")
	}

	if n.has&kwOneOf != 0 && len(n.oneOf) < 2 && !hasIssue(n.parsed, "/oneOf") {
		bad("/oneOf", IssueTooFewBranches, "oneOf needs at least two branches, has "+itoa(len(n.oneOf)))
	}
	for i, b := range n.oneOf {
		if b == nil {
			bad("/oneOf/"+itoa(i), IssueNotASchema, "schema is nil")
		}
	}
	for _, p := range n.props {
		if p.node == nil {
			bad("/properties/"+escapePointer(p.name), IssueNotASchema, "schema is nil")
		}
	}

	n.broken = len(n.issues) > 0
	for _, p := range n.props {
		n.broken = n.broken || p.node != nil && p.node.broken
	}
	n.broken = n.broken || n.items != nil && n.items.broken
	for _, b := range n.oneOf {
		n.broken = n.broken || b != nil && b.broken
	}
	return n
}

// declaredBefore reports whether property i's name is also the name of an
// earlier property; the index map, once filled, answers for large objects.
func (n *Node) declaredBefore(i int) bool {
	if n.index != nil {
		_, dup := n.index[n.props[i].key]
		return dup
	}
	for _, p := range n.props[:i] {
		if p.name == n.props[i].name {
			return true
		}
	}
	return false
}

// escapedName returns name as a JSON string's contents spell it
// canonically; names that need no escaping are returned as they are.
func escapedName(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			key, _ := jsontext.AppendQuote(nil, name)
			return string(key[1 : len(key)-1])
		}
	}
	return name
}

func hasIssue(issues []Issue, ptr string) bool {
	for _, is := range issues {
		if is.Pointer == ptr {
			return true
		}
	}
	return false
}

// checkScalar checks one enum or const value against n's type.
func checkScalar(n *Node, ptr, what string, s scalar, bad func(string, IssueCode, string)) {
	k := s.v.Kind()
	switch {
	case k == jsonvalue.KindObject || k == jsonvalue.KindArray:
		bad(ptr, IssueNotScalar, what+" is not a scalar ("+k.String()+")")
	case !canon.Scalar(s.v):
		bad(ptr, IssueNotLossless, what+" is not a canonical JSON scalar")
	case n.typ != TypeAny && !scalarFits(s, n.typ):
		bad(ptr, IssueTypeMismatch, what+" ("+k.String()+") does not match type "+n.typ.String())
	}
}

// scalarFits reports whether a canonical scalar is a value of type t.
func scalarFits(s scalar, t Type) bool {
	switch k := s.v.Kind(); t {
	case TypeString:
		return k == jsonvalue.KindString
	case TypeNumber:
		return k == jsonvalue.KindNumber
	case TypeInteger:
		return k == jsonvalue.KindNumber && s.num.IsInteger()
	case TypeBoolean:
		return k == jsonvalue.KindTrue || k == jsonvalue.KindFalse
	case TypeNull:
		return k == jsonvalue.KindNull
	}
	return false
}

// lossless reports whether v is canonical JSON. Scalars, the usual
// defaults, are checked by scanning alone, so building a node in Go parses
// nothing.
func lossless(v jsonvalue.Value) bool {
	if k := v.Kind(); k != jsonvalue.KindObject && k != jsonvalue.KindArray {
		return canon.Scalar(v)
	}
	return v.Valid()
}

// propIndex returns the index of the property with the given name, or -1.
func (n *Node) propIndex(name string) int {
	for i, p := range n.props {
		if p.name == name {
			return i
		}
	}
	return -1
}

// constText returns the const value's text, or nil when there is none.
func (n *Node) constText() jsonvalue.Value {
	if n.cnst == nil {
		return nil
	}
	return n.cnst.v
}

func quote(s string) string {
	b, _ := jsontext.AppendQuote(nil, s)
	return string(b)
}

func itoa(i int) string { return strconv.Itoa(i) }

// AcceptsAnything reports whether n constrains nothing: the empty schema or
// one with annotations only, which every JSON value satisfies. Callers use
// it to skip validating values that need no check.
func (n *Node) AcceptsAnything() bool {
	return n != nil && !n.broken && n.typ == TypeAny && n.has&^(kwTitle|kwDescription) == 0
}
