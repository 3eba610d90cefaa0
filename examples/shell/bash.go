package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

// BashArgs are the arguments of the bash tool.
type BashArgs struct {
	// Command is the command line to run with bash -c, in the working directory.
	Command string `json:"command"`
	// Description says in a few words what the command does, for the person watching.
	Description string `json:"description,omitempty"`
	// TimeoutMS, when positive, ends the command after this many milliseconds: its process group is killed and the result has timed_out set and the output so far. It cannot extend the tool's own timeout.
	TimeoutMS int `json:"timeout_ms,omitempty"`
}

// BashResult is what the bash tool returns.
type BashResult struct {
	// Output is the combined stdout and stderr, in the order written; invalid UTF-8 appears as U+FFFD, and a capped output keeps its start and end around a marker saying how many bytes were dropped.
	Output string `json:"output"`
	// ExitCode is the exit status; absent when the process was killed by a signal.
	ExitCode *int `json:"exit_code,omitempty"`
	// Signal names the signal that killed the process, such as SIGKILL.
	Signal string `json:"signal,omitempty"`
	// TimedOut reports that timeout_ms passed and the command was killed.
	TimedOut bool `json:"timed_out"`
	// Truncated reports that output was dropped to respect the output cap.
	Truncated bool `json:"truncated"`
	// OutputBytes is how many bytes of output the command wrote in all.
	OutputBytes int64 `json:"output_bytes"`
}

// Bash runs a shell command with bash -c in the working directory and
// returns its combined stdout and stderr with its exit status. A non-zero
// exit code is reported, not treated as a failure. Stdin is empty. Long
// output keeps its beginning and end. Each call starts a fresh shell: cd
// and variables do not carry over, so chain commands with && in one call.
// Background processes that keep the output open delay the result by a few
// seconds at most.
//
//toolgen:tool name=bash timeout=120s concurrency=exclusive render=renderBash meta=bashMeta present_call=presentBashCall present_result=presentBashResult
func Bash(ctx context.Context, args BashArgs) (BashResult, error) {
	cfg, err := configFrom(ctx)
	if err != nil {
		return BashResult{}, err
	}
	switch {
	case strings.TrimSpace(args.Command) == "":
		return BashResult{}, &runtime.ToolError{Code: runtime.CodeInvalidArgs, Message: "bash: command is empty"}
	case args.TimeoutMS < 0:
		return BashResult{}, &runtime.ToolError{Code: runtime.CodeInvalidArgs, Message: fmt.Sprintf("bash: timeout_ms must not be negative, got %d", args.TimeoutMS)}
	}

	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if args.TimeoutMS > 0 {
		runCtx, cancel = context.WithTimeout(ctx, time.Duration(args.TimeoutMS)*time.Millisecond)
	}
	defer cancel()

	// The output goes through a pipe of our own, so that Wait returns when
	// bash exits and draining what its descendants still write is bounded
	// here, where a cut-off can be reported.
	pr, pw, err := os.Pipe()
	if err != nil {
		return BashResult{}, fmt.Errorf("bash: cannot create the output pipe: %w", err)
	}
	cmd := exec.CommandContext(runCtx, cfg.bash, "-c", args.Command)
	cmd.Dir = cfg.dir
	cmd.Env = cfg.env
	cmd.Stdout, cmd.Stderr = pw, pw
	// WaitDelay bounds Wait should the group survive the kill (a process
	// stuck in the kernel, or one that left the group).
	cmd.WaitDelay = cfg.waitDelay
	ownGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	err = cmd.Start()
	pw.Close() // the children hold their own copies
	if err != nil {
		pr.Close()
		return BashResult{}, fmt.Errorf("bash: cannot start the shell: %w", err)
	}
	out := newCapture(cfg.maxOutput)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, pr)
	}()
	waitErr := cmd.Wait()
	// Only a deadline that passed while bash ran counts as its timeout.
	timedOut := args.TimeoutMS > 0 && runCtx.Err() != nil
	cutOff := drain(runCtx, cmd, copied, cfg.waitDelay)
	pr.Close() // ends the copy if drain gave up
	<-copied

	if ctx.Err() != nil {
		return BashResult{}, fmt.Errorf("bash: the command was stopped: %w", ctx.Err())
	}
	res := BashResult{TimedOut: timedOut}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !res.TimedOut {
		return BashResult{}, fmt.Errorf("bash: %w", waitErr)
	}
	if cutOff {
		out.note(fmt.Sprintf("[output closed: a process the command started still held it open %s after the shell exited]", cfg.waitDelay))
	}
	if st := cmd.ProcessState; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = signalName(ws.Signal())
		} else if code := st.ExitCode(); code >= 0 {
			res.ExitCode = &code
		}
	}
	res.Output, res.OutputBytes, res.Truncated = out.result()
	return res, nil
}

// drain waits, after bash exited, for the output pipe to reach end of file
// (every process holding it has exited or closed it), killing the process
// group when ctx ends meanwhile. It gives up after delay, and then closes
// the read end itself and reports true.
func drain(ctx context.Context, cmd *exec.Cmd, copied <-chan struct{}, delay time.Duration) (cutOff bool) {
	timer := time.NewTimer(delay)
	defer timer.Stop()
	done := ctx.Done()
	for {
		select {
		case <-copied:
			return false
		case <-done:
			_ = killGroup(cmd)
			done = nil
		case <-timer.C:
			return true
		}
	}
}

// renderBash renders a result for the model: the output, then one line
// with the exit status.
func renderBash(args BashArgs, res BashResult) []runtime.ContentBlock {
	var b strings.Builder
	switch {
	case res.Output == "":
		b.WriteString("(no output)\n")
	case !strings.HasSuffix(res.Output, "\n"):
		b.WriteString(res.Output + "\n")
	default:
		b.WriteString(res.Output)
	}
	switch {
	case res.TimedOut:
		fmt.Fprintf(&b, "[timed out after %d ms: the command was killed]", args.TimeoutMS)
	case res.Signal != "":
		fmt.Fprintf(&b, "[killed by signal %s]", res.Signal)
	case res.ExitCode != nil:
		fmt.Fprintf(&b, "[exit code %d]", *res.ExitCode)
	}
	return []runtime.ContentBlock{runtime.Text(b.String())}
}

// bashPresentation is the presentation metadata of a bash result, from
// which presentBashResult builds the terminal card (the durable result a
// presenter sees has no value).
type bashPresentation struct {
	Output    string `json:"output"`
	ExitCode  *int   `json:"exitCode,omitempty"`
	Signal    string `json:"signal,omitempty"`
	TimedOut  bool   `json:"timedOut,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// bashMeta is the presentation metadata of a result: the output and exit
// status the terminal card shows.
func bashMeta(_ BashArgs, res BashResult) jsonvalue.Value {
	meta, err := json.Marshal(bashPresentation{
		Output: res.Output, ExitCode: res.ExitCode, Signal: res.Signal,
		TimedOut: res.TimedOut, Truncated: res.Truncated,
	})
	if err != nil { // cannot happen: the struct has only strings, ints and bools
		return nil
	}
	return jsonvalue.Value(meta)
}

// presentBashCall shows a pending command as a terminal card: the command
// as its title, the description beside it. New adds the working directory.
func presentBashCall(args BashArgs) *runtime.ToolCallView {
	return &runtime.ToolCallView{Card: runtime.CallTerminal, Title: args.Command, Description: args.Description}
}

// presentBashResult shows a finished command as a terminal card with its
// output and exit status, read from the result's presentation meta. A
// failed call, or a result without meta (a nested call's), has no card:
// the UI shows the raw content.
func presentBashResult(args BashArgs, result runtime.ToolResult) *runtime.ToolResultView {
	if result.IsError || result.Meta == nil {
		return nil
	}
	var p bashPresentation
	if err := json.Unmarshal(result.Meta, &p); err != nil {
		return nil
	}
	v := &runtime.ToolResultView{Card: runtime.ResultTerminal, Output: &p.Output, ExitCode: p.ExitCode, Signal: p.Signal}
	if p.TimedOut {
		v.Title = fmt.Sprintf("timed out after %d ms", args.TimeoutMS)
	}
	return v
}
