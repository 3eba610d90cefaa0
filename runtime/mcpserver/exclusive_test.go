package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/runtime"
	"github.com/toolgen-go/toolgen/runtime/mcpserver"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// tracker records which bodies run at once.
type tracker struct {
	mu       sync.Mutex
	running  map[string]bool // call label -> exclusive
	events   []string
	overlaps []string // a violation: what an exclusive call overlapped
	maxPar   int      // the most parallel bodies seen at once
	gates    map[int]chan struct{}
	started  chan string
}

func newTracker() *tracker {
	return &tracker{running: map[string]bool{}, gates: map[int]chan struct{}{}, started: make(chan string, 64)}
}

// gateFor returns the channel that releases the body of call id.
func (tr *tracker) gateFor(id int) chan struct{} {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.gates[id] == nil {
		tr.gates[id] = make(chan struct{})
	}
	return tr.gates[id]
}

// body is a tool body that records itself and waits for its release
// ({"id":n}) or sleeps ({"sleep_us":n}).
func (tr *tracker) body(name string, exclusive bool) body {
	return func(ctx context.Context, args jsonvalue.Value) (jsonvalue.Value, error) {
		var a struct {
			ID      int `json:"id"`
			SleepUS int `json:"sleep_us"`
		}
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		label := fmt.Sprintf("%s#%d", name, a.ID)
		tr.mu.Lock()
		for other, otherExclusive := range tr.running {
			if exclusive || otherExclusive {
				tr.overlaps = append(tr.overlaps, label+" overlapped "+other)
			}
		}
		tr.running[label] = exclusive
		if !exclusive {
			n := 0
			for _, x := range tr.running {
				if !x {
					n++
				}
			}
			tr.maxPar = max(tr.maxPar, n)
		}
		tr.events = append(tr.events, "start "+label)
		tr.mu.Unlock()
		tr.started <- label

		if a.SleepUS > 0 {
			time.Sleep(time.Duration(a.SleepUS) * time.Microsecond)
		} else {
			select {
			case <-tr.gateFor(a.ID):
			case <-ctx.Done():
			}
		}

		tr.mu.Lock()
		delete(tr.running, label)
		tr.events = append(tr.events, "end "+label)
		tr.mu.Unlock()
		return jsonvalue.Value(`"ok"`), nil
	}
}

func (tr *tracker) runtime(t *testing.T) *runtime.Runtime {
	rt := runtime.New()
	params := `{"type":"object","properties":{"id":{"type":"integer"},"sleep_us":{"type":"integer"}}}`
	register(t, rt,
		parallel(tool("read", params, schemasubset.Any(), tr.body("read", false))),
		tool("write", params, schemasubset.Any(), tr.body("write", true)),
	)
	return rt
}

// sessionAgents maps each session to a fresh agent and hands it to the
// test.
func sessionAgents(agents chan<- *runtime.Agent) func(*mcp.ServerSession) *runtime.Agent {
	return func(*mcp.ServerSession) *runtime.Agent {
		a := &runtime.Agent{ID: "session"}
		agents <- a
		return a
	}
}

// TestExclusiveFIFO drives one session's gate step by step: parallel reads
// overlap, an exclusive write waits for them and runs alone, a read sent
// after the write waits behind it (no overtaking, so writes are not
// starved), and another session is not held up at all.
func TestExclusiveFIFO(t *testing.T) {
	tr := newTracker()
	rt := tr.runtime(t)
	agents := make(chan *runtime.Agent, 2)
	srv := newServer(t, rt, mcpserver.Options{SessionAgent: sessionAgents(agents)})
	a := connect(t, srv, nil, latest)
	b := connect(t, srv, nil, legacy)
	listNames(t, a)
	agentA := <-agents

	var wg sync.WaitGroup
	results := make(chan string, 8)
	send := func(cs *mcp.ClientSession, name string, id int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(fmt.Sprintf(`{"id":%d}`, id))})
			if err != nil || res.IsError {
				results <- fmt.Sprintf("%s#%d failed: %v %v", name, id, err, res)
				return
			}
			results <- fmt.Sprintf("%s#%d", name, id)
		}()
	}
	waitStarted := func(want string) {
		t.Helper()
		select {
		case got := <-tr.started:
			require.Equal(t, want, got)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s did not start", want)
		}
	}
	waitQueued := func(n int) {
		t.Helper()
		require.Eventually(t, func() bool { return srv.Queued(agentA) == n }, 5*time.Second, time.Millisecond, "want %d queued", n)
	}
	notStarted := func() {
		t.Helper()
		select {
		case got := <-tr.started:
			t.Fatalf("%s started", got)
		case <-time.After(30 * time.Millisecond):
		}
	}

	send(a, "read", 1)
	send(a, "read", 2)
	got := []string{<-tr.started, <-tr.started}
	assert.ElementsMatch(t, []string{"read#1", "read#2"}, got, "parallel reads overlap")

	send(a, "write", 3)
	waitQueued(1)
	send(a, "read", 4)
	waitQueued(2)
	notStarted()

	// Another session has its own gate.
	send(b, "read", 5)
	waitStarted("read#5")
	close(tr.gateFor(5))
	assert.Equal(t, "read#5", <-results)

	close(tr.gateFor(1))
	close(tr.gateFor(2))
	waitStarted("write#3")
	notStarted()
	assert.Equal(t, 1, srv.Queued(agentA), "read#4 still waits behind the write")
	close(tr.gateFor(3))
	waitStarted("read#4")
	close(tr.gateFor(4))
	wg.Wait()
	close(results)

	tr.mu.Lock()
	defer tr.mu.Unlock()
	assert.Empty(t, tr.overlaps)
	assert.Equal(t, 3, tr.maxPar, "read#1, read#2 and the other session's read#5")
	endRead, startWrite, endWrite, startRead4 := -1, -1, -1, -1
	for i, e := range tr.events {
		switch e {
		case "end read#1", "end read#2":
			endRead = max(endRead, i)
		case "start write#3":
			startWrite = i
		case "end write#3":
			endWrite = i
		case "start read#4":
			startRead4 = i
		}
	}
	assert.Less(t, endRead, startWrite, "the write starts after the reads before it end")
	assert.Less(t, endWrite, startRead4, "the read after the write starts after it ends")
}

// TestExclusiveStress sends a burst of mixed calls on one session: no
// exclusive call ever overlaps another call, and parallel ones do overlap.
func TestExclusiveStress(t *testing.T) {
	tr := newTracker()
	tr.started = make(chan string, 1024)
	rt := tr.runtime(t)
	cs := connect(t, newServer(t, rt, mcpserver.Options{}), nil, latest)

	r := rand.New(rand.NewPCG(1, 2))
	var wg sync.WaitGroup
	for i := range 120 {
		name := "read"
		if r.IntN(5) == 0 {
			name = "write"
		}
		args := fmt.Sprintf(`{"id":%d,"sleep_us":%d}`, i, 200+r.IntN(800))
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
			assert.NoError(t, err)
			if err == nil {
				assert.False(t, res.IsError, "%v", texts(res))
			}
		}()
	}
	wg.Wait()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	assert.Empty(t, tr.overlaps)
	assert.GreaterOrEqual(t, tr.maxPar, 2, "parallel calls ran together")
	assert.Len(t, tr.events, 240)
}

// TestExclusiveByArguments checks that the classifier decides per call: the
// same tool is parallel or exclusive by its validated arguments, and
// invalid arguments are exclusive.
func TestExclusiveByArguments(t *testing.T) {
	tr := newTracker()
	rt := runtime.New()
	def := tool("maybe", `{"type":"object","properties":{"id":{"type":"integer"},"sleep_us":{"type":"integer"}},"required":["id"]}`, schemasubset.Any(), tr.body("maybe", false))
	def.ConcurrencySafe = func(args jsonvalue.Value) bool { return string(args) != `{"id":0}` }
	register(t, rt, def)
	agents := make(chan *runtime.Agent, 1)
	srv := newServer(t, rt, mcpserver.Options{SessionAgent: sessionAgents(agents)})
	cs := connect(t, srv, nil, legacy)
	listNames(t, cs)
	agent := <-agents

	done := make(chan *mcp.CallToolResult, 3)
	go func() { done <- callTool(t, cs, "maybe", `{"id":1}`) }()
	assert.Equal(t, "maybe#1", <-tr.started)
	go func() { done <- callTool(t, cs, "maybe", `{"id":0}`) }()
	require.Eventually(t, func() bool { return srv.Queued(agent) == 1 }, 5*time.Second, time.Millisecond, "the exclusive call waits")
	go func() { done <- callTool(t, cs, "maybe", `{"sleep_us":1}`) }()
	require.Eventually(t, func() bool { return srv.Queued(agent) == 2 }, 5*time.Second, time.Millisecond, "invalid arguments are exclusive, and wait")
	close(tr.gateFor(1))
	assert.Equal(t, "maybe#0", <-tr.started)
	close(tr.gateFor(0))
	var invalid *mcp.CallToolResult
	for range 3 {
		if res := <-done; res.IsError {
			invalid = res
		}
	}
	require.NotNil(t, invalid)
	assert.Equal(t, runtime.CodeInvalidArgs, errorCode(t, invalid))
}
