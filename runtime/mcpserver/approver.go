package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-go/toolgen/runtime"
)

// ApproverOptions configures Approver.
type ApproverOptions struct {
	// Message is the text the person reads; nil means ApprovalMessage.
	Message func(exec runtime.Execution, reason string) string
	// OnUnanswered, when set, receives why an ask was denied without an
	// answer from the person: ErrNoSession, ErrNoElicitation, or the
	// failed elicitation's error. It must not block.
	OnUnanswered func(exec runtime.Execution, err error)
}

// The reasons an ask is denied without being put to the person.
var (
	// ErrNoSession: the call was not made through a Server.
	ErrNoSession = errors.New("mcpserver: the call was not made over MCP")
	// ErrNoElicitation: the client did not declare the elicitation
	// capability.
	ErrNoElicitation = errors.New("mcpserver: the client does not support elicitation")
)

// approvalSchema is the form of an approval: nothing to fill in, only the
// accept, decline and cancel actions every elicitation has.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// Approver returns an approval service for runtime.WithApprover that puts
// each ask to the person behind the calling client as a form elicitation
// on the call's session (ServerSession.Elicit): "accept" allows the call
// once; "decline", "cancel", a call not made over MCP, a client that did
// not declare the elicitation capability, and a failed elicitation deny
// it. The elicitation ends with the call's context. Sessions on protocol
// version 2026-07-28 or later cannot be asked this way (see the package
// documentation), so their asks are denied.
func Approver(opts ApproverOptions) runtime.Approver {
	message := opts.Message
	if message == nil {
		message = ApprovalMessage
	}
	unanswered := func(exec runtime.Execution, err error) runtime.Approval {
		if opts.OnUnanswered != nil {
			opts.OnUnanswered(exec, err)
		}
		return runtime.Denied
	}
	return func(ctx context.Context, exec runtime.Execution, reason string) runtime.Approval {
		sess := Session(ctx)
		switch {
		case sess == nil:
			return unanswered(exec, ErrNoSession)
		case !CanElicit(sess):
			return unanswered(exec, ErrNoElicitation)
		}
		res, err := sess.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: message(exec, reason), RequestedSchema: approvalSchema})
		if err != nil {
			return unanswered(exec, fmt.Errorf("mcpserver: asking for approval: %w", err))
		}
		if res.Action == "accept" {
			return runtime.AllowedOnce
		}
		return runtime.Denied
	}
}

// CanElicit reports whether the client of sess declared, when it
// initialized, that it can answer form elicitations.
func CanElicit(sess *mcp.ServerSession) bool {
	p := sess.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	// {} (every version before form and URL modes existed) means form.
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// maxShownArguments is how many bytes of the arguments ApprovalMessage
// shows.
const maxShownArguments = 2000

// ApprovalMessage is the default text of an approval: the tool, the
// policy's reason, and the call's arguments (cut after 2,000 bytes).
func ApprovalMessage(exec runtime.Execution, reason string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow the tool call %s?", exec.Name())
	if strings.TrimSpace(reason) != "" {
		b.WriteString("\n\nReason: " + reason)
	}
	args := string(exec.Arguments())
	if len(args) > maxShownArguments {
		cut := maxShownArguments
		for cut > 0 && !utf8.RuneStart(args[cut]) {
			cut--
		}
		args = args[:cut] + "…"
	}
	b.WriteString("\n\nArguments: " + args)
	return b.String()
}
