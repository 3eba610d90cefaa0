package runtime_test

// Rules R128–R134 (RULES.md section 17): the presentation vocabulary
// (ToolCallView, ToolResultView and their JSON), the presenter fallbacks of
// rt.PresentCall and rt.PresentResult, and the plain-text renderers
// CallLine and ResultText.

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

// presentUpdate reports -update ("rewrite golden files"). The flag is
// registered here unless another test file of the package registered -update
// first, and it is read through the flag set, so both see the same value.
var presentUpdate = func() func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
	return func() bool { return flag.Lookup("update").Value.String() == "true" }
}()

func presStr(s string) *string { return &s }
func presInt(n int) *int       { return &n }

// presVariant is one card of the vocabulary with the exact JSON keys it
// encodes.
type presVariant struct {
	name   string // golden file name, without .json
	call   *runtime.ToolCallView
	result *runtime.ToolResultView
	keys   []string
}

func (v presVariant) view() any {
	if v.call != nil {
		return *v.call
	}
	return *v.result
}

// presVariants returns every card variant, each with every field it may
// carry set.
func presVariants() []presVariant {
	return []presVariant{
		{
			name: "call_generic",
			call: &runtime.ToolCallView{
				Card: runtime.CallGeneric, Title: "Read main.go", Kind: runtime.KindRead,
				RawInput:  jsonvalue.Value(`{"path":"main.go","offset":1,"n":12345678901234567890123}`),
				Content:   []runtime.ContentBlock{runtime.Text("reading…")},
				Locations: []runtime.FileLocation{{Path: "main.go", Line: 1}, {Path: "go.mod"}},
			},
			keys: []string{"card", "title", "kind", "rawInput", "content", "locations"},
		},
		{
			name: "call_terminal",
			call: &runtime.ToolCallView{Card: runtime.CallTerminal, Title: "go test ./...", Description: "Run the tests", Cwd: "/work/main"},
			keys: []string{"card", "title", "description", "cwd"},
		},
		{
			name: "call_diff",
			call: &runtime.ToolCallView{
				Card: runtime.CallDiff, Title: "Edit main.go",
				Diffs:     []runtime.FileDiff{runtime.ChangeFileDiff("main.go", "a\n", "b\nc\n"), runtime.NewFileDiff("new.go", "package x\n")},
				Locations: []runtime.FileLocation{{Path: "main.go", Line: 3}},
			},
			keys: []string{"card", "title", "diffs", "locations"},
		},
		{
			name: "result_generic",
			result: &runtime.ToolResultView{
				Card: runtime.ResultGeneric, Title: "Done",
				Content: []runtime.ContentBlock{runtime.Text("ok"), runtime.Image([]byte{1, 2, 3}, "image/png")},
			},
			keys: []string{"card", "title", "content"},
		},
		{
			name:   "result_terminal",
			result: &runtime.ToolResultView{Card: runtime.ResultTerminal, Title: "go test", Output: presStr("ok  \tpkg\t0.1s\n"), ExitCode: presInt(0)},
			keys:   []string{"card", "title", "output", "exitCode"},
		},
		{
			name:   "result_terminal_signal",
			result: &runtime.ToolResultView{Card: runtime.ResultTerminal, Output: presStr("partial"), Signal: "SIGKILL"},
			keys:   []string{"card", "output", "signal"},
		},
		{
			name: "result_diff",
			result: &runtime.ToolResultView{
				Card: runtime.ResultDiff, Title: "Edited 2 files",
				Diffs: []runtime.FileDiff{runtime.ChangeFileDiff("main.go", "", "x\n"), runtime.NewFileDiff("new.go", "")},
			},
			keys: []string{"card", "title", "diffs"},
		},
		{
			name: "result_search_matches",
			result: &runtime.ToolResultView{
				Card: runtime.ResultSearch, Shape: runtime.ShapeMatches, Title: "grep foo", Truncated: true, Total: 7,
				Files: []runtime.SearchFile{{Path: "a.go", Matches: []runtime.SearchMatch{{Line: 3, Text: "foo()"}, {Line: 9, Text: "foo := 1"}}}},
			},
			keys: []string{"card", "shape", "title", "truncated", "total", "matches"},
		},
		{
			name:   "result_search_paths",
			result: &runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapePaths, Total: 2, Paths: []string{"a.go", "b/c.go"}},
			keys:   []string{"card", "shape", "truncated", "total", "paths"},
		},
		{
			name: "result_read",
			result: &runtime.ToolResultView{
				Card: runtime.ResultRead, Title: "main.go", Path: "main.go", Offset: 10,
				Lines:      []runtime.ReadFileLine{{Number: 10, Text: "func main() {"}, {Number: 11, Text: "}"}},
				TotalLines: 40, Lang: "go", Text: "func main() {\n}\n",
			},
			keys: []string{"card", "title", "path", "offset", "lines", "totalLines", "lang", "content"},
		},
		{
			name: "result_web_search",
			result: &runtime.ToolResultView{
				Card: runtime.ResultWeb, Web: runtime.WebSearch, Title: "golang",
				Sources: []runtime.WebSource{{Title: "Go", URL: "https://go.dev", Snippet: "The Go language"}, {URL: "https://pkg.go.dev"}},
				Answer:  "Go is a language.", Truncated: true,
			},
			keys: []string{"card", "kind", "title", "sources", "answer", "truncated"},
		},
		{
			name:   "result_web_fetch",
			result: &runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, Title: "example", URL: "https://example.com/a?b=c", StatusCode: 404},
			keys:   []string{"card", "kind", "title", "url", "statusCode", "truncated"},
		},
	}
}

// presKeys returns the sorted top-level keys of a JSON object.
func presKeys(t *testing.T, data []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &m), "%s", data)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// presMember returns the raw JSON of one top-level member, and whether it
// is present.
func presMember(t *testing.T, data []byte, key string) (string, bool) {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &m), "%s", data)
	raw, ok := m[key]
	return string(raw), ok
}

// presRoundTrip marshals v, decodes it into a fresh value of its type and
// returns both.
func presRoundTrip(t *testing.T, v any) ([]byte, any) {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	switch v.(type) {
	case runtime.ToolCallView:
		var out runtime.ToolCallView
		require.NoError(t, json.Unmarshal(data, &out), "%s", data)
		return data, out
	case runtime.ToolResultView:
		var out runtime.ToolResultView
		require.NoError(t, json.Unmarshal(data, &out), "%s", data)
		return data, out
	}
	require.FailNow(t, "not a view")
	return nil, nil
}

func TestR128_ViewsRoundTripWithACardDiscriminator(t *testing.T) {
	for _, v := range presVariants() {
		t.Run(v.name, func(t *testing.T) {
			view := v.view()
			data, back := presRoundTrip(t, view)
			card, ok := presMember(t, data, "card")
			require.True(t, ok, "%s", data)
			want := strings.TrimPrefix(strings.TrimPrefix(v.name, "call_"), "result_")
			want, _, _ = strings.Cut(want, "_")
			assert.Equal(t, `"`+want+`"`, card)
			assert.Equal(t, slices.Sorted(slices.Values(v.keys)), presKeys(t, data), "the card's JSON keys: %s", data)
			assert.Equal(t, view, back, "deep-equal after the round trip")
			again, err := json.Marshal(back)
			require.NoError(t, err)
			assert.Equal(t, string(data), string(again), "the JSON is stable")
		})
	}

	// Empty lists in the form decoding produces (non-nil, empty) survive a
	// round trip too, and their JSON is stable.
	empties := []struct {
		name string
		view any
	}{
		{"call diff", runtime.ToolCallView{Card: runtime.CallDiff, Title: "t", Diffs: []runtime.FileDiff{}}},
		{"result diff", runtime.ToolResultView{Card: runtime.ResultDiff, Diffs: []runtime.FileDiff{}}},
		{"read", runtime.ToolResultView{Card: runtime.ResultRead, Path: "a", Offset: 1, Lines: []runtime.ReadFileLine{}}},
		{"search matches", runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapeMatches, Files: []runtime.SearchFile{}}},
		{"search paths", runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapePaths, Paths: []string{}}},
		{"web search", runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebSearch, Sources: []runtime.WebSource{}}},
	}
	for _, tc := range empties {
		t.Run("empty "+tc.name, func(t *testing.T) {
			data, back := presRoundTrip(t, tc.view)
			assert.Equal(t, tc.view, back, "deep-equal after the round trip: %s", data)
			again, err := json.Marshal(back)
			require.NoError(t, err)
			assert.Equal(t, string(data), string(again), "the JSON is stable")
		})
	}

	t.Run("a pointer to a view and a nil view", func(t *testing.T) {
		type envelope struct {
			Call   *runtime.ToolCallView   `json:"call"`
			Result *runtime.ToolResultView `json:"result"`
		}
		in := envelope{Call: presVariants()[0].call}
		data, err := json.Marshal(in)
		require.NoError(t, err)
		var out envelope
		require.NoError(t, json.Unmarshal(data, &out), "%s", data)
		assert.Equal(t, in, out)
	})
}

func TestR129_ANewFilesOldTextIsNull(t *testing.T) {
	created := runtime.NewFileDiff("new.go", "package x\n")
	require.True(t, created.IsNewFile())
	data, err := json.Marshal(created)
	require.NoError(t, err)
	assert.JSONEq(t, `{"path":"new.go","oldText":null,"newText":"package x\n"}`, string(data))
	assert.Contains(t, string(data), `"oldText":null`)

	zero, err := json.Marshal(runtime.FileDiff{Path: "z"})
	require.NoError(t, err)
	assert.Contains(t, string(zero), `"oldText":null`, "the zero diff is a new file, never an omitted oldText")

	emptied := runtime.ChangeFileDiff("old.go", "", "x")
	assert.False(t, emptied.IsNewFile(), "an empty old file is not a new file")
	data, err = json.Marshal(emptied)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"oldText":""`)

	var back runtime.FileDiff
	require.NoError(t, json.Unmarshal([]byte(`{"path":"new.go","oldText":null,"newText":"x"}`), &back))
	assert.True(t, back.IsNewFile())
	assert.Equal(t, runtime.NewFileDiff("new.go", "x"), back)
	require.NoError(t, json.Unmarshal([]byte(`{"path":"old.go","oldText":"","newText":"x"}`), &back))
	assert.False(t, back.IsNewFile())
	assert.Equal(t, emptied, back)

	// Inside both diff cards.
	for _, view := range []any{
		runtime.ToolCallView{Card: runtime.CallDiff, Title: "create", Diffs: []runtime.FileDiff{created}},
		runtime.ToolResultView{Card: runtime.ResultDiff, Diffs: []runtime.FileDiff{created}},
	} {
		data, back := presRoundTrip(t, view)
		assert.Contains(t, string(data), `"oldText":null`)
		assert.Equal(t, view, back)
	}
}

func TestR130_TheReadViewKeepsItsOffset(t *testing.T) {
	for _, lines := range [][]runtime.ReadFileLine{{}, nil} {
		view := runtime.ToolResultView{Card: runtime.ResultRead, Path: "short.txt", Offset: 5, Lines: lines, TotalLines: 3}
		data, err := json.Marshal(view)
		require.NoError(t, err)
		assert.JSONEq(t, `{"card":"read","path":"short.txt","offset":5,"lines":[],"totalLines":3}`, string(data))
		var back runtime.ToolResultView
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, 5, back.Offset)
		assert.Empty(t, back.Lines)
		assert.Equal(t, 3, back.TotalLines)
	}
	_, back := presRoundTrip(t, runtime.ToolResultView{Card: runtime.ResultRead, Path: "short.txt", Offset: 5, Lines: []runtime.ReadFileLine{}, TotalLines: 3})
	assert.Equal(t, runtime.ToolResultView{Card: runtime.ResultRead, Path: "short.txt", Offset: 5, Lines: []runtime.ReadFileLine{}, TotalLines: 3}, back)

	line, err := json.Marshal(runtime.ReadFileLine{Number: 1, Text: "x"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"number":1,"text":"x"}`, string(line), "lines are {number,text}")

	// lang and content are optional: present when set, absent otherwise.
	full := runtime.ToolResultView{Card: runtime.ResultRead, Path: "a.go", Offset: 1, Lines: []runtime.ReadFileLine{{Number: 1, Text: "package a"}}, TotalLines: 1, Lang: "go", Text: "package a\n"}
	data, back := presRoundTrip(t, full)
	lang, ok := presMember(t, data, "lang")
	assert.True(t, ok)
	assert.Equal(t, `"go"`, lang)
	content, ok := presMember(t, data, "content")
	assert.True(t, ok, "the window's text is JSON content")
	assert.Equal(t, `"package a\n"`, content)
	assert.Equal(t, full, back)

	// The offset is 1-based: 0 is not a window.
	assert.Error(t, runtime.ToolResultView{Card: runtime.ResultRead, Path: "a", Offset: 0, Lines: []runtime.ReadFileLine{}}.Check())
}

func TestR131_SearchAndWebViewsAlwaysCarryTruncated(t *testing.T) {
	t.Run("search", func(t *testing.T) {
		for _, tc := range []struct {
			view runtime.ToolResultView
			list string
		}{
			{runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapeMatches}, "matches"},
			{runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapeMatches, Files: []runtime.SearchFile{}}, "matches"},
			{runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapePaths}, "paths"},
			{runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapePaths, Paths: []string{}}, "paths"},
		} {
			data, err := json.Marshal(tc.view)
			require.NoError(t, err)
			truncated, ok := presMember(t, data, "truncated")
			assert.True(t, ok, "%s", data)
			assert.Equal(t, "false", truncated)
			total, ok := presMember(t, data, "total")
			assert.True(t, ok, "%s", data)
			assert.Equal(t, "0", total)
			list, ok := presMember(t, data, tc.list)
			assert.True(t, ok, "an empty result list is still the list of its shape: %s", data)
			assert.Equal(t, "[]", list)
			var back runtime.ToolResultView
			require.NoError(t, json.Unmarshal(data, &back))
			assert.False(t, back.Truncated)
			assert.Zero(t, back.Total)
			assert.Equal(t, tc.view.Shape, back.Shape)
		}
	})

	t.Run("web fetch", func(t *testing.T) {
		view := runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, URL: "https://example.com", StatusCode: 200}
		data, back := presRoundTrip(t, view)
		assert.JSONEq(t, `{"card":"web","kind":"fetch","url":"https://example.com","statusCode":200,"truncated":false}`, string(data))
		assert.Equal(t, view, back)
	})

	t.Run("web search", func(t *testing.T) {
		for _, sources := range [][]runtime.WebSource{{}, nil} {
			view := runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebSearch, Sources: sources}
			data, err := json.Marshal(view)
			require.NoError(t, err)
			truncated, ok := presMember(t, data, "truncated")
			assert.True(t, ok, "%s", data)
			assert.Equal(t, "false", truncated)
			// The seed's web search card is {kind:'search', sources,
			// answer?, truncated}: only answer is optional.
			list, ok := presMember(t, data, "sources")
			assert.True(t, ok, "sources is required on a web search card, even when empty: %s", data)
			assert.Equal(t, "[]", list)
			_, ok = presMember(t, data, "answer")
			assert.False(t, ok, "answer is optional: %s", data)
		}
	})
}

func TestR132_CallViewsHaveNoSearchReadOrWebCard(t *testing.T) {
	for _, card := range []string{"search", "read", "web"} {
		var v runtime.ToolCallView
		err := json.Unmarshal([]byte(`{"card":"`+card+`","title":"t"}`), &v)
		assert.Error(t, err, card)
		assert.Error(t, runtime.ToolCallView{Card: runtime.CallCard(card), Title: "t"}.Check(), card)
		_, err = json.Marshal(runtime.ToolCallView{Card: runtime.CallCard(card), Title: "t"})
		assert.Error(t, err, card)
	}

	kinds := []runtime.ToolCallKind{
		runtime.KindRead, runtime.KindEdit, runtime.KindDelete, runtime.KindMove,
		runtime.KindSearch, runtime.KindExecute, runtime.KindFetch, runtime.KindOther,
	}
	assert.Equal(t, []string{"read", "edit", "delete", "move", "search", "execute", "fetch", "other"},
		func() []string {
			var out []string
			for _, k := range kinds {
				out = append(out, string(k))
			}
			return out
		}())
	for _, k := range kinds {
		assert.True(t, k.Valid(), k)
		view := runtime.ToolCallView{Card: runtime.CallGeneric, Title: "t", Kind: k}
		data, back := presRoundTrip(t, view)
		assert.Contains(t, string(data), `"kind":"`+string(k)+`"`)
		assert.Equal(t, view, back)
	}

	for _, k := range []runtime.ToolCallKind{"", "READ", "write", "read ", "unknown"} {
		assert.False(t, k.Valid(), "%q", k)
	}
	for _, k := range []runtime.ToolCallKind{"READ", "write", "unknown"} {
		view := runtime.ToolCallView{Card: runtime.CallGeneric, Title: "t", Kind: k}
		assert.Error(t, view.Check(), "an unknown kind is rejected: %q", k)
		_, err := json.Marshal(view)
		assert.Error(t, err, "%q", k)
		var v runtime.ToolCallView
		assert.Error(t, json.Unmarshal([]byte(`{"card":"generic","title":"t","kind":"`+string(k)+`"}`), &v), "%q", k)
	}
	// The kind is optional.
	assert.NoError(t, runtime.ToolCallView{Card: runtime.CallGeneric, Title: "t"}.Check())
}

// presErrors collects what the runtime reports to its error handler.
type presErrors struct {
	mu   sync.Mutex
	errs []error
}

func (p *presErrors) handle(err error) {
	p.mu.Lock()
	p.errs = append(p.errs, err)
	p.mu.Unlock()
}

func (p *presErrors) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.errs)
}

func TestR133_PresenterFallbacks(t *testing.T) {
	args := ` { "path" : "a.go", "n": 1.0 } `
	canonical := jsonvalue.Value(`{"path":"a.go","n":1.0}`)
	fallback := runtime.ToolCallView{Card: runtime.CallGeneric, Title: "echo", RawInput: canonical}

	t.Run("no presenters", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		in := call("echo", args, nil)
		got := rt.PresentCall(in)
		assert.Equal(t, fallback, got)
		data, err := json.Marshal(got)
		require.NoError(t, err)
		assert.JSONEq(t, `{"card":"generic","title":"echo","rawInput":{"path":"a.go","n":1.0}}`, string(data))

		res := exec(t, rt, t.Context(), in)
		require.False(t, res.IsError())
		assert.Nil(t, rt.PresentResult(in, res.Durable()), "no PresentResult: no completed card")
		// A UI then keeps the pending title and shows the raw content.
		assert.Equal(t, "▸ echo "+canonical.String(), runtime.CallLine("echo", &got))
		assert.Equal(t, canonical.String(), runtime.ResultText(nil, res.Durable()))
	})

	presenterCases := []struct {
		name     string
		call     func(jsonvalue.Value) *runtime.ToolCallView
		result   func(jsonvalue.Value, runtime.ToolResult) *runtime.ToolResultView
		reported int
	}{
		{
			name:   "presenters return nil",
			call:   func(jsonvalue.Value) *runtime.ToolCallView { return nil },
			result: func(jsonvalue.Value, runtime.ToolResult) *runtime.ToolResultView { return nil },
		},
		{
			name:     "presenters panic",
			call:     func(jsonvalue.Value) *runtime.ToolCallView { panic("call presenter broke") },
			result:   func(jsonvalue.Value, runtime.ToolResult) *runtime.ToolResultView { panic(errBoom) },
			reported: 2,
		},
		{
			name: "presenters return invalid cards",
			call: func(jsonvalue.Value) *runtime.ToolCallView {
				return &runtime.ToolCallView{Card: runtime.CallTerminal, Title: "x", Kind: runtime.KindRead}
			},
			result: func(jsonvalue.Value, runtime.ToolResult) *runtime.ToolResultView {
				return &runtime.ToolResultView{Card: "bogus"}
			},
			reported: 2,
		},
	}
	for _, tc := range presenterCases {
		t.Run(tc.name, func(t *testing.T) {
			errs := &presErrors{}
			rt := runtime.New(runtime.WithErrorHandler(errs.handle))
			def := echo()
			def.PresentCall = tc.call
			def.PresentResult = tc.result
			mustRegister(t, rt, def)
			in := call("echo", args, nil)
			var got runtime.ToolCallView
			require.NotPanics(t, func() { got = rt.PresentCall(in) })
			assert.Equal(t, fallback, got)
			res := exec(t, rt, t.Context(), in)
			var view *runtime.ToolResultView
			require.NotPanics(t, func() { view = rt.PresentResult(in, res.Durable()) })
			assert.Nil(t, view)
			assert.Equal(t, tc.reported, errs.len(), "failures with no result to go to are reported")
		})
	}

	t.Run("unknown tool", func(t *testing.T) {
		rt := runtime.New()
		in := call("nope", `{"a":1}`, nil)
		assert.Equal(t, runtime.ToolCallView{Card: runtime.CallGeneric, Title: "nope", RawInput: jsonvalue.Value(`{"a":1}`)}, rt.PresentCall(in))
		assert.Nil(t, rt.PresentResult(in, runtime.Fail(runtime.CodeUnknownTool, "unknown").Durable()))
	})

	t.Run("arguments that are not JSON", func(t *testing.T) {
		rt := runtime.New()
		def := echo()
		called := false
		def.PresentCall = func(jsonvalue.Value) *runtime.ToolCallView {
			called = true
			return &runtime.ToolCallView{Card: runtime.CallTerminal, Title: "x"}
		}
		mustRegister(t, rt, def)
		got := rt.PresentCall(call("echo", `{"a":`, nil))
		assert.Equal(t, runtime.ToolCallView{Card: runtime.CallGeneric, Title: "echo"}, got)
		assert.False(t, called, "the presenter only sees JSON arguments")
		data, err := json.Marshal(got)
		require.NoError(t, err)
		assert.JSONEq(t, `{"card":"generic","title":"echo"}`, string(data))
	})

	t.Run("control: presenters that answer are used", func(t *testing.T) {
		rt := runtime.New()
		def := echo()
		var gotArgs jsonvalue.Value
		var gotRes runtime.ToolResult
		def.PresentCall = func(a jsonvalue.Value) *runtime.ToolCallView {
			return &runtime.ToolCallView{Card: runtime.CallTerminal, Title: "run " + a.String()}
		}
		def.PresentResult = func(a jsonvalue.Value, r runtime.ToolResult) *runtime.ToolResultView {
			gotArgs, gotRes = a, r
			return &runtime.ToolResultView{Card: runtime.ResultTerminal, ExitCode: presInt(0)}
		}
		mustRegister(t, rt, def)
		in := call("echo", args, nil)
		assert.Equal(t, runtime.ToolCallView{Card: runtime.CallTerminal, Title: "run " + canonical.String()}, rt.PresentCall(in))
		res := exec(t, rt, t.Context(), in)
		assert.Equal(t, &runtime.ToolResultView{Card: runtime.ResultTerminal, ExitCode: presInt(0)}, rt.PresentResult(in, res.Durable()))
		assert.Equal(t, canonical, gotArgs, "PresentResult sees the materialized arguments")
		assert.Equal(t, res.Durable(), gotRes)
	})
}

func TestR134_PresentersArePureAndScopeResolved(t *testing.T) {
	a, b, c := agents()

	t.Run("the same arguments give deep-equal views", func(t *testing.T) {
		rt := runtime.New()
		def := echo()
		def.PresentCall = func(args jsonvalue.Value) *runtime.ToolCallView {
			v := &runtime.ToolCallView{Card: runtime.CallGeneric, Title: "echo " + args.String(), RawInput: args}
			args[0] = 'X' // an impure presenter scribbles on its own copy
			return v
		}
		def.PresentResult = func(args jsonvalue.Value, res runtime.ToolResult) *runtime.ToolResultView {
			v := &runtime.ToolResultView{Card: runtime.ResultGeneric, Title: args.String()}
			args[0] = 'X'
			return v
		}
		mustRegister(t, rt, def)
		buf := []byte(`{"k":"v"}`)
		in := call("echo", string(buf), nil)
		in.Arguments = buf
		first := rt.PresentCall(in)
		second := rt.PresentCall(in)
		assert.Equal(t, first, second)
		assert.Equal(t, `{"k":"v"}`, string(buf), "the caller's arguments are untouched")
		assert.Equal(t, "echo "+`{"k":"v"}`, second.Title)

		res := exec(t, rt, t.Context(), call("echo", `{"k":"v"}`, nil)).Durable()
		r1 := rt.PresentResult(in, res)
		r2 := rt.PresentResult(in, res)
		assert.Equal(t, r1, r2)
		require.NotNil(t, r2)
		assert.Equal(t, `{"k":"v"}`, r2.Title)
		assert.Equal(t, `{"k":"v"}`, string(buf))
	})

	t.Run("the fallback does not alias the caller's buffer", func(t *testing.T) {
		rt := runtime.New()
		mustRegister(t, rt, echo())
		buf := []byte(`{"k":"v"}`)
		in := runtime.ExecutionInput{CallID: "c1", Name: "echo", Arguments: buf}
		view := rt.PresentCall(in)
		copy(buf, `{"k":"w"}`) // the caller reuses its buffer
		assert.Equal(t, `{"k":"v"}`, view.RawInput.String())
	})

	t.Run("the calling agent's definition presents", func(t *testing.T) {
		rt := runtime.New()
		presented := func(who string) runtime.ToolDefinition {
			def := echo()
			def.PresentCall = func(jsonvalue.Value) *runtime.ToolCallView {
				return &runtime.ToolCallView{Card: runtime.CallGeneric, Title: who}
			}
			def.PresentResult = func(jsonvalue.Value, runtime.ToolResult) *runtime.ToolResultView {
				return &runtime.ToolResultView{Card: runtime.ResultGeneric, Title: who}
			}
			return def
		}
		mustRegister(t, rt, presented("global"))
		dispose := mustRegister(t, rt.Scope(a), presented("A"))
		res := runtime.Success(jsonvalue.Value(`{}`), []runtime.ContentBlock{runtime.Text("{}")}).Durable()
		for _, tc := range []struct {
			agent *runtime.Agent
			want  string
		}{{nil, "global"}, {a, "A"}, {b, "A"}, {c, "global"}} {
			in := call("echo", `{}`, tc.agent)
			assert.Equal(t, tc.want, rt.PresentCall(in).Title, "agent %v", tc.agent)
			v := rt.PresentResult(in, res)
			require.NotNil(t, v)
			assert.Equal(t, tc.want, v.Title, "agent %v", tc.agent)
		}
		dispose()
		assert.Equal(t, "global", rt.PresentCall(call("echo", `{}`, a)).Title, "after disposal A sees the global tool")

		// A tool restricted away from C presents as the generic fallback.
		_, err := rt.Scope(c).Restrict(runtime.Restriction{Deny: []string{"echo"}})
		require.NoError(t, err)
		in := call("echo", `{}`, c)
		assert.Equal(t, runtime.ToolCallView{Card: runtime.CallGeneric, Title: "echo", RawInput: jsonvalue.Value(`{}`)}, rt.PresentCall(in))
		assert.Nil(t, rt.PresentResult(in, res))
	})
}

func TestPresentGolden(t *testing.T) {
	dir := filepath.Join("testdata", "views")
	if presentUpdate() {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	for _, v := range presVariants() {
		t.Run(v.name, func(t *testing.T) {
			data, err := json.Marshal(v.view())
			require.NoError(t, err)
			var pretty bytes.Buffer
			require.NoError(t, json.Indent(&pretty, data, "", "  "))
			pretty.WriteByte('\n')
			path := filepath.Join(dir, v.name+".json")
			if presentUpdate() {
				require.NoError(t, os.WriteFile(path, pretty.Bytes(), 0o644))
			}
			golden, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -run TestPresentGolden ./runtime/ -update")
			assert.Equal(t, string(golden), pretty.String())

			// The golden file decodes to the same view.
			var back any
			if v.call != nil {
				var out runtime.ToolCallView
				require.NoError(t, json.Unmarshal(golden, &out))
				back = out
			} else {
				var out runtime.ToolResultView
				require.NoError(t, json.Unmarshal(golden, &out))
				back = out
			}
			assert.Equal(t, v.view(), back)
		})
	}
}

func TestPresentStrictDecoding(t *testing.T) {
	calls := []struct {
		name, json string
	}{
		{"unknown card", `{"card":"search","title":"t"}`},
		{"empty card", `{"card":"","title":"t"}`},
		{"missing card", `{"title":"t"}`},
		{"unknown field", `{"card":"generic","title":"t","extra":1}`},
		{"field name in another case", `{"card":"generic","Title":"t"}`},
		{"card key in another case", `{"Card":"generic","title":"t"}`},
		{"duplicate field", `{"card":"generic","title":"a","title":"b"}`},
		{"wrong type", `{"card":"generic","title":1}`},
		{"not an object", `["generic"]`},
		{"null", `null`},
		{"field of the terminal card on generic", `{"card":"generic","title":"t","cwd":"/"}`},
		{"field of the generic card on terminal", `{"card":"terminal","title":"t","kind":"read"}`},
		{"empty field of the generic card on terminal", `{"card":"terminal","title":"t","kind":""}`},
		{"field of the diff card on terminal", `{"card":"terminal","title":"t","diffs":[]}`},
		{"rawInput on diff", `{"card":"diff","title":"t","diffs":[],"rawInput":{}}`},
		{"description on diff", `{"card":"diff","title":"t","diffs":[],"description":"d"}`},
		{"invalid content block", `{"card":"generic","title":"t","content":[{"type":"text","text":"a","data":"b"}]}`},
		{"unknown kind", `{"card":"generic","title":"t","kind":"write"}`},
		{"missing title on generic", `{"card":"generic"}`},
		{"missing title on terminal", `{"card":"terminal"}`},
		{"missing title on diff", `{"card":"diff","diffs":[]}`},
		{"missing diffs on diff", `{"card":"diff","title":"t"}`},
		{"missing oldText", `{"card":"diff","title":"t","diffs":[{"path":"a","newText":"b"}]}`},
		{"missing newText", `{"card":"diff","title":"t","diffs":[{"path":"a","oldText":null}]}`},
		{"missing diff path", `{"card":"diff","title":"t","diffs":[{"oldText":null,"newText":"b"}]}`},
		{"missing location path", `{"card":"generic","title":"t","locations":[{"line":1}]}`},
		{"unknown diff field", `{"card":"diff","title":"t","diffs":[{"path":"a","oldText":null,"newText":"b","mode":"0644"}]}`},
	}
	for _, tc := range calls {
		t.Run("call/"+tc.name, func(t *testing.T) {
			before := runtime.ToolCallView{Card: runtime.CallTerminal, Title: "kept"}
			v := before
			if assert.Error(t, json.Unmarshal([]byte(tc.json), &v), tc.json) {
				assert.Equal(t, before, v, "a failed decode changes nothing")
			}
		})
	}

	results := []struct {
		name, json string
	}{
		{"unknown card", `{"card":"bogus"}`},
		{"missing card", `{"title":"t"}`},
		{"unknown field", `{"card":"generic","extra":1}`},
		{"field name in another case", `{"card":"terminal","ExitCode":1}`},
		{"card key in another case", `{"Card":"generic"}`},
		{"duplicate field", `{"card":"generic","title":"a","title":"b"}`},
		{"not an object", `[]`},
		{"null", `null`},
		{"field of the terminal card on generic", `{"card":"generic","exitCode":0}`},
		{"field of the diff card on terminal", `{"card":"terminal","diffs":[]}`},
		{"field of the search card on read", `{"card":"read","path":"a","offset":1,"lines":[],"totalLines":1,"shape":"paths"}`},
		{"field of the read card on web", `{"card":"web","kind":"fetch","url":"u","statusCode":200,"truncated":false,"path":"a"}`},
		{"paths on shape matches", `{"card":"search","shape":"matches","truncated":false,"total":0,"matches":[],"paths":[]}`},
		{"matches on shape paths", `{"card":"search","shape":"paths","truncated":false,"total":0,"paths":[],"matches":[]}`},
		{"sources on fetch", `{"card":"web","kind":"fetch","url":"u","statusCode":200,"truncated":false,"sources":[]}`},
		{"url on web search", `{"card":"web","kind":"search","sources":[],"truncated":false,"url":"u"}`},
		{"unknown shape", `{"card":"search","shape":"tree","truncated":false,"total":0}`},
		{"unknown web kind", `{"card":"web","kind":"crawl","truncated":false}`},
		{"invalid content block", `{"card":"generic","content":[{"type":"video"}]}`},
		{"zero offset", `{"card":"read","path":"a","offset":0,"lines":[],"totalLines":1}`},
		{"missing diffs", `{"card":"diff"}`},
		{"missing shape", `{"card":"search","truncated":false,"total":0,"matches":[]}`},
		{"missing truncated on search", `{"card":"search","shape":"matches","total":0,"matches":[]}`},
		{"missing total", `{"card":"search","shape":"matches","truncated":false,"matches":[]}`},
		{"missing path on read", `{"card":"read","offset":1,"lines":[],"totalLines":1}`},
		{"missing offset", `{"card":"read","path":"a","lines":[],"totalLines":1}`},
		{"missing lines", `{"card":"read","path":"a","offset":1,"totalLines":1}`},
		{"missing totalLines", `{"card":"read","path":"a","offset":1,"lines":[]}`},
		{"missing line number", `{"card":"read","path":"a","offset":1,"lines":[{"text":"x"}],"totalLines":1}`},
		{"missing line text", `{"card":"read","path":"a","offset":1,"lines":[{"number":1}],"totalLines":1}`},
		{"missing web kind", `{"card":"web","truncated":false}`},
		{"missing truncated on web", `{"card":"web","kind":"fetch","url":"u","statusCode":200}`},
		{"missing url on fetch", `{"card":"web","kind":"fetch","statusCode":200,"truncated":false}`},
		{"missing statusCode on fetch", `{"card":"web","kind":"fetch","url":"u","truncated":false}`},
		{"missing sources on web search", `{"card":"web","kind":"search","truncated":false}`},
		{"missing oldText in a result diff", `{"card":"diff","diffs":[{"path":"a","newText":"b"}]}`},
	}
	for _, tc := range results {
		t.Run("result/"+tc.name, func(t *testing.T) {
			before := runtime.ToolResultView{Card: runtime.ResultGeneric, Title: "kept"}
			v := before
			if assert.Error(t, json.Unmarshal([]byte(tc.json), &v), tc.json) {
				assert.Equal(t, before, v, "a failed decode changes nothing")
			}
		})
	}

	t.Run("trailing data", func(t *testing.T) {
		var c runtime.ToolCallView
		assert.Error(t, c.UnmarshalJSON([]byte(`{"card":"generic","title":"t"} {}`)))
		var r runtime.ToolResultView
		assert.Error(t, r.UnmarshalJSON([]byte(`{"card":"generic"} {}`)))
	})

	t.Run("controls: the minimal cards decode", func(t *testing.T) {
		for _, data := range []string{
			`{"card":"generic","title":"t"}`,
			`{"card":"terminal","title":"t"}`,
			`{"card":"diff","title":"t","diffs":[]}`,
		} {
			var v runtime.ToolCallView
			assert.NoError(t, json.Unmarshal([]byte(data), &v), data)
		}
		for _, data := range []string{
			`{"card":"generic"}`,
			`{"card":"terminal"}`,
			`{"card":"diff","diffs":[]}`,
			`{"card":"search","shape":"matches","truncated":false,"total":0,"matches":[]}`,
			`{"card":"search","shape":"paths","truncated":false,"total":0,"paths":[]}`,
			`{"card":"read","path":"a","offset":1,"lines":[],"totalLines":0}`,
			`{"card":"web","kind":"search","sources":[],"truncated":false}`,
			`{"card":"web","kind":"fetch","url":"u","statusCode":200,"truncated":false}`,
		} {
			var v runtime.ToolResultView
			assert.NoError(t, json.Unmarshal([]byte(data), &v), data)
		}
	})
}

func TestPresentCheckErrors(t *testing.T) {
	bad := runtime.ContentBlock{Type: "video"}
	calls := []struct {
		name string
		view runtime.ToolCallView
	}{
		{"unknown card", runtime.ToolCallView{Card: "search", Title: "t"}},
		{"zero card", runtime.ToolCallView{Title: "t"}},
		{"description on generic", runtime.ToolCallView{Card: runtime.CallGeneric, Description: "d"}},
		{"cwd on generic", runtime.ToolCallView{Card: runtime.CallGeneric, Cwd: "/"}},
		{"diffs on generic", runtime.ToolCallView{Card: runtime.CallGeneric, Diffs: []runtime.FileDiff{}}},
		{"unknown kind", runtime.ToolCallView{Card: runtime.CallGeneric, Kind: "write"}},
		{"invalid content", runtime.ToolCallView{Card: runtime.CallGeneric, Content: []runtime.ContentBlock{bad}}},
		{"kind on terminal", runtime.ToolCallView{Card: runtime.CallTerminal, Kind: runtime.KindExecute}},
		{"rawInput on terminal", runtime.ToolCallView{Card: runtime.CallTerminal, RawInput: jsonvalue.Value(`{}`)}},
		{"content on terminal", runtime.ToolCallView{Card: runtime.CallTerminal, Content: []runtime.ContentBlock{runtime.Text("x")}}},
		{"locations on terminal", runtime.ToolCallView{Card: runtime.CallTerminal, Locations: []runtime.FileLocation{{Path: "a"}}}},
		{"diffs on terminal", runtime.ToolCallView{Card: runtime.CallTerminal, Diffs: []runtime.FileDiff{}}},
		{"diff without diffs", runtime.ToolCallView{Card: runtime.CallDiff, Title: "t"}},
		{"kind on diff", runtime.ToolCallView{Card: runtime.CallDiff, Diffs: []runtime.FileDiff{}, Kind: runtime.KindEdit}},
		{"rawInput on diff", runtime.ToolCallView{Card: runtime.CallDiff, Diffs: []runtime.FileDiff{}, RawInput: jsonvalue.Value(`{}`)}},
		{"content on diff", runtime.ToolCallView{Card: runtime.CallDiff, Diffs: []runtime.FileDiff{}, Content: []runtime.ContentBlock{}}},
		{"description on diff", runtime.ToolCallView{Card: runtime.CallDiff, Diffs: []runtime.FileDiff{}, Description: "d"}},
		{"cwd on diff", runtime.ToolCallView{Card: runtime.CallDiff, Diffs: []runtime.FileDiff{}, Cwd: "/"}},
	}
	for _, tc := range calls {
		t.Run("call/"+tc.name, func(t *testing.T) {
			assert.Error(t, tc.view.Check())
			_, err := json.Marshal(tc.view)
			assert.Error(t, err, "an invalid card does not marshal")
		})
	}

	results := []struct {
		name string
		view runtime.ToolResultView
	}{
		{"unknown card", runtime.ToolResultView{Card: "bogus"}},
		{"zero card", runtime.ToolResultView{}},
		{"output on generic", runtime.ToolResultView{Card: runtime.ResultGeneric, Output: presStr("")}},
		{"invalid content", runtime.ToolResultView{Card: runtime.ResultGeneric, Content: []runtime.ContentBlock{bad}}},
		{"content on terminal", runtime.ToolResultView{Card: runtime.ResultTerminal, Content: []runtime.ContentBlock{}}},
		{"truncated on terminal", runtime.ToolResultView{Card: runtime.ResultTerminal, Truncated: true}},
		{"diff without diffs", runtime.ToolResultView{Card: runtime.ResultDiff}},
		{"exitCode on diff", runtime.ToolResultView{Card: runtime.ResultDiff, Diffs: []runtime.FileDiff{}, ExitCode: presInt(1)}},
		{"search without shape", runtime.ToolResultView{Card: runtime.ResultSearch}},
		{"unknown shape", runtime.ToolResultView{Card: runtime.ResultSearch, Shape: "tree"}},
		{"paths on shape matches", runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapeMatches, Paths: []string{"a"}}},
		{"matches on shape paths", runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapePaths, Files: []runtime.SearchFile{}}},
		{"path on search", runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapePaths, Path: "a"}},
		{"read without path", runtime.ToolResultView{Card: runtime.ResultRead, Offset: 1}},
		{"read with offset 0", runtime.ToolResultView{Card: runtime.ResultRead, Path: "a"}},
		{"read with a negative offset", runtime.ToolResultView{Card: runtime.ResultRead, Path: "a", Offset: -1}},
		{"shape on read", runtime.ToolResultView{Card: runtime.ResultRead, Path: "a", Offset: 1, Shape: runtime.ShapePaths}},
		{"truncated on read", runtime.ToolResultView{Card: runtime.ResultRead, Path: "a", Offset: 1, Truncated: true}},
		{"web without kind", runtime.ToolResultView{Card: runtime.ResultWeb}},
		{"unknown web kind", runtime.ToolResultView{Card: runtime.ResultWeb, Web: "crawl"}},
		{"url on web search", runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebSearch, URL: "u"}},
		{"statusCode on web search", runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebSearch, StatusCode: 200}},
		{"sources on fetch", runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, URL: "u", Sources: []runtime.WebSource{}}},
		{"answer on fetch", runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, URL: "u", Answer: "a"}},
		{"fetch without url", runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, StatusCode: 200}},
		{"total on web", runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, URL: "u", Total: 1}},
	}
	for _, tc := range results {
		t.Run("result/"+tc.name, func(t *testing.T) {
			assert.Error(t, tc.view.Check())
			_, err := json.Marshal(tc.view)
			assert.Error(t, err, "an invalid card does not marshal")
		})
	}

	t.Run("every golden variant is valid", func(t *testing.T) {
		for _, v := range presVariants() {
			if v.call != nil {
				assert.NoError(t, v.call.Check(), v.name)
			} else {
				assert.NoError(t, v.result.Check(), v.name)
			}
		}
	})
}

func TestPresentCallLine(t *testing.T) {
	long := jsonvalue.String(strings.Repeat("é", 100))
	tests := []struct {
		name string
		tool string
		view *runtime.ToolCallView
		want string
	}{
		{"nil view", "echo", nil, "▸ echo"},
		{"generic with raw input", "echo", &runtime.ToolCallView{Card: runtime.CallGeneric, Title: "echo", RawInput: jsonvalue.Value(`{"a":1}`)}, `▸ echo {"a":1}`},
		{"generic without title", "echo", &runtime.ToolCallView{Card: runtime.CallGeneric}, "▸ echo"},
		{"generic with kind and locations", "read", &runtime.ToolCallView{
			Card: runtime.CallGeneric, Title: "Read", Kind: runtime.KindRead, RawInput: jsonvalue.Value(`{"a":1}`),
			Locations: []runtime.FileLocation{{Path: "main.go", Line: 3}, {Path: "go.mod"}},
		}, "▸ Read [read] main.go:3, go.mod"},
		{"terminal", "bash", &runtime.ToolCallView{Card: runtime.CallTerminal, Title: "go test ./...", Cwd: "/work", Description: "Run the tests"}, "$ go test ./...  (in /work)  # Run the tests"},
		{"terminal without extras", "bash", &runtime.ToolCallView{Card: runtime.CallTerminal, Title: "ls"}, "$ ls"},
		{"diff", "edit", &runtime.ToolCallView{Card: runtime.CallDiff, Title: "Edit", Diffs: []runtime.FileDiff{
			runtime.ChangeFileDiff("main.go", "a", "b"), runtime.NewFileDiff("new.go", "x"),
		}}, "✎ Edit: main.go, new.go (new)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := runtime.CallLine(tc.tool, tc.view)
			assert.Equal(t, tc.want, got)
			assert.NotContains(t, got, "\n", "one line")
		})
	}

	t.Run("long raw input is clipped on a rune boundary", func(t *testing.T) {
		got := runtime.CallLine("echo", &runtime.ToolCallView{Card: runtime.CallGeneric, Title: "echo", RawInput: long})
		assert.True(t, utf8.ValidString(got), "%q", got)
		assert.True(t, strings.HasSuffix(got, "…"), got)
		assert.True(t, strings.HasPrefix(got, `▸ echo "éé`), got)
		assert.Less(t, len(got), len(long.String()))
		assert.LessOrEqual(t, len(strings.TrimPrefix(got, "▸ echo ")), 120+len("…"))
	})
}

// presFenced returns the body of the first fenced code block of text whose
// opening fence has the info string info, per CommonMark: the block closes
// at the first line of at least as many backticks and nothing else.
func presFenced(text, info string) (body string, ok bool) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		ticks := len(l) - len(strings.TrimLeft(l, "`"))
		if ticks < 3 || strings.TrimSpace(l[ticks:]) != info {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			c := strings.TrimRight(lines[j], " ")
			if n := len(c) - len(strings.TrimLeft(c, "`")); n >= ticks && n == len(c) {
				return strings.Join(lines[i+1:j], "\n"), true
			}
		}
		return "", false
	}
	return "", false
}

func TestPresentResultText(t *testing.T) {
	okRes := runtime.Success(jsonvalue.Value(`{}`), []runtime.ContentBlock{runtime.Text("raw one"), runtime.Text("raw two")}).Durable()
	failed := runtime.Fail(runtime.CodeToolError, "it broke").Durable()
	exit0, exit2 := presInt(0), presInt(2)
	tests := []struct {
		name string
		view *runtime.ToolResultView
		res  runtime.ToolResult
		want string
	}{
		{"nil view shows the raw content", nil, okRes, "raw one\nraw two"},
		{"nil view of an image", nil, runtime.Success(jsonvalue.Value(`1`), []runtime.ContentBlock{runtime.Image([]byte{1}, "image/png")}).Durable(), "[image image/png]"},
		{"nil view of a failure", nil, failed, "error TOOL_ERROR: it broke"},
		{"terminal", &runtime.ToolResultView{Card: runtime.ResultTerminal, Title: "go test", Output: presStr("ok\n"), ExitCode: exit0}, okRes,
			"go test\n```console\nok\n```\nexit status 0"},
		{"terminal without trailing newline", &runtime.ToolResultView{Card: runtime.ResultTerminal, Output: presStr("FAIL"), ExitCode: exit2}, okRes,
			"```console\nFAIL\n```\nexit status 2"},
		{"terminal killed", &runtime.ToolResultView{Card: runtime.ResultTerminal, Output: presStr("partial\n"), Signal: "SIGKILL"}, okRes,
			"```console\npartial\n```\nkilled by SIGKILL"},
		{"terminal of a failure", &runtime.ToolResultView{Card: runtime.ResultTerminal, Output: presStr("boom\n"), ExitCode: exit2}, failed,
			"error TOOL_ERROR: ```console\nboom\n```\nexit status 2"},
		{"generic with content", &runtime.ToolResultView{Card: runtime.ResultGeneric, Title: "Done", Content: []runtime.ContentBlock{runtime.Text("view")}}, okRes, "Done\nview"},
		{"generic without content shows the raw content", &runtime.ToolResultView{Card: runtime.ResultGeneric, Title: "Done"}, okRes, "Done\nraw one\nraw two"},
		{"diff", &runtime.ToolResultView{Card: runtime.ResultDiff, Title: "Edit", Diffs: []runtime.FileDiff{
			runtime.ChangeFileDiff("main.go", "a\n", "b\nc\n"), runtime.NewFileDiff("new.go", "x\ny\nz\n"),
		}}, okRes, "Edit\n~~~ main.go (1 → 2 lines)\n+++ new.go (new file, 3 lines)"},
		{"search matches", &runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapeMatches, Title: "grep foo", Truncated: true, Total: 7,
			Files: []runtime.SearchFile{{Path: "a.go", Matches: []runtime.SearchMatch{{Line: 3, Text: "foo()"}, {Line: 9, Text: "foo := 1"}}}}}, okRes,
			"grep foo\n7 matches in 1 files (truncated)\na.go:3: foo()\na.go:9: foo := 1"},
		{"search paths", &runtime.ToolResultView{Card: runtime.ResultSearch, Shape: runtime.ShapePaths, Total: 2, Paths: []string{"a.go", "b/c.go"}}, okRes,
			"2 paths\na.go\nb/c.go"},
		{"read", &runtime.ToolResultView{Card: runtime.ResultRead, Path: "main.go", Offset: 9, TotalLines: 40,
			Lines: []runtime.ReadFileLine{{Number: 9, Text: "x"}, {Number: 10, Text: "func main() {"}, {Number: 11, Text: "}"}}}, okRes,
			"main.go: lines 9-11 of 40\n 9│ x\n10│ func main() {\n11│ }"},
		{"web search", &runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebSearch, Title: "golang",
			Sources: []runtime.WebSource{{Title: "Go", URL: "https://go.dev"}, {URL: "https://pkg.go.dev"}}, Answer: "Go is a language."}, okRes,
			"golang\n- Go https://go.dev\n- https://pkg.go.dev\nGo is a language."},
		{"web fetch", &runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, URL: "https://example.com", StatusCode: 200}, okRes,
			"GET https://example.com → 200"},
		{"web fetch truncated", &runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, URL: "https://example.com", StatusCode: 200, Truncated: true}, okRes,
			"GET https://example.com → 200 (truncated)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.view != nil {
				require.NoError(t, tc.view.Check(), "the fixture is a valid card")
			}
			assert.Equal(t, tc.want, runtime.ResultText(tc.view, tc.res))
		})
	}

	t.Run("the terminal block is a fenced console block", func(t *testing.T) {
		for _, output := range []string{"ok\n", "line 1\nline 2", "```go\nfmt.Println()\n```\n", "a\n````\nb\n"} {
			view := &runtime.ToolResultView{Card: runtime.ResultTerminal, Output: presStr(output), ExitCode: exit0}
			got := runtime.ResultText(view, okRes)
			body, ok := presFenced(got, "console")
			require.True(t, ok, "no closed console fence in %q", got)
			assert.Equal(t, strings.TrimSuffix(output, "\n"), body, "the fence holds exactly the output: %q", got)
			assert.True(t, strings.HasSuffix(got, "exit status 0"), got)
		}
	})

	t.Run("an empty read window claims no lines", func(t *testing.T) {
		view := &runtime.ToolResultView{Card: runtime.ResultRead, Path: "short.txt", Offset: 5, Lines: []runtime.ReadFileLine{}, TotalLines: 3}
		got := runtime.ResultText(view, okRes)
		assert.Contains(t, got, "short.txt")
		assert.NotContains(t, got, "lines 5-5", "line 5 is not shown: the file has 3 lines")
	})

	t.Run("errors carry their code", func(t *testing.T) {
		res := runtime.Fail(runtime.CodeDenied, "no").Durable()
		assert.Equal(t, "error DENIED: no", runtime.ResultText(nil, res))
		res.Error = nil
		assert.Equal(t, "error: no", runtime.ResultText(nil, res))
	})
}
