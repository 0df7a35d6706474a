package llamacpp

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// tokenEngine is an engine with the tiny tool-call model (the real Qwen3
// tokenizer) whose prompts are tokenized without loading its weights.
func tokenEngine(t *testing.T) *model {
	t.Helper()
	e, err := New(Options{LibDir: libDir(t), Models: []string{modelPath(t, "tiny-qwen3-toolcall.gguf")}, ContextSize: 2048, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e.byID["tiny-qwen3-toolcall"]
}

// sameAsWhole tokenizes p through the cache and whole, and fails when they
// differ; it returns the tokens the cache gave.
func sameAsWhole(t *testing.T, m *model, p string) []llamaToken {
	t.Helper()
	got, err := m.tokenize(p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.tokenizeText(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("tokens differ from the whole prompt's at %d of %d/%d; prompt %q", i, len(got), len(want), p)
	}
	return got
}

// An agent's turns: each prompt resends the last with its answer and one
// more message; the cache gives the whole prompt's tokens and takes all but
// the last few from the previous prompt.
func TestTokenizeResentTurnsFromCache(t *testing.T) {
	m := tokenEngine(t)
	turns := []string{"You are a careful assistant. " + strings.Repeat("Remember the list: apples, pears, plums. ", 40), "Which fruit comes second?"}
	for i := range 6 {
		before := m.tokens.reused.Load()
		p := conversation(turns...)
		toks := sameAsWhole(t, m, p)
		reused := m.tokens.reused.Load() - before
		if i > 0 && (reused < int64(len(toks))*3/4 || reused >= int64(len(toks))) {
			t.Errorf("turn %d: %d of %d tokens taken from the cache, want most but not all", i, reused, len(toks))
		}
		turns = append(turns, "Pears, the second of three.", "And the one after that? Answer in a word.")
	}
	if !m.tokens.usable || m.tokens.maxSpecial < len("<|im_start|>") {
		t.Errorf("usable %v, longest special token %d bytes", m.tokens.usable, m.tokens.maxSpecial)
	}
}

// Prompts that share text in ways a cut could get wrong: an edit just after
// a special token, one inside a special token's text, whitespace before
// one, a special token's text split at the end of what is shared, split
// UTF-8, text that shrinks; each tokenized through the cache equals the
// whole prompt's tokens.
func TestTokenizeCacheEdges(t *testing.T) {
	m := tokenEngine(t)
	long := strings.Repeat("The quick brown fox jumps over the lazy dog, 狐狸跳过了懒狗. ", 20)
	base := conversation(long, "First answer.", "Second question?")
	prompts := []string{
		base,
		base + "Third answer.<|im_end|>\n<|im_start|>user\nMore?<|im_end|>\n<|im_start|>assistant\n",
		strings.Replace(base, "<|im_start|>assistant\nFirst", "<|im_start|>assistant\n First", 1),
		strings.Replace(base, "First answer.<|im_end|>", "First answer.  <|im_end|>", 1),
		strings.Replace(base, "<|im_end|>\n<|im_start|>user\nSecond", "<|im_e", 1),
		strings.Replace(base, "<|im_end|>\n<|im_start|>user\nSecond", "<|im_endX|>\n<|im_start|>user\nSecond", 1),
		base[:len(base)-3],
		base[:strings.LastIndex(base, "狐")+1],
		strings.Replace(base, "Second question?", "<tool_call>\n{\"name\": \"f\"}\n</tool_call>", 1),
		base,
		// A word of 340 letters is one piece for the pre-tokenizer: its
		// tokens depend on all of it, so a cut inside it (at any token,
		// not a special one) would give other tokens.
		base + strings.Repeat("supercalifragilistic", 17),
		base + strings.Repeat("supercalifragilistic", 17) + "expialidocious<|im_end|>\n",
		base + strings.Repeat("=", 301),
		base + strings.Repeat("=", 307) + "\n",
		base + strings.Repeat("ab", 150),
		base + strings.Repeat("ab", 157) + "a",
	}
	for _, p := range prompts {
		sameAsWhole(t, m, p)
	}
	if m.tokens.reused.Load() == 0 {
		t.Error("no prompt took tokens from the cache")
	}
}

// Random edits of a conversation (inserted or removed special tokens,
// whitespace, partial markers, multi-byte text at random places): the
// cache always gives the whole prompt's tokens.
func TestTokenizeCacheRandomEdits(t *testing.T) {
	m := tokenEngine(t)
	r := rand.New(rand.NewPCG(7, 19))
	pieces := []string{"<|im_start|>", "<|im_end|>", "<|endoftext|>", "<tool_call>", "</think>", " ", "\n", "\n\n", "  ", "<|", "im_end|>", "|>", "é", "狐", "🦊", "word", " word", "123", "\t"}
	p := conversation(strings.Repeat("Some words of the system prompt and more. ", 30), "A question?", "An answer.", "Next question?")
	n := 300
	if testing.Short() {
		n = 60
	}
	for range n {
		at := r.IntN(len(p) + 1)
		switch r.IntN(3) {
		case 0: // append a turn
			p += pieces[r.IntN(len(pieces))] + "more text" + pieces[r.IntN(len(pieces))]
		case 1: // insert at a random byte (may split UTF-8)
			p = p[:at] + pieces[r.IntN(len(pieces))] + p[at:]
		default: // cut a random span
			p = p[:at] + p[min(len(p), at+r.IntN(12)):]
		}
		sameAsWhole(t, m, p)
	}
	if m.tokens.reused.Load() == 0 {
		t.Error("no prompt took tokens from the cache")
	}
}
