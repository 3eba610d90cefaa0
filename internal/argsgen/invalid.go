package argsgen

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// The words [Generator.Invalid] returns to name its mutation.
const (
	// MutationNone means the schema offers no location to mutate (it
	// accepts anything), so the document is a valid one.
	MutationNone = "none"
	// MutationDropRequired removes a required property from an object.
	MutationDropRequired = "drop-required"
	// MutationType replaces a value with one of a JSON type its node does
	// not allow.
	MutationType = "type"
	// MutationEnum replaces a value with one of the node's type that is not
	// a member of its enum.
	MutationEnum = "enum"
	// MutationConst replaces a value with one of the node's type that is
	// not its const.
	MutationConst = "const"
	// MutationExtraMember adds an undeclared member to an object whose
	// additionalProperties is false.
	MutationExtraMember = "extra-member"
	// MutationNull replaces a value with null where its node does not
	// allow null.
	MutationNull = "null"
	// MutationFraction replaces an integer with a number that has a
	// fractional part, such as 1.5.
	MutationFraction = "fraction"
	// MutationOneOfNone replaces a value with one that matches none of the
	// branches of a oneOf.
	MutationOneOfNone = "oneof-none"
	// MutationOneOfBoth replaces a value with one that matches two branches
	// of a oneOf.
	MutationOneOfBoth = "oneof-both"
)

// Mutations lists every word [Generator.Invalid] may return.
var Mutations = []string{
	MutationNone, MutationDropRequired, MutationType, MutationEnum, MutationConst, MutationExtraMember,
	MutationNull, MutationFraction, MutationOneOfNone, MutationOneOfBoth,
}

// candidate is one mutation possible at one location of a document. apply
// performs it and reports whether it could; when it cannot, it changes
// nothing.
type candidate struct {
	name  string
	apply func() bool
}

// Invalid returns a document derived from a valid one by one schema-level
// mutation, in canonical form, and the word naming the mutation (one of
// [Mutations]).
//
// The location is picked at random among every location of the document,
// at any depth, where some mutation applies: dropping a required property,
// changing a value's JSON type, putting a non-member in an enum or const
// slot, adding a member to a closed object, putting null where null is not
// allowed, making an integer fractional, or making a oneOf value match zero
// or two branches. Replacement values are chosen so that the schema node of
// their location rejects them, but an enclosing oneOf may still accept the
// whole document through another branch, so the result is not invalid in
// every case: callers compare verdicts and do not assume rejection. A
// schema that accepts anything has no location to mutate; then the
// document is valid and the word is [MutationNone].
func (g *Generator) Invalid() (jsonvalue.Value, string) {
	root := g.gen(g.schema, 0)
	var cands []candidate
	var walk func(v *val)
	walk = func(v *val) {
		cands = append(cands, g.candidates(v)...)
		for _, e := range v.elems {
			walk(e)
		}
		for _, m := range v.mems {
			walk(m.v)
		}
	}
	walk(root)
	for len(cands) > 0 {
		i := g.rng.IntN(len(cands))
		if cands[i].apply() {
			return g.materialize(root), cands[i].name
		}
		cands = slices.Delete(cands, i, i+1)
	}
	return g.materialize(root), MutationNone
}

// replace makes v hold r.
func (v *val) replace(r *val) { *v = *r }

// candidates returns the mutations possible at v.
func (g *Generator) candidates(v *val) []candidate {
	if len(v.nodes) == 0 || v.nodes[0] == nil || v.nodes[0].AcceptsAnything() {
		return nil
	}
	slot := v.nodes[0]
	var out []candidate
	add := func(name string, apply func() bool) { out = append(out, candidate{name, apply}) }
	// substitute returns an apply function that tries values from next
	// until one that want accepts and slot rejects.
	substitute := func(next func() *val, want func(*val) bool) func() bool {
		return func() bool {
			for range oneOfTries {
				r := next()
				if (want == nil || want(r)) && !conforms(slot, r) {
					v.replace(r)
					return true
				}
			}
			return false
		}
	}

	if !conforms(slot, &val{k: kNull}) {
		add(MutationNull, func() bool { v.replace(&val{k: kNull}); return true })
	}
	var typed, object *schemasubset.Node
	integer := false
	for _, n := range v.nodes {
		if t := n.Type(); t != schemasubset.TypeAny {
			typed = n
			integer = integer || t == schemasubset.TypeInteger
			if t == schemasubset.TypeObject {
				object = n
			}
		}
	}
	if typed != nil {
		var kinds []kind
		for _, k := range []kind{kNull, kTrue, kNumber, kString, kArray, kObject} {
			if !fits(k, typed.Type()) {
				kinds = append(kinds, k)
			}
		}
		add(MutationType, substitute(func() *val {
			return g.arbitraryOf(kinds[g.rng.IntN(len(kinds))], arbitraryDepth-1)
		}, nil))
	}
	for _, n := range v.nodes {
		c, isConst := n.Const()
		enum := n.Enum()
		if !isConst && len(enum) == 0 {
			continue
		}
		name := MutationEnum
		if isConst {
			name, enum = MutationConst, append(enum, c)
		}
		add(name, substitute(func() *val { return g.nonMember(n, enum) }, func(r *val) bool { return !conforms(n, r) }))
	}
	if integer && v.k == kNumber {
		add(MutationFraction, substitute(func() *val { return &val{k: kNumber, s: g.fraction(v.s)} }, nil))
	}
	if object != nil && v.k == kObject {
		required, _ := object.Required()
		var present []int
		for i, m := range v.mems {
			if contains(required, m.name) {
				present = append(present, i)
			}
		}
		if len(present) > 0 {
			add(MutationDropRequired, func() bool {
				i := present[g.rng.IntN(len(present))]
				v.mems = slices.Delete(v.mems, i, i+1)
				return true
			})
		}
		if allowed, has := object.AdditionalProperties(); has && !allowed {
			add(MutationExtraMember, func() bool {
				props, _ := object.Properties()
				m := member{g.freshName(props, v.mems), g.arbitrary(arbitraryDepth - 1)}
				v.mems = slices.Insert(v.mems, g.rng.IntN(len(v.mems)+1), m)
				return true
			})
		}
	}
	for _, n := range v.nodes {
		branches := n.OneOf()
		if len(branches) == 0 {
			continue
		}
		add(MutationOneOfNone, func() bool {
			for range oneOfTries {
				r := g.nearBranch(branches)
				if matches(branches, r) == 0 {
					v.replace(r)
					return true
				}
			}
			return false
		})
		add(MutationOneOfBoth, func() bool {
			if r := g.twoBranches(branches); r != nil {
				v.replace(r)
				return true
			}
			return false
		})
	}
	return out
}

// fits reports whether a value of kind k has type t.
func fits(k kind, t schemasubset.Type) bool {
	switch t {
	case schemasubset.TypeObject:
		return k == kObject
	case schemasubset.TypeArray:
		return k == kArray
	case schemasubset.TypeString:
		return k == kString
	case schemasubset.TypeNumber, schemasubset.TypeInteger:
		return k == kNumber
	case schemasubset.TypeBoolean:
		return k == kTrue || k == kFalse
	case schemasubset.TypeNull:
		return k == kNull
	}
	return true
}

// nonMember returns a value of n's type that is probably not among
// members: random, or for strings often a near miss of a member (another
// case, a space added, a character dropped), for numbers a neighbour.
func (g *Generator) nonMember(n *schemasubset.Node, members []jsonvalue.Value) *val {
	if len(members) > 0 && g.rng.IntN(2) == 0 {
		m := g.scalarFrom(members[g.rng.IntN(len(members))])
		switch m.k {
		case kString:
			switch g.rng.IntN(4) {
			case 0:
				m.s = strings.ToUpper(m.s)
			case 1:
				m.s += " "
			case 2:
				if _, size := utf8.DecodeLastRuneInString(m.s); size > 0 {
					m.s = m.s[:len(m.s)-size]
				} else {
					m.s = "a"
				}
			default:
				m.s = " " + m.s
			}
			return m
		case kNumber:
			switch digits := strings.TrimPrefix(m.s, "-"); {
			case strings.HasPrefix(digits, "0"):
				m.s = "1" + digits
			case !strings.ContainsAny(m.s, ".eE"):
				m.s += "1"
			default:
				m.s = "1" + strings.TrimPrefix(m.s, "-")
			}
			return m
		case kTrue:
			return &val{k: kFalse}
		case kFalse:
			return &val{k: kTrue}
		}
	}
	return g.ofType(n.Type(), arbitraryDepth-1)
}

// fraction returns a number with a nonzero fractional part, often next to
// the integer text s.
func (g *Generator) fraction(s string) string {
	if g.rng.IntN(2) == 0 && !strings.ContainsAny(s, ".eE") {
		return s + []string{".5", ".000001", ".9999999999999999999"}[g.rng.IntN(3)]
	}
	return []string{"1.5", "-1.5", "0.5", "1e-1", "15e-1", "1e-400", "9223372036854775807.5", "18446744073709551615.5"}[g.rng.IntN(8)]
}

// matches returns how many of branches r satisfies.
func matches(branches []*schemasubset.Node, r *val) int {
	count := 0
	for _, b := range branches {
		if conforms(b, r) {
			count++
		}
	}
	return count
}

// nearBranch returns a value that may match no branch: an arbitrary
// value, or a value made for one branch with a member removed or added.
func (g *Generator) nearBranch(branches []*schemasubset.Node) *val {
	if g.rng.IntN(2) == 0 {
		return g.arbitrary(arbitraryDepth - 1)
	}
	r := g.gen(branches[g.rng.IntN(len(branches))], arbitraryDepth-1)
	switch {
	case r.k == kObject && len(r.mems) > 0 && g.rng.IntN(2) == 0:
		i := g.rng.IntN(len(r.mems))
		r.mems = slices.Delete(r.mems, i, i+1)
	case r.k == kObject:
		r.mems = append(r.mems, member{g.freshName(nil, r.mems), g.arbitrary(arbitraryDepth - 1)})
	case r.k == kArray:
		r.elems = append(r.elems, g.arbitrary(arbitraryDepth-1))
	default:
		r = g.arbitrary(arbitraryDepth - 1)
	}
	return r
}

// twoBranches returns a value that matches at least two of branches, or
// nil when it finds none: a value made for one branch that another accepts
// too, or the members of values for two object branches merged.
func (g *Generator) twoBranches(branches []*schemasubset.Node) *val {
	if len(branches) < 2 {
		return nil
	}
	for range oneOfTries {
		i := g.rng.IntN(len(branches))
		j := (i + 1 + g.rng.IntN(len(branches)-1)) % len(branches)
		r := g.gen(branches[i], arbitraryDepth-1)
		if !conforms(branches[j], r) && r.k == kObject {
			if o := g.gen(branches[j], arbitraryDepth-1); o.k == kObject {
				r = r.clone()
				for _, m := range o.mems {
					if !slices.ContainsFunc(r.mems, func(n member) bool { return n.name == m.name }) {
						r.mems = append(r.mems, m)
					}
				}
			}
		}
		if conforms(branches[i], r) && conforms(branches[j], r) {
			return r
		}
	}
	return nil
}
