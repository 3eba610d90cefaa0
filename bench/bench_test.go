package bench

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

func load(tb testing.TB) []Payload {
	tb.Helper()
	ps, err := Load(Dir())
	require.NoError(tb, err)
	return ps
}

// TestVerdictsAgree checks that every implementation measured here gives the
// same verdict on every payload and invalid variant, so the benchmarks
// compare equal work.
func TestVerdictsAgree(t *testing.T) {
	for _, p := range load(t) {
		v, err := Compile(p.Schema)
		require.NoError(t, err, p.Name)
		require.NoError(t, v.SubsetPath(p.Value), p.Name)
		require.NoError(t, v.SanthoshPath(p.Value), p.Name)
		require.NoError(t, v.GooglePath(p.Value), p.Name)
		require.NoError(t, json.Unmarshal(p.Value, NewArgs(p.Name)), p.Name)
		for kind, raw := range p.Invalid {
			require.Error(t, v.SubsetPath(raw), "%s_invalid_%s", p.Name, kind)
			require.Error(t, v.SanthoshPath(raw), "%s_invalid_%s", p.Name, kind)
			require.Error(t, v.GooglePath(raw), "%s_invalid_%s", p.Name, kind)
		}
	}
}

// BenchmarkFloor is the floor: a jsontext ReadToken loop over the payload,
// decoder reused, no validation, no output.
func BenchmarkFloor(b *testing.B) {
	for _, p := range load(b) {
		b.Run(p.Name, func(b *testing.B) {
			r := bytes.NewReader(p.Value)
			dec := jsontext.NewDecoder(r)
			b.SetBytes(int64(len(p.Value)))
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(p.Value)
				dec.Reset(r)
				for {
					if _, err := dec.ReadToken(); err != nil {
						break
					}
				}
			}
		})
	}
}

// measure runs one benchmark per payload; call returns the function that
// does one call's work on the payload.
func measure(b *testing.B, call func(p Payload, v *Validators) func() error) {
	for _, p := range load(b) {
		v, err := Compile(p.Schema)
		require.NoError(b, err)
		f := call(p, v)
		b.Run(p.Name, func(b *testing.B) {
			b.SetBytes(int64(len(p.Value)))
			b.ReportAllocs()
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMaterialize is jsonvalue.Materialize alone.
func BenchmarkMaterialize(b *testing.B) {
	measure(b, func(p Payload, _ *Validators) func() error {
		return func() error {
			_, err := jsonvalue.Materialize(p.Value)
			return err
		}
	})
}

// BenchmarkValidate is schemasubset.Validate alone on a materialized value.
func BenchmarkValidate(b *testing.B) {
	measure(b, func(p Payload, v *Validators) func() error {
		val, err := jsonvalue.Materialize(p.Value)
		require.NoError(b, err)
		return func() error { return schemasubset.Validate(v.Subset, val) }
	})
}

// BenchmarkMaterializeValidate is toolgen's whole path from raw bytes.
func BenchmarkMaterializeValidate(b *testing.B) {
	measure(b, func(p Payload, v *Validators) func() error {
		return func() error { return v.SubsetPath(p.Value) }
	})
}

// BenchmarkSanthosh is santhosh-tekuri/jsonschema v6: its decode to any,
// then Validate.
func BenchmarkSanthosh(b *testing.B) {
	measure(b, func(p Payload, v *Validators) func() error {
		return func() error { return v.SanthoshPath(p.Value) }
	})
}

// BenchmarkSanthoshUnmarshal adds the encoding/json decode into the Go
// struct that a tool needs, as in ../shared/bench/README.md.
func BenchmarkSanthoshUnmarshal(b *testing.B) {
	measure(b, func(p Payload, v *Validators) func() error {
		return func() error {
			if err := v.SanthoshPath(p.Value); err != nil {
				return err
			}
			return json.Unmarshal(p.Value, NewArgs(p.Name))
		}
	})
}

// BenchmarkGoogle is google/jsonschema-go: encoding/json decode to any, then
// Validate.
func BenchmarkGoogle(b *testing.B) {
	measure(b, func(p Payload, v *Validators) func() error {
		return func() error { return v.GooglePath(p.Value) }
	})
}

// BenchmarkGoogleUnmarshal adds the decode into the Go struct.
func BenchmarkGoogleUnmarshal(b *testing.B) {
	measure(b, func(p Payload, v *Validators) func() error {
		return func() error {
			if err := v.GooglePath(p.Value); err != nil {
				return err
			}
			return json.Unmarshal(p.Value, NewArgs(p.Name))
		}
	})
}
