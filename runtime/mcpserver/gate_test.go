package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queued returns the length of g's queue.
func (g *gate) queued() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

// enterAsync enters g on its own goroutine and reports on the channel.
func enterAsync(ctx context.Context, g *gate, exclusive bool) <-chan bool {
	ch := make(chan bool, 1)
	go func() { ch <- g.enter(ctx, exclusive) }()
	return ch
}

func waitQueue(t *testing.T, g *gate, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return g.queued() == n }, time.Second, time.Millisecond)
}

func pending(ch <-chan bool) bool {
	select {
	case <-ch:
		return false
	case <-time.After(10 * time.Millisecond):
		return true
	}
}

// TestGateOrder checks the gate's rules: shared entries overlap, an
// exclusive one waits for them and holds back later shared ones, and
// leaving admits the head of the queue.
func TestGateOrder(t *testing.T) {
	ctx := context.Background()
	var g gate
	require.True(t, g.enter(ctx, false))
	require.True(t, g.enter(ctx, false), "shared entries overlap")

	w := enterAsync(ctx, &g, true)
	waitQueue(t, &g, 1)
	r := enterAsync(ctx, &g, false)
	waitQueue(t, &g, 2)
	assert.True(t, pending(r), "a shared entry does not overtake a waiting exclusive one")

	g.leave(false)
	assert.True(t, pending(w))
	g.leave(false)
	assert.True(t, <-w, "the exclusive entry goes in once the gate is empty")
	assert.True(t, pending(r))
	g.leave(true)
	assert.True(t, <-r)
	g.leave(false)
	assert.Zero(t, g.shared)
	assert.False(t, g.exclusive)
	assert.Empty(t, g.queue, "the gate is open again")
}

// TestGateCancel checks that a waiter whose context ends leaves the queue,
// and that removing an exclusive waiter admits the shared ones behind it.
func TestGateCancel(t *testing.T) {
	var g gate
	bg := context.Background()
	require.True(t, g.enter(bg, false))
	ctx, cancel := context.WithCancel(bg)
	w := enterAsync(ctx, &g, true)
	waitQueue(t, &g, 1)
	r := enterAsync(bg, &g, false)
	waitQueue(t, &g, 2)
	cancel()
	assert.False(t, <-w, "the cancelled waiter gives up")
	assert.True(t, <-r, "the shared entry behind it is admitted")
	assert.Equal(t, 0, g.queued())
	g.leave(false)
	g.leave(false)

	require.True(t, g.enter(bg, true))
	done, stop := context.WithCancel(bg)
	stop()
	assert.False(t, g.enter(done, false), "an ended context gives up at once when the gate is busy")
	g.leave(true)
	assert.True(t, g.enter(done, false), "an open gate admits even an ended context: the Runtime judges it")
	g.leave(false)
}
