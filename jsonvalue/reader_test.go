package jsonvalue_test

import (
	"math"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
)

func mustValue(t testing.TB, s string) jsonvalue.Value {
	t.Helper()
	v, err := jsonvalue.Materialize([]byte(s))
	require.NoError(t, err)
	return v
}

func TestReaderWalksAValue(t *testing.T) {
	v := mustValue(t, `{"path":"/x","n":-1.5e3,"ok":true,"no":false,"z":null,"list":[1,"a\"b",[],{}],"raw":{"k":[1]},"esc\\name":0}`)
	r := jsonvalue.NewReader(v)
	require.True(t, r.BeginObject())
	var names []string
	for {
		name, ok := r.NextName()
		if !ok {
			break
		}
		names = append(names, string(name))
		switch string(name) {
		case "path":
			assert.Equal(t, "/x", r.ReadString())
		case "n":
			assert.Equal(t, "-1.5e3", string(r.ReadNumber()))
		case "ok":
			assert.True(t, r.ReadBool())
		case "no":
			assert.False(t, r.ReadBool())
		case "z":
			assert.Equal(t, jsonvalue.KindNull, r.Peek())
			r.ReadNull()
		case "list":
			require.True(t, r.BeginArray())
			var kinds []jsonvalue.Kind
			for r.NextElement() {
				kinds = append(kinds, r.Peek())
				r.ReadValue()
			}
			assert.Equal(t, []jsonvalue.Kind{jsonvalue.KindNumber, jsonvalue.KindString, jsonvalue.KindArray, jsonvalue.KindObject}, kinds)
		case "raw":
			assert.Equal(t, `{"k":[1]}`, string(r.ReadValue()))
		default:
			assert.Equal(t, `esc\\name`, string(name))
			assert.Equal(t, `esc\name`, jsonvalue.Unescape(name))
			r.ReadValue()
		}
	}
	require.NoError(t, r.Done())
	assert.Equal(t, []string{"path", "n", "ok", "no", "z", "list", "raw", `esc\\name`}, names)
}

func TestReaderQuotedFormAliasesAndUnescapes(t *testing.T) {
	v := mustValue(t, `["plain","tab\tquote\"slash\\","\u0001"]`)
	r := jsonvalue.NewReader(v)
	r.BeginArray()
	var got []string
	for r.NextElement() {
		got = append(got, r.ReadString())
	}
	require.NoError(t, r.Done())
	assert.Equal(t, []string{"plain", "tab\tquote\"slash\\", "\x01"}, got)
}

func TestReaderStickyKindError(t *testing.T) {
	r := jsonvalue.NewReader(mustValue(t, `{"a":1}`))
	r.BeginObject()
	r.NextName()
	assert.Equal(t, "", r.ReadString())
	var ke *jsonvalue.KindError
	require.ErrorAs(t, r.Err(), &ke)
	assert.Equal(t, jsonvalue.KindString, ke.Want)
	assert.Equal(t, jsonvalue.KindNumber, ke.Got)
	assert.Equal(t, 5, ke.Offset)
	assert.Equal(t, "jsonvalue: want string, got number at offset 5", ke.Error())

	// Everything after the first problem is a no-op.
	assert.Nil(t, r.ReadNumber())
	_, ok := r.NextName()
	assert.False(t, ok)
	assert.Equal(t, jsonvalue.KindInvalid, r.Peek())
	r.Fail(assert.AnError)
	assert.ErrorAs(t, r.Err(), &ke, "the first error is kept")
}

func TestReaderFailRecordsSemanticError(t *testing.T) {
	r := jsonvalue.NewReader(mustValue(t, `[1]`))
	r.BeginArray()
	r.Fail(assert.AnError)
	assert.False(t, r.NextElement())
	assert.ErrorIs(t, r.Done(), assert.AnError)
}

func TestReaderNeverPanicsOnDamagedBytes(t *testing.T) {
	for _, s := range []string{
		"", "{", "[", "{\"a\"", "{\"a\":", `{"a":1,}`, `{"a"1}`, `[1,,2]`, `[1 2]`, `{,}`, `"abc`, `tru`, `-`, `1.`,
		`{"a":1]`, `[}`, `{"a":{"b":}}`, "\x00", `[1]x`,
	} {
		r := jsonvalue.NewReader(jsonvalue.Value(s))
		walk(r)
		assert.Error(t, r.Done(), "%q", s)
	}
}

// walk reads whatever value comes next, recursively.
func walk(r *jsonvalue.Reader) {
	switch r.Peek() {
	case jsonvalue.KindObject:
		r.BeginObject()
		for {
			if _, ok := r.NextName(); !ok {
				return
			}
			walk(r)
		}
	case jsonvalue.KindArray:
		r.BeginArray()
		for r.NextElement() {
			walk(r)
		}
	case jsonvalue.KindString:
		r.ReadQuoted()
	case jsonvalue.KindNumber:
		r.ReadNumber()
	case jsonvalue.KindTrue, jsonvalue.KindFalse:
		r.ReadBool()
	case jsonvalue.KindNull:
		r.ReadNull()
	default:
		r.ReadValue()
	}
}

// FuzzReader checks that walking any bytes never panics, and that walking a
// materialized value consumes it exactly.
func FuzzReader(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"\"x"}`, `[1,2`, `{"a"}`, `[[[]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		walk(jsonvalue.NewReader(raw))
		v, err := jsonvalue.Materialize(raw)
		if err != nil {
			return
		}
		r := jsonvalue.NewReader(v)
		walk(r)
		require.NoError(t, r.Done())
		assert.Equal(t, len(v), r.Offset())
	})
}

func TestConstructors(t *testing.T) {
	assert.Equal(t, `null`, jsonvalue.Null().String())
	assert.Equal(t, `true`, jsonvalue.Bool(true).String())
	assert.Equal(t, `false`, jsonvalue.Bool(false).String())
	assert.Equal(t, `"a\"b\n\u0001é<"`, jsonvalue.String("a\"b\n\x01é<").String())
	assert.Equal(t, "\"\uFFFD\"", jsonvalue.String("\xff").String())
	_, err := jsonvalue.StringStrict("\xff")
	assert.Error(t, err)
	s, err := jsonvalue.StringStrict("ok")
	require.NoError(t, err)
	assert.Equal(t, `"ok"`, s.String())
	assert.Equal(t, `-9223372036854775808`, jsonvalue.Int(math.MinInt64).String())
	assert.Equal(t, `18446744073709551615`, jsonvalue.Uint(math.MaxUint64).String())
	f, err := jsonvalue.Float(0.1)
	require.NoError(t, err)
	assert.Equal(t, `0.1`, f.String())
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := jsonvalue.Float(bad)
		assert.Error(t, err)
	}
	n, err := jsonvalue.Number("1e400")
	require.NoError(t, err)
	assert.Equal(t, "1e400", n.String())
	for _, bad := range []string{"", "01", "1.", "NaN", " 1"} {
		_, err := jsonvalue.Number(bad)
		assert.Error(t, err, bad)
	}

	// Every constructor's output is canonical: it re-materializes to itself.
	for _, v := range []jsonvalue.Value{jsonvalue.Null(), jsonvalue.Bool(true), jsonvalue.String("\t\"é\u2028"), jsonvalue.Int(-5), f, n} {
		assert.Equal(t, v.String(), mustValue(t, v.String()).String())
	}
}

func TestValueBasics(t *testing.T) {
	v := mustValue(t, `{"a":1}`)
	assert.Equal(t, jsonvalue.KindObject, v.Kind())
	assert.Equal(t, jsonvalue.KindInvalid, jsonvalue.Value(nil).Kind())
	assert.Equal(t, jsonvalue.KindNumber, jsonvalue.Value("-1").Kind())
	c := v.Clone()
	c[2] = 'b'
	assert.Equal(t, `{"a":1}`, v.String())
	assert.Nil(t, jsonvalue.Value(nil).Clone())
	assert.True(t, v.Equal(mustValue(t, ` { "a" : 1 } `)))
	assert.False(t, mustValue(t, `1`).Equal(mustValue(t, `1.0`)), "Equal keeps number spelling")
	for k, name := range map[jsonvalue.Kind]string{
		jsonvalue.KindNull: "null", jsonvalue.KindTrue: "boolean", jsonvalue.KindFalse: "boolean",
		jsonvalue.KindString: "string", jsonvalue.KindNumber: "number", jsonvalue.KindObject: "object",
		jsonvalue.KindArray: "array", jsonvalue.KindInvalid: "invalid",
	} {
		assert.Equal(t, name, k.String())
	}
}

// FuzzUnescape checks Unescape against jsontext.AppendUnquote on every
// canonical string.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "tab\there\n", "\x00\x1f", "é", "😀 astral", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := jsontext.AppendQuote(nil, s)
		if err != nil {
			t.Skip()
		}
		want, err := jsontext.AppendUnquote(nil, q)
		require.NoError(t, err)
		assert.Equal(t, string(want), jsonvalue.Unescape(q[1:len(q)-1]))
	})
}

// TestElements checks the element count decoders size slices with.
func TestElements(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{`[]`, 0}, {`[1]`, 1}, {`[1,2,3]`, 3}, {`["a,b","c\"],d",[1,2],{"x":[3,4]}]`, 4},
		{`["\\",","]`, 2}, {`{"a":1}`, 0}, {`[1,2`, 0},
	} {
		r := jsonvalue.NewReader(jsonvalue.Value(c.in))
		assert.Equal(t, c.want, r.Elements(), c.in)
		assert.Equal(t, 0, r.Offset(), "Elements must not consume")
	}
}
