package rules

import (
	"context"
	"sync/atomic"
)

// ClassifyArgs are the arguments of classify.
type ClassifyArgs struct {
	// Path to act on.
	Path string `json:"path"`
	// Write makes the call exclusive.
	Write bool `json:"write,omitempty"`
	// Level is an int8, so 300 is schema-valid but does not decode.
	Level int8 `json:"level,omitempty"`
}

// ClassifyResult is what classify returns.
type ClassifyResult struct {
	// Path acted on.
	Path string `json:"path"`
}

// classifyCalls counts the classifier's calls, for TestR36.
var classifyCalls atomic.Int64

// classifySafe lets reads run in parallel.
func classifySafe(args ClassifyArgs) bool {
	classifyCalls.Add(1)
	return !args.Write
}

// Classify reads or writes a path; reads may overlap.
//
//toolgen:tool concurrency=classifySafe
func Classify(ctx context.Context, args ClassifyArgs) (ClassifyResult, error) {
	return ClassifyResult{Path: args.Path}, ctx.Err()
}
