package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolgen-go/toolgen/schemasubset"
)

// binary is the example built once for every test, by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolgen-mcp-example-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "mcp")
	if err := build(binary); err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { _ = os.RemoveAll(dir) }))
}

// build compiles this package into out with the go command on PATH.
func build(out string) error {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("the tests run the built example and need the go command: %w", err)
	}
	cmd := exec.Command(gocmd, "build", "-o", out, ".")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, msg)
	}
	return nil
}

// workspace is the project the tests serve.
var workspace = map[string]string{
	"main.go":      "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(greeting())\n}\n",
	"greet.go":     "package main\n\nfunc greeting() string { return \"hello\" }\n",
	"README.md":    "# demo\n",
	"docs/HACK.md": "Run go test.\n",
}

// newWorkspace writes workspace into a fresh directory.
func newWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range workspace {
		path := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	return root
}

// logBuffer collects the server's standard error.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// elicitations answers every approval with accept and keeps the messages.
type elicitations struct {
	mu       sync.Mutex
	messages []string
}

func (e *elicitations) handler(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.messages = append(e.messages, req.Params.Message)
	return &mcp.ElicitResult{Action: "accept"}, nil
}

func (e *elicitations) seen() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.messages...)
}

// startStdio runs the built example on root and connects a go-sdk client
// to it over its standard input and output, with the client left at its
// defaults but for opts. The session is closed, and the process waited
// for, at the end of the test.
func startStdio(t *testing.T, root string, opts *mcp.ClientOptions) (*mcp.ClientSession, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	cmd := exec.Command(binary, "-root", root)
	cmd.Stderr = logs
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v1"}, opts)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, cs.Close(), "the server exits when its input closes")
		if t.Failed() {
			t.Logf("server log:\n%s", logs)
		}
	})
	return cs, logs
}

// call calls name with raw arguments.
func call(t *testing.T, cs *mcp.ClientSession, name, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	require.NoError(t, err, "%s: a tool failure is a result, never a JSON-RPC error", name)
	return res
}

// text returns the text blocks of res, joined.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// structured re-encodes res.StructuredContent.
func structured(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	return string(raw)
}

// TestListTools checks that a client lists the Runtime's schemas: names,
// descriptions and input schemas as rt.Schemas presents them, and output
// schemas for the tools whose output is an object.
func TestListTools(t *testing.T) {
	root := newWorkspace(t)
	cs, _ := startStdio(t, root, nil)
	assert.Equal(t, "2025-11-25", cs.InitializeResult().ProtocolVersion,
		"the example offers the handshake versions only, so that it may elicit approvals")
	assert.Contains(t, cs.InitializeResult().Instructions, root)

	rt, err := newRuntime(root, newLogger(io.Discard, true))
	require.NoError(t, err)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	schemas := rt.Schemas(nil)
	require.Len(t, res.Tools, len(schemas))
	for i, s := range schemas {
		got := res.Tools[i]
		require.Equal(t, s.Name, got.Name)
		assert.Equal(t, s.Description, got.Description, s.Name)
		in, err := json.Marshal(got.InputSchema)
		require.NoError(t, err)
		want, err := s.Parameters.MarshalJSON()
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(in), s.Name)
		def, ok := rt.Get(s.Name, nil)
		require.True(t, ok)
		if def.Output.Schema.Type() != schemasubset.TypeObject {
			assert.Nil(t, got.OutputSchema, s.Name)
			continue
		}
		out, err := json.Marshal(got.OutputSchema)
		require.NoError(t, err)
		wantOut, err := def.Output.Schema.MarshalJSON()
		require.NoError(t, err)
		assert.JSONEq(t, string(wantOut), string(out), s.Name)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"bash", "edit_file", "glob", "grep", "read_file", "web_fetch", "write_file"}, names)
}

// TestBadArguments checks that arguments the schema refuses come back as
// an isError result the model can read, with the code first.
func TestBadArguments(t *testing.T) {
	cs, _ := startStdio(t, newWorkspace(t), nil)
	for _, tt := range []struct{ name, args, want string }{
		{"read_file", `{"path":7}`, "INVALID_ARGS: invalid arguments: /path: "},
		{"read_file", `{}`, "INVALID_ARGS: invalid arguments: "},
		{"grep", `{"pattern":"x","max_results":1e400}`, "INVALID_ARGS: invalid arguments: /max_results: the value 1e400 does not fit the Go type int"},
		{"glob", `{"pattern":"*","extra":{"ignored":true},"path":null}`, "INVALID_ARGS: invalid arguments: /path: "},
	} {
		res := call(t, cs, tt.name, tt.args)
		assert.True(t, res.IsError, "%s %s", tt.name, tt.args)
		assert.True(t, strings.HasPrefix(text(res), tt.want), "%s %s: %q", tt.name, tt.args, text(res))
		assert.Equal(t, map[string]any{"code": "INVALID_ARGS", "message": strings.TrimPrefix(text(res), "INVALID_ARGS: ")}, res.Meta["toolgen/error"])
	}
}

// TestDeniedWithoutElicitation checks that the tools that ask are denied
// when the client cannot elicit, and that nothing ran.
func TestDeniedWithoutElicitation(t *testing.T) {
	root := newWorkspace(t)
	cs, logs := startStdio(t, root, nil)
	for _, tt := range []struct{ name, args string }{
		{"write_file", `{"path":"new.txt","content":"x"}`},
		{"edit_file", `{"path":"greet.go","edits":[{"old_text":"hello","new_text":"bye"}]}`},
		{"bash", `{"command":"touch ran.txt"}`},
	} {
		res := call(t, cs, tt.name, tt.args)
		assert.True(t, res.IsError, tt.name)
		assert.True(t, strings.HasPrefix(text(res), "DENIED: approval required: "), "%s: %q", tt.name, text(res))
	}
	for _, name := range []string{"new.txt", "ran.txt"} {
		assert.NoFileExists(t, filepath.Join(root, name))
	}
	greet, err := os.ReadFile(filepath.Join(root, "greet.go"))
	require.NoError(t, err)
	assert.Equal(t, workspace["greet.go"], string(greet))
	require.Eventually(t, func() bool { return strings.Count(logs.String(), "the client does not support elicitation") == 3 }, 5*time.Second, 10*time.Millisecond, logs.String())
}

// TestCommandLine checks the command line: the root defaults to the
// current directory, and a bad -http address, a missing root or a stray
// argument fails.
func TestCommandLine(t *testing.T) {
	c, err := parse(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, config{root: "."}, c)
	_, err = parse([]string{"extra"}, io.Discard)
	assert.Error(t, err)
	err = run([]string{"-root", t.TempDir(), "-http", "0.0.0.0:0", "-quiet"}, io.Discard)
	assert.ErrorContains(t, err, "not a loopback address")
	err = run([]string{"-root", filepath.Join(t.TempDir(), "missing")}, io.Discard)
	assert.Error(t, err)
	assert.NoError(t, run([]string{"-h"}, io.Discard))
}
