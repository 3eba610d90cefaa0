package providers

import "regexp"

// nameRule is a provider's rule for function names.
type nameRule struct {
	// pattern is the rule as a regular expression, for messages.
	pattern string
	re      *regexp.Regexp
}

func newNameRule(pattern string) nameRule {
	return nameRule{pattern: pattern, re: regexp.MustCompile(pattern)}
}

func (r nameRule) ok(name string) bool { return r.re.MatchString(name) }

var (
	// openAIName is the rule of the Chat Completions reference
	// (FunctionObject.name: "Must be a-z, A-Z, 0-9, or contain underscores
	// and dashes, with a maximum length of 64."). The Responses API
	// reference states no rule of its own; the function calling guide
	// serves both APIs, so the same rule applies.
	openAIName = newNameRule(`^[a-zA-Z0-9_-]{1,64}$`)
	// anthropicName is the rule of the Messages API tool definition
	// ("name ... Must match the regex ^[a-zA-Z0-9_-]{1,64}$").
	anthropicName = newNameRule(`^[a-zA-Z0-9_-]{1,64}$`)
	// geminiName is the rule of FunctionDeclaration.name: "Must start with
	// a letter or an underscore. Must be a-z, A-Z, 0-9, or contain
	// underscores, dots, colons and dashes, with a maximum length of 128."
	geminiName = newNameRule(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$`)
)
