// Command demo runs one scripted model turn through a toolgen Runtime that
// holds every example tool (examples/fs, examples/shell, examples/web), and
// prints each call as a CLI would from its pending and completed cards,
// then the model-facing schemas. It exits non-zero when any step does not
// behave as stated. "make demo" regenerates the examples and runs it.
//
// The runtime it builds is what an agent host would build:
//   - the cooperative timeout policy (runtime/timeout);
//   - a pre-execute policy that lets reads through, lets read-only shell
//     commands on an allow-list through, and asks for approval before every
//     other write or shell command;
//   - a scripted approver standing in for the person, who allows one call
//     once and denies one;
//   - a guard that refuses any call naming a .env file, whatever the
//     policies decided;
//   - an around-dispatch wrapper that records how many bodies overlap, to
//     show that reads run in parallel and writes alone.
//
// The turn runs through ExecuteBatch on a temporary workspace, against a
// local httptest server for the web tool.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolgen-go/toolgen/examples/fs"
	"github.com/toolgen-go/toolgen/examples/shell"
	"github.com/toolgen-go/toolgen/examples/web"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/timeout"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// step is one call of the scripted turn and what it must do.
type step struct {
	name, args string
	// want is the failure code the call must end with; "" is a success.
	want runtime.ErrorCode
	// check, when set, inspects a successful result further.
	check func(runtime.Result) error
	// why says what the step shows.
	why string
}

// workspace is the project the turn works on.
var workspace = map[string]string{
	"main.go":      "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(greeting())\n}\n",
	"greet.go":     "package main\n\nfunc greeting() string { return \"hello\" }\n",
	"README.md":    "# demo\n\nA tiny program.\n",
	"docs/HACK.md": "Run go test.\n",
	".env":         "TOKEN=secret\n",
}

// run builds the runtime, runs the turn and writes the log to w.
func run(ctx context.Context, w io.Writer) error {
	root, err := os.MkdirTemp("", "toolgen-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	for name, text := range workspace {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}

	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/docs":
			// Long enough that the other reads of the batch overlap it.
			time.Sleep(100 * time.Millisecond)
			fmt.Fprintln(rw, "greeting() returns the text main prints.")
		case "/slow":
			<-r.Context().Done()
		default:
			http.NotFound(rw, r)
		}
	}))
	defer srv.Close()

	rt, rec, err := build(root)
	if err != nil {
		return err
	}
	steps := []step{
		{name: "read_file", args: `{"path":"main.go"}`, why: "parallel read", check: contains(`fmt.Println(greeting())`)},
		{name: "grep", args: `{"pattern":"^func ","glob":"*.go"}`, why: "parallel search", check: contains(`"total":2`)},
		{name: "glob", args: `{"pattern":"**/*.md"}`, why: "parallel search", check: contains(`"paths":["README.md","docs/HACK.md"]`)},
		{name: "web_fetch", args: fmt.Sprintf(`{"url":%q}`, srv.URL+"/docs"), why: "parallel fetch", check: contains(`"status_code":200`)},
		{name: "read_file", args: `{"path":".env"}`, want: runtime.CodeDenied, why: "refused by the guard"},
		{name: "edit_file", args: `{"path":"greet.go","edits":[{"old_text":"\"hello\"","new_text":"\"hello, world\""}]}`, why: "exclusive write, approved once", check: contains(`"applied":1`)},
		{name: "bash", args: `{"command":"cat greet.go","description":"show the edit"}`, why: "allow-listed command, exclusive", check: contains(`hello, world`)},
		{name: "bash", args: `{"command":"rm -rf docs","description":"clean up"}`, want: runtime.CodeDenied, why: "denied by the approver"},
		{name: "grep", args: `{"pattern":7}`, want: runtime.CodeInvalidArgs, why: "bad arguments"},
		{name: "web_fetch", args: fmt.Sprintf(`{"url":%q}`, srv.URL+"/slow"), want: runtime.CodeTimeout, why: "over the tool's timeout"},
	}
	calls := make([]runtime.ExecutionInput, len(steps))
	for i, s := range steps {
		calls[i] = runtime.ExecutionInput{CallID: fmt.Sprintf("call_%d", i+1), Name: s.name, Arguments: []byte(s.args), Agent: agent}
	}

	fmt.Fprintf(w, "workspace %s, %d tools, one model turn of %d calls\n\n", root, len(rt.Schemas(agent)), len(calls))
	modes := make([]runtime.ExecutionMode, len(calls))
	for i, in := range calls {
		modes[i] = rt.ExecutionMode(in)
		view := rt.PresentCall(in)
		fmt.Fprintf(w, "%-7s %-9s %s\n", in.CallID, modes[i], runtime.CallLine(in.Name, &view))
	}
	fmt.Fprintln(w)

	results := rt.ExecuteBatch(ctx, calls, runtime.BatchOptions{})

	var problems []error
	for i, res := range results {
		in, s := calls[i], steps[i]
		durable := res.Durable()
		text := runtime.ResultText(rt.PresentResult(in, durable), durable)
		fmt.Fprintf(w, "%s %s (%s)\n%s\n\n", in.CallID, in.Name, s.why, indent(text, 12))
		switch {
		case res.Code() != s.want:
			problems = append(problems, fmt.Errorf("%s %s: ended with %q, want %q: %s", in.CallID, in.Name, res.Code(), s.want, res.Content))
		case s.check != nil && !res.IsError():
			if err := s.check(res); err != nil {
				problems = append(problems, fmt.Errorf("%s %s: %w", in.CallID, in.Name, err))
			}
		}
	}

	problems = append(problems, rec.verify(calls, modes)...)
	if got, err := os.ReadFile(filepath.Join(root, "greet.go")); err != nil || !strings.Contains(string(got), `"hello, world"`) {
		problems = append(problems, fmt.Errorf("greet.go was not edited: %q, %v", got, err))
	}
	if _, err := os.Stat(filepath.Join(root, "docs", "HACK.md")); err != nil {
		problems = append(problems, fmt.Errorf("the denied command ran: %w", err))
	}

	fmt.Fprintln(w, "Schemas() as the model sees them:")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rt.Schemas(agent)); err != nil {
		return err
	}

	if len(problems) > 0 {
		return fmt.Errorf("%d steps did not behave as stated:\n%w", len(problems), errors.Join(problems...))
	}
	fmt.Fprintln(w, "\nevery step behaved as stated")
	return nil
}

// agent is the one agent the turn runs for.
var agent = &runtime.Agent{ID: "demo"}

// readOnly is the allow-list of shell commands that run without asking.
var readOnly = []string{"cat", "ls", "wc", "head", "go version"}

// build returns a Runtime with the example tools and the demo's policies,
// and the recorder its wrapper, approver and guard report to.
func build(root string) (*runtime.Runtime, *recorder, error) {
	rec := &recorder{
		answers:    []runtime.Approval{runtime.AllowedOnce, runtime.Denied},
		rendezvous: map[string]bool{"call_1": true, "call_2": true, "call_3": true, "call_4": true},
		sibling:    make(chan struct{}),
	}
	rt := runtime.New(runtime.WithApprover(rec.approve))

	fsTools, err := fs.New(root)
	if err != nil {
		return nil, nil, err
	}
	shellTools, err := shell.New(shell.Config{Dir: root})
	if err != nil {
		return nil, nil, err
	}
	webTools, err := web.New(web.Config{Timeout: 300 * time.Millisecond})
	if err != nil {
		return nil, nil, err
	}
	for _, def := range slices.Concat(fsTools, shellTools, webTools) {
		if _, err := rt.Register(def); err != nil {
			return nil, nil, err
		}
	}

	// The wrapper sits outside the timeout policy, so what it records
	// includes the time the policy takes to end a call.
	rt.WrapExecute(rec.wrap)
	timeout.Install(rt)
	rt.OnPreExecute(func(ctx context.Context, exec runtime.Execution, next func() runtime.PreDecision) runtime.PreDecision {
		switch exec.Name() {
		case "write_file", "edit_file":
			return runtime.Ask("the model wants to change files")
		case "bash":
			var args struct{ Command string }
			if err := json.Unmarshal(exec.Arguments(), &args); err == nil && allowListed(args.Command) {
				return next()
			}
			return runtime.Ask("the model wants to run a shell command")
		}
		return next()
	})
	rt.Guard(rec.guard)
	return rt, rec, nil
}

// allowListed reports whether command is one read-only command without
// shell syntax that could chain another.
func allowListed(command string) bool {
	if strings.ContainsAny(command, ";&|`$<>()\n") {
		return false
	}
	for _, p := range readOnly {
		if command == p || strings.HasPrefix(command, p+" ") {
			return true
		}
	}
	return false
}

// recorder is the demo's scripted person and its instruments.
type recorder struct {
	mu       sync.Mutex
	answers  []runtime.Approval
	asked    []string
	guarded  []string
	inFlight int
	// overlap[callID] is the most bodies running at once while the call
	// ran, itself included.
	overlap map[string]int
	running map[string]bool
	// The calls in rendezvous each wait, for up to a second, until two of
	// them run at once, which closes sibling: a scheduler that ran them
	// one by one would leave every wait to time out and their overlap at
	// one, however fast the machine.
	rendezvous map[string]bool
	sibling    chan struct{}
	met        int
	overlapped bool
}

// approve answers asks in script order; any ask beyond the script is
// denied and shows up in verify.
func (r *recorder) approve(_ context.Context, exec runtime.Execution, _ string) runtime.Approval {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, exec.CallID())
	if len(r.asked) > len(r.answers) {
		return runtime.Denied
	}
	return r.answers[len(r.asked)-1]
}

// guard refuses calls whose arguments name a .env file.
func (r *recorder) guard(exec runtime.Execution) error {
	r.mu.Lock()
	r.guarded = append(r.guarded, exec.CallID())
	r.mu.Unlock()
	if strings.Contains(string(exec.Arguments()), ".env") {
		return errors.New("secrets stay out of the model's context: .env files are off limits")
	}
	return nil
}

// wrap records how many bodies run at once.
func (r *recorder) wrap(ctx context.Context, exec runtime.Execution, next func(context.Context) runtime.Result) runtime.Result {
	r.mu.Lock()
	if r.overlap == nil {
		r.overlap, r.running = map[string]int{}, map[string]bool{}
	}
	r.inFlight++
	r.running[exec.CallID()] = true
	for id := range r.running {
		r.overlap[id] = max(r.overlap[id], r.inFlight)
	}
	wait := r.rendezvous[exec.CallID()]
	if wait {
		if r.met++; r.met == 2 && !r.overlapped {
			r.overlapped = true
			close(r.sibling)
		}
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.inFlight--
		delete(r.running, exec.CallID())
		if wait {
			r.met--
		}
		r.mu.Unlock()
	}()
	if wait {
		select {
		case <-r.sibling:
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
	return next(ctx)
}

// verify checks the scheduling, the approvals and the guard.
func (r *recorder) verify(calls []runtime.ExecutionInput, modes []runtime.ExecutionMode) []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var problems []error
	parallelPeak := 0
	for i, in := range calls {
		if modes[i] == runtime.Exclusive && r.overlap[in.CallID] > 1 {
			problems = append(problems, fmt.Errorf("%s ran exclusive but overlapped %d bodies", in.CallID, r.overlap[in.CallID]))
		}
		if modes[i] == runtime.Parallel {
			parallelPeak = max(parallelPeak, r.overlap[in.CallID])
		}
	}
	if parallelPeak < 2 {
		problems = append(problems, fmt.Errorf("the parallel reads never overlapped"))
	}
	if want := []string{"call_6", "call_8"}; !slices.Equal(r.asked, want) {
		problems = append(problems, fmt.Errorf("approvals asked for %v, want %v", r.asked, want))
	}
	// Guards run after the pre-execute waterfall, so the guard sees every
	// call but the shell command the approver denied. Arguments are
	// validated when the body is dispatched, after the guards, so the
	// bad-argument call reaches the guard too.
	if want := []string{"call_1", "call_2", "call_3", "call_4", "call_5", "call_6", "call_7", "call_9", "call_10"}; !slices.Equal(sorted(r.guarded), want) {
		problems = append(problems, fmt.Errorf("the guard saw %v, want %v", sorted(r.guarded), want))
	}
	return problems
}

func sorted(ids []string) []string {
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	return out
}

// contains checks that a result's value holds text.
func contains(text string) func(runtime.Result) error {
	return func(res runtime.Result) error {
		if !strings.Contains(string(res.Value), text) {
			return fmt.Errorf("value %s does not contain %s", res.Value, text)
		}
		return nil
	}
}

// indent indents every line of s by n spaces.
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}
