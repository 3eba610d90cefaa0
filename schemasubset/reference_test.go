package schemasubset_test

import (
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/internal/conformance"
	"github.com/toolgen-go/toolgen/jsonvalue"
	ss "github.com/toolgen-go/toolgen/schemasubset"
)

// This file holds a deliberately simple reference validator: it decodes the
// value into a tree first, compares numbers with math/big, and walks the
// schema through Node's accessors only. The fast validator must agree with
// it on every verdict, rule and instance path.

type member struct {
	name  string
	value any
}

// object keeps member order; numbers are *big.Rat; the rest is nil, bool,
// string and []any.
type object []member

// tooBig marks a number whose exponent math/big should not expand.
type tooBig struct{}

func decodeTree(r *jsonvalue.Reader) any {
	switch r.Peek() {
	case jsonvalue.KindObject:
		r.BeginObject()
		o := object{}
		for {
			name, ok := r.NextName()
			if !ok {
				return o
			}
			o = append(o, member{jsonvalue.Unescape(name), decodeTree(r)})
		}
	case jsonvalue.KindArray:
		r.BeginArray()
		a := []any{}
		for r.NextElement() {
			a = append(a, decodeTree(r))
		}
		return a
	case jsonvalue.KindString:
		return r.ReadString()
	case jsonvalue.KindNumber:
		text := string(r.ReadNumber())
		if i := strings.IndexAny(text, "eE"); i >= 0 {
			if e, err := strconv.Atoi(text[i+1:]); err != nil || e > 2000 || e < -2000 {
				return tooBig{}
			}
		}
		x, _ := new(big.Rat).SetString(text)
		return x
	case jsonvalue.KindTrue, jsonvalue.KindFalse:
		return r.ReadBool()
	default:
		r.ReadNull()
		return nil
	}
}

func tree(v jsonvalue.Value) any { return decodeTree(jsonvalue.NewReader(v)) }

func hasTooBig(x any) bool {
	switch x := x.(type) {
	case tooBig:
		return true
	case object:
		for _, m := range x {
			if hasTooBig(m.value) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasTooBig(e) {
				return true
			}
		}
	}
	return false
}

func kindName(x any) string {
	switch x.(type) {
	case object:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case *big.Rat:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

func fits(x any, t ss.Type) bool {
	switch t {
	case ss.TypeAny:
		return true
	case ss.TypeInteger:
		r, ok := x.(*big.Rat)
		return ok && r.IsInt()
	}
	return kindName(x) == t.String()
}

func same(x, y any) bool {
	switch x := x.(type) {
	case *big.Rat:
		y, ok := y.(*big.Rat)
		return ok && x.Cmp(y) == 0
	case string, bool, nil:
		return x == y
	}
	return false
}

type refError struct {
	rule ss.Rule
	path string
}

func reference(n *ss.Node, x any, path string) *refError {
	if !fits(x, n.Type()) {
		return &refError{ss.RuleType, path}
	}
	if c, ok := n.Const(); ok && !same(x, tree(c)) {
		return &refError{ss.RuleConst, path}
	}
	if values := n.Enum(); values != nil {
		found := false
		for _, v := range values {
			found = found || same(x, tree(v))
		}
		if !found {
			return &refError{ss.RuleEnum, path}
		}
	}
	if branches := n.OneOf(); branches != nil {
		matched := 0
		for _, b := range branches {
			if reference(b, x, path) == nil {
				matched++
			}
		}
		if matched != 1 {
			return &refError{ss.RuleOneOf, path}
		}
	}
	switch x := x.(type) {
	case object:
		if n.Type() != ss.TypeObject {
			return nil
		}
		allowed, present := n.AdditionalProperties()
		closed := present && !allowed
		seen := map[string]bool{}
		for _, m := range x {
			seen[m.name] = true
			child := path + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(m.name)
			if p := n.Property(m.name); p != nil {
				if err := reference(p, m.value, child); err != nil {
					return err
				}
			} else if closed {
				return &refError{ss.RuleAdditionalProperties, child}
			}
		}
		required, _ := n.Required()
		for _, name := range required {
			if !seen[name] {
				return &refError{ss.RuleRequired, path}
			}
		}
	case []any:
		if items := n.Items(); items != nil {
			for i, e := range x {
				if err := reference(items, e, path+"/"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkAgainstReference compares Validate with the reference on one pair.
func checkAgainstReference(t *testing.T, n *ss.Node, v jsonvalue.Value) {
	x := tree(v)
	if hasTooBig(x) {
		return
	}
	want := reference(n, x, "")
	err := ss.Validate(n, v)
	if want == nil {
		require.NoError(t, err, "schema %s\nvalue %s", n, v)
		return
	}
	var ve *ss.ValidationError
	require.ErrorAs(t, err, &ve, "schema %s\nvalue %s\nwant %v at %q", n, v, want.rule, want.path)
	require.Equal(t, want.rule, ve.Rule, "schema %s\nvalue %s\n%v", n, v, err)
	require.Equal(t, want.path, ve.InstancePath, "schema %s\nvalue %s\n%v", n, v, err)

	// The reported offset is where the offending value starts.
	require.Less(t, ve.Offset, len(v))
}

func TestReferenceAgreesOnConformanceData(t *testing.T) {
	dir := conformance.Dir(t)
	extra, err := conformance.LoadExtra(dir)
	require.NoError(t, err)
	pairs := 0
	for _, g := range extra {
		n, err := ss.Parse(g.Schema)
		if err != nil {
			continue
		}
		for _, tc := range g.Tests {
			checkAgainstReference(t, n, mustValue(t, string(tc.Data)))
			pairs++
		}
	}
	checkAgainstReference(t, editSchema, mustValue(t, `{"path":"/x","edits":[{"old_text":"a","new_text":"b","x":1}],"mode":"q"}`))
	require.Positive(t, pairs)
}

// FuzzValidate checks Validate against the reference validator on any pair
// of schema and value, that it never panics on raw unmaterialized bytes, and
// that it agrees with itself on a re-materialized value.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"integer","enum":[1,2.0]},"b":{"oneOf":[{"type":"string"},{"type":"null"}]}},"required":["a"],"additionalProperties":false}`),
		[]byte(`{"a":2,"b":null,"c":1}`))
	f.Add([]byte(`{"type":"array","items":{"oneOf":[{"type":"number"},{"type":"integer"}]}}`), []byte(`[1.5,2,"x"]`))
	schemas, data := conformance.Samples()
	for i, s := range schemas {
		if i < len(data) {
			f.Add(s, data[i])
		}
	}
	f.Fuzz(func(t *testing.T, schema, value []byte) {
		n, err := ss.Parse(schema)
		if err != nil {
			return
		}
		_ = ss.Validate(n, value)
		v, err := jsonvalue.Materialize(value)
		if err != nil {
			return
		}
		checkAgainstReference(t, n, v)
		again, err := jsonvalue.Materialize(v)
		require.NoError(t, err)
		e1, e2 := ss.Validate(n, v), ss.Validate(n, again)
		require.Equal(t, e1 == nil, e2 == nil)
		if e1 != nil {
			require.Equal(t, e1.Error(), e2.Error())
		}
	})
}

// gen builds random schemas and values that mostly follow them, so that the
// randomized comparison reaches deep into both.
type gen struct{ r *rand.Rand }

var sampleNumbers = []string{"0", "-0", "1", "1.0", "2.5", "-3", "1e2", "10e-1", "12345678901234567890", "0.1", "1e-1", "7"}
var sampleStrings = []string{"", "a", "b", "é", "a\"b", "\n", "a/b", "~"}

func (g gen) scalar(t ss.Type) jsonvalue.Value {
	switch t {
	case ss.TypeString:
		return jsonvalue.String(sampleStrings[g.r.IntN(len(sampleStrings))])
	case ss.TypeNumber, ss.TypeInteger:
		for {
			v, _ := jsonvalue.Number(sampleNumbers[g.r.IntN(len(sampleNumbers))])
			if t == ss.TypeNumber || ss.Validate(ss.Integer(), v) == nil {
				return v
			}
		}
	case ss.TypeBoolean:
		return jsonvalue.Bool(g.r.IntN(2) == 0)
	}
	return jsonvalue.Null()
}

func (g gen) schema(depth int) *ss.Node {
	scalars := []ss.Type{ss.TypeString, ss.TypeNumber, ss.TypeInteger, ss.TypeBoolean, ss.TypeNull}
	switch k := g.r.IntN(10); {
	case depth == 0 || k < 4:
		if g.r.IntN(6) == 0 {
			return ss.Any()
		}
		t := scalars[g.r.IntN(len(scalars))]
		n := ss.Any().WithType(t)
		switch g.r.IntN(4) {
		case 0:
			n = n.WithEnum(g.scalar(t), g.scalar(t))
		case 1:
			n = n.WithConst(g.scalar(t))
		}
		return n
	case k < 7:
		var props []ss.Property
		var required []string
		for i := range g.r.IntN(4) {
			name := string(rune('a' + i))
			props = append(props, ss.Prop(name, g.schema(depth-1)))
			if g.r.IntN(2) == 0 {
				required = append(required, name)
			}
		}
		n := ss.Object(props...)
		if len(required) > 0 {
			n = n.WithRequired(required...)
		}
		if g.r.IntN(2) == 0 {
			n = n.Closed()
		}
		return n
	case k < 9:
		return ss.Array(g.schema(depth - 1))
	}
	return ss.OneOf(g.schema(depth-1), g.schema(depth-1))
}

// value returns JSON text that mostly satisfies n, sometimes not.
func (g gen) value(n *ss.Node, depth int) string {
	if g.r.IntN(12) == 0 || depth > 6 {
		return g.anyValue()
	}
	if b := n.OneOf(); b != nil {
		return g.value(b[g.r.IntN(len(b))], depth+1)
	}
	if e := n.Enum(); e != nil && g.r.IntN(5) > 0 {
		return e[g.r.IntN(len(e))].String()
	}
	if c, ok := n.Const(); ok && g.r.IntN(5) > 0 {
		return c.String()
	}
	switch n.Type() {
	case ss.TypeObject:
		props, _ := n.Properties()
		var parts []string
		for _, p := range props {
			if g.r.IntN(4) > 0 {
				parts = append(parts, jsonvalue.String(p.Name).String()+":"+g.value(p.Schema, depth+1))
			}
		}
		if g.r.IntN(5) == 0 {
			parts = append(parts, `"zz":1`)
		}
		g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		return "{" + strings.Join(parts, ",") + "}"
	case ss.TypeArray:
		var parts []string
		for range g.r.IntN(4) {
			parts = append(parts, g.value(n.Items(), depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case ss.TypeAny:
		return g.anyValue()
	}
	return g.scalar(n.Type()).String()
}

func (g gen) anyValue() string {
	all := []ss.Type{ss.TypeString, ss.TypeNumber, ss.TypeInteger, ss.TypeBoolean, ss.TypeNull}
	switch g.r.IntN(7) {
	case 0:
		return `{"a":1,"b":[true]}`
	case 1:
		return `[1,"x"]`
	}
	return g.scalar(all[g.r.IntN(len(all))]).String()
}

// TestReferenceRandomized compares Validate with the reference on
// thousands of generated schema and value pairs.
func TestReferenceRandomized(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(1, 2))}
	valid := 0
	const rounds = 4000
	for range rounds {
		n := g.schema(4)
		require.NoError(t, ss.AssertSupported(n), "%s", n)
		for range 3 {
			v := mustValue(t, g.value(n, 0))
			checkAgainstReference(t, n, v)
			if ss.Validate(n, v) == nil {
				valid++
			}
		}
	}
	t.Logf("%d pairs, %d valid", rounds*3, valid)
	require.Greater(t, valid, rounds/4, "the generator reaches valid values")
	require.Less(t, valid, rounds*3*3/4, "and invalid ones")
}
