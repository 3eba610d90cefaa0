package annotations

import "strings"

// Directive is one //toolgen: comment line split into name and arguments.
type Directive struct {
	// Name is what followed "//toolgen:" up to the first blank: "tool",
	// "oneof", "open", "schema" or, for a mistake, anything else.
	Name string
	// Args is the rest of the line after the name, with leading blanks
	// removed and trailing blanks trimmed.
	Args string
	// NameOffset is the byte offset of Name within the line.
	NameOffset int
	// ArgsOffset is the byte offset of Args within the line.
	ArgsOffset int
}

// The known directive names, as written after "//toolgen:".
const (
	// DirectiveTool marks a function as a tool.
	DirectiveTool = "tool"
	// DirectiveOneOf lists the variants of a sealed interface type.
	DirectiveOneOf = "oneof"
	// DirectiveOpen makes a struct type's object schema open.
	DirectiveOpen = "open"
	// DirectiveSchema gives a type a raw schema of the subset.
	DirectiveSchema = "schema"
)

// directivePrefix starts every directive comment.
const directivePrefix = "//toolgen:"

// knownDirectives lists the directive names in the order messages give them.
var knownDirectives = []string{DirectiveTool, DirectiveOneOf, DirectiveOpen, DirectiveSchema}

// isKnownDirective reports whether name is one of the four directive names.
func isKnownDirective(name string) bool {
	for _, k := range knownDirectives {
		if name == k {
			return true
		}
	}
	return false
}

// ParseDirective reports whether line (a comment's full text as in
// ast.Comment.Text, starting with "//") is a //toolgen: directive, with no
// space between "//" and "toolgen:" as Go's directive convention requires,
// and splits it into name and arguments.
//
// "//toolgen:toolx" has Name "toolx"; the caller reports unknown names with
// CheckDirectiveName. A name ends at a blank (space or tab) or at the end of
// the line. Block comments (/* */) are never directives.
func ParseDirective(line string) (Directive, bool) {
	if !strings.HasPrefix(line, directivePrefix) {
		return Directive{}, false
	}
	line = strings.TrimRight(line, "\r")
	i := len(directivePrefix)
	for i < len(line) && !isBlank(line[i]) {
		i++
	}
	d := Directive{Name: line[len(directivePrefix):i], NameOffset: len(directivePrefix)}
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	d.ArgsOffset = i
	d.Args = strings.TrimRight(line[i:], " \t\r")
	return d, true
}

// CheckDirectiveName returns an error, at d.NameOffset, when d.Name is not
// one of the four known directive names, suggesting the closest one.
func CheckDirectiveName(d Directive) *Error {
	if isKnownDirective(d.Name) {
		return nil
	}
	if d.Name == "" {
		return errorf(d.NameOffset, "directive //toolgen: has no name; write one of //toolgen:tool, //toolgen:oneof, //toolgen:open or //toolgen:schema")
	}
	// "//toolgen:tool,name=x" and the like: a known name glued to more text.
	for _, k := range knownDirectives {
		if rest, ok := strings.CutPrefix(d.Name, k); ok && rest != "" && !isIdentChar(rest[0]) {
			return errorf(d.NameOffset, "unknown directive //toolgen:%s; put a blank after //toolgen:%s, as in //toolgen:%s %s", d.Name, k, k, strings.TrimLeft(rest, ",;:"))
		}
	}
	if c := closest(d.Name, knownDirectives); c != "" {
		return errorf(d.NameOffset, "unknown directive //toolgen:%s; did you mean //toolgen:%s?", d.Name, c)
	}
	return errorf(d.NameOffset, "unknown directive //toolgen:%s; the directives are //toolgen:tool, //toolgen:oneof, //toolgen:open and //toolgen:schema", d.Name)
}

// isIdentChar reports whether c is an ASCII letter, digit or underscore.
func isIdentChar(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// LooksLikeDirective reports whether line is a comment that was probably
// meant as a directive but is not one, such as "// toolgen:tool" or
// "//  toolgen:oneof A B" (blanks after //).
//
// Ordinary prose that mentions toolgen ("// toolgen generates...",
// "// see toolgen: it...") does not match: after the // and at least one
// blank the text must start with "toolgen:" immediately followed by one of
// the four directive names, ended by a blank or the end of the line.
func LooksLikeDirective(line string) bool {
	rest, ok := strings.CutPrefix(line, "//")
	if !ok || rest == "" || !isBlank(rest[0]) {
		return false
	}
	rest = strings.TrimLeft(rest, " \t")
	rest, ok = strings.CutPrefix(rest, "toolgen:")
	if !ok {
		return false
	}
	i := 0
	for i < len(rest) && !isBlank(rest[i]) {
		i++
	}
	return isKnownDirective(strings.TrimRight(rest[:i], "\r"))
}
