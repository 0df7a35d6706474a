package ascii

import (
	"math/rand/v2"
	"testing"
)

// HasControl's eight-bytes-at-a-time test agrees with a byte loop on every
// length, position and byte value near the boundary.
func TestHasControl(t *testing.T) {
	naive := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 {
				return true
			}
		}
		return false
	}
	rng := rand.New(rand.NewPCG(1, 2))
	edge := []byte{0x00, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0x9f, 0xa0, 0xff, 'a'}
	for n := 0; n < 40; n++ {
		for trial := 0; trial < 200; trial++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = 0x20 + byte(rng.IntN(0xe0)) // no control byte
			}
			if n > 0 && trial%2 == 0 {
				b[rng.IntN(n)] = edge[rng.IntN(len(edge))]
			}
			if got, want := HasControl(string(b)), naive(string(b)); got != want {
				t.Fatalf("%q: %v, want %v", b, got, want)
			}
		}
	}
}
