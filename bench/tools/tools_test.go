package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/bench"
	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// call is one payload with the generated decoder, the tool and a fresh Go
// value of its parameter shape for the peers.
type call struct {
	p      bench.Payload
	tool   string
	decode func(jsonvalue.Value) error
	newArg func() any
	params *schemasubset.Node
}

func calls(tb testing.TB) []call {
	tb.Helper()
	dir := bench.Dir()
	if os.Getenv(bench.EnvDir) == "" && !filepath.IsAbs(dir) {
		dir = filepath.Join("..", dir) // bench.Dir is relative to the bench module's root
	}
	ps, err := bench.Load(dir)
	require.NoError(tb, err)
	byName := map[string]call{
		"small": {tool: "read_file", newArg: func() any { return new(ReadFileArgs) }, params: _toolgen_ReadFile_schema.Parameters,
			decode: func(v jsonvalue.Value) error { _, err := _toolgen_ReadFile_decodeArgs(v); return err }},
		"medium": {tool: "grep", newArg: func() any { return new(GrepArgs) }, params: _toolgen_Grep_schema.Parameters,
			decode: func(v jsonvalue.Value) error { _, err := _toolgen_Grep_decodeArgs(v); return err }},
		"nested": {tool: "edit", newArg: func() any { return new(EditArgs) }, params: _toolgen_EditFile_schema.Parameters,
			decode: func(v jsonvalue.Value) error { _, err := _toolgen_EditFile_decodeArgs(v); return err }},
	}
	var out []call
	for _, p := range ps {
		c := byName[p.Name]
		c.p = p
		out = append(out, c)
	}
	return out
}

// TestDecoderVerdicts checks that the generated decoders accept every
// payload, decode it as encoding/json does, and give schemasubset.Validate's
// verdict, path and rule on every invalid variant (a root-level extra key
// is accepted: a toolgen parameter root is open).
func TestDecoderVerdicts(t *testing.T) {
	for _, c := range calls(t) {
		v, err := jsonvalue.Materialize(c.p.Value)
		require.NoError(t, err)
		require.NoError(t, c.decode(v), c.p.Name)
		for kind, raw := range c.p.Invalid {
			iv, err := jsonvalue.Materialize(raw)
			require.NoError(t, err)
			got, want := c.decode(iv), schemasubset.Validate(c.params, iv)
			if want == nil {
				assert.NoError(t, got, "%s_invalid_%s", c.p.Name, kind)
				continue
			}
			var g, w *schemasubset.ValidationError
			require.ErrorAs(t, got, &g, "%s_invalid_%s", c.p.Name, kind)
			require.ErrorAs(t, want, &w)
			assert.Equal(t, w.InstancePath, g.InstancePath, "%s_invalid_%s", c.p.Name, kind)
			assert.Equal(t, w.Rule, g.Rule, "%s_invalid_%s", c.p.Name, kind)
			assert.Equal(t, w.SchemaPath, g.SchemaPath, "%s_invalid_%s", c.p.Name, kind)
			assert.Equal(t, w.Message, g.Message, "%s_invalid_%s", c.p.Name, kind)
		}
	}
	e, err := _toolgen_EditFile_decodeArgs(mustValue(t, calls(t)[2].p.Value))
	require.NoError(t, err)
	var ref EditArgs
	require.NoError(t, json.Unmarshal(calls(t)[2].p.Value, &ref))
	assert.Equal(t, ref, e)
}

// TestEncodeMatchesEncodingJSON checks the generated output encoders
// against encoding/json on the benchmark outputs.
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	out := EditResult{Path: "/a/\"b\"/é", Applied: 20}
	got, err := _toolgen_EditFile_encodeOutput(&out)
	require.NoError(t, err)
	want, _ := json.Marshal(out)
	assert.JSONEq(t, string(want), string(got))
	assert.True(t, jsonvalue.IsCanonical(got))
	require.NoError(t, _toolgen_EditFile_validateOutput(got))
}

func mustValue(tb testing.TB, raw []byte) jsonvalue.Value {
	v, err := jsonvalue.Materialize(raw)
	require.NoError(tb, err)
	return v
}

func run(b *testing.B, f func(c call) func() error) {
	for _, c := range calls(b) {
		g := f(c)
		b.Run(c.p.Name, func(b *testing.B) {
			b.SetBytes(int64(len(c.p.Value)))
			b.ReportAllocs()
			for b.Loop() {
				if err := g(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFloor is the jsontext ReadToken loop, decoder reused.
func BenchmarkFloor(b *testing.B) {
	run(b, func(c call) func() error {
		r := bytes.NewReader(c.p.Value)
		dec := jsontext.NewDecoder(r)
		return func() error {
			r.Reset(c.p.Value)
			dec.Reset(r)
			for {
				if _, err := dec.ReadToken(); err != nil {
					return nil // io.EOF after the value
				}
			}
		}
	})
}

// BenchmarkGeneratedDecode is the generated decode + validate into the
// parameter struct, on the materialized arguments Execute holds.
func BenchmarkGeneratedDecode(b *testing.B) {
	run(b, func(c call) func() error {
		v := mustValue(b, c.p.Value)
		return func() error { return c.decode(v) }
	})
}

// BenchmarkGeneratedMaterializeDecode adds jsonvalue.Materialize: the
// whole path from raw bytes.
func BenchmarkGeneratedMaterializeDecode(b *testing.B) {
	run(b, func(c call) func() error {
		return func() error {
			v, err := jsonvalue.Materialize(c.p.Value)
			if err != nil {
				return err
			}
			return c.decode(v)
		}
	})
}

// BenchmarkJSONv2Unmarshal is json v2's Unmarshal into the struct, which
// validates nothing.
func BenchmarkJSONv2Unmarshal(b *testing.B) {
	run(b, func(c call) func() error {
		return func() error { return jsonv2.Unmarshal(c.p.Value, c.newArg()) }
	})
}

// BenchmarkGoogleUnmarshal is google/jsonschema-go's decode to any and
// Validate, then encoding/json Unmarshal into the struct: what the official
// MCP Go SDK does per call.
func BenchmarkGoogleUnmarshal(b *testing.B) {
	run(b, func(c call) func() error {
		v, err := bench.Compile(c.p.Schema)
		require.NoError(b, err)
		return func() error {
			if err := v.GooglePath(c.p.Value); err != nil {
				return err
			}
			return json.Unmarshal(c.p.Value, c.newArg())
		}
	})
}

// BenchmarkGeneratedExecute is a whole Runtime.Execute of the generated
// tool (materialize, decode, body, encode, validate output, render).
func BenchmarkGeneratedExecute(b *testing.B) {
	ctx := context.Background()
	rt := runtime.New()
	for _, def := range Tools() {
		_, err := rt.Register(def)
		require.NoError(b, err)
	}
	for _, c := range calls(b) {
		in := runtime.ExecutionInput{CallID: "c", Name: c.tool, Arguments: c.p.Value}
		b.Run(c.p.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := rt.Execute(ctx, in); res.IsError() {
					b.Fatal(res.Failure.Message)
				}
			}
		})
	}
}

// benchOutput is the output every encode benchmark writes.
var benchOutput = ReadFileResult{Path: "/src/main.go", Lines: []string{"package main", "", "import \"fmt\"", "func main() { fmt.Println(\"héllo\") }"}, TotalLines: 120, Truncated: true}

// BenchmarkGeneratedEncodeValidate is the generated output encoder and
// output validator.
func BenchmarkGeneratedEncodeValidate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		v, err := _toolgen_ReadFile_encodeOutput(&benchOutput)
		if err != nil {
			b.Fatal(err)
		}
		if err := _toolgen_ReadFile_validateOutput(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGeneratedEncode is the generated output encoder alone: what
// Execute pays for an output type whose shape guarantees its schema
// (ValidatesOutput), as ReadFileResult's does.
func BenchmarkGeneratedEncode(b *testing.B) {
	require.True(b, Tools()[0].ValidatesOutput)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := _toolgen_ReadFile_encodeOutput(&benchOutput); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONv2Marshal is json v2's Marshal of the same output.
func BenchmarkJSONv2Marshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsonv2.Marshal(&benchOutput); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTools is the start-up cost of listing the package's tools.
func BenchmarkTools(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if len(Tools()) != 3 {
			b.Fatal("want 3 tools")
		}
	}
}
