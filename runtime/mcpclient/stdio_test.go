package mcpclient_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpclient"
)

// TestExampleServerOverStdio imports the tools of examples/mcp, the
// built binary on a real stdio pipe, into a fresh Runtime and calls them
// through Runtime.Execute with a guard in front.
func TestExampleServerOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds examples/mcp")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcp-example")
	build := exec.Command("go", "build", "-o", bin, "github.com/toolgen-go/toolgen/examples/mcp")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	root := filepath.Join(dir, "root")
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("alpha\nbeta\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "secret.txt"), []byte("hidden\n"), 0o644))

	rt := runtime.New()
	rt.Guard(func(exec runtime.Execution) error {
		if strings.Contains(string(exec.Arguments()), "secret") {
			return errors.New("secrets stay local")
		}
		return nil
	})
	ctx := context.Background()
	im, err := mcpclient.Connect(ctx, rt, mcpclient.Command(bin, "-root", root, "-quiet"), mcpclient.Options{Prefix: "ex_"})
	require.NoError(t, err)
	defer func() { assert.NoError(t, im.Close()) }()

	var names []string
	for _, tr := range im.Report().Tools {
		require.NoError(t, tr.Err, tr.Name)
		names = append(names, tr.Registered)
	}
	assert.ElementsMatch(t, []string{"ex_bash", "ex_edit_file", "ex_glob", "ex_grep", "ex_read_file", "ex_web_fetch", "ex_write_file"}, names)

	res := call(rt, ctx, "ex_read_file", `{"path":"notes.txt"}`, nil)
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Contains(t, string(res.Value), `"lines":["alpha","beta"]`, "the structured value comes back")

	res = call(rt, ctx, "ex_grep", `{"pattern":"^b"}`, nil)
	require.False(t, res.IsError(), "%+v", res.Failure)
	assert.Contains(t, string(res.Value), `"total":1`)

	res = call(rt, ctx, "ex_read_file", `{"path":"secret.txt"}`, nil)
	assert.Equal(t, runtime.CodeDenied, res.Code(), "the local guard stops the call before the server sees it")

	res = call(rt, ctx, "ex_read_file", `{"path":7}`, nil)
	assert.Equal(t, runtime.CodeInvalidArgs, res.Code(), "the imported schema is enforced locally")

	// The server asks before writes; this client cannot answer an
	// elicitation, so the server denies, and the denial comes back as a
	// tool failure with the server's text.
	res = call(rt, ctx, "ex_write_file", `{"path":"new.txt","content":"x"}`, nil)
	require.True(t, res.IsError())
	assert.Equal(t, runtime.CodeToolError, res.Code())
	assert.Contains(t, res.Failure.Message, "DENIED")
	assert.NoFileExists(t, filepath.Join(root, "new.txt"))
}
