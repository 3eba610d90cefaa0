package runtime

import (
	"fmt"
	"strconv"
	"strings"
)

// maxInline bounds how much raw input a one-line rendering repeats.
const maxInline = 120

// CallLine renders a pending call as one plain log line, for CLIs and logs
// without cards. A nil view is the generic fallback for the named tool.
func CallLine(name string, v *ToolCallView) string {
	if v == nil {
		v = &ToolCallView{Card: CallGeneric, Title: name}
	}
	title := v.Title
	if title == "" {
		title = name
	}
	var b strings.Builder
	switch v.Card {
	case CallTerminal:
		b.WriteString("$ " + title)
		if v.Cwd != "" {
			b.WriteString("  (in " + v.Cwd + ")")
		}
		if v.Description != "" {
			b.WriteString("  # " + v.Description)
		}
	case CallDiff:
		b.WriteString("✎ " + title)
		for i, d := range v.Diffs {
			b.WriteString(map[bool]string{true: ": ", false: ", "}[i == 0])
			b.WriteString(d.Path)
			if d.IsNewFile() {
				b.WriteString(" (new)")
			}
		}
	default:
		b.WriteString("▸ " + title)
		if v.Kind != "" {
			b.WriteString(" [" + string(v.Kind) + "]")
		}
		switch {
		case len(v.Locations) > 0:
			for i, l := range v.Locations {
				b.WriteString(map[bool]string{true: " ", false: ", "}[i == 0])
				b.WriteString(location(l))
			}
		case v.RawInput != nil:
			b.WriteString(" " + clip(v.RawInput.String(), maxInline))
		}
	}
	return b.String()
}

func location(l FileLocation) string {
	if l.Line > 0 {
		return l.Path + ":" + strconv.Itoa(l.Line)
	}
	return l.Path
}

// ResultText renders a completed call as plain text, for CLIs and logs
// without cards: the card's structure where there is a view (a terminal
// card as a fenced console block with its exit status), and the result's
// raw content where there is none, as a UI without the card would show it.
func ResultText(v *ToolResultView, res ToolResult) string {
	var b strings.Builder
	if res.IsError {
		b.WriteString("error")
		if res.Error != nil && res.Error.Info.Code != "" {
			b.WriteString(" " + string(res.Error.Info.Code))
		}
		b.WriteString(": ")
	}
	if v == nil {
		b.WriteString(contentText(res.Content))
		return b.String()
	}
	if v.Title != "" {
		b.WriteString(v.Title + "\n")
	}
	switch v.Card {
	case ResultTerminal:
		output := ""
		if v.Output != nil {
			output = strings.TrimSuffix(*v.Output, "\n")
		}
		// The fence is longer than any run of backticks in the output, so
		// the output cannot close it.
		fence := strings.Repeat("`", max(3, longestRun(output, '`')+1))
		b.WriteString(fence + "console\n")
		if output != "" {
			b.WriteString(output + "\n")
		}
		b.WriteString(fence + "\n")
		switch {
		case v.ExitCode != nil:
			b.WriteString("exit status " + strconv.Itoa(*v.ExitCode))
		case v.Signal != "":
			b.WriteString("killed by " + v.Signal)
		}
	case ResultDiff:
		for _, d := range v.Diffs {
			b.WriteString(diffText(d))
		}
	case ResultSearch:
		b.WriteString(searchText(v))
	case ResultRead:
		last := v.Offset + len(v.Lines) - 1
		if len(v.Lines) == 0 {
			fmt.Fprintf(&b, "%s: no lines from line %d (%d in the file)\n", v.Path, v.Offset, v.TotalLines)
		} else {
			fmt.Fprintf(&b, "%s: lines %d-%d of %d\n", v.Path, v.Offset, last, v.TotalLines)
		}
		width := len(strconv.Itoa(max(last, 1)))
		for _, l := range v.Lines {
			fmt.Fprintf(&b, "%*d│ %s\n", width, l.Number, l.Text)
		}
	case ResultWeb:
		if v.Web == WebFetch {
			fmt.Fprintf(&b, "GET %s → %d", v.URL, v.StatusCode)
		} else {
			for _, s := range v.Sources {
				b.WriteString("- " + strings.TrimSpace(s.Title+" "+s.URL) + "\n")
			}
			if v.Answer != "" {
				b.WriteString(v.Answer)
			}
		}
		if v.Truncated {
			b.WriteString(" (truncated)")
		}
	default:
		if v.Content != nil {
			b.WriteString(contentText(v.Content))
		} else {
			b.WriteString(contentText(res.Content))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

func diffText(d FileDiff) string {
	newLines := lineCount(d.NewText)
	if d.IsNewFile() {
		return fmt.Sprintf("+++ %s (new file, %d lines)\n", d.Path, newLines)
	}
	return fmt.Sprintf("~~~ %s (%d → %d lines)\n", d.Path, lineCount(*d.OldText), newLines)
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

func searchText(v *ToolResultView) string {
	var b strings.Builder
	if v.Shape == ShapePaths {
		fmt.Fprintf(&b, "%d paths", v.Total)
	} else {
		fmt.Fprintf(&b, "%d matches in %d files", v.Total, len(v.Files))
	}
	if v.Truncated {
		b.WriteString(" (truncated)")
	}
	b.WriteString("\n")
	for _, p := range v.Paths {
		b.WriteString(p + "\n")
	}
	for _, f := range v.Files {
		for _, m := range f.Matches {
			fmt.Fprintf(&b, "%s:%d: %s\n", f.Path, m.Line, m.Text)
		}
	}
	return b.String()
}

// contentText renders content blocks as text: text as is, images as a
// placeholder naming their type.
func contentText(blocks []ContentBlock) string {
	parts := make([]string, 0, len(blocks))
	for _, c := range blocks {
		if c.Type == ContentImage {
			parts = append(parts, "[image "+c.MimeType+"]")
		} else {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// clip shortens s to n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
