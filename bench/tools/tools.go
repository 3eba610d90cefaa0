// Package tools holds the three benchmark tools as a toolgen author writes
// them, with parameter structs matching ../shared/bench's payloads, so the
// benchmarks measure the code toolgen generates for them.
package tools

//go:generate go tool toolgen

import (
	"context"
)

// ReadFileArgs is small.json.
type ReadFileArgs struct {
	// Path of the file.
	Path string `json:"path"`
	// Offset is the first line, 1-based.
	Offset int `json:"offset,omitempty"`
	// Limit is the number of lines.
	Limit int `json:"limit,omitempty"`
}

// ReadFileResult is what read_file returns.
type ReadFileResult struct {
	// Path of the file.
	Path string `json:"path"`
	// Lines read.
	Lines []string `json:"lines"`
	// TotalLines in the file.
	TotalLines int `json:"total_lines"`
	// Truncated is set when the window ended before the file.
	Truncated bool `json:"truncated"`
}

// ReadFile returns a window of lines.
//
//toolgen:tool name=read_file concurrency=safe
func ReadFile(ctx context.Context, args ReadFileArgs) (ReadFileResult, error) {
	return ReadFileResult{Path: args.Path, Lines: []string{"package main", "", "func main() {}"}, TotalLines: 3}, ctx.Err()
}

// OutputMode says what grep reports.
type OutputMode string

// The output modes.
const (
	ModeContent OutputMode = "content"
	ModeFiles   OutputMode = "files_with_matches"
	ModeCount   OutputMode = "count"
)

// GrepArgs is medium.json.
type GrepArgs struct {
	// Pattern is the regular expression.
	Pattern string `json:"pattern"`
	// Path to search.
	Path string `json:"path,omitempty"`
	// Glob filters file names.
	Glob string `json:"glob,omitempty"`
	// CaseInsensitive matching.
	CaseInsensitive bool `json:"case_insensitive,omitempty"`
	// OutputMode is what to report.
	OutputMode OutputMode `json:"output_mode,omitempty"`
	// ContextLines around each match.
	ContextLines int `json:"context_lines,omitempty"`
	// MaxResults caps the matches.
	MaxResults int `json:"max_results,omitempty"`
	// Multiline lets patterns span lines.
	Multiline bool `json:"multiline,omitempty"`
}

// GrepResult is what grep returns.
type GrepResult struct {
	// Count of matches.
	Count int `json:"count"`
	// Files with matches.
	Files []string `json:"files"`
}

// Grep searches files.
//
//toolgen:tool concurrency=safe
func Grep(ctx context.Context, args GrepArgs) (GrepResult, error) {
	return GrepResult{Count: 2, Files: []string{"a.go", "b.go"}}, ctx.Err()
}

// EditArgs is nested.json.
type EditArgs struct {
	// Path of the file.
	Path string `json:"path"`
	// Edits to apply in order.
	Edits []Edit `json:"edits"`
}

// Edit is one exact-text replacement.
type Edit struct {
	// OldText to find.
	OldText string `json:"old_text"`
	// NewText to put in its place.
	NewText string `json:"new_text"`
	// ReplaceAll occurrences.
	ReplaceAll bool `json:"replace_all,omitempty"`
}

// EditResult is what edit returns.
type EditResult struct {
	// Path of the file.
	Path string `json:"path"`
	// Applied counts the edits applied.
	Applied int `json:"applied"`
}

// EditFile applies exact-text edits.
//
//toolgen:tool name=edit
func EditFile(ctx context.Context, args EditArgs) (EditResult, error) {
	return EditResult{Path: args.Path, Applied: len(args.Edits)}, ctx.Err()
}
