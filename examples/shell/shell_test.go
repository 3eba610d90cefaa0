//go:build unix

package shell_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolgen-go/toolgen/examples/shell"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/timeout"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// setup returns a runtime with the bash tool registered from cfg; an empty
// cfg.Dir becomes a fresh temporary directory.
func setup(t *testing.T, cfg shell.Config) (*runtime.Runtime, shell.Config) {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	defs, err := shell.New(cfg)
	require.NoError(t, err)
	rt := runtime.New(runtime.WithErrorHandler(func(err error) { t.Errorf("runtime error: %v", err) }))
	for _, d := range defs {
		_, err := rt.Register(d)
		require.NoError(t, err, d.Name)
	}
	return rt, cfg
}

// bashCall is the ExecutionInput of a bash call with the given arguments.
func bashCall(args map[string]any) runtime.ExecutionInput {
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return runtime.ExecutionInput{CallID: "call-1", Name: "bash", Arguments: raw}
}

// result is the decoded value of a successful bash call.
type result struct {
	Output      string `json:"output"`
	ExitCode    *int   `json:"exit_code"`
	Signal      string `json:"signal"`
	TimedOut    bool   `json:"timed_out"`
	Truncated   bool   `json:"truncated"`
	OutputBytes int64  `json:"output_bytes"`
}

func decode(t *testing.T, res runtime.Result) result {
	t.Helper()
	require.False(t, res.IsError(), "failure: %+v", res.Failure)
	var r result
	require.NoError(t, json.Unmarshal(res.Value, &r))
	return r
}

func text(res runtime.Result) string {
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func intp(n int) *int { return &n }

func TestCommands(t *testing.T) {
	rt, cfg := setup(t, shell.Config{Env: []string{"GREETING=hello from env", "PATH=" + os.Getenv("PATH")}})
	realDir, err := filepath.EvalSymlinks(cfg.Dir)
	require.NoError(t, err)
	tests := []struct {
		name     string
		command  string
		output   string
		exitCode *int
		signal   string
		content  string
	}{
		{name: "echo", command: "echo hello", output: "hello\n", exitCode: intp(0), content: "hello\n[exit code 0]"},
		{name: "non-zero exit", command: "echo failing; exit 3", output: "failing\n", exitCode: intp(3), content: "failing\n[exit code 3]"},
		{name: "stderr merged in order", command: "echo out; echo err >&2; echo out2", output: "out\nerr\nout2\n", exitCode: intp(0)},
		{name: "no output", command: "true", output: "", exitCode: intp(0), content: "(no output)\n[exit code 0]"},
		{name: "no trailing newline", command: "printf abc", output: "abc", exitCode: intp(0), content: "abc\n[exit code 0]"},
		{name: "command not found", command: "no-such-command-xyz 2>/dev/null", output: "", exitCode: intp(127)},
		{name: "working directory", command: "pwd -P", output: realDir + "\n", exitCode: intp(0)},
		{name: "environment", command: `echo "$GREETING"`, output: "hello from env\n", exitCode: intp(0)},
		{name: "stdin is empty", command: "cat; echo done", output: "done\n", exitCode: intp(0)},
		{name: "killed by a signal", command: "kill -TERM $$", output: "", signal: "SIGTERM", content: "(no output)\n[killed by signal SIGTERM]"},
		{name: "invalid UTF-8 repaired", command: `printf 'a\377b'`, output: "a\uFFFDb", exitCode: intp(0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := rt.Execute(context.Background(), bashCall(map[string]any{"command": tc.command}))
			r := decode(t, res)
			assert.Equal(t, tc.output, r.Output)
			assert.Equal(t, tc.exitCode, r.ExitCode)
			assert.Equal(t, tc.signal, r.Signal)
			assert.False(t, r.Truncated)
			assert.False(t, r.TimedOut)
			if tc.content != "" {
				assert.Equal(t, tc.content, text(res))
			}
		})
	}
}

func TestOutputCap(t *testing.T) {
	rt, _ := setup(t, shell.Config{MaxOutput: 100})
	tests := []struct {
		name    string
		command string
		total   int64
		head    string
		tail    string
		dropped int
	}{
		{name: "one big write", command: `head -c 1000 /dev/zero | tr '\0' a; printf END`, total: 1003, head: strings.Repeat("a", 50), tail: strings.Repeat("a", 47) + "END", dropped: 903},
		{name: "many lines", command: `for i in $(seq 1 200); do echo "line $i"; done`, total: 1692, dropped: 1592},
		// 3-byte characters: the cuts at 50 and 1000-50 fall inside
		// characters, which are dropped whole.
		{name: "multibyte characters cut whole", command: `for i in $(seq 1 333); do printf '€'; done; printf x`, total: 1000, head: strings.Repeat("€", 16), tail: strings.Repeat("€", 16) + "x", dropped: 1000 - 48 - 49},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := rt.Execute(context.Background(), bashCall(map[string]any{"command": tc.command}))
			r := decode(t, res)
			assert.True(t, r.Truncated)
			assert.Equal(t, tc.total, r.OutputBytes)
			assert.True(t, utf8.ValidString(r.Output))
			assert.NotContains(t, r.Output, "\uFFFD")
			marker := fmt.Sprintf("[... %d bytes of output dropped: %d written in all", tc.dropped, tc.total)
			assert.Contains(t, r.Output, marker)
			before, after, ok := strings.Cut(r.Output, "[... ")
			require.True(t, ok)
			_, after, _ = strings.Cut(after, "...]\n")
			if tc.head != "" {
				assert.Equal(t, tc.head+"\n", before)
				assert.Equal(t, tc.tail, after)
			}
			assert.LessOrEqual(t, len(strings.TrimSuffix(before, "\n"))+len(after), 100)
		})
	}

	// Output at the cap exactly is not truncated.
	res := rt.Execute(context.Background(), bashCall(map[string]any{"command": `head -c 100 /dev/zero | tr '\0' b`}))
	r := decode(t, res)
	assert.False(t, r.Truncated)
	assert.Equal(t, strings.Repeat("b", 100), r.Output)
}

func TestBadArguments(t *testing.T) {
	rt, _ := setup(t, shell.Config{})
	tests := []struct {
		name string
		args string
	}{
		{"missing command", `{}`},
		{"empty command", `{"command":"  "}`},
		{"command not a string", `{"command":42}`},
		{"negative timeout", `{"command":"true","timeout_ms":-1}`},
		{"fractional timeout", `{"command":"true","timeout_ms":1.5}`},
		{"not an object", `["echo"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := rt.Execute(context.Background(), runtime.ExecutionInput{CallID: "c", Name: "bash", Arguments: []byte(tc.args)})
			assert.Equal(t, runtime.CodeInvalidArgs, res.Code(), "%+v", res.Failure)
		})
	}
}

// startedPID runs command through bash on rt in the background with ctx;
// the command must write a PID to $PIDFILE. It returns that PID and a
// channel with the result.
func startedPID(t *testing.T, rt *runtime.Runtime, ctx context.Context, dir, command string, extra map[string]any) (int, <-chan runtime.Result) {
	t.Helper()
	pidFile := filepath.Join(dir, "pid")
	args := map[string]any{"command": "PIDFILE=" + pidFile + "; " + command}
	for k, v := range extra {
		args[k] = v
	}
	done := make(chan runtime.Result, 1)
	go func() { done <- rt.Execute(ctx, bashCall(args)) }()
	var pid int
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	}, 5*time.Second, 5*time.Millisecond, "the command did not write its PID")
	return pid, done
}

// gone reports whether process pid no longer runs: it does not exist, or
// it is a zombie waiting for its (new) parent to reap it.
func gone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the parenthesized command name.
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z")
}

// requireGone fails unless pid stops running soon; if it still runs, it
// is killed so that the test leaves nothing behind.
func requireGone(t *testing.T, pid int) {
	t.Helper()
	if !assert.Eventually(t, func() bool { return gone(pid) }, 2*time.Second, 5*time.Millisecond, "process %d survived", pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// A background job and a foreground one, with the job's PID written out.
const sleepers = `sleep 30 & echo $! > "$PIDFILE"; sleep 30`

func TestCancellationKillsTheProcessGroup(t *testing.T) {
	rt, cfg := setup(t, shell.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pid, done := startedPID(t, rt, ctx, cfg.Dir, sleepers, nil)
	start := time.Now()
	cancel()
	var res runtime.Result
	select {
	case res = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not return after cancellation")
	}
	assert.Less(t, time.Since(start), time.Second)
	assert.Equal(t, runtime.CodeAborted, res.Code(), "%+v", res.Failure)
	requireGone(t, pid)
	assert.Nil(t, rt.PresentResult(bashCall(map[string]any{"command": sleepers}), res.Durable()), "a failed call has no card")
}

func TestDefinitionTimeout(t *testing.T) {
	rt, cfg := setup(t, shell.Config{Timeout: 300 * time.Millisecond})
	timeout.Install(rt)
	def, ok := rt.Get("bash", nil)
	require.True(t, ok)
	assert.Equal(t, 300*time.Millisecond, def.Timeout)

	start := time.Now()
	pid, done := startedPID(t, rt, context.Background(), cfg.Dir, sleepers, nil)
	var res runtime.Result
	select {
	case res = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not time out")
	}
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, runtime.CodeTimeout, res.Code(), "%+v", res.Failure)
	requireGone(t, pid)

	// A quick command is unaffected.
	r := decode(t, rt.Execute(context.Background(), bashCall(map[string]any{"command": "echo quick"})))
	assert.Equal(t, "quick\n", r.Output)
}

func TestPerCallTimeout(t *testing.T) {
	rt, cfg := setup(t, shell.Config{})
	pid, done := startedPID(t, rt, context.Background(), cfg.Dir, `echo before; `+sleepers, map[string]any{"timeout_ms": 200})
	var res runtime.Result
	select {
	case res = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("timeout_ms did not end the command")
	}
	r := decode(t, res)
	assert.True(t, r.TimedOut)
	assert.Nil(t, r.ExitCode)
	assert.Equal(t, "SIGKILL", r.Signal)
	assert.Equal(t, "before\n", r.Output)
	assert.Equal(t, "before\n[timed out after 200 ms: the command was killed]", text(res))
	requireGone(t, pid)
}

func TestBackgroundProcesses(t *testing.T) {
	t.Run("holding the output", func(t *testing.T) {
		rt, cfg := setup(t, shell.Config{WaitDelay: 200 * time.Millisecond})
		start := time.Now()
		pid, done := startedPID(t, rt, context.Background(), cfg.Dir, `sleep 30 & echo $! > "$PIDFILE"; echo started`, nil)
		defer func() { _ = syscall.Kill(pid, syscall.SIGKILL) }()
		r := decode(t, <-done)
		assert.Less(t, time.Since(start), 2*time.Second)
		assert.Equal(t, intp(0), r.ExitCode)
		assert.Equal(t, "started\n[output closed: a process the command started still held it open 200ms after the shell exited]\n", r.Output)
	})
	t.Run("detached from the output", func(t *testing.T) {
		rt, cfg := setup(t, shell.Config{})
		start := time.Now()
		pid, done := startedPID(t, rt, context.Background(), cfg.Dir, `sleep 30 >/dev/null 2>&1 & echo $! > "$PIDFILE"; echo started`, nil)
		defer func() { _ = syscall.Kill(pid, syscall.SIGKILL) }()
		r := decode(t, <-done)
		assert.Less(t, time.Since(start), shell.DefaultWaitDelay/2, "a job that does not hold the output does not delay the result")
		assert.Equal(t, "started\n", r.Output)
		assert.False(t, gone(pid), "a job left running on purpose keeps running")
	})
}

func TestCards(t *testing.T) {
	rt, cfg := setup(t, shell.Config{})
	tests := []struct {
		name  string
		args  map[string]any
		call  runtime.ToolCallView
		final runtime.ToolResultView
	}{
		{
			name:  "with description",
			args:  map[string]any{"command": "echo hi; exit 2", "description": "Say hi"},
			call:  runtime.ToolCallView{Card: runtime.CallTerminal, Title: "echo hi; exit 2", Description: "Say hi", Cwd: cfg.Dir},
			final: runtime.ToolResultView{Card: runtime.ResultTerminal, Output: new("hi\n"), ExitCode: intp(2)},
		},
		{
			name:  "without description",
			args:  map[string]any{"command": "echo hi"},
			call:  runtime.ToolCallView{Card: runtime.CallTerminal, Title: "echo hi", Cwd: cfg.Dir},
			final: runtime.ToolResultView{Card: runtime.ResultTerminal, Output: new("hi\n"), ExitCode: intp(0)},
		},
		{
			name:  "killed",
			args:  map[string]any{"command": "kill -KILL $$"},
			call:  runtime.ToolCallView{Card: runtime.CallTerminal, Title: "kill -KILL $$", Cwd: cfg.Dir},
			final: runtime.ToolResultView{Card: runtime.ResultTerminal, Output: new(""), Signal: "SIGKILL"},
		},
		{
			name:  "timed out",
			args:  map[string]any{"command": "sleep 10", "timeout_ms": 50},
			call:  runtime.ToolCallView{Card: runtime.CallTerminal, Title: "sleep 10", Cwd: cfg.Dir},
			final: runtime.ToolResultView{Card: runtime.ResultTerminal, Title: "timed out after 50 ms", Output: new(""), Signal: "SIGKILL"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := bashCall(tc.args)
			call := rt.PresentCall(in)
			require.NoError(t, call.Check())
			assert.Equal(t, tc.call, call)

			res := rt.Execute(context.Background(), in)
			require.False(t, res.IsError(), "%+v", res.Failure)
			final := rt.PresentResult(in, res.Durable())
			require.NotNil(t, final)
			require.NoError(t, final.Check())
			assert.Equal(t, tc.final, *final)
		})
	}

	// Arguments that do not decode get the generic card.
	in := runtime.ExecutionInput{CallID: "c", Name: "bash", Arguments: []byte(`{"command":1}`)}
	assert.Equal(t, runtime.CallGeneric, rt.PresentCall(in).Card)
}

func TestDefinitions(t *testing.T) {
	dir := t.TempDir()
	defs, err := shell.New(shell.Config{Dir: dir})
	require.NoError(t, err)
	require.Len(t, defs, 1)
	assert.Equal(t, "bash", defs[0].Name)
	assert.Equal(t, 120*time.Second, defs[0].Timeout, "the directive's timeout without Config.Timeout")

	rt := runtime.New()
	_, err = rt.Register(defs[0])
	require.NoError(t, err)
	assert.Equal(t, runtime.Exclusive, rt.ExecutionMode(bashCall(map[string]any{"command": "true"})))
	schemas := rt.Schemas(nil)
	require.Len(t, schemas, 1)
	assert.Contains(t, schemas[0].Description, "bash -c")

	// The generated definitions alone have no configuration.
	bare := runtime.New()
	_, err = bare.Register(shell.Tools()[0])
	require.NoError(t, err)
	res := bare.Execute(context.Background(), bashCall(map[string]any{"command": "true"}))
	assert.Equal(t, runtime.CodeToolError, res.Code())
	assert.Contains(t, res.Failure.Message, "shell.New")
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	tests := []struct {
		name string
		cfg  shell.Config
		want string
	}{
		{"no directory", shell.Config{}, "no Config.Dir"},
		{"missing directory", shell.Config{Dir: filepath.Join(dir, "nope")}, "no such file or directory"},
		{"file as directory", shell.Config{Dir: file}, "is not a directory"},
		{"negative output cap", shell.Config{Dir: dir, MaxOutput: -1}, "invalid Config.MaxOutput: must not be negative"},
		{"negative timeout", shell.Config{Dir: dir, Timeout: -time.Second}, "invalid Config.Timeout: must not be negative"},
		{"negative wait delay", shell.Config{Dir: dir, WaitDelay: -time.Second}, "invalid Config.WaitDelay: must not be negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defs, err := shell.New(tc.cfg)
			assert.Nil(t, defs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	t.Run("relative directory made absolute", func(t *testing.T) {
		rt, _ := setup(t, shell.Config{Dir: "."})
		call := rt.PresentCall(bashCall(map[string]any{"command": "true"}))
		wd, err := os.Getwd()
		require.NoError(t, err)
		assert.Equal(t, wd, call.Cwd)
	})
}
