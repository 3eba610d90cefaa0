// Package quickstart is the README's quick start: one annotated tool, its
// generated code, and an example that registers and executes it.
package quickstart

import (
	"context"
	"strings"
)

//go:generate go tool toolgen -catalog TOOLS.md

// GreetArgs are the arguments of greet.
type GreetArgs struct {
	// Name is who to greet.
	Name string `json:"name"`
	// Shout greets in capitals.
	Shout bool `json:"shout,omitempty"`
}

// Greeting is what greet returns.
type Greeting struct {
	// Text is the greeting.
	Text string `json:"text"`
}

// Greet says hello to someone.
//
//toolgen:tool timeout=5s concurrency=safe
func Greet(ctx context.Context, args GreetArgs) (Greeting, error) {
	text := "hello, " + args.Name
	if args.Shout {
		text = strings.ToUpper(text)
	}
	return Greeting{Text: text}, ctx.Err()
}
