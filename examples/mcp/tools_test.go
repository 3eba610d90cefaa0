package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTools calls every example tool over standard input and output, the
// approvals answered by the client's elicitation handler.
func TestTools(t *testing.T) {
	root := newWorkspace(t)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "you asked for %s", r.URL.Path)
	}))
	t.Cleanup(web.Close)
	var asked elicitations
	cs, logs := startStdio(t, root, &mcp.ClientOptions{ElicitationHandler: asked.handler})

	res := call(t, cs, "read_file", `{"path":"greet.go"}`)
	require.False(t, res.IsError, text(res))
	assert.JSONEq(t, `{"path":"greet.go","offset":1,"lines":["package main","","func greeting() string { return \"hello\" }"],"total_lines":3,"truncated":false}`, structured(t, res))

	res = call(t, cs, "grep", `{"pattern":"^func ","glob":"*.go"}`)
	require.False(t, res.IsError, text(res))
	assert.Contains(t, structured(t, res), `"total":2`)

	res = call(t, cs, "glob", `{"pattern":"**/*.md"}`)
	require.False(t, res.IsError, text(res))
	assert.Contains(t, structured(t, res), `"paths":["README.md","docs/HACK.md"]`)

	res = call(t, cs, "web_fetch", fmt.Sprintf(`{"url":%q}`, web.URL+"/docs"))
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "you asked for /docs")
	assert.Contains(t, structured(t, res), `"status_code":200`)
	assert.Empty(t, asked.seen(), "reads and fetches do not ask")

	res = call(t, cs, "write_file", `{"path":"notes/todo.txt","content":"ship it\n"}`)
	require.False(t, res.IsError, text(res))
	written, err := os.ReadFile(filepath.Join(root, "notes", "todo.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ship it\n", string(written))

	res = call(t, cs, "edit_file", `{"path":"greet.go","edits":[{"old_text":"\"hello\"","new_text":"\"hello, world\""}]}`)
	require.False(t, res.IsError, text(res))
	assert.Contains(t, structured(t, res), `"applied":1`)

	res = call(t, cs, "bash", `{"command":"cat greet.go && echo done","description":"show the edit"}`)
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), `return "hello, world"`)
	assert.Contains(t, structured(t, res), `"exit_code":0`)

	seen := asked.seen()
	require.Len(t, seen, 3, "write_file, edit_file and bash asked")
	for i, name := range []string{"write_file", "edit_file", "bash"} {
		assert.True(t, strings.HasPrefix(seen[i], "Allow the tool call "+name+"?"), seen[i])
	}
	assert.Contains(t, seen[2], `"command":"cat greet.go && echo done"`, "the person sees what runs")
	// Standard error is copied from the process as it comes: wait for it.
	require.Eventually(t, func() bool { return strings.Count(logs.String(), " (mcp-session-1): ok after ") == 7 }, 5*time.Second, 5*time.Millisecond)
	for _, name := range []string{"read_file", "grep", "glob", "web_fetch", "write_file", "edit_file", "bash"} {
		assert.Contains(t, logs.String(), " "+name+" (mcp-session-1): ok after ")
	}
}
