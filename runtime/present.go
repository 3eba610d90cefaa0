package runtime

import (
	"errors"
	"fmt"
	"slices"

	"github.com/toolgen-go/toolgen/jsonvalue"
)

// This file is the provider-neutral presentation vocabulary: how a tool
// describes a pending call (ToolCallView) and a completed one
// (ToolResultView) to a UI, as card-tagged render intents a UI bridge
// switches on. The JSON (present_json.go) uses the seed's field names and a
// "card" discriminator; decoding is strict.

// ToolCallKind picks the icon of a generic call card.
type ToolCallKind string

// The call kinds: a closed set.
const (
	KindRead    ToolCallKind = "read"
	KindEdit    ToolCallKind = "edit"
	KindDelete  ToolCallKind = "delete"
	KindMove    ToolCallKind = "move"
	KindSearch  ToolCallKind = "search"
	KindExecute ToolCallKind = "execute"
	KindFetch   ToolCallKind = "fetch"
	KindOther   ToolCallKind = "other"
)

// Valid reports whether k is one of the call kinds.
func (k ToolCallKind) Valid() bool {
	switch k {
	case KindRead, KindEdit, KindDelete, KindMove, KindSearch, KindExecute, KindFetch, KindOther:
		return true
	}
	return false
}

// FileLocation is a file a call reads or changes, with an optional 1-based
// line, so an editor can follow along.
type FileLocation struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// FileDiff is one file change. OldText is nil for a new file, which JSON
// spells "oldText": null (never omitted, never "").
type FileDiff struct {
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

// NewFileDiff returns the diff that creates path with text.
func NewFileDiff(path, text string) FileDiff { return FileDiff{Path: path, NewText: text} }

// ChangeFileDiff returns the diff that changes path from old to new.
func ChangeFileDiff(path, oldText, newText string) FileDiff {
	return FileDiff{Path: path, OldText: &oldText, NewText: newText}
}

// IsNewFile reports whether the diff creates its file.
func (d FileDiff) IsNewFile() bool { return d.OldText == nil }

// ReadFileLine is one numbered line of a read window.
type ReadFileLine struct {
	// Number is the 1-based line number.
	Number int    `json:"number"`
	Text   string `json:"text"`
}

// CallCard names a ToolCallView variant.
type CallCard string

// The call cards.
const (
	CallGeneric  CallCard = "generic"
	CallTerminal CallCard = "terminal"
	CallDiff     CallCard = "diff"
)

// ToolCallView describes a pending call. Card selects the variant; each
// field belongs to the cards listed beside it and must be zero on others:
//
//	generic:  Title, Kind, RawInput, Content, Locations
//	terminal: Title, Description, Cwd
//	diff:     Title, Diffs, Locations
//
// There is no search, read or web call card: their structure exists only
// after the call, so a pending search is a generic card.
type ToolCallView struct {
	Card  CallCard
	Title string
	// Kind picks the generic card's icon.
	Kind ToolCallKind
	// RawInput is the call's arguments, shown by generic cards.
	RawInput jsonvalue.Value
	// Content is extra content for a generic card.
	Content []ContentBlock
	// Locations are the files the call reads or changes.
	Locations []FileLocation
	// Description and Cwd describe a shell command.
	Description string
	Cwd         string
	// Diffs are the changes a diff card proposes.
	Diffs []FileDiff
}

// Check reports whether v is a well-formed card.
func (v ToolCallView) Check() error {
	var wrong []string
	note := func(set bool, field string) {
		if set {
			wrong = append(wrong, field)
		}
	}
	switch v.Card {
	case CallGeneric:
		note(v.Description != "", "description")
		note(v.Cwd != "", "cwd")
		note(v.Diffs != nil, "diffs")
		if v.Kind != "" && !v.Kind.Valid() {
			return fmt.Errorf("generic card: unknown kind %q", v.Kind)
		}
	case CallTerminal:
		note(v.Kind != "", "kind")
		note(v.RawInput != nil, "rawInput")
		note(v.Content != nil, "content")
		note(v.Locations != nil, "locations")
		note(v.Diffs != nil, "diffs")
	case CallDiff:
		note(v.Kind != "", "kind")
		note(v.RawInput != nil, "rawInput")
		note(v.Content != nil, "content")
		note(v.Description != "", "description")
		note(v.Cwd != "", "cwd")
		if v.Diffs == nil {
			return errors.New("diff card: diffs are required")
		}
	default:
		return fmt.Errorf("unknown call card %q", v.Card)
	}
	if len(wrong) > 0 {
		return fmt.Errorf("%s card: fields %v belong to other cards", v.Card, wrong)
	}
	return checkBlocks(v.Content)
}

// ResultCard names a ToolResultView variant.
type ResultCard string

// The result cards.
const (
	ResultGeneric  ResultCard = "generic"
	ResultTerminal ResultCard = "terminal"
	ResultDiff     ResultCard = "diff"
	ResultSearch   ResultCard = "search"
	ResultRead     ResultCard = "read"
	ResultWeb      ResultCard = "web"
)

// SearchShape is the shape of a search card's results.
type SearchShape string

// The search shapes.
const (
	// ShapeMatches groups matches per file (grep).
	ShapeMatches SearchShape = "matches"
	// ShapePaths is a flat list of paths (glob).
	ShapePaths SearchShape = "paths"
)

// SearchFile is one file's matches in a matches-shaped search card.
type SearchFile struct {
	Path    string        `json:"path"`
	Matches []SearchMatch `json:"matches"`
}

// SearchMatch is one matching line.
type SearchMatch struct {
	// Line is the 1-based line number.
	Line int    `json:"line"`
	Text string `json:"text"`
}

// WebKind is the kind of a web card.
type WebKind string

// The web kinds.
const (
	WebSearch WebKind = "search"
	WebFetch  WebKind = "fetch"
)

// WebSource is one source of a web search card.
type WebSource struct {
	Title   string `json:"title,omitempty"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// ToolResultView describes a completed call; it replaces the pending card.
// Card selects the variant; Title is optional on every card; each other
// field belongs to the cards listed beside it and must be zero on others:
//
//	generic:  Content
//	terminal: Output, ExitCode, Signal
//	diff:     Diffs
//	search:   Shape, Truncated, Total, Files (shape matches), Paths (shape paths)
//	read:     Path, Offset, Lines, TotalLines, Lang, Text
//	web:      Web, Truncated, Sources and Answer (search), URL and StatusCode (fetch)
//
// Views carry structure, not the result text: a UI without the card shows
// the result's raw content instead.
type ToolResultView struct {
	Card  ResultCard
	Title string
	// Content is a generic card's content.
	Content []ContentBlock
	// Output, ExitCode and Signal are a terminal card's captured output and
	// exit status; ExitCode is nil when the process did not exit normally.
	Output   *string
	ExitCode *int
	Signal   string
	// Diffs are the changes a diff card shows.
	Diffs []FileDiff
	// Shape, Files and Paths are a search card's results; Truncated and
	// Total say whether the inline results were capped and how many there
	// are in all, so a UI never shows partial results as complete.
	Shape     SearchShape
	Files     []SearchFile
	Paths     []string
	Truncated bool
	Total     int
	// Path, Offset, Lines, TotalLines, Lang and Text are a read window: the
	// 1-based first line requested (kept even when Lines is empty), the
	// numbered lines, the file's line count, a language hint from the
	// extension, and the window's plain text (JSON "content") for UIs
	// without a read card.
	Path       string
	Offset     int
	Lines      []ReadFileLine
	TotalLines int
	Lang       string
	Text       string
	// Web, Sources, Answer, URL and StatusCode are a web card.
	Web        WebKind
	Sources    []WebSource
	Answer     string
	URL        string
	StatusCode int
}

// Check reports whether v is a well-formed card.
func (v ToolResultView) Check() error {
	has := map[string]bool{
		"content": v.Content != nil, "output": v.Output != nil, "exitCode": v.ExitCode != nil, "signal": v.Signal != "",
		"diffs": v.Diffs != nil, "shape": v.Shape != "", "matches": v.Files != nil, "paths": v.Paths != nil,
		"truncated": v.Truncated, "total": v.Total != 0, "path": v.Path != "", "offset": v.Offset != 0,
		"lines": v.Lines != nil, "totalLines": v.TotalLines != 0, "lang": v.Lang != "", "text": v.Text != "",
		"kind": v.Web != "", "sources": v.Sources != nil, "answer": v.Answer != "", "url": v.URL != "",
		"statusCode": v.StatusCode != 0,
	}
	allowed := map[ResultCard][]string{
		ResultGeneric:  {"content"},
		ResultTerminal: {"output", "exitCode", "signal"},
		ResultDiff:     {"diffs"},
		ResultSearch:   {"shape", "matches", "paths", "truncated", "total"},
		ResultRead:     {"path", "offset", "lines", "totalLines", "lang", "text"},
		ResultWeb:      {"kind", "truncated", "sources", "answer", "url", "statusCode"},
	}
	ok, known := allowed[v.Card]
	if !known {
		return fmt.Errorf("unknown result card %q", v.Card)
	}
	for _, f := range ok {
		delete(has, f)
	}
	var wrong []string
	for f, set := range has {
		if set {
			wrong = append(wrong, f)
		}
	}
	if len(wrong) > 0 {
		slices.Sort(wrong)
		return fmt.Errorf("%s card: fields %v belong to other cards", v.Card, wrong)
	}
	switch v.Card {
	case ResultDiff:
		if v.Diffs == nil {
			return errors.New("diff card: diffs are required")
		}
	case ResultSearch:
		switch v.Shape {
		case ShapeMatches:
			if v.Paths != nil {
				return errors.New("search card: paths belong to shape paths")
			}
		case ShapePaths:
			if v.Files != nil {
				return errors.New("search card: matches belong to shape matches")
			}
		default:
			return fmt.Errorf("search card: unknown shape %q", v.Shape)
		}
	case ResultRead:
		if v.Path == "" || v.Offset < 1 {
			return errors.New("read card: path and a 1-based offset are required")
		}
	case ResultWeb:
		switch v.Web {
		case WebSearch:
			if v.URL != "" || v.StatusCode != 0 {
				return errors.New("web search card: url and statusCode belong to fetch")
			}
		case WebFetch:
			if v.Sources != nil || v.Answer != "" {
				return errors.New("web fetch card: sources and answer belong to search")
			}
			if v.URL == "" {
				return errors.New("web fetch card: url is required")
			}
		default:
			return fmt.Errorf("web card: unknown kind %q", v.Web)
		}
	}
	return checkBlocks(v.Content)
}

func checkBlocks(blocks []ContentBlock) error {
	for i, b := range blocks {
		if err := b.Check(); err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
	}
	return nil
}
