package providers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/providers"
	"github.com/toolgen-go/toolgen/schemasubset"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// The documentation each golden file follows, as of the date named. A
// golden that changes must be checked against the current version of its
// documents, and these constants updated with it.
const (
	// docOpenAIChat: the Chat Completions request's tools entry.
	docOpenAIChat = "OpenAI API reference, ChatCompletionTool and FunctionObject (strict: boolean, default false), " +
		"openai/openai-openapi openapi.yaml at f85dbe2 (2026-08-21); https://platform.openai.com/docs/api-reference/chat/create"
	// docOpenAIResponses: the Responses API's function tool, whose strict
	// member is required.
	docOpenAIResponses = "OpenAI API reference, FunctionTool (required: type, name, strict, parameters), " +
		"openai/openai-openapi openapi.yaml at f85dbe2 (2026-08-21); https://platform.openai.com/docs/api-reference/responses/create"
	// docOpenAIStrict: what strict mode accepts.
	docOpenAIStrict = "OpenAI function calling guide, strict mode (https://platform.openai.com/docs/guides/function-calling), and " +
		"Structured Outputs guide, Supported schemas (https://developers.openai.com/api/docs/guides/structured-outputs), as of 2026-08: " +
		"types string/number/boolean/integer/object/array/enum/anyOf, root an object and not anyOf, all fields required " +
		"(optional emulated by a union with null), additionalProperties false on every object, allOf/not/if/then/else unsupported; " +
		"oneOf is converted to anyOf as openai/openai-agents-python src/agents/strict_schema.py at 7f7a44f (2026-08-22) does"
	// docAnthropic: the Messages API's tool definition.
	docAnthropic = "Claude docs, Implement tool use: name ^[a-zA-Z0-9_-]{1,64}$, description, input_schema " +
		"(https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use), and anthropic-sdk-python " +
		"src/anthropic/types/tool_param.py at 009b035 (2026-08-07); root oneOf/anyOf/allOf rejected by the API (anthropics/claude-code#5319)"
	// docGemini: the Gemini API's Tool.functionDeclarations with
	// FunctionDeclaration.parametersJsonSchema.
	docGemini = "Gemini API reference, Tool.functionDeclarations and FunctionDeclaration.parametersJsonSchema " +
		"(https://ai.google.dev/api/caching#FunctionDeclaration), and googleapis/python-genai google/genai/types.py at 6680718 " +
		"(2026-08-21): name starts with a letter or underscore, a-z A-Z 0-9 _ . : -, at most 128"
)

// fixture is one representative tool.
type fixture struct {
	name, description, params string
	strict                    bool // has a strict form without OptionalAsNull
}

// fixtures covers the shapes toolgen emits: required and optional fields,
// an enum, a nested closed object, an array, a nullable oneOf, an open
// root with no properties, and a oneOf of variants.
var fixtures = []fixture{
	{
		name:        "read_file",
		description: "Read a window of lines from a UTF-8 text file.\n\nUse <offset> & \"limit\"; the é stays é.",
		params: `{"type":"object","properties":{` +
			`"path":{"type":"string","description":"Absolute path of the file; \"quoted\", <b>bold</b> & é\n"},` +
			`"offset":{"type":"integer","description":"First line to return, 1-based.","default":1},` +
			`"limit":{"type":"integer","default":12345678901234567890}},"required":["path"]}`,
	},
	{
		name:        "set_mode",
		description: "Set the decoding mode.",
		params: `{"type":"object","properties":{` +
			`"mode":{"type":"string","title":"Mode","description":"How to decode bytes","enum":["text","base64"]},` +
			`"level":{"type":"integer","enum":[1,2.0,1e1]}},"required":["mode","level"]}`,
		strict: true,
	},
	{
		name:        "select_range",
		description: "Select lines.",
		params: `{"type":"object","properties":{"range":{"type":"object","description":"Lines to select.",` +
			`"properties":{"start":{"type":"integer"},"end":{"type":"integer"}},"required":["start","end"],"additionalProperties":false}},` +
			`"required":["range"]}`,
		strict: true,
	},
	{
		name:        "delete_paths",
		description: "Delete files.",
		params: `{"type":"object","properties":{"paths":{"type":"array","examples":[["a.txt","b.txt"]],"items":{"type":"string"}}},` +
			`"required":["paths"]}`,
		strict: true,
	},
	{
		name:        "search",
		description: "Search the index.",
		params: `{"type":"object","properties":{"query":{"type":"string"},` +
			`"max_results":{"description":"At most this many; null for no limit.","oneOf":[{"type":"integer"},{"type":"null"}]}},` +
			`"required":["query","max_results"]}`,
		strict: true,
	},
	{
		name:        "list_tools",
		description: "",
		params:      `{"type":"object"}`,
		strict:      true,
	},
	{
		name:        "draw",
		description: "Draw a shape.",
		params: `{"type":"object","properties":{"shape":{"oneOf":[` +
			`{"type":"object","properties":{"kind":{"type":"string","const":"circle"},"radius":{"type":"number"}},"required":["kind","radius"],"additionalProperties":false},` +
			`{"type":"object","properties":{"kind":{"type":"string","const":"square"},"side":{"type":"number"}},"required":["kind","side"],"additionalProperties":false}` +
			`]}},"required":["shape"]}`,
		strict: true,
	},
}

func schemas(t testing.TB, strictOnly bool) []runtime.ToolSchema {
	t.Helper()
	var out []runtime.ToolSchema
	for _, f := range fixtures {
		if strictOnly && !f.strict {
			continue
		}
		n, err := schemasubset.Parse([]byte(f.params))
		require.NoError(t, err, f.name)
		out = append(out, runtime.ToolSchema{Name: f.name, Description: f.description, Parameters: n})
	}
	return out
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	assert.Equal(t, string(want), string(got), "%s differs; run go test -update and review the diff", path)
}

// lines joins declarations one per line.
func lines(decls []json.RawMessage) []byte {
	var b bytes.Buffer
	for _, d := range decls {
		b.Write(d)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	all, strictOnly := schemas(t, false), schemas(t, true)
	cases := []struct {
		file    string
		doc     string
		tools   []runtime.ToolSchema
		declare func([]runtime.ToolSchema) ([]byte, error)
	}{
		{"openai_chat.jsonl", docOpenAIChat, all, listOf(providers.OpenAIChat)},
		{"openai_chat_strict.jsonl", docOpenAIChat + "; " + docOpenAIStrict, strictOnly, listOf(providers.OpenAIChat, providers.Strict())},
		{"openai_chat_optional_as_null.jsonl", docOpenAIChat + "; " + docOpenAIStrict, all, listOf(providers.OpenAIChat, providers.OptionalAsNull())},
		{"openai_responses.jsonl", docOpenAIResponses, all, listOf(providers.OpenAIResponses)},
		{"openai_responses_strict.jsonl", docOpenAIResponses + "; " + docOpenAIStrict, strictOnly, listOf(providers.OpenAIResponses, providers.Strict())},
		{"openai_responses_optional_as_null.jsonl", docOpenAIResponses + "; " + docOpenAIStrict, all, listOf(providers.OpenAIResponses, providers.OptionalAsNull())},
		{"anthropic.jsonl", docAnthropic, all, func(ts []runtime.ToolSchema) ([]byte, error) {
			d, err := providers.Anthropic(ts)
			return lines(d), err
		}},
		{"gemini.json", docGemini, all, func(ts []runtime.ToolSchema) ([]byte, error) {
			d, err := providers.Gemini(ts)
			return append(d, '\n'), err
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Log("follows:", c.doc)
			got, err := c.declare(c.tools)
			require.NoError(t, err)
			golden(t, c.file, got)
		})
	}
}

func listOf(f func([]runtime.ToolSchema, ...providers.Option) ([]json.RawMessage, error), opts ...providers.Option) func([]runtime.ToolSchema) ([]byte, error) {
	return func(ts []runtime.ToolSchema) ([]byte, error) {
		d, err := f(ts, opts...)
		return lines(d), err
	}
}

// fields decodes one JSON object into its members, keeping their bytes.
func fields(t *testing.T, raw []byte) (map[string]json.RawMessage, []string) {
	t.Helper()
	require.True(t, json.Valid(raw), "%s", raw)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	dec := json.NewDecoder(bytes.NewReader(raw))
	_, err := dec.Token()
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return m, keys
}

// TestShapes checks the member names and order of each format and that the
// parameter schema is the canonical JSON byte for byte.
func TestShapes(t *testing.T) {
	tools := schemas(t, false)
	chat, err := providers.OpenAIChat(tools)
	require.NoError(t, err)
	resp, err := providers.OpenAIResponses(tools)
	require.NoError(t, err)
	claude, err := providers.Anthropic(tools)
	require.NoError(t, err)
	gemini, err := providers.Gemini(tools)
	require.NoError(t, err)

	g, keys := fields(t, gemini)
	require.Equal(t, []string{"functionDeclarations"}, keys)
	var decls []json.RawMessage
	require.NoError(t, json.Unmarshal(g["functionDeclarations"], &decls))
	require.Len(t, decls, len(tools))

	for i, tool := range tools {
		canonical, err := tool.Parameters.MarshalJSON()
		require.NoError(t, err)
		name, err := json.Marshal(tool.Name)
		require.NoError(t, err)

		m, keys := fields(t, chat[i])
		assert.Equal(t, []string{"type", "function"}, keys)
		assert.JSONEq(t, `"function"`, string(m["type"]))
		f, keys := fields(t, m["function"])
		assert.Equal(t, []string{"name", "description", "parameters"}, keys, "no strict member by default")
		assert.Equal(t, string(name), string(f["name"]))
		assert.Equal(t, string(canonical), string(f["parameters"]))

		m, keys = fields(t, resp[i])
		assert.Equal(t, []string{"type", "name", "description", "parameters", "strict"}, keys)
		assert.Equal(t, "false", string(m["strict"]))
		assert.Equal(t, string(canonical), string(m["parameters"]))

		m, keys = fields(t, claude[i])
		assert.Equal(t, []string{"name", "description", "input_schema"}, keys)
		assert.Equal(t, string(canonical), string(m["input_schema"]))

		m, keys = fields(t, decls[i])
		assert.Equal(t, []string{"name", "description", "parametersJsonSchema"}, keys)
		assert.Equal(t, string(canonical), string(m["parametersJsonSchema"]))

		var desc string
		require.NoError(t, json.Unmarshal(m["description"], &desc))
		assert.Equal(t, tool.Description, desc, "descriptions are lossless")
	}
}

// TestStrictKeepsStrictSchemas checks that a schema that needs no change
// comes out as its canonical JSON, the open root closed.
func TestStrictKeepsStrictSchemas(t *testing.T) {
	for _, tool := range schemas(t, true) {
		canonical, err := tool.Parameters.MarshalJSON()
		require.NoError(t, err)
		if bytes.Contains(canonical, []byte(`"oneOf"`)) {
			continue // becomes anyOf; the goldens show it
		}
		decls, err := providers.OpenAIResponses([]runtime.ToolSchema{tool}, providers.Strict())
		require.NoError(t, err)
		m, _ := fields(t, decls[0])
		assert.Equal(t, "true", string(m["strict"]))
		want := string(canonical[:len(canonical)-1]) + `,"additionalProperties":false}`
		if string(canonical) == `{"type":"object"}` {
			want = `{"type":"object","additionalProperties":false}`
		}
		assert.Equal(t, want, string(m["parameters"]), tool.Name)
	}
}

// TestStrictShape walks every strict schema and checks the rules strict
// mode documents: every object closed with every property required, no
// oneOf, and a type (or an anyOf) on every schema.
func TestStrictShape(t *testing.T) {
	check := func(t *testing.T, decls []json.RawMessage) {
		for _, d := range decls {
			m, _ := fields(t, d)
			var root map[string]any
			require.NoError(t, json.Unmarshal(m["parameters"], &root))
			assert.Equal(t, "object", root["type"])
			assert.NotContains(t, root, "anyOf")
			walkStrict(t, root, "")
		}
	}
	decls, err := providers.OpenAIResponses(schemas(t, true), providers.Strict())
	require.NoError(t, err)
	check(t, decls)
	decls, err = providers.OpenAIResponses(schemas(t, false), providers.OptionalAsNull())
	require.NoError(t, err)
	check(t, decls)
}

func walkStrict(t *testing.T, s map[string]any, ptr string) {
	t.Helper()
	assert.NotContains(t, s, "oneOf", ptr)
	branches, isUnion := s["anyOf"].([]any)
	if !isUnion {
		assert.Contains(t, s, "type", ptr)
	}
	for i, b := range branches {
		walkStrict(t, b.(map[string]any), ptr+"/anyOf/"+string(rune('0'+i)))
	}
	if s["type"] == "object" {
		assert.Equal(t, false, s["additionalProperties"], ptr)
		props, _ := s["properties"].(map[string]any)
		required, _ := s["required"].([]any)
		for name, p := range props {
			assert.Contains(t, required, name, ptr)
			walkStrict(t, p.(map[string]any), ptr+"/properties/"+name)
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		walkStrict(t, items, ptr+"/items")
	}
}

// TestNoTools checks the empty list.
func TestNoTools(t *testing.T) {
	d, err := providers.OpenAIChat(nil)
	require.NoError(t, err)
	assert.Empty(t, d)
	g, err := providers.Gemini(nil)
	require.NoError(t, err)
	assert.Equal(t, `{"functionDeclarations":[]}`, string(g))
}

// TestDeclarationsDoNotAlias checks that appending to one declaration
// cannot overwrite the next, though they share a buffer.
func TestDeclarationsDoNotAlias(t *testing.T) {
	decls, err := providers.Anthropic(schemas(t, false))
	require.NoError(t, err)
	second := string(decls[1])
	_ = append(decls[0], "garbage"...)
	assert.Equal(t, second, string(decls[1]))
}

// TestWithRuntime declares a registered tool in strict mode with optional
// fields emulated, and runs a call the model could send through
// RestoreOptional into Execute.
func TestWithRuntime(t *testing.T) {
	rt := runtime.New()
	params := schemasubset.MustParse(fixtures[0].params)
	_, err := rt.Register(runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{Name: "read_file", Description: "Read a file.", Parameters: params},
		Output: runtime.OutputDefinition{Schema: schemasubset.Any(), Render: func(_, v jsonvalue.Value) ([]runtime.ContentBlock, error) {
			return []runtime.ContentBlock{runtime.Text(v.String())}, nil
		}},
		Execute: func(_ context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
			return args, nil
		},
	})
	require.NoError(t, err)

	decls, err := providers.OpenAIChat(rt.Schemas(nil), providers.OptionalAsNull())
	require.NoError(t, err)
	require.Len(t, decls, 1)
	assert.Contains(t, string(decls[0]), `"required":["path","offset","limit"]`)

	sent := `{"path":"/etc/hosts","offset":2,"limit":null}`
	res := rt.Execute(context.Background(), runtime.ExecutionInput{CallID: "1", Name: "read_file", Arguments: []byte(sent)})
	require.True(t, res.IsError(), "the tool's own schema rejects the emulated null")
	assert.Equal(t, runtime.CodeInvalidArgs, res.Code())

	args, err := providers.RestoreOptional(rt.Schemas(nil)[0].Parameters, []byte(sent))
	require.NoError(t, err)
	res = rt.Execute(context.Background(), runtime.ExecutionInput{CallID: "2", Name: "read_file", Arguments: args})
	require.False(t, res.IsError(), "%v", res.Failure)
	assert.Equal(t, `{"path":"/etc/hosts","offset":2}`, string(res.Value))
}

// TestErrorString checks the shape of Error.Error for several tools.
func TestErrorString(t *testing.T) {
	tools := []runtime.ToolSchema{
		{Name: "fs.read", Parameters: schemasubset.Object()},
		{Name: "ok", Parameters: schemasubset.Object()},
		{Name: "ok", Parameters: nil},
	}
	_, err := providers.OpenAIChat(tools, providers.Strict())
	require.Error(t, err)
	var pe *providers.Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, providers.FormatOpenAIChat, pe.Format)
	assert.Equal(t, "strict", pe.Mode)
	assert.Equal(t, strings.Join([]string{
		"providers: cannot declare tools for openai-chat (strict):",
		`	tool "fs.read": name must match ^[a-zA-Z0-9_-]{1,64}$`,
		`	tool "ok": name is declared more than once`,
		`	tool "ok": (root): the parameter schema is nil`,
	}, "\n"), err.Error())
}
