package shell

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// capture is an io.Writer that keeps at most max bytes of what is written
// to it: the first half and the most recent half, and counts the rest.
type capture struct {
	mu      sync.Mutex
	headMax int
	tailMax int
	head    []byte
	// tail holds the most recent bytes after the head filled up; it may
	// grow to twice tailMax between compactions, and its last tailMax
	// bytes are the ones kept.
	tail  []byte
	total int64
	notes []string
}

func newCapture(maxBytes int) *capture {
	return &capture{headMax: maxBytes / 2, tailMax: maxBytes - maxBytes/2}
}

// Write keeps what fits and counts everything; it never fails.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || c.tailMax == 0 {
		return n, nil
	}
	if len(p) >= c.tailMax {
		c.tail = append(c.tail[:0], p[len(p)-c.tailMax:]...)
		return n, nil
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.tailMax {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.tailMax:]...)
	}
	return n, nil
}

// note adds a line after the output.
func (c *capture) note(line string) {
	c.mu.Lock()
	c.notes = append(c.notes, line)
	c.mu.Unlock()
}

// result returns the kept output as valid UTF-8 (invalid bytes become
// U+FFFD), with a marker where bytes were dropped, followed by the notes;
// the number of bytes written in all; and whether any were dropped.
func (c *capture) result() (output string, total int64, truncated bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	head, tail := c.head, c.tail
	if len(tail) > c.tailMax {
		tail = tail[len(tail)-c.tailMax:]
	}
	var b strings.Builder
	dropped := c.total - int64(len(head)) - int64(len(tail))
	if dropped == 0 {
		b.WriteString(strings.ToValidUTF8(string(head)+string(tail), "\uFFFD"))
	} else {
		// Characters cut in two at either side of the gap are dropped
		// whole, and counted.
		h, t := cutIncompleteEnd(head), cutIncompleteStart(tail)
		dropped += int64(len(head)-len(h)) + int64(len(tail)-len(t))
		b.WriteString(strings.ToValidUTF8(string(h), "\uFFFD"))
		if len(h) > 0 && h[len(h)-1] != '\n' {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[... %d bytes of output dropped: %d written in all, the first %d and last %d kept ...]\n", dropped, c.total, len(h), len(t))
		b.WriteString(strings.ToValidUTF8(string(t), "\uFFFD"))
	}
	for _, n := range c.notes {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(n + "\n")
	}
	return b.String(), c.total, dropped > 0
}

// cutIncompleteEnd drops a character that the end of b cuts in two.
func cutIncompleteEnd(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// cutIncompleteStart drops the continuation bytes of a character that the
// start of b cuts in two.
func cutIncompleteStart(b []byte) []byte {
	for i := 0; i < len(b) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}
