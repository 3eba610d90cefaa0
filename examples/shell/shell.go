// Package shell is a toolgen tool package that gives an agent a shell: the
// bash tool runs one command line with bash -c in a configured working
// directory and returns its combined output and exit status.
//
// Build the definitions with New, which checks a Config and hands it to
// every call; the generated Tools() alone are not usable, because the tool
// function refuses to run without its configuration.
//
// Each command runs in its own process group. When the call's context ends
// (the caller cancelled, or the runtime/timeout policy's deadline for the
// definition's Timeout passed), the whole group is killed with SIGKILL, so
// pipelines and background jobs the command started die with it, and the
// call fails with the runtime's ABORTED or TIMEOUT code. A command that
// exits with a non-zero status is a normal result: the model sees its
// output and exit code.
//
// The package builds on every platform, but process groups (and so the
// killing of a command's descendants) exist only on Unix; elsewhere only
// bash itself is killed.
package shell

//go:generate go tool toolgen -catalog TOOLS.md

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
)

// DefaultMaxOutput is the output cap New uses when Config.MaxOutput is 0:
// the bytes of combined stdout and stderr a result keeps.
const DefaultMaxOutput = 30_000

// DefaultWaitDelay is the Config.WaitDelay New uses when it is 0.
const DefaultWaitDelay = 2 * time.Second

// Config configures the shell tools. Only Dir is required.
type Config struct {
	// Dir is the working directory every command starts in. It must name an
	// existing directory; New makes it absolute.
	Dir string
	// MaxOutput caps the bytes of combined output a result keeps; the rest
	// is dropped from the middle and replaced by a marker that says how
	// many bytes were dropped. 0 means DefaultMaxOutput; it must not be
	// negative.
	MaxOutput int
	// Timeout, when non-zero, replaces the Timeout the bash definition
	// declares (120s). The runtime/timeout policy, installed on the
	// Runtime, enforces it; without the policy no definition timeout
	// applies. It must not be negative.
	Timeout time.Duration
	// Env is the environment of every command, in the form of exec.Cmd's
	// Env ("KEY=value" entries). nil means the environment of the current
	// process; an empty non-nil slice means an empty environment.
	Env []string
	// WaitDelay bounds how long output is still collected after bash has
	// exited or been killed while a process it started keeps the output
	// open (a background job, say); after it, the output is closed and the
	// result says so. 0 means DefaultWaitDelay; it must not be negative.
	WaitDelay time.Duration
}

// config is a checked Config, as the tool function receives it.
type config struct {
	bash      string // the path of bash
	dir       string
	maxOutput int
	env       []string
	waitDelay time.Duration
}

// configKey is the context key under which New's definitions pass the
// configuration to the tool function.
type configKey struct{}

// configFrom returns the configuration New's definitions put in ctx.
func configFrom(ctx context.Context) (*config, error) {
	c, ok := ctx.Value(configKey{}).(*config)
	if !ok {
		return nil, errors.New("shell: the tool was called without its configuration; build its definitions with shell.New, not Tools")
	}
	return c, nil
}

// New checks cfg and returns the package's tool definitions (bash), each
// running with cfg: its body gets the configuration through its context,
// its timeout is cfg.Timeout when that is set, and its terminal call card
// shows the working directory. It fails when Dir is not an existing
// directory, bash cannot be found in PATH, or a number is negative.
func New(cfg Config) ([]runtime.ToolDefinition, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, err
	}
	defs := Tools()
	for i := range defs {
		d := &defs[i]
		if cfg.Timeout > 0 {
			d.Timeout = cfg.Timeout
		}
		execute := d.Execute
		d.Execute = func(ctx context.Context, args jsonvalue.Value, rc *runtime.RunContext) (jsonvalue.Value, error) {
			return execute(context.WithValue(ctx, configKey{}, c), args, rc)
		}
		if present := d.PresentCall; present != nil {
			d.PresentCall = func(args jsonvalue.Value) *runtime.ToolCallView {
				v := present(args)
				if v == nil || v.Card != runtime.CallTerminal || v.Cwd != "" {
					return v
				}
				withCwd := *v
				withCwd.Cwd = c.dir
				return &withCwd
			}
		}
	}
	return defs, nil
}

// check validates cfg and fills in its defaults.
func (cfg Config) check() (*config, error) {
	var errs []error
	if cfg.MaxOutput < 0 {
		errs = append(errs, fmt.Errorf("invalid Config.MaxOutput: must not be negative, got %d", cfg.MaxOutput))
	}
	if cfg.Timeout < 0 {
		errs = append(errs, fmt.Errorf("invalid Config.Timeout: must not be negative, got %s", cfg.Timeout))
	}
	if cfg.WaitDelay < 0 {
		errs = append(errs, fmt.Errorf("invalid Config.WaitDelay: must not be negative, got %s", cfg.WaitDelay))
	}
	dir := cfg.Dir
	if dir == "" {
		errs = append(errs, errors.New("no Config.Dir: name the working directory of the commands"))
	} else if abs, err := filepath.Abs(dir); err != nil {
		errs = append(errs, fmt.Errorf("working directory %q: %w", dir, err))
	} else if fi, err := os.Stat(abs); err != nil {
		errs = append(errs, fmt.Errorf("working directory: %w", err))
	} else if !fi.IsDir() {
		errs = append(errs, fmt.Errorf("working directory %q is not a directory", abs))
	} else {
		dir = abs
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		errs = append(errs, fmt.Errorf("bash is needed: %w", err))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("shell: %w", errors.Join(errs...))
	}
	c := &config{bash: bash, dir: dir, maxOutput: cfg.MaxOutput, waitDelay: cfg.WaitDelay}
	if c.maxOutput == 0 {
		c.maxOutput = DefaultMaxOutput
	}
	if c.waitDelay == 0 {
		c.waitDelay = DefaultWaitDelay
	}
	if cfg.Env != nil {
		c.env = append([]string{}, cfg.Env...)
	}
	return c, nil
}
