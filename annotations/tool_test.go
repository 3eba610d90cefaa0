package annotations_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/annotations"
)

func TestParseToolAccepted(t *testing.T) {
	set := func(text string, off int) annotations.Value {
		return annotations.Value{Text: text, Offset: off, Set: true}
	}
	tests := []struct {
		args string
		want annotations.ToolOptions
	}{
		{args: "", want: annotations.ToolOptions{}},
		{args: " \t ", want: annotations.ToolOptions{}},
		{args: "name=read_file", want: annotations.ToolOptions{Name: set("read_file", 5)}},
		{args: "name=a.b-c_D9", want: annotations.ToolOptions{Name: set("a.b-c_D9", 5)}},
		{args: "name=" + strings.Repeat("x", 128), want: annotations.ToolOptions{Name: set(strings.Repeat("x", 128), 5)}},
		{args: "timeout=30s", want: annotations.ToolOptions{Timeout: set("30s", 8), TimeoutValue: 30 * time.Second}},
		{args: "timeout=1h2m3.5s", want: annotations.ToolOptions{Timeout: set("1h2m3.5s", 8), TimeoutValue: time.Hour + 2*time.Minute + 3500*time.Millisecond}},
		{args: "concurrency=safe", want: annotations.ToolOptions{Concurrency: set("safe", 12)}},
		{args: "concurrency=exclusive", want: annotations.ToolOptions{Concurrency: set("exclusive", 12)}},
		{args: "concurrency=classify", want: annotations.ToolOptions{Concurrency: set("classify", 12)}},
		{args: "concurrency=Classify", want: annotations.ToolOptions{Concurrency: set("Classify", 12)}},
		{args: "render=renderFile", want: annotations.ToolOptions{Render: set("renderFile", 7)}},
		{args: "meta=Meta", want: annotations.ToolOptions{Meta: set("Meta", 5)}},
		{args: "present_call=pc", want: annotations.ToolOptions{PresentCall: set("pc", 13)}},
		{args: "present_result=pr", want: annotations.ToolOptions{PresentResult: set("pr", 15)}},
		{args: "finalize=fin", want: annotations.ToolOptions{Finalize: set("fin", 9)}},
		{args: "render=ÄndernSie", want: annotations.ToolOptions{Render: set("ÄndernSie", 7)}},
		{
			args: "name=x  timeout=2m\tconcurrency=safe render=r meta=m present_call=c present_result=p finalize=f",
			want: annotations.ToolOptions{
				Name: set("x", 5), Timeout: set("2m", 16), TimeoutValue: 2 * time.Minute,
				Concurrency: set("safe", 31), Render: set("r", 43), Meta: set("m", 50),
				PresentCall: set("c", 65), PresentResult: set("p", 82), Finalize: set("f", 93),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got, errs := annotations.ParseTool(tt.args)
			require.Empty(t, errs)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseToolErrors(t *testing.T) {
	tests := []struct {
		args string
		want []wantErr
	}{
		{"presentcall=f", []wantErr{{0, "unknown option presentcall=; did you mean present_call=?"}}},
		{"Timeout=1s", []wantErr{{0, "did you mean timeout=?"}}},
		{"nmae=x", []wantErr{{0, "unknown option nmae=; did you mean name=?"}}},
		{"timoeut=1s", []wantErr{{0, "did you mean timeout=?"}}},
		{"frob=1", []wantErr{{0, "unknown option frob=; the options are name=, timeout=, concurrency=, render=, meta=, present_call=, present_result= and finalize="}}},
		{"timeout=1s timeout=2s", []wantErr{{11, "duplicate option timeout=; give each option once"}}},
		{"timeout=x timeout=2s", []wantErr{{8, "timeout=x is not a Go duration"}, {10, "duplicate option timeout="}}},
		{"safe", []wantErr{{0, `option "safe" has no value; write key=value, here concurrency=safe`}}},
		{"name=x exclusive", []wantErr{{7, `option "exclusive" has no value; write key=value`}}},
		{"timeout", []wantErr{{0, `option "timeout" has no value; write key=value, such as timeout=30s`}}},
		{"frob", []wantErr{{0, `option "frob" has no value; write key=value`}}},
		{"=x", []wantErr{{0, `option "=x" has no key; write key=value`}}},
		{"name=", []wantErr{{0, "name= needs a value; write name=read_file"}}},
		{"render=", []wantErr{{0, "render= needs a value; write render=FuncName"}}},
		{"name=a/b", []wantErr{{5, "name=a/b is not a valid tool name; use 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'"}}},
		{"name=" + strings.Repeat("x", 129), []wantErr{{5, "is not a valid tool name"}}},
		{"name=ä", []wantErr{{5, "is not a valid tool name"}}},
		{"timeout=30", []wantErr{{8, "timeout=30 is not a Go duration; write a number with a unit, such as timeout=30s"}}},
		{"timeout=abc", []wantErr{{8, "timeout=abc is not a Go duration"}}},
		{"timeout=0s", []wantErr{{8, "timeout=0s must be positive, such as timeout=30s"}}},
		{"timeout=0", []wantErr{{8, "timeout=0 must be positive"}}},
		{"timeout=-5s", []wantErr{{8, "timeout=-5s must be positive"}}},
		{"timeout=99999999999h", []wantErr{{8, "is not a Go duration"}}},
		{"concurrency=a-b", []wantErr{{12, "concurrency=a-b is not safe, exclusive or a Go identifier; write concurrency=safe, concurrency=exclusive or concurrency=Name naming a classifier function func(P) bool of this package"}}},
		{"concurrency=pkg.F", []wantErr{{12, "concurrency=pkg.F must name a function of this package"}}},
		{"concurrency=func", []wantErr{{12, "is not safe, exclusive or a Go identifier"}}},
		{"concurrency=_", []wantErr{{12, "concurrency=_ names no function"}}},
		{"render=pkg.F", []wantErr{{7, "render=pkg.F must name a function of this package, without a package qualifier; write render=Name naming a function of this package"}}},
		{"meta=1x", []wantErr{{5, "meta=1x is not a Go identifier; write meta=Name naming a function of this package"}}},
		{"present_call=a.b.c", []wantErr{{13, "present_call=a.b.c is not a Go identifier"}}},
		{"present_result=type", []wantErr{{15, "present_result=type is not a Go identifier"}}},
		{"finalize=_", []wantErr{{9, "finalize=_ names no function"}}},
		{"finalize=f()", []wantErr{{9, "finalize=f() is not a Go identifier"}}},
		{"name=a=b", []wantErr{{5, "name=a=b is not a valid tool name"}}},
		{
			"safe  frob=1 name=x name=y timeout=0s render=",
			[]wantErr{{0, `"safe" has no value`}, {6, "unknown option frob="}, {20, "duplicate option name="}, {35, "must be positive"}, {38, "render= needs a value"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			_, errs := annotations.ParseTool(tt.args)
			checkErrs(t, errs, tt.want)
		})
	}
}

func TestParseToolOnlyValidSet(t *testing.T) {
	got, errs := annotations.ParseTool("name=a/b timeout=0s concurrency=x.y render=1 meta=1 present_call=1 present_result=1 finalize=1")
	require.Len(t, errs, 8)
	assert.Equal(t, annotations.ToolOptions{}, got)

	got, errs = annotations.ParseTool("name=ok name=other")
	require.Len(t, errs, 1)
	assert.Equal(t, "ok", got.Name.Text, "the first of two duplicates counts")
}
