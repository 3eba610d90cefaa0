package readme

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/internal/conformance"
)

// block is one fenced code block of the README.
type block struct {
	lang   string
	marker string // the <!-- readme:... --> comment right above it, if any
	lines  []string
	line   int // 1-based line of the opening fence
}

const root = "../.."

// blocks returns the README's fenced code blocks.
func blocks(t *testing.T) []block {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	defer f.Close()
	var out []block
	var cur *block
	prev := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &block{lang: strings.TrimPrefix(line, "```"), line: n}
			if strings.HasPrefix(prev, "<!-- readme:") {
				cur.marker = strings.TrimSuffix(strings.TrimPrefix(prev, "<!-- readme:"), " -->")
			}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "unterminated code block")
	return out
}

// TestGoBlocks checks that every Go block names its source file and is an
// exact run of that file's lines (compared without leading indentation),
// so that the README shows code the module compiles and tests.
func TestGoBlocks(t *testing.T) {
	n := 0
	for _, b := range blocks(t) {
		if b.lang != "go" {
			continue
		}
		n++
		src, ok := strings.CutPrefix(b.marker, "source ")
		if !assert.True(t, ok, "README.md:%d: a Go block needs <!-- readme:source PATH --> above it", b.line) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, src))
		if !assert.NoError(t, err, "README.md:%d", b.line) {
			continue
		}
		assert.True(t, excerpt(strings.Split(string(data), "\n"), b.lines),
			"README.md:%d: the block is not an exact excerpt of %s", b.line, src)
	}
	assert.Positive(t, n)
}

// excerpt reports whether want is a contiguous run of file's lines, each
// compared without its leading white space.
func excerpt(file, want []string) bool {
	trim := func(s string) string { return strings.TrimLeft(s, " \t") }
	for i := 0; i+len(want) <= len(file); i++ {
		match := true
		for j, w := range want {
			if trim(file[i+j]) != trim(w) {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

func TestExcerpt(t *testing.T) {
	file := []string{"a", "\tb", "c"}
	assert.True(t, excerpt(file, []string{"b", "  c"}))
	assert.False(t, excerpt(file, []string{"a", "c"}))
	assert.False(t, excerpt(file, []string{"c", "d"}))
}

// clone matches the quick start's clone command.
var clone = regexp.MustCompile(`^git clone (\S+) && cd (\S+)$`)

// TestCommands runs the README's shell blocks as a new user would: on a
// fresh clone of this checkout's HEAD, every command must succeed. It runs
// under CI=true (and with TOOLGEN_README_COMMANDS=1); inside the clone's
// own make test it is skipped, or it would recurse.
func TestCommands(t *testing.T) {
	var script []string
	for _, b := range blocks(t) {
		if b.lang != "sh" {
			continue
		}
		require.Equal(t, "commands", b.marker, "README.md:%d: a shell block needs <!-- readme:commands --> above it", b.line)
		for _, line := range b.lines {
			cmd, _, _ := strings.Cut(line, "#")
			if cmd = strings.TrimSpace(cmd); cmd != "" {
				script = append(script, cmd)
			}
		}
	}
	require.NotEmpty(t, script)
	m := clone.FindStringSubmatch(script[0])
	require.NotNil(t, m, "the first command clones the repository: %q", script[0])
	require.Contains(t, script, "make demo")
	require.Contains(t, script, "make test")

	if os.Getenv("TOOLGEN_README_NESTED") != "" {
		t.Skip("inside the README's own make test")
	}
	if os.Getenv("CI") != "true" && os.Getenv("TOOLGEN_README_COMMANDS") != "1" {
		t.Skip("runs under CI=true or TOOLGEN_README_COMMANDS=1: it clones HEAD and runs make demo and make test there")
	}
	corpus := conformance.Dir(t)
	repo, err := filepath.Abs(root)
	require.NoError(t, err)
	// The clone sits beside a link to the shared corpus and payloads, as
	// the checkout does.
	dir := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Dir(corpus), filepath.Join(dir, "shared")))
	script[0] = "git clone -q " + repo + " " + m[2] + " && cd " + m[2]
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", strings.Join(script, "\n"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TOOLGEN_README_NESTED=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "every step behaved as stated")
}
