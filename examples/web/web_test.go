package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolgen-go/toolgen/examples/web"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/timeout"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pngBytes is the start of a PNG file: not UTF-8.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

// server is a test server with a few pages. /slow answers only when its
// request ends or release is closed.
func server(t *testing.T) (srv *httptest.Server, release chan struct{}) {
	t.Helper()
	release = make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "hello, "+r.UserAgent())
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("x", 1000))
	})
	mux.HandleFunc("/euro", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, strings.Repeat("€", 10)) // 30 bytes
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(pngBytes)
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/hop", http.StatusFound)
	})
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/hello?from=redirect", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return srv, release
}

// setup returns a runtime with web_fetch registered from cfg; a nil
// cfg.Client becomes srv's own client, whose connections srv.Close closes.
func setup(t *testing.T, srv *httptest.Server, cfg web.Config) *runtime.Runtime {
	t.Helper()
	if cfg.Client == nil {
		cfg.Client = srv.Client()
	}
	defs, err := web.New(cfg)
	require.NoError(t, err)
	rt := runtime.New(runtime.WithErrorHandler(func(err error) { t.Errorf("runtime error: %v", err) }))
	for _, d := range defs {
		_, err := rt.Register(d)
		require.NoError(t, err, d.Name)
	}
	return rt
}

func fetchCall(args map[string]any) runtime.ExecutionInput {
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return runtime.ExecutionInput{CallID: "call-1", Name: "web_fetch", Arguments: raw}
}

// result is the decoded value of a successful web_fetch call.
type result struct {
	URL         string `json:"url"`
	StatusCode  int    `json:"status_code"`
	Status      string `json:"status"`
	ContentType string `json:"content_type"`
	Encoding    string `json:"encoding"`
	Body        string `json:"body"`
	Bytes       int    `json:"bytes"`
	Truncated   bool   `json:"truncated"`
}

func decode(t *testing.T, res runtime.Result) result {
	t.Helper()
	require.False(t, res.IsError(), "failure: %+v", res.Failure)
	var r result
	require.NoError(t, json.Unmarshal(res.Value, &r))
	return r
}

func TestFetch(t *testing.T) {
	srv, _ := server(t)
	rt := setup(t, srv, web.Config{MaxBytes: 100})
	hello := "hello, " + web.UserAgent
	tests := []struct {
		name    string
		path    string
		max     int64
		want    result
		content []runtime.ContentBlock
	}{
		{
			name: "200 text", path: "/hello",
			want:    result{URL: srv.URL + "/hello", StatusCode: 200, Status: "200 OK", ContentType: "text/plain; charset=utf-8", Encoding: "text", Body: hello, Bytes: len(hello)},
			content: []runtime.ContentBlock{runtime.Text("GET " + srv.URL + "/hello: 200 OK, text/plain; charset=utf-8, " + fmt.Sprint(len(hello)) + " bytes\n\n" + hello)},
		},
		{
			name: "404 is a result", path: "/missing",
			want: result{URL: srv.URL + "/missing", StatusCode: 404, Status: "404 Not Found", ContentType: "text/plain; charset=utf-8", Encoding: "text", Body: "no such page\n", Bytes: 13},
		},
		{
			name: "cut at the configured limit", path: "/big",
			want:    result{URL: srv.URL + "/big", StatusCode: 200, Status: "200 OK", ContentType: "text/plain", Encoding: "text", Body: strings.Repeat("x", 100), Bytes: 100, Truncated: true},
			content: []runtime.ContentBlock{runtime.Text("GET " + srv.URL + "/big: 200 OK, text/plain, 100 bytes (truncated: the body is longer)\n\n" + strings.Repeat("x", 100))},
		},
		{
			name: "cut at max_bytes", path: "/big", max: 10,
			want: result{URL: srv.URL + "/big", StatusCode: 200, Status: "200 OK", ContentType: "text/plain", Encoding: "text", Body: strings.Repeat("x", 10), Bytes: 10, Truncated: true},
		},
		{
			name: "max_bytes cannot raise the limit", path: "/big", max: 5000,
			want: result{URL: srv.URL + "/big", StatusCode: 200, Status: "200 OK", ContentType: "text/plain", Encoding: "text", Body: strings.Repeat("x", 100), Bytes: 100, Truncated: true},
		},
		{
			name: "a body of exactly the limit is whole", path: "/euro", max: 30,
			want: result{URL: srv.URL + "/euro", StatusCode: 200, Status: "200 OK", ContentType: "text/plain; charset=utf-8", Encoding: "text", Body: strings.Repeat("€", 10), Bytes: 30},
		},
		{
			name: "a cut character is dropped whole", path: "/euro", max: 10,
			want: result{URL: srv.URL + "/euro", StatusCode: 200, Status: "200 OK", ContentType: "text/plain; charset=utf-8", Encoding: "text", Body: strings.Repeat("€", 3), Bytes: 9, Truncated: true},
		},
		{
			name: "binary body in base64", path: "/png",
			want:    result{URL: srv.URL + "/png", StatusCode: 200, Status: "200 OK", ContentType: "image/png", Encoding: "base64", Body: base64.StdEncoding.EncodeToString(pngBytes), Bytes: len(pngBytes)},
			content: []runtime.ContentBlock{runtime.Text("GET " + srv.URL + "/png: 200 OK, image/png, 16 bytes"), runtime.Image(pngBytes, "image/png")},
		},
		{
			name: "cut binary body stays base64 text", path: "/png", max: 4,
			want:    result{URL: srv.URL + "/png", StatusCode: 200, Status: "200 OK", ContentType: "image/png", Encoding: "base64", Body: base64.StdEncoding.EncodeToString(pngBytes[:4]), Bytes: 4, Truncated: true},
			content: []runtime.ContentBlock{runtime.Text("GET " + srv.URL + "/png: 200 OK, image/png, 4 bytes (truncated: the body is longer)\nThe body is not UTF-8 text; here it is in base64:\n\n" + base64.StdEncoding.EncodeToString(pngBytes[:4]))},
		},
		{
			name: "empty body", path: "/empty",
			want:    result{URL: srv.URL + "/empty", StatusCode: 204, Status: "204 No Content", Encoding: "text"},
			content: []runtime.ContentBlock{runtime.Text("GET " + srv.URL + "/empty: 204 No Content, 0 bytes\n(empty body)")},
		},
		{
			name: "redirects followed to the final URL", path: "/redirect",
			want: result{URL: srv.URL + "/hello?from=redirect", StatusCode: 200, Status: "200 OK", ContentType: "text/plain; charset=utf-8", Encoding: "text", Body: hello, Bytes: len(hello)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"url": srv.URL + tc.path}
			if tc.max != 0 {
				args["max_bytes"] = tc.max
			}
			res := rt.Execute(context.Background(), fetchCall(args))
			assert.Equal(t, tc.want, decode(t, res))
			if tc.content != nil {
				assert.Equal(t, tc.content, res.Content)
			}
		})
	}
}

func TestRefusedArguments(t *testing.T) {
	srv, _ := server(t)
	rt := setup(t, srv, web.Config{})
	tests := []struct {
		name string
		args string
		want string
	}{
		{"missing url", `{}`, "url"},
		{"file scheme", `{"url":"file:///etc/passwd"}`, "only http and https URLs can be fetched, not file: URLs"},
		{"ftp scheme", `{"url":"ftp://example.com/x"}`, "not ftp: URLs"},
		{"javascript scheme", `{"url":"javascript:alert(1)"}`, "not javascript: URLs"},
		{"no scheme", `{"url":"example.com/page"}`, "has no scheme"},
		{"no host", `{"url":"http:///path"}`, "has no host"},
		{"not a URL", `{"url":"http://[::1"}`, "is not a URL"},
		{"negative max_bytes", `{"url":"http://example.com","max_bytes":-1}`, "max_bytes must not be negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := rt.Execute(context.Background(), runtime.ExecutionInput{CallID: "c", Name: "web_fetch", Arguments: []byte(tc.args)})
			require.Equal(t, runtime.CodeInvalidArgs, res.Code(), "%+v", res.Failure)
			assert.Contains(t, res.Failure.Message, tc.want)
		})
	}
}

func TestCancellation(t *testing.T) {
	srv, _ := server(t)
	rt := setup(t, srv, web.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	res := rt.Execute(ctx, fetchCall(map[string]any{"url": srv.URL + "/slow"}))
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, runtime.CodeAborted, res.Code(), "%+v", res.Failure)
	assert.Nil(t, rt.PresentResult(fetchCall(map[string]any{"url": srv.URL + "/slow"}), res.Durable()), "a failed call has no card")
}

func TestTimeout(t *testing.T) {
	t.Run("policy with the default client", func(t *testing.T) {
		srv, _ := server(t)
		// The client New builds uses http.DefaultTransport; its idle
		// connections are closed so that no goroutine outlives the test.
		t.Cleanup(http.DefaultTransport.(*http.Transport).CloseIdleConnections)
		defs, err := web.New(web.Config{Timeout: 200 * time.Millisecond})
		require.NoError(t, err)
		require.Len(t, defs, 1)
		assert.Equal(t, 200*time.Millisecond, defs[0].Timeout)
		rt := runtime.New()
		_, err = rt.Register(defs[0])
		require.NoError(t, err)
		timeout.Install(rt)
		start := time.Now()
		res := rt.Execute(context.Background(), fetchCall(map[string]any{"url": srv.URL + "/slow"}))
		assert.Less(t, time.Since(start), 2*time.Second)
		assert.Equal(t, runtime.CodeTimeout, res.Code(), "%+v", res.Failure)

		// A quick page is unaffected.
		r := decode(t, rt.Execute(context.Background(), fetchCall(map[string]any{"url": srv.URL + "/hello"})))
		assert.Equal(t, 200, r.StatusCode)
	})
	t.Run("client timeout without the policy", func(t *testing.T) {
		srv, _ := server(t)
		client := srv.Client()
		client.Timeout = 100 * time.Millisecond
		rt := setup(t, srv, web.Config{Client: client})
		res := rt.Execute(context.Background(), fetchCall(map[string]any{"url": srv.URL + "/slow"}))
		assert.Equal(t, runtime.CodeToolError, res.Code(), "%+v", res.Failure)
		assert.Contains(t, res.Failure.Message, "Client.Timeout exceeded")
	})
}

func TestCards(t *testing.T) {
	srv, _ := server(t)
	rt := setup(t, srv, web.Config{MaxBytes: 100})
	tests := []struct {
		name  string
		path  string
		final runtime.ToolResultView
	}{
		{"200", "/hello", runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, URL: srv.URL + "/hello", StatusCode: 200}},
		{"404", "/missing", runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, URL: srv.URL + "/missing", StatusCode: 404}},
		{"truncated", "/big", runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, URL: srv.URL + "/big", StatusCode: 200, Truncated: true}},
		{"final URL", "/redirect", runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, URL: srv.URL + "/hello?from=redirect", StatusCode: 200}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := fetchCall(map[string]any{"url": srv.URL + tc.path})
			call := rt.PresentCall(in)
			require.NoError(t, call.Check())
			assert.Equal(t, runtime.ToolCallView{Card: runtime.CallGeneric, Title: "Fetch " + srv.URL + tc.path, Kind: runtime.KindFetch}, call)

			res := rt.Execute(context.Background(), in)
			require.False(t, res.IsError(), "%+v", res.Failure)
			final := rt.PresentResult(in, res.Durable())
			require.NotNil(t, final)
			require.NoError(t, final.Check())
			assert.Equal(t, tc.final, *final)
		})
	}
}

func TestDefinitions(t *testing.T) {
	defs, err := web.New(web.Config{})
	require.NoError(t, err)
	require.Len(t, defs, 1)
	assert.Equal(t, "web_fetch", defs[0].Name)
	assert.Equal(t, 30*time.Second, defs[0].Timeout, "the directive's timeout without Config.Timeout")

	rt := runtime.New()
	_, err = rt.Register(defs[0])
	require.NoError(t, err)
	assert.Equal(t, runtime.Parallel, rt.ExecutionMode(fetchCall(map[string]any{"url": "http://example.com"})))

	// The generated definitions alone have no configuration.
	bare := runtime.New()
	_, err = bare.Register(web.Tools()[0])
	require.NoError(t, err)
	res := bare.Execute(context.Background(), fetchCall(map[string]any{"url": "http://example.com"}))
	assert.Equal(t, runtime.CodeToolError, res.Code())
	assert.Contains(t, res.Failure.Message, "web.New")

	for _, cfg := range []web.Config{{MaxBytes: -1}, {Timeout: -time.Second}} {
		defs, err := web.New(cfg)
		assert.Nil(t, defs)
		assert.ErrorContains(t, err, "must not be negative")
	}
}
