// Package rules holds the tools the schema rules of RULES.md §18 are tested
// with. Its generated file is committed and must stay current.
package rules

//go:generate go tool toolgen -catalog TOOLS.md

import (
	"context"

	"github.com/toolgen-go/toolgen/jsonvalue"
)

// Inner is a nested struct: a closed object.
type Inner struct {
	// Name names the inner thing.
	Name string `json:"name"`
}

// Loose is a nested struct marked open: unknown members are accepted.
//
//toolgen:open
type Loose struct {
	Name string `json:"name,omitempty"`
}

// Mode is an enum: its constants are its values.
type Mode string

// The modes.
const (
	ModeA Mode = "a"
	ModeB Mode = "b"
)

// LookupArgs are the arguments of lookup.
type LookupArgs struct {
	// Path is looked up.
	Path string `json:"path"`
	// Inner is a closed nested object.
	Inner *Inner `json:"inner,omitempty"`
	// Loose is an open nested object.
	Loose *Loose `json:"loose,omitempty"`
	// Mode picks how.
	Mode Mode `json:"mode,omitempty"`
	// Label has a title and a description, which validation ignores.
	Label string `json:"label,omitempty" jsonschema:"title=Label,description=A label that is only shown"`
}

// LookupResult is what lookup returns.
type LookupResult struct {
	// Path is the path that was looked up.
	Path string `json:"path"`
}

// Lookup returns the path it was given.
//
//toolgen:tool concurrency=safe
func Lookup(ctx context.Context, args LookupArgs) (LookupResult, error) {
	return LookupResult{Path: args.Path}, ctx.Err()
}

// Shape is a sealed interface: exactly one variant must match.
//
//toolgen:oneof Circle Square
type Shape interface{ isShape() }

// Circle is a round shape.
type Circle struct {
	R float64 `json:"r,omitempty"`
}

// Square is a square shape.
type Square struct {
	S float64 `json:"s,omitempty"`
}

func (Circle) isShape() {}
func (Square) isShape() {}

// DrawArgs are the arguments of draw.
type DrawArgs struct {
	// Shape is drawn.
	Shape Shape `json:"shape"`
}

// Draw draws a shape and reports nothing.
//
//toolgen:tool
func Draw(ctx context.Context, args DrawArgs) (jsonvalue.Value, error) {
	return jsonvalue.Null(), ctx.Err()
}

// EmptyArgs has no fields.
type EmptyArgs struct{}

// Anything returns any JSON value; its output schema accepts every value.
//
//toolgen:tool
func Anything(ctx context.Context, args EmptyArgs) (jsonvalue.Value, error) {
	return jsonvalue.Null(), ctx.Err()
}
