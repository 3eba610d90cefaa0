package schemasubset_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/internal/conformance"
	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

const metaSchema2020 = "https://json-schema.org/draft/2020-12/schema"

// stripRootSchema is the corpus's one harness step: drop a root "$schema"
// member whose value is exactly the 2020-12 meta-schema URI. It works on the
// materialized schema and leaves everything else, nested $schema included.
func stripRootSchema(t *testing.T, raw []byte) []byte {
	v, err := jsonvalue.Materialize(raw)
	require.NoError(t, err)
	if v.Kind() != jsonvalue.KindObject {
		return v
	}
	r := jsonvalue.NewReader(v)
	r.BeginObject()
	out := []byte{'{'}
	for {
		name, ok := r.NextName()
		if !ok {
			break
		}
		val := r.ReadValue()
		if string(name) == "$schema" && val.Equal(jsonvalue.String(metaSchema2020)) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, jsonvalue.String(jsonvalue.Unescape(name))...)
		out = append(out, ':')
		out = append(out, val...)
	}
	require.NoError(t, r.Done())
	return append(out, '}')
}

func schemaPaths(err error) []string {
	var se *schemasubset.SchemaError
	if !errors.As(err, &se) {
		return nil
	}
	var out []string
	for _, is := range se.Issues {
		out = append(out, is.Pointer)
	}
	return out
}

// checkTests validates every test of a supported group and reports how many
// ran.
// The same schema written as a Spec must build an equal node that gives
// every test the same verdict and error.
func checkTests(t *testing.T, where string, n *schemasubset.Node, tests []conformance.Test) int {
	built := schemasubset.Build(specOf(n))
	require.True(t, built.Equal(n), "%s: Build of its Spec", where)
	for _, tc := range tests {
		v, err := jsonvalue.Materialize(tc.Data)
		require.NoError(t, err, "%s: %s: data must materialize", where, tc.Description)
		verr := schemasubset.Validate(n, v)
		assert.Equal(t, verr, schemasubset.Validate(built, v), "%s: %s: the built node's verdict", where, tc.Description)
		if tc.Valid {
			assert.NoError(t, verr, "%s: %s: %s", where, tc.Description, tc.Data)
		} else if assert.Error(t, verr, "%s: %s: %s", where, tc.Description, tc.Data) {
			var ve *schemasubset.ValidationError
			require.ErrorAs(t, verr, &ve)
			assert.NotEqual(t, schemasubset.RuleInvalidValue, ve.Rule, "%s: %s", where, tc.Description)
			assert.NotEqual(t, schemasubset.RuleUnsupportedSchema, ve.Rule, "%s: %s", where, tc.Description)
		}
	}
	return len(tests)
}

// TestConformanceSuite runs the official JSON-Schema-Test-Suite draft
// 2020-12 groups as ../shared/conformance/README.md prescribes.
func TestConformanceSuite(t *testing.T) {
	dir := conformance.Dir(t)
	exp, err := conformance.LoadExpectations(dir)
	require.NoError(t, err)
	require.Len(t, exp.Groups, exp.Counts.Groups)

	files := map[string][]conformance.Group{}
	var supported, unsupported, tests, asIsRejected int
	for _, e := range exp.Groups {
		groups, ok := files[e.File]
		if !ok {
			groups, err = conformance.LoadSuiteFile(dir, exp, e.File)
			require.NoError(t, err)
			files[e.File] = groups
		}
		require.Less(t, e.Group, len(groups), e.File)
		g := groups[e.Group]
		require.Equal(t, e.Description, g.Description, "%s #%d", e.File, e.Group)
		require.Len(t, g.Tests, e.TestCount)
		where := e.File + " #" + itoa(e.Group) + " " + e.Description

		// Without the harness step nothing in the suite is supported.
		if !e.SupportedAsIs {
			_, err := schemasubset.Parse(g.Schema)
			if assert.Error(t, err, "%s: the literal schema must be rejected", where) {
				asIsRejected++
			}
		}

		n, err := schemasubset.Parse(stripRootSchema(t, g.Schema))
		if !e.Supported {
			unsupported++
			if assert.Error(t, err, "%s: want unsupported (%s)", where, e.Reason) {
				got := schemaPaths(err)
				for _, want := range e.Errors {
					assert.Contains(t, got, want.Path, "%s: every reference location is reported (%s)", where, want.Message)
				}
			}
			continue
		}
		if !assert.NoError(t, err, where) {
			continue
		}
		supported++
		tests += checkTests(t, where, n, g.Tests)
	}
	assert.Equal(t, exp.Counts.Supported, supported)
	assert.Equal(t, exp.Counts.Groups-exp.Counts.Supported, unsupported)
	assert.Equal(t, exp.Counts.InSupport, tests)
	t.Logf("suite: %d files, %d groups: %d supported with %d tests validated, %d unsupported; %d literal schemas rejected",
		len(files), len(exp.Groups), supported, tests, unsupported, asIsRejected)
}

// TestConformanceExtra runs the hand-made subset cases, with no stripping.
func TestConformanceExtra(t *testing.T) {
	dir := conformance.Dir(t)
	groups, err := conformance.LoadExtra(dir)
	require.NoError(t, err)
	require.NotEmpty(t, groups)

	var supported, unsupported, tests, exact, objectRoots int
	for i, g := range groups {
		where := "extra #" + itoa(i) + " " + g.Description
		n, err := schemasubset.Parse(g.Schema)
		if !g.Supported {
			unsupported++
			if assert.Error(t, err, "%s: want unsupported (%s)", where, g.Reason) {
				ptr, _, _ := strings.Cut(g.Reason, ": ")
				if ptr == "(root)" {
					ptr = ""
				}
				assert.Contains(t, schemaPaths(err), ptr, "%s: the reference location %q is reported; got %v", where, ptr, err)
			}
			continue
		}
		if !assert.NoError(t, err, where) {
			continue
		}
		supported++
		tests += checkTests(t, where, n, g.Tests)
		if strings.HasPrefix(g.Note, "exact-number:") {
			exact++
		}
		if strings.Contains(g.Note, "AssertObject") || strings.Contains(g.Note, "object-root check") {
			objectRoots++
			var se *schemasubset.SchemaError
			require.ErrorAs(t, schemasubset.AssertObject(n), &se, "%s: an object-root check rejects it", where)
			assert.Equal(t, schemasubset.IssueNotObjectRoot, se.Issues[0].Code)
		} else if n.Type() == schemasubset.TypeObject {
			assert.NoError(t, schemasubset.AssertObject(n), where)
		}
	}
	assert.Positive(t, exact)
	assert.Positive(t, objectRoots)
	t.Logf("extra: %d cases: %d supported with %d tests validated (%d exact-number cases, %d non-object roots), %d unsupported",
		len(groups), supported, tests, exact, objectRoots, unsupported)
}

func itoa(i int) string { return jsonvalue.Int(int64(i)).String() }
