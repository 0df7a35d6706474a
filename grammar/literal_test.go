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
		cut := rng.IntN(len(s) + 1)
		if got := LiteralOf(s[:cut], "", s[cut:]); got != want {
			t.Fatalf("LiteralOf(%q, %q) = %s, want %s", s[:cut], s[cut:], got, want)
		}
		if got := string(AppendLiteralOf([]byte("x"), s[:cut], s[cut:])); got != "x"+want {
			t.Fatalf("AppendLiteralOf(%q, %q) = %s, want %s", s[:cut], s[cut:], got, want)
		}
		if got, want := Alternatives([]string{s[:cut], s[cut:]}), "("+Literal(s[:cut])+" | "+Literal(s[cut:])+")"; got != want {
			t.Fatalf("Alternatives(%q, %q) = %s, want %s", s[:cut], s[cut:], got, want)
		}
	}
}

// Rule refuses a name GBNF cannot hold, and accepts every valid one.
func TestRuleNames(t *testing.T) {
	for _, name := range []string{"bad name", "a_b", "", "é"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Rule(%q) did not panic", name)
				}
			}()
			New().Rule(name, `"x"`)
		}()
	}
	g := New()
	for _, name := range []string{"root", "a-b", "Z9"} {
		g.Rule(name, `"x"`)
		g.Rule(name, `"y"`) // replacing keeps the place
	}
	if got := g.String(); got != "root ::= \"y\"\na-b ::= \"y\"\nZ9 ::= \"y\"\n" {
		t.Errorf("grammar %q", got)
	}
}
