//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sleeper is a bash command that writes its pid to sleep.pid and becomes
// a 30-second sleep.
const sleeper = `{"command":"echo $$ > sleep.pid && exec sleep 30","description":"wait"}`

// cancelSleep calls bash with sleeper, cancels the call as soon as the
// sleep runs, and checks that the call ends quickly, that the server saw
// it as ABORTED, and that the sleep's process is gone.
func cancelSleep(t *testing.T, cs *mcp.ClientSession, root string, logs interface{ String() string }) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: json.RawMessage(sleeper)})
		errc <- err
	}()
	pidFile := filepath.Join(root, "sleep.pid")
	var pid int
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(pidFile)
		if err != nil || !strings.HasSuffix(string(data), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil
	}, 10*time.Second, 5*time.Millisecond, "the command did not start")
	require.NoError(t, syscall.Kill(pid, 0), "the sleep runs")

	cancel()
	select {
	case err := <-errc:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("CallTool did not return after its context was cancelled")
	}
	require.Eventually(t, func() bool {
		return regexp.MustCompile(` bash \(mcp-session-\d+\): ABORTED after `).MatchString(logs.String())
	}, 5*time.Second, 5*time.Millisecond, "the server-side call did not end as ABORTED:\n%s", logs)
	require.Eventually(t, func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}, 5*time.Second, 5*time.Millisecond, "the sleep (pid %d) was not killed", pid)
	assert.Less(t, time.Since(start), 10*time.Second, "the call ended long before the sleep would have")
}

// TestCancelOverStdio cancels a slow bash mid-call over standard input and
// output.
func TestCancelOverStdio(t *testing.T) {
	root := newWorkspace(t)
	var asked elicitations
	cs, logs := startStdio(t, root, &mcp.ClientOptions{ElicitationHandler: asked.handler})
	cancelSleep(t, cs, root, logs)
	res := call(t, cs, "read_file", `{"path":"README.md"}`)
	assert.False(t, res.IsError, "the session goes on: %s", text(res))
}

// httpServer is the built example serving streamable HTTP.
type httpServer struct {
	cmd      *exec.Cmd
	logs     *logBuffer
	endpoint string
	copied   chan struct{}
}

// startHTTP runs the built example with -http 127.0.0.1:0 and reads the
// endpoint it prints.
func startHTTP(t *testing.T, root string) *httpServer {
	t.Helper()
	s := &httpServer{cmd: exec.Command(binary, "-root", root, "-http", "127.0.0.1:0"), logs: &logBuffer{}, copied: make(chan struct{})}
	stderr, err := s.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	endpoint := make(chan string, 1)
	go func() {
		defer close(s.copied)
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/mcp)$`)
		for sc.Scan() {
			fmt.Fprintln(s.logs, sc.Text())
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				endpoint <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
			<-s.copied
			_ = s.cmd.Wait()
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.logs)
		}
	})
	select {
	case s.endpoint = <-endpoint:
	case <-time.After(10 * time.Second):
		t.Fatalf("the server printed no endpoint:\n%s", s.logs)
	}
	return s
}

// stop interrupts the server and checks that it exits cleanly.
func (s *httpServer) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(os.Interrupt))
	done := make(chan error, 1)
	go func() {
		<-s.copied
		done <- s.cmd.Wait()
	}()
	select {
	case err := <-done:
		assert.NoError(t, err, "exit status")
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not exit after an interrupt")
	}
}

// TestStreamableHTTP drives the example over streamable HTTP on
// 127.0.0.1: listing, a read, a write approved through elicitation, a
// cancelled bash, a second session, and a clean interrupt.
func TestStreamableHTTP(t *testing.T) {
	root := newWorkspace(t)
	srv := startHTTP(t, root)
	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	var asked elicitations
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "v1"}, &mcp.ClientOptions{ElicitationHandler: asked.handler})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.endpoint, HTTPClient: &http.Client{Transport: transport}}, nil)
	require.NoError(t, err)
	defer cs.Close()

	tools, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, 7)

	res := call(t, cs, "read_file", `{"path":"main.go","limit":1}`)
	require.False(t, res.IsError, text(res))
	assert.Contains(t, structured(t, res), `"lines":["package main"]`)

	res = call(t, cs, "write_file", `{"path":"http.txt","content":"over HTTP"}`)
	require.False(t, res.IsError, text(res))
	assert.FileExists(t, filepath.Join(root, "http.txt"))
	assert.Len(t, asked.seen(), 1)

	res = call(t, cs, "read_file", `{"path":7}`)
	assert.True(t, res.IsError)
	assert.True(t, strings.HasPrefix(text(res), "INVALID_ARGS: "), text(res))

	cancelSleep(t, cs, root, srv.logs)

	other, err := mcp.NewClient(&mcp.Implementation{Name: "other", Version: "v1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.endpoint, HTTPClient: &http.Client{Transport: transport}}, nil)
	require.NoError(t, err)
	res = call(t, other, "bash", `{"command":"touch nope"}`)
	assert.True(t, strings.HasPrefix(text(res), "DENIED: "), "a second session without elicitation: %s", text(res))
	require.NoError(t, other.Close())
	require.Eventually(t, func() bool { return strings.Contains(srv.logs.String(), "mcp-session-2): DENIED before dispatch") }, 5*time.Second, 5*time.Millisecond,
		"each HTTP session is its own agent")

	require.NoError(t, cs.Close())
	srv.stop(t)
}
