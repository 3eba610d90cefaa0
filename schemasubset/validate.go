package schemasubset

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgen-go/toolgen/internal/canon"
	"github.com/toolgen-go/toolgen/internal/decimal"
	"github.com/toolgen-go/toolgen/jsonvalue"
)

// Validate checks the value v against the schema n and returns nil, or a
// [*ValidationError] for the first violation in document order.
//
// On each node the checks run in this order: type, const, enum, oneOf, then
// the members or items in document order; required is checked when the
// object closes and reported at the object's path, a property that
// additionalProperties false forbids is reported at its own path, and a
// failed oneOf is reported at the value's path (not inside a branch).
// integer, enum and const are decided on the exact decimal text of numbers.
//
// v must be canonical JSON, as [jsonvalue.Materialize] returns it. Validate
// does not re-check UTF-8 or duplicate names; bytes it cannot read are
// reported with [RuleInvalidValue], and it never panics. It does not
// allocate on a valid value (objects with more than 64 distinct required
// properties aside). A node that is not supported fails with
// [RuleUnsupportedSchema], wrapping the [*SchemaError].
func Validate(n *Node, v jsonvalue.Value) error {
	if err := AssertSupported(n); err != nil {
		return &ValidationError{Rule: RuleUnsupportedSchema, Message: err.Error(), err: err}
	}
	st := validator{b: v}
	end := st.node(n, 0)
	if end >= 0 && end != len(v) {
		end = st.malformed(end)
	}
	if end < 0 {
		return st.error()
	}
	return nil
}

// validator is the state of one Validate call.
type validator struct {
	b []byte
	// probe is above zero while oneOf branches are tried: their failures are
	// counted, not reported.
	probe int
	// broken is set when the bytes are not canonical JSON; it ends every
	// branch at once.
	broken bool
	fail   failure
	// steps is the path from the failing value up to the root, recorded
	// innermost first as the recursion unwinds.
	steps []step
}

// failure is the first violation found outside oneOf branches.
type failure struct {
	rule    Rule
	node    *Node
	at      int
	name    string // the missing or forbidden property
	matched []int  // the oneOf branches a value matched
}

type stepKind uint8

const (
	stepProperty stepKind = iota // into a declared property
	stepExtra                    // into a property additionalProperties forbids
	stepItem                     // into an array element
)

type step struct {
	kind  stepKind
	name  string
	index int
}

// node validates the value at b[i] against n and returns the index just past
// it, or -1 on a violation.
func (st *validator) node(n *Node, i int) int {
	b := st.b
	if i >= len(b) {
		return st.malformed(i)
	}
	k := jsonvalue.KindOf(b[i])
	if n.typ != TypeAny && !kindFits(k, n.typ) {
		return st.failAt(RuleType, n, i)
	}
	if n.has&(kwEnum|kwConst|kwOneOf) == 0 {
		return st.structure(n, k, i)
	}

	end := -1
	var text []byte
	if k != jsonvalue.KindObject && k != jsonvalue.KindArray {
		end = scalarEnd(b, k, i)
		if end < 0 {
			return st.malformed(i)
		}
		text = b[i:end]
	}
	var num decimal.Number
	if k == jsonvalue.KindNumber && (n.typ == TypeInteger || n.has&(kwEnum|kwConst) != 0) {
		var ok bool
		if num, ok = decimal.Parse(text); !ok {
			return st.malformed(i)
		}
		if n.typ == TypeInteger && !num.IsInteger() {
			return st.failAt(RuleType, n, i)
		}
	}
	if n.has&kwConst != 0 && !scalarEqual(*n.cnst, k, text, num) {
		return st.failAt(RuleConst, n, i)
	}
	if n.has&kwEnum != 0 && !n.inEnum(k, text, num) {
		return st.failAt(RuleEnum, n, i)
	}
	if n.has&kwOneOf != 0 {
		if end = st.oneOf(n, i); end < 0 {
			return -1
		}
		if n.has&(kwProperties|kwRequired|kwAdditional|kwItems) == 0 {
			return end
		}
	}
	if end >= 0 && k != jsonvalue.KindObject && k != jsonvalue.KindArray {
		return end
	}
	return st.structure(n, k, i)
}

// structure validates what is inside the value at b[i], whose kind already
// fits n, and returns the index just past it.
func (st *validator) structure(n *Node, k jsonvalue.Kind, i int) int {
	var end int
	switch k {
	case jsonvalue.KindObject:
		if n.has&(kwProperties|kwRequired|kwAdditional) != 0 {
			return st.object(n, i)
		}
		end = canon.Skip(st.b, i)
	case jsonvalue.KindArray:
		if n.items != nil {
			return st.array(n, i)
		}
		end = canon.Skip(st.b, i)
	case jsonvalue.KindNumber:
		if end = canon.Number(st.b, i); end >= 0 && n.typ == TypeInteger && !decimal.IsInteger(st.b[i:end]) {
			return st.failAt(RuleType, n, i)
		}
	default:
		end = scalarEnd(st.b, k, i)
	}
	if end < 0 {
		return st.malformed(i)
	}
	return end
}

func scalarEnd(b []byte, k jsonvalue.Kind, i int) int {
	switch k {
	case jsonvalue.KindString:
		return canon.String(b, i)
	case jsonvalue.KindNumber:
		return canon.Number(b, i)
	case jsonvalue.KindTrue, jsonvalue.KindFalse, jsonvalue.KindNull:
		return canon.Literal(b, i)
	}
	return -1
}

// object validates the object at b[i] against n's properties, required and
// additionalProperties.
func (st *validator) object(n *Node, i int) int {
	b := st.b
	start := i
	i++
	var seen uint64
	var seenMany []bool
	if n.reqCount > 64 {
		seenMany = make([]bool, n.reqCount)
	}
	closed := n.has&kwAdditional != 0 && !n.additional
	hint := 0
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return st.malformed(i)
			}
			keyEnd := canon.String(b, i)
			if keyEnd < 0 || keyEnd >= len(b) || b[keyEnd] != ':' {
				return st.malformed(i)
			}
			key := b[i+1 : keyEnd-1]
			i = keyEnd + 1
			if j := n.lookup(key, hint); j >= 0 {
				p := &n.props[j]
				hint = j + 1
				end := st.node(p.node, i)
				if end < 0 {
					st.push(step{kind: stepProperty, name: p.name})
					return -1
				}
				switch {
				case p.bit < 0:
				case seenMany != nil:
					seenMany[p.bit] = true
				default:
					seen |= 1 << p.bit
				}
				i = end
			} else if closed {
				if st.probe == 0 {
					st.failAt(RuleAdditionalProperties, n, i)
					st.fail.name = jsonvalue.Unescape(key)
					st.push(step{kind: stepExtra, name: st.fail.name})
				}
				return -1
			} else if i = canon.Skip(b, i); i < 0 {
				return st.malformed(keyEnd + 1)
			}
			if i >= len(b) {
				return st.malformed(i)
			}
			if b[i] == ',' {
				i++
				continue
			}
			if b[i] != '}' {
				return st.malformed(i)
			}
			i++
			break
		}
	}
	if n.reqCount > 0 {
		complete := seen == 1<<n.reqCount-1
		if seenMany != nil {
			complete = !slices.Contains(seenMany, false)
		}
		if !complete {
			if st.probe == 0 {
				st.failAt(RuleRequired, n, start)
				st.fail.name = firstMissing(n, seen, seenMany)
			}
			return -1
		}
	}
	return i
}

// firstMissing returns the first required name, in required order, that the
// object did not have.
func firstMissing(n *Node, seen uint64, seenMany []bool) string {
	for _, name := range n.required {
		p := n.props[n.propIndex(name)]
		if seenMany != nil && !seenMany[p.bit] || seenMany == nil && seen&(1<<p.bit) == 0 {
			return name
		}
	}
	return ""
}

// array validates every element of the array at b[i] against n's items.
func (st *validator) array(n *Node, i int) int {
	b := st.b
	i++
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for idx := 0; ; idx++ {
		end := st.node(n.items, i)
		if end < 0 {
			st.push(step{kind: stepItem, index: idx})
			return -1
		}
		i = end
		if i >= len(b) {
			return st.malformed(i)
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			return i + 1
		default:
			return st.malformed(i)
		}
	}
}

// oneOf tries every branch of n on the value at b[i] and returns the end of
// the value when exactly one matches.
func (st *validator) oneOf(n *Node, i int) int {
	st.probe++
	end, first, second := -1, -1, -1
	for bi, br := range n.oneOf {
		e := st.node(br, i)
		if st.broken {
			st.probe--
			return -1
		}
		if e < 0 {
			continue
		}
		if first >= 0 {
			second = bi
			break
		}
		first, end = bi, e
	}
	st.probe--
	if first >= 0 && second < 0 {
		return end
	}
	if st.probe == 0 {
		st.failAt(RuleOneOf, n, i)
		if first >= 0 {
			st.fail.matched = []int{first, second}
		}
	}
	return -1
}

// lookup returns the index of the property whose canonical escaped name is
// key, or -1. It tries hint first, because values usually list properties
// in schema order.
func (n *Node) lookup(key []byte, hint int) int {
	if n.index != nil {
		if j, ok := n.index[string(key)]; ok {
			return j
		}
		return -1
	}
	props := n.props
	if hint < len(props) && props[hint].key == string(key) {
		return hint
	}
	for j := range props {
		if props[j].key == string(key) {
			return j
		}
	}
	return -1
}

func (n *Node) inEnum(k jsonvalue.Kind, text []byte, num decimal.Number) bool {
	for _, s := range n.enum {
		if scalarEqual(s, k, text, num) {
			return true
		}
	}
	return false
}

// scalarEqual compares a value (kind k, text, and its number when it is one)
// with an enum or const scalar: numbers by exact value, everything else by
// canonical text. Objects and arrays equal no scalar.
func scalarEqual(s scalar, k jsonvalue.Kind, text []byte, num decimal.Number) bool {
	switch {
	case text == nil:
		return false
	case k == jsonvalue.KindNumber:
		return s.v.Kind() == jsonvalue.KindNumber && s.num.Equal(num)
	}
	return bytes.Equal(s.v, text)
}

func kindFits(k jsonvalue.Kind, t Type) bool {
	switch t {
	case TypeObject:
		return k == jsonvalue.KindObject
	case TypeArray:
		return k == jsonvalue.KindArray
	case TypeString:
		return k == jsonvalue.KindString
	case TypeNumber, TypeInteger:
		return k == jsonvalue.KindNumber
	case TypeBoolean:
		return k == jsonvalue.KindTrue || k == jsonvalue.KindFalse
	case TypeNull:
		return k == jsonvalue.KindNull
	}
	return true
}

// failAt records a violation of rule by the value at b[i] against n, unless
// a oneOf branch is being tried, and returns -1.
func (st *validator) failAt(rule Rule, n *Node, i int) int {
	if st.probe == 0 {
		st.fail = failure{rule: rule, node: n, at: i}
	}
	return -1
}

// malformed records that the bytes at b[i] are not canonical JSON; this ends
// oneOf branches too, and returns -1.
func (st *validator) malformed(i int) int {
	if !st.broken {
		st.broken = true
		st.fail = failure{rule: RuleInvalidValue, at: i}
		st.steps = st.steps[:0]
	}
	return -1
}

func (st *validator) push(s step) {
	if st.probe == 0 {
		st.steps = append(st.steps, s)
	}
}

// error builds the ValidationError for the recorded failure.
func (st *validator) error() *ValidationError {
	var inst, schema strings.Builder
	for i := len(st.steps) - 1; i >= 0; i-- {
		s := st.steps[i]
		switch s.kind {
		case stepProperty:
			inst.WriteString("/" + escapePointer(s.name))
			schema.WriteString("/properties/" + escapePointer(s.name))
		case stepExtra:
			inst.WriteString("/" + escapePointer(s.name))
		case stepItem:
			inst.WriteString("/" + strconv.Itoa(s.index))
			schema.WriteString("/items")
		}
	}
	f := st.fail
	if f.rule != RuleInvalidValue {
		schema.WriteString("/" + string(f.rule))
	}
	return &ValidationError{
		InstancePath: inst.String(),
		SchemaPath:   schema.String(),
		Rule:         f.rule,
		Message:      st.message(),
		Offset:       f.at,
	}
}

// maxQuoted bounds how much of a value an error message repeats.
const maxQuoted = 64

// message says what the failed rule wanted and what the value was.
func (st *validator) message() string {
	f := st.fail
	switch f.rule {
	case RuleType:
		k := jsonvalue.KindOf(st.b[f.at])
		if f.node.typ == TypeInteger && k == jsonvalue.KindNumber {
			return "want integer, got " + st.excerpt(f.at)
		}
		return "want " + f.node.typ.String() + ", got " + k.String()
	case RuleConst:
		return "want " + excerpt(f.node.cnst.v) + ", got " + st.excerpt(f.at)
	case RuleEnum:
		var b strings.Builder
		b.WriteString("want one of ")
		for i, s := range f.node.enum {
			if i == 10 {
				b.WriteString(", ... (" + strconv.Itoa(len(f.node.enum)) + " values)")
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(excerpt(s.v))
		}
		return b.String() + "; got " + st.excerpt(f.at)
	case RuleRequired:
		return "missing required property " + quote(f.name)
	case RuleAdditionalProperties:
		return "property " + quote(f.name) + " is not allowed (additionalProperties is false)"
	case RuleOneOf:
		if f.matched != nil {
			return "matches oneOf branches " + strconv.Itoa(f.matched[0]) + " and " + strconv.Itoa(f.matched[1]) + ", want exactly one"
		}
		return "matches none of the " + strconv.Itoa(len(f.node.oneOf)) + " oneOf branches"
	}
	if f.at >= len(st.b) {
		if len(st.b) == 0 {
			return "empty value, want canonical JSON (see jsonvalue.Materialize)"
		}
		return "value ends early at offset " + strconv.Itoa(f.at) + ", want canonical JSON (see jsonvalue.Materialize)"
	}
	return "not canonical JSON at offset " + strconv.Itoa(f.at) + " (see jsonvalue.Materialize)"
}

// excerpt returns the value at b[i] for a message, shortened when long.
func (st *validator) excerpt(i int) string {
	end := canon.Skip(st.b, i)
	if end < 0 {
		end = len(st.b)
	}
	return excerpt(st.b[i:end])
}

func excerpt(v []byte) string {
	if len(v) <= maxQuoted {
		return string(v)
	}
	cut := maxQuoted
	for cut > 0 && v[cut]&0xC0 == 0x80 {
		cut-- // do not split a UTF-8 sequence
	}
	return string(v[:cut]) + "..."
}
