// Package difftest is the differential check of generated argument
// decoders against [schemasubset.Validate]: schema-generated,
// schema-mutated and byte-mutated documents from internal/argsgen go
// through a tool's generated Execute and through Validate, and the two
// must agree on the verdict, rule, instance path, schema path, message and
// offset. The only allowed difference is a go-range rejection of a
// document the schema accepts (DESIGN.md §6).
//
// generated_test/rules uses it on its own tools, and the golden cases of
// generated_test use it on theirs: their temporary modules import this
// package through their replace directive. This package may import
// internal/argsgen because it lives in the same module, and is itself
// importable from anywhere because it is not internal.
package difftest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/internal/argsgen"
	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// Decoder is one argument decoder under test with its parameter schema.
type Decoder struct {
	Name   string
	Schema *schemasubset.Node
	// Decode returns nil for accepted arguments and an error wrapping a
	// *schemasubset.ValidationError for rejected ones.
	Decode func(jsonvalue.Value) error
}

// FromTools returns the decoder of each generated tool: its Execute, which
// validates while it decodes (ValidatesArguments). An INVALID_ARGS
// *runtime.ToolError, which wraps the decoder's ValidationError, is a
// rejection; any other outcome, success or the body's own error, means the
// decoder accepted the arguments.
func FromTools(t testing.TB, tools []runtime.ToolDefinition) []Decoder {
	t.Helper()
	ds := make([]Decoder, 0, len(tools))
	for _, tool := range tools {
		require.True(t, tool.ValidatesArguments, "%s: a generated tool validates its own arguments", tool.Name)
		require.NotNil(t, tool.Parameters, "%s: no parameter schema", tool.Name)
		execute := tool.Execute
		ds = append(ds, Decoder{
			Name:   tool.Name,
			Schema: tool.Parameters,
			Decode: func(v jsonvalue.Value) error {
				_, err := execute(context.Background(), v, &runtime.RunContext{})
				var te *runtime.ToolError
				if errors.As(err, &te) && te.Code == runtime.CodeInvalidArgs {
					return te
				}
				return nil
			},
		})
	}
	return ds
}

// Agree checks that d's verdict on v matches schemasubset.Validate's: the
// same verdict with the same instance path, schema path, rule, message and
// offset, or a go-range rejection of a value the schema accepts (the one
// allowed difference), which it reports.
func Agree(t testing.TB, what string, d Decoder, v jsonvalue.Value) (goRange bool) {
	t.Helper()
	got, want := d.Decode(v), schemasubset.Validate(d.Schema, v)
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

// Stats counts what one Run did.
type Stats struct {
	// Documents is how many documents went through the decoder.
	Documents int
	// Rejected is how many of the Invalid documents Validate rejected
	// (the others happened to conform).
	Rejected int
	// GoRange is how many schema-valid documents the decoder rejected
	// with go-range.
	GoRange int
}

// String summarizes s for a test log.
func (s Stats) String() string {
	return fmt.Sprintf("%d documents; %d invalid ones rejected; %d go-range rejections", s.Documents, s.Rejected, s.GoRange)
}

// Run sends perKind valid, perKind invalid and up to perKind byte-mutated
// documents, generated from d's schema with seed, through Agree.
func Run(t testing.TB, d Decoder, perKind int, seed uint64) Stats {
	t.Helper()
	g := argsgen.New(d.Schema, seed)
	var s Stats
	check := func(what string, v jsonvalue.Value) {
		t.Helper()
		s.Documents++
		if Agree(t, what, d, v) {
			s.GoRange++
		}
	}
	for range perKind {
		valid := g.Valid()
		check("valid", valid)
		inv, kind := g.Invalid()
		check("invalid/"+kind, inv)
		if schemasubset.Validate(d.Schema, inv) != nil {
			s.Rejected++
		}
		if m, ok := g.Mutate(valid); ok {
			check("mutated", m)
		}
	}
	return s
}
