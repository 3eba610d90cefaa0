package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// ToolSchema is the model-facing part of a tool: the only fields a model
// request ever carries.
type ToolSchema struct {
	// Name is the tool name: 1 to 128 characters of A-Z, a-z, 0-9, '_', '-'
	// and '.', the set every model provider and MCP accept.
	Name string
	// Description tells the model what the tool does.
	Description string
	// Parameters is the parameter schema: an object-rooted schema of the
	// enforced subset. Nodes are immutable, so sharing one is safe.
	Parameters *schemasubset.Node
}

// MarshalJSON encodes {"name":...,"description":...,"parameters":...} with
// the canonical JSON of the parameter schema.
func (s ToolSchema) MarshalJSON() ([]byte, error) {
	params, err := s.Parameters.MarshalJSON()
	if err != nil {
		return nil, err
	}
	dst := []byte(`{"name":`)
	dst, _ = jsontext.AppendQuote(dst, s.Name)
	dst = append(dst, `,"description":`...)
	dst, _ = jsontext.AppendQuote(dst, s.Description)
	dst = append(dst, `,"parameters":`...)
	dst = append(dst, params...)
	return append(dst, '}'), nil
}

// OutputDefinition is a tool's mandatory output contract.
type OutputDefinition struct {
	// Schema is enforced on every successful value; any root is allowed.
	Schema *schemasubset.Node
	// Render projects validated arguments and value to model-facing content.
	// It must be pure and must not modify its inputs.
	Render func(args, value jsonvalue.Value) ([]ContentBlock, error)
	// PresentationMeta optionally projects arguments and value to replayable
	// presentation metadata; it runs for top-level calls only. Like Render
	// it must be pure and must not modify its inputs.
	PresentationMeta func(args, value jsonvalue.Value) (jsonvalue.Value, error)
	// Validate optionally replaces schemasubset.Validate(Schema, value) with
	// a static validator (generated code provides one). It must agree with
	// Schema.
	Validate func(value jsonvalue.Value) error
}

// ToolDefinition is a registered tool: its schema, its output contract, its
// body, and host-only metadata that never reaches a model.
type ToolDefinition struct {
	ToolSchema
	// Output is the mandatory output contract.
	Output OutputDefinition
	// Execute runs one accepted call. args are the materialized arguments,
	// already valid against Parameters unless ValidatesArguments is set (the
	// body gets its own copy);
	// ctx carries the caller's cancellation, fused with any wrapper's; the
	// body must honour it and return only after its own work has stopped.
	// The returned value must be JSON; a returned *ToolError keeps its code.
	Execute func(ctx context.Context, args jsonvalue.Value, rc *RunContext) (jsonvalue.Value, error)
	// ValidatesArguments declares that Execute validates its arguments
	// against Parameters itself, reporting violations as a *ToolError with
	// CodeInvalidArgs, so the runtime does not validate them again.
	// Generated adapters, which validate while decoding, set it.
	ValidatesArguments bool
	// ValidatesOutput declares that every value Execute returns is valid
	// against Output.Schema by construction, so the runtime does not
	// validate it again; a value a post-execute listener puts in its place
	// is still validated. Generated adapters set it for output types whose
	// Go shape alone guarantees the schema (no enum, const, oneOf, custom
	// wire form, non-nullable pointer, or required field that omitempty can
	// drop).
	ValidatesOutput bool
	// FinalizeContent optionally replaces the content of every outcome,
	// failures included, exactly once before the result is frozen. It sees
	// the execution, not typed arguments, because invalid arguments reach it
	// too. Returning nil keeps the content.
	FinalizeContent func(Execution, Result) []ContentBlock
	// Timeout is the cooperative deadline the timeout policy applies; 0
	// means none. Negative values are rejected.
	Timeout time.Duration
	// ConcurrencySafe reports whether a call with these (validated)
	// arguments may overlap with its siblings. Only true is parallel; nil,
	// false, a panic or invalid arguments are exclusive.
	ConcurrencySafe func(args jsonvalue.Value) bool
	// PresentCall optionally describes the pending call for a UI; nil
	// falls back to a generic card. It must depend only on args.
	PresentCall func(args jsonvalue.Value) *ToolCallView
	// PresentResult optionally describes the completed call for a UI; nil
	// keeps the pending title and shows the raw content.
	PresentResult func(args jsonvalue.Value, result ToolResult) *ToolResultView
}

// Errors that Register, Restrict and PresentAs wrap; test with errors.Is.
var (
	// ErrInvalidDefinition: the definition breaks a registration rule.
	ErrInvalidDefinition = errors.New("invalid tool definition")
	// ErrDuplicateTool: the layer already holds a tool of that name.
	ErrDuplicateTool = errors.New("tool already registered in this layer")
	// ErrReservedName: the name is the reserved Code Mode transport.
	ErrReservedName = errors.New("reserved tool name")
	// ErrInvalidRestriction: the restriction is empty or names a tool it
	// may not name.
	ErrInvalidRestriction = errors.New("invalid restriction")
	// ErrGlobalScope: the operation needs an agent scope.
	ErrGlobalScope = errors.New("operation needs an agent scope")
	// ErrPresentationDeclared: the scope already declared its presentation.
	ErrPresentationDeclared = errors.New("presentation already declared in this scope")
)

// RegistrationError reports why a definition, restriction or presentation
// was refused, listing every problem found.
type RegistrationError struct {
	// Name is the tool (or scope) concerned.
	Name string
	// Problems describes each problem.
	Problems []string
	errs     []error
}

// Error returns "runtime: register "name": problem; problem".
func (e *RegistrationError) Error() string {
	return fmt.Sprintf("runtime: %q: %s", e.Name, strings.Join(e.Problems, "; "))
}

// Unwrap returns the sentinel errors and schema errors behind the problems.
func (e *RegistrationError) Unwrap() []error { return e.errs }

func (e *RegistrationError) add(sentinel error, problem string, cause ...error) {
	e.Problems = append(e.Problems, problem)
	e.errs = append(e.errs, sentinel)
	e.errs = append(e.errs, cause...)
}

func (e *RegistrationError) orNil() error {
	if len(e.Problems) == 0 {
		return nil
	}
	return e
}

// validName reports whether name is 1 to 128 characters of A-Z, a-z, 0-9,
// '_', '-' and '.'.
func validName(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
		default:
			return false
		}
	}
	return true
}

// checkDefinition reports every reason def cannot be registered.
func checkDefinition(def ToolDefinition) error {
	e := &RegistrationError{Name: def.Name}
	switch {
	case def.Name == ReservedTransport:
		e.add(ErrReservedName, "the name "+ReservedTransport+" is reserved for the Code Mode transport")
	case !validName(def.Name):
		e.add(ErrInvalidDefinition, "the name must be 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'")
	}
	if err := schemasubset.AssertObject(def.Parameters); err != nil {
		e.add(ErrInvalidDefinition, "parameters: "+err.Error(), err)
	}
	if def.Output.Schema == nil {
		e.add(ErrInvalidDefinition, "output: a schema is required")
	} else if err := schemasubset.AssertSupported(def.Output.Schema); err != nil {
		e.add(ErrInvalidDefinition, "output: "+err.Error(), err)
	}
	if def.Output.Render == nil {
		e.add(ErrInvalidDefinition, "output: a renderer is required")
	}
	if def.Execute == nil {
		e.add(ErrInvalidDefinition, "execute: a body is required")
	}
	if def.Timeout < 0 {
		e.add(ErrInvalidDefinition, "timeout: must not be negative, got "+def.Timeout.String())
	}
	return e.orNil()
}
