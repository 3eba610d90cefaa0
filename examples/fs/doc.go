// Package fs is a toolgen tool package that gives an agent a confined view
// of one directory tree: read_file reads a window of lines, write_file
// creates or overwrites a file, edit_file applies exact-text replacements
// all-or-nothing, grep searches file contents with a Go regular expression,
// and glob lists files whose paths match a pattern.
//
// Build the definitions with New, naming the root directory:
//
//	defs, err := fs.New("/path/to/workspace")
//	if err != nil { ... }
//	for _, def := range defs {
//		if _, err := rt.Register(def); err != nil { ... }
//	}
//
// New resolves the root once (absolute, symbolic links evaluated) and hands
// it to every call through the call's context. The generated Tools() alone
// are not usable: their functions refuse to run without a root (NO_ROOT).
//
// Every path argument is relative to the root or absolute inside it. A path
// that leaves the root, lexically ("../x", "/etc/passwd") or through a
// symbolic link, is refused with PATH_OUTSIDE_ROOT before anything is read
// or written. Paths are resolved lexically first ("a/../b" is "b"), then
// the symbolic links of the part that exists are evaluated, and the real
// location must lie inside the root. All file access then goes through an
// os.Root opened on the root directory, so a tree changed concurrently
// (a directory swapped for a symbolic link between the check and the use)
// still cannot make a call touch anything outside it.
//
// grep and glob walk the tree without following symbolic links, and skip
// .git directories and entries whose names are not valid UTF-8 (a JSON
// result could not name them exactly). Their caps are honest: total always
// counts every match, and truncated says whether fewer were returned.
//
// Results name files by their slash-separated path relative to the root.
// Cards built by New's definitions give the file locations, diffs and read
// paths as absolute paths instead, so an editor can open them; search cards
// keep root-relative paths.
//
// The completed-call cards are carried in the result's presentation meta:
// each tool's meta hook stores the card's JSON (runtime.ToolResultView's
// MarshalJSON), and its present_result hook decodes it again, because the
// durable result a presenter sees has no value. Meta exists for top-level
// calls only, so a nested call (or a failed one) has no result card and a
// UI shows its raw content.
package fs

//go:generate go tool toolgen -catalog TOOLS.md
