package decimal

import (
	"math/big"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRejectsNonNumbers(t *testing.T) {
	for _, text := range []string{
		"", "-", "+1", "01", "-01", "1.", ".5", "1e", "1e+", "1E-", "0x10",
		"1.5.2", "1e5e5", " 1", "1 ", "NaN", "Infinity", "-Infinity", "1_000",
		"١", "1e٣",
	} {
		_, ok := Parse([]byte(text))
		assert.False(t, ok, "%q", text)
	}
}

func TestIsInteger(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"0", true}, {"-0", true}, {"0.0", true}, {"0e-5", true}, {"-0.000e999999999999999999999", true},
		{"1", true}, {"1.0", true}, {"1.000", true}, {"1e2", true}, {"1E+2", true},
		{"12345678901234567890", true}, {"1e400", true},
		{"1e99999999999999999999999999", true},
		{"100e-2", true}, {"1000e-3", true}, {"10e-2", false},
		{"1.5", false}, {"1e-400", false}, {"12345678901234567890.5", false},
		{"1e-99999999999999999999999999", false}, {"0.1000000000000000000001", false},
		{"-2.50e1", true}, {"-2.5e1", true}, {"2.5e1", true}, {"25e-1", false}, {"2.5e2", true}, {"2.55e1", false},
		{"1.23e2", true}, {"1.23e1", false}, {"0.000001e6", true}, {"0.000001e5", false},
	}
	for _, tt := range tests {
		n, ok := Parse([]byte(tt.text))
		require.True(t, ok, tt.text)
		assert.Equal(t, tt.want, n.IsInteger(), tt.text)
		assert.Equal(t, tt.want, IsInteger([]byte(tt.text)), tt.text)
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"1", "1.0", true}, {"1", "1e0", true}, {"1", "10e-1", true}, {"1", "0.1e1", true},
		{"0", "-0", true}, {"0", "0.0e10", true}, {"-0.0", "0e-7", true},
		{"0.1", "1e-1", true}, {"0.1", "0.1000000000000000000001", false},
		{"12345678901234567890", "12345678901234567891", false},
		{"12345678901234567890", "1234567890123456789e1", true},
		{"12345678901234567890", "12345678901234567890.0", true},
		{"1e400", "1e400", true}, {"1e400", "10e399", true}, {"1e400", "1e401", false},
		{"-1", "1", false}, {"-1.5", "-15e-1", true}, {"2.5", "2.50", true},
		{"1e99999999999999999999", "1e99999999999999999999", true},
		{"1e99999999999999999999", "10e99999999999999999998", true},
		{"1e99999999999999999999", "1e99999999999999999998", false},
		{"1e99999999999999999999", "1e-99999999999999999999", false},
		{"1e-99999999999999999999", "0.1e-99999999999999999998", true},
		{"5", "5e00000000000000000000000000000000", true},
		{"100", "1e2", true}, {"100", "10", false}, {"120", "12", false}, {"1.2", "12", false},
	}
	for _, tt := range tests {
		a, ok := Parse([]byte(tt.a))
		require.True(t, ok, tt.a)
		b, ok := Parse([]byte(tt.b))
		require.True(t, ok, tt.b)
		assert.Equal(t, tt.want, a.Equal(b), "%s == %s", tt.a, tt.b)
		assert.Equal(t, tt.want, b.Equal(a), "%s == %s", tt.b, tt.a)
	}
}

// rat is the reference value of a number text with a modest exponent.
func rat(t testing.TB, text string) *big.Rat {
	r, ok := new(big.Rat).SetString(text)
	require.True(t, ok, text)
	return r
}

// FuzzAgainstBigRat checks Parse, IsInteger and Equal against math/big on
// numbers whose exponents math/big can expand.
func FuzzAgainstBigRat(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.0", "1e2", "12345678901234567890", "0.001", "-2.50e1", "100e-2"} {
		f.Add(s, "1")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		na, okA := Parse([]byte(a))
		nb, okB := Parse([]byte(b))
		if !okA || !okB {
			return
		}
		if len(a) > 200 || len(b) > 200 || hugeExp(a) || hugeExp(b) {
			return
		}
		ra, rb := rat(t, a), rat(t, b)
		assert.Equal(t, ra.IsInt(), na.IsInteger(), a)
		assert.Equal(t, ra.IsInt(), IsInteger([]byte(a)), a)
		assert.Equal(t, ra.Cmp(rb) == 0, na.Equal(nb), "%s == %s", a, b)
		assert.Equal(t, ra.Sign() == 0, na.IsZero(), a)
	})
}

// hugeExp reports whether text has an exponent too large to expand in a test.
func hugeExp(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] == 'e' || text[i] == 'E' {
			e, err := strconv.Atoi(text[i+1:])
			return err != nil || e > 400 || e < -400
		}
	}
	return false
}

func TestUint64(t *testing.T) {
	cases := []struct {
		text string
		mag  uint64
		neg  bool
		ok   bool
	}{
		{"0", 0, false, true},
		{"-0", 0, false, true},
		{"0e999999999999999999999", 0, false, true},
		{"127", 127, false, true},
		{"-128", 128, true, true},
		{"1e2", 100, false, true},
		{"1.5e1", 15, false, true},
		{"30e-1", 3, false, true},
		{"1.5", 0, false, false},
		{"18446744073709551615", 1<<64 - 1, false, true},
		{"18446744073709551616", 0, false, false},
		{"1.8446744073709551615e19", 1<<64 - 1, false, true},
		{"1e19", 1e19, false, true},
		{"1e20", 0, false, false},
		{"1e400", 0, false, false},
		{"-9223372036854775808", 1 << 63, true, true},
	}
	for _, c := range cases {
		n, ok := Parse([]byte(c.text))
		require.True(t, ok, c.text)
		mag, fits := n.Uint64()
		assert.Equal(t, c.ok, fits, c.text)
		assert.Equal(t, c.mag, mag, c.text)
		if fits {
			assert.Equal(t, c.neg, n.Negative(), c.text)
		}
	}
}
