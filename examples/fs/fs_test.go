package fs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolgen-go/toolgen/examples/fs"
	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tree writes files (path → content, slash-separated) under a new
// temporary directory and returns it, with its symbolic links evaluated.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

// newRuntime returns a Runtime with New(root)'s definitions registered,
// each passed through wrap first when it is not nil. A card a presenter
// returns that fails its Check fails the test (the runtime reports it
// through its error handler).
func newRuntime(t *testing.T, root string, wrap func(*runtime.ToolDefinition)) *runtime.Runtime {
	t.Helper()
	rt := runtime.New(runtime.WithErrorHandler(func(err error) { t.Errorf("runtime error: %v", err) }))
	defs, err := fs.New(root)
	require.NoError(t, err)
	require.Len(t, defs, 5)
	for _, def := range defs {
		if wrap != nil {
			wrap(&def)
		}
		_, err := rt.Register(def)
		require.NoError(t, err, def.Name)
	}
	return rt
}

// input builds the ExecutionInput of a call.
func input(name, args string) runtime.ExecutionInput {
	return runtime.ExecutionInput{CallID: "call-1", Name: name, Arguments: []byte(args)}
}

// execute runs one call through the runtime and checks the result's
// invariants.
func execute(t *testing.T, rt *runtime.Runtime, ctx context.Context, name, args string) runtime.Result {
	t.Helper()
	res := rt.Execute(ctx, input(name, args))
	require.NoError(t, res.Check())
	return res
}

// succeed runs one call that must succeed and decodes its value into out.
func succeed(t *testing.T, rt *runtime.Runtime, name, args string, out any) runtime.Result {
	t.Helper()
	res := execute(t, rt, context.Background(), name, args)
	require.False(t, res.IsError(), "%s %s: %+v", name, args, res.Failure)
	require.NoError(t, json.Unmarshal(res.Value, out))
	return res
}

// fail runs one call that must fail with code and returns its message.
func fail(t *testing.T, rt *runtime.Runtime, name, args string, code runtime.ErrorCode) string {
	t.Helper()
	res := execute(t, rt, context.Background(), name, args)
	require.True(t, res.IsError(), "%s %s: want %s, got value %s", name, args, code, res.Value)
	require.Equal(t, code, res.Code(), res.Failure.Message)
	return res.Failure.Message
}

// args encodes v as JSON call arguments.
func args(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// cardJSON returns the JSON of a card.
func cardJSON(t *testing.T, v interface{ MarshalJSON() ([]byte, error) }) string {
	t.Helper()
	b, err := v.MarshalJSON()
	require.NoError(t, err)
	return string(b)
}

// resultCard returns the checked completed card of a call.
func resultCard(t *testing.T, rt *runtime.Runtime, name, argsJSON string, res runtime.Result) *runtime.ToolResultView {
	t.Helper()
	v := rt.PresentResult(input(name, argsJSON), res.Durable())
	require.NotNil(t, v, "%s has no result card", name)
	require.NoError(t, v.Check())
	return v
}

// callCard returns the checked pending card of a call.
func callCard(t *testing.T, rt *runtime.Runtime, name, argsJSON string) runtime.ToolCallView {
	t.Helper()
	v := rt.PresentCall(input(name, argsJSON))
	require.NoError(t, v.Check())
	return v
}

func TestNew(t *testing.T) {
	dir := tree(t, map[string]string{"file.txt": "x\n"})
	_, err := fs.New(filepath.Join(dir, "file.txt"))
	assert.ErrorContains(t, err, "not a directory")
	_, err = fs.New(filepath.Join(dir, "missing"))
	assert.Error(t, err)

	// A root reached through a symbolic link is resolved once: paths
	// under the link's target are inside it.
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(dir, link))
	rt := newRuntime(t, link, nil)
	var out fs.ReadFileResult
	succeed(t, rt, "read_file", args(t, map[string]any{"path": filepath.Join(dir, "file.txt")}), &out)
	assert.Equal(t, "file.txt", out.Path)
}

func TestToolsWithoutRootFail(t *testing.T) {
	rt := runtime.New()
	for _, def := range fs.Tools() {
		_, err := rt.Register(def)
		require.NoError(t, err)
	}
	msg := fail(t, rt, "read_file", `{"path":"x"}`, fs.CodeNoRoot)
	assert.Contains(t, msg, "fs.New")
	fail(t, rt, "glob", `{"pattern":"*"}`, fs.CodeNoRoot)
}

func TestExecutionModes(t *testing.T) {
	rt := newRuntime(t, tree(t, nil), nil)
	for name, want := range map[string]runtime.ExecutionMode{
		"read_file": runtime.Parallel, "grep": runtime.Parallel, "glob": runtime.Parallel,
		"write_file": runtime.Exclusive, "edit_file": runtime.Exclusive,
	} {
		a := `{"path":"a","pattern":"x","content":"","edits":[{"old_text":"a","new_text":"b"}]}`
		assert.Equal(t, want, rt.ExecutionMode(input(name, a)), name)
	}
}

func TestReadFile(t *testing.T) {
	dir := tree(t, map[string]string{
		"five.txt":    "one\ntwo\nthree\nfour\nfive\n",
		"nolf.txt":    "a\nb",
		"empty.txt":   "",
		"crlf.txt":    "a\r\nb\r\n",
		"blank.txt":   "\n\n",
		"sub/deep.go": "package sub\n",
		"bad.txt":     "ok\xff\n",
	})
	rt := newRuntime(t, dir, nil)
	tests := []struct {
		name      string
		args      map[string]any
		path      string
		offset    int
		lines     []string
		total     int
		truncated bool
	}{
		{"whole file", map[string]any{"path": "five.txt"}, "five.txt", 1, []string{"one", "two", "three", "four", "five"}, 5, false},
		{"offset and limit", map[string]any{"path": "five.txt", "offset": 2, "limit": 2}, "five.txt", 2, []string{"two", "three"}, 5, true},
		{"window ends at the last line", map[string]any{"path": "five.txt", "offset": 4, "limit": 2}, "five.txt", 4, []string{"four", "five"}, 5, false},
		{"limit past the end", map[string]any{"path": "five.txt", "offset": 4, "limit": 100}, "five.txt", 4, []string{"four", "five"}, 5, false},
		{"first line only", map[string]any{"path": "five.txt", "limit": 1}, "five.txt", 1, []string{"one"}, 5, true},
		{"offset 0 is the first line", map[string]any{"path": "five.txt", "offset": 0, "limit": 1}, "five.txt", 1, []string{"one"}, 5, true},
		{"last line", map[string]any{"path": "five.txt", "offset": 5}, "five.txt", 5, []string{"five"}, 5, false},
		{"offset past the end", map[string]any{"path": "five.txt", "offset": 9}, "five.txt", 9, []string{}, 5, false},
		{"last line without line feed", map[string]any{"path": "nolf.txt"}, "nolf.txt", 1, []string{"a", "b"}, 2, false},
		{"empty file", map[string]any{"path": "empty.txt"}, "empty.txt", 1, []string{}, 0, false},
		{"CRLF keeps the carriage return", map[string]any{"path": "crlf.txt"}, "crlf.txt", 1, []string{"a\r", "b\r"}, 2, false},
		{"empty lines", map[string]any{"path": "blank.txt"}, "blank.txt", 1, []string{"", ""}, 2, false},
		{"cleaned relative path", map[string]any{"path": "./sub/../sub/deep.go"}, "sub/deep.go", 1, []string{"package sub"}, 1, false},
		{"absolute path inside", map[string]any{"path": filepath.Join(dir, "sub", "deep.go")}, "sub/deep.go", 1, []string{"package sub"}, 1, false},
		{"invalid UTF-8", map[string]any{"path": "bad.txt"}, "bad.txt", 1, []string{"ok\uFFFD"}, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out fs.ReadFileResult
			succeed(t, rt, "read_file", args(t, tt.args), &out)
			assert.Equal(t, fs.ReadFileResult{Path: tt.path, Offset: tt.offset, Lines: tt.lines, TotalLines: tt.total, Truncated: tt.truncated}, out)
		})
	}
}

func TestReadFileLongFile(t *testing.T) {
	// More lines than the default limit, and a line longer than the
	// reader's buffer.
	var b strings.Builder
	for i := 1; i <= fs.DefaultReadLimit+10; i++ {
		if i == 3 {
			b.WriteString(strings.Repeat("x", 100_000) + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	rt := newRuntime(t, tree(t, map[string]string{"long.txt": b.String()}), nil)
	var out fs.ReadFileResult
	succeed(t, rt, "read_file", `{"path":"long.txt"}`, &out)
	assert.Len(t, out.Lines, fs.DefaultReadLimit)
	assert.Equal(t, fs.DefaultReadLimit+10, out.TotalLines)
	assert.True(t, out.Truncated)
	assert.Equal(t, strings.Repeat("x", 100_000), out.Lines[2])
	assert.Equal(t, "line 2000", out.Lines[1999])

	succeed(t, rt, "read_file", fmt.Sprintf(`{"path":"long.txt","offset":%d}`, fs.DefaultReadLimit+1), &out)
	assert.Equal(t, []string{"line 2001", "line 2002", "line 2003", "line 2004", "line 2005", "line 2006", "line 2007", "line 2008", "line 2009", "line 2010"}, out.Lines)
	assert.False(t, out.Truncated)
}

func TestReadFileErrors(t *testing.T) {
	dir := tree(t, map[string]string{"sub/a.txt": "a\n", "bin.dat": "PK\x00\x01rest", "file.txt": "x"})
	rt := newRuntime(t, dir, nil)
	tests := []struct {
		name string
		args string
		code runtime.ErrorCode
	}{
		{"missing file", `{"path":"nope.txt"}`, fs.CodeNotFound},
		{"directory", `{"path":"sub"}`, fs.CodeNotFile},
		{"the root itself", `{"path":"."}`, fs.CodeNotFile},
		{"binary file", `{"path":"bin.dat"}`, fs.CodeNotText},
		{"through a file", `{"path":"file.txt/x"}`, fs.CodeNotDirectory},
		{"empty path", `{"path":""}`, runtime.CodeInvalidArgs},
		{"negative offset", `{"path":"sub/a.txt","offset":-1}`, runtime.CodeInvalidArgs},
		{"negative limit", `{"path":"sub/a.txt","limit":-1}`, runtime.CodeInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { fail(t, rt, "read_file", tt.args, tt.code) })
	}
}

func TestBadArguments(t *testing.T) {
	rt := newRuntime(t, tree(t, map[string]string{"a.txt": "a\n"}), nil)
	tests := []struct {
		tool, args string
	}{
		{"read_file", `{}`},
		{"read_file", `{"path":7}`},
		{"read_file", `{"path":null}`},
		{"read_file", `{"path":"a.txt","offset":"2"}`},
		{"read_file", `{"path":"a.txt","offset":1.5}`},
		{"read_file", `[]`},
		{"read_file", `{"path":"a.txt"`},
		{"write_file", `{"path":"a.txt"}`},
		{"write_file", `{"path":"a.txt","content":["x"]}`},
		{"edit_file", `{"path":"a.txt"}`},
		{"edit_file", `{"path":"a.txt","edits":{}}`},
		{"edit_file", `{"path":"a.txt","edits":[{"old_text":"a"}]}`},
		{"edit_file", `{"path":"a.txt","edits":[{"old_text":"a","new_text":"b","extra":1}]}`},
		{"edit_file", `{"path":"a.txt","edits":[]}`},
		{"edit_file", `{"path":"a.txt","edits":[{"old_text":"","new_text":"b"}]}`},
		{"edit_file", `{"path":"a.txt","edits":[{"old_text":"a","new_text":"a"}]}`},
		{"grep", `{}`},
		{"grep", `{"pattern":"("}`},
		{"grep", `{"pattern":""}`},
		{"grep", `{"pattern":"a","glob":"[" }`},
		{"grep", `{"pattern":"a","max_results":-1}`},
		{"grep", `{"pattern":"a","case_insensitive":"yes"}`},
		{"glob", `{}`},
		{"glob", `{"pattern":""}`},
		{"glob", `{"pattern":"a/["}`},
		{"glob", `{"pattern":"/abs/*"}`},
		{"glob", `{"pattern":"../*"}`},
		{"glob", `{"pattern":"*","max_results":-5}`},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) { fail(t, rt, tt.tool, tt.args, runtime.CodeInvalidArgs) })
	}
	// Unknown top-level arguments are ignored.
	var out fs.ReadFileResult
	succeed(t, rt, "read_file", `{"path":"a.txt","extra":true}`, &out)
	assert.Equal(t, []string{"a"}, out.Lines)
}

func TestPathEscapesAreRefused(t *testing.T) {
	outside := tree(t, map[string]string{"secret.txt": "secret\n", "dir/x.txt": "x\n"})
	dir := tree(t, map[string]string{"in.txt": "in\n", "sub/a.txt": "a\n"})
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "file-link")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "dir"), filepath.Join(dir, "dir-link")))
	require.NoError(t, os.Symlink("../"+filepath.Base(outside), filepath.Join(dir, "rel-link")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "new.txt"), filepath.Join(dir, "dangling")))
	rt := newRuntime(t, dir, nil)

	escapes := []string{
		"..",
		"../x",
		"sub/../../x",
		"../" + filepath.Base(dir) + "x/in.txt",
		filepath.Join(outside, "secret.txt"),
		"/",
		"file-link",
		"dir-link/x.txt",
		"dir-link/new/y.txt",
		"rel-link/secret.txt",
	}
	for _, p := range escapes {
		t.Run(p, func(t *testing.T) {
			msg := fail(t, rt, "read_file", args(t, map[string]any{"path": p}), fs.CodeOutsideRoot)
			assert.Equal(t, fmt.Sprintf("fs: path %q is outside the root", p), msg)
			fail(t, rt, "write_file", args(t, map[string]any{"path": p, "content": "pwned"}), fs.CodeOutsideRoot)
			fail(t, rt, "edit_file", args(t, map[string]any{"path": p, "edits": []map[string]any{{"old_text": "secret", "new_text": "pwned"}}}), fs.CodeOutsideRoot)
			fail(t, rt, "grep", args(t, map[string]any{"path": p, "pattern": "secret"}), fs.CodeOutsideRoot)
			fail(t, rt, "glob", args(t, map[string]any{"path": p, "pattern": "**"}), fs.CodeOutsideRoot)
		})
	}
	// A dangling link is refused: writing through it would create its
	// target, wherever that is.
	fail(t, rt, "write_file", `{"path":"dangling","content":"pwned"}`, fs.CodeNotFound)

	// Nothing outside changed.
	b, err := os.ReadFile(filepath.Join(outside, "secret.txt"))
	require.NoError(t, err)
	assert.Equal(t, "secret\n", string(b))
	assert.NoFileExists(t, filepath.Join(outside, "new.txt"))
	assert.NoDirExists(t, filepath.Join(outside, "dir", "new"))

	// A walk does not follow links out of the root.
	var g fs.GrepResult
	succeed(t, rt, "grep", `{"pattern":"secret|x"}`, &g)
	assert.Zero(t, g.Total)
	var gl fs.GlobResult
	succeed(t, rt, "glob", `{"pattern":"**"}`, &gl)
	assert.Equal(t, []string{"in.txt", "sub/a.txt"}, gl.Paths)
}

func TestLinksInsideTheRootAreFollowed(t *testing.T) {
	dir := tree(t, map[string]string{"real/a.txt": "a\n"})
	require.NoError(t, os.Symlink("real", filepath.Join(dir, "alias")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "real", "a.txt"), filepath.Join(dir, "abs-link.txt")))
	rt := newRuntime(t, dir, nil)

	var out fs.ReadFileResult
	succeed(t, rt, "read_file", `{"path":"alias/a.txt"}`, &out)
	assert.Equal(t, "real/a.txt", out.Path, "results name the real file")
	succeed(t, rt, "read_file", `{"path":"abs-link.txt"}`, &out)
	assert.Equal(t, "real/a.txt", out.Path)

	// Writing through a link writes its target and keeps the link.
	var w fs.WriteFileResult
	succeed(t, rt, "write_file", `{"path":"abs-link.txt","content":"b\n"}`, &w)
	assert.Equal(t, "real/a.txt", w.Path)
	b, err := os.ReadFile(filepath.Join(dir, "real", "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "b\n", string(b))
	fi, err := os.Lstat(filepath.Join(dir, "abs-link.txt"))
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode().Type())
}

func TestWriteFile(t *testing.T) {
	dir := tree(t, map[string]string{"old.txt": "one\ntwo\nthree\n", "sub/x": "x"})
	require.NoError(t, os.Chmod(filepath.Join(dir, "old.txt"), 0o600))
	rt := newRuntime(t, dir, nil)

	t.Run("creates parents", func(t *testing.T) {
		a := `{"path":"new/deep/file.go","content":"package deep\n"}`
		var out fs.WriteFileResult
		res := succeed(t, rt, "write_file", a, &out)
		assert.Equal(t, fs.WriteFileResult{Path: "new/deep/file.go", Created: true, Bytes: 13}, out)
		assert.Equal(t, []runtime.ContentBlock{runtime.Text("Created new/deep/file.go (13 bytes).")}, res.Content)
		b, err := os.ReadFile(filepath.Join(dir, "new", "deep", "file.go"))
		require.NoError(t, err)
		assert.Equal(t, "package deep\n", string(b))

		path := filepath.Join(dir, "new", "deep", "file.go")
		card := resultCard(t, rt, "write_file", a, res)
		assert.Equal(t, runtime.ResultDiff, card.Card)
		require.Len(t, card.Diffs, 1)
		assert.True(t, card.Diffs[0].IsNewFile())
		assert.JSONEq(t, fmt.Sprintf(`{"card":"diff","title":"Write new/deep/file.go","diffs":[{"path":%q,"oldText":null,"newText":"package deep\n"}]}`, path), cardJSON(t, card))
	})
	t.Run("overwrites and keeps the mode", func(t *testing.T) {
		a := `{"path":"old.txt","content":"one\n2\nthree\n"}`
		var out fs.WriteFileResult
		res := succeed(t, rt, "write_file", a, &out)
		assert.Equal(t, fs.WriteFileResult{Path: "old.txt", Bytes: 12, Change: &fs.Hunk{OldText: "one\ntwo\nthree\n", NewText: "one\n2\nthree\n"}}, out)
		assert.Equal(t, []runtime.ContentBlock{runtime.Text("Overwrote old.txt (12 bytes).")}, res.Content)
		fi, err := os.Stat(filepath.Join(dir, "old.txt"))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

		card := resultCard(t, rt, "write_file", a, res)
		require.Len(t, card.Diffs, 1)
		assert.Contains(t, cardJSON(t, card), `"oldText":"one\ntwo\nthree\n","newText":"one\n2\nthree\n"`)
	})
	t.Run("empty content", func(t *testing.T) {
		var out fs.WriteFileResult
		succeed(t, rt, "write_file", `{"path":"empty","content":""}`, &out)
		assert.True(t, out.Created)
		b, err := os.ReadFile(filepath.Join(dir, "empty"))
		require.NoError(t, err)
		assert.Empty(t, b)
	})
	t.Run("errors", func(t *testing.T) {
		fail(t, rt, "write_file", `{"path":"sub","content":"x"}`, fs.CodeNotFile)
		fail(t, rt, "write_file", `{"path":"sub/x/y","content":"x"}`, fs.CodeNotDirectory)
		fail(t, rt, "write_file", `{"path":"","content":"x"}`, runtime.CodeInvalidArgs)
	})
	assertNoTempFiles(t, dir)
}

// assertNoTempFiles checks that no temporary file of an atomic write is
// left under dir.
func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		assert.NotContains(t, d.Name(), ".toolgen-", p)
		return nil
	}))
}

func TestWriteFileCallCard(t *testing.T) {
	dir := tree(t, map[string]string{"old.txt": "old\n"})
	rt := newRuntime(t, dir, nil)
	// The pending card has no before-image, so even an existing file shows
	// as the whole new content with a null oldText.
	v := callCard(t, rt, "write_file", `{"path":"old.txt","content":"new\n"}`)
	assert.Equal(t, runtime.CallDiff, v.Card)
	path := filepath.Join(dir, "old.txt")
	assert.JSONEq(t, fmt.Sprintf(`{"card":"diff","title":"Write old.txt","diffs":[{"path":%q,"oldText":null,"newText":"new\n"}],"locations":[{"path":%q}]}`, path, path), cardJSON(t, v))
	assert.Contains(t, cardJSON(t, v), `"oldText":null`)

	// Invalid arguments give the generic card.
	v = callCard(t, rt, "write_file", `{"path":1}`)
	assert.Equal(t, runtime.CallGeneric, v.Card)
	assert.Equal(t, "write_file", v.Title)
}

func TestEditFile(t *testing.T) {
	const original = "package main\n\nfunc main() {\n\tprintln(\"a\")\n\tprintln(\"a\")\n\treturn\n}\n"
	tests := []struct {
		name         string
		edits        []map[string]any
		want         string
		replacements int
	}{
		{"one edit", []map[string]any{{"old_text": "return", "new_text": "os.Exit(0)"}}, strings.Replace(original, "return", "os.Exit(0)", 1), 1},
		{"replace all", []map[string]any{{"old_text": `println("a")`, "new_text": `println("b")`, "replace_all": true}}, strings.ReplaceAll(original, `"a"`, `"b"`), 2},
		{"progressive edits", []map[string]any{
			{"old_text": "func main()", "new_text": "func run()"},
			{"old_text": "func run() {", "new_text": "func run() error {"},
			{"old_text": "\treturn\n", "new_text": "\treturn nil\n"},
		}, strings.Replace(strings.Replace(original, "func main() {", "func run() error {", 1), "\treturn\n", "\treturn nil\n", 1), 3},
		{"deletion", []map[string]any{{"old_text": "\n\treturn", "new_text": ""}}, strings.Replace(original, "\n\treturn", "", 1), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tree(t, map[string]string{"main.go": original})
			require.NoError(t, os.Chmod(filepath.Join(dir, "main.go"), 0o640))
			rt := newRuntime(t, dir, nil)
			a := args(t, map[string]any{"path": "main.go", "edits": tt.edits})
			var out fs.EditFileResult
			res := succeed(t, rt, "edit_file", a, &out)
			assert.Equal(t, "main.go", out.Path)
			assert.Equal(t, len(tt.edits), out.Applied)
			assert.Equal(t, tt.replacements, out.Replacements)
			assert.Equal(t, []runtime.ContentBlock{runtime.Text(fmt.Sprintf("Edited main.go: applied %d edit(s), %d replacement(s).", len(tt.edits), tt.replacements))}, res.Content)
			b, err := os.ReadFile(filepath.Join(dir, "main.go"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))
			fi, err := os.Stat(filepath.Join(dir, "main.go"))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
			assertNoTempFiles(t, dir)

			// The change region applied to the old text gives the new one.
			require.Contains(t, original, out.Change.OldText)
			assert.Equal(t, tt.want, strings.Replace(original, out.Change.OldText, out.Change.NewText, 1))

			pending := callCard(t, rt, "edit_file", a)
			assert.Equal(t, runtime.CallDiff, pending.Card)
			require.Len(t, pending.Diffs, len(tt.edits))
			for i, e := range tt.edits {
				assert.Equal(t, runtime.ChangeFileDiff(filepath.Join(dir, "main.go"), e["old_text"].(string), e["new_text"].(string)), pending.Diffs[i])
			}
			assert.Equal(t, []runtime.FileLocation{{Path: filepath.Join(dir, "main.go")}}, pending.Locations)

			card := resultCard(t, rt, "edit_file", a, res)
			assert.Equal(t, []runtime.FileDiff{runtime.ChangeFileDiff(filepath.Join(dir, "main.go"), out.Change.OldText, out.Change.NewText)}, card.Diffs)
		})
	}
}

func TestEditFileHunkKeepsContext(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	dir := tree(t, map[string]string{"f.txt": b.String()})
	rt := newRuntime(t, dir, nil)
	var out fs.EditFileResult
	succeed(t, rt, "edit_file", `{"path":"f.txt","edits":[{"old_text":"line 10\n","new_text":"ten\n"}]}`, &out)
	assert.Equal(t, fs.Hunk{
		OldText: "line 7\nline 8\nline 9\nline 10\nline 11\nline 12\nline 13\n",
		NewText: "line 7\nline 8\nline 9\nten\nline 11\nline 12\nline 13\n",
	}, out.Change)
}

func TestEditFileIsAllOrNothing(t *testing.T) {
	const original = "alpha\nbeta\nbeta\ngamma\n"
	tests := []struct {
		name  string
		edits []map[string]any
		code  runtime.ErrorCode
		msg   string
	}{
		{"second edit not found", []map[string]any{
			{"old_text": "alpha", "new_text": "ALPHA"},
			{"old_text": "delta", "new_text": "DELTA"},
		}, fs.CodeEditFailed, "edit 2 of 2: old_text was not found"},
		{"ambiguous", []map[string]any{
			{"old_text": "alpha", "new_text": "ALPHA"},
			{"old_text": "gamma", "new_text": "GAMMA"},
			{"old_text": "beta", "new_text": "BETA"},
		}, fs.CodeEditFailed, "edit 3 of 3: old_text occurs 2 times"},
		{"changed by an earlier edit", []map[string]any{
			{"old_text": "alpha\n", "new_text": "one\n"},
			{"old_text": "alpha", "new_text": "two"},
		}, fs.CodeEditFailed, "edit 2 of 2: old_text is no longer in the file: an earlier edit changed it"},
		{"invalid edit", []map[string]any{
			{"old_text": "alpha", "new_text": "ALPHA"},
			{"old_text": "", "new_text": "x"},
		}, runtime.CodeInvalidArgs, "edit 2: old_text is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tree(t, map[string]string{"f.txt": original})
			rt := newRuntime(t, dir, nil)
			msg := fail(t, rt, "edit_file", args(t, map[string]any{"path": "f.txt", "edits": tt.edits}), tt.code)
			assert.Contains(t, msg, tt.msg)
			b, err := os.ReadFile(filepath.Join(dir, "f.txt"))
			require.NoError(t, err)
			assert.Equal(t, original, string(b), "the file must be unchanged")
			assertNoTempFiles(t, dir)
		})
	}
	// Edits of a file that does not exist or is a directory fail.
	dir := tree(t, map[string]string{"d/x": ""})
	rt := newRuntime(t, dir, nil)
	fail(t, rt, "edit_file", `{"path":"nope","edits":[{"old_text":"a","new_text":"b"}]}`, fs.CodeNotFound)
	fail(t, rt, "edit_file", `{"path":"d","edits":[{"old_text":"a","new_text":"b"}]}`, fs.CodeNotFile)
	assert.NoFileExists(t, filepath.Join(dir, "nope"))
}

func TestGrep(t *testing.T) {
	dir := tree(t, map[string]string{
		"a.go":         "package a\n// TODO one\nfunc A() {}\n",
		"b.txt":        "todo lower\r\nnothing\n",
		"sub/c.go":     "package sub\n// TODO two\n// TODO three\n",
		"sub/d/e.go":   "// TODO deep\n",
		"bin.dat":      "TODO\x00binary",
		".git/config":  "TODO in git\n",
		"sub/.git/x":   "TODO nested git\n",
		"long.txt":     "TODO " + strings.Repeat("é", 400) + "\n",
		"noeol.go":     "x\n// TODO last",
		"docs/read.md": "nothing here\n",
	})
	rt := newRuntime(t, dir, nil)
	type file = fs.GrepFile
	type match = fs.GrepMatch
	tests := []struct {
		name string
		args map[string]any
		want fs.GrepResult
	}{
		{"everything", map[string]any{"pattern": "TODO"}, fs.GrepResult{Total: 6, Files: []file{
			{Path: "a.go", Matches: []match{{Line: 2, Text: "// TODO one"}}},
			{Path: "long.txt", Matches: []match{{Line: 1, Text: "TODO " + strings.Repeat("é", 247) + "…"}}},
			{Path: "noeol.go", Matches: []match{{Line: 2, Text: "// TODO last"}}},
			{Path: "sub/c.go", Matches: []match{{Line: 2, Text: "// TODO two"}, {Line: 3, Text: "// TODO three"}}},
			{Path: "sub/d/e.go", Matches: []match{{Line: 1, Text: "// TODO deep"}}},
		}}},
		{"case insensitive, CR stripped", map[string]any{"pattern": "^todo lower$", "case_insensitive": true}, fs.GrepResult{Total: 1, Files: []file{
			{Path: "b.txt", Matches: []match{{Line: 1, Text: "todo lower"}}},
		}}},
		{"case sensitive by default", map[string]any{"pattern": "todo"}, fs.GrepResult{Total: 1, Files: []file{
			{Path: "b.txt", Matches: []match{{Line: 1, Text: "todo lower"}}},
		}}},
		{"glob on base names", map[string]any{"pattern": "TODO", "glob": "*.go"}, fs.GrepResult{Total: 5, Files: []file{
			{Path: "a.go", Matches: []match{{Line: 2, Text: "// TODO one"}}},
			{Path: "noeol.go", Matches: []match{{Line: 2, Text: "// TODO last"}}},
			{Path: "sub/c.go", Matches: []match{{Line: 2, Text: "// TODO two"}, {Line: 3, Text: "// TODO three"}}},
			{Path: "sub/d/e.go", Matches: []match{{Line: 1, Text: "// TODO deep"}}},
		}}},
		{"glob on relative paths", map[string]any{"pattern": "TODO", "glob": "sub/*.go"}, fs.GrepResult{Total: 2, Files: []file{
			{Path: "sub/c.go", Matches: []match{{Line: 2, Text: "// TODO two"}, {Line: 3, Text: "// TODO three"}}},
		}}},
		{"glob with **", map[string]any{"pattern": "TODO", "glob": "sub/**/*.go"}, fs.GrepResult{Total: 3, Files: []file{
			{Path: "sub/c.go", Matches: []match{{Line: 2, Text: "// TODO two"}, {Line: 3, Text: "// TODO three"}}},
			{Path: "sub/d/e.go", Matches: []match{{Line: 1, Text: "// TODO deep"}}},
		}}},
		{"in a directory, glob relative to it", map[string]any{"pattern": "TODO", "path": "sub", "glob": "d/*"}, fs.GrepResult{Total: 1, Files: []file{
			{Path: "sub/d/e.go", Matches: []match{{Line: 1, Text: "// TODO deep"}}},
		}}},
		{"one file", map[string]any{"pattern": "TODO", "path": "sub/c.go", "glob": "*.txt"}, fs.GrepResult{Total: 2, Files: []file{
			{Path: "sub/c.go", Matches: []match{{Line: 2, Text: "// TODO two"}, {Line: 3, Text: "// TODO three"}}},
		}}},
		{"capped", map[string]any{"pattern": "TODO", "max_results": 2}, fs.GrepResult{Total: 6, Truncated: true, Files: []file{
			{Path: "a.go", Matches: []match{{Line: 2, Text: "// TODO one"}}},
			{Path: "long.txt", Matches: []match{{Line: 1, Text: "TODO " + strings.Repeat("é", 247) + "…"}}},
		}}},
		{"capped inside a file", map[string]any{"pattern": "TODO", "path": "sub", "max_results": 1}, fs.GrepResult{Total: 3, Truncated: true, Files: []file{
			{Path: "sub/c.go", Matches: []match{{Line: 2, Text: "// TODO two"}}},
		}}},
		{"cap equal to total", map[string]any{"pattern": "TODO", "path": "sub", "max_results": 3}, fs.GrepResult{Total: 3, Files: []file{
			{Path: "sub/c.go", Matches: []match{{Line: 2, Text: "// TODO two"}, {Line: 3, Text: "// TODO three"}}},
			{Path: "sub/d/e.go", Matches: []match{{Line: 1, Text: "// TODO deep"}}},
		}}},
		{"no match", map[string]any{"pattern": "NOPE"}, fs.GrepResult{Files: []file{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := args(t, tt.args)
			var out fs.GrepResult
			res := succeed(t, rt, "grep", a, &out)
			assert.Equal(t, tt.want, out)

			pending := callCard(t, rt, "grep", a)
			assert.Equal(t, runtime.CallGeneric, pending.Card)
			assert.Equal(t, runtime.KindSearch, pending.Kind)

			card := resultCard(t, rt, "grep", a, res)
			assert.Equal(t, runtime.ResultSearch, card.Card)
			assert.Equal(t, runtime.ShapeMatches, card.Shape)
			assert.Equal(t, tt.want.Truncated, card.Truncated)
			assert.Equal(t, tt.want.Total, card.Total)
			require.Len(t, card.Files, len(tt.want.Files))
			for i, f := range tt.want.Files {
				assert.Equal(t, f.Path, card.Files[i].Path)
				require.Len(t, card.Files[i].Matches, len(f.Matches))
				for j, m := range f.Matches {
					assert.Equal(t, runtime.SearchMatch{Line: m.Line, Text: m.Text}, card.Files[i].Matches[j])
				}
			}
			assert.Contains(t, cardJSON(t, card), fmt.Sprintf(`"truncated":%t,"total":%d`, tt.want.Truncated, tt.want.Total))
		})
	}
	fail(t, rt, "grep", `{"pattern":"x","path":"missing"}`, fs.CodeNotFound)
}

func TestGlob(t *testing.T) {
	dir := tree(t, map[string]string{
		"a.go": "", "b.go": "", "a.txt": "", "sub/c.go": "", "sub/d/e.go": "", "sub/d/f.txt": "",
		".git/HEAD.go": "", "x.go/inner.go": "", "a-b.go": "",
	})
	rt := newRuntime(t, dir, nil)
	tests := []struct {
		name string
		args map[string]any
		want fs.GlobResult
	}{
		{"top level only", map[string]any{"pattern": "*.go"}, fs.GlobResult{Paths: []string{"a-b.go", "a.go", "b.go"}, Total: 3}},
		{"any depth", map[string]any{"pattern": "**/*.go"}, fs.GlobResult{Paths: []string{"a-b.go", "a.go", "b.go", "sub/c.go", "sub/d/e.go", "x.go/inner.go"}, Total: 6}},
		{"everything, sorted", map[string]any{"pattern": "**"}, fs.GlobResult{Paths: []string{"a-b.go", "a.go", "a.txt", "b.go", "sub/c.go", "sub/d/e.go", "sub/d/f.txt", "x.go/inner.go"}, Total: 8}},
		{"** in the middle", map[string]any{"pattern": "sub/**/*.txt"}, fs.GlobResult{Paths: []string{"sub/d/f.txt"}, Total: 1}},
		{"** matching no directory", map[string]any{"pattern": "sub/**/c.go"}, fs.GlobResult{Paths: []string{"sub/c.go"}, Total: 1}},
		{"character class", map[string]any{"pattern": "[ab].*"}, fs.GlobResult{Paths: []string{"a.go", "a.txt", "b.go"}, Total: 3}},
		{"in a directory", map[string]any{"pattern": "*/*", "path": "sub"}, fs.GlobResult{Paths: []string{"sub/d/e.go", "sub/d/f.txt"}, Total: 2}},
		{"capped", map[string]any{"pattern": "**/*.go", "max_results": 2}, fs.GlobResult{Paths: []string{"a-b.go", "a.go"}, Total: 6, Truncated: true}},
		{"cap equal to total", map[string]any{"pattern": "*.go", "max_results": 3}, fs.GlobResult{Paths: []string{"a-b.go", "a.go", "b.go"}, Total: 3}},
		{"no match", map[string]any{"pattern": "*.rs"}, fs.GlobResult{Paths: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := args(t, tt.args)
			var out fs.GlobResult
			res := succeed(t, rt, "glob", a, &out)
			assert.Equal(t, tt.want, out)

			pending := callCard(t, rt, "glob", a)
			assert.Equal(t, runtime.CallGeneric, pending.Card)
			assert.Equal(t, runtime.KindSearch, pending.Kind)

			card := resultCard(t, rt, "glob", a, res)
			assert.Equal(t, runtime.ShapePaths, card.Shape)
			assert.Equal(t, tt.want.Total, card.Total)
			assert.Equal(t, tt.want.Truncated, card.Truncated)
			assert.Equal(t, tt.want.Paths, append([]string{}, card.Paths...))
			assert.Contains(t, cardJSON(t, card), fmt.Sprintf(`"truncated":%t,"total":%d`, tt.want.Truncated, tt.want.Total))
		})
	}
	fail(t, rt, "glob", `{"pattern":"*","path":"a.go"}`, fs.CodeNotDirectory)
	fail(t, rt, "glob", `{"pattern":"*","path":"missing"}`, fs.CodeNotFound)
}

func TestReadFileCards(t *testing.T) {
	dir := tree(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n", "notes": "n\n"})
	rt := newRuntime(t, dir, nil)
	path := filepath.Join(dir, "main.go")

	a := `{"path":"main.go","offset":2,"limit":5}`
	pending := callCard(t, rt, "read_file", a)
	assert.Equal(t, runtime.ToolCallView{
		Card: runtime.CallGeneric, Title: "Read main.go", Kind: runtime.KindRead,
		Locations: []runtime.FileLocation{{Path: path, Line: 2}},
	}, pending)

	var out fs.ReadFileResult
	res := succeed(t, rt, "read_file", a, &out)
	card := resultCard(t, rt, "read_file", a, res)
	assert.Equal(t, &runtime.ToolResultView{
		Card: runtime.ResultRead, Title: "Read main.go", Path: path, Offset: 2,
		Lines:      []runtime.ReadFileLine{{Number: 2, Text: ""}, {Number: 3, Text: "func main() {}"}},
		TotalLines: 3, Lang: "go",
	}, card)

	// An empty window keeps its offset; a file without a known extension
	// has no language.
	a = `{"path":"notes","offset":7}`
	res = succeed(t, rt, "read_file", a, &out)
	card = resultCard(t, rt, "read_file", a, res)
	assert.JSONEq(t, fmt.Sprintf(`{"card":"read","title":"Read notes","path":%q,"offset":7,"lines":[],"totalLines":1}`, filepath.Join(dir, "notes")), cardJSON(t, card))

	// A failed call has no result card.
	failed := execute(t, rt, context.Background(), "read_file", `{"path":"missing"}`)
	assert.Nil(t, rt.PresentResult(input("read_file", `{"path":"missing"}`), failed.Durable()))

	// Presenters are pure: the same arguments give the same cards.
	assert.Equal(t, callCard(t, rt, "read_file", a), callCard(t, rt, "read_file", a))
}

func TestLanguageHints(t *testing.T) {
	files := map[string]string{
		"a.go": "go", "a.py": "python", "a.ts": "typescript", "README.md": "markdown", "a.json": "json",
		"a.sh": "bash", "Makefile": "makefile", "A.GO": "go", "a.unknown": "", "noext": "",
	}
	content := map[string]string{}
	for name := range files {
		content[name] = "x\n"
	}
	rt := newRuntime(t, tree(t, content), nil)
	for name, lang := range files {
		a := args(t, map[string]any{"path": name})
		var out fs.ReadFileResult
		res := succeed(t, rt, "read_file", a, &out)
		assert.Equal(t, lang, resultCard(t, rt, "read_file", a, res).Lang, name)
	}
}

func TestNestedCallsHaveNoResultCard(t *testing.T) {
	// Meta, which carries the result cards, exists for top-level calls
	// only; a nested call's completed card falls back to the raw content.
	rt := newRuntime(t, tree(t, map[string]string{"a.txt": "a\n"}), nil)
	var parent runtime.Token
	rt.Guard(func(e runtime.Execution) error {
		if parent.IsZero() {
			parent = e.Token()
		}
		return nil
	})
	execute(t, rt, context.Background(), "read_file", `{"path":"a.txt"}`)
	in := input("read_file", `{"path":"a.txt"}`)
	in.Parent = parent
	res := rt.Execute(context.Background(), in)
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Nil(t, res.Meta)
	assert.Nil(t, rt.PresentResult(in, res.Durable()))
}

func TestCancellation(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "alpha\n", "sub/b.txt": "beta\n"})
	calls := map[string]string{
		"read_file":  `{"path":"a.txt"}`,
		"grep":       `{"pattern":"a"}`,
		"glob":       `{"pattern":"**"}`,
		"write_file": `{"path":"a.txt","content":"overwritten\n"}`,
		"edit_file":  `{"path":"a.txt","edits":[{"old_text":"alpha","new_text":"omega"}]}`,
	}
	t.Run("before dispatch", func(t *testing.T) {
		rt := newRuntime(t, dir, nil)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for name, a := range calls {
			res := execute(t, rt, ctx, name, a)
			assert.Equal(t, runtime.CodeAbortedBeforeDispatch, res.Code(), name)
		}
	})
	t.Run("while the body runs", func(t *testing.T) {
		// Each body is entered with the caller's context already
		// cancelled: it must stop and return the cancellation, which the
		// runtime reports as ABORTED, and change nothing.
		var mu sync.Mutex
		var cancel context.CancelFunc
		bodyErr := map[string]error{}
		rt := newRuntime(t, dir, func(def *runtime.ToolDefinition) {
			name, inner := def.Name, def.Execute
			def.Execute = func(ctx context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
				cancel()
				v, err := inner(ctx, args, rc)
				mu.Lock()
				bodyErr[name] = err
				mu.Unlock()
				return v, err
			}
		})
		for name, a := range calls {
			ctx, stop := context.WithCancel(context.Background())
			cancel = stop
			res := execute(t, rt, ctx, name, a)
			stop()
			assert.Equal(t, runtime.CodeAborted, res.Code(), name)
			mu.Lock()
			assert.True(t, errors.Is(bodyErr[name], context.Canceled), "%s returned %v", name, bodyErr[name])
			mu.Unlock()
		}
		b, err := os.ReadFile(filepath.Join(dir, "a.txt"))
		require.NoError(t, err)
		assert.Equal(t, "alpha\n", string(b))
		assertNoTempFiles(t, dir)
	})
}

// cancelOnErr is a context that cancels itself from inside its own Err,
// on the given call after it is armed: it cancels a call in the middle of
// a tool's work, at the point where the tool checks for cancellation.
type cancelOnErr struct {
	context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	armed bool
	left  int
}

func (c *cancelOnErr) arm(calls int) {
	c.mu.Lock()
	c.armed, c.left = true, calls
	c.mu.Unlock()
}

func (c *cancelOnErr) Err() error {
	c.mu.Lock()
	if c.armed {
		c.left--
		if c.left == 0 {
			c.cancel()
		}
	}
	c.mu.Unlock()
	return c.Context.Err()
}

func TestCancellationMidWork(t *testing.T) {
	// The second cancellation check inside the body cancels: the first is
	// on entry, the second in the work itself (a walk's first entry, a
	// read's 1024th line, a write before its rename). Each tool must stop
	// there, return the cancellation and change nothing.
	long := strings.Repeat("alpha\n", 3000)
	dir := tree(t, map[string]string{"a.txt": long, "sub/b.txt": "beta\n"})
	calls := map[string]string{
		"read_file":  `{"path":"a.txt","limit":1}`,
		"grep":       `{"pattern":"a"}`,
		"glob":       `{"pattern":"**"}`,
		"write_file": `{"path":"a.txt","content":"overwritten\n"}`,
		"edit_file":  `{"path":"a.txt","edits":[{"old_text":"alpha","new_text":"omega","replace_all":true}]}`,
	}
	var mu sync.Mutex
	var ctx *cancelOnErr
	bodyErr := map[string]error{}
	rt := newRuntime(t, dir, func(def *runtime.ToolDefinition) {
		name, inner := def.Name, def.Execute
		def.Execute = func(c context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			ctx.arm(2)
			v, err := inner(c, args, rc)
			mu.Lock()
			bodyErr[name] = err
			mu.Unlock()
			return v, err
		}
	})
	for name, a := range calls {
		inner, cancel := context.WithCancel(context.Background())
		ctx = &cancelOnErr{Context: inner, cancel: cancel}
		res := execute(t, rt, ctx, name, a)
		assert.Equal(t, runtime.CodeAborted, res.Code(), name)
		mu.Lock()
		assert.True(t, errors.Is(bodyErr[name], context.Canceled), "%s returned %v", name, bodyErr[name])
		mu.Unlock()
		cancel()
	}
	b, err := os.ReadFile(filepath.Join(dir, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, long, string(b))
	assertNoTempFiles(t, dir)
}

func TestConcurrentReads(t *testing.T) {
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat(fmt.Sprintf("line of f%d\n", i), 100)
	}
	rt := newRuntime(t, tree(t, files), nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			res := rt.Execute(context.Background(), input("read_file", fmt.Sprintf(`{"path":"f%d.txt","limit":10}`, i)))
			assert.False(t, res.IsError())
			res = rt.Execute(context.Background(), input("grep", `{"pattern":"line","max_results":5}`))
			assert.False(t, res.IsError())
		})
	}
	wg.Wait()
}
