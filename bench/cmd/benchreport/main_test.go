package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sampleOutput = `goos: linux
BenchmarkFloor/small-2         	 8799100	       100.0 ns/op	 323.19 MB/s	       0 B/op	       0 allocs/op
BenchmarkFloor/small-2         	 8799100	       140.0 ns/op	 323.19 MB/s	       0 B/op	       0 allocs/op
BenchmarkFloor/small-2         	 8799100	       120.0 ns/op	 323.19 MB/s	       0 B/op	       0 allocs/op
BenchmarkValidate/small-2      	 8799100	        60.0 ns/op	 323.19 MB/s	       0 B/op	       0 allocs/op
BenchmarkMaterializeValidate/small-2 	 100	       360.0 ns/op	      64 B/op	       1 allocs/op
BenchmarkSanthosh/small-2      	 100	      3600 ns/op	    4001 B/op	      46 allocs/op
PASS
`

func TestReport(t *testing.T) {
	runs, err := parse(strings.NewReader(sampleOutput))
	require.NoError(t, err)
	require.Len(t, runs["Floor/small"], 3)
	assert.Equal(t, 120.0, median(runs["Floor/small"]).ns)
	assert.Equal(t, 50.0, median([]sample{{ns: 40}, {ns: 60}}).ns)

	med := map[string]sample{}
	for k, v := range runs {
		med[k] = median(v)
	}
	var out bytes.Buffer
	write(&out, med, map[string]int{"Floor/small": 3})
	text := out.String()
	assert.Contains(t, text, "Medians of 3 runs")
	assert.Contains(t, text, "| 60 · 0 · 0 (0.50×) |")
	assert.Contains(t, text, "| `Validate` ÷ floor, at most 1.3 | 0.50 ✓ | – | – |")
	assert.Contains(t, text, "| (`Materialize` + `Validate`) ÷ floor, at most 2.5 | 3.00 ✗ |")
	assert.Contains(t, text, "at least 5 | 10.00 ✓ |")
}
