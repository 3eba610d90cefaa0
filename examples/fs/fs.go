package fs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

// The error codes of this package's tools. Failures that fit none of them
// (an I/O error, say) keep the runtime's TOOL_ERROR; bad arguments the
// schema cannot express (a negative offset, a malformed pattern) use the
// runtime's INVALID_ARGS.
const (
	// CodeOutsideRoot means a path argument names a location outside the
	// root directory, lexically or through a symbolic link.
	CodeOutsideRoot runtime.ErrorCode = "PATH_OUTSIDE_ROOT"
	// CodeNotFound means the file or directory does not exist.
	CodeNotFound runtime.ErrorCode = "FILE_NOT_FOUND"
	// CodeNotFile means the path names a directory or another non-regular
	// file where a regular file is needed.
	CodeNotFile runtime.ErrorCode = "NOT_A_FILE"
	// CodeNotDirectory means the path, or one of its parents, is not a
	// directory where one is needed.
	CodeNotDirectory runtime.ErrorCode = "NOT_A_DIRECTORY"
	// CodeNotText means read_file was asked to read a binary file (one with
	// a NUL byte in its first 8 KiB).
	CodeNotText runtime.ErrorCode = "NOT_TEXT"
	// CodeEditFailed means an edit of edit_file could not be applied: its
	// old_text was not found, or was found more than once without
	// replace_all. The message names the edit; the file is unchanged.
	CodeEditFailed runtime.ErrorCode = "EDIT_FAILED"
	// CodeNoRoot means a tool function ran without a root directory in its
	// context: its definition came from Tools instead of New.
	CodeNoRoot runtime.ErrorCode = "NO_ROOT"
)

// sniffLen is how many leading bytes decide whether a file is binary.
const sniffLen = 8 << 10

// sandbox is the root directory a call is confined to: absolute, clean,
// with its symbolic links evaluated.
type sandbox struct{ dir string }

// rootKey is the context key under which New's definitions pass the
// sandbox to the tool functions.
type rootKey struct{}

// New returns the package's tool definitions (read_file, write_file,
// edit_file, grep and glob) confined to the directory root. root is made
// absolute and its symbolic links are evaluated once, here; it must name an
// existing directory. Each definition's body gets the root through its
// context, and its call and result cards name files by absolute paths
// under the root.
func New(root string) ([]runtime.ToolDefinition, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("fs: root %q: %w", root, err)
	}
	dir, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("fs: root: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("fs: root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("fs: root %q is not a directory", dir)
	}
	sb := &sandbox{dir: dir}
	defs := Tools()
	for i := range defs {
		d := &defs[i]
		execute := d.Execute
		d.Execute = func(ctx context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			return execute(context.WithValue(ctx, rootKey{}, sb), args, rc)
		}
		if present := d.PresentCall; present != nil {
			d.PresentCall = func(args jsonvalue.Value) *runtime.ToolCallView {
				return sb.absCall(present(args))
			}
		}
		if present := d.PresentResult; present != nil {
			d.PresentResult = func(args jsonvalue.Value, res runtime.ToolResult) *runtime.ToolResultView {
				return sb.absResult(present(args, res))
			}
		}
	}
	return defs, nil
}

// sandboxFrom returns the sandbox New's definitions put in ctx.
func sandboxFrom(ctx context.Context) (*sandbox, error) {
	sb, ok := ctx.Value(rootKey{}).(*sandbox)
	if !ok {
		return nil, &runtime.ToolError{Code: CodeNoRoot, Message: "fs: the tool was called without a root directory; build its definitions with fs.New, not Tools"}
	}
	return sb, nil
}

// open returns the sandbox of ctx and an os.Root opened on it; the caller
// closes the os.Root.
func open(ctx context.Context) (*sandbox, *os.Root, error) {
	sb, err := sandboxFrom(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	r, err := os.OpenRoot(sb.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("fs: cannot open the root directory: %w", err)
	}
	return sb, r, nil
}

// resolve maps the path argument p to a clean, slash-separated path
// relative to the root ("." for the root itself) in which every symbolic
// link of the part that exists is evaluated. It refuses a path whose real
// location is outside the root, and a path whose existing part ends in a
// symbolic link that cannot be evaluated (a dangling link, which a write
// would follow to wherever it points).
func (sb *sandbox) resolve(p string) (string, error) {
	abs := filepath.Clean(p)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(sb.dir, p)
	}
	// Walk up to the longest prefix that exists and evaluate its links;
	// the components below it do not exist, so they hold no links.
	existing, tail := abs, ""
	var resolved string
	for {
		r, err := filepath.EvalSymlinks(existing)
		if err == nil {
			resolved = r
			break
		}
		if !errors.Is(err, iofs.ErrNotExist) {
			return "", pathError("resolve", p, err)
		}
		if _, lerr := os.Lstat(existing); lerr == nil {
			return "", &runtime.ToolError{Code: CodeNotFound, Message: fmt.Sprintf("fs: path %q goes through a symbolic link whose target does not exist", p)}
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return "", pathError("resolve", p, err)
		}
		tail = filepath.Join(filepath.Base(existing), tail)
		existing = parent
	}
	rel, ok := within(sb.dir, filepath.Join(resolved, tail))
	if !ok {
		return "", &runtime.ToolError{Code: CodeOutsideRoot, Message: fmt.Sprintf("fs: path %q is outside the root", p)}
	}
	return rel, nil
}

// within reports whether the clean absolute path p lies in the directory
// root, and returns it relative to root, slash-separated.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// native turns a slash-separated relative path into the form os.Root
// methods take.
func native(rel string) string { return filepath.FromSlash(rel) }

// pathError turns an error of operation op on the path argument p into the
// tool's error: a context error is returned as it is (so that a cancelled
// call reads as aborted), missing files and non-directories get their
// codes, and anything else stays a plain error.
func pathError(op, p string, err error) error {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, iofs.ErrNotExist):
		return &runtime.ToolError{Code: CodeNotFound, Message: fmt.Sprintf("fs: %s %q: no such file or directory", op, p), Err: err}
	case errors.Is(err, syscall.ENOTDIR):
		return &runtime.ToolError{Code: CodeNotDirectory, Message: fmt.Sprintf("fs: %s %q: a parent of the path is not a directory", op, p), Err: err}
	}
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("fs: %s %q: %w", op, p, err)
}

// invalidArgs returns an INVALID_ARGS tool error.
func invalidArgs(format string, a ...any) error {
	return &runtime.ToolError{Code: runtime.CodeInvalidArgs, Message: "fs: " + fmt.Sprintf(format, a...)}
}

// writeAtomic replaces the file rel of r with data: it writes a temporary
// file in the same directory, gives it mode, and renames it over rel, so a
// reader sees the old content or the new one, never a mix. The rename
// happens only while ctx is live.
func writeAtomic(ctx context.Context, r *os.Root, rel string, data []byte, mode os.FileMode) error {
	var suffix [8]byte
	_, _ = rand.Read(suffix[:])
	tmp := path.Join(path.Dir(rel), "."+path.Base(rel)+".toolgen-"+hex.EncodeToString(suffix[:])+".tmp")
	f, err := r.OpenFile(native(tmp), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			_ = r.Remove(native(tmp))
		}
	}()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Chmod(native(tmp), mode)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return err
	}
	if err := r.Rename(native(tmp), native(rel)); err != nil {
		return err
	}
	committed = true
	return nil
}

// validText returns s with every invalid UTF-8 sequence replaced by U+FFFD,
// since results are JSON and JSON strings are UTF-8.
func validText(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// abs returns the absolute path of the card path p under the root: p is
// relative to the root unless it is absolute already.
func (sb *sandbox) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(sb.dir, filepath.FromSlash(p))
}

// absCall returns v with its locations and diffs naming absolute paths.
func (sb *sandbox) absCall(v *runtime.ToolCallView) *runtime.ToolCallView {
	if v == nil {
		return nil
	}
	out := *v
	out.Locations = sb.absLocations(v.Locations)
	out.Diffs = sb.absDiffs(v.Diffs)
	return &out
}

// absResult returns v with its diffs and read path naming absolute paths;
// search results stay relative to the root.
func (sb *sandbox) absResult(v *runtime.ToolResultView) *runtime.ToolResultView {
	if v == nil {
		return nil
	}
	out := *v
	out.Diffs = sb.absDiffs(v.Diffs)
	out.Path = sb.abs(v.Path)
	return &out
}

func (sb *sandbox) absLocations(ls []runtime.FileLocation) []runtime.FileLocation {
	if ls == nil {
		return nil
	}
	out := make([]runtime.FileLocation, len(ls))
	for i, l := range ls {
		out[i] = runtime.FileLocation{Path: sb.abs(l.Path), Line: l.Line}
	}
	return out
}

func (sb *sandbox) absDiffs(ds []runtime.FileDiff) []runtime.FileDiff {
	if ds == nil {
		return nil
	}
	out := make([]runtime.FileDiff, len(ds))
	for i, d := range ds {
		out[i] = d
		out[i].Path = sb.abs(d.Path)
	}
	return out
}

// cardMeta is the presentation meta of a result: the JSON of its completed
// card, or nil (no meta) if the card cannot be encoded.
func cardMeta(v runtime.ToolResultView) jsonvalue.Value {
	b, err := v.MarshalJSON()
	if err != nil {
		return nil
	}
	return jsonvalue.Value(b)
}

// cardFromMeta decodes the completed card that cardMeta stored in a
// result's meta. A failed result, a result without meta (a nested call's)
// or meta that is not a card gives nil: the UI shows the raw content.
func cardFromMeta(res runtime.ToolResult) *runtime.ToolResultView {
	if res.IsError || res.Meta == nil {
		return nil
	}
	var v runtime.ToolResultView
	if err := v.UnmarshalJSON(res.Meta); err != nil {
		return nil
	}
	return &v
}
