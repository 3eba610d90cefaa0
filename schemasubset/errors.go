package schemasubset

import (
	"strings"
)

// IssueCode names the rule an unsupported schema breaks. Callers and tests
// branch on codes, never on message text.
type IssueCode string

// The rules of the subset, as issue codes.
const (
	// IssueInvalidJSON: the schema document is not one lossless JSON value.
	IssueInvalidJSON IssueCode = "invalid-json"
	// IssueNotASchema: a schema position holds something other than a JSON
	// object (an array, a string, null, or a missing schema).
	IssueNotASchema IssueCode = "not-a-schema"
	// IssueBooleanSchema: a schema position holds true or false.
	IssueBooleanSchema IssueCode = "boolean-schema"
	// IssueUnsupportedKeyword: a keyword outside the subset ($ref, minimum,
	// format, anyOf, x-..., ...). It is rejected, never ignored.
	IssueUnsupportedKeyword IssueCode = "unsupported-keyword"
	// IssueInvalidType: type is not one of the seven names, or is an array.
	IssueInvalidType IssueCode = "invalid-type"
	// IssueNeedsType: a keyword that needs a type on its node lacks it:
	// properties, required and additionalProperties need "object", items
	// needs "array", enum and const need any type.
	IssueNeedsType IssueCode = "needs-type"
	// IssueMalformedKeyword: a keyword's value has the wrong JSON shape
	// (properties not an object, required not strings, ...).
	IssueMalformedKeyword IssueCode = "malformed-keyword"
	// IssueTooFewBranches: oneOf has fewer than two branches.
	IssueTooFewBranches IssueCode = "too-few-branches"
	// IssueUndeclaredRequired: a required name is not a key of properties.
	IssueUndeclaredRequired IssueCode = "undeclared-required"
	// IssueDuplicateProperty: two properties with one name (only possible
	// when building nodes in Go).
	IssueDuplicateProperty IssueCode = "duplicate-property"
	// IssueNotScalar: an enum or const value is an object or an array.
	IssueNotScalar IssueCode = "not-scalar"
	// IssueTypeMismatch: an enum or const value does not fit the node's type.
	IssueTypeMismatch IssueCode = "type-mismatch"
	// IssueEmptyEnum: enum lists no value, so nothing could ever match.
	IssueEmptyEnum IssueCode = "empty-enum"
	// IssueNotLossless: an enum, const, default or examples value built in
	// Go is not canonical JSON.
	IssueNotLossless IssueCode = "not-lossless"
	// IssueNotObjectRoot: AssertObject needs type "object" at the root.
	IssueNotObjectRoot IssueCode = "not-object-root"
)

// Issue is one location where a schema leaves the subset.
type Issue struct {
	// Pointer is the JSON Pointer (RFC 6901) of the offending location in
	// the schema; empty for the root.
	Pointer string
	// Code names the rule.
	Code IssueCode
	// Message describes the problem in words.
	Message string
}

// String returns "pointer: message", with "(root)" for the empty pointer.
func (i Issue) String() string {
	p := i.Pointer
	if p == "" {
		p = "(root)"
	}
	return p + ": " + i.Message
}

// SchemaError reports every location where a schema leaves the subset, never
// only the first, in a depth-first walk of the schema.
type SchemaError struct {
	// Issues lists every offending location; it is never empty.
	Issues []Issue
	err    error // the parser's error, for IssueInvalidJSON
}

// Error lists the issues, one per line after the first.
func (e *SchemaError) Error() string {
	var b strings.Builder
	b.WriteString("schemasubset: unsupported schema: ")
	for i, is := range e.Issues {
		if i > 0 {
			b.WriteString("\n\t")
		}
		b.WriteString(is.String())
	}
	return b.String()
}

// Unwrap returns the JSON syntax error behind an IssueInvalidJSON issue.
func (e *SchemaError) Unwrap() error { return e.err }

// Rule names the constraint a value breaks. Generated decoders report the
// same rules at the same paths as Validate.
type Rule string

// The rules Validate and generated decoders enforce.
const (
	// RuleType: the value's JSON type is not the node's type (an integer node
	// takes only numbers with a zero fractional part).
	RuleType Rule = "type"
	// RuleEnum: the value is none of the enum values.
	RuleEnum Rule = "enum"
	// RuleConst: the value is not the const value.
	RuleConst Rule = "const"
	// RuleRequired: a required property is missing. Reported at the
	// object's path when the object closes.
	RuleRequired Rule = "required"
	// RuleAdditionalProperties: a property not in properties, on a node
	// with additionalProperties false. Reported at the property's path.
	RuleAdditionalProperties Rule = "additionalProperties"
	// RuleOneOf: the value matches no oneOf branch, or more than one.
	RuleOneOf Rule = "oneOf"
	// RuleGoRange: a schema-valid value does not fit the Go type it decodes
	// into (an integer out of an int8's range, a float that overflows). Only
	// generated decoders report it.
	RuleGoRange Rule = "go-range"
	// RuleInvalidValue: the bytes are not a canonical JSON value, so there
	// is nothing to validate (see jsonvalue.Materialize).
	RuleInvalidValue Rule = "invalid-value"
	// RuleUnsupportedSchema: the schema itself is not in the subset.
	RuleUnsupportedSchema Rule = "unsupported-schema"
)

// ValidationError reports the first violation of a schema in a value, in
// document order.
type ValidationError struct {
	// InstancePath is the JSON Pointer of the offending value, such as
	// "/edits/3/old_text"; empty for the root.
	InstancePath string
	// SchemaPath is the JSON Pointer of the keyword that failed, such as
	// "/properties/edits/items/properties/old_text/type".
	SchemaPath string
	// Rule names the constraint.
	Rule Rule
	// Message says what was wanted and what was found.
	Message string
	// Offset is the byte offset of the offending value in the
	// materialized value.
	Offset int

	err     error  // the schema error, for RuleUnsupportedSchema
	name    string // a generated decoder's missing or forbidden property
	matched []int  // a generated decoder's matched oneOf branches
}

// Error returns "instance path: message", such as
// "/edits/3/old_text: want string, got number", with "(root)" for the root.
func (e *ValidationError) Error() string {
	p := e.InstancePath
	if p == "" {
		p = "(root)"
	}
	return p + ": " + e.Message
}

// Unwrap returns the *SchemaError behind RuleUnsupportedSchema.
func (e *ValidationError) Unwrap() error { return e.err }

// escapePointer escapes one JSON Pointer reference token (RFC 6901).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
