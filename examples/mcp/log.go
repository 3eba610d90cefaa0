package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/toolgen-go/toolgen/runtime"
)

// logger writes one line per event to standard error, which an MCP
// client keeps as the server's log (standard output is the protocol's).
type logger struct {
	mu    sync.Mutex
	w     io.Writer
	quiet bool
}

func newLogger(w io.Writer, quiet bool) *logger { return &logger{w: w, quiet: quiet} }

// printf writes one line, unless the logger is quiet.
func (l *logger) printf(format string, args ...any) {
	if l.quiet {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format+"\n", args...)
}

// observe logs the outcome of every call of rt: "mcp-3 bash
// (mcp-session-1): ABORTED after 120ms".
func (l *logger) observe(rt *runtime.Runtime) {
	var mu sync.Mutex
	started := map[runtime.Token]time.Time{}
	rt.WrapExecute(func(ctx context.Context, exec runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
		mu.Lock()
		started[exec.Token()] = time.Now()
		mu.Unlock()
		return next(ctx)
	})
	rt.OnResult(func(exec runtime.Execution, res runtime.Result) {
		mu.Lock()
		t0, ran := started[exec.Token()]
		delete(started, exec.Token())
		mu.Unlock()
		outcome := "ok"
		if res.IsError() {
			outcome = string(res.Code())
		}
		agent := "no agent"
		if a := exec.Agent(); a != nil {
			agent = a.ID
		}
		if ran {
			l.printf("%s %s (%s): %s after %s", exec.CallID(), exec.Name(), agent, outcome, time.Since(t0).Round(time.Microsecond))
		} else {
			l.printf("%s %s (%s): %s before dispatch", exec.CallID(), exec.Name(), agent, outcome)
		}
	})
}
