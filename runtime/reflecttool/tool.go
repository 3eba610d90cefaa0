package reflecttool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// New builds a tool definition from a typed Go function by reflection. The
// parameter schema is [ParamsSchema] of P and the output schema is
// [OutputSchema] of O; a type either function refuses makes New fail with
// an error that names the tool and wraps the schema error.
//
// The definition's Execute validates the arguments against the parameter
// schema, decodes them into a P with encoding/json, calls fn and encodes
// its output with encoding/json. Arguments that break the schema, or that
// encoding/json cannot hold in a P (an integer outside an int8's range,
// for example), fail with a [*runtime.ToolError] of code
// [runtime.CodeInvalidArgs]; an output that encoding/json cannot encode
// fails with code [runtime.CodeInvalidToolOutput]. An error fn returns is
// passed on unchanged, so the runtime keeps a *runtime.ToolError's code
// and reports any other error as [runtime.CodeToolError]. The definition
// sets ValidatesArguments, since Execute validates by itself, and renders
// a successful value as one JSON text block.
func New[P, O any](name, description string, fn func(context.Context, P) (O, error), opts Options) (runtime.ToolDefinition, error) {
	if fn == nil {
		return runtime.ToolDefinition{}, fmt.Errorf("reflecttool: tool %q: the function is nil", name)
	}
	return build(name, description, func(ctx context.Context, p P, _ *runtime.RunContext) (O, error) {
		return fn(ctx, p)
	}, opts)
}

// NewWithRunContext is [New] for a function that also receives the call's
// [*runtime.RunContext], through which it can defer contexts to its result
// or conclude the agent's turn. The runtime always passes a non-nil
// RunContext; a caller that invokes the definition's Execute directly
// passes whatever it likes, nil included, on to fn.
func NewWithRunContext[P, O any](name, description string, fn func(context.Context, P, *runtime.RunContext) (O, error), opts Options) (runtime.ToolDefinition, error) {
	if fn == nil {
		return runtime.ToolDefinition{}, fmt.Errorf("reflecttool: tool %q: the function is nil", name)
	}
	return build(name, description, fn, opts)
}

// build derives both schemas and assembles the definition around fn.
func build[P, O any](name, description string, fn func(context.Context, P, *runtime.RunContext) (O, error), opts Options) (runtime.ToolDefinition, error) {
	params, err := ParamsSchema(reflect.TypeFor[P](), opts)
	if err != nil {
		return runtime.ToolDefinition{}, fmt.Errorf("reflecttool: tool %q: parameters: %w", name, err)
	}
	output, err := OutputSchema(reflect.TypeFor[O](), opts)
	if err != nil {
		return runtime.ToolDefinition{}, fmt.Errorf("reflecttool: tool %q: output: %w", name, err)
	}
	return runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{Name: name, Description: description, Parameters: params},
		Output: runtime.OutputDefinition{
			Schema: output,
			Render: renderJSON,
		},
		Execute:            execute(params, fn),
		ValidatesArguments: true,
	}, nil
}

// execute returns the Execute body of a reflected tool: validate, decode,
// call, encode.
func execute[P, O any](params *schemasubset.Node, fn func(context.Context, P, *runtime.RunContext) (O, error)) func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
	return func(ctx context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
		if err := schemasubset.Validate(params, args); err != nil {
			return nil, invalidArgs(err)
		}
		var p P
		if err := json.Unmarshal(args, &p); err != nil {
			return nil, invalidArgs(err)
		}
		// A call whose context is already done does not start the work.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out, err := fn(ctx, p, rc)
		if err != nil {
			return nil, err
		}
		data, err := json.Marshal(out)
		if err != nil {
			return nil, &runtime.ToolError{Code: runtime.CodeInvalidToolOutput, Message: "invalid tool output: " + err.Error(), Err: err}
		}
		return jsonvalue.Value(data), nil
	}
}

// invalidArgs wraps a validation or decoding error as INVALID_ARGS.
func invalidArgs(err error) error {
	return &runtime.ToolError{Code: runtime.CodeInvalidArgs, Message: "invalid arguments: " + err.Error(), Err: err}
}

// renderJSON is the default renderer: the value as one JSON text block.
func renderJSON(_, value jsonvalue.Value) ([]runtime.ContentBlock, error) {
	return []runtime.ContentBlock{runtime.Text(string(value))}, nil
}
