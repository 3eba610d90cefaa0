package mcpserver

import (
	"context"
	"sync"
)

// gate is a first-in, first-out readers-writer gate: shared holders
// overlap each other, an exclusive holder overlaps nothing, and no waiter
// overtakes one that queued before it, so a stream of shared entries
// cannot starve an exclusive one (and an exclusive one holds back the
// shared entries that arrive after it). The zero gate is open.
type gate struct {
	mu        sync.Mutex
	shared    int  // shared holders
	exclusive bool // an exclusive holder
	queue     []*waiter
}

// waiter is one entry waiting in the queue.
type waiter struct {
	exclusive bool
	ready     chan struct{} // closed when admitted
	admitted  bool          // set, under gate.mu, with ready closed
}

// enter waits until the gate admits the caller, shared or exclusive, and
// reports whether it did; it gives up when ctx ends first. A caller
// admitted must call leave with the same exclusive.
func (g *gate) enter(ctx context.Context, exclusive bool) bool {
	g.mu.Lock()
	if len(g.queue) == 0 && g.fits(exclusive) {
		g.take(exclusive)
		g.mu.Unlock()
		return true
	}
	w := &waiter{exclusive: exclusive, ready: make(chan struct{})}
	g.queue = append(g.queue, w)
	g.mu.Unlock()

	select {
	case <-w.ready:
		return true
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if w.admitted {
		// Admitted while giving up: keep it, the caller leaves as usual.
		return true
	}
	for i, q := range g.queue {
		if q == w {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			break
		}
	}
	// The waiter may have been the exclusive entry holding back shared
	// ones behind it.
	g.admit()
	return false
}

// leave releases what enter granted and admits the waiters it unblocks.
func (g *gate) leave(exclusive bool) {
	g.mu.Lock()
	if exclusive {
		g.exclusive = false
	} else {
		g.shared--
	}
	g.admit()
	g.mu.Unlock()
}

// fits reports whether an entry of the kind could be admitted now, queue
// aside; g.mu is held.
func (g *gate) fits(exclusive bool) bool {
	if exclusive {
		return g.shared == 0 && !g.exclusive
	}
	return !g.exclusive
}

// take records an admission; g.mu is held.
func (g *gate) take(exclusive bool) {
	if exclusive {
		g.exclusive = true
	} else {
		g.shared++
	}
}

// admit admits waiters from the head of the queue for as long as they
// fit: a run of shared ones together, or one exclusive one; g.mu is held.
func (g *gate) admit() {
	for len(g.queue) > 0 {
		w := g.queue[0]
		if !g.fits(w.exclusive) {
			return
		}
		g.take(w.exclusive)
		g.queue[0] = nil
		g.queue = g.queue[1:]
		w.admitted = true
		close(w.ready)
		if w.exclusive {
			return
		}
	}
}
