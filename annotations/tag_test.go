package annotations_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/annotations"
)

func val(text string, off int) annotations.Value {
	return annotations.Value{Text: text, Offset: off, Set: true}
}

func TestParseTagJSON(t *testing.T) {
	tests := []struct {
		tag  string
		want annotations.JSONTag
	}{
		{``, annotations.JSONTag{}},
		{`yaml:"x" db:"y"`, annotations.JSONTag{}},
		{`json:"path"`, annotations.JSONTag{Present: true, Name: "path", NameOffset: 6}},
		{`json:"path,omitempty"`, annotations.JSONTag{Present: true, Name: "path", OmitEmpty: true, NameOffset: 6}},
		{`json:",omitempty"`, annotations.JSONTag{Present: true, OmitEmpty: true, NameOffset: 6}},
		{`json:"p,omitzero"`, annotations.JSONTag{Present: true, Name: "p", OmitZero: true, NameOffset: 6}},
		{`json:"p,omitempty,omitzero"`, annotations.JSONTag{Present: true, Name: "p", OmitEmpty: true, OmitZero: true, NameOffset: 6}},
		{`json:"-"`, annotations.JSONTag{Present: true, Skip: true, NameOffset: 6}},
		{`json:"-,"`, annotations.JSONTag{Present: true, Name: "-", NameOffset: 6}},
		{`json:"-,omitempty"`, annotations.JSONTag{Present: true, Name: "-", OmitEmpty: true, NameOffset: 6}},
		{`json:""`, annotations.JSONTag{Present: true, NameOffset: 6}},
		{`yaml:"a"  json:"b"`, annotations.JSONTag{Present: true, Name: "b", NameOffset: 16}},
		{`json:"a b-c.d/é@$"`, annotations.JSONTag{Present: true, Name: "a b-c.d/é@$", NameOffset: 6}},
		{` json:"x" `, annotations.JSONTag{Present: true, Name: "x", NameOffset: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.tag, func(t *testing.T) {
			f, errs := annotations.ParseTag(tt.tag)
			require.Empty(t, errs)
			assert.Equal(t, tt.want, f.JSON)
			assert.Equal(t, annotations.SchemaTag{}, f.Schema)
		})
	}
}

func TestParseTagSchema(t *testing.T) {
	tests := []struct {
		tag  string
		want annotations.SchemaTag
	}{
		{`jsonschema:"-"`, annotations.SchemaTag{Present: true, Skip: true}},
		{`jsonschema:"required"`, annotations.SchemaTag{Present: true, Required: true}},
		{`jsonschema:"nullable"`, annotations.SchemaTag{Present: true, Nullable: true, NullableOffset: 12}},
		{`jsonschema:"nullable=true"`, annotations.SchemaTag{Present: true, Nullable: true, NullableOffset: 12}},
		{`jsonschema:"nullable=false"`, annotations.SchemaTag{Present: true}},
		{`jsonschema:"title=T"`, annotations.SchemaTag{Present: true, Title: val("T", 18)}},
		{`jsonschema:"description=How to decode bytes"`, annotations.SchemaTag{Present: true, Description: val("How to decode bytes", 24)}},
		{`jsonschema:"description=a\\, b"`, annotations.SchemaTag{Present: true, Description: val("a, b", 24)}},
		{`jsonschema:"description=a\\,b\\,c,required"`, annotations.SchemaTag{Present: true, Required: true, Description: val("a,b,c", 24)}},
		{`jsonschema:"description=C:\\dir\\x"`, annotations.SchemaTag{Present: true, Description: val(`C:\dir\x`, 24)}},
		{`jsonschema:"description=a=b"`, annotations.SchemaTag{Present: true, Description: val("a=b", 24)}},
		{`jsonschema:"description=say \"hi\""`, annotations.SchemaTag{Present: true, Description: val(`say "hi"`, 24)}},
		{`jsonschema_description:"From the tag"`, annotations.SchemaTag{Present: true, Description: val("From the tag", 24)}},
		{`jsonschema_extras:""`, annotations.SchemaTag{Present: true}},
		{
			`jsonschema:"enum=a,enum=b,enum="`,
			annotations.SchemaTag{Present: true, Enum: []annotations.Value{val("a", 17), val("b", 24), val("", 31)}},
		},
		{`jsonschema:"const=x"`, annotations.SchemaTag{Present: true, Const: val("x", 18)}},
		{`jsonschema:"const="`, annotations.SchemaTag{Present: true, Const: val("", 18)}},
		{`jsonschema:"default=3"`, annotations.SchemaTag{Present: true, Default: val("3", 20)}},
		{
			`jsonschema:"example=1,example=1"`,
			annotations.SchemaTag{Present: true, Examples: []annotations.Value{val("1", 20), val("1", 30)}},
		},
		{
			`json:"x" jsonschema:"required,nullable,title=T,description=D,default=1,const=2,enum=1,enum=2,example=3"`,
			annotations.SchemaTag{
				Present: true, Required: true, Nullable: true, NullableOffset: 30,
				Title: val("T", 45), Description: val("D", 59), Default: val("1", 69), Const: val("2", 77),
				Enum: []annotations.Value{val("1", 84), val("2", 91)}, Examples: []annotations.Value{val("3", 101)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.tag, func(t *testing.T) {
			f, errs := annotations.ParseTag(tt.tag)
			require.Empty(t, errs)
			assert.Equal(t, tt.want, f.Schema)
			for _, v := range append(append([]annotations.Value{f.Schema.Title, f.Schema.Const, f.Schema.Default}, f.Schema.Enum...), f.Schema.Examples...) {
				if v.Set && !strings.Contains(v.Text, ",") && !strings.Contains(tt.tag, `\`) {
					assert.Equal(t, v.Text, tt.tag[v.Offset:v.Offset+len(v.Text)], "offset of %q", v.Text)
				}
			}
		})
	}
}

func TestParseTagBoth(t *testing.T) {
	f, errs := annotations.ParseTag(`json:"mode,omitempty" yaml:"m" jsonschema:"description=How to decode bytes,enum=text"`)
	require.Empty(t, errs)
	assert.Equal(t, annotations.Field{
		JSON: annotations.JSONTag{Present: true, Name: "mode", OmitEmpty: true, NameOffset: 6},
		Schema: annotations.SchemaTag{
			Present:     true,
			Description: val("How to decode bytes", 55),
			Enum:        []annotations.Value{val("text", 80)},
		},
	}, f)
}

func TestParseTagEscapedOffsets(t *testing.T) {
	// Offsets follow escapes in the quoted value exactly.
	tag := `jsonschema:"description=\"q\",enum=x"`
	f, errs := annotations.ParseTag(tag)
	require.Empty(t, errs)
	assert.Equal(t, `"q"`, f.Schema.Description.Text)
	assert.Equal(t, 24, f.Schema.Description.Offset)
	require.Len(t, f.Schema.Enum, 1)
	assert.Equal(t, "x", tag[f.Schema.Enum[0].Offset:f.Schema.Enum[0].Offset+1])

	tag = `jsonschema:"description=\u00e9,enum=é,frob"`
	_, errs = annotations.ParseTag(tag)
	require.Len(t, errs, 1)
	assert.Equal(t, strings.Index(tag, "frob"), errs[0].Offset)
}

func TestParseTagErrors(t *testing.T) {
	tests := []struct {
		tag  string
		want []wantErr
	}{
		// Struct tag syntax.
		{`json`, []wantErr{{0, `malformed struct tag; write key:"value" pairs separated by spaces`}}},
		{`json:`, []wantErr{{0, "malformed struct tag"}}},
		{`json:x`, []wantErr{{0, "malformed struct tag"}}},
		{`json:"x`, []wantErr{{0, "malformed struct tag"}}},
		{`:"x"`, []wantErr{{0, "malformed struct tag"}}},
		{`json :"x"`, []wantErr{{0, "malformed struct tag"}}},
		{`json:"x"yaml:"y"`, []wantErr{{8, "malformed struct tag"}}},
		{`json:"x",yaml:"y"`, []wantErr{{8, "malformed struct tag"}}},
		{`json:"a\qb"`, []wantErr{{5, "malformed struct tag"}}},
		{"json:\"a\"\tyaml:\"b\"", []wantErr{{8, "malformed struct tag"}}},
		{`json:"a,string" bad`, []wantErr{{8, ",string"}, {16, "malformed struct tag"}}},
		{`json:"a" json:"b"`, []wantErr{{9, "duplicate json tag; give each key once"}}},
		{`jsonschema:"required" jsonschema:"nullable"`, []wantErr{{22, "duplicate jsonschema tag"}}},
		{`yaml:"a" yaml:"b"`, nil},

		// json.
		{`json:"a,string"`, []wantErr{{8, "the ,string option changes the wire form and is not supported; use a string field"}}},
		{`json:"a,inline"`, []wantErr{{8, "json option inline is not encoding/json's; embed the struct"}}},
		{`json:"a,omitempy"`, []wantErr{{8, `unknown json option "omitempy"; encoding/json knows omitempty and omitzero; did you mean omitempty?`}}},
		{`json:"a,required"`, []wantErr{{8, `unknown json option "required"; encoding/json knows omitempty and omitzero; a field is required unless it has omitempty or omitzero, and jsonschema:"required" forces it`}}},
		{`json:"a,frob"`, []wantErr{{8, `unknown json option "frob"; encoding/json knows omitempty and omitzero`}}},
		{`json:"a,"`, []wantErr{{8, "empty json option; remove the extra comma"}}},
		{`json:"a,,omitempty"`, []wantErr{{8, "empty json option"}}},
		{`json:",omitempty,omitempty"`, []wantErr{{17, "duplicate json option omitempty; give it once"}}},
		{`json:"a\"b"`, []wantErr{{6, `json name "a\"b" is not valid for encoding/json`}}},
		{`json:"a\\b,omitempty"`, []wantErr{{6, "is not valid for encoding/json"}}},
		{`json:"a, omitempty"`, []wantErr{{8, `unknown json option " omitempty"`}}},

		// jsonschema syntax and flags.
		{`jsonschema:""`, []wantErr{{0, `jsonschema tag is empty; give options such as jsonschema:"description=TEXT" or remove the tag`}}},
		{`jsonschema:"required,"`, []wantErr{{21, "empty jsonschema option; remove the extra comma"}}},
		{`jsonschema:",required"`, []wantErr{{12, "empty jsonschema option"}}},
		{`jsonschema:"required,,nullable"`, []wantErr{{21, "empty jsonschema option"}}},
		{`jsonschema:"=x"`, []wantErr{{12, `jsonschema option "=x" has no name`}}},
		{`jsonschema:"-,required"`, []wantErr{{12, `jsonschema option "-" skips the field and takes no other options; write jsonschema:"-" alone`}}},
		{`jsonschema:"-=x"`, []wantErr{{12, `unknown jsonschema option "-=x"`}}},
		{`jsonschema:"required=true"`, []wantErr{{12, "jsonschema option required takes no value; write required"}}},
		{`jsonschema:"required,required"`, []wantErr{{21, "duplicate jsonschema option required; give it once"}}},
		{`jsonschema:"nullable,nullable=false"`, []wantErr{{21, "duplicate jsonschema option nullable"}}},
		{`jsonschema:"nullable=yes"`, []wantErr{{21, "jsonschema option nullable=yes is not a boolean; write nullable, nullable=true or nullable=false"}}},

		// Options that need values.
		{`jsonschema:"description"`, []wantErr{{12, "jsonschema option description needs a value; write description=VALUE"}}},
		{`jsonschema:"title"`, []wantErr{{12, "jsonschema option title needs a value"}}},
		{`jsonschema:"enum"`, []wantErr{{12, "jsonschema option enum needs a value"}}},
		{`jsonschema:"const"`, []wantErr{{12, "jsonschema option const needs a value"}}},
		{`jsonschema:"default"`, []wantErr{{12, "jsonschema option default needs a value"}}},
		{`jsonschema:"example"`, []wantErr{{12, "jsonschema option example needs a value"}}},
		{`jsonschema:"title="`, []wantErr{{12, "jsonschema option title= is empty; write title=TEXT or remove the option"}}},
		{`jsonschema:"title=\xff"`, []wantErr{{18, `jsonschema option title=: "\xff" is not valid UTF-8; write the text in UTF-8`}}},
		{`jsonschema:"required,description=a\xffb"`, []wantErr{{33, `jsonschema option description=: "a\xffb" is not valid UTF-8`}}},
		{`jsonschema:"description="`, []wantErr{{12, "jsonschema option description= is empty"}}},

		// Duplicates.
		{`jsonschema:"title=a,title=b"`, []wantErr{{20, "duplicate jsonschema option title; give it once"}}},
		{`jsonschema:"description=a,description=b"`, []wantErr{{26, "duplicate jsonschema option description"}}},
		{`jsonschema:"const=a,const=b"`, []wantErr{{20, "duplicate jsonschema option const"}}},
		{`jsonschema:"default=a,default=b"`, []wantErr{{22, "duplicate jsonschema option default"}}},
		{`jsonschema:"enum=a,enum=a"`, []wantErr{{19, "duplicate enum=a; give each value once"}}},
		{`jsonschema:"description=a" jsonschema_description:"b"`, []wantErr{{27, "the field has both jsonschema_description and jsonschema description=; give the description once"}}},
		{`jsonschema_description:"b" jsonschema:"description=a"`, []wantErr{{39, "has both jsonschema_description and jsonschema description="}}},
		{`jsonschema_description:"a" jsonschema_description:"b"`, []wantErr{{27, "duplicate jsonschema_description tag"}}},
		{`jsonschema_description:""`, []wantErr{{0, `jsonschema_description is empty; write jsonschema_description:"TEXT" or remove the tag`}}},
		{`jsonschema_description:"\xff"`, []wantErr{{24, `jsonschema_description "\xff" is not valid UTF-8; write the text in UTF-8`}}},

		// Extras.
		{`jsonschema_extras:"a=b"`, []wantErr{{19, "jsonschema_extras adds keywords, and the schema subset accepts no extra keywords; remove the tag"}}},

		// Unknown options.
		{`jsonschema:"frob"`, []wantErr{{12, `unknown jsonschema option "frob"; the supported options are -, required, nullable, title=, description=, enum=, const=, default= and example=`}}},
		{`jsonschema:"requird"`, []wantErr{{12, `unknown jsonschema option "requird"; the supported options are -, required, nullable, title=, description=, enum=, const=, default= and example=; did you mean required?`}}},
		{`jsonschema:"desciption=x"`, []wantErr{{12, "did you mean description?"}}},
		{`jsonschema:"required, nullable"`, []wantErr{{21, `unknown jsonschema option " nullable"`}}},
		{`jsonschema:"required, nullable"`, []wantErr{{21, "remove the blanks around nullable"}}},
		{`jsonschema:"Required"`, []wantErr{{12, "did you mean required?"}}},
		{`jsonschema:"ref=#/x"`, []wantErr{{12, `unknown jsonschema option "ref=#/x"`}}},
		{`jsonschema:"a\\,b"`, []wantErr{{12, `unknown jsonschema option "a,b"`}}},

		// Several errors at once, in order.
		{
			`json:"a,string" jsonschema:"frob,minimum=1,title" jsonschema_extras:"x=1"`,
			[]wantErr{{8, ",string"}, {28, `"frob"`}, {33, "minimum"}, {43, "title needs a value"}, {69, "jsonschema_extras"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.tag, func(t *testing.T) {
			_, errs := annotations.ParseTag(tt.tag)
			checkErrs(t, errs, tt.want)
		})
	}
}

func TestParseTagRejectedKeywords(t *testing.T) {
	tests := []struct {
		opt  string
		want string
	}{
		{"minimum=1", `jsonschema option minimum=1: the schema subset has no "minimum" keyword; check the range in the tool's code, or document it with description=`},
		{"maximum=1", `the schema subset has no "maximum" keyword; check the range`},
		{"exclusiveMinimum=1", `no "exclusiveMinimum" keyword; check the range`},
		{"exclusiveMaximum=1", `no "exclusiveMaximum" keyword; check the range`},
		{"multipleOf=2", `no "multipleOf" keyword; check the range`},
		{"minLength=1", `no "minLength" keyword; check the length`},
		{"maxLength=9", `no "maxLength" keyword; check the length`},
		{"pattern=^a$", `no "pattern" keyword; check the text`},
		{"format=email", `no "format" keyword; use a type with its own wire form`},
		{"minItems=1", `no "minItems" keyword; check the number of items`},
		{"maxItems=1", `no "maxItems" keyword; check the number of items`},
		{"uniqueItems", `jsonschema option uniqueItems: the schema subset has no "uniqueItems" keyword; check for duplicates`},
		{"uniqueItems=true", `no "uniqueItems" keyword`},
		{"minProperties=1", `no "minProperties" keyword; check the members`},
		{"maxProperties=1", `no "maxProperties" keyword; check the members`},
		{"readOnly=true", `no "readOnly" keyword; use separate Go types for parameters and results`},
		{"writeOnly=true", `no "writeOnly" keyword; use separate Go types`},
		{"anchor=x", `no "$anchor" keyword; the subset has no references`},
		{"type=string", "the schema subset takes the type from the field's Go type, never from a tag; change the field's Go type"},
		{"oneof_required=a", "the schema subset builds oneOf only from a //toolgen:oneof interface, never from tags; declare a sealed interface type with //toolgen:oneof A B"},
		{"oneof_ref=#/x", "builds oneOf only from a //toolgen:oneof interface"},
		{"oneof_type=string;integer", "builds oneOf only from a //toolgen:oneof interface"},
		{"anyof_required=a", `no "anyOf" keyword; declare a sealed interface type`},
		{"anyof_ref=#/x", `no "anyOf" keyword`},
		{"anyof_type=string;integer", `no "anyOf" keyword`},
		{"dependentRequired=a", `no "dependentRequired" keyword; check which members go together`},
		{"contentEncoding=base64", `no "contentEncoding" keyword; document the encoding`},
		{"contentMediaType=image/png", `no "contentMediaType" keyword; document the media type`},
		{"deprecated=true", `no "deprecated" keyword; say so with description=`},
	}
	for _, tt := range tests {
		t.Run(tt.opt, func(t *testing.T) {
			tag := `json:"x" jsonschema:"required,` + tt.opt + `"`
			_, errs := annotations.ParseTag(tag)
			checkErrs(t, errs, []wantErr{{30, tt.want}})
		})
	}
}
