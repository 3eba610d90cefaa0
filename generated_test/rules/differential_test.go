package rules

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/generated_test/difftest"
	"github.com/toolgen-go/toolgen/jsonvalue"
)

// TestDifferential runs thousands of schema-generated, schema-mutated and
// byte-mutated argument documents through every generated tool's Execute
// and schemasubset.Validate (difftest, which the golden cases share).
func TestDifferential(t *testing.T) {
	const perKind = 700
	decoders := difftest.FromTools(t, Tools())
	require.Len(t, decoders, 5)
	for _, d := range decoders {
		t.Run(d.Name, func(t *testing.T) {
			t.Logf("%d documents of each kind: %v", perKind, difftest.Run(t, d, perKind, 1))
		})
	}
}

// FuzzDecodeArgs feeds arbitrary JSON to every generated decoder: no panic,
// and Validate's verdict, path and rule, or a go-range rejection.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{`{}`, `{"id":1}`, `{"shape":{"kind":"circle","radius":1}}`, `{"a":[1,2,{"b":null}]}`, `[]`, `null`, `{"id":1e400}`} {
		f.Add([]byte(s))
	}
	decoders := difftest.FromTools(f, Tools())
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonvalue.Materialize(raw)
		if err != nil {
			return
		}
		for _, d := range decoders {
			difftest.Agree(t, d.Name, d, v)
		}
	})
}
