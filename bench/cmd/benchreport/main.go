// Command benchreport turns "go test -bench -benchmem" output into the
// Markdown tables of bench/README.md: the median of every benchmark over its
// runs (use -count 5), its ratio to the jsontext floor on the same payload,
// and the targets checked against those medians.
//
// Usage:
//
//	go test -run '^$' -bench . -benchmem -count 5 | tee results.txt
//	go run ./cmd/benchreport < results.txt
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// rows names the benchmarks in table order, with their labels.
var rows = []struct{ bench, label string }{
	{"Floor", "jsontext `ReadToken` loop, decoder reused (the floor)"},
	{"Materialize", "toolgen `jsonvalue.Materialize`"},
	{"Validate", "toolgen `schemasubset.Validate` (materialized value)"},
	{"MaterializeValidate", "toolgen `Materialize` + `Validate`"},
	{"Santhosh", "santhosh-tekuri/jsonschema v6: its decode to `any` + `Validate`"},
	{"SanthoshUnmarshal", "the same + `encoding/json.Unmarshal` into the struct"},
	{"Google", "google/jsonschema-go: `encoding/json` decode to `any` + `Validate`"},
	{"GoogleUnmarshal", "the same + `encoding/json.Unmarshal` into the struct"},
}

// runtimeRows are the Execute benchmarks, compared with calling the parts
// directly and with the official MCP Go SDK's round trip.
var runtimeRows = []struct{ bench, label string }{
	{"Direct", "`Materialize` + `Validate` + render called directly (the baseline)"},
	{"ExecuteNoHooks", "toolgen `Runtime.Execute`, no hooks"},
	{"ExecuteHooks", "toolgen `Runtime.Execute`, 3 pre-execute + 1 guard + 1 wrapper + 1 post-execute + 1 observer"},
	{"MCPCallTool", "official MCP Go SDK: in-memory `CallTool` round trip, typed `mcp.AddTool`"},
}

var payloads = []string{"small", "medium", "nested"}

type sample struct{ ns, bytes, allocs float64 }

var line = regexp.MustCompile(`^Benchmark(\w+)/(\w+)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op.*?\s([\d.]+) B/op\s+([\d.]+) allocs/op`)

func main() {
	runs, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	if len(runs) == 0 {
		fmt.Fprintln(os.Stderr, "benchreport: no benchmark lines with -benchmem figures on standard input")
		os.Exit(1)
	}
	med := map[string]sample{}
	counts := map[string]int{}
	for key, ss := range runs {
		med[key] = median(ss)
		counts[key] = len(ss)
	}
	write(os.Stdout, med, counts)
}

func parse(r io.Reader) (map[string][]sample, error) {
	runs := map[string][]sample{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		var s sample
		var err error
		if s.ns, err = strconv.ParseFloat(m[3], 64); err != nil {
			return nil, err
		}
		if s.bytes, err = strconv.ParseFloat(m[4], 64); err != nil {
			return nil, err
		}
		if s.allocs, err = strconv.ParseFloat(m[5], 64); err != nil {
			return nil, err
		}
		key := m[1] + "/" + m[2]
		runs[key] = append(runs[key], s)
	}
	return runs, sc.Err()
}

// median takes the median of each figure on its own.
func median(ss []sample) sample {
	pick := func(f func(sample) float64) float64 {
		xs := make([]float64, len(ss))
		for i, s := range ss {
			xs[i] = f(s)
		}
		slices.Sort(xs)
		if len(xs)%2 == 1 {
			return xs[len(xs)/2]
		}
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	return sample{
		ns:     pick(func(s sample) float64 { return s.ns }),
		bytes:  pick(func(s sample) float64 { return s.bytes }),
		allocs: pick(func(s sample) float64 { return s.allocs }),
	}
}

// table writes one table of rows with each figure's ratio to the base
// benchmark on the same payload.
func table(w io.Writer, med map[string]sample, rows []struct{ bench, label string }, base string) {
	fmt.Fprintln(w, "| implementation | small | medium | nested |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		cells := []string{r.label}
		any := false
		for _, p := range payloads {
			s, ok := med[r.bench+"/"+p]
			b, bok := med[base+"/"+p]
			if !ok {
				cells = append(cells, "–")
				continue
			}
			any = true
			cell := fmt.Sprintf("%s · %s · %s", num(s.ns), size(s.bytes), num(s.allocs))
			if bok && r.bench != base {
				cell += fmt.Sprintf(" (%.2f×)", s.ns/b.ns)
			}
			cells = append(cells, cell)
		}
		if any {
			fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
		}
	}
}

func write(w io.Writer, med map[string]sample, counts map[string]int) {
	n := 0
	for _, c := range counts {
		n = max(n, c)
	}
	fmt.Fprintf(w, "Medians of %d runs: ns/op · B/op · allocs/op (ratio to the floor on the same payload).\n\n", n)
	table(w, med, rows, "Floor")

	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | small | medium | nested |")
	fmt.Fprintln(w, "|---|---|---|---|")
	target := func(label string, f func(p string) (float64, bool, bool)) {
		cells := []string{label}
		for _, p := range payloads {
			x, met, ok := f(p)
			switch {
			case !ok:
				cells = append(cells, "–")
			case strings.HasSuffix(label, "(no target)"):
				cells = append(cells, fmt.Sprintf("%.2f", x))
			case met:
				cells = append(cells, fmt.Sprintf("%.2f ✓", x))
			default:
				cells = append(cells, fmt.Sprintf("%.2f ✗", x))
			}
		}
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
	ratio := func(a, b, p string) (float64, bool) {
		x, ok1 := med[a+"/"+p]
		y, ok2 := med[b+"/"+p]
		if !ok1 || !ok2 || y.ns == 0 {
			return 0, false
		}
		return x.ns / y.ns, true
	}
	target("`Validate` ÷ floor, at most 1.3", func(p string) (float64, bool, bool) {
		x, ok := ratio("Validate", "Floor", p)
		return x, x <= 1.3, ok
	})
	target("`Validate` allocs/op on a valid value, 0", func(p string) (float64, bool, bool) {
		s, ok := med["Validate/"+p]
		return s.allocs, s.allocs == 0, ok
	})
	target("(`Materialize` + `Validate`) ÷ floor, at most 2.5", func(p string) (float64, bool, bool) {
		x, ok := ratio("MaterializeValidate", "Floor", p)
		return x, x <= 2.5, ok
	})
	target("santhosh-tekuri (decode + `Validate`) ÷ toolgen, at least 5", func(p string) (float64, bool, bool) {
		x, ok := ratio("Santhosh", "MaterializeValidate", p)
		return x, x >= 5, ok
	})
	target("google/jsonschema-go (decode + `Validate`) ÷ toolgen (no target)", func(p string) (float64, bool, bool) {
		x, ok := ratio("Google", "MaterializeValidate", p)
		return x, true, ok
	})

	if _, ok := med["ExecuteNoHooks/small"]; !ok {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The runtime (ratio to calling `Materialize`, `Validate` and render directly):")
	fmt.Fprintln(w)
	table(w, med, runtimeRows, "Direct")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | small | medium | nested |")
	fmt.Fprintln(w, "|---|---|---|---|")
	target("`Execute` (no hooks) ÷ direct, at most 1.5", func(p string) (float64, bool, bool) {
		x, ok := ratio("ExecuteNoHooks", "Direct", p)
		return x, x <= 1.5, ok
	})
	target("`Execute` (no hooks) allocs/op, under 20", func(p string) (float64, bool, bool) {
		s, ok := med["ExecuteNoHooks/"+p]
		return s.allocs, s.allocs < 20, ok
	})
	target("`Execute` with hooks ÷ without, under 2", func(p string) (float64, bool, bool) {
		x, ok := ratio("ExecuteHooks", "ExecuteNoHooks", p)
		return x, x < 2, ok
	})
	target("MCP Go SDK `CallTool` ÷ `Execute` with hooks (no target)", func(p string) (float64, bool, bool) {
		x, ok := ratio("MCPCallTool", "ExecuteHooks", p)
		return x, true, ok
	})
}

func num(x float64) string {
	if x >= 100 {
		return group(strconv.FormatFloat(x, 'f', 0, 64))
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

func size(b float64) string {
	if b >= 10_000 {
		return strconv.FormatFloat(b/1000, 'f', 1, 64) + "K"
	}
	return num(b)
}

// group inserts thousands separators.
func group(s string) string {
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
