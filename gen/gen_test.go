package gen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/schemasubset"
)

func TestSnakeCase(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ReadFile", "read_file"},
		{"readFile", "read_file"},
		{"HTTPGet", "http_get"},
		{"ReadURLs", "read_urls"},
		{"GetHTTPResponse", "get_http_response"},
		{"Bash", "bash"},
		{"Sha256Sum", "sha256_sum"},
		{"A", "a"},
		{"IDs", "ids"},
	} {
		assert.Equal(t, tc.want, snakeCase(tc.in), tc.in)
	}
}

// applyDiff applies a unified diff made by UnifiedDiff to old.
func applyDiff(t *testing.T, old, diff string) string {
	t.Helper()
	if diff == "" {
		return old
	}
	a := splitLines(old)
	lines := strings.SplitAfter(diff, "\n")
	require.True(t, strings.HasPrefix(lines[0], "--- ") && strings.HasPrefix(lines[1], "+++ "))
	var out []string
	next := 0 // next line of a to copy
	for i := 2; i < len(lines) && lines[i] != ""; i++ {
		l := lines[i]
		if strings.HasPrefix(l, "@@ ") {
			var as, bs string
			_, err := fmt.Sscanf(l, "@@ -%s +%s @@", &as, &bs)
			require.NoError(t, err, l)
			start, _ := strconv.Atoi(strings.Split(as, ",")[0])
			n := 1
			if parts := strings.Split(as, ","); len(parts) == 2 {
				n, _ = strconv.Atoi(parts[1])
			}
			if n > 0 {
				start--
			}
			for next < start {
				out = append(out, a[next])
				next++
			}
			continue
		}
		if strings.HasPrefix(l, `\ No newline`) {
			last := len(out) - 1
			if last >= 0 && (strings.HasPrefix(lines[i-1], "+") || strings.HasPrefix(lines[i-1], " ")) {
				out[last] = strings.TrimSuffix(out[last], "\n")
			}
			continue
		}
		text := l[1:]
		switch l[0] {
		case ' ':
			require.Equal(t, strings.TrimSuffix(a[next], "\n"), strings.TrimSuffix(text, "\n"), "context line")
			out = append(out, a[next])
			next++
		case '-':
			require.Equal(t, strings.TrimSuffix(a[next], "\n"), strings.TrimSuffix(text, "\n"), "removed line")
			next++
		case '+':
			out = append(out, text)
		}
	}
	out = append(out, a[next:]...)
	return strings.Join(out, "")
}

// TestUnifiedDiff checks that every diff applies back: for random edits of
// random files, applying UnifiedDiff(old, new) to old gives new.
func TestUnifiedDiff(t *testing.T) {
	assert.Empty(t, UnifiedDiff("f", []byte("a\nb\n"), []byte("a\nb\n")))
	assert.Equal(t, "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", UnifiedDiff("f", []byte("a\nb\n"), []byte("a\nc\n")))
	assert.Equal(t, "--- f\n+++ f\n@@ -0,0 +1 @@\n+x\n", UnifiedDiff("f", nil, []byte("x\n")))

	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		n := r.IntN(40)
		old := make([]string, n)
		for j := range old {
			old[j] = fmt.Sprintf("line %d\n", r.IntN(8))
		}
		nw := append([]string(nil), old...)
		for range r.IntN(6) {
			switch k := r.IntN(3); {
			case k == 0 && len(nw) > 0:
				j := r.IntN(len(nw))
				nw = append(nw[:j], nw[j+1:]...)
			case k == 1:
				j := r.IntN(len(nw) + 1)
				nw = append(nw[:j], append([]string{fmt.Sprintf("new %d\n", r.IntN(4))}, nw[j:]...)...)
			case len(nw) > 0:
				nw[r.IntN(len(nw))] = "changed\n"
			}
		}
		o, w := strings.Join(old, ""), strings.Join(nw, "")
		if i%7 == 0 && len(w) > 0 {
			w = strings.TrimSuffix(w, "\n")
		}
		d := UnifiedDiff("f", []byte(o), []byte(w))
		assert.Equal(t, w, applyDiff(t, o, d), "case %d:\n%s", i, d)
	}
}

func TestCatalogHelpers(t *testing.T) {
	assert.Equal(t, "read_file", anchor("read_file"))
	assert.Equal(t, "fsread", anchor("fs.Read"))
	assert.Equal(t, "a \\| b<br>c", cell("a | b\nc"))
	assert.Equal(t, "`` a`b ``", code("a`b"))
	assert.Equal(t, "First sentence.", summary("First sentence. Second one.\n\nMore."))
	assert.Equal(t, "string or null", typeDesc(schemasubset.Nullable(schemasubset.String())))
	assert.Equal(t, "array of integer", typeDesc(schemasubset.Array(schemasubset.Integer())))
	assert.Equal(t, "object (open)", typeDesc(schemasubset.Object()))
	assert.Equal(t, "object", typeDesc(schemasubset.Object().Closed()))
	assert.Equal(t, "any JSON", typeDesc(schemasubset.Any()))
}

// TestSchemaLitCoversEveryKeyword checks that the literal emitter spells
// every keyword a node can carry, by emitting a node with all of them.
func TestSchemaLitCoversEveryKeyword(t *testing.T) {
	n := schemasubset.Object(
		schemasubset.Prop("s", schemasubset.String().WithTitle("T").WithDescription("D").
			WithDefault([]byte(`"a"`)).WithExamples([]byte(`["a"]`)).WithEnum([]byte(`"a"`), []byte(`"b"`))),
		schemasubset.Prop("c", schemasubset.Integer().WithConst([]byte(`1`))),
		schemasubset.Prop("arr", schemasubset.Array(nil)),
		schemasubset.Prop("o", schemasubset.Object().WithProperties().WithAdditionalProperties(true)),
		schemasubset.Prop("n", schemasubset.String().WithOneOf(schemasubset.String(), schemasubset.Null())),
	).WithRequired("s").Closed()
	got := fmt.Sprintf("%#v", schemaLit(n))
	for _, want := range []string{"WithTitle(\"T\")", "WithDescription(\"D\")", "WithDefault(", "WithExamples(", "WithEnum(", "WithConst(",
		"Array(nil)", "WithProperties()", "WithAdditionalProperties(true)", "WithOneOf(", "WithRequired(\"s\")", "Closed()"} {
		assert.Contains(t, got, want)
	}
}

// TestSpecLitCoversEveryKeyword checks that the Spec emitter spells every
// keyword, and falls back to the constructors for an empty title.
func TestSpecLitCoversEveryKeyword(t *testing.T) {
	n := schemasubset.Object(
		schemasubset.Prop("s", schemasubset.String().WithTitle("T").WithDescription("D").
			WithDefault([]byte(`"a"`)).WithExamples([]byte(`["a"]`)).WithEnum([]byte(`"a"`), []byte(`"b"`))),
		schemasubset.Prop("c", schemasubset.Integer().WithConst([]byte(`1`))),
		schemasubset.Prop("arr", schemasubset.Array(schemasubset.Integer())),
		schemasubset.Prop("o", schemasubset.Object().WithProperties().WithAdditionalProperties(true)),
		schemasubset.Prop("n", schemasubset.String().WithOneOf(schemasubset.String(), schemasubset.Null())),
		schemasubset.Prop("e", schemasubset.String().WithTitle("")),
	).WithRequired("s").Closed()
	got := strings.Join(strings.Fields(fmt.Sprintf("%#v", specLit(n, true))), " ")
	for _, want := range []string{"Title: \"T\"", "Description: \"D\"", "Default:", "Examples:", "Enum:", "Const:",
		"Items: &schemasubset.Spec{", "Properties: []schemasubset.SpecProperty{}", "AdditionalAllowed", "OneOf: []schemasubset.Spec{",
		"Required: []string{\"s\"}", "AdditionalForbidden", "Node: schemasubset.String().WithTitle(\"\")"} {
		assert.Contains(t, got, want)
	}
}

// FuzzUnifiedDiff checks that any diff applies back to its new side.
func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd")
	f.Add("", "x\n")
	f.Add("same\n", "same\n")
	f.Fuzz(func(t *testing.T, old, nw string) {
		if len(old) > 4096 || len(nw) > 4096 {
			return
		}
		d := UnifiedDiff("f", []byte(old), []byte(nw))
		if old == nw {
			require.Empty(t, d)
			return
		}
		if strings.Contains(old, "\n\\ No newline") || strings.Contains(nw, "\n\\ No newline") {
			return // the marker line itself is ambiguous in any unified diff
		}
		require.Equal(t, nw, applyDiff(t, old, d), "diff:\n%s", d)
	})
}
