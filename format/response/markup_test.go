package response

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// markupOnlyRef is markupOnly as it was written with Go's regexp.
var markupTokenRef = regexp.MustCompile(`<[^<>\s]{1,64}>|\[/?[A-Z][A-Z_]{0,31}\]`)

func markupOnlyRef(s string) bool {
	tok := markupTokenRef
	if !tok.MatchString(s) {
		return false
	}
	rest := strings.Fields(tok.ReplaceAllString(s, " "))
	if len(rest) == 0 {
		return true
	}
	if len(rest) > 1 || len(rest[0]) > 16 {
		return false
	}
	for _, r := range rest[0] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_') {
			return false
		}
	}
	return true
}

// TestMarkupOnly: the scanner answers as the regexp it replaces, on the
// framing the shared templates leave and on random mixes of its pieces.
func TestMarkupOnly(t *testing.T) {
	cases := []string{"<|start|>assistant", "<|end|>", "</s>", "[/INST]", "[INST] hi", "<|start|>assistant <|x|>", "hello",
		"<>", "< a>", "[a]", "[/]", "[A_]", "<" + strings.Repeat("x", 64) + ">", "<" + strings.Repeat("x", 65) + ">",
		"[A" + strings.Repeat("B", 31) + "]", "[A" + strings.Repeat("B", 32) + "]", "<é>word", "<\xff>", "<|a|>\u00a0b\u0085c", "<a>\vb"}
	for _, c := range cases {
		if got, want := markupOnly(c), markupOnlyRef(c); got != want {
			t.Errorf("markupOnly(%q) = %v, the regexp says %v", c, got, want)
		}
	}
	pieces := []string{"<", ">", "[", "]", "/", "A", "Z", "_", "a", "|", " ", "\t", "\n", "\v", "\f", "\u00a0", "é", "\xff", "x", "start", "INST", "<|end|>", "[/INST]", "assistant", "1"}
	rng := rand.New(rand.NewSource(5))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.Intn(10); n >= 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		if got, want := markupOnly(s), markupOnlyRef(s); got != want {
			t.Fatalf("markupOnly(%q) = %v, the regexp says %v", s, got, want)
		}
	}
}
