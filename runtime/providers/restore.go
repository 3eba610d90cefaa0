package providers

import (
	"errors"
	"slices"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// RestoreOptional undoes the [OptionalAsNull] emulation on the arguments of
// one call: it materializes args (jsonvalue.Materialize, whose errors it
// returns) and drops every object member whose value is null where params,
// the tool's own parameter schema (runtime.ToolSchema.Parameters), declares
// the property optional and rejects null. The result is canonical JSON for
// runtime.ExecutionInput.Arguments.
//
// Everything else is kept as it is, so arguments that are already valid
// against params come back unchanged, and arguments that are invalid for
// another reason stay invalid and fail validation as they would have. Below
// a oneOf it follows the one branch whose type the value has, and leaves
// the value alone when no branch, or more than one, has it; OptionalAsNull
// refuses to emulate optional properties there.
func RestoreOptional(params *schemasubset.Node, args []byte) (jsonvalue.Value, error) {
	if params == nil {
		return nil, errors.New("providers: RestoreOptional: the parameter schema is nil")
	}
	v, err := jsonvalue.Materialize(args)
	if err != nil {
		return nil, err
	}
	r := jsonvalue.NewReader(v)
	out := restore(make([]byte, 0, len(v)), params, r)
	if err := r.Done(); err != nil {
		return nil, err // unreachable for a materialized value
	}
	return out, nil
}

// restore appends the value at r to dst with the emulated nulls that n
// allows dropped.
func restore(dst []byte, n *schemasubset.Node, r *jsonvalue.Reader) []byte {
	k := r.Peek()
	if branches := n.OneOf(); len(branches) > 0 {
		var pick *schemasubset.Node
		for _, b := range branches {
			if kindsOf(b)&kindOf(k) != 0 {
				if pick != nil {
					return append(dst, r.ReadValue()...)
				}
				pick = b
			}
		}
		if pick == nil || kindsOf(n)&kindOf(k) == 0 {
			return append(dst, r.ReadValue()...)
		}
		return restore(dst, pick, r)
	}
	switch {
	case k == jsonvalue.KindObject && n.Type() == schemasubset.TypeObject:
		required, _ := n.Required()
		r.BeginObject()
		dst = append(dst, '{')
		first := true
		for {
			name, ok := r.NextName()
			if !ok {
				break
			}
			key := jsonvalue.Unescape(name)
			p := n.Property(key)
			if p != nil && r.Peek() == jsonvalue.KindNull && !slices.Contains(required, key) && !acceptsNull(p) {
				r.ReadValue()
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, '"')
			dst = append(dst, name...)
			dst = append(dst, '"', ':')
			if p != nil {
				dst = restore(dst, p, r)
			} else {
				dst = append(dst, r.ReadValue()...)
			}
		}
		return append(dst, '}')
	case k == jsonvalue.KindArray && n.Type() == schemasubset.TypeArray && n.Items() != nil:
		items := n.Items()
		r.BeginArray()
		dst = append(dst, '[')
		for i := 0; r.NextElement(); i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = restore(dst, items, r)
		}
		return append(dst, ']')
	}
	return append(dst, r.ReadValue()...)
}
