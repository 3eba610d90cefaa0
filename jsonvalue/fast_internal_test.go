package jsonvalue

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func plainByte(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }

func TestPlainMatchesBytewiseCheck(t *testing.T) {
	var w [8]byte
	for c := range 256 {
		for pos := range 8 {
			for i := range w {
				w[i] = 'a'
			}
			w[pos] = byte(c)
			require.Equal(t, plainByte(byte(c)), special(binary.LittleEndian.Uint64(w[:])) == 0, "byte %#x at %d", c, pos)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0, 0x1f, 0x20, '!', '"', '#', '[', '\\', ']', 0x7f, 0x80, 0xff, 'a'}
	for range 200_000 {
		want := true
		for i := range w {
			w[i] = alphabet[r.IntN(len(alphabet))]
			want = want && plainByte(w[i])
		}
		require.Equal(t, want, special(binary.LittleEndian.Uint64(w[:])) == 0, "%q", w)
	}
}

func TestSpecialFlagsTheFirstSpecialByteExactly(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte{0, 0x1f, 0x20, '!', '"', '#', '[', '\\', ']', 0x7f, 0x80, 0xff, 'a', 'b'}
	var w [8]byte
	for range 200_000 {
		first := 8
		for i := range w {
			w[i] = alphabet[r.IntN(len(alphabet))]
			if first == 8 && !plainByte(w[i]) {
				first = i
			}
		}
		m := special(binary.LittleEndian.Uint64(w[:]))
		if first == 8 {
			require.Zero(t, m, "%q", w)
			continue
		}
		require.Equal(t, first, bits.TrailingZeros64(m)>>3, "%q", w)
	}
}
