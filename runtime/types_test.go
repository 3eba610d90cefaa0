package runtime_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

func TestContentBlockJSON(t *testing.T) {
	img := runtime.Image([]byte{0x89, 'P', 'N', 'G'}, "image/png")
	for _, b := range []runtime.ContentBlock{runtime.Text(""), runtime.Text("é\n\"x\""), img} {
		out, err := json.Marshal(b)
		require.NoError(t, err)
		var back runtime.ContentBlock
		require.NoError(t, json.Unmarshal(out, &back))
		assert.Equal(t, b, back)
	}
	out, _ := json.Marshal(runtime.Text(""))
	assert.Equal(t, `{"type":"text","text":""}`, string(out), "an empty text keeps its text member")
	out, _ = json.Marshal(img)
	assert.Equal(t, `{"type":"image","data":"iVBORw==","mimeType":"image/png"}`, string(out))

	for _, bad := range []runtime.ContentBlock{
		{Type: "audio"}, {Type: runtime.ContentText, Text: "\xff"}, {Type: runtime.ContentText, Data: "x"},
		{Type: runtime.ContentImage, Data: "!!", MimeType: "image/png"}, {Type: runtime.ContentImage, Data: "iVBORw=="},
		{Type: runtime.ContentImage, Data: "iVBORw==", MimeType: "image/png", Text: "t"},
	} {
		assert.Error(t, bad.Check(), "%+v", bad)
		_, err := json.Marshal(bad)
		assert.Error(t, err, "%+v", bad)
	}
	for _, bad := range []string{`{"type":"text"}x`, `{"type":"text","text":1}`, `{"type":"text","extra":1}`, `[]`,
		`{"type":"text","text":"a","text":"b"}`, `{"type":"video"}`, `{"type":"image","data":"!","mimeType":"a"}`} {
		var b runtime.ContentBlock
		assert.Error(t, json.Unmarshal([]byte(bad), &b), bad)
	}
}

func TestUserMessageJSON(t *testing.T) {
	m := runtime.UserMessage{Content: []runtime.ContentBlock{runtime.Text("hi")}, Source: "plugin", Meta: jsonvalue.Value(`{"n":1.0}`)}
	out, err := json.Marshal(m)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"user","content":[{"type":"text","text":"hi"}],"source":"plugin","meta":{"n":1.0}}`, string(out))
	assert.Equal(t, "user", m.Role())
	m.Meta = jsonvalue.Value(`{`)
	assert.Error(t, m.Check())
	m.Meta, m.Source = nil, "\xff"
	assert.Error(t, m.Check())
}

func TestResultInvariantsAndDurableJSON(t *testing.T) {
	ok := runtime.Success(jsonvalue.Value(`"v"`), []runtime.ContentBlock{runtime.Text("v")})
	require.NoError(t, ok.Check())
	assert.False(t, ok.IsError())
	assert.Equal(t, runtime.ErrorCode(""), ok.Code())
	fail := runtime.Fail(runtime.CodeDenied, "no")
	require.NoError(t, fail.Check())
	assert.Equal(t, runtime.CodeDenied, fail.Code())

	for _, bad := range []runtime.Result{
		{},
		{Value: jsonvalue.Value(`1`), Failure: &runtime.Failure{Message: "x"}},
		{Failure: &runtime.Failure{Message: "x"}, ConcludesTurn: true},
	} {
		assert.ErrorIs(t, bad.Check(), runtime.ErrInvalidResult)
	}

	out, err := json.Marshal(fail.Durable())
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"no"}],"isError":true,"error":{"message":"no","info":{"code":"DENIED"}}}`, string(out))
	ok.Meta = jsonvalue.Value(`{"m":1}`)
	out, err = json.Marshal(ok.Durable())
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"v"}],"isError":false,"meta":{"m":1}}`, string(out), "never the value")
}

func TestPostDecisionCheck(t *testing.T) {
	for _, d := range []runtime.PostDecision{runtime.Accept(), runtime.AcceptContent(nil), runtime.AcceptValue(jsonvalue.Value(`1`)),
		runtime.AcceptContent([]runtime.ContentBlock{runtime.Text("x")}), runtime.Block([]runtime.ContentBlock{runtime.Text("no")})} {
		assert.NoError(t, d.Check())
	}
	for _, d := range []runtime.PostDecision{
		{Kind: runtime.PostAccept, Content: []runtime.ContentBlock{}, Value: jsonvalue.Value(`1`)},
		{Kind: runtime.PostAccept, Feedback: []runtime.ContentBlock{}},
		{Kind: runtime.PostBlock, Value: jsonvalue.Value(`1`)},
		{Kind: 9},
	} {
		assert.ErrorIs(t, d.Check(), runtime.ErrInvalidDecision)
	}
}

func TestToolErrorIsNilSafe(t *testing.T) {
	var te *runtime.ToolError
	assert.Equal(t, "tool error", te.Error())
	assert.Nil(t, te.Unwrap())
	wrapped := &runtime.ToolError{Code: "X", Err: errBoom}
	assert.Equal(t, "boom", wrapped.Error())
	assert.True(t, errors.Is(wrapped, errBoom))
	assert.Equal(t, "parallel", runtime.Parallel.String())
	assert.Equal(t, "exclusive", runtime.ExecutionMode(7).String())
}

func TestZeroExecutionDescribesNoCall(t *testing.T) {
	var e runtime.Execution
	assert.Empty(t, e.CallID())
	assert.Empty(t, e.Name())
	assert.Nil(t, e.Arguments())
	assert.Nil(t, e.Agent())
	assert.True(t, e.Token().IsZero())
	assert.True(t, e.Parent().IsZero())
	assert.Zero(t, e.Timeout())
}
