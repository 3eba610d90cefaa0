package gen

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// maxDiffCells bounds the line-matching table; beyond it the differing
// middle of the two files is shown as one replacement.
const maxDiffCells = 16 << 20

// UnifiedDiff returns the unified diff that turns old into new, with the
// file named path on both sides, or "" when they are equal. Lines are
// matched by a longest-common-subsequence after the common prefix and
// suffix are set aside, which keeps generated-file diffs exact and small.
func UnifiedDiff(path string, old, new []byte) string {
	a, b := splitLines(string(old)), splitLines(string(new))
	ops := diffLines(a, b)
	changed := false
	for _, op := range ops {
		if op.kind != ' ' {
			changed = true
			break
		}
	}
	if !changed {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", path, path)
	for start := 0; start < len(ops); {
		for start < len(ops) && ops[start].kind == ' ' {
			start++
		}
		if start == len(ops) {
			break
		}
		lo := max(start-diffContext, 0)
		hi := start
		for hi < len(ops) {
			if ops[hi].kind != ' ' {
				hi++
				continue
			}
			run := hi
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-hi > 2*diffContext {
				hi = min(hi+diffContext, run)
				break
			}
			hi = run
		}
		hunk := ops[lo:hi]
		aStart, bStart := hunk[0].a, hunk[0].b
		var aLen, bLen int
		for _, op := range hunk {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, op := range hunk {
			sb.WriteByte(op.kind)
			sb.WriteString(op.text)
			if !strings.HasSuffix(op.text, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
		start = hi
	}
	return sb.String()
}

// hunkRange formats a hunk's 1-based line range.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// diffOp is one line of a diff: kept (' '), removed ('-') or added ('+'),
// with its 0-based line numbers in old and new.
type diffOp struct {
	kind byte
	text string
	a, b int
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for i := range pre {
		ops = append(ops, diffOp{' ', a[i], i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ops = append(ops, middle(ma, mb, pre)...)
	for i := range suf {
		ia, ib := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, diffOp{' ', a[ia], ia, ib})
	}
	return ops
}

// middle diffs the part between the common prefix and suffix, which starts
// at line off of both files.
func middle(a, b []string, off int) []diffOp {
	var ops []diffOp
	if (len(a)+1)*(len(b)+1) > maxDiffCells {
		for i, l := range a {
			ops = append(ops, diffOp{'-', l, off + i, off})
		}
		for j, l := range b {
			ops = append(ops, diffOp{'+', l, off + len(a), off + j})
		}
		return ops
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], off + i, off + j})
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			ops = append(ops, diffOp{'-', a[i], off + i, off + j})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j], off + i, off + j})
			j++
		}
	}
	return ops
}
