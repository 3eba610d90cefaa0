package jsonvalue_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/internal/conformance"
	"github.com/toolgen-go/toolgen/jsonvalue"
)

func TestMaterializeCanonicalForm(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"scalar", `  true `, `true`},
		{"null", "\n\tnull\r\n", `null`},
		{"whitespace removed", "{ \"a\" : [ 1 , 2 ] ,\n \"b\" : { } }", `{"a":[1,2],"b":{}}`},
		{"member order kept", `{"z":1,"a":2,"m":3}`, `{"z":1,"a":2,"m":3}`},
		{"number text kept", `[12345678901234567890123, 1.0, 1E+2, -0, 1e400, 0.1000000000000000000001]`,
			`[12345678901234567890123,1.0,1E+2,-0,1e400,0.1000000000000000000001]`},
		{"escapes canonicalized", `"\u0041\/\u00e9\u001F\n\u000a"`, `"A/é\u001f\n\n"`},
		{"surrogate pair decoded", `"\ud83d\ude00"`, `"😀"`},
		{"html kept", `"<a&b>"`, `"<a&b>"`},
		{"line separators kept", "\"\u2028\u2029\"", "\"\u2028\u2029\""},
		{"quote and backslash", `"a\"b\\c"`, `"a\"b\\c"`},
		{"empty containers", `[{},[],""]`, `[{},[],""]`},
		{"same name in sibling objects", `[{"a":1},{"a":2}]`, `[{"a":1},{"a":2}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := jsonvalue.Materialize([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(v))
			again, err := jsonvalue.Materialize(v)
			require.NoError(t, err)
			assert.Equal(t, string(v), string(again), "materializing is idempotent")
		})
	}
}

func TestMaterializeRejects(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		kind   jsonvalue.ErrorKind
		offset int64
	}{
		{"empty", ``, jsonvalue.Truncated, 0},
		{"only whitespace", "  \n", jsonvalue.Truncated, 3},
		{"truncated object", `{"a":1`, jsonvalue.Truncated, 6},
		{"truncated string", `"abc`, jsonvalue.Truncated, 4},
		{"trailing comma", `[1,]`, jsonvalue.InvalidSyntax, 3},
		{"missing colon", `{"a" 1}`, jsonvalue.InvalidSyntax, 5},
		{"NaN", `NaN`, jsonvalue.InvalidSyntax, 0},
		{"Infinity", `[Infinity]`, jsonvalue.InvalidSyntax, 1},
		{"leading zero", `[01]`, jsonvalue.InvalidSyntax, 2},
		{"leading zero at the top level ends the value", `01`, jsonvalue.TrailingData, 1},
		{"single quotes", `{'a':1}`, jsonvalue.InvalidSyntax, 1},
		{"control character in string", "[\"a\tb\"]", jsonvalue.InvalidSyntax, 3},
		{"bad escape", `"\x"`, jsonvalue.InvalidSyntax, 1},
		{"invalid UTF-8 in string", "{\"a\":\"x\xff\"}", jsonvalue.InvalidUTF8, 7},
		{"invalid UTF-8 in name", "{\"\xc3\":1}", jsonvalue.InvalidUTF8, 2},
		{"encoded surrogate in UTF-8", "\"\xed\xa0\x80\"", jsonvalue.InvalidUTF8, 1},
		{"invalid UTF-8 outside strings", "[\xff]", jsonvalue.InvalidUTF8, 1},
		{"lone high surrogate", `["\ud800"]`, jsonvalue.LoneSurrogate, 2},
		{"lone low surrogate", `["\uDC00x"]`, jsonvalue.LoneSurrogate, 2},
		{"high surrogate then letter", `"\ud800\u0041"`, jsonvalue.LoneSurrogate, 1},
		{"duplicate name", `{"a":1,"a":2}`, jsonvalue.DuplicateName, 7},
		{"duplicate name spelled differently", `{"a":1,"\u0061":2}`, jsonvalue.DuplicateName, 7},
		{"nested duplicate", `{"a":{"b":[1,{"c":1,"c":2}]}}`, jsonvalue.DuplicateName, 20},
		{"trailing value", `[1] [2]`, jsonvalue.TrailingData, 4},
		{"trailing garbage", `{} x`, jsonvalue.TrailingData, 3},
		{"two scalars", `1 2`, jsonvalue.TrailingData, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := jsonvalue.Materialize([]byte(tt.in))
			assert.Nil(t, v)
			var se *jsonvalue.SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.kind, se.Kind, "kind (%v)", err)
			assert.Equal(t, tt.offset, se.Offset, "offset (%v)", err)
			assert.Contains(t, err.Error(), "offset")
		})
	}
}

func TestMaterializePointerInError(t *testing.T) {
	_, err := jsonvalue.Materialize([]byte(`{"a":{"b":[1,{"c":1,"c":2}]}}`))
	var se *jsonvalue.SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "/a/b/1/c", se.Pointer)
	assert.Contains(t, err.Error(), `"c"`)
}

func nest(depth int, open, close, inner string) string {
	return strings.Repeat(open, depth) + inner + strings.Repeat(close, depth)
}

func TestMaterializeDepthLimit(t *testing.T) {
	_, err := jsonvalue.Materialize([]byte(nest(jsonvalue.DefaultMaxDepth, "[", "]", "")))
	require.NoError(t, err, "exactly the limit is accepted")
	_, err = jsonvalue.Materialize([]byte(nest(jsonvalue.DefaultMaxDepth/2, `{"a":[`, `]}`, "1")))
	require.NoError(t, err)

	_, err = jsonvalue.Materialize([]byte(nest(jsonvalue.DefaultMaxDepth+1, "[", "]", "")))
	var se *jsonvalue.SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, jsonvalue.TooDeep, se.Kind)
	assert.Equal(t, int64(jsonvalue.DefaultMaxDepth), se.Offset)
	assert.Contains(t, err.Error(), "512")

	// Brackets inside strings do not count.
	many := `["` + strings.Repeat("[{", 1000) + `"]`
	_, err = jsonvalue.Materialize([]byte(many))
	require.NoError(t, err)
	many = `["\"` + strings.Repeat("[{", 1000) + `"]`
	_, err = jsonvalue.Materialize([]byte(many))
	require.NoError(t, err)

	// The limit is settable, and clamped to what the parser supports.
	opts := jsonvalue.Options{MaxDepth: 3}
	_, err = opts.Materialize([]byte(`[[[1]]]`))
	require.NoError(t, err)
	_, err = opts.Materialize([]byte(`[[[[1]]]]`))
	require.ErrorAs(t, err, &se)
	assert.Equal(t, jsonvalue.TooDeep, se.Kind)
	assert.Equal(t, int64(3), se.Offset)

	deep := []byte(nest(jsonvalue.MaxDepthLimit, "[", "]", ""))
	_, err = jsonvalue.Options{MaxDepth: 1 << 30}.Materialize(deep)
	require.NoError(t, err)
	_, err = jsonvalue.Options{MaxDepth: 1 << 30}.Materialize([]byte(nest(jsonvalue.MaxDepthLimit+1, "[", "]", "")))
	require.ErrorAs(t, err, &se)
	assert.Equal(t, jsonvalue.TooDeep, se.Kind)
}

func TestMaterializeDepthErrorYieldsToEarlierSyntaxError(t *testing.T) {
	in := `[1 2,` + nest(600, "[", "]", "") + `]`
	_, err := jsonvalue.Materialize([]byte(in))
	var se *jsonvalue.SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, jsonvalue.InvalidSyntax, se.Kind)
	assert.Equal(t, int64(3), se.Offset)
}

func TestMaterializeHostileSizes(t *testing.T) {
	for _, in := range []string{
		nest(100_000, "[", "]", ""),
		nest(100_000, `{"a":`, "}", "1"),
		nest(100_000, "[", "", ""),
		strings.Repeat("[", 100_000) + `"` + strings.Repeat("]", 100_000),
	} {
		_, err := jsonvalue.Materialize([]byte(in))
		var se *jsonvalue.SyntaxError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, jsonvalue.TooDeep, se.Kind)
	}

	big := `{"s":"` + strings.Repeat("é\\n", 10<<20/4) + `"}`
	v, err := jsonvalue.Materialize([]byte(big))
	require.NoError(t, err)
	assert.Equal(t, big, string(v))

	_, err = jsonvalue.Materialize([]byte(`"` + strings.Repeat("a", 10<<20)))
	var se *jsonvalue.SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, jsonvalue.Truncated, se.Kind)
}

func TestMaterializeDoesNotAlias(t *testing.T) {
	in := []byte(`{"a":"b"}`)
	v, err := jsonvalue.Materialize(in)
	require.NoError(t, err)
	copy(in, `{"x":"y"}`)
	assert.Equal(t, `{"a":"b"}`, string(v))

	w, err := jsonvalue.Materialize([]byte(`{"c":"d"}`))
	require.NoError(t, err)
	assert.Equal(t, `{"a":"b"}`, string(v), "a pooled buffer is never shared with a result")
	assert.Equal(t, `{"c":"d"}`, string(w))
}

func TestMaterializeConcurrent(t *testing.T) {
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				in := []byte(`{"g":` + jsonvalue.Int(int64(g)).String() + `,"i":` + jsonvalue.Int(int64(i)).String() + `}`)
				v, err := jsonvalue.Materialize(in)
				assert.NoError(t, err)
				assert.Equal(t, string(in), string(v))
			}
		}()
	}
	for range 8 {
		<-done
	}
}

func TestErrorKindString(t *testing.T) {
	assert.Equal(t, "duplicate-name", jsonvalue.DuplicateName.String())
	assert.Equal(t, "too-deep", jsonvalue.TooDeep.String())
	assert.Equal(t, "ErrorKind(99)", jsonvalue.ErrorKind(99).String())
}

func TestSyntaxErrorUnwrapsParserError(t *testing.T) {
	_, err := jsonvalue.Materialize([]byte(`[1,]`))
	require.Error(t, err)
	assert.NotNil(t, errors.Unwrap(err), "the jsontext error stays reachable")
}

func TestValueJSONMethods(t *testing.T) {
	type wrap struct {
		V jsonvalue.Value `json:"v"`
		E jsonvalue.Value `json:"e"`
	}
	var w wrap
	require.NoError(t, json.Unmarshal([]byte(`{"v": { "n" : 1.50 }}`), &w))
	assert.Equal(t, `{"n":1.50}`, string(w.V))
	out, err := json.Marshal(w)
	require.NoError(t, err)
	assert.Equal(t, `{"v":{"n":1.50},"e":null}`, string(out))

	require.Error(t, json.Unmarshal([]byte(`{"v": {"a":1,"a":2}}`), &w))
}

// FuzzMaterialize checks that Materialize never panics, that what it accepts
// is valid JSON meaning the same as the input, and that a result
// re-materializes to itself.
func FuzzMaterialize(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.0,"x"]}`, `"\ud800"`, `{"a":1,"a":2}`, "\"\xff\"", `[1] 2`, `1e400`, `"\u00e9\/"`} {
		f.Add([]byte(s))
	}
	schemas, data := conformance.Samples()
	for _, b := range append(schemas, data...) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonvalue.Materialize(raw)
		if err != nil {
			var se *jsonvalue.SyntaxError
			require.ErrorAs(t, err, &se)
			require.NotZero(t, se.Kind)
			require.True(t, se.Offset >= 0 && se.Offset <= int64(len(raw)), "offset %d in %d bytes", se.Offset, len(raw))
			return
		}
		require.True(t, json.Valid(raw), "accepted input is JSON")
		again, err := jsonvalue.Materialize(v)
		require.NoError(t, err)
		require.Equal(t, string(v), string(again))
		require.True(t, inStrings(v), "canonical form has no whitespace outside strings")

		var x, y any
		dx := json.NewDecoder(bytes.NewReader(raw))
		dx.UseNumber()
		require.NoError(t, dx.Decode(&x))
		dy := json.NewDecoder(bytes.NewReader(v))
		dy.UseNumber()
		require.NoError(t, dy.Decode(&y))
		require.Equal(t, x, y, "materializing keeps the meaning")
	})
}

// inStrings reports whether every whitespace byte of a canonical value lies
// inside a string.
func inStrings(v []byte) bool {
	in := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return false
		}
	}
	return true
}
