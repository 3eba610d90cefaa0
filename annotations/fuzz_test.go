package annotations_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolgen-go/toolgen/annotations"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// checkValue asserts that a value's offset lies within the input.
func checkValue(t *testing.T, v annotations.Value, n int) {
	t.Helper()
	if v.Set {
		assert.GreaterOrEqual(t, v.Offset, 0)
		assert.LessOrEqual(t, v.Offset, n)
	}
}

func FuzzParseTool(f *testing.F) {
	for _, s := range []string{
		"", "name=read_file timeout=30s concurrency=safe", "safe", "=", "name=", "timeout=0s",
		"presentcall=f", "render=pkg.F meta=_ finalize=1", "timeout=1s timeout=2s", "\t name=x\t",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		opts, errs := annotations.ParseTool(args)
		checkOffsets(t, errs, len(args))
		for _, v := range []annotations.Value{opts.Name, opts.Timeout, opts.Concurrency, opts.Render, opts.Meta, opts.PresentCall, opts.PresentResult, opts.Finalize} {
			checkValue(t, v, len(args))
			if v.Set {
				assert.Equal(t, v.Text, args[v.Offset:v.Offset+len(v.Text)])
			}
		}
		if opts.Timeout.Set {
			assert.Positive(t, opts.TimeoutValue)
		}
	})
}

func FuzzParseTag(f *testing.F) {
	for _, s := range []string{
		``, `json:"a,omitempty"`, `json:"-,"`, `json:"-"`, `json:"a,string"`, `jsonschema:"description=a\\, b,enum=x,enum=y"`,
		`jsonschema:"required,nullable=true,title=t,const=1,default=2,example=3"`, `jsonschema_description:"d" jsonschema:"description=e"`,
		`jsonschema_extras:"a=b"`, `jsonschema:"minimum=1,frob,,"`, `json:"a"yaml:"b"`, `json:"\u00e9\x41\"" jsonschema:"-,x"`,
		`json:"a" json:"b"`, `json:"x`, `:"x"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tag string) {
		field, errs := annotations.ParseTag(tag)
		checkOffsets(t, errs, len(tag))
		if field.JSON.Present {
			assert.GreaterOrEqual(t, field.JSON.NameOffset, 0)
			assert.LessOrEqual(t, field.JSON.NameOffset, len(tag))
		}
		s := field.Schema
		for _, v := range append(append([]annotations.Value{s.Title, s.Description, s.Const, s.Default}, s.Enum...), s.Examples...) {
			checkValue(t, v, len(tag))
		}
		for _, v := range append(append([]annotations.Value{s.Const, s.Default}, s.Enum...), s.Examples...) {
			for _, typ := range []schemasubset.Type{schemasubset.TypeAny, schemasubset.TypeString, schemasubset.TypeInteger, schemasubset.TypeNumber, schemasubset.TypeBoolean} {
				_, _ = annotations.ScalarJSON(v.Text, typ)
			}
		}
	})
}

func FuzzParseOneOf(f *testing.F) {
	for _, s := range []string{"", "A B", "A A", "A, B", "pkg.A B", "1 2 3", " \tA\t B "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		vs, errs := annotations.ParseOneOf(args)
		checkOffsets(t, errs, len(args))
		seen := map[string]bool{}
		for _, v := range vs {
			assert.False(t, seen[v.Name], "duplicate variant %s", v.Name)
			seen[v.Name] = true
			assert.Equal(t, v.Name, args[v.Offset:v.Offset+len(v.Name)])
		}
		if len(errs) == 0 {
			assert.GreaterOrEqual(t, len(vs), 2)
		}
	})
}

func FuzzParseDirective(f *testing.F) {
	for _, s := range []string{"//toolgen:tool name=x", "// toolgen:tool", "//toolgen:", "//toolgen:tol", "/*toolgen:tool*/", `//toolgen:schema {"type":"string"}`, "//toolgen:open x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		d, ok := annotations.ParseDirective(line)
		if ok {
			assert.False(t, annotations.LooksLikeDirective(line))
			assert.Equal(t, d.Name, line[d.NameOffset:d.NameOffset+len(d.Name)])
			assert.Equal(t, d.Args, line[d.ArgsOffset:d.ArgsOffset+len(d.Args)])
			if e := annotations.CheckDirectiveName(d); e != nil {
				assert.Equal(t, d.NameOffset, e.Offset)
			}
			checkOffsets(t, annotations.ParseOpen(d.Args), len(d.Args))
			_, errs := annotations.ParseSchema(d.Args)
			checkOffsets(t, errs, len(d.Args))
		}
	})
}

func FuzzParseSchema(f *testing.F) {
	for _, s := range []string{"", `{"type":"string"}`, `{"type":`, `"x"`, `{"type":"object","properties":{"a":{"type":"int"}},"required":["b"]}`, `{"a~b/c":1, "minLength":2}`, ` [1, {"x":2}] `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		n, errs := annotations.ParseSchema(args)
		checkOffsets(t, errs, len(args))
		assert.Equal(t, n == nil, len(errs) > 0)
		for i := 1; i < len(errs); i++ {
			assert.LessOrEqual(t, errs[i-1].Offset, errs[i].Offset, "errors in offset order")
		}
	})
}
