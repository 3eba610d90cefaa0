package reflecttool

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/toolgen-go/toolgen/jsonvalue"
)

// ErrUnsupportedType is wrapped by an [*Error] for a Go type the schema
// subset has no form for (a map, a channel, an interface, ...).
var ErrUnsupportedType = errors.New("unsupported Go type")

// ErrOutsideSubset is wrapped by an [*Error] when the reflected schema
// uses a keyword or shape the subset rejects, such as a minimum= tag.
var ErrOutsideSubset = errors.New("schema outside the subset")

// Error reports why a Go type has no schema in the subset.
type Error struct {
	// Type is the root type that was reflected.
	Type reflect.Type
	// Path is the Go path of the offending field below the root, such as
	// "ReadFileArgs.Filter.Tags[]"; the root type's name alone when the
	// root itself is at fault.
	Path string
	// Pointer is the JSON Pointer of the offending location in the
	// reflected schema, for ErrOutsideSubset; empty otherwise.
	Pointer string
	// Message says what is wrong and what to use instead.
	Message string
	// Err is ErrUnsupportedType, or ErrOutsideSubset wrapping the
	// schemasubset error.
	Err error
}

// Error formats the path and the message.
func (e *Error) Error() string {
	where := e.Path
	if e.Pointer != "" {
		where += " (schema " + e.Pointer + ")"
	}
	return "reflecttool: " + where + ": " + e.Message
}

// Unwrap returns ErrUnsupportedType or the subset error.
func (e *Error) Unwrap() error { return e.Err }

var (
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	jsonValueType       = reflect.TypeFor[jsonvalue.Value]()
	numberType          = reflect.TypeFor[json.Number]()
	timeType            = reflect.TypeFor[time.Time]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// wireKind classifies the types whose wire form is not their Go structure.
type wireKind uint8

const (
	wireStructural  wireKind = iota // mapped by its kind
	wireRaw                         // any JSON, kept verbatim
	wireNumber                      // json.Number
	wireTime                        // time.Time as RFC 3339 text
	wireText                        // a TextUnmarshaler read from a string
	wireUnmarshaler                 // a json.Unmarshaler with an unknown form
)

// wireOf returns the wire kind of t, in the generator's order of
// precedence.
func wireOf(t reflect.Type) wireKind {
	switch {
	case t == rawMessageType || t == jsonValueType:
		return wireRaw
	case t == numberType:
		return wireNumber
	case t == timeType:
		return wireTime
	case t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface:
		return wireStructural
	case reflect.PointerTo(t).Implements(jsonUnmarshalerType):
		return wireUnmarshaler
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		return wireText
	}
	return wireStructural
}

// checker walks a Go type before invopop does, refusing what the subset
// cannot describe (invopop would panic on some of it, and loop forever on
// recursion once references are inlined).
type checker struct {
	root  reflect.Type
	stack []reflect.Type
}

// fail builds the Error for the type at path.
func (c *checker) fail(path string, t reflect.Type, advice string) error {
	return &Error{
		Type:    c.root,
		Path:    path,
		Message: fmt.Sprintf("%s is not supported: %s", t, advice),
		Err:     ErrUnsupportedType,
	}
}

// check reports the first problem of t, met at Go path path.
func (c *checker) check(t reflect.Type, path string) error {
	if t.Name() != "" {
		for _, seen := range c.stack {
			if seen == t {
				return &Error{Type: c.root, Path: path, Err: ErrUnsupportedType,
					Message: fmt.Sprintf("type %s refers to itself; the schema subset has no references, so a recursive type has no schema: nest distinct types to the depth you need, or use jsonvalue.Value for the recursive part", t)}
			}
		}
		if strings.Contains(t.Name(), "[") {
			return c.fail(path, t, "generic types are not supported; declare a non-generic type")
		}
		c.stack = append(c.stack, t)
		defer func() { c.stack = c.stack[:len(c.stack)-1] }()
	}
	switch wireOf(t) {
	case wireRaw, wireNumber, wireTime, wireText:
		return nil
	case wireUnmarshaler:
		return c.fail(path, t, "it implements json.Unmarshaler, so its wire form is its own and reflection cannot know its schema; generate the tool with toolgen and declare the schema with //toolgen:schema")
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return nil
	case reflect.Pointer:
		return c.check(t.Elem(), path)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && wireOf(t.Elem()) == wireStructural {
			return c.fail(path, t, "a byte slice is base64 text in encoding/json, which the subset cannot describe; use string, or jsonvalue.Value for raw JSON")
		}
		return c.check(t.Elem(), path+"[]")
	case reflect.Struct:
		return c.checkStruct(t, path)
	case reflect.Interface:
		return c.fail(path, t, "an interface has no schema; use a concrete type, or jsonvalue.Value for any JSON (a sealed interface with //toolgen:oneof needs the generator, which reads the directive)")
	case reflect.Map:
		return c.fail(path, t, "a map has no schema in the subset; use a slice of structs with explicit key and value fields, or jsonvalue.Value for free-form JSON")
	case reflect.Chan:
		return c.fail(path, t, `a channel has no JSON form; remove the field or skip it with json:"-"`)
	case reflect.Func:
		return c.fail(path, t, `a function has no JSON form; remove the field or skip it with json:"-"`)
	case reflect.Array:
		return c.fail(path, t, fmt.Sprintf("fixed-size arrays are not supported; use a slice ([]%s)", t.Elem()))
	case reflect.Complex64, reflect.Complex128:
		return c.fail(path, t, "complex numbers have no JSON form; use two float64 fields")
	}
	return c.fail(path, t, "this type has no JSON form")
}

// member is a wire field met while flattening embedded structs.
type member struct {
	name   string
	goPath string
}

// checkStruct checks the wire fields of a struct and refuses embedded
// fields that share a JSON name: encoding/json resolves those by depth and
// tags, invopop by declaration order, so the reflected schema would be
// wrong.
func (c *checker) checkStruct(t reflect.Type, path string) error {
	var members []member
	if err := c.collect(t, path, "", &members, map[reflect.Type]bool{}); err != nil {
		return err
	}
	seen := make(map[string]member, len(members))
	for _, m := range members {
		if prev, dup := seen[m.name]; dup {
			return &Error{Type: c.root, Path: path, Err: ErrUnsupportedType,
				Message: fmt.Sprintf("fields %s and %s share the JSON name %q through embedding; invopop does not apply encoding/json's shadowing rules, so rename one with a json tag (or generate the tool with toolgen, which applies them)", prev.goPath, m.goPath, m.name)}
		}
		seen[m.name] = m
	}
	return nil
}

// collect appends the wire members of struct t, flattening embedded
// structs without a JSON name, and checks every field's type.
func (c *checker) collect(t reflect.Type, path, prefix string, out *[]member, visiting map[reflect.Type]bool) error {
	if visiting[t] {
		return nil
	}
	visiting[t] = true
	defer delete(visiting, t)
	for i := range t.NumField() {
		f := t.Field(i)
		jsonTag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(jsonTag, ",")
		if name == "-" && opts == "" {
			continue
		}
		if schemaTag := f.Tag.Get("jsonschema"); schemaTag == "-" || strings.HasPrefix(schemaTag, "-,") {
			continue
		}
		nullable := false
		for _, o := range strings.Split(f.Tag.Get("jsonschema"), ",") {
			nullable = nullable || o == "nullable"
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			ptr := ft.Kind() == reflect.Pointer
			if ptr {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && wireOf(ft) == wireStructural {
				if ptr && !f.IsExported() {
					return &Error{Type: c.root, Path: path, Err: ErrUnsupportedType,
						Message: fmt.Sprintf("embedded pointer to unexported struct %s cannot be filled by a decoder; embed it by value or export it", ft)}
				}
				if ft.Name() != "" {
					for _, seen := range c.stack {
						if seen == ft {
							return &Error{Type: c.root, Path: path, Err: ErrUnsupportedType,
								Message: fmt.Sprintf("type %s embeds itself; a recursive type has no schema", ft)}
						}
					}
				}
				if err := c.collect(ft, path, prefix+f.Name+".", out, visiting); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fieldPath := path + "." + f.Name
		if err := c.check(f.Type, fieldPath); err != nil {
			return err
		}
		if nullable && acceptsNull(f.Type) {
			return &Error{Type: c.root, Path: fieldPath, Err: ErrUnsupportedType,
				Message: "jsonschema nullable: the field's schema already accepts null; drop nullable"}
		}
		*out = append(*out, member{name: name, goPath: prefix + f.Name})
	}
	return nil
}

// acceptsNull reports whether the schema of t already accepts null: the
// unconstrained schema of raw JSON does.
func acceptsNull(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return wireOf(t) == wireRaw
}
