package canon_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/internal/canon"
	"github.com/toolgen-go/toolgen/jsonvalue"
)

func TestString(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`""`, 2}, {`"abc"x`, 5}, {`"a\"b"`, 6}, {`"a\\"b`, 5}, {`"\\\""`, 6}, {`"\\\\"`, 6},
		{`"` + strings.Repeat("x", 40) + `"`, 42}, {`"` + strings.Repeat("x", 40) + `\"x"`, 45},
		{`"abc`, -1}, {`"`, -1}, {`"\"`, -1}, {`"` + strings.Repeat("y", 30), -1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, canon.String([]byte(tt.in), 0), tt.in)
	}
}

func TestNumberAndLiteral(t *testing.T) {
	for in, want := range map[string]int{
		"0": 1, "-0": 2, "12,": 2, "1.5e+3]": 6, "1E5": 3, "-": -1, "01": 1, "1.": -1, "1e": -1, ".5": -1, "": -1, "-a": -1,
	} {
		assert.Equal(t, want, canon.Number([]byte(in), 0), in)
	}
	for in, want := range map[string]int{"true": 4, "false,": 5, "null]": 4, "nul": -1, "tru": -1, "x": -1, "": -1} {
		assert.Equal(t, want, canon.Literal([]byte(in), 0), in)
	}
}

func TestSkip(t *testing.T) {
	for in, want := range map[string]int{
		`{"a":[1,{"b":"]"}],"c":null},`: 28, `[]x`: 2, `"s"`: 3, `-1.5,`: 4, `true`: 4,
		`[`: -1, `]`: -1, `{"a":1`: -1, `,`: -1, `[1,`: -1, `x`: -1, `["unterminated]`: -1,
	} {
		assert.Equal(t, want, canon.Skip([]byte(in), 0), in)
	}
	deep := strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000)
	assert.Equal(t, len(deep), canon.Skip([]byte(deep), 0), "deep nesting costs no stack")
}

func TestCanonicalString(t *testing.T) {
	good := []string{`""`, `"a"`, `"é😀"`, `"\"\\\b\f\n\r\t"`, `"\u0000\u001f\u000b"`, "\"\u2028<>&\x7f\""}
	bad := []string{``, `"`, `a`, `"a`, `"\/"`, `"\u0041"`, `"\u001F"`, `"\u000a"`, `"\u0008"`, "\"\t\"", "\"\xff\"",
		`"\x"`, `"\u00"`, `"a"b"`, `"\"`, `"\ud800"`}
	for _, s := range good {
		assert.True(t, canon.CanonicalString([]byte(s)), s)
		assert.True(t, canon.Scalar([]byte(s)), s)
	}
	for _, s := range bad {
		assert.False(t, canon.CanonicalString([]byte(s)), s)
	}
	assert.True(t, canon.Scalar([]byte("-1e5")))
	assert.True(t, canon.Scalar([]byte("null")))
	assert.False(t, canon.Scalar([]byte("nul")))
	assert.False(t, canon.Scalar([]byte("[]")))
	assert.False(t, canon.Scalar(nil))
}

// FuzzCanonicalString checks CanonicalString against jsontext: a string
// jsontext quotes is canonical, and a canonical string re-materializes to
// itself.
func FuzzCanonicalString(f *testing.F) {
	f.Add([]byte("a\"b\\\x01\x1f\n\xe2\x80\xa8"))
	f.Add([]byte(`"\u001f"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if q, err := jsontext.AppendQuote(nil, b); err == nil {
			require.True(t, canon.CanonicalString(q), "%q", q)
			require.Equal(t, len(q), canon.String(q, 0))
		}
		if canon.CanonicalString(b) {
			v, err := jsonvalue.Materialize(b)
			require.NoError(t, err)
			require.True(t, bytes.Equal(v, b), "%q re-materializes to %q", b, v)
		}
	})
}

// FuzzSkip checks that Skip finds exactly the end of every materialized
// value and never panics on other bytes.
func FuzzSkip(f *testing.F) {
	f.Add([]byte(`{"a":[1,"x\"]",{}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = canon.Skip(b, 0)
		if v, err := jsonvalue.Materialize(b); err == nil {
			require.Equal(t, len(v), canon.Skip(append(v, ','), 0))
		}
	})
}
