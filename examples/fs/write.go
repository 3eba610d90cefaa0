package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"strings"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

// hunkContext is the number of unchanged lines a Hunk keeps on each side
// of the changed lines.
const hunkContext = 3

// Hunk is the changed region of a file: the lines from the first that
// differs to the last that differs, between the old and the new text, with
// up to three unchanged lines of context on each side. Both texts are
// empty when nothing changed.
type Hunk struct {
	// OldText is the region as it was, with its line feeds; invalid UTF-8 appears as U+FFFD.
	OldText string `json:"old_text"`
	// NewText is the region as it is now, with its line feeds; invalid UTF-8 appears as U+FFFD.
	NewText string `json:"new_text"`
}

// WriteFileArgs are the arguments of write_file.
type WriteFileArgs struct {
	// Path of the file to create or overwrite, relative to the root directory or absolute inside it; missing parent directories are created.
	Path string `json:"path"`
	// Content is the complete new content of the file.
	Content string `json:"content"`
}

// WriteFileResult is what write_file returns.
type WriteFileResult struct {
	// Path of the file, relative to the root directory, slash-separated.
	Path string `json:"path"`
	// Created reports that the file did not exist before the call.
	Created bool `json:"created"`
	// Bytes is the size of the new content in bytes.
	Bytes int `json:"bytes"`
	// Change is the changed region of an overwritten file; absent when the file was created.
	Change *Hunk `json:"change,omitempty"`
}

// WriteFile creates a file under the root directory with the given
// content, or replaces the whole content of an existing one (keeping its
// permissions), creating missing parent directories. The file is replaced
// atomically: readers see the old content or the new, never a mix. Prefer
// edit_file to change part of an existing file.
//
//toolgen:tool name=write_file timeout=30s concurrency=exclusive render=renderWrite meta=writeMeta present_call=presentWriteCall present_result=presentWriteResult
func WriteFile(ctx context.Context, args WriteFileArgs) (WriteFileResult, error) {
	if args.Path == "" {
		return WriteFileResult{}, invalidArgs("write_file: path is empty")
	}
	sb, r, err := open(ctx)
	if err != nil {
		return WriteFileResult{}, err
	}
	defer r.Close()
	rel, err := sb.resolve(args.Path)
	if err != nil {
		return WriteFileResult{}, err
	}
	res := WriteFileResult{Path: validText(rel), Bytes: len(args.Content)}
	mode := os.FileMode(0o644)
	var old []byte
	switch fi, err := r.Stat(native(rel)); {
	case errors.Is(err, iofs.ErrNotExist):
		res.Created = true
		if err := r.MkdirAll(native(path.Dir(rel)), 0o755); err != nil {
			return WriteFileResult{}, pathError("write", args.Path, err)
		}
	case err != nil:
		return WriteFileResult{}, pathError("write", args.Path, err)
	case !fi.Mode().IsRegular():
		return WriteFileResult{}, &runtime.ToolError{Code: CodeNotFile, Message: fmt.Sprintf("fs: write %q: not a regular file", args.Path)}
	default:
		mode = fi.Mode().Perm()
		if old, err = r.ReadFile(native(rel)); err != nil {
			return WriteFileResult{}, pathError("write", args.Path, err)
		}
	}
	if err := writeAtomic(ctx, r, rel, []byte(args.Content), mode); err != nil {
		return WriteFileResult{}, pathError("write", args.Path, err)
	}
	if !res.Created {
		h := hunkOf(string(old), args.Content)
		res.Change = &h
	}
	return res, nil
}

// renderWrite tells the model what was written, without echoing the
// content it sent.
func renderWrite(_ WriteFileArgs, res WriteFileResult) []runtime.ContentBlock {
	verb := "Overwrote"
	if res.Created {
		verb = "Created"
	}
	return []runtime.ContentBlock{runtime.Text(fmt.Sprintf("%s %s (%d bytes).", verb, res.Path, res.Bytes))}
}

// writeTitle is the title of write_file's cards.
func writeTitle(p string) string { return "Write " + p }

// presentWriteCall shows a pending write as a diff card. A pending card
// depends only on the arguments, so it has no before-image: it shows the
// whole new content as a new file (oldText null), even when the file
// exists; the result card shows what actually changed.
func presentWriteCall(args WriteFileArgs) *runtime.ToolCallView {
	return &runtime.ToolCallView{
		Card:      runtime.CallDiff,
		Title:     writeTitle(args.Path),
		Diffs:     []runtime.FileDiff{runtime.NewFileDiff(args.Path, args.Content)},
		Locations: []runtime.FileLocation{{Path: args.Path}},
	}
}

// writeMeta stores the diff card of a result: the whole content for a
// created file (oldText null), the changed region for an overwritten one.
func writeMeta(args WriteFileArgs, res WriteFileResult) jsonvalue.Value {
	d := runtime.NewFileDiff(res.Path, validText(args.Content))
	if res.Change != nil {
		d = runtime.ChangeFileDiff(res.Path, res.Change.OldText, res.Change.NewText)
	}
	return cardMeta(runtime.ToolResultView{Card: runtime.ResultDiff, Title: writeTitle(args.Path), Diffs: []runtime.FileDiff{d}})
}

// presentWriteResult shows a completed write as the diff card writeMeta
// stored.
func presentWriteResult(_ WriteFileArgs, res runtime.ToolResult) *runtime.ToolResultView {
	return cardFromMeta(res)
}

// EditFileArgs are the arguments of edit_file.
type EditFileArgs struct {
	// Path of the file to edit, relative to the root directory or absolute inside it.
	Path string `json:"path"`
	// Edits are applied in order, each to the text the edits before it produced; unless every one applies, none does and the file is left untouched.
	Edits []Edit `json:"edits"`
}

// Edit is one exact-text replacement of edit_file.
type Edit struct {
	// OldText is the exact text to replace, whitespace and line feeds included; it must occur exactly once unless replace_all is set.
	OldText string `json:"old_text"`
	// NewText is the text that replaces old_text; it must differ from old_text.
	NewText string `json:"new_text"`
	// ReplaceAll replaces every occurrence of old_text instead of requiring exactly one.
	ReplaceAll bool `json:"replace_all,omitempty"`
}

// EditFileResult is what edit_file returns.
type EditFileResult struct {
	// Path of the file, relative to the root directory, slash-separated.
	Path string `json:"path"`
	// Applied is the number of edits applied: all of them.
	Applied int `json:"applied"`
	// Replacements is the number of occurrences replaced by all edits together.
	Replacements int `json:"replacements"`
	// Change is the changed region of the file.
	Change Hunk `json:"change"`
}

// EditFile changes an existing text file under the root directory by exact
// text replacement: each edit replaces old_text, which must occur exactly
// once (or every occurrence, with replace_all), with new_text. Edits apply
// in order, each to the result of the ones before it. Either every edit
// applies or the call fails naming the edit that did not, and the file is
// left untouched. The file is replaced atomically and keeps its
// permissions. Read the file first: old_text must match it byte for byte.
//
//toolgen:tool name=edit_file timeout=30s concurrency=exclusive render=renderEdit meta=editMeta present_call=presentEditCall present_result=presentEditResult
func EditFile(ctx context.Context, args EditFileArgs) (EditFileResult, error) {
	if args.Path == "" {
		return EditFileResult{}, invalidArgs("edit_file: path is empty")
	}
	if len(args.Edits) == 0 {
		return EditFileResult{}, invalidArgs("edit_file: edits is empty; give at least one edit")
	}
	for i, e := range args.Edits {
		switch {
		case e.OldText == "":
			return EditFileResult{}, invalidArgs("edit_file: edit %d: old_text is empty", i+1)
		case e.OldText == e.NewText:
			return EditFileResult{}, invalidArgs("edit_file: edit %d: old_text and new_text are the same", i+1)
		}
	}
	sb, r, err := open(ctx)
	if err != nil {
		return EditFileResult{}, err
	}
	defer r.Close()
	rel, err := sb.resolve(args.Path)
	if err != nil {
		return EditFileResult{}, err
	}
	fi, err := r.Stat(native(rel))
	if err != nil {
		return EditFileResult{}, pathError("edit", args.Path, err)
	}
	if !fi.Mode().IsRegular() {
		return EditFileResult{}, &runtime.ToolError{Code: CodeNotFile, Message: fmt.Sprintf("fs: edit %q: not a regular file", args.Path)}
	}
	data, err := r.ReadFile(native(rel))
	if err != nil {
		return EditFileResult{}, pathError("edit", args.Path, err)
	}
	old := string(data)
	text, replaced, err := applyEdits(old, args.Edits)
	if err != nil {
		return EditFileResult{}, &runtime.ToolError{Code: CodeEditFailed, Message: fmt.Sprintf("fs: edit_file %q: %v; the file is unchanged", args.Path, err)}
	}
	if err := writeAtomic(ctx, r, rel, []byte(text), fi.Mode().Perm()); err != nil {
		return EditFileResult{}, pathError("edit", args.Path, err)
	}
	return EditFileResult{Path: validText(rel), Applied: len(args.Edits), Replacements: replaced, Change: hunkOf(old, text)}, nil
}

// applyEdits applies edits to text in order and returns the result and the
// number of occurrences replaced, or an error naming the first edit that
// does not apply.
func applyEdits(text string, edits []Edit) (string, int, error) {
	orig, replaced := text, 0
	for i, e := range edits {
		switch n := strings.Count(text, e.OldText); {
		case n == 0 && i > 0 && strings.Contains(orig, e.OldText):
			return "", 0, fmt.Errorf("edit %d of %d: old_text is no longer in the file: an earlier edit changed it", i+1, len(edits))
		case n == 0:
			return "", 0, fmt.Errorf("edit %d of %d: old_text was not found", i+1, len(edits))
		case n > 1 && !e.ReplaceAll:
			return "", 0, fmt.Errorf("edit %d of %d: old_text occurs %d times; add surrounding lines to make it unique, or set replace_all", i+1, len(edits), n)
		default:
			text = strings.ReplaceAll(text, e.OldText, e.NewText)
			replaced += n
		}
	}
	return text, replaced, nil
}

// hunkOf returns the changed region between old and new: their common
// leading and trailing lines are dropped, except hunkContext lines of
// context on each side.
func hunkOf(old, new string) Hunk {
	if old == new {
		return Hunk{}
	}
	a, b := strings.SplitAfter(old, "\n"), strings.SplitAfter(new, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	from := max(pre-hunkContext, 0)
	toA, toB := len(a)-max(suf-hunkContext, 0), len(b)-max(suf-hunkContext, 0)
	return Hunk{
		OldText: validText(strings.Join(a[from:toA], "")),
		NewText: validText(strings.Join(b[from:toB], "")),
	}
}

// renderEdit tells the model what was changed.
func renderEdit(_ EditFileArgs, res EditFileResult) []runtime.ContentBlock {
	return []runtime.ContentBlock{runtime.Text(fmt.Sprintf("Edited %s: applied %d edit(s), %d replacement(s).", res.Path, res.Applied, res.Replacements))}
}

// editTitle is the title of edit_file's cards.
func editTitle(p string) string { return "Edit " + p }

// presentEditCall shows a pending edit as a diff card with one diff per
// edit, its old and new text. A pending card depends only on the
// arguments, so these are the edits' texts, not regions of the file.
func presentEditCall(args EditFileArgs) *runtime.ToolCallView {
	diffs := make([]runtime.FileDiff, len(args.Edits))
	for i, e := range args.Edits {
		diffs[i] = runtime.ChangeFileDiff(args.Path, e.OldText, e.NewText)
	}
	return &runtime.ToolCallView{
		Card:      runtime.CallDiff,
		Title:     editTitle(args.Path),
		Diffs:     diffs,
		Locations: []runtime.FileLocation{{Path: args.Path}},
	}
}

// editMeta stores the diff card of a result: the changed region of the
// file, before and after.
func editMeta(args EditFileArgs, res EditFileResult) jsonvalue.Value {
	return cardMeta(runtime.ToolResultView{
		Card:  runtime.ResultDiff,
		Title: editTitle(args.Path),
		Diffs: []runtime.FileDiff{runtime.ChangeFileDiff(res.Path, res.Change.OldText, res.Change.NewText)},
	})
}

// presentEditResult shows a completed edit as the diff card editMeta
// stored.
func presentEditResult(_ EditFileArgs, res runtime.ToolResult) *runtime.ToolResultView {
	return cardFromMeta(res)
}
