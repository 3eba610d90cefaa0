package providers_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/providers"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// declareAll runs every format, keyed by its error header's name.
var declareAll = map[string]func([]runtime.ToolSchema) error{
	"openai-chat":      ignore(providers.OpenAIChat),
	"openai-responses": ignore(providers.OpenAIResponses),
	"anthropic":        func(ts []runtime.ToolSchema) error { _, err := providers.Anthropic(ts); return err },
	"gemini":           func(ts []runtime.ToolSchema) error { _, err := providers.Gemini(ts); return err },
}

func named(names ...string) []runtime.ToolSchema {
	out := make([]runtime.ToolSchema, len(names))
	for i, n := range names {
		out[i] = runtime.ToolSchema{Name: n, Description: "d", Parameters: schemasubset.Object()}
	}
	return out
}

// TestNameRules checks names each format accepts and refuses, against the
// rules its documentation states (see the doc constants in
// providers_test.go): OpenAI and Anthropic ^[a-zA-Z0-9_-]{1,64}$; Gemini a
// letter or '_' first, then a-z A-Z 0-9 _ . : -, at most 128.
func TestNameRules(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name                    string
		openAI, anthropic, gemi bool
	}{
		{"read_file", true, true, true},
		{"Read-File_2", true, true, true},
		{"_private", true, true, true},
		{long(64), true, true, true},
		{long(65), false, false, true},
		{long(128), false, false, true},
		{long(129), false, false, false},
		{"fs.read", false, false, true},
		{"ns:read", false, false, true},
		{"2fast", true, true, false},
		{"-dash", true, true, false},
		{".dot", false, false, false},
		{"", false, false, false},
		{"with space", false, false, false},
		{"ünï", false, false, false},
	}
	for _, c := range cases {
		tools := named(c.name)
		for format, want := range map[string]bool{
			"openai-chat": c.openAI, "openai-responses": c.openAI, "anthropic": c.anthropic, "gemini": c.gemi,
		} {
			err := declareAll[format](tools)
			assert.Equal(t, want, err == nil, "%s accepts %q: %v", format, c.name, err)
		}
	}
}

// TestNameFailuresListEveryTool checks that a refusal names every
// offending tool, with the rule, in list order.
func TestNameFailuresListEveryTool(t *testing.T) {
	tools := named("fs.read", "ok", strings.Repeat("x", 65), "2fast", "ok", "web:fetch")
	openAI := func(format string) string {
		return "providers: cannot declare tools for " + format + ":" +
			"\n\t" + `tool "fs.read": name must match ^[a-zA-Z0-9_-]{1,64}$` +
			"\n\t" + `tool "` + strings.Repeat("x", 65) + `": name must match ^[a-zA-Z0-9_-]{1,64}$` +
			"\n\t" + `tool "ok": name is declared more than once` +
			"\n\t" + `tool "web:fetch": name must match ^[a-zA-Z0-9_-]{1,64}$`
	}
	want := map[string]string{
		"openai-chat":      openAI("openai-chat"),
		"openai-responses": openAI("openai-responses"),
		"anthropic":        openAI("anthropic"),
		"gemini": "providers: cannot declare tools for gemini:" +
			"\n\t" + `tool "2fast": name must match ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$` +
			"\n\t" + `tool "ok": name is declared more than once`,
	}
	for format, declare := range declareAll {
		err := declare(tools)
		require.Error(t, err, format)
		assert.Equal(t, want[format], err.Error(), format)
		var pe *providers.Error
		require.ErrorAs(t, err, &pe)
		for _, p := range pe.Problems {
			assert.Contains(t, []providers.Code{providers.CodeName, providers.CodeDuplicateName}, p.Code)
			assert.Empty(t, p.Pointer)
		}
	}
}
