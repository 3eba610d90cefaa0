package schemasubset

import (
	"errors"
	"strconv"
	"strings"

	"github.com/toolgen-go/toolgen/internal/canon"
	"github.com/toolgen-go/toolgen/jsonvalue"
)

// This file is for generated code. A generated decoder reads a value with a
// [jsonvalue.Reader] and records the first violation it meets by its byte
// offset alone (the constructors below, or the reader's own kind, integer
// and Go-type errors); [Locate] then turns that into the
// [*ValidationError] Validate reports for the same bytes: instance path,
// schema path, rule and message. Paths are worked out once, on the error
// path, so the straight-line decoding code never builds them.

// Violation records that the value at offset breaks rule (type, const or
// enum) on the node the decoder is reading.
func Violation(rule Rule, offset int) error {
	return &ValidationError{Rule: rule, Offset: offset}
}

// Missing records that the object at offset closed without the required
// property name (the first missing one in required order).
func Missing(offset int, name string) error {
	return &ValidationError{Rule: RuleRequired, Offset: offset, name: name}
}

// Extra records that the member name, whose value is at offset, is not
// allowed by an object with additionalProperties false.
func Extra(offset int, name string) error {
	return &ValidationError{Rule: RuleAdditionalProperties, Offset: offset, name: name}
}

// OneOfFailure records that the value at offset matched no oneOf branch
// (first < 0), or both branches first and second.
func OneOfFailure(offset, first, second int) error {
	e := &ValidationError{Rule: RuleOneOf, Offset: offset}
	if first >= 0 {
		e.matched = []int{first, second}
	}
	return e
}

// BranchFailure turns err, a failure inside the value at offset while it
// was read as the only oneOf branch that could take it (the non-null branch
// of a nullable field), into the oneOf's own failure, as Validate reports
// it. Go-type rejections and malformed bytes are kept.
func BranchFailure(err error, offset int) error {
	var gt *jsonvalue.GoTypeError
	var se *jsonvalue.SyntaxError
	if err == nil || errors.As(err, &gt) || errors.As(err, &se) {
		return err
	}
	return OneOfFailure(offset, -1, -1)
}

// Locate returns the [*ValidationError] for err, the first problem a
// generated decoder met reading v against the schema n: the same instance
// path, schema path, rule and message Validate reports on the same bytes,
// or [RuleGoRange] for a Go-type rejection of a schema-valid value. err is
// returned unchanged when it is not a decoder's error.
func Locate(err error, n *Node, v jsonvalue.Value) error {
	f, goErr, ok := decoderFailure(err)
	if !ok {
		return err
	}
	st := validator{b: v, fail: f}
	if f.rule == RuleInvalidValue {
		return &ValidationError{Rule: f.rule, Message: st.message(), Offset: f.at}
	}
	node, inst, schema := walk(n, v, f)
	st.fail.node = node
	e := &ValidationError{
		InstancePath: inst,
		SchemaPath:   schema,
		Rule:         f.rule,
		Offset:       f.at,
		name:         f.name,
		matched:      f.matched,
	}
	if f.rule == RuleGoRange {
		e.Message = "the value " + st.excerpt(f.at) + " does not fit the Go type " + goErr.Type
		if goErr.Err != nil {
			e.Message = "not a valid " + goErr.Type + ": " + goErr.Err.Error()
		}
		e.err = goErr.Err
		return e
	}
	e.SchemaPath += "/" + string(f.rule)
	e.Message = st.message()
	return e
}

// decoderFailure reads the rule, offset and details of a decoder's error.
func decoderFailure(err error) (f failure, goErr *jsonvalue.GoTypeError, ok bool) {
	var ve *ValidationError
	var ke *jsonvalue.KindError
	var ie *jsonvalue.IntegerError
	var se *jsonvalue.SyntaxError
	switch {
	case errors.As(err, &ve):
		if ve.InstancePath != "" || ve.SchemaPath != "" || ve.Message != "" {
			return f, nil, false // already located
		}
		return failure{rule: ve.Rule, at: ve.Offset, name: ve.name, matched: ve.matched}, nil, true
	case errors.As(err, &ke):
		return failure{rule: RuleType, at: ke.Offset}, nil, true
	case errors.As(err, &ie):
		return failure{rule: RuleType, at: ie.Offset}, nil, true
	case errors.As(err, &goErr):
		return failure{rule: RuleGoRange, at: goErr.Offset}, goErr, true
	case errors.As(err, &se):
		return failure{rule: RuleInvalidValue, at: int(se.Offset)}, nil, true
	}
	return f, nil, false
}

// walk descends from the root of v to the value at f.at, following the
// schema alongside, and returns the node that value was read against with
// the instance and schema paths to it. A member that additionalProperties
// forbids ends the walk at its object, as Validate reports it.
func walk(n *Node, v jsonvalue.Value, f failure) (*Node, string, string) {
	var inst, schema strings.Builder
	i := 0
	for i != f.at && i < len(v) {
		if len(n.oneOf) > 0 {
			// Only a Go-type rejection lies inside a oneOf branch: the value
			// is schema-valid there, so follow the branch that takes it.
			k := chooseBranch(n, v[i:max(canon.Skip(v, i), i)])
			schema.WriteString("/oneOf/" + strconv.Itoa(k))
			n = n.oneOf[k]
			continue
		}
		next, ok := -1, false
		switch v[i] {
		case '{':
			next, ok = memberAt(n, v, i, f, &inst, &schema, &n)
		case '[':
			next, ok = elementAt(n, v, i, f.at, &inst, &schema, &n)
		}
		if !ok {
			break
		}
		if next < 0 {
			return n, inst.String(), schema.String()
		}
		i = next
	}
	return n, inst.String(), schema.String()
}

// chooseBranch returns the first branch of n that accepts sub, or the first
// branch whose type fits its kind.
func chooseBranch(n *Node, sub []byte) int {
	for k, br := range n.oneOf {
		if Validate(br, sub) == nil {
			return k
		}
	}
	for k, br := range n.oneOf {
		if len(sub) > 0 && (br.typ == TypeAny || kindFits(jsonvalue.KindOf(sub[0]), br.typ)) {
			return k
		}
	}
	return 0
}

// memberAt finds the member of the object at v[i] whose value holds at and
// moves *node into it. It returns the member value's offset, -1 when the
// walk ends at this object (a forbidden member), and false when at is in
// no member.
func memberAt(n *Node, v jsonvalue.Value, i int, f failure, inst, schema *strings.Builder, node **Node) (int, bool) {
	j := i + 1
	for j < len(v) && v[j] == '"' {
		keyEnd := canon.String(v, j)
		if keyEnd < 0 || keyEnd >= len(v) {
			return 0, false
		}
		start := keyEnd + 1
		end := canon.Skip(v, start)
		if end < 0 {
			return 0, false
		}
		if start <= f.at && f.at < end {
			name := jsonvalue.Unescape(v[j+1 : keyEnd-1])
			inst.WriteString("/" + escapePointer(name))
			p := n.propIndex(name)
			switch {
			case p >= 0:
				schema.WriteString("/properties/" + escapePointer(name))
				*node = n.props[p].node
			case f.rule == RuleAdditionalProperties && f.at == start:
				return -1, true
			default:
				*node = anyNode
			}
			return start, true
		}
		if end >= len(v) || v[end] != ',' {
			return 0, false
		}
		j = end + 1
	}
	return 0, false
}

// elementAt finds the element of the array at v[i] that holds at and moves
// *node to the items schema.
func elementAt(n *Node, v jsonvalue.Value, i, at int, inst, schema *strings.Builder, node **Node) (int, bool) {
	j := i + 1
	for idx := 0; j < len(v) && v[j] != ']'; idx++ {
		end := canon.Skip(v, j)
		if end < 0 {
			return 0, false
		}
		if j <= at && at < end {
			inst.WriteString("/" + strconv.Itoa(idx))
			schema.WriteString("/items")
			*node = anyNode
			if n.items != nil {
				*node = n.items
			}
			return j, true
		}
		if end >= len(v) || v[end] != ',' {
			return 0, false
		}
		j = end + 1
	}
	return 0, false
}

// anyNode stands for the schema of a value no keyword constrains.
var anyNode = Any()
