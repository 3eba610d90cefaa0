package rules

import "context"

// Deep1 is level 1 of a twenty-level nesting.
type Deep1 struct {
	Next Deep2 `json:"next"`
}

// Deep2 is level 2 of a twenty-level nesting.
type Deep2 struct {
	Next Deep3 `json:"next"`
}

// Deep3 is level 3 of a twenty-level nesting.
type Deep3 struct {
	Next Deep4 `json:"next"`
}

// Deep4 is level 4 of a twenty-level nesting.
type Deep4 struct {
	Next Deep5 `json:"next"`
}

// Deep5 is level 5 of a twenty-level nesting.
type Deep5 struct {
	Next Deep6 `json:"next"`
}

// Deep6 is level 6 of a twenty-level nesting.
type Deep6 struct {
	Next Deep7 `json:"next"`
}

// Deep7 is level 7 of a twenty-level nesting.
type Deep7 struct {
	Next Deep8 `json:"next"`
}

// Deep8 is level 8 of a twenty-level nesting.
type Deep8 struct {
	Next Deep9 `json:"next"`
}

// Deep9 is level 9 of a twenty-level nesting.
type Deep9 struct {
	Next Deep10 `json:"next"`
}

// Deep10 is level 10 of a twenty-level nesting.
type Deep10 struct {
	Next Deep11 `json:"next"`
}

// Deep11 is level 11 of a twenty-level nesting.
type Deep11 struct {
	Next Deep12 `json:"next"`
}

// Deep12 is level 12 of a twenty-level nesting.
type Deep12 struct {
	Next Deep13 `json:"next"`
}

// Deep13 is level 13 of a twenty-level nesting.
type Deep13 struct {
	Next Deep14 `json:"next"`
}

// Deep14 is level 14 of a twenty-level nesting.
type Deep14 struct {
	Next Deep15 `json:"next"`
}

// Deep15 is level 15 of a twenty-level nesting.
type Deep15 struct {
	Next Deep16 `json:"next"`
}

// Deep16 is level 16 of a twenty-level nesting.
type Deep16 struct {
	Next Deep17 `json:"next"`
}

// Deep17 is level 17 of a twenty-level nesting.
type Deep17 struct {
	Next Deep18 `json:"next"`
}

// Deep18 is level 18 of a twenty-level nesting.
type Deep18 struct {
	Next Deep19 `json:"next"`
}

// Deep19 is level 19 of a twenty-level nesting.
type Deep19 struct {
	Next Deep20 `json:"next"`
}

// Deep20 is the innermost level.
type Deep20 struct {
	Value string `json:"value"`
}

// Deep returns a twenty-level nested value.
//
//toolgen:tool
func Deep(ctx context.Context, args EmptyArgs) (Deep1, error) {
	return Deep1{}, ctx.Err()
}
