package runtime

import (
	"fmt"

	"github.com/toolgen-go/toolgen/jsonvalue"
)

// PresentCall returns the pending card of a call, from the definition the
// calling agent sees (so the card matches what runs): the tool's
// PresentCall, or, when it is absent, returns nil, panics or returns an
// invalid card, the generic card titled with the tool name with the
// arguments as raw input.
func (rt *Runtime) PresentCall(in ExecutionInput) ToolCallView {
	args, err := jsonvalue.Materialize(in.Arguments)
	if err != nil {
		args = nil
	}
	fallback := ToolCallView{Card: CallGeneric, Title: in.Name, RawInput: args}
	def, ok := rt.Get(in.Name, in.Agent)
	if !ok || def.PresentCall == nil || args == nil {
		return fallback
	}
	var v *ToolCallView
	rt.contain(fmt.Sprintf("PresentCall of %q", in.Name), func() { v = def.PresentCall(args.Clone()) })
	if v == nil {
		return fallback
	}
	if err := v.Check(); err != nil {
		rt.opts.onError(fmt.Errorf("runtime: PresentCall of %q returned an invalid card: %w", in.Name, err))
		return fallback
	}
	return *v
}

// PresentResult returns the completed card of a call from the definition
// the calling agent sees, or nil when the tool has no PresentResult or it
// returns nil, panics or returns an invalid card: a UI then keeps the
// pending card's title and shows the result's raw content.
func (rt *Runtime) PresentResult(in ExecutionInput, res ToolResult) *ToolResultView {
	args, err := jsonvalue.Materialize(in.Arguments)
	def, ok := rt.Get(in.Name, in.Agent)
	if err != nil || !ok || def.PresentResult == nil {
		return nil
	}
	var v *ToolResultView
	rt.contain(fmt.Sprintf("PresentResult of %q", in.Name), func() { v = def.PresentResult(args, res.clone()) })
	if v == nil {
		return nil
	}
	if err := v.Check(); err != nil {
		rt.opts.onError(fmt.Errorf("runtime: PresentResult of %q returned an invalid card: %w", in.Name, err))
		return nil
	}
	return v
}
