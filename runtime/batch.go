package runtime

import (
	"context"
	"sync"
)

// DefaultBatchWidth is the parallel width ExecuteBatch uses when none is
// set.
const DefaultBatchWidth = 8

// BatchOptions configures ExecuteBatch.
type BatchOptions struct {
	// Width is the most parallel calls that run at once; 0 or less means
	// DefaultBatchWidth.
	Width int
}

// ExecuteBatch runs one agent's pending calls, in model order, the way an
// agent loop schedules them: each maximal run of consecutive Parallel calls
// (see ExecutionMode) runs on a rolling pool of opts.Width goroutines, and
// each Exclusive call runs alone, after everything before it has finished
// and before anything after it starts. Within a parallel run, every call's
// pre-execute policies, approvals and guards are resolved in order before
// any body of the run starts, so approvals are never asked while sibling
// tools run. Results come back in call order, one per call; cancellation of
// ctx reaches every call as Execute describes. Observers of parallel calls
// may run concurrently.
func (rt *Runtime) ExecuteBatch(ctx context.Context, calls []ExecutionInput, opts BatchOptions) []Result {
	width := opts.Width
	if width <= 0 {
		width = DefaultBatchWidth
	}
	// Classify every call once, up front, as the agent loop plans its
	// barriers before anything runs.
	modes := make([]ExecutionMode, len(calls))
	for i, in := range calls {
		modes[i] = rt.ExecutionMode(in)
	}
	results := make([]Result, len(calls))
	for i := 0; i < len(calls); {
		if modes[i] == Exclusive {
			results[i] = rt.Execute(ctx, calls[i])
			i++
			continue
		}
		j := i + 1
		for j < len(calls) && modes[j] == Parallel {
			j++
		}
		rt.runParallel(ctx, calls[i:j], results[i:j], width)
		i = j
	}
	return results
}

// runParallel gates calls in order, then dispatches them on a rolling pool.
func (rt *Runtime) runParallel(ctx context.Context, calls []ExecutionInput, results []Result, width int) {
	gated := make([]*call, len(calls))
	for k, in := range calls {
		c := rt.begin(ctx, in)
		c.gate()
		gated[k] = c
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, width)
	for k, c := range gated {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			c.dispatch()
			results[k] = c.end()
		}()
	}
	wg.Wait()
}
