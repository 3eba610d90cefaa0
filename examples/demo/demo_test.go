package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolgen-go/toolgen/runtime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestDemo runs the whole demo: every step must behave as stated.
func TestDemo(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out), out.String())
	for _, want := range []string{
		"call_1  parallel  ▸ Read main.go [read]",
		"call_6  exclusive ✎ Edit greet.go",
		"error DENIED: secrets stay out",
		"error DENIED: approval required: the model wants to run a shell command (denied)",
		"error INVALID_ARGS: invalid arguments: /pattern: want string, got number",
		"error TIMEOUT:",
		`"name": "web_fetch"`,
		"every step behaved as stated",
	} {
		assert.Contains(t, out.String(), want)
	}
}

// TestVerifyCatches checks that the demo's own checks fail when the
// scheduling, the approvals or the guard do not behave as stated.
func TestVerifyCatches(t *testing.T) {
	calls := []runtime.ExecutionInput{{CallID: "call_1"}, {CallID: "call_2"}}
	rec := &recorder{
		asked:   []string{"call_6"},
		guarded: []string{"call_1"},
		overlap: map[string]int{"call_1": 1, "call_2": 2},
	}
	problems := rec.verify(calls, []runtime.ExecutionMode{runtime.Parallel, runtime.Exclusive})
	require.Len(t, problems, 4)
	assert.ErrorContains(t, problems[0], "call_2 ran exclusive but overlapped 2 bodies")
	assert.ErrorContains(t, problems[1], "the parallel reads never overlapped")
	assert.ErrorContains(t, problems[2], "approvals asked for [call_6]")
	assert.ErrorContains(t, problems[3], "the guard saw [call_1]")
}

// TestAllowListed checks the shell allow-list refuses chained commands.
func TestAllowListed(t *testing.T) {
	for cmd, want := range map[string]bool{
		"cat greet.go": true, "ls": true, "go version": true,
		"cat x; rm -rf /": false, "ls && rm x": false, "cat $(rm x)": false,
		"rm -rf docs": false, "catalog": false, "ls > x": false,
	} {
		assert.Equal(t, want, allowListed(cmd), cmd)
	}
}
