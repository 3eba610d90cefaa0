package reflecttool_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/reflecttool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// readArgs are the parameters of the read_file fixture; Offset is an int8
// so that a value the schema accepts can still be out of the Go range.
type readArgs struct {
	Path   string      `json:"path"`
	Offset int8        `json:"offset,omitempty"`
	Limit  int         `json:"limit,omitempty"`
	Window *readWindow `json:"window,omitempty"`
}

type readWindow struct {
	From int `json:"from"`
}

type readResult struct {
	Path  string   `json:"path"`
	Lines []string `json:"lines"`
	Total int      `json:"total"`
}

// errFixture is what the fixture returns for the path "/fail".
var errFixture = errors.New("disk on fire")

// readFile is the fixture body: it echoes its arguments, and fails for a
// few magic paths.
func readFile(_ context.Context, a readArgs) (readResult, error) {
	switch a.Path {
	case "/fail":
		return readResult{}, errFixture
	case "/missing":
		return readResult{}, &runtime.ToolError{Code: "FILE_NOT_FOUND", Message: "no such file: " + a.Path}
	case "/nil-lines":
		return readResult{Path: a.Path}, nil
	}
	lines := []string{}
	for i := range a.Limit {
		lines = append(lines, string(rune('a'+i)))
	}
	return readResult{Path: a.Path, Lines: lines, Total: int(a.Offset)}, nil
}

func newReadFile(t *testing.T) runtime.ToolDefinition {
	t.Helper()
	def, err := reflecttool.New("read_file", "Reads a file.", readFile, reflecttool.Options{})
	require.NoError(t, err)
	return def
}

func run(t *testing.T, ctx context.Context, def runtime.ToolDefinition, args string) runtime.Result {
	t.Helper()
	rt := runtime.New()
	_, err := rt.Register(def)
	require.NoError(t, err)
	return rt.Execute(ctx, runtime.ExecutionInput{CallID: "c1", Name: def.Name, Arguments: []byte(args)})
}

func TestNewDefinition(t *testing.T) {
	def := newReadFile(t)
	params, err := reflecttool.ParamsSchema(reflect.TypeFor[readArgs](), reflecttool.Options{})
	require.NoError(t, err)
	output, err := reflecttool.OutputSchema(reflect.TypeFor[readResult](), reflecttool.Options{})
	require.NoError(t, err)

	assert.Equal(t, "read_file", def.Name)
	assert.Equal(t, "Reads a file.", def.Description)
	assert.True(t, def.ValidatesArguments)
	assert.Nil(t, def.Output.Validate)
	assert.NotNil(t, def.Output.Render)
	assert.Zero(t, def.Timeout)
	assert.Nil(t, def.ConcurrencySafe)
	assert.Nil(t, def.FinalizeContent)

	want, err := params.MarshalJSON()
	require.NoError(t, err)
	got, err := def.Parameters.MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
	want, err = output.MarshalJSON()
	require.NoError(t, err)
	got, err = def.Output.Schema.MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))

	value := jsonvalue.Value(`{"path":"x","lines":[],"total":0}`)
	content, err := def.Output.Render(jsonvalue.Value(`{"path":"x"}`), value)
	require.NoError(t, err)
	assert.Equal(t, []runtime.ContentBlock{runtime.Text(string(value))}, content)
}

func TestExecute(t *testing.T) {
	tests := []struct {
		name string
		args string
		// want is the value of a success; empty for a failure.
		want string
		code runtime.ErrorCode
		// contains are substrings of the failure message.
		contains []string
	}{
		{
			name: "valid",
			args: `{"path":"/tmp/x.go","offset":10,"limit":2}`,
			want: `{"path":"/tmp/x.go","lines":["a","b"],"total":10}`,
		},
		{
			name: "optional fields absent",
			args: `{"path":"/tmp/x.go"}`,
			want: `{"path":"/tmp/x.go","lines":[],"total":0}`,
		},
		{
			name: "unknown top-level key ignored",
			args: `{"path":"/p","extra":{"deep":[1,2]}}`,
			want: `{"path":"/p","lines":[],"total":0}`,
		},
		{
			name: "nested struct decoded",
			args: `{"path":"/p","window":{"from":3}}`,
			want: `{"path":"/p","lines":[],"total":0}`,
		},
		{
			name:     "missing required field",
			args:     `{"offset":1}`,
			code:     runtime.CodeInvalidArgs,
			contains: []string{"invalid arguments: ", "path"},
		},
		{
			name:     "wrong type",
			args:     `{"path":5}`,
			code:     runtime.CodeInvalidArgs,
			contains: []string{"invalid arguments: ", "/path"},
		},
		{
			name:     "wrong type nested",
			args:     `{"path":"/p","window":{"from":"three"}}`,
			code:     runtime.CodeInvalidArgs,
			contains: []string{"invalid arguments: ", "/window/from"},
		},
		{
			name:     "unknown nested key",
			args:     `{"path":"/p","window":{"from":1,"to":2}}`,
			code:     runtime.CodeInvalidArgs,
			contains: []string{"invalid arguments: ", "/window/to"},
		},
		{
			name:     "not an integer",
			args:     `{"path":"/p","limit":1.5}`,
			code:     runtime.CodeInvalidArgs,
			contains: []string{"invalid arguments: ", "/limit"},
		},
		{
			name:     "null for a required string",
			args:     `{"path":null}`,
			code:     runtime.CodeInvalidArgs,
			contains: []string{"invalid arguments: ", "/path"},
		},
		{
			name:     "int8 out of range",
			args:     `{"path":"/p","offset":300}`,
			code:     runtime.CodeInvalidArgs,
			contains: []string{"invalid arguments: ", "offset", "int8"},
		},
		{
			name:     "int8 out of range in exponent form",
			args:     `{"path":"/p","offset":1e3}`,
			code:     runtime.CodeInvalidArgs,
			contains: []string{"invalid arguments: ", "int8"},
		},
		{
			name:     "arguments not an object",
			args:     `[1]`,
			code:     runtime.CodeInvalidArgs,
			contains: []string{"invalid arguments: "},
		},
		{
			name:     "tool error",
			args:     `{"path":"/fail"}`,
			code:     runtime.CodeToolError,
			contains: []string{"disk on fire"},
		},
		{
			name:     "tool's own error code kept",
			args:     `{"path":"/missing"}`,
			code:     "FILE_NOT_FOUND",
			contains: []string{"no such file: /missing"},
		},
		{
			// encoding/json writes a nil slice as null, which the
			// reflected array schema refuses.
			name:     "nil slice breaks the output schema",
			args:     `{"path":"/nil-lines"}`,
			code:     runtime.CodeInvalidToolOutput,
			contains: []string{"/lines"},
		},
	}
	def := newReadFile(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, t.Context(), def, tt.args)
			require.NoError(t, res.Check())
			if tt.want != "" {
				require.False(t, res.IsError(), "failure: %+v", res.Failure)
				assert.Equal(t, tt.want, string(res.Value))
				assert.Equal(t, []runtime.ContentBlock{runtime.Text(tt.want)}, res.Content)
				return
			}
			require.True(t, res.IsError(), "unexpected success: %s", res.Value)
			assert.Equal(t, tt.code, res.Code())
			assert.Nil(t, res.Value)
			for _, s := range tt.contains {
				assert.Contains(t, res.Failure.Message, s)
			}
		})
	}
}

// TestExecuteDirect calls Execute without the runtime: the errors are
// *runtime.ToolErrors that wrap their cause.
func TestExecuteDirect(t *testing.T) {
	def := newReadFile(t)
	tests := []struct {
		name string
		args string
		code runtime.ErrorCode
	}{
		{name: "schema violation", args: `{"path":5}`, code: runtime.CodeInvalidArgs},
		{name: "go range", args: `{"path":"/p","offset":-129}`, code: runtime.CodeInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := def.Execute(t.Context(), jsonvalue.Value(tt.args), nil)
			assert.Nil(t, v)
			var te *runtime.ToolError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tt.code, te.Code)
			assert.NotNil(t, te.Err)
			assert.Equal(t, "invalid arguments: "+te.Err.Error(), te.Message)
		})
	}

	v, err := def.Execute(t.Context(), jsonvalue.Value(`{"path":"/fail"}`), nil)
	assert.Nil(t, v)
	assert.ErrorIs(t, err, errFixture, "a body error is passed on unchanged")
}

func TestOutputEncodeError(t *testing.T) {
	type stats struct {
		Mean float64 `json:"mean"`
	}
	def, err := reflecttool.New("stats", "Computes statistics.", func(context.Context, struct{}) (stats, error) {
		return stats{Mean: math.NaN()}, nil
	}, reflecttool.Options{})
	require.NoError(t, err)

	v, err := def.Execute(t.Context(), jsonvalue.Value(`{}`), nil)
	assert.Nil(t, v)
	var te *runtime.ToolError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, runtime.CodeInvalidToolOutput, te.Code)

	res := run(t, t.Context(), def, `{}`)
	assert.Equal(t, runtime.CodeInvalidToolOutput, res.Code())
	assert.Contains(t, res.Failure.Message, "invalid tool output: ")
}

// TestCaseInsensitiveNames pins a difference from generated adapters:
// encoding/json matches member names case-insensitively, so a key the open
// parameter root ignores can still set a field.
func TestCaseInsensitiveNames(t *testing.T) {
	res := run(t, t.Context(), newReadFile(t), `{"path":"/a","PATH":"/b"}`)
	require.False(t, res.IsError(), "failure: %+v", res.Failure)
	assert.Equal(t, `{"path":"/b","lines":[],"total":0}`, string(res.Value))
}

func TestNewWithRunContext(t *testing.T) {
	var sawRC bool
	def, err := reflecttool.NewWithRunContext("conclude", "Ends the turn.",
		func(_ context.Context, a readArgs, rc *runtime.RunContext) (string, error) {
			sawRC = rc != nil
			if rc == nil {
				return "", errors.New("no run context")
			}
			rc.DeferContext(runtime.UserMessage{Content: []runtime.ContentBlock{runtime.Text("note")}, Source: "test"})
			rc.ConcludeTurn()
			return rc.Execution().CallID() + ":" + a.Path, nil
		}, reflecttool.Options{})
	require.NoError(t, err)
	assert.True(t, def.ValidatesArguments)

	res := run(t, t.Context(), def, `{"path":"/p"}`)
	require.False(t, res.IsError(), "failure: %+v", res.Failure)
	assert.True(t, sawRC)
	assert.Equal(t, `"c1:/p"`, string(res.Value))
	assert.Equal(t, []runtime.ContentBlock{runtime.Text(`"c1:/p"`)}, res.Content)
	assert.True(t, res.ConcludesTurn)
	require.Len(t, res.AdditionalContexts, 1)
	assert.Equal(t, "test", res.AdditionalContexts[0].Source)

	res = run(t, t.Context(), def, `{}`)
	assert.Equal(t, runtime.CodeInvalidArgs, res.Code())
}

func TestCancellation(t *testing.T) {
	started := make(chan struct{})
	calls := 0
	def, err := reflecttool.New("wait", "Waits for cancellation.", func(ctx context.Context, _ struct{}) (string, error) {
		calls++
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	}, reflecttool.Options{})
	require.NoError(t, err)

	t.Run("cancelled before dispatch", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		res := run(t, ctx, def, `{}`)
		assert.Equal(t, runtime.CodeAbortedBeforeDispatch, res.Code())
		assert.Zero(t, calls)
	})

	t.Run("cancelled before Execute starts the work", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		v, err := def.Execute(ctx, jsonvalue.Value(`{}`), nil)
		assert.Nil(t, v)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Zero(t, calls)
	})

	t.Run("cancelled while running", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan runtime.Result, 1)
		go func() { done <- run(t, ctx, def, `{}`) }()
		<-started
		cancel()
		res := <-done
		assert.Equal(t, runtime.CodeAborted, res.Code())
		assert.Equal(t, 1, calls)
	})
}

func TestNewErrors(t *testing.T) {
	type withChan struct {
		C chan int `json:"c"`
	}
	ok := func(context.Context, readArgs) (readResult, error) { return readResult{}, nil }

	tests := []struct {
		name     string
		build    func() (runtime.ToolDefinition, error)
		contains []string
		schema   bool // the error wraps a *reflecttool.Error
	}{
		{
			name: "parameters not a struct",
			build: func() (runtime.ToolDefinition, error) {
				return reflecttool.New("bad_params", "", func(context.Context, string) (string, error) { return "", nil }, reflecttool.Options{})
			},
			contains: []string{`"bad_params"`, "parameters"},
			schema:   true,
		},
		{
			name: "unsupported parameter field",
			build: func() (runtime.ToolDefinition, error) {
				return reflecttool.New("bad_field", "", func(context.Context, withChan) (string, error) { return "", nil }, reflecttool.Options{})
			},
			contains: []string{`"bad_field"`, "parameters"},
			schema:   true,
		},
		{
			name: "unsupported output",
			build: func() (runtime.ToolDefinition, error) {
				return reflecttool.NewWithRunContext("bad_output", "", func(context.Context, readArgs, *runtime.RunContext) (map[string]int, error) {
					return nil, nil
				}, reflecttool.Options{})
			},
			contains: []string{`"bad_output"`, "output"},
			schema:   true,
		},
		{
			name: "nil function",
			build: func() (runtime.ToolDefinition, error) {
				return reflecttool.New[readArgs, readResult]("nil_fn", "", nil, reflecttool.Options{})
			},
			contains: []string{`"nil_fn"`, "nil"},
		},
		{
			name: "nil function with run context",
			build: func() (runtime.ToolDefinition, error) {
				return reflecttool.NewWithRunContext[readArgs, readResult]("nil_rc_fn", "", nil, reflecttool.Options{})
			},
			contains: []string{`"nil_rc_fn"`, "nil"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := tt.build()
			require.Error(t, err)
			assert.Zero(t, def.Name)
			for _, s := range tt.contains {
				assert.Contains(t, err.Error(), s)
			}
			var se *reflecttool.Error
			assert.Equal(t, tt.schema, errors.As(err, &se))
			if tt.schema {
				assert.ErrorIs(t, err, reflecttool.ErrUnsupportedType)
			}
		})
	}

	_, err := reflecttool.New("fine", "", ok, reflecttool.Options{})
	assert.NoError(t, err)
}

// benchArgs are the parameters of the benchmark's read_file-like tool.
type benchArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

type benchResult struct {
	Path  string `json:"path"`
	Lines int    `json:"lines"`
}

// BenchmarkExecute measures one call through the reflected Execute:
// validate, decode with encoding/json, call, encode with encoding/json.
// It is the baseline for the generated adapters' static path.
func BenchmarkExecute(b *testing.B) {
	def, err := reflecttool.New("read_file", "Reads a file.", func(_ context.Context, a benchArgs) (benchResult, error) {
		return benchResult{Path: a.Path, Lines: a.Limit - a.Offset}, nil
	}, reflecttool.Options{})
	if err != nil {
		b.Fatal(err)
	}
	args, err := jsonvalue.Materialize([]byte(`{"path":"/tmp/x.go","offset":10,"limit":20}`))
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := def.Execute(ctx, args, nil); err != nil {
			b.Fatal(err)
		}
	}
}
