package schemasubset

import "github.com/toolgen-go/toolgen/jsonvalue"

// Spec describes a schema tree as plain data, for [Build]. It is how
// generated code spells its schemas: a package-level Spec literal of
// constants is laid out by the compiler with no start-up work, and Build
// turns a whole tree into nodes with at most four allocations instead of a
// few per node; a package of a hundred tools initializes in about half a
// millisecond.
//
// A nil or zero field means the keyword is absent, so a Spec cannot spell
// an empty title or description; build such a node with the constructors
// and the With methods and put it in Node.
type Spec struct {
	// Node, when set, is used as it is and every other field is ignored.
	Node *Node
	// Type is the type keyword; TypeAny leaves it out.
	Type Type
	// Title and Description are the annotations of the same names.
	Title, Description string
	// Default and Examples are canonical JSON annotations.
	Default, Examples jsonvalue.Value
	// Enum lists the allowed values, canonical scalars of Type.
	Enum []jsonvalue.Value
	// Const is the one allowed value, a canonical scalar of Type.
	Const jsonvalue.Value
	// Properties, when not nil (an empty non-nil slice included), is the
	// properties keyword, in order.
	Properties []SpecProperty
	// Required, when not nil, is the required keyword.
	Required []string
	// Additional is the additionalProperties keyword.
	Additional Additional
	// Items is the item schema of an array.
	Items *Spec
	// OneOf, when not nil, lists the oneOf branches.
	OneOf []Spec
}

// SpecProperty is one named property of a Spec.
type SpecProperty struct {
	// Name is the property name, unescaped.
	Name string
	// Schema is the property's schema.
	Schema Spec
}

// Additional is a Spec's additionalProperties keyword.
type Additional uint8

// The additionalProperties settings a Spec can carry.
const (
	// AdditionalUnset leaves the keyword out: unknown members are accepted.
	AdditionalUnset Additional = iota
	// AdditionalForbidden is additionalProperties: false.
	AdditionalForbidden
	// AdditionalAllowed is additionalProperties: true.
	AdditionalAllowed
)

// Build returns the node s describes. The node is equal to the one the
// constructors and With methods build for the same keywords, and like them
// it reports a rule s breaks through [AssertSupported] rather than
// panicking. Build keeps s's strings and slices of names and values rather
// than copying them, so s must not be modified afterwards; generated code
// passes package-level literals that nothing writes.
func Build(s *Spec) *Node {
	var c buildCounts
	c.count(s)
	b := builder{
		nodes:   make([]Node, c.nodes),
		props:   make([]property, c.props),
		scalars: make([]scalar, c.scalars),
	}
	if c.branches > 0 {
		b.branches = make([]*Node, c.branches)
	}
	return b.build(s)
}

// buildCounts sizes a builder's backing arrays.
type buildCounts struct {
	nodes, props, scalars, branches int
}

func (c *buildCounts) count(s *Spec) {
	if s.Node != nil {
		return
	}
	c.nodes++
	c.props += len(s.Properties)
	c.scalars += len(s.Enum)
	if s.Const != nil {
		c.scalars++
	}
	c.branches += len(s.OneOf)
	for i := range s.Properties {
		c.count(&s.Properties[i].Schema)
	}
	if s.Items != nil {
		c.count(s.Items)
	}
	for i := range s.OneOf {
		c.count(&s.OneOf[i])
	}
}

// builder hands out a tree's nodes and their slices from backing arrays
// allocated once.
type builder struct {
	nodes    []Node
	props    []property
	scalars  []scalar
	branches []*Node
}

// take returns the next n elements of *pool, capped so that an append to
// them cannot overwrite their neighbours.
func take[T any](pool *[]T, n int) []T {
	out := (*pool)[:n:n]
	*pool = (*pool)[n:]
	return out
}

func (b *builder) build(s *Spec) *Node {
	if s.Node != nil {
		return s.Node
	}
	n := &b.nodes[0]
	b.nodes = b.nodes[1:]
	n.typ = s.Type
	if s.Title != "" {
		n.title, n.has = s.Title, n.has|kwTitle
	}
	if s.Description != "" {
		n.description, n.has = s.Description, n.has|kwDescription
	}
	n.def, n.examples = s.Default, s.Examples
	if s.Enum != nil {
		n.has |= kwEnum
		n.enum = take(&b.scalars, len(s.Enum))
		for i, v := range s.Enum {
			n.enum[i] = newScalar(v)
		}
	}
	if s.Const != nil {
		n.has |= kwConst
		n.cnst = &take(&b.scalars, 1)[0]
		*n.cnst = newScalar(s.Const)
	}
	if s.Properties != nil {
		n.has |= kwProperties
		n.props = take(&b.props, len(s.Properties))
		for i := range s.Properties {
			p := &s.Properties[i]
			n.props[i] = property{name: p.Name, key: escapedName(p.Name), node: b.build(&p.Schema), bit: -1}
		}
	}
	if s.Required != nil {
		n.has |= kwRequired
		n.required = s.Required
	}
	if s.Additional != AdditionalUnset {
		n.has |= kwAdditional
		n.additional = s.Additional == AdditionalAllowed
	}
	if s.Items != nil {
		n.has |= kwItems
		n.items = b.build(s.Items)
	}
	if s.OneOf != nil {
		n.has |= kwOneOf
		n.oneOf = take(&b.branches, len(s.OneOf))
		for i := range s.OneOf {
			n.oneOf[i] = b.build(&s.OneOf[i])
		}
	}
	return finish(n)
}
