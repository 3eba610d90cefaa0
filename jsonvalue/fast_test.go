package jsonvalue_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/internal/conformance"
	"github.com/toolgen-go/toolgen/jsonvalue"
)

func TestFastPathTakesTypicalInput(t *testing.T) {
	for _, s := range []string{
		`{"path":"/src/main.go","offset":120,"limit":200}`,
		"{\n  \"a\": [1, 2.5e3, true, false, null],\n  \"b\": {\"c\": \"tab\\there \\\"quoted\\\" é ü 😀\"}\n}",
		`[]`, `{}`, `""`, `-0`, `[[[]]]`, `{"a":{},"b":[]}`,
	} {
		fast, ok := jsonvalue.FastPath([]byte(s), jsonvalue.DefaultMaxDepth)
		require.True(t, ok, s)
		slow, err := jsonvalue.MaterializeSlow([]byte(s), jsonvalue.DefaultMaxDepth)
		require.NoError(t, err)
		assert.Equal(t, string(slow), string(fast))
	}
	dir, ok := conformance.Find()
	if !ok {
		return
	}
	for _, p := range []string{"small", "medium", "nested"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "bench", p+".json"))
		require.NoError(t, err)
		_, ok := jsonvalue.FastPath(b, jsonvalue.DefaultMaxDepth)
		assert.True(t, ok, "the %s benchmark payload takes the fast path", p)
	}
}

func TestFastPathDefersWhatNeedsRewritingOrReporting(t *testing.T) {
	members := make([]string, 40)
	for i := range members {
		members[i] = `"k` + jsonvalue.Int(int64(i)).String() + `":1`
	}
	for _, s := range []string{
		`"\u0041"`, `"\/"`, `{"a":1,"a":2}`, "\"\xff\"", `01`, `1x`, `nulls`, `[1,]`, `{"a" 1}`, `[1] x`, `"a`,
		"\"\t\"", `{` + strings.Join(members, ",") + `}`, ``, ` `, `{"a":}`, `[}`, `{]`,
	} {
		_, ok := jsonvalue.FastPath([]byte(s), jsonvalue.DefaultMaxDepth)
		assert.False(t, ok, s)
	}
	_, ok := jsonvalue.FastPath([]byte(`[[1]]`), 1)
	assert.False(t, ok, "depth beyond the limit")
	v, err := jsonvalue.Materialize([]byte(`{` + strings.Join(members, ",") + `}`))
	require.NoError(t, err, "large objects still materialize, through jsontext")
	assert.Len(t, v, 2+len(strings.Join(members, ",")))
}

// FuzzFastPath holds the fast path to the jsontext path: whatever the fast
// path accepts, the jsontext path accepts with identical bytes.
func FuzzFastPath(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x\n",{"b":null}]}`, " [ 1 , 2 ] ", `{"a":1,"b":2,"a":3}`, `"é\t"`, `-1.5e+3`} {
		f.Add([]byte(s))
	}
	_, data := conformance.Samples()
	for _, b := range data {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fast, ok := jsonvalue.FastPath(raw, 8)
		slow, err := jsonvalue.MaterializeSlow(raw, 8)
		if ok {
			require.NoError(t, err, "fast path accepted %q", raw)
			require.Equal(t, string(slow), string(fast))
		}
		if jsonvalue.IsCanonical(raw) {
			v, err := jsonvalue.Materialize(raw)
			require.NoError(t, err)
			require.Equal(t, string(raw), string(v), "IsCanonical(%q) but it materializes differently", raw)
		}
		full, err2 := jsonvalue.Options{MaxDepth: 8}.Materialize(raw)
		require.Equal(t, err == nil, err2 == nil)
		if err == nil {
			require.Equal(t, string(slow), string(full))
		} else {
			require.Equal(t, err.Error(), err2.Error())
		}
	})
}

func TestIsCanonical(t *testing.T) {
	for _, s := range []string{`{"a":[1,2.0,"x\n"],"b":{}}`, `""`, `-0`, `[]`, `{"path":"/src/main.go","offset":120}`} {
		assert.True(t, jsonvalue.IsCanonical([]byte(s)), s)
		assert.Zero(t, testing.AllocsPerRun(10, func() { jsonvalue.IsCanonical([]byte(s)) }))
	}
	for _, s := range []string{` 1`, `1 `, `[1, 2]`, `{"a" :1}`, `{"a":1,"a":2}`, `"\u0041"`, `"\/"`, ``, `[1,]`, "\"\xff\""} {
		assert.False(t, jsonvalue.IsCanonical([]byte(s)), s)
	}
}

func TestValueValid(t *testing.T) {
	members := make([]string, 40)
	for i := range members {
		members[i] = `"k` + jsonvalue.Int(int64(i)).String() + `":1`
	}
	for _, s := range []string{`1`, `{"a":[1,"\u001f"]}`, `{` + strings.Join(members, ",") + `}`} {
		assert.True(t, jsonvalue.Value(s).Valid(), s)
	}
	for _, s := range []string{``, ` 1`, `{"a":1,"a":2}`, `"\u0041"`, `[1,]`} {
		assert.False(t, jsonvalue.Value(s).Valid(), s)
	}
}
