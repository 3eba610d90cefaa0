package argsgen_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolgen-go/toolgen/internal/argsgen"
	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// schemas are the test schemas, by name. "any" accepts every value, so it
// has no invalid documents.
var schemas = []struct {
	name   string
	schema string
}{
	{"nested", `{"type":"object","properties":{
		"name":{"type":"string"},
		"count":{"type":"integer"},
		"meta":{"type":"object","properties":{
			"tags":{"type":"array","items":{"type":"string"}},
			"ratio":{"type":"number"},
			"flag":{"type":"boolean"},
			"inner":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false}
		},"required":["tags"],"additionalProperties":false}
	},"required":["name","meta"]}`},
	{"array-of-objects", `{"type":"array","items":{"type":"object","properties":{
		"id":{"type":"integer"},"label":{"type":"string"}},"required":["id"],"additionalProperties":false}}`},
	{"enums", `{"type":"object","properties":{
		"mode":{"type":"string","enum":["text","base64"]},
		"level":{"type":"integer","enum":[1,2,3]},
		"scale":{"type":"number","enum":[0.5,1.5]}
	},"required":["mode","level"]}`},
	{"const", `{"type":"object","properties":{
		"kind":{"type":"string","const":"circle"},
		"version":{"type":"integer","const":2},
		"on":{"type":"boolean","const":true}
	},"required":["kind"],"additionalProperties":false}`},
	{"oneof-closed", `{"oneOf":[
		{"type":"object","properties":{"kind":{"type":"string","const":"a"},"x":{"type":"integer"}},"required":["kind"],"additionalProperties":false},
		{"type":"object","properties":{"kind":{"type":"string","const":"b"},"y":{"type":"string"}},"required":["kind","y"],"additionalProperties":false}
	]}`},
	{"oneof-overlapping", `{"type":"object","properties":{
		"shape":{"oneOf":[
			{"type":"object","properties":{"a":{"type":"integer"}}},
			{"type":"object","properties":{"b":{"type":"string"}}}
		]},
		"amount":{"oneOf":[{"type":"integer"},{"type":"number"}]}
	},"required":["shape","amount"],"additionalProperties":false}`},
	{"nullable", `{"oneOf":[{"type":"string"},{"type":"null"}]}`},
	{"integer", `{"type":"integer"}`},
	{"number", `{"type":"number"}`},
	{"any", `{}`},
	{"raw-field", `{"type":"object","properties":{"raw":{},"n":{"type":"integer"}},"required":["raw"]}`},
}

const docs = 500

func TestValidConforms(t *testing.T) {
	for _, s := range schemas {
		t.Run(s.name, func(t *testing.T) {
			n := schemasubset.MustParse(s.schema)
			g := argsgen.New(n, 1)
			for range docs {
				doc := g.Valid()
				require.True(t, doc.Valid(), "not canonical: %s", doc)
				require.NoError(t, schemasubset.Validate(n, doc), "%s", doc)
			}
		})
	}
}

func TestInvalidMostlyRejected(t *testing.T) {
	for _, s := range schemas {
		t.Run(s.name, func(t *testing.T) {
			n := schemasubset.MustParse(s.schema)
			g := argsgen.New(n, 2)
			rejected := 0
			seen := map[string]int{}
			for range docs {
				doc, mutation := g.Invalid()
				require.True(t, doc.Valid(), "not canonical: %s", doc)
				require.Contains(t, argsgen.Mutations, mutation)
				seen[mutation]++
				if schemasubset.Validate(n, doc) != nil {
					rejected++
				}
			}
			t.Logf("rejected %d/%d, mutations %v", rejected, docs, seen)
			if s.name == "any" {
				assert.Equal(t, map[string]int{argsgen.MutationNone: docs}, seen)
				return
			}
			assert.GreaterOrEqual(t, rejected, docs*8/10)
		})
	}
}

// TestInvalidCoversMutations checks that every mutation happens for some
// test schema, and that Validate rejects each of them at least sometimes.
func TestInvalidCoversMutations(t *testing.T) {
	seen, rejected := map[string]int{}, map[string]int{}
	for _, s := range schemas {
		n := schemasubset.MustParse(s.schema)
		g := argsgen.New(n, 3)
		for range 200 {
			doc, mutation := g.Invalid()
			seen[mutation]++
			if schemasubset.Validate(n, doc) != nil {
				rejected[mutation]++
			}
		}
	}
	for _, m := range argsgen.Mutations {
		assert.Positive(t, seen[m], "mutation %s never happened", m)
		if m != argsgen.MutationNone {
			assert.Positive(t, rejected[m], "mutation %s never rejected", m)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, s := range schemas {
		n := schemasubset.MustParse(s.schema)
		a, b, c := argsgen.New(n, 42), argsgen.New(n, 42), argsgen.New(n, 43)
		differs := false
		for range 50 {
			va, vb, vc := a.Valid(), b.Valid(), c.Valid()
			require.Equal(t, va, vb, s.name)
			differs = differs || !va.Equal(vc)
			ia, ma := a.Invalid()
			ib, mb := b.Invalid()
			require.Equal(t, ia, ib, s.name)
			require.Equal(t, ma, mb, s.name)
			xa, oka := a.Mutate(va)
			xb, okb := b.Mutate(vb)
			require.Equal(t, oka, okb, s.name)
			require.Equal(t, xa, xb, s.name)
		}
		assert.True(t, differs, "%s: seeds 42 and 43 gave the same documents", s.name)
	}
}

func TestMutateCanonical(t *testing.T) {
	n := schemasubset.MustParse(schemas[0].schema)
	g := argsgen.New(n, 4)
	ok, notOK, changed := 0, 0, 0
	for range 2000 {
		doc := g.Valid()
		m, valid := g.Mutate(doc)
		if !valid {
			assert.Nil(t, m)
			notOK++
			continue
		}
		ok++
		require.True(t, m.Valid(), "not canonical: %s", m)
		remat, err := jsonvalue.Materialize(m)
		require.NoError(t, err)
		require.Equal(t, m, remat)
		if !m.Equal(doc) {
			changed++
		}
	}
	t.Logf("ok %d, not JSON %d, changed %d", ok, notOK, changed)
	assert.Positive(t, ok)
	assert.Positive(t, notOK)
	assert.Positive(t, changed)
}

// TestValidVariety checks that documents exercise what the package
// promises: boundary integers and their spellings, strings with escapes and
// astral runes, optional properties both ways, members out of order and
// unknown members.
func TestValidVariety(t *testing.T) {
	collect := func(schema string, seed uint64) []string {
		g := argsgen.New(schemasubset.MustParse(schema), seed)
		out := make([]string, 4*docs)
		for i := range out {
			out[i] = g.Valid().String()
		}
		return out
	}
	ints := collect(`{"type":"integer"}`, 5)
	for _, want := range []string{"128", "-129", "32768", "2147483648", "9223372036854775807", "9223372036854775808", "18446744073709551616", "-0"} {
		assert.Contains(t, ints, want)
	}
	assert.True(t, anyOf(ints, func(s string) bool { return strings.ContainsAny(s, ".eE") }), "no respelled integers")

	nums := collect(`{"type":"number"}`, 6)
	assert.True(t, anyOf(nums, func(s string) bool { return strings.Contains(s, ".") && !strings.ContainsAny(s, "eE") }))
	assert.True(t, anyOf(nums, func(s string) bool { return s == "1e309" || s == "3.4e39" }))

	strs := collect(`{"type":"string"}`, 7)
	for _, want := range []string{`\n`, `\"`, `\\`, `\u00`} {
		assert.True(t, anyOf(strs, func(s string) bool { return strings.Contains(s, want) }), "no string with %s", want)
	}
	assert.True(t, anyOf(strs, func(s string) bool { return strings.ContainsRune(s, 0x1f600) || strings.ContainsRune(s, 0x10ffff) }))
	assert.True(t, anyOf(strs, func(s string) bool { return strings.ContainsRune(s, 'é') || strings.ContainsRune(s, '中') }))

	objs := collect(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["b"]}`, 8)
	assert.True(t, anyOf(objs, func(s string) bool { return strings.Contains(s, `"a":`) }))
	assert.True(t, anyOf(objs, func(s string) bool { return !strings.Contains(s, `"a":`) }))
	assert.True(t, anyOf(objs, func(s string) bool { return strings.HasPrefix(s, `{"b":`) && strings.Contains(s, `"a":`) }), "never out of order")
	assert.True(t, anyOf(objs, func(s string) bool { return strings.Count(s, `":`) > strings.Count(s, `"a":`)+1 }), "no unknown members")

	anys := collect(`{}`, 9)
	for _, prefix := range []string{"{", "[", `"`, "n", "t", "f", "-"} {
		assert.True(t, anyOf(anys, func(s string) bool { return strings.HasPrefix(s, prefix) }), "no value starting %s", prefix)
	}
	assert.True(t, anyOf(anys, func(s string) bool {
		return strings.Contains(s, "[[") || strings.Contains(s, "{\"") && strings.Contains(s, ":[")
	}), "no nesting")
}

func anyOf(docs []string, f func(string) bool) bool {
	for _, d := range docs {
		if f(d) {
			return true
		}
	}
	return false
}

// complexSchema mixes every keyword for FuzzValid.
var complexSchema = schemasubset.MustParse(`{"type":"object","properties":{
	"path":{"type":"string","description":"where"},
	"offset":{"type":"integer"},
	"mode":{"type":"string","enum":["text","base64"]},
	"version":{"type":"integer","const":3},
	"items":{"type":"array","items":{"type":"object","properties":{
		"id":{"type":"integer"},"weight":{"type":"number"},"note":{"oneOf":[{"type":"string"},{"type":"null"}]}
	},"required":["id"],"additionalProperties":false}},
	"shape":{"oneOf":[
		{"type":"object","properties":{"kind":{"type":"string","const":"circle"},"r":{"type":"number"}},"required":["kind","r"],"additionalProperties":false},
		{"type":"object","properties":{"kind":{"type":"string","const":"square"},"side":{"type":"integer"}},"required":["kind"],"additionalProperties":false}
	]},
	"raw":{},
	"flags":{"type":"array"},
	"open":{"type":"object","properties":{"x":{"type":"boolean"}}}
},"required":["path","items","shape"]}`)

func FuzzValid(f *testing.F) {
	for _, seed := range []uint64{0, 1, 2, 1 << 63, 0xdeadbeef} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		g := argsgen.New(complexSchema, seed)
		for range 20 {
			doc := g.Valid()
			if err := schemasubset.Validate(complexSchema, doc); err != nil {
				t.Fatalf("seed %d: %s: %v", seed, doc, err)
			}
		}
	})
}
