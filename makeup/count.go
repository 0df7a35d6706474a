package makeup

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// counter counts variants of one full prompt. Windowed, it keeps the full
// prompt cut into chunks at line starts (a newline followed by a character
// that is not white space), with each chunk's count, and counts a variant as
// the full prompt's count minus the chunks that hold the difference plus the
// variant's text between the same cuts.
//
// That is exact when the tokenizer never lets a token or a pre-tokenizer word
// span such a cut, which holds for the byte-level BPE pre-tokenizers (GPT-2,
// Llama 3, Qwen2, …: a newline ends a word unless white space follows) and
// for special tokens without a newline inside. It does not hold for
// SentencePiece files that prepend "▁" to every stretch they are given: so
// the cut is checked on the full prompt — the chunks' counts must add up to
// its count — and without that the counter counts every variant whole.
type counter struct {
	c        Counter
	full     string
	total    int
	windowed bool
	cuts     []int // chunk starts: cuts[0] = 0; a sentinel len(full) last
	before   []int // before[k]: the tokens of the chunks before chunk k (no affixes)
	affix    int   // Count(""): what the runtime adds around a prompt
}

// minChunk is the least length of a chunk: shorter lines join the next, so
// that a prompt of many short lines is not counted in many short calls.
const minChunk = 64

func newCounter(c Counter, full string, exact bool) *counter {
	w := &counter{c: c, full: full, total: c.Count(full)}
	if exact {
		return w
	}
	w.affix = c.Count("")
	w.cuts = append(w.cuts, 0)
	for i := 1; i < len(full); i++ {
		if full[i-1] == '\n' && i-w.cuts[len(w.cuts)-1] >= minChunk && lineStart(full, i) {
			w.cuts = append(w.cuts, i)
		}
	}
	if len(w.cuts) < 3 {
		return w // too few lines to gain anything
	}
	w.cuts = append(w.cuts, len(full))
	w.before = make([]int, len(w.cuts))
	for k := 0; k+1 < len(w.cuts); k++ {
		w.before[k+1] = w.before[k] + c.Count(full[w.cuts[k]:w.cuts[k+1]]) - w.affix
	}
	w.windowed = w.before[len(w.cuts)-1]+w.affix == w.total
	return w
}

// lineStart reports whether s[i], just after a newline, starts something other
// than white space.
func lineStart(s string, i int) bool {
	c := s[i]
	if c < utf8.RuneSelf {
		return c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f'
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r != utf8.RuneError && !unicode.IsSpace(r)
}

// count is the tokens of v, a variant of the full prompt.
func (w *counter) count(v string) int {
	if !w.windowed {
		return w.c.Count(v)
	}
	full := w.full
	n := min(len(full), len(v))
	p := 0
	for p+64 <= n && full[p:p+64] == v[p:p+64] { // 64 bytes at a time, then byte by byte
		p += 64
	}
	for p < n && full[p] == v[p] {
		p++
	}
	if p == len(full) && p == len(v) {
		return w.total
	}
	s := 0
	for s+64 <= n-p && full[len(full)-s-64:len(full)-s] == v[len(v)-s-64:len(v)-s] {
		s += 64
	}
	for s < n-p && full[len(full)-1-s] == v[len(v)-1-s] {
		s++
	}
	// The window starts at the last cut before p (strictly: the byte at the
	// cut must be the same in both) and ends at the first cut after the
	// common suffix begins (strictly: the newline before it must be common).
	ka := sort.SearchInts(w.cuts, p) - 1 // cuts[ka] < p ≤ cuts[ka+1]
	if ka < 0 {
		ka = 0
	}
	last := len(w.cuts) - 1
	kb := sort.SearchInts(w.cuts, len(full)-s+1) // first cut ≥ len(full)-s+1
	if kb > last {
		kb = last
	}
	a, b := w.cuts[ka], w.cuts[kb]
	bv := b - len(full) + len(v)
	return w.total - (w.before[kb] - w.before[ka]) + w.c.Count(v[a:bv]) - w.affix
}
