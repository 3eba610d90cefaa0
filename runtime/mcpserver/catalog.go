package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// toolKey identifies the model-facing part of one definition. Schema
// nodes are immutable, so a pointer names one schema for good.
type toolKey struct {
	name, description string
	params, output    *schemasubset.Node
}

// catalog holds the MCP form of the definitions in use and what the
// go-sdk server has registered.
type catalog struct {
	mu    sync.Mutex // guards tools
	tools map[toolKey]*mcp.Tool

	// syncMu serializes syncs and guards the fields below.
	syncMu sync.Mutex
	// registered is what the go-sdk server holds: the union of every
	// agent's view, by name.
	registered map[string]*mcp.Tool
	// views is each agent's view at the last sync.
	views map[*runtime.Agent][]*mcp.Tool
}

func (c *catalog) init() {
	c.tools = map[toolKey]*mcp.Tool{}
	c.registered = map[string]*mcp.Tool{}
	c.views = map[*runtime.Agent][]*mcp.Tool{}
}

// objectSchema is the input schema of a definition without parameters.
var objectSchema = json.RawMessage(`{"type":"object"}`)

// tool returns the MCP tool of def, the same *mcp.Tool for as long as
// def's name, description and schemas are the same.
func (c *catalog) tool(def runtime.ToolDefinition) *mcp.Tool {
	key := toolKey{name: def.Name, description: def.Description, params: def.Parameters, output: def.Output.Schema}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.tools[key]; t != nil {
		return t
	}
	t := &mcp.Tool{Name: def.Name, Description: def.Description, InputSchema: objectSchema}
	if def.Parameters != nil && def.Parameters.Type() == schemasubset.TypeObject {
		t.InputSchema = json.RawMessage(def.Parameters.AppendJSON(nil))
	}
	if structured(def.Output.Schema) {
		t.OutputSchema = json.RawMessage(def.Output.Schema.AppendJSON(nil))
	}
	c.tools[key] = t
	return t
}

// prune drops the MCP form of every definition not in used.
func (c *catalog) prune(used map[*mcp.Tool]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, t := range c.tools {
		if !used[t] {
			delete(c.tools, k)
		}
	}
}

// structured reports whether values of the output schema n are sent as
// structuredContent, with n as the tool's outputSchema: when its root is
// an object.
func structured(n *schemasubset.Node) bool {
	return n != nil && n.Type() == schemasubset.TypeObject
}

// view returns the MCP tools the agent a sees, in name order.
func (s *Server) view(a *runtime.Agent) []*mcp.Tool {
	schemas := s.rt.Schemas(a)
	out := make([]*mcp.Tool, 0, len(schemas))
	for _, sc := range schemas {
		// Get, for the output schema; a tool gone in between is left out.
		if def, ok := s.rt.Get(sc.Name, a); ok {
			out = append(out, s.catalog.tool(def))
		}
	}
	return out
}

// sync brings the go-sdk server's tools in line with what the base agent
// and the agents of the live sessions see: it registers the union of
// their views, adding, replacing and removing tools as they changed, which
// makes the go-sdk send notifications/tools/list_changed. A change that
// leaves the union as it was but changes one agent's view (a restriction,
// a scoped tool shadowing a global one) re-registers one tool unchanged,
// for the notification alone. sync runs on every Runtime change event,
// and when a session starts or ends.
func (s *Server) sync() {
	if !s.listening.Load() {
		return
	}
	c := &s.catalog
	c.syncMu.Lock()
	defer c.syncMu.Unlock()

	agents := s.sessions.agents(s.opts.Agent)
	views := make(map[*runtime.Agent][]*mcp.Tool, len(agents))
	union := map[string]*mcp.Tool{}
	inUse := map[*mcp.Tool]bool{}
	viewChanged := false
	for _, a := range agents {
		v := s.view(a)
		views[a] = v
		if old, had := c.views[a]; had && !slices.Equal(old, v) {
			viewChanged = true
		}
		for _, t := range v {
			inUse[t] = true
			if union[t.Name] == nil {
				union[t.Name] = t
			}
		}
	}
	// Agents that hold different definitions under one name all list
	// their own (listMiddleware); the go-sdk needs only one, and keeping
	// the registered one while some agent still sees it spares the
	// sessions a notification for nothing.
	for name := range union {
		if old := c.registered[name]; old != nil && inUse[old] {
			union[name] = old
		}
	}
	var gone []string
	for name := range c.registered {
		if union[name] == nil {
			gone = append(gone, name)
		}
	}
	var added []*mcp.Tool
	for name, t := range union {
		if c.registered[name] != t {
			added = append(added, t)
		}
	}
	slices.Sort(gone)
	slices.SortFunc(added, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })

	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
	for _, t := range added {
		s.add(t)
	}
	if viewChanged && len(gone) == 0 && len(added) == 0 && len(union) > 0 {
		names := make([]string, 0, len(union))
		for name := range union {
			names = append(names, name)
		}
		s.add(union[slices.Min(names)])
	}
	c.registered = union
	c.views = views
	c.prune(inUse)
}

// add registers t on the go-sdk server with the call handler. The
// Runtime's registration rules imply the go-sdk's, so AddTool does not
// panic; if it did, the tool is reported and left out.
func (s *Server) add(t *mcp.Tool) {
	defer func() {
		if p := recover(); p != nil {
			s.report(fmt.Errorf("mcpserver: the go-sdk refused tool %q: %v", t.Name, p))
		}
	}()
	s.mcp.AddTool(t, s.handler)
}
