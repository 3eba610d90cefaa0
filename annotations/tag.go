package annotations

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// JSONTag is the encoding/json view of a struct field's `json` tag.
type JSONTag struct {
	// Present reports that the field has a json tag at all.
	Present bool
	// Name is the name part; "" means the Go field name.
	Name string
	// Skip reports json:"-" (exactly "-"; json:"-," names the member "-").
	Skip bool
	// OmitEmpty reports the omitempty option.
	OmitEmpty bool
	// OmitZero reports the omitzero option.
	OmitZero bool
	// NameOffset is the byte offset of the name part in the tag text.
	NameOffset int
}

// SchemaTag is the `jsonschema` tag vocabulary, in invopop/jsonschema
// spelling, that the schema subset supports.
type SchemaTag struct {
	// Present reports that the field has a jsonschema,
	// jsonschema_description or jsonschema_extras tag.
	Present bool
	// Skip reports jsonschema:"-".
	Skip bool
	// Required reports the required option.
	Required bool
	// Nullable reports nullable or nullable=true.
	Nullable bool
	// NullableOffset is the tag offset of the nullable option, when
	// Nullable.
	NullableOffset int
	// Title is title=.
	Title Value
	// Description is description=, or the jsonschema_description tag.
	Description Value
	// Enum holds each enum= value, in order.
	Enum []Value
	// Const is const=.
	Const Value
	// Default is default=.
	Default Value
	// Examples holds each example= value, in order.
	Examples []Value
}

// Field is everything the tags of one struct field say.
type Field struct {
	// JSON is the json tag.
	JSON JSONTag
	// Schema is the jsonschema tags.
	Schema SchemaTag
}

// The struct tag keys ParseTag reads; every other key is left alone.
const (
	keyJSON        = "json"
	keySchema      = "jsonschema"
	keyDescription = "jsonschema_description"
	keyExtras      = "jsonschema_extras"
)

const malformedTag = `malformed struct tag; write key:"value" pairs separated by spaces`

// tagPair is one key:"value" pair of a struct tag.
type tagPair struct {
	key    string
	keyOff int
	value  string // unquoted
	pos    []int  // pos[i] is the tag offset of value[i]; pos[len(value)] is the closing quote's
}

// at returns the tag offset of byte i of the unquoted value.
func (p tagPair) at(i int) int {
	return p.pos[max(0, min(i, len(p.pos)-1))]
}

// splitTag splits a struct tag into its pairs, the way
// reflect.StructTag.Lookup reads it but requiring a space between pairs.
// After a malformed pair it returns the pairs before it and an error.
func splitTag(tag string) ([]tagPair, *Error) {
	var pairs []tagPair
	i := 0
	for {
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		if i == len(tag) {
			return pairs, nil
		}
		start := i
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == start || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			return pairs, errorf(start, "%s", malformedTag)
		}
		key := tag[start:i]
		q := i + 1
		j := q + 1
		for j < len(tag) && tag[j] != '"' {
			if tag[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(tag) {
			return pairs, errorf(start, "%s", malformedTag)
		}
		value, err := strconv.Unquote(tag[q : j+1])
		if err != nil {
			return pairs, errorf(q, "%s", malformedTag)
		}
		pairs = append(pairs, tagPair{key: key, keyOff: start, value: value, pos: unquotedPositions(tag, q, j, value)})
		i = j + 1
		if i < len(tag) && tag[i] != ' ' {
			return pairs, errorf(i, "%s", malformedTag)
		}
	}
}

// unquotedPositions maps each byte of value, the unquoted text of
// tag[q:j+1], to the tag offset of the character that produced it, with
// one more entry for the closing quote. When the mapping cannot be worked
// out it falls back to q+1+i.
func unquotedPositions(tag string, q, j int, value string) []int {
	pos := make([]int, 0, len(value)+1)
	s := tag[q+1 : j]
	for len(s) > 0 {
		at := j - len(s)
		c, multibyte, tail, err := strconv.UnquoteChar(s, '"')
		if err != nil {
			pos = pos[:0]
			break
		}
		n := 1
		if c >= utf8.RuneSelf && multibyte {
			n = utf8.RuneLen(c)
			if n < 0 {
				n = 1
			}
		}
		for range n {
			pos = append(pos, at)
		}
		s = tail
	}
	if len(pos) != len(value) {
		pos = pos[:0]
		for i := range value {
			pos = append(pos, min(q+1+i, j))
		}
	}
	return append(pos, j)
}

// ParseTag parses a struct field's whole tag (the reflect.StructTag text:
// the string literal's value without the quotes), with offsets into that
// text. It reads the json, jsonschema, jsonschema_description and
// jsonschema_extras keys and ignores every other key. "" gives the zero
// Field and no errors.
func ParseTag(tag string) (Field, []*Error) {
	var f Field
	var errs []*Error
	pairs, perr := splitTag(tag)
	seen := map[string]bool{}
	descTag, descOpt := -1, -1
	for _, p := range pairs {
		switch p.key {
		case keyJSON, keySchema, keyDescription, keyExtras:
		default:
			continue
		}
		if seen[p.key] {
			errs = append(errs, errorf(p.keyOff, "duplicate %s tag; give each key once", p.key))
			continue
		}
		seen[p.key] = true
		switch p.key {
		case keyJSON:
			errs = append(errs, parseJSONTag(p, &f.JSON)...)
		case keySchema:
			f.Schema.Present = true
			errs = append(errs, parseSchemaTag(p, &f.Schema, &descOpt)...)
		case keyDescription:
			f.Schema.Present = true
			descTag = p.keyOff
			if p.value == "" {
				errs = append(errs, errorf(p.keyOff, `jsonschema_description is empty; write jsonschema_description:"TEXT" or remove the tag`))
			} else if !utf8.ValidString(p.value) {
				errs = append(errs, errorf(p.at(0), "jsonschema_description %q is not valid UTF-8; write the text in UTF-8", p.value))
			} else if !f.Schema.Description.Set {
				f.Schema.Description = Value{Text: p.value, Offset: p.at(0), Set: true}
			}
		case keyExtras:
			f.Schema.Present = true
			if p.value != "" {
				errs = append(errs, errorf(p.at(0), "jsonschema_extras adds keywords, and the schema subset accepts no extra keywords; remove the tag"))
			}
		}
	}
	if descTag >= 0 && descOpt >= 0 {
		errs = append(errs, errorf(max(descTag, descOpt), "the field has both jsonschema_description and jsonschema description=; give the description once"))
	}
	if perr != nil {
		errs = append(errs, perr)
	}
	slices.SortStableFunc(errs, func(a, b *Error) int { return cmp.Compare(a.Offset, b.Offset) })
	return f, errs
}

// parseJSONTag reads a json tag into t.
func parseJSONTag(p tagPair, t *JSONTag) []*Error {
	var errs []*Error
	t.Present = true
	t.NameOffset = p.at(0)
	if p.value == "-" {
		t.Skip = true
		return nil
	}
	name, _, _ := strings.Cut(p.value, ",")
	if name != "" && !validJSONName(name) {
		errs = append(errs, errorf(p.at(0), "json name %q is not valid for encoding/json, which would silently use the Go field name instead; use letters, digits and punctuation other than quotes, backslash and comma", name))
	} else {
		t.Name = name
	}
	if p.value == "-," {
		return errs
	}
	seen := map[string]bool{}
	for _, o := range splitOptions(p.value[len(name):], len(name), false) {
		if o.first {
			continue // the name part
		}
		off := p.at(o.start)
		switch o.text {
		case "":
			errs = append(errs, errorf(off, "empty json option; remove the extra comma"))
			continue
		case "omitempty", "omitzero":
			if seen[o.text] {
				errs = append(errs, errorf(off, "duplicate json option %s; give it once", o.text))
				continue
			}
			seen[o.text] = true
			if o.text == "omitempty" {
				t.OmitEmpty = true
			} else {
				t.OmitZero = true
			}
		case "string":
			errs = append(errs, errorf(off, "the ,string option changes the wire form and is not supported; use a string field"))
		case "inline":
			errs = append(errs, errorf(off, "json option inline is not encoding/json's; embed the struct (an anonymous field) to flatten its fields instead"))
		default:
			msg := "unknown json option %q; encoding/json knows omitempty and omitzero"
			if c := closest(o.text, []string{"omitempty", "omitzero"}); c != "" {
				msg += "; did you mean " + c + "?"
			} else if o.text == "required" {
				msg += `; a field is required unless it has omitempty or omitzero, and jsonschema:"required" forces it`
			}
			errs = append(errs, errorf(off, msg, o.text))
		}
	}
	return errs
}

// validJSONName reports whether encoding/json accepts name as a member
// name; for any other name it silently uses the Go field name.
func validJSONName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// option is one comma-separated option of a tag value.
type option struct {
	text  string // with \, unescaped when escapes are on
	src   []int  // src[i] is the value index of text[i]; one more entry for the end
	start int    // value index of the option's first byte
	first bool   // the option before the first comma
}

// splitOptions splits s, which starts at index base of a tag value, on
// commas; with escapes, "\," is a literal comma (invopop/jsonschema's
// convention) and every other backslash is kept as it is.
func splitOptions(s string, base int, escapes bool) []option {
	var out []option
	cur := option{start: base, first: true}
	var b []byte
	for i := 0; i < len(s); i++ {
		switch {
		case escapes && s[i] == '\\' && i+1 < len(s) && s[i+1] == ',':
			b = append(b, ',')
			cur.src = append(cur.src, base+i)
			i++
		case s[i] == ',':
			cur.text = string(b)
			cur.src = append(cur.src, base+i)
			out = append(out, cur)
			cur = option{start: base + i + 1}
			b = b[:0]
		default:
			b = append(b, s[i])
			cur.src = append(cur.src, base+i)
		}
	}
	cur.text = string(b)
	cur.src = append(cur.src, base+len(s))
	return append(out, cur)
}

// The jsonschema options the subset supports, as messages list them.
var schemaOptions = []string{"-", "required", "nullable", "title=", "description=", "enum=", "const=", "default=", "example="}

// rejection says why the schema subset rejects a jsonschema option that
// invopop/jsonschema accepts, and what to do instead.
type rejection struct {
	reason string
	advice string
}

// noKeyword is the reason for an option whose JSON Schema keyword the
// subset lacks.
func noKeyword(keyword, advice string) rejection {
	return rejection{reason: "the schema subset has no " + strconv.Quote(keyword) + " keyword", advice: advice}
}

const (
	rangeAdvice  = `check the range in the tool's code, or document it with description=`
	lengthAdvice = `check the length in the tool's code, or document it with description=`
	itemsAdvice  = `check the number of items in the tool's code, or document it with description=`
	membAdvice   = `check the members in the tool's code, or document it with description=`
	sidesAdvice  = `use separate Go types for parameters and results instead`
	oneOfAdvice  = `declare a sealed interface type with //toolgen:oneof A B, which gives a oneOf of its variants`
	oneOfReason  = `the schema subset builds oneOf only from a //toolgen:oneof interface, never from tags`
)

// rejectedKeywords maps each jsonschema option that invopop/jsonschema
// accepts but the schema subset rejects to the reason and the advice.
var rejectedKeywords = map[string]rejection{
	"minimum":           noKeyword("minimum", rangeAdvice),
	"maximum":           noKeyword("maximum", rangeAdvice),
	"exclusiveMinimum":  noKeyword("exclusiveMinimum", rangeAdvice),
	"exclusiveMaximum":  noKeyword("exclusiveMaximum", rangeAdvice),
	"multipleOf":        noKeyword("multipleOf", rangeAdvice),
	"minLength":         noKeyword("minLength", lengthAdvice),
	"maxLength":         noKeyword("maxLength", lengthAdvice),
	"pattern":           noKeyword("pattern", `check the text in the tool's code, or document it with description=`),
	"format":            noKeyword("format", `use a type with its own wire form (such as time.Time, or a type with //toolgen:schema and UnmarshalText), or check the text in the tool's code and document it with description=`),
	"minItems":          noKeyword("minItems", itemsAdvice),
	"maxItems":          noKeyword("maxItems", itemsAdvice),
	"uniqueItems":       noKeyword("uniqueItems", `check for duplicates in the tool's code, or document it with description=`),
	"minProperties":     noKeyword("minProperties", membAdvice),
	"maxProperties":     noKeyword("maxProperties", membAdvice),
	"readOnly":          noKeyword("readOnly", sidesAdvice),
	"writeOnly":         noKeyword("writeOnly", sidesAdvice),
	"anchor":            noKeyword("$anchor", `the subset has no references; remove the option`),
	"type":              {reason: `the schema subset takes the type from the field's Go type, never from a tag`, advice: `change the field's Go type, or give a named type a //toolgen:schema directive`},
	"oneof_required":    {reason: oneOfReason, advice: oneOfAdvice},
	"oneof_ref":         {reason: oneOfReason, advice: oneOfAdvice},
	"oneof_type":        {reason: oneOfReason, advice: oneOfAdvice},
	"anyof_required":    noKeyword("anyOf", oneOfAdvice),
	"anyof_ref":         noKeyword("anyOf", oneOfAdvice),
	"anyof_type":        noKeyword("anyOf", oneOfAdvice),
	"dependentRequired": noKeyword("dependentRequired", `check which members go together in the tool's code, or document it with description=`),
	"contentEncoding":   noKeyword("contentEncoding", `document the encoding with description=`),
	"contentMediaType":  noKeyword("contentMediaType", `document the media type with description=`),
	"deprecated":        noKeyword("deprecated", `say so with description=`),
}

// parseSchemaTag reads a jsonschema tag into t; *descOpt is set to the
// offset of a description= option.
func parseSchemaTag(p tagPair, t *SchemaTag, descOpt *int) []*Error {
	if p.value == "" {
		return []*Error{errorf(p.keyOff, `jsonschema tag is empty; give options such as jsonschema:"description=TEXT" or remove the tag`)}
	}
	if p.value == "-" {
		t.Skip = true
		return nil
	}
	var errs []*Error
	seen := map[string]bool{}
	enums := map[string]bool{}
	for _, o := range splitOptions(p.value, 0, true) {
		off := p.at(o.start)
		key, val, hasEq := strings.Cut(o.text, "=")
		valueAt := func() int {
			i := len(key) + 1
			if i >= len(o.src) {
				i = len(o.src) - 1
			}
			return p.at(o.src[i])
		}
		needsValue := func() bool {
			if !hasEq {
				errs = append(errs, errorf(off, "jsonschema option %s needs a value; write %s=VALUE", key, key))
				return false
			}
			return true
		}
		once := func() bool {
			if seen[key] {
				errs = append(errs, errorf(off, "duplicate jsonschema option %s; give it once", key))
				return false
			}
			seen[key] = true
			return true
		}
		switch key {
		case "":
			if o.text == "" {
				errs = append(errs, errorf(off, "empty jsonschema option; remove the extra comma"))
			} else {
				errs = append(errs, errorf(off, "jsonschema option %q has no name; write name=value, such as description=TEXT", o.text))
			}
		case "-":
			if hasEq {
				errs = append(errs, errorf(off, "unknown jsonschema option %q; the supported options are %s", o.text, listWords(schemaOptions)))
			} else {
				errs = append(errs, errorf(off, `jsonschema option "-" skips the field and takes no other options; write jsonschema:"-" alone`))
			}
		case "required":
			if hasEq {
				errs = append(errs, errorf(off, "jsonschema option required takes no value; write required"))
			} else if once() {
				t.Required = true
			}
		case "nullable":
			if !once() {
				continue
			}
			switch {
			case !hasEq || val == "true":
				t.Nullable = true
				t.NullableOffset = off
			case val == "false":
			default:
				errs = append(errs, errorf(valueAt(), "jsonschema option nullable=%s is not a boolean; write nullable, nullable=true or nullable=false", val))
			}
		case "title", "description":
			if !needsValue() || !once() {
				continue
			}
			if val == "" {
				errs = append(errs, errorf(off, "jsonschema option %s= is empty; write %s=TEXT or remove the option", key, key))
				continue
			}
			if !utf8.ValidString(val) {
				errs = append(errs, errorf(valueAt(), "jsonschema option %s=: %q is not valid UTF-8; write the text in UTF-8", key, val))
				continue
			}
			v := Value{Text: val, Offset: valueAt(), Set: true}
			if key == "title" {
				t.Title = v
			} else {
				*descOpt = off
				t.Description = v
			}
		case "const", "default":
			if !needsValue() || !once() {
				continue
			}
			v := Value{Text: val, Offset: valueAt(), Set: true}
			if key == "const" {
				t.Const = v
			} else {
				t.Default = v
			}
		case "enum":
			if !needsValue() {
				continue
			}
			if enums[val] {
				errs = append(errs, errorf(off, "duplicate enum=%s; give each value once", val))
				continue
			}
			enums[val] = true
			t.Enum = append(t.Enum, Value{Text: val, Offset: valueAt(), Set: true})
		case "example":
			if !needsValue() {
				continue
			}
			t.Examples = append(t.Examples, Value{Text: val, Offset: valueAt(), Set: true})
		default:
			if r, ok := rejectedKeywords[key]; ok {
				errs = append(errs, errorf(off, "jsonschema option %s: %s; %s", o.text, r.reason, r.advice))
				continue
			}
			errs = append(errs, unknownSchemaOption(o.text, key, off))
		}
	}
	return errs
}

// unknownSchemaOption reports an option the jsonschema tag does not know.
func unknownSchemaOption(text, key string, off int) *Error {
	msg := "unknown jsonschema option %q; the supported options are " + listWords(schemaOptions)
	names := []string{"required", "nullable", "title", "description", "enum", "const", "default", "example"}
	if trimmed := strings.TrimSpace(key); trimmed != key && contains(names, trimmed) {
		msg += "; remove the blanks around " + trimmed
	} else if c := closest(key, names); c != "" {
		msg += "; did you mean " + c + "?"
	}
	return errorf(off, msg, text)
}
