package annotations_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/annotations"
)

// wantErr is one expected error: its offset and a part of its message.
type wantErr struct {
	off int
	msg string
}

// checkErrs asserts that errs are exactly want, in order.
func checkErrs(t *testing.T, errs []*annotations.Error, want []wantErr) {
	t.Helper()
	got := make([]string, len(errs))
	for i, e := range errs {
		got[i] = e.Message
	}
	require.Len(t, errs, len(want), "errors: %q", got)
	for i, w := range want {
		assert.Equal(t, w.off, errs[i].Offset, "offset of error %d (%s)", i, errs[i].Message)
		assert.Contains(t, errs[i].Message, w.msg, "error %d", i)
		assert.Equal(t, errs[i].Message, errs[i].Error())
	}
}

// checkOffsets asserts that every error offset is within [0, n].
func checkOffsets(t *testing.T, errs []*annotations.Error, n int) {
	t.Helper()
	for _, e := range errs {
		require.NotNil(t, e)
		assert.GreaterOrEqual(t, e.Offset, 0, e.Message)
		assert.LessOrEqual(t, e.Offset, n, e.Message)
		assert.NotEmpty(t, e.Message)
	}
}
