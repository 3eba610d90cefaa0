package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgen-go/toolgen/schemasubset"
)

// The import policy for a server's raw JSON Schemas:
//
//   - $schema and $id at the root name the dialect and the document; they
//     constrain nothing and are dropped silently.
//   - format, $comment and contentMediaType/contentEncoding are annotations
//     under draft 2020-12's default vocabularies: they constrain nothing
//     for a validator, so they are dropped wherever they occur, and each
//     drop is noted in the tool's report.
//   - Every keyword the subset does not enforce (minimum, pattern, anyOf,
//     $ref, ...) makes the tool unimportable; the report lists the JSON
//     Pointer of each one. Accepting such a schema would mean promising a
//     model a constraint nobody checks.
//
// The subset's own annotations (title, description, default, examples) are
// kept.

// droppedAnywhere lists the annotation-only keywords dropped at every
// schema position.
var droppedAnywhere = []string{"format", "$comment", "contentMediaType", "contentEncoding"}

// droppedAtRoot lists the keywords dropped silently at the root.
var droppedAtRoot = []string{"$schema", "$id"}

// Note records one keyword the import dropped.
type Note struct {
	// Pointer is the JSON Pointer of the dropped keyword in the server's
	// schema, e.g. "/properties/when/format".
	Pointer string
	// Keyword is the keyword's name.
	Keyword string
}

// String returns "format dropped at /properties/when/format".
func (n Note) String() string { return n.Keyword + " dropped at " + n.Pointer }

// ErrUnsupportedSchema is wrapped by ImportSchema's errors for schemas that
// use keywords the subset does not enforce; the *schemasubset.SchemaError
// in the chain lists every location.
var ErrUnsupportedSchema = errors.New("mcpclient: schema uses keywords the subset does not enforce")

// ImportSchema converts a server's schema, as the go-sdk client holds it
// (a decoded map[string]any, json.RawMessage or []byte), into a subset node
// under the import policy above, returning the notes of what it dropped.
// A schema that uses an unsupported keyword fails with an error wrapping
// ErrUnsupportedSchema and the *schemasubset.SchemaError that lists every
// offending JSON Pointer.
func ImportSchema(schema any) (*schemasubset.Node, []Note, error) {
	v, err := decode(schema)
	if err != nil {
		return nil, nil, err
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("mcpclient: a schema must be a JSON object, got %s", kind(v))
	}
	for _, k := range droppedAtRoot {
		delete(root, k)
	}
	var notes []Note
	strip(root, "", &notes)
	slices.SortFunc(notes, func(a, b Note) int { return strings.Compare(a.Pointer, b.Pointer) })
	data, err := json.Marshal(root)
	if err != nil {
		return nil, nil, fmt.Errorf("mcpclient: re-encoding the schema: %w", err)
	}
	n, err := schemasubset.Parse(data)
	if err != nil {
		return nil, notes, fmt.Errorf("%w: %w", ErrUnsupportedSchema, err)
	}
	return n, notes, nil
}

// decode returns a deep copy of schema as plain JSON values, so that strip
// never changes the caller's map.
func decode(schema any) (any, error) {
	var data []byte
	switch s := schema.(type) {
	case nil:
		return nil, errors.New("mcpclient: the tool has no schema")
	case json.RawMessage:
		data = s
	case []byte:
		data = s
	default:
		var err error
		if data, err = json.Marshal(s); err != nil {
			return nil, fmt.Errorf("mcpclient: encoding the schema: %w", err)
		}
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("mcpclient: the schema is not JSON: %w", err)
	}
	return v, nil
}

// strip removes the dropped keywords from the schema object s at ptr and
// from the schemas below it that the subset walks (properties, items and
// oneOf); schemas under keywords the subset rejects are left for Parse to
// report.
func strip(s map[string]any, ptr string, notes *[]Note) {
	for _, k := range droppedAnywhere {
		if _, ok := s[k]; ok {
			delete(s, k)
			*notes = append(*notes, Note{Pointer: ptr + "/" + escape(k), Keyword: k})
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			if m, ok := p.(map[string]any); ok {
				strip(m, ptr+"/properties/"+escape(name), notes)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		strip(items, ptr+"/items", notes)
	}
	if branches, ok := s["oneOf"].([]any); ok {
		for i, b := range branches {
			if m, ok := b.(map[string]any); ok {
				strip(m, fmt.Sprintf("%s/oneOf/%d", ptr, i), notes)
			}
		}
	}
}

// escape escapes a JSON Pointer reference token (RFC 6901).
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func kind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
