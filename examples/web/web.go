// Package web is a toolgen tool package that lets an agent read the web:
// the web_fetch tool GETs one http or https URL and returns the response's
// status, content type, final URL after redirects and body, capped at a
// size limit.
//
// Build the definitions with New, which checks a Config and hands it to
// every call; the generated Tools() alone are not usable, because the tool
// function refuses to run without its configuration.
//
// Any HTTP status is a normal result, so the model sees a 404 page as
// such. A body that is valid UTF-8 is returned as text; any other body is
// returned in base64 (encoding says which), since a JSON string cannot
// carry arbitrary bytes. A call whose context ends (the caller cancelled,
// or the runtime/timeout policy's deadline passed) fails with the
// runtime's ABORTED or TIMEOUT code.
package web

//go:generate go tool toolgen -catalog TOOLS.md

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

// DefaultMaxBytes is the body limit New uses when Config.MaxBytes is 0.
const DefaultMaxBytes = 100_000

// ClientGrace is how much longer than the tool's timeout the Timeout of
// the client New builds (when Config.Client is nil) is: a backstop for
// runtimes without the timeout policy, long enough for the policy, when
// installed, to end the call first and report TIMEOUT.
const ClientGrace = time.Second

// Config configures the web tools. Every field is optional.
type Config struct {
	// Client sends the requests. nil means a client on
	// http.DefaultTransport with the default redirect policy (at most 10
	// redirects) and a Timeout of the tool's timeout plus ClientGrace. A
	// client given here is used as it is.
	Client *http.Client
	// MaxBytes caps the body bytes a result carries; a longer body is cut
	// and the result says truncated. A call's max_bytes can only lower
	// it. 0 means DefaultMaxBytes; it must not be negative.
	MaxBytes int64
	// Timeout, when non-zero, replaces the Timeout the web_fetch definition
	// declares (30s). The runtime/timeout policy, installed on the
	// Runtime, enforces it. It must not be negative.
	Timeout time.Duration
}

// config is a checked Config, as the tool function receives it.
type config struct {
	client   *http.Client
	maxBytes int64
}

// configKey is the context key under which New's definitions pass the
// configuration to the tool function.
type configKey struct{}

// configFrom returns the configuration New's definitions put in ctx.
func configFrom(ctx context.Context) (*config, error) {
	c, ok := ctx.Value(configKey{}).(*config)
	if !ok {
		return nil, errors.New("web: the tool was called without its configuration; build its definitions with web.New, not Tools")
	}
	return c, nil
}

// New checks cfg and returns the package's tool definitions (web_fetch),
// each running with cfg: its body gets the configuration through its
// context, and its timeout is cfg.Timeout when that is set. It fails when
// a number is negative.
func New(cfg Config) ([]runtime.ToolDefinition, error) {
	var errs []error
	if cfg.MaxBytes < 0 {
		errs = append(errs, fmt.Errorf("invalid Config.MaxBytes: must not be negative, got %d", cfg.MaxBytes))
	}
	if cfg.Timeout < 0 {
		errs = append(errs, fmt.Errorf("invalid Config.Timeout: must not be negative, got %s", cfg.Timeout))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("web: %w", errors.Join(errs...))
	}
	defs := Tools()
	for i := range defs {
		d := &defs[i]
		if cfg.Timeout > 0 {
			d.Timeout = cfg.Timeout
		}
		c := &config{client: cfg.Client, maxBytes: cfg.MaxBytes}
		if c.maxBytes == 0 {
			c.maxBytes = DefaultMaxBytes
		}
		if c.client == nil {
			c.client = &http.Client{}
			if d.Timeout > 0 {
				c.client.Timeout = d.Timeout + ClientGrace
			}
		}
		execute := d.Execute
		d.Execute = func(ctx context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			return execute(context.WithValue(ctx, configKey{}, c), args, rc)
		}
	}
	return defs, nil
}
