package fs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	iofs "io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

// DefaultMaxResults is the cap grep and glob apply when the call gives no
// max_results.
const DefaultMaxResults = 100

// maxMatchText is the most bytes of a matching line grep returns.
const maxMatchText = 500

// GrepArgs are the arguments of grep.
type GrepArgs struct {
	// Pattern is a Go regular expression (RE2 syntax) searched for in each line, without its line ending.
	Pattern string `json:"pattern"`
	// Path is the directory to search, or a single file, relative to the root directory or absolute inside it; absent means the root.
	Path string `json:"path,omitempty"`
	// Glob keeps only the files whose name matches it (path.Match syntax, such as *.go); a glob with a slash is matched against the file's path relative to the searched directory instead, where a ** segment matches any number of directories. It does not apply to a single file named by path.
	Glob string `json:"glob,omitempty"`
	// CaseInsensitive makes the pattern ignore case.
	CaseInsensitive bool `json:"case_insensitive,omitempty"`
	// MaxResults caps the matching lines returned; absent or 0 means 100. Matches beyond the cap are still counted in total.
	MaxResults int `json:"max_results,omitempty"`
}

// GrepResult is what grep returns.
type GrepResult struct {
	// Files are the files with returned matches, in walk order (directory by directory, names in lexical order).
	Files []GrepFile `json:"files"`
	// Total is the number of matching lines in all searched files, including those beyond the cap.
	Total int `json:"total"`
	// Truncated reports that more lines matched than were returned (total is larger than the matches in files).
	Truncated bool `json:"truncated"`
}

// GrepFile is one file's matching lines.
type GrepFile struct {
	// Path of the file, relative to the root directory, slash-separated.
	Path string `json:"path"`
	// Matches are the file's matching lines, in order.
	Matches []GrepMatch `json:"matches"`
}

// GrepMatch is one matching line.
type GrepMatch struct {
	// Line is the 1-based line number.
	Line int `json:"line"`
	// Text is the line without its line ending; a line longer than 500 bytes is cut and ends with "…", and invalid UTF-8 appears as U+FFFD.
	Text string `json:"text"`
}

// Grep searches the text files under a directory of the root for lines
// matching a Go regular expression, and returns the matching lines grouped
// by file with their line numbers, up to max_results lines (100 by
// default) with the total count of matching lines. Binary files (a NUL byte
// in the first 8 KiB), .git directories and symbolic links are skipped.
//
//toolgen:tool name=grep timeout=60s concurrency=safe meta=grepMeta present_call=presentGrepCall present_result=presentGrepResult
func Grep(ctx context.Context, args GrepArgs) (GrepResult, error) {
	if args.Pattern == "" {
		return GrepResult{}, invalidArgs("grep: pattern is empty")
	}
	if args.MaxResults < 0 {
		return GrepResult{}, invalidArgs("grep: max_results must not be negative, got %d", args.MaxResults)
	}
	expr := args.Pattern
	if args.CaseInsensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return GrepResult{}, invalidArgs("grep: pattern: %v", err)
	}
	var glob *matcher
	if args.Glob != "" {
		if glob, err = newMatcher(args.Glob); err != nil {
			return GrepResult{}, invalidArgs("grep: glob: %v", err)
		}
	}
	capped := args.MaxResults
	if capped == 0 {
		capped = DefaultMaxResults
	}
	sb, r, err := open(ctx)
	if err != nil {
		return GrepResult{}, err
	}
	defer r.Close()
	start, err := sb.resolve(orRoot(args.Path))
	if err != nil {
		return GrepResult{}, err
	}
	fsys := r.FS()
	fi, err := iofs.Stat(fsys, start)
	if err != nil {
		return GrepResult{}, pathError("grep", args.Path, err)
	}

	res := GrepResult{Files: []GrepFile{}}
	returned := 0
	search := func(name string) error {
		f, err := fsys.Open(name)
		if err != nil {
			return nil // unreadable files are skipped
		}
		defer f.Close()
		br := bufio.NewReaderSize(f, 64<<10)
		if head, _ := br.Peek(sniffLen); bytes.IndexByte(head, 0) >= 0 {
			return nil
		}
		var file *GrepFile
		_, err = scanLines(ctx, br, func(int) bool { return true }, func(n int, line []byte) {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if !re.Match(line) {
				return
			}
			res.Total++
			if returned == capped {
				res.Truncated = true
				return
			}
			returned++
			if file == nil {
				res.Files = append(res.Files, GrepFile{Path: name, Matches: []GrepMatch{}})
				file = &res.Files[len(res.Files)-1]
			}
			file.Matches = append(file.Matches, GrepMatch{Line: n, Text: clip(line)})
		})
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		return nil // a read error ends this file only
	}

	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return GrepResult{}, &runtime.ToolError{Code: CodeNotFile, Message: fmt.Sprintf("fs: grep %q: neither a directory nor a regular file", args.Path)}
		}
		if err := search(start); err != nil {
			return GrepResult{}, err
		}
		return res, nil
	}
	err = walk(ctx, fsys, start, nil, func(name, relToStart string) error {
		if glob != nil && !glob.matchFile(relToStart) {
			return nil
		}
		return search(name)
	})
	if err != nil {
		return GrepResult{}, pathError("grep", args.Path, err)
	}
	return res, nil
}

// clip returns line as valid UTF-8, cut to maxMatchText bytes at a rune
// boundary with "…" appended when it is longer.
func clip(line []byte) string {
	if len(line) <= maxMatchText {
		return validText(string(line))
	}
	cut := maxMatchText
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return validText(string(line[:cut])) + "…"
}

// orRoot returns p, or "." for an empty p.
func orRoot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// walk calls fn for every regular file under the directory start of fsys,
// in walk order, with its name in fsys and its path relative to start. It
// skips .git directories, entries whose names are not valid UTF-8, and everything that is neither a directory nor a
// regular file (symbolic links included, which it does not follow), and
// directories for which prune, when not nil, returns true. It checks ctx
// before every entry. Unreadable directories are skipped.
func walk(ctx context.Context, fsys iofs.FS, start string, prune func(relToStart string) bool, fn func(name, relToStart string) error) error {
	return iofs.WalkDir(fsys, start, func(name string, d iofs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if name == start {
				return err
			}
			return nil // an unreadable entry below start is skipped
		}
		rel := relTo(start, name)
		if !utf8.ValidString(name) {
			// Results are JSON, which cannot name such a file exactly.
			if d.IsDir() {
				return iofs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if name != start && (d.Name() == ".git" || (prune != nil && prune(rel))) {
				return iofs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return fn(name, rel)
	})
}

// relTo returns the fs.FS name name relative to the directory start.
func relTo(start, name string) string {
	if start == "." {
		return name
	}
	return strings.TrimPrefix(name, start+"/")
}

// searchTitle is the title of grep's and glob's cards.
func searchTitle(tool, pattern, dir string) string {
	t := fmt.Sprintf("%s %q", tool, pattern)
	if dir != "" {
		t += " in " + dir
	}
	return t
}

// presentGrepCall shows a pending grep as a generic search card.
func presentGrepCall(args GrepArgs) *runtime.ToolCallView {
	return &runtime.ToolCallView{Card: runtime.CallGeneric, Title: searchTitle("Grep", args.Pattern, args.Path), Kind: runtime.KindSearch}
}

// grepMeta stores the search card of a result: the matches grouped per
// file, whether they were capped, and the total.
func grepMeta(args GrepArgs, res GrepResult) jsonvalue.Value {
	files := make([]runtime.SearchFile, len(res.Files))
	for i, f := range res.Files {
		ms := make([]runtime.SearchMatch, len(f.Matches))
		for j, m := range f.Matches {
			ms[j] = runtime.SearchMatch{Line: m.Line, Text: m.Text}
		}
		files[i] = runtime.SearchFile{Path: f.Path, Matches: ms}
	}
	return cardMeta(runtime.ToolResultView{
		Card: runtime.ResultSearch, Title: searchTitle("Grep", args.Pattern, args.Path),
		Shape: runtime.ShapeMatches, Files: files, Truncated: res.Truncated, Total: res.Total,
	})
}

// presentGrepResult shows a completed grep as the search card grepMeta
// stored.
func presentGrepResult(_ GrepArgs, res runtime.ToolResult) *runtime.ToolResultView {
	return cardFromMeta(res)
}

// GlobArgs are the arguments of glob.
type GlobArgs struct {
	// Pattern is matched against each file's slash-separated path relative to path: segment by segment with path.Match syntax (*, ?, [a-z], \ escapes), where a segment that is exactly ** matches any number of directories, none included. So *.go matches only files directly in path, and **/*.go matches them at any depth.
	Pattern string `json:"pattern"`
	// Path is the directory to search, relative to the root directory or absolute inside it; absent means the root.
	Path string `json:"path,omitempty"`
	// MaxResults caps the paths returned; absent or 0 means 100. Paths beyond the cap are still counted in total.
	MaxResults int `json:"max_results,omitempty"`
}

// GlobResult is what glob returns.
type GlobResult struct {
	// Paths are the matching files, relative to the root directory, slash-separated, in sorted order; the first max_results of them.
	Paths []string `json:"paths"`
	// Total is the number of matching files, including those beyond the cap.
	Total int `json:"total"`
	// Truncated reports that more files matched than were returned.
	Truncated bool `json:"truncated"`
}

// Glob lists the regular files under a directory of the root whose paths
// match a glob pattern such as **/*.go, sorted, up to max_results (100 by
// default) with the total count. .git directories and symbolic links are
// skipped.
//
//toolgen:tool name=glob timeout=60s concurrency=safe meta=globMeta present_call=presentGlobCall present_result=presentGlobResult
func Glob(ctx context.Context, args GlobArgs) (GlobResult, error) {
	if args.MaxResults < 0 {
		return GlobResult{}, invalidArgs("glob: max_results must not be negative, got %d", args.MaxResults)
	}
	m, err := newMatcher(args.Pattern)
	if err != nil {
		return GlobResult{}, invalidArgs("glob: pattern: %v", err)
	}
	capped := args.MaxResults
	if capped == 0 {
		capped = DefaultMaxResults
	}
	sb, r, err := open(ctx)
	if err != nil {
		return GlobResult{}, err
	}
	defer r.Close()
	start, err := sb.resolve(orRoot(args.Path))
	if err != nil {
		return GlobResult{}, err
	}
	fsys := r.FS()
	fi, err := iofs.Stat(fsys, start)
	if err != nil {
		return GlobResult{}, pathError("glob", args.Path, err)
	}
	if !fi.IsDir() {
		return GlobResult{}, &runtime.ToolError{Code: CodeNotDirectory, Message: fmt.Sprintf("fs: glob %q: not a directory", args.Path)}
	}
	var paths []string
	err = walk(ctx, fsys, start, func(dir string) bool { return !m.mayMatchUnder(dir) }, func(name, rel string) error {
		if m.match(rel) {
			paths = append(paths, name)
		}
		return nil
	})
	if err != nil {
		return GlobResult{}, pathError("glob", args.Path, err)
	}
	slices.Sort(paths)
	res := GlobResult{Paths: paths, Total: len(paths)}
	if res.Paths == nil {
		res.Paths = []string{}
	}
	if len(paths) > capped {
		res.Paths, res.Truncated = paths[:capped:capped], true
	}
	return res, nil
}

// presentGlobCall shows a pending glob as a generic search card.
func presentGlobCall(args GlobArgs) *runtime.ToolCallView {
	return &runtime.ToolCallView{Card: runtime.CallGeneric, Title: searchTitle("Glob", args.Pattern, args.Path), Kind: runtime.KindSearch}
}

// globMeta stores the search card of a result: the paths, whether they were
// capped, and the total.
func globMeta(args GlobArgs, res GlobResult) jsonvalue.Value {
	return cardMeta(runtime.ToolResultView{
		Card: runtime.ResultSearch, Title: searchTitle("Glob", args.Pattern, args.Path),
		Shape: runtime.ShapePaths, Paths: res.Paths, Truncated: res.Truncated, Total: res.Total,
	})
}

// presentGlobResult shows a completed glob as the search card globMeta
// stored.
func presentGlobResult(_ GlobArgs, res runtime.ToolResult) *runtime.ToolResultView {
	return cardFromMeta(res)
}

// matcher is a parsed glob pattern: slash-separated segments, each a
// path.Match pattern or "**", which matches any number of segments.
type matcher struct {
	segs []string
	// base is set for a pattern without a slash used as grep's file filter,
	// which matches a file's base name.
	base bool
}

// newMatcher parses pattern, refusing an empty or absolute pattern, ".."
// or "." segments, and malformed path.Match syntax.
func newMatcher(pattern string) (*matcher, error) {
	switch {
	case pattern == "":
		return nil, fmt.Errorf("empty")
	case strings.HasPrefix(pattern, "/"):
		return nil, fmt.Errorf("%q is absolute; patterns are relative to the searched directory", pattern)
	}
	var segs []string
	for seg := range strings.SplitSeq(pattern, "/") {
		switch seg {
		case "", ".", "..":
			return nil, fmt.Errorf("%q has an empty, . or .. segment", pattern)
		case "**":
			if len(segs) > 0 && segs[len(segs)-1] == "**" {
				continue // a run of ** matches what one does
			}
		default:
			if _, err := path.Match(seg, ""); err != nil {
				return nil, fmt.Errorf("%q: %w", pattern, err)
			}
		}
		segs = append(segs, seg)
	}
	return &matcher{segs: segs, base: !strings.Contains(pattern, "/")}, nil
}

// match reports whether the slash-separated relative path rel matches.
func (m *matcher) match(rel string) bool { return matchSegs(m.segs, strings.Split(rel, "/")) }

// matchFile is grep's file filter: a pattern without a slash matches the
// base name, one with a slash the whole relative path.
func (m *matcher) matchFile(rel string) bool {
	if m.base {
		return matchSegs(m.segs, []string{path.Base(rel)})
	}
	return m.match(rel)
}

// mayMatchUnder reports whether some path inside the directory dir
// (relative to the searched directory) could match, so glob need not walk
// directories that cannot hold a match.
func (m *matcher) mayMatchUnder(dir string) bool {
	pat := m.segs
	for seg := range strings.SplitSeq(dir, "/") {
		if len(pat) == 0 {
			return false
		}
		if pat[0] == "**" {
			return true
		}
		if ok, _ := path.Match(pat[0], seg); !ok {
			return false
		}
		pat = pat[1:]
	}
	return len(pat) > 0
}

// matchSegs reports whether the path segments name match the pattern
// segments pat.
func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegs(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
