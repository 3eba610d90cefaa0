package mcpserver

import (
	"encoding/base64"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-go/toolgen/runtime"
)

// The _meta keys of a tools/call result.
const (
	// MetaError holds a failure's {"code": ..., "message": ...}.
	MetaError = "toolgen/error"
	// MetaPresentation holds the result's presentation metadata, when
	// Options.Presentation is set.
	MetaPresentation = "toolgen/meta"
	// MetaConcludesTurn is true on a result that concludes the agent's turn.
	MetaConcludesTurn = "toolgen/concludesTurn"
)

// ErrorMeta is the value of _meta["toolgen/error"] on a failed result.
type ErrorMeta struct {
	// Code is the failure's code, such as "INVALID_ARGS".
	Code runtime.ErrorCode `json:"code"`
	// Message is the failure's message, without the code.
	Message string `json:"message"`
}

// toCallResult returns the MCP form of res; withValue sends a success's
// value as structuredContent, presentation its presentation metadata.
func toCallResult(res runtime.Result, withValue, presentation bool) *mcp.CallToolResult {
	out := &mcp.CallToolResult{Content: content(res)}
	var meta mcp.Meta
	set := func(k string, v any) {
		if meta == nil {
			meta = mcp.Meta{}
		}
		meta[k] = v
	}
	if f := res.Failure; f != nil {
		out.IsError = true
		prefix := string(f.Info.Code) + ": "
		if len(out.Content) > 0 {
			if t, ok := out.Content[0].(*mcp.TextContent); ok {
				t.Text = prefix + t.Text
			} else {
				out.Content = append([]mcp.Content{&mcp.TextContent{Text: prefix + f.Message}}, out.Content...)
			}
		} else {
			out.Content = []mcp.Content{&mcp.TextContent{Text: prefix + f.Message}}
		}
		set(MetaError, ErrorMeta{Code: f.Info.Code, Message: f.Message})
	} else if withValue {
		out.StructuredContent = json.RawMessage(res.Value)
	}
	if presentation && res.Meta != nil {
		set(MetaPresentation, json.RawMessage(res.Meta))
	}
	if res.ConcludesTurn {
		set(MetaConcludesTurn, true)
	}
	out.Meta = meta
	return out
}

// content converts the result's content blocks, then those of its
// additional contexts, which have no other way to the model over MCP.
func content(res runtime.Result) []mcp.Content {
	n := len(res.Content)
	for _, m := range res.AdditionalContexts {
		n += len(m.Content)
	}
	out := make([]mcp.Content, 0, n)
	out = appendBlocks(out, res.Content)
	for _, m := range res.AdditionalContexts {
		out = appendBlocks(out, m.Content)
	}
	return out
}

// appendBlocks appends the MCP form of blocks: text as text, images as
// images. The Runtime checked every block, so image data is valid base64;
// a block that is neither (which a Result built by hand could hold)
// becomes a text block saying so, so that nothing is dropped silently.
func appendBlocks(out []mcp.Content, blocks []runtime.ContentBlock) []mcp.Content {
	for _, b := range blocks {
		switch b.Type {
		case runtime.ContentText:
			out = append(out, &mcp.TextContent{Text: b.Text})
		case runtime.ContentImage:
			data, err := base64.StdEncoding.DecodeString(b.Data)
			if err != nil {
				out = append(out, &mcp.TextContent{Text: "[an image of type " + b.MimeType + " whose data is not base64]"})
				continue
			}
			out = append(out, &mcp.ImageContent{Data: data, MIMEType: b.MimeType})
		default:
			out = append(out, &mcp.TextContent{Text: "[a content block of unknown type " + string(b.Type) + "]"})
		}
	}
	return out
}
