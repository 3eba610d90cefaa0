package annotations_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/annotations"
)

func TestParseDirective(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
		want annotations.Directive
	}{
		{line: "//toolgen:tool", ok: true, want: annotations.Directive{Name: "tool", NameOffset: 10, ArgsOffset: 14}},
		{line: "//toolgen:tool name=x timeout=1s", ok: true, want: annotations.Directive{Name: "tool", Args: "name=x timeout=1s", NameOffset: 10, ArgsOffset: 15}},
		{line: "//toolgen:oneof \t A  B \t ", ok: true, want: annotations.Directive{Name: "oneof", Args: "A  B", NameOffset: 10, ArgsOffset: 18}},
		{line: "//toolgen:open\tx", ok: true, want: annotations.Directive{Name: "open", Args: "x", NameOffset: 10, ArgsOffset: 15}},
		{line: `//toolgen:schema {"type":"string"}`, ok: true, want: annotations.Directive{Name: "schema", Args: `{"type":"string"}`, NameOffset: 10, ArgsOffset: 17}},
		{line: "//toolgen:toolx", ok: true, want: annotations.Directive{Name: "toolx", NameOffset: 10, ArgsOffset: 15}},
		{line: "//toolgen:", ok: true, want: annotations.Directive{Name: "", NameOffset: 10, ArgsOffset: 10}},
		{line: "//toolgen:tool   ", ok: true, want: annotations.Directive{Name: "tool", NameOffset: 10, ArgsOffset: 17}},
		{line: "//toolgen:tool name=x\r", ok: true, want: annotations.Directive{Name: "tool", Args: "name=x", NameOffset: 10, ArgsOffset: 15}},
		{line: "// toolgen:tool"},
		{line: "//\ttoolgen:tool"},
		{line: "/*toolgen:tool*/"},
		{line: "/* toolgen:tool */"},
		{line: "//go:generate go tool toolgen"},
		{line: "//Toolgen:tool"},
		{line: ""},
		{line: "//"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			d, ok := annotations.ParseDirective(tt.line)
			require.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, d)
			if ok {
				assert.Equal(t, d.Name, tt.line[d.NameOffset:d.NameOffset+len(d.Name)])
				assert.Equal(t, d.Args, tt.line[d.ArgsOffset:d.ArgsOffset+len(d.Args)])
			}
		})
	}
}

func TestCheckDirectiveName(t *testing.T) {
	tests := []struct {
		line string
		msg  string // "" = no error
	}{
		{line: "//toolgen:tool"},
		{line: "//toolgen:oneof A B"},
		{line: "//toolgen:open"},
		{line: "//toolgen:schema {}"},
		{line: "//toolgen:tol", msg: "unknown directive //toolgen:tol; did you mean //toolgen:tool?"},
		{line: "//toolgen:toolx", msg: "did you mean //toolgen:tool?"},
		{line: "//toolgen:oneOf A B", msg: "unknown directive //toolgen:oneOf; did you mean //toolgen:oneof?"},
		{line: "//toolgen:one_of A B", msg: "did you mean //toolgen:oneof?"},
		{line: "//toolgen:opn", msg: "did you mean //toolgen:open?"},
		{line: "//toolgen:schem {}", msg: "did you mean //toolgen:schema?"},
		{line: "//toolgen:opne", msg: "unknown directive //toolgen:opne; did you mean //toolgen:open?"},
		{line: "//toolgen:tooL", msg: "did you mean //toolgen:tool?"},
		{line: "//toolgen:shcema {}", msg: "did you mean //toolgen:schema?"},
		{line: "//toolgen:frobnicate", msg: "unknown directive //toolgen:frobnicate; the directives are //toolgen:tool, //toolgen:oneof, //toolgen:open and //toolgen:schema"},
		{line: "//toolgen:", msg: "directive //toolgen: has no name; write one of //toolgen:tool"},
		{line: "//toolgen:tool,name=x", msg: "put a blank after //toolgen:tool, as in //toolgen:tool name=x"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			d, ok := annotations.ParseDirective(tt.line)
			require.True(t, ok)
			e := annotations.CheckDirectiveName(d)
			if tt.msg == "" {
				assert.Nil(t, e)
				return
			}
			require.NotNil(t, e)
			assert.Equal(t, d.NameOffset, e.Offset)
			assert.Contains(t, e.Message, tt.msg)
		})
	}
}

func TestLooksLikeDirective(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"// toolgen:tool", true},
		{"//  toolgen:oneof A B", true},
		{"//\ttoolgen:open", true},
		{"// toolgen:schema {}", true},
		{"// toolgen:tool name=x", true},
		{"//toolgen:tool", false}, // a real directive
		{"// toolgen generates adapters", false},
		{"// see toolgen: it generates adapters", false},
		{"// toolgen:toolx", false},
		{"// toolgen:tools are great", false},
		{"// toolgen:", false},
		{"// toolgen:Tool", false},
		{"/* toolgen:tool */", false},
		{"// the toolgen:tool directive", false},
		{"", false},
		{"//", false},
		{"// ", false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			assert.Equal(t, tt.want, annotations.LooksLikeDirective(tt.line))
		})
	}
}
