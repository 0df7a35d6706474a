package grammar

import (
	"math/rand/v2"
	"testing"
)

// Literal's shortcuts (punctuation, plain text, printable ASCII with quotes
// or backslashes) write what the general escaping writes.
func TestLiteralShortcuts(t *testing.T) {
	alphabet := []string{"a", "Z", "0", " ", `"`, `\`, "{", "}", ":", ",", "\n", "\t", "\x00", "\x7f", "é", "€", "😀", "\u2028", "\xff"}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 5000; trial++ {
		s := ""
		for n := rng.IntN(8); n > 0; n-- {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		want := string(append(appendLiteralBody([]byte{'"'}, s), '"'))
		if got := Literal(s); got != want {
			t.Fatalf("Literal(%q) = %s, want %s", s, got, want)
		}
	}
}
