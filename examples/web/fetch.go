package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

// UserAgent is the User-Agent header of web_fetch's requests.
const UserAgent = "toolgen-web_fetch/1"

// FetchArgs are the arguments of the web_fetch tool.
type FetchArgs struct {
	// URL is the http or https URL to fetch with GET.
	URL string `json:"url"`
	// MaxBytes, when positive, caps the body bytes returned; it can only lower the configured limit.
	MaxBytes int64 `json:"max_bytes,omitempty"`
}

// Encoding says how a fetched body is spelled in a result.
type Encoding string

// The body encodings.
const (
	// EncodingText is a body that is valid UTF-8, as it is.
	EncodingText Encoding = "text"
	// EncodingBase64 is any other body, in standard padded base64.
	EncodingBase64 Encoding = "base64"
)

// FetchResult is what the web_fetch tool returns.
type FetchResult struct {
	// URL is the final URL, after redirects.
	URL string `json:"url"`
	// StatusCode is the HTTP status code; every status is a result, errors included.
	StatusCode int `json:"status_code"`
	// Status is the status line, such as "404 Not Found".
	Status string `json:"status"`
	// ContentType is the Content-Type header, if any.
	ContentType string `json:"content_type,omitempty"`
	// Encoding says how body is spelled: text when the body is valid UTF-8, base64 otherwise.
	Encoding Encoding `json:"encoding"`
	// Body is the response body, up to the size limit.
	Body string `json:"body"`
	// Bytes is the number of body bytes returned (before any base64).
	Bytes int `json:"bytes"`
	// Truncated reports that the body was longer than the limit and was cut.
	Truncated bool `json:"truncated"`
}

// Fetch fetches an http or https URL with GET, following redirects, and
// returns the status, content type, final URL and body. Any HTTP status,
// 404 included, is a result. Long bodies are cut at a size limit and
// marked truncated; a body that is not UTF-8 text comes back in base64.
//
//toolgen:tool name=web_fetch timeout=30s concurrency=safe render=renderFetch meta=fetchMeta present_call=presentFetchCall present_result=presentFetchResult
func Fetch(ctx context.Context, args FetchArgs) (FetchResult, error) {
	cfg, err := configFrom(ctx)
	if err != nil {
		return FetchResult{}, err
	}
	u, err := checkURL(args.URL)
	if err != nil {
		return FetchResult{}, err
	}
	limit := cfg.maxBytes
	switch {
	case args.MaxBytes < 0:
		return FetchResult{}, &runtime.ToolError{Code: runtime.CodeInvalidArgs, Message: fmt.Sprintf("web_fetch: max_bytes must not be negative, got %d", args.MaxBytes)}
	case args.MaxBytes > 0 && args.MaxBytes < limit:
		limit = args.MaxBytes
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return FetchResult{}, fmt.Errorf("web_fetch: %w", err)
	}
	req.Header.Set("User-Agent", UserAgent)
	resp, err := cfg.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return FetchResult{}, fmt.Errorf("web_fetch: %s: %w", u.Redacted(), ctx.Err())
		}
		return FetchResult{}, fmt.Errorf("web_fetch: %w", err)
	}
	defer resp.Body.Close()
	// One byte more than the limit tells a body of exactly the limit from
	// a longer one.
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			return FetchResult{}, fmt.Errorf("web_fetch: reading %s: %w", u.Redacted(), ctx.Err())
		}
		return FetchResult{}, fmt.Errorf("web_fetch: reading the body of %s: %w", u.Redacted(), err)
	}
	res := FetchResult{
		URL:         resp.Request.URL.String(),
		StatusCode:  resp.StatusCode,
		Status:      resp.Status,
		ContentType: resp.Header.Get("Content-Type"),
	}
	if int64(len(body)) > limit {
		res.Truncated = true
		// A character the cut splits is dropped whole, so that a text
		// body stays text.
		body = cutIncompleteEnd(body[:limit])
	}
	res.Bytes = len(body)
	if utf8.Valid(body) {
		res.Encoding, res.Body = EncodingText, string(body)
	} else {
		res.Encoding, res.Body = EncodingBase64, base64.StdEncoding.EncodeToString(body)
	}
	return res, nil
}

// checkURL parses raw and accepts only absolute http and https URLs with
// a host.
func checkURL(raw string) (*url.URL, error) {
	refuse := func(why string) error {
		return &runtime.ToolError{Code: runtime.CodeInvalidArgs, Message: "web_fetch: " + why}
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return nil, refuse(fmt.Sprintf("%q is not a URL: %v", raw, err))
	case u.Scheme == "":
		return nil, refuse(fmt.Sprintf("%q has no scheme; only http and https URLs can be fetched", raw))
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, refuse(fmt.Sprintf("only http and https URLs can be fetched, not %s: URLs", u.Scheme))
	case u.Host == "":
		return nil, refuse(fmt.Sprintf("%q has no host", raw))
	}
	return u, nil
}

// cutIncompleteEnd drops a character that the end of b cuts in two.
func cutIncompleteEnd(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// inlineImages are the image types a complete base64 body is shown to the
// model as, rather than as base64 text.
var inlineImages = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// renderFetch renders a result for the model: a line with the final URL,
// status, content type and size, then the body. A complete PNG, JPEG, GIF
// or WebP body is an image block instead of base64 text.
func renderFetch(_ FetchArgs, res FetchResult) []runtime.ContentBlock {
	var head strings.Builder
	fmt.Fprintf(&head, "GET %s: %s", res.URL, res.Status)
	if res.ContentType != "" {
		fmt.Fprintf(&head, ", %s", res.ContentType)
	}
	fmt.Fprintf(&head, ", %d bytes", res.Bytes)
	if res.Truncated {
		head.WriteString(" (truncated: the body is longer)")
	}
	mediaType, _, _ := mime.ParseMediaType(res.ContentType)
	switch {
	case res.Encoding == EncodingBase64 && !res.Truncated && inlineImages[mediaType]:
		data, err := base64.StdEncoding.DecodeString(res.Body)
		if err == nil {
			return []runtime.ContentBlock{runtime.Text(head.String()), runtime.Image(data, mediaType)}
		}
	case res.Encoding == EncodingBase64:
		head.WriteString("\nThe body is not UTF-8 text; here it is in base64:")
	case res.Body == "":
		head.WriteString("\n(empty body)")
		return []runtime.ContentBlock{runtime.Text(head.String())}
	}
	return []runtime.ContentBlock{runtime.Text(head.String() + "\n\n" + res.Body)}
}

// fetchPresentation is the presentation metadata of a web_fetch result,
// from which presentFetchResult builds the web card.
type fetchPresentation struct {
	URL        string `json:"url"`
	StatusCode int    `json:"statusCode"`
	Truncated  bool   `json:"truncated,omitempty"`
}

// fetchMeta is the presentation metadata of a result: what the web fetch
// card shows.
func fetchMeta(_ FetchArgs, res FetchResult) jsonvalue.Value {
	meta, err := json.Marshal(fetchPresentation{URL: res.URL, StatusCode: res.StatusCode, Truncated: res.Truncated})
	if err != nil { // cannot happen: the struct has only a string, an int and a bool
		return nil
	}
	return jsonvalue.Value(meta)
}

// presentFetchCall shows a pending fetch as a generic card with the fetch
// icon.
func presentFetchCall(args FetchArgs) *runtime.ToolCallView {
	return &runtime.ToolCallView{Card: runtime.CallGeneric, Title: "Fetch " + args.URL, Kind: runtime.KindFetch}
}

// presentFetchResult shows a finished fetch as a web fetch card with the
// final URL, status code and truncation, read from the result's
// presentation meta. A failed call, or a result without meta (a nested
// call's), has no card: the UI shows the raw content.
func presentFetchResult(_ FetchArgs, result runtime.ToolResult) *runtime.ToolResultView {
	if result.IsError || result.Meta == nil {
		return nil
	}
	var p fetchPresentation
	if err := json.Unmarshal(result.Meta, &p); err != nil || p.URL == "" {
		return nil
	}
	return &runtime.ToolResultView{Card: runtime.ResultWeb, Web: runtime.WebFetch, URL: p.URL, StatusCode: p.StatusCode, Truncated: p.Truncated}
}
