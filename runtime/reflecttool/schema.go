package reflecttool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"

	"github.com/toolgen-go/toolgen/schemasubset"
)

// Options configures schema derivation. The zero Options is ready to use.
type Options struct {
	// Comments supplies Go doc and line comments of struct fields, which
	// become property descriptions where a field has no description= tag.
	// Without it (a binary deployed without its source), only tags
	// describe fields.
	Comments *Comments
}

// ParamsSchema derives the parameter schema of a tool whose parameter type
// is t, a struct (or a pointer to one): an open object, as the parameter
// root always is. An unsupported type or a tag outside the subset is an
// [*Error].
func ParamsSchema(t reflect.Type, opts Options) (*schemasubset.Node, error) {
	if t == nil {
		return nil, &Error{Path: "<nil>", Message: "no parameter type", Err: ErrUnsupportedType}
	}
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if base.Kind() != reflect.Struct || wireOf(base) != wireStructural {
		return nil, &Error{Type: t, Path: typePath(t), Err: ErrUnsupportedType,
			Message: fmt.Sprintf("parameter type must be a struct, not %s: a tool's arguments are a JSON object", t)}
	}
	return reflectSchema(t, opts, true)
}

// OutputSchema derives the schema of a tool's output type t, which may be
// any supported type; a struct root is closed. An unsupported type or a
// tag outside the subset is an [*Error].
func OutputSchema(t reflect.Type, opts Options) (*schemasubset.Node, error) {
	if t == nil {
		return nil, &Error{Path: "<nil>", Message: "no output type", Err: ErrUnsupportedType}
	}
	return reflectSchema(t, opts, false)
}

// reflectSchema checks t, reflects it and converts the result.
func reflectSchema(t reflect.Type, opts Options, params bool) (*schemasubset.Node, error) {
	c := &checker{root: t}
	if err := c.check(t, typePath(t)); err != nil {
		return nil, err
	}
	s := newReflector(opts).ReflectFromType(t)
	// invopop always stamps the root; the subset has neither keyword.
	s.Version, s.ID, s.Definitions = "", "", nil
	if params {
		s.AdditionalProperties = nil
	}
	normalize(s)
	data, err := json.Marshal(s)
	if err == nil {
		data = bytes.ReplaceAll(data, []byte(emptyMarked), []byte("{}"))
	}
	if err != nil {
		return nil, &Error{Type: t, Path: typePath(t), Message: "cannot encode the reflected schema: " + err.Error(), Err: fmt.Errorf("%w: %w", ErrOutsideSubset, err)}
	}
	n, err := schemasubset.Parse(data)
	if err != nil {
		e := &Error{Type: t, Path: typePath(t), Message: err.Error(), Err: fmt.Errorf("%w: %w", ErrOutsideSubset, err)}
		var se *schemasubset.SchemaError
		if errors.As(err, &se) && len(se.Issues) > 0 {
			e.Pointer = se.Issues[0].Pointer
			if e.Pointer == "" {
				e.Pointer = "/"
			}
			e.Message = "the schema from the tags leaves the subset: " + se.Issues[0].Message
			if len(se.Issues) > 1 {
				e.Message += fmt.Sprintf(" (and %d more)", len(se.Issues)-1)
			}
		}
		return nil, e
	}
	return n, nil
}

// emptyMarker is the $comment normalize puts on empty schemas, and
// emptyMarked its JSON: invopop encodes an empty schema as the boolean
// schema true, which the subset rejects, while {} means the same and is in
// the subset. A marked schema has no other keyword, so its JSON is exactly
// emptyMarked, which no tag can spell.
const (
	emptyMarker = "\x00toolgen:any"
	emptyMarked = `{"$comment":"\u0000toolgen:any"}`
)

// normalize marks every empty schema at a position the subset allows and
// drops empty property lists, which the generator leaves out (an absent
// properties keyword means the same).
func normalize(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Properties != nil && s.Properties.Len() == 0 {
		s.Properties = nil
	}
	if reflect.ValueOf(*s).IsZero() {
		s.Comments = emptyMarker
		return
	}
	if s.Properties != nil {
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			normalize(p.Value)
		}
	}
	normalize(s.Items)
	for _, b := range s.OneOf {
		normalize(b)
	}
}

// newReflector returns an invopop Reflector set up for toolgen's rules.
func newReflector(opts Options) *jsonschema.Reflector {
	r := &jsonschema.Reflector{
		Anonymous:      true,
		DoNotReference: true,
		ExpandedStruct: true,
		Mapper:         mapWireTypes,
	}
	comments := opts.Comments
	r.LookupComment = func(t reflect.Type, field string) string {
		// A type's own comment is never a description: the generator puts
		// descriptions on properties only.
		if field == "" || comments == nil {
			return ""
		}
		return comments.field(t, field)
	}
	return r
}

// mapWireTypes gives the schemas of the types whose wire form is not their
// Go structure. It returns a new schema each time, since invopop writes the
// field's tags into it.
func mapWireTypes(t reflect.Type) *jsonschema.Schema {
	switch wireOf(t) {
	case wireRaw:
		return &jsonschema.Schema{}
	case wireNumber:
		return &jsonschema.Schema{Type: "number"}
	case wireTime, wireText:
		return &jsonschema.Schema{Type: "string"}
	}
	if t.Kind() == reflect.Uintptr {
		// invopop panics on uintptr; encoding/json writes it as a number.
		return &jsonschema.Schema{Type: "integer"}
	}
	return nil
}

// typePath names a root type for error paths.
func typePath(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}
