// Package argsgen generates JSON argument documents for differential tests
// of generated decoders against [schemasubset.Validate].
//
// A [Generator] is built for one schema and one seed and is deterministic:
// the same schema and seed give the same sequence of documents. It makes
// three kinds of documents. [Generator.Valid] returns documents that conform
// to the schema while exercising what decoders get wrong: optional
// properties present or absent, members out of schema order, unknown
// members of open objects, escapes and non-ASCII runes in strings, and
// integer spellings at the boundaries of the Go integer and float types.
// [Generator.Invalid] derives a document from a valid one by one
// schema-level mutation, and [Generator.Mutate] mutates the bytes of a
// document. Callers compare the verdicts of the decoder under test and of
// the validator; they must not assume that a mutated document is rejected.
//
// A Generator is not safe for concurrent use.
package argsgen

import (
	"math/rand/v2"
	"slices"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// arbitraryDepth is how deeply an arbitrary value, made for a node that
// accepts anything, nests objects and arrays.
const arbitraryDepth = 3

// maxItems is the largest array a document holds.
const maxItems = 4

// oneOfTries bounds the attempts to make a value that matches exactly one
// branch of a oneOf, and the attempts of each mutation to find a value.
const oneOfTries = 16

// Generator makes documents for one schema. Build one with [New].
type Generator struct {
	schema *schemasubset.Node
	rng    *rand.Rand
}

// New returns a Generator for schema whose documents are determined by
// seed. A nil schema is the empty schema, which accepts any JSON value.
func New(schema *schemasubset.Node, seed uint64) *Generator {
	if schema == nil {
		schema = schemasubset.Any()
	}
	return &Generator{
		schema: schema,
		rng:    rand.New(rand.NewPCG(seed, 0x746f6f6c67656e00^seed<<1)),
	}
}

// Valid returns a document that conforms to the schema: one that
// [schemasubset.Validate] accepts, in the canonical form that
// [jsonvalue.Materialize] returns.
//
// Across calls it varies which optional properties appear, the order of
// members, unknown members of open objects, array lengths (0 to 4), string
// contents (ASCII, quotes, backslashes, control characters, non-ASCII BMP
// and astral runes), the spelling of integers (3, 3.0, 3e0, 30e-1, -0) and
// their values at the boundaries of int8 to uint64 and beyond the float32
// and float64 ranges, numbers with fractions and exponents, the member of
// an enum, the branch of a oneOf, and arbitrary JSON of any kind where the
// schema accepts anything. For a schema that no value satisfies, or whose
// oneOf branches the generator cannot separate, the document is its best
// attempt and may not conform.
func (g *Generator) Valid() jsonvalue.Value {
	return g.materialize(g.gen(g.schema, 0))
}

// materialize writes v as JSON text, with random insignificant whitespace
// and escapes, and returns its canonical form. It panics if the text is not
// JSON, which would be a bug in this package.
func (g *Generator) materialize(v *val) jsonvalue.Value {
	out, err := jsonvalue.Materialize(g.write(nil, v))
	if err != nil {
		panic("argsgen: generated text is not JSON: " + err.Error())
	}
	return out
}

// conforms reports whether v, written canonically, satisfies n.
func conforms(n *schemasubset.Node, v *val) bool {
	doc, err := jsonvalue.Materialize(writePlain(nil, v))
	return err == nil && schemasubset.Validate(n, doc) == nil
}

// gen returns a value generated for n. depth counts the containers above
// the value that arbitrary values opened, and limits their nesting.
func (g *Generator) gen(n *schemasubset.Node, depth int) *val {
	if n == nil || n.AcceptsAnything() {
		v := g.arbitrary(depth)
		v.nodes = []*schemasubset.Node{n}
		return v
	}
	if branches := n.OneOf(); len(branches) > 0 {
		// Each try takes a branch among those with the fewest failures, so
		// a branch whose values other branches always match too (integer
		// beside number) gets fewer tries than one that succeeds at times.
		failures := make([]int, len(branches))
		var least []int
		var v *val
		for range 4 * oneOfTries {
			least = least[:0]
			for i, f := range failures {
				if len(least) > 0 && f < failures[least[0]] {
					least = least[:0]
				}
				if len(least) == 0 || f == failures[least[0]] {
					least = append(least, i)
				}
			}
			i := least[g.rng.IntN(len(least))]
			v = g.gen(branches[i], depth)
			if conforms(n, v) || g.separate(v, branches, i, depth) && conforms(n, v) {
				break
			}
			failures[i]++
		}
		v.nodes = append([]*schemasubset.Node{n}, v.nodes...)
		return v
	}
	v := g.genOwn(n, depth)
	v.nodes = []*schemasubset.Node{n}
	return v
}

// separate tries to make the object v, generated for the open object
// branch branches[i], stop matching the other branches it matches: for each
// such object branch it adds a member that the branch declares and branch i
// does not, with a value the other branch's property rejects. It reports
// whether it changed v.
func (g *Generator) separate(v *val, branches []*schemasubset.Node, i, depth int) bool {
	own := branches[i]
	if allowed, present := own.AdditionalProperties(); v.k != kObject || present && !allowed {
		return false
	}
	changed := false
	for j, other := range branches {
		if j == i || other.Type() != schemasubset.TypeObject || !conforms(other, v) {
			continue
		}
		props, _ := other.Properties()
		g.rng.Shuffle(len(props), func(a, b int) { props[a], props[b] = props[b], props[a] })
		for _, p := range props {
			if own.Property(p.Name) != nil || p.Schema == nil || p.Schema.AcceptsAnything() ||
				slices.ContainsFunc(v.mems, func(m member) bool { return m.name == p.Name }) {
				continue
			}
			r := g.arbitrary(depth + 1)
			for range oneOfTries {
				if !conforms(p.Schema, r) {
					break
				}
				r = g.arbitrary(depth + 1)
			}
			if !conforms(p.Schema, r) {
				v.mems = slices.Insert(v.mems, g.rng.IntN(len(v.mems)+1), member{p.Name, r})
				changed = true
				break
			}
		}
	}
	return changed
}

// genOwn returns a value for n's own keywords, without oneOf.
func (g *Generator) genOwn(n *schemasubset.Node, depth int) *val {
	if c, ok := n.Const(); ok {
		return g.scalarFrom(c)
	}
	if enum := n.Enum(); len(enum) > 0 {
		return g.scalarFrom(enum[g.rng.IntN(len(enum))])
	}
	switch n.Type() {
	case schemasubset.TypeObject:
		return g.object(n, depth)
	case schemasubset.TypeArray:
		v := &val{k: kArray}
		for range g.rng.IntN(maxItems + 1) {
			v.elems = append(v.elems, g.gen(n.Items(), depth+1))
		}
		return v
	case schemasubset.TypeAny:
		return g.arbitrary(depth)
	}
	return g.ofType(n.Type(), depth)
}

// object returns an object for n: every required property, each optional
// one with even odds, sometimes shuffled, and for an open object sometimes
// unknown members.
func (g *Generator) object(n *schemasubset.Node, depth int) *val {
	props, _ := n.Properties()
	required, _ := n.Required()
	v := &val{k: kObject}
	for _, p := range props {
		if contains(required, p.Name) || g.rng.IntN(2) == 0 {
			v.mems = append(v.mems, member{p.Name, g.gen(p.Schema, depth+1)})
		}
	}
	if allowed, present := n.AdditionalProperties(); (allowed || !present) && g.rng.IntN(4) == 0 {
		for range 1 + g.rng.IntN(2) {
			v.mems = append(v.mems, member{g.freshName(props, v.mems), g.arbitrary(depth + 1)})
		}
	}
	if g.rng.IntN(3) == 0 {
		g.rng.Shuffle(len(v.mems), func(i, j int) { v.mems[i], v.mems[j] = v.mems[j], v.mems[i] })
	}
	return v
}

// freshName returns a member name that is neither a declared property nor
// already among mems.
func (g *Generator) freshName(props []schemasubset.Property, mems []member) string {
	for i := 0; ; i++ {
		name := g.str()
		if i > 8 {
			name = "extra" + string(rune('a'+g.rng.IntN(26))) + name
		}
		taken := false
		for _, p := range props {
			taken = taken || p.Name == name
		}
		for _, m := range mems {
			taken = taken || m.name == name
		}
		if !taken {
			return name
		}
	}
}

// ofType returns a value of type t, ignoring any enum or const.
func (g *Generator) ofType(t schemasubset.Type, depth int) *val {
	switch t {
	case schemasubset.TypeObject:
		return g.arbitraryOf(kObject, depth)
	case schemasubset.TypeArray:
		return g.arbitraryOf(kArray, depth)
	case schemasubset.TypeString:
		return &val{k: kString, s: g.str()}
	case schemasubset.TypeNumber:
		return &val{k: kNumber, s: g.number()}
	case schemasubset.TypeInteger:
		return &val{k: kNumber, s: g.integer()}
	case schemasubset.TypeBoolean:
		return g.arbitraryOf(kTrue, depth)
	case schemasubset.TypeNull:
		return &val{k: kNull}
	}
	return g.arbitrary(depth)
}

// arbitrary returns a JSON value of any kind, nesting containers only while
// depth is below arbitraryDepth.
func (g *Generator) arbitrary(depth int) *val {
	kinds := []kind{kNull, kFalse, kTrue, kNumber, kString, kArray, kObject}
	if depth >= arbitraryDepth {
		kinds = kinds[:5]
	}
	return g.arbitraryOf(kinds[g.rng.IntN(len(kinds))], depth)
}

// arbitraryOf returns an arbitrary value of kind k; kFalse and kTrue both
// mean a random boolean.
func (g *Generator) arbitraryOf(k kind, depth int) *val {
	switch k {
	case kFalse, kTrue:
		if g.rng.IntN(2) == 0 {
			return &val{k: kFalse}
		}
		return &val{k: kTrue}
	case kNumber:
		return &val{k: kNumber, s: g.number()}
	case kString:
		return &val{k: kString, s: g.str()}
	case kArray:
		v := &val{k: kArray}
		if depth < arbitraryDepth {
			for range g.rng.IntN(maxItems) {
				v.elems = append(v.elems, g.arbitrary(depth+1))
			}
		}
		return v
	case kObject:
		v := &val{k: kObject}
		if depth < arbitraryDepth {
			for range g.rng.IntN(maxItems) {
				v.mems = append(v.mems, member{g.freshName(nil, v.mems), g.arbitrary(depth + 1)})
			}
		}
		return v
	}
	return &val{k: kNull}
}

// scalarFrom returns the enum or const value c as a value, respelling a
// number now and then (1 as 1.0 or 10e-1), which keeps its value.
func (g *Generator) scalarFrom(c jsonvalue.Value) *val {
	switch c.Kind() {
	case jsonvalue.KindNumber:
		s := string(c)
		if g.rng.IntN(3) == 0 {
			s = g.respell(s)
		}
		return &val{k: kNumber, s: s}
	case jsonvalue.KindString:
		return &val{k: kString, s: jsonvalue.Unescape(c[1 : len(c)-1])}
	case jsonvalue.KindTrue:
		return &val{k: kTrue}
	case jsonvalue.KindFalse:
		return &val{k: kFalse}
	case jsonvalue.KindNull:
		return &val{k: kNull}
	}
	return &val{k: kRaw, s: string(c)}
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
