// Package mcpclient brings the tools of an MCP server into a toolgen
// Runtime, so that its policies, approvals, guards, timeouts and observers
// apply to them as to native tools.
//
//	im, err := mcpclient.Connect(ctx, rt, mcpclient.Command("my-server", "-flag"), mcpclient.Options{})
//	defer im.Close()
//	for _, t := range im.Report().Tools { log.Print(t) }
//
// Connect lists the server's tools and registers each one it can import as
// a dynamic definition, globally or in one agent's scope, and follows the
// server's notifications/tools/list_changed. Each tool's schemas go through
// ImportSchema's policy: a tool whose schema uses a keyword the subset does
// not enforce is left out and reported with the JSON Pointer of each
// keyword, and the other tools still import. Calls go through the go-sdk
// client; a JSON-RPC error or an isError result becomes a TOOL_ERROR
// failure carrying the server's text.
//
// The go-sdk client decodes schemas into map[string]any, so an imported
// schema lists properties in name order and holds numbers as the server
// spelled them.
package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// Command returns a transport that starts the MCP server name with args
// and speaks to it over its standard input and output.
func Command(name string, args ...string) mcp.Transport {
	return &mcp.CommandTransport{Command: exec.Command(name, args...)}
}

// HTTP returns a streamable HTTP transport to the server at url; client
// nil means http.DefaultClient.
func HTTP(url string, client *http.Client) mcp.Transport {
	return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}
}

// Options configures Connect.
type Options struct {
	// Agent, when set, registers the tools in that agent's scope; nil
	// registers them globally.
	Agent *runtime.Agent
	// Prefix is put before every server tool name, such as "fs_", to keep
	// servers apart; the result must be a valid runtime tool name.
	Prefix string
	// Timeout is each imported tool's Timeout, which the runtime/timeout
	// policy enforces; 0 means none.
	Timeout time.Duration
	// Client names the client to the server; nil means "toolgen".
	Client *mcp.Implementation
	// OnSync is called after every synchronization with its report,
	// including the ones list_changed starts. It must not call back into
	// the Importer's Sync.
	OnSync func(Report)
}

// Report says what one synchronization imported.
type Report struct {
	// Tools has one entry per server tool, in the server's order.
	Tools []ToolReport
	// Err is set when listing the tools failed; the previous registrations
	// are then kept.
	Err error
}

// ToolReport is one server tool's import result.
type ToolReport struct {
	// Name is the tool's name on the server.
	Name string
	// Registered is the name in the Runtime, or "" when the tool was not
	// imported.
	Registered string
	// Notes lists the keywords dropped from its schemas.
	Notes []Note
	// Err says why the tool was not imported: a schema with unsupported
	// keywords (wrapping ErrUnsupportedSchema and a
	// *schemasubset.SchemaError), or a registration the Runtime refused.
	Err error
}

// String returns one line: "name: imported as x (format dropped at ...)"
// or "name: not imported: reason".
func (t ToolReport) String() string {
	if t.Err != nil {
		return t.Name + ": not imported: " + t.Err.Error()
	}
	s := t.Name + ": imported as " + t.Registered
	if len(t.Notes) > 0 {
		notes := make([]string, len(t.Notes))
		for i, n := range t.Notes {
			notes[i] = n.String()
		}
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// Importer holds one server connection and the tools it registered.
type Importer struct {
	rt      *runtime.Runtime
	opts    Options
	session *mcp.ClientSession

	mu       sync.Mutex // serializes Sync
	tools    map[string]imported
	report   Report
	closed   bool
	syncs    sync.WaitGroup
	stopSync context.CancelFunc
	syncCtx  context.Context
}

// imported is one registered tool and what it was built from.
type imported struct {
	fingerprint string
	dispose     runtime.Disposer
}

// Connect connects to the server over transport, registers its tools in rt
// and keeps them in sync with the server's list_changed notifications
// until Close. It fails only when the connection or the first listing
// fails; tools that cannot be imported are in Report.
func Connect(ctx context.Context, rt *runtime.Runtime, transport mcp.Transport, opts Options) (*Importer, error) {
	im := &Importer{rt: rt, opts: opts, tools: map[string]imported{}}
	im.syncCtx, im.stopSync = context.WithCancel(context.Background())
	impl := opts.Client
	if impl == nil {
		impl = &mcp.Implementation{Name: "toolgen", Version: "v0"}
	}
	client := mcp.NewClient(impl, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { im.resync() },
	})
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		im.stopSync()
		return nil, fmt.Errorf("mcpclient: connecting: %w", err)
	}
	im.session = session
	if rep := im.Sync(ctx); rep.Err != nil {
		im.Close()
		return nil, rep.Err
	}
	return im, nil
}

// resync runs a Sync off the client's receiving goroutine, which must stay
// free to deliver the listing's response.
func (im *Importer) resync() {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.closed {
		return
	}
	im.syncs.Add(1)
	go func() {
		defer im.syncs.Done()
		im.Sync(im.syncCtx)
	}()
}

// Sync lists the server's tools and brings the registrations in line:
// new tools are registered, removed ones disposed, and changed ones (a
// different description or schema) replaced. It returns the report, which
// Report also returns until the next Sync.
func (im *Importer) Sync(ctx context.Context) Report {
	var listed []*mcp.Tool
	var err error
	for t, e := range im.session.Tools(ctx, nil) {
		if e != nil {
			err = e
			break
		}
		listed = append(listed, t)
	}

	im.mu.Lock()
	defer im.mu.Unlock()
	if im.closed {
		return Report{Err: errors.New("mcpclient: the importer is closed")}
	}
	if err != nil {
		im.report = Report{Err: fmt.Errorf("mcpclient: listing tools: %w", err)}
		return im.finish()
	}
	rep := Report{Tools: make([]ToolReport, 0, len(listed))}
	seen := map[string]bool{}
	for _, t := range listed {
		tr := ToolReport{Name: t.Name}
		name := im.opts.Prefix + t.Name
		seen[name] = true
		def, notes, fp, err := im.definition(name, t)
		tr.Notes = notes
		switch {
		case err != nil:
			tr.Err = err
			im.drop(name)
		case im.tools[name].fingerprint == fp:
			tr.Registered = name
		default:
			im.drop(name)
			if dispose, err := im.register(def); err != nil {
				tr.Err = err
			} else {
				im.tools[name] = imported{fingerprint: fp, dispose: dispose}
				tr.Registered = name
			}
		}
		rep.Tools = append(rep.Tools, tr)
	}
	for name := range im.tools {
		if !seen[name] {
			im.drop(name)
		}
	}
	im.report = rep
	return im.finish()
}

// finish hands the report to OnSync; im.mu is held.
func (im *Importer) finish() Report {
	if im.opts.OnSync != nil {
		im.opts.OnSync(im.report)
	}
	return im.report
}

func (im *Importer) register(def runtime.ToolDefinition) (runtime.Disposer, error) {
	if im.opts.Agent != nil {
		return im.rt.Scope(im.opts.Agent).Register(def)
	}
	return im.rt.Register(def)
}

func (im *Importer) drop(name string) {
	if t, ok := im.tools[name]; ok {
		t.dispose()
		delete(im.tools, name)
	}
}

// Report returns the last synchronization's report.
func (im *Importer) Report() Report {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.report
}

// Close disposes every registration and closes the connection, which ends
// a command server's process.
func (im *Importer) Close() error {
	im.mu.Lock()
	if im.closed {
		im.mu.Unlock()
		return nil
	}
	im.closed = true
	for name := range im.tools {
		im.drop(name)
	}
	im.mu.Unlock()
	im.stopSync()
	var err error
	if im.session != nil {
		err = im.session.Close()
	}
	im.syncs.Wait()
	return err
}

// definition builds the runtime definition of server tool t, with the
// notes of what its schemas lost and a fingerprint that changes when the
// server changes the tool.
func (im *Importer) definition(name string, t *mcp.Tool) (runtime.ToolDefinition, []Note, string, error) {
	params, notes, err := ImportSchema(t.InputSchema)
	if err != nil {
		return runtime.ToolDefinition{}, prefixed("/inputSchema", notes), "", fmt.Errorf("inputSchema: %w", err)
	}
	notes = prefixed("/inputSchema", notes)
	if err := schemasubset.AssertObject(params); err != nil {
		return runtime.ToolDefinition{}, notes, "", fmt.Errorf("inputSchema: %w", err)
	}
	output := schemasubset.Any()
	structured := t.OutputSchema != nil
	if structured {
		n, outNotes, err := ImportSchema(t.OutputSchema)
		notes = append(notes, prefixed("/outputSchema", outNotes)...)
		if err != nil {
			return runtime.ToolDefinition{}, notes, "", fmt.Errorf("outputSchema: %w", err)
		}
		output = n
	}
	def := runtime.ToolDefinition{
		ToolSchema: runtime.ToolSchema{Name: name, Description: t.Description, Parameters: params},
		Output:     runtime.OutputDefinition{Schema: output, Render: renderJSON},
		Timeout:    im.opts.Timeout,
		Execute:    im.call(t.Name, structured),
	}
	if !structured {
		def.Output.Render = renderContent
	}
	if t.Annotations != nil && t.Annotations.ReadOnlyHint {
		def.ConcurrencySafe = func(jsonvalue.Value) bool { return true }
	}
	fp, _ := json.Marshal([]any{t.Description, t.InputSchema, t.OutputSchema, t.Annotations})
	return def, notes, string(fp), nil
}

// prefixed returns notes with their pointers under the member prefix of
// the tool's listing.
func prefixed(prefix string, notes []Note) []Note {
	for i := range notes {
		notes[i].Pointer = prefix + notes[i].Pointer
	}
	return notes
}

// call returns the body that forwards a call to the server's tool name. A
// structured tool's value is its structuredContent; any other tool's value
// is its content blocks, which renderContent passes through.
func (im *Importer) call(name string, structured bool) func(context.Context, jsonvalue.Value, *runtime.RunContext) (jsonvalue.Value, error) {
	return func(ctx context.Context, args jsonvalue.Value, _ *runtime.RunContext) (jsonvalue.Value, error) {
		res, err := im.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &runtime.ToolError{Code: runtime.CodeToolError, Message: "the MCP server failed the call: " + err.Error()}
		}
		blocks, err := contentBlocks(res.Content)
		if err != nil {
			return nil, &runtime.ToolError{Code: runtime.CodeToolError, Message: err.Error()}
		}
		if res.IsError {
			return nil, &runtime.ToolError{Code: runtime.CodeToolError, Message: textOf(blocks, "the MCP server reported an error without text")}
		}
		var value any = blocks
		if structured {
			if res.StructuredContent == nil {
				return nil, &runtime.ToolError{Code: runtime.CodeInvalidToolOutput, Message: "the MCP server declared an outputSchema but sent no structuredContent"}
			}
			value = res.StructuredContent
		}
		data, err := json.Marshal(value)
		if err != nil {
			return nil, fmt.Errorf("mcpclient: encoding the result: %w", err)
		}
		return jsonvalue.Value(data), nil
	}
}

// contentBlocks converts MCP content into runtime blocks: text and images
// as they are; other kinds (audio, resources, links) as a text block
// holding their JSON, so that nothing is silently lost.
func contentBlocks(content []mcp.Content) ([]runtime.ContentBlock, error) {
	out := make([]runtime.ContentBlock, 0, len(content))
	for _, c := range content {
		switch c := c.(type) {
		case *mcp.TextContent:
			out = append(out, runtime.Text(c.Text))
		case *mcp.ImageContent:
			out = append(out, runtime.Image(c.Data, c.MIMEType))
		default:
			data, err := json.Marshal(c)
			if err != nil {
				return nil, fmt.Errorf("mcpclient: encoding %T content: %w", c, err)
			}
			out = append(out, runtime.Text(string(data)))
		}
	}
	return out, nil
}

func textOf(blocks []runtime.ContentBlock, fallback string) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == runtime.ContentText {
			parts = append(parts, b.Text)
		}
	}
	if len(parts) == 0 {
		return fallback
	}
	return strings.Join(parts, "\n")
}

// renderJSON renders a structured value as one JSON text block.
func renderJSON(_, value jsonvalue.Value) ([]runtime.ContentBlock, error) {
	return []runtime.ContentBlock{runtime.Text(string(value))}, nil
}

// renderContent passes the server's content blocks through.
func renderContent(_, value jsonvalue.Value) ([]runtime.ContentBlock, error) {
	var blocks []runtime.ContentBlock
	if err := json.Unmarshal(value, &blocks); err != nil {
		return nil, fmt.Errorf("mcpclient: decoding the content: %w", err)
	}
	return slices.Clip(blocks), nil
}
