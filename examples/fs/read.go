package fs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

// DefaultReadLimit is the number of lines read_file returns when the call
// gives no limit.
const DefaultReadLimit = 2000

// ReadFileArgs are the arguments of read_file.
type ReadFileArgs struct {
	// Path of the file, relative to the root directory or absolute inside it.
	Path string `json:"path"`
	// Offset is the 1-based number of the first line to return; absent or 0 means the first line.
	Offset int `json:"offset,omitempty"`
	// Limit is the most lines to return; absent or 0 means 2000.
	Limit int `json:"limit,omitempty"`
}

// ReadFileResult is what read_file returns.
type ReadFileResult struct {
	// Path of the file, relative to the root directory, slash-separated.
	Path string `json:"path"`
	// Offset is the 1-based number of the first line of the window, as requested, even when the window is empty.
	Offset int `json:"offset"`
	// Lines are the lines of the window without their line feed (a carriage return of a CRLF ending stays); invalid UTF-8 appears as U+FFFD.
	Lines []string `json:"lines"`
	// TotalLines is the number of lines in the whole file; a last line without a line feed counts, an empty file has none.
	TotalLines int `json:"total_lines"`
	// Truncated reports that the file has lines after the window; read on with offset set to offset plus the number of lines returned.
	Truncated bool `json:"truncated"`
}

// ReadFile returns a window of lines from a text file under the root
// directory: up to limit lines (2000 by default) starting at the 1-based
// line offset, with the file's total line count and whether lines follow
// the window. An offset past the end gives no lines, not an error. Binary
// files (a NUL byte in the first 8 KiB) are refused.
//
//toolgen:tool name=read_file timeout=30s concurrency=safe meta=readMeta present_call=presentReadCall present_result=presentReadResult
func ReadFile(ctx context.Context, args ReadFileArgs) (ReadFileResult, error) {
	switch {
	case args.Path == "":
		return ReadFileResult{}, invalidArgs("read_file: path is empty")
	case args.Offset < 0:
		return ReadFileResult{}, invalidArgs("read_file: offset must not be negative, got %d", args.Offset)
	case args.Limit < 0:
		return ReadFileResult{}, invalidArgs("read_file: limit must not be negative, got %d", args.Limit)
	}
	offset, limit := max(args.Offset, 1), args.Limit
	if limit == 0 {
		limit = DefaultReadLimit
	}
	sb, r, err := open(ctx)
	if err != nil {
		return ReadFileResult{}, err
	}
	defer r.Close()
	rel, err := sb.resolve(args.Path)
	if err != nil {
		return ReadFileResult{}, err
	}
	f, err := r.Open(native(rel))
	if err != nil {
		return ReadFileResult{}, pathError("read", args.Path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ReadFileResult{}, pathError("read", args.Path, err)
	}
	if !fi.Mode().IsRegular() {
		return ReadFileResult{}, &runtime.ToolError{Code: CodeNotFile, Message: fmt.Sprintf("fs: read %q: not a regular file", args.Path)}
	}

	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(sniffLen); bytes.IndexByte(head, 0) >= 0 {
		return ReadFileResult{}, &runtime.ToolError{Code: CodeNotText, Message: fmt.Sprintf("fs: read %q: a binary file, not text", args.Path)}
	}
	res := ReadFileResult{Path: validText(rel), Offset: offset, Lines: []string{}}
	last := offset + limit - 1 // the last line number of the window
	inWindow := func(n int) bool { return n >= offset && n <= last }
	total, err := scanLines(ctx, br, inWindow, func(_ int, line []byte) {
		res.Lines = append(res.Lines, validText(string(line)))
	})
	if err != nil {
		return ReadFileResult{}, pathError("read", args.Path, err)
	}
	res.TotalLines = total
	res.Truncated = total > last
	return res, nil
}

// scanLines reads br to its end and calls fn with the 1-based number and
// the text (without its line feed) of every line n for which want(n) is
// true; other lines are counted without being copied. The slice fn gets is
// valid only during the call. It checks ctx every 1024 lines, and returns
// the number of lines: a last line without a line feed counts, an empty
// input has none.
func scanLines(ctx context.Context, br *bufio.Reader, want func(n int) bool, fn func(n int, line []byte)) (int, error) {
	n := 0
	started := false // a line has begun and not ended
	var buf []byte   // the wanted line so far, when it spans buffer refills
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if !started {
				n++
				started = true
				buf = buf[:0]
				if n%1024 == 0 {
					if cerr := ctx.Err(); cerr != nil {
						return n, cerr
					}
				}
			}
			ended := chunk[len(chunk)-1] == '\n'
			if want(n) {
				switch {
				case ended && len(buf) == 0:
					fn(n, chunk[:len(chunk)-1])
				case ended:
					buf = append(buf, chunk[:len(chunk)-1]...)
					fn(n, buf)
				default:
					buf = append(buf, chunk...)
				}
			}
			if ended {
				started = false
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			if started && want(n) {
				fn(n, buf)
			}
			return n, nil
		default:
			return n, err
		}
	}
}

// langs maps file extensions to the language hints of read cards.
var langs = map[string]string{
	".go": "go", ".py": "python", ".ts": "typescript", ".tsx": "tsx", ".js": "javascript",
	".jsx": "jsx", ".mjs": "javascript", ".md": "markdown", ".json": "json", ".sh": "bash",
	".bash": "bash", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".rs": "rust",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".java": "java",
	".rb": "ruby", ".html": "html", ".css": "css", ".sql": "sql", ".xml": "xml",
	".proto": "protobuf", ".mod": "go.mod",
}

// langOf returns the language hint of a file path from its extension (and
// a few well-known names), or "" when it has none.
func langOf(p string) string {
	switch path.Base(p) {
	case "Makefile", "GNUmakefile":
		return "makefile"
	case "Dockerfile":
		return "dockerfile"
	}
	return langs[strings.ToLower(path.Ext(p))]
}

// readTitle is the title of read_file's cards.
func readTitle(p string) string { return "Read " + p }

// presentReadCall shows a pending read as a generic read card locating the
// file and, when an offset is given, its first line.
func presentReadCall(args ReadFileArgs) *runtime.ToolCallView {
	return &runtime.ToolCallView{
		Card:      runtime.CallGeneric,
		Title:     readTitle(args.Path),
		Kind:      runtime.KindRead,
		Locations: []runtime.FileLocation{{Path: args.Path, Line: max(args.Offset, 0)}},
	}
}

// readMeta stores the read card of a result: its numbered lines, offset,
// total line count and language hint.
func readMeta(args ReadFileArgs, res ReadFileResult) jsonvalue.Value {
	lines := make([]runtime.ReadFileLine, len(res.Lines))
	for i, l := range res.Lines {
		lines[i] = runtime.ReadFileLine{Number: res.Offset + i, Text: l}
	}
	return cardMeta(runtime.ToolResultView{
		Card:       runtime.ResultRead,
		Title:      readTitle(args.Path),
		Path:       res.Path,
		Offset:     res.Offset,
		Lines:      lines,
		TotalLines: res.TotalLines,
		Lang:       langOf(res.Path),
	})
}

// presentReadResult shows a completed read as the read card readMeta
// stored.
func presentReadResult(_ ReadFileArgs, res runtime.ToolResult) *runtime.ToolResultView {
	return cardFromMeta(res)
}
