package rules

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/internal/argsgen"
	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// decoders lists every generated argument decoder of the package with its
// parameter schema.
var decoders = []struct {
	name   string
	schema *schemasubset.Node
	decode func(jsonvalue.Value) error
}{
	{"lookup", _toolgen_Lookup_schema.Parameters, func(v jsonvalue.Value) error { _, err := _toolgen_Lookup_decodeArgs(v); return err }},
	{"draw", _toolgen_Draw_schema.Parameters, func(v jsonvalue.Value) error { _, err := _toolgen_Draw_decodeArgs(v); return err }},
	{"anything", _toolgen_Anything_schema.Parameters, func(v jsonvalue.Value) error { _, err := _toolgen_Anything_decodeArgs(v); return err }},
	{"classify", _toolgen_Classify_schema.Parameters, func(v jsonvalue.Value) error { _, err := _toolgen_Classify_decodeArgs(v); return err }},
	{"deep", _toolgen_Deep_schema.Parameters, func(v jsonvalue.Value) error { _, err := _toolgen_Deep_decodeArgs(v); return err }},
}

// agree reports how the generated decoder's verdict on v compares with
// schemasubset.Validate's: the same verdict with the same instance path,
// schema path, rule and message, or a go-range rejection of a value the
// schema accepts (the one allowed difference).
func agree(t *testing.T, what string, schema *schemasubset.Node, decode func(jsonvalue.Value) error, v jsonvalue.Value) (goRange bool) {
	t.Helper()
	got, want := decode(v), schemasubset.Validate(schema, v)
	var g, w *schemasubset.ValidationError
	switch {
	case want == nil && got == nil:
		return false
	case want == nil:
		require.ErrorAs(t, got, &g, "%s: %s", what, v)
		require.Equal(t, schemasubset.RuleGoRange, g.Rule, "%s: the decoder rejects %s, which the schema accepts: %v", what, v, got)
		return true
	case got == nil:
		t.Fatalf("%s: the decoder accepts %s; Validate: %v", what, v, want)
	}
	require.True(t, errors.As(got, &g), "%s: %T %v", what, got, got)
	require.True(t, errors.As(want, &w))
	assert.Equal(t, w.Rule, g.Rule, "%s: %s", what, v)
	assert.Equal(t, w.InstancePath, g.InstancePath, "%s: %s", what, v)
	assert.Equal(t, w.SchemaPath, g.SchemaPath, "%s: %s", what, v)
	assert.Equal(t, w.Message, g.Message, "%s: %s", what, v)
	assert.Equal(t, w.Offset, g.Offset, "%s: %s", what, v)
	return false
}

// TestDifferential runs thousands of schema-generated, schema-mutated and
// byte-mutated argument documents through every generated decoder and
// schemasubset.Validate.
func TestDifferential(t *testing.T) {
	const perKind = 700
	for _, d := range decoders {
		t.Run(d.name, func(t *testing.T) {
			g := argsgen.New(d.schema, 1)
			rejected, goRange := 0, 0
			for range perKind {
				valid := g.Valid()
				if agree(t, "valid", d.schema, d.decode, valid) {
					goRange++
				}
				inv, kind := g.Invalid()
				if agree(t, "invalid/"+kind, d.schema, d.decode, inv) {
					goRange++
				}
				if schemasubset.Validate(d.schema, inv) != nil {
					rejected++
				}
				if m, ok := g.Mutate(valid); ok {
					if agree(t, "mutated", d.schema, d.decode, m) {
						goRange++
					}
				}
			}
			t.Logf("%d documents of each kind; %d invalid ones rejected; %d go-range rejections", perKind, rejected, goRange)
		})
	}
}

// FuzzDecodeArgs feeds arbitrary JSON to every generated decoder: no panic,
// and Validate's verdict, path and rule, or a go-range rejection.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{`{}`, `{"id":1}`, `{"shape":{"kind":"circle","radius":1}}`, `{"a":[1,2,{"b":null}]}`, `[]`, `null`, `{"id":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonvalue.Materialize(raw)
		if err != nil {
			return
		}
		for _, d := range decoders {
			agree(t, d.name, d.schema, d.decode, v)
		}
	})
}
