package rules

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

// TestRulesThroughTools runs the argument side of R135–R140 through the
// generated adapters of Tools(), whose decoders validate while decoding,
// and requires the verdict, code and message of the runtime-validated
// definitions the TestR13x tests use.
func TestRulesThroughTools(t *testing.T) {
	generatedRT := newRuntime(t, Tools()...)
	var seen LookupArgs
	null := func(context.Context, jsonvalue.Value) (jsonvalue.Value, error) { return jsonvalue.Null(), nil }
	validatedRT := newRuntime(t,
		definition(_toolgen_Lookup_schema, _toolgen_Lookup_output, lookupBody(&seen)),
		definition(_toolgen_Draw_schema, _toolgen_Draw_output, null),
	)
	tests := []struct {
		rule, tool, args string
		want             runtime.ErrorCode
	}{
		{"R135", "lookup", `{"path":"/x","extra":1}`, ""},
		{"R136", "lookup", `{"path":"/x","inner":{"name":"n","extra":1}}`, runtime.CodeInvalidArgs},
		{"R136", "lookup", `{"path":"/x","loose":{"name":"n","extra":1}}`, ""},
		{"R137", "draw", `{"shape":{}}`, runtime.CodeInvalidArgs},
		{"R137", "draw", `{"shape":{"r":1}}`, ""},
		{"R137", "draw", `{"shape":{"r":1,"s":2}}`, runtime.CodeInvalidArgs},
		{"R139", "lookup", `{"path":"/x","mode":"c"}`, runtime.CodeInvalidArgs},
		{"R139", "lookup", `{"path":"/x","mode":"b"}`, ""},
		{"R140", "lookup", `{"path":"/x","label":"anything at all"}`, ""},
		{"required", "lookup", `{"mode":"a"}`, runtime.CodeInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.rule+" "+tt.args, func(t *testing.T) {
			got := call(generatedRT, tt.tool, tt.args)
			want := call(validatedRT, tt.tool, tt.args)
			require.Equal(t, tt.want, want.Code(), "the validated path: %+v", want.Failure)
			assert.Equal(t, tt.want, got.Code(), "the generated path: %+v", got.Failure)
			if tt.want != "" {
				assert.Equal(t, want.Failure.Message, got.Failure.Message)
			}
		})
	}
}
