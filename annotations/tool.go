package annotations

import (
	"strings"
	"time"
)

// ToolOptions are the options of a //toolgen:tool directive. Only valid
// options are Set.
type ToolOptions struct {
	// Name is name=, the tool's wire name.
	Name Value
	// Timeout is timeout=, the raw duration text.
	Timeout Value
	// TimeoutValue is Timeout parsed, when Timeout.Set.
	TimeoutValue time.Duration
	// Concurrency is concurrency=: safe, exclusive or the name of a
	// classifier function of the package.
	Concurrency Value
	// Render is render=, the name of a function of the package.
	Render Value
	// Meta is meta=, the name of a function of the package.
	Meta Value
	// PresentCall is present_call=, the name of a function of the package.
	PresentCall Value
	// PresentResult is present_result=, the name of a function of the
	// package.
	PresentResult Value
	// Finalize is finalize=, the name of a function of the package.
	Finalize Value
}

// The keys of //toolgen:tool, in the order messages list them.
var toolKeys = []string{"name", "timeout", "concurrency", "render", "meta", "present_call", "present_result", "finalize"}

// maxToolName is the longest tool wire name.
const maxToolName = 128

// ParseTool parses the arguments of a //toolgen:tool directive
// (Directive.Args); offsets are into args.
//
// The arguments are zero or more blank-separated key=value options whose
// values are non-blank tokens, without quoting. Every problem is reported,
// in order, at the offending token or value: an unknown or duplicate key, a
// token without "=", an empty value, and a value that is invalid for its
// key. Only valid options are Set in the result.
func ParseTool(args string) (ToolOptions, []*Error) {
	var opts ToolOptions
	var errs []*Error
	seen := map[string]bool{}
	for _, tok := range splitBlanks(args) {
		key, val, hasEq := strings.Cut(tok.text, "=")
		switch {
		case !hasEq:
			errs = append(errs, noValueError(tok))
			continue
		case key == "":
			errs = append(errs, errorf(tok.offset, "option %q has no key; write key=value, such as timeout=30s", tok.text))
			continue
		}
		dest := opts.field(key)
		if dest == nil {
			errs = append(errs, unknownToolKey(key, tok.offset))
			continue
		}
		if seen[key] {
			errs = append(errs, errorf(tok.offset, "duplicate option %s=; give each option once", key))
			continue
		}
		seen[key] = true
		if val == "" {
			errs = append(errs, errorf(tok.offset, "%s= needs a value; write %s", key, toolExample(key)))
			continue
		}
		v := Value{Text: val, Offset: tok.offset + len(key) + 1, Set: true}
		if e := checkToolValue(key, v, &opts); e != nil {
			errs = append(errs, e)
			continue
		}
		*dest = v
	}
	return opts, errs
}

// field returns the option that key sets, or nil for an unknown key.
func (o *ToolOptions) field(key string) *Value {
	switch key {
	case "name":
		return &o.Name
	case "timeout":
		return &o.Timeout
	case "concurrency":
		return &o.Concurrency
	case "render":
		return &o.Render
	case "meta":
		return &o.Meta
	case "present_call":
		return &o.PresentCall
	case "present_result":
		return &o.PresentResult
	case "finalize":
		return &o.Finalize
	}
	return nil
}

// toolExample shows a valid form of the option key.
func toolExample(key string) string {
	switch key {
	case "name":
		return "name=read_file"
	case "timeout":
		return "timeout=30s"
	case "concurrency":
		return "concurrency=safe, concurrency=exclusive or concurrency=FuncName"
	}
	return key + "=FuncName"
}

// noValueError reports a token without "=".
func noValueError(tok argToken) *Error {
	switch {
	case tok.text == "safe" || tok.text == "exclusive":
		return errorf(tok.offset, "option %q has no value; write key=value, here concurrency=%s", tok.text, tok.text)
	case contains(toolKeys, tok.text):
		return errorf(tok.offset, "option %q has no value; write key=value, such as %s", tok.text, toolExample(tok.text))
	}
	return errorf(tok.offset, "option %q has no value; write key=value", tok.text)
}

// unknownToolKey reports a key that //toolgen:tool does not know.
func unknownToolKey(key string, offset int) *Error {
	if c := closest(key, toolKeys); c != "" {
		return errorf(offset, "unknown option %s=; did you mean %s=?", key, c)
	}
	return errorf(offset, "unknown option %s=; the options are %s", key, listWords(withEq(toolKeys)))
}

// withEq appends "=" to each key.
func withEq(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "="
	}
	return out
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkToolValue checks the value of a known key, recording the parsed
// timeout in opts.
func checkToolValue(key string, v Value, opts *ToolOptions) *Error {
	switch key {
	case "name":
		if !validToolName(v.Text) {
			return errorf(v.Offset, "name=%s is not a valid tool name; use 1 to %d characters of A-Z, a-z, 0-9, '_', '-' and '.', such as name=read_file", v.Text, maxToolName)
		}
	case "timeout":
		d, err := time.ParseDuration(v.Text)
		if err != nil {
			return errorf(v.Offset, "timeout=%s is not a Go duration; write a number with a unit, such as timeout=30s or timeout=2m", v.Text)
		}
		if d <= 0 {
			return errorf(v.Offset, "timeout=%s must be positive, such as timeout=30s", v.Text)
		}
		opts.TimeoutValue = d
	case "concurrency":
		if v.Text == "safe" || v.Text == "exclusive" {
			return nil
		}
		return checkFuncName(key, v, "safe, exclusive or a Go identifier",
			"write concurrency=safe, concurrency=exclusive or concurrency=Name naming a classifier function func(P) bool of this package")
	default:
		return checkFuncName(key, v, "a Go identifier", "write "+key+"=Name naming a function of this package")
	}
	return nil
}

// checkFuncName checks that v names a function of this package; want says
// what the value must be and instead what to write.
func checkFuncName(key string, v Value, want, instead string) *Error {
	switch {
	case isIdent(v.Text):
		return nil
	case isQualified(v.Text):
		return errorf(v.Offset, "%s=%s must name a function of this package, without a package qualifier; %s", key, v.Text, instead)
	case v.Text == "_":
		return errorf(v.Offset, "%s=_ names no function; %s", key, instead)
	}
	return errorf(v.Offset, "%s=%s is not %s; %s", key, v.Text, want, instead)
}

// validToolName reports whether s is 1 to 128 characters of A-Z, a-z, 0-9,
// '_', '-' and '.'.
func validToolName(s string) bool {
	if s == "" || len(s) > maxToolName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isIdentChar(c) && c != '-' && c != '.' {
			return false
		}
	}
	return true
}
