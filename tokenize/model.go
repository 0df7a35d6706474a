package tokenize

import (
	"container/heap"
	"strings"
	"sync"
	"unicode/utf8"
)

// The models besides byte-level BPE (bpe.go): the SentencePiece family,
// whose words are made of characters rather than bytes, with "▁" for a
// space and "<0xXX>" tokens for the bytes of characters the vocabulary
// lacks.

type modelKind uint8

const (
	// modelByteBPE: GPT-2's byte-level BPE (GGUF "gpt2", tokenizer.json BPE
	// behind a ByteLevel pre-tokenizer).
	modelByteBPE modelKind = iota
	// modelCharBPE: tokenizer.json BPE over characters, with byte fallback
	// (SentencePiece BPE converted: Llama 2, Mistral v1–v3, Gemma).
	modelCharBPE
	// modelSPM: llama.cpp's SentencePiece BPE (GGUF "llama"): adjacent
	// symbols whose concatenation is a token are merged, highest score first.
	modelSPM
	// modelUnigram: the Unigram model (tokenizer.json Unigram): the
	// segmentation with the highest total score (Viterbi).
	modelUnigram
)

func (k modelKind) String() string {
	switch k {
	case modelCharBPE:
		return "bpe"
	case modelSPM:
		return "spm"
	case modelUnigram:
		return "unigram"
	}
	return "byte-level bpe"
}

// spaceMark is SentencePiece's visible space.
const spaceMark = "\u2581"

// metaspace is the step that turns spaces into "▁" and puts one before a
// segment (Hugging Face's Metaspace pre-tokenizer; llama.cpp's
// add_space_prefix and whitespace escaping for SPM vocabularies).
type metaspace struct {
	replacement   string
	prepend       bool
	firstOnly     bool // only the segment at the start of the text (prepend_scheme "first")
	unlessPresent bool // not when the segment already starts with the replacement (Hugging Face)
	prefixSpace   bool // llama.cpp: a space is put before the text, then every space escaped
}

func (m *metaspace) apply(s string, first bool) string {
	if m.prefixSpace {
		s = " " + s
	}
	s = strings.ReplaceAll(s, " ", m.replacement)
	if m.prepend && (first || !m.firstOnly) && !(m.unlessPresent && strings.HasPrefix(s, m.replacement)) {
		s = m.replacement + s
	}
	return s
}

// finishChars sets what the SentencePiece models need beyond the vocabulary:
// the byte tokens, pieces with "▁" shown as a space, and the cutting of text
// into words no token spans (spacewords.go).
func (t *Tokenizer) finishChars() {
	for b := range t.byteTok {
		t.byteTok[b] = -1
	}
	for id, s := range t.texts {
		if b, ok := byteToken(s); ok {
			if t.byteTok[b] < 0 {
				t.byteTok[b] = int32(id)
			}
			t.pieces[id] = string([]byte{b})
			continue
		}
		if t.types[id] == TypeNormal || t.types[id] == TypeUndefined || t.types[id] == TypeUserDefined {
			t.pieces[id] = strings.ReplaceAll(s, spaceMark, " ")
		} else {
			t.pieces[id] = s
		}
	}
	t.cutAtSpaces()
}

// byteToken parses a byte token's text, "<0xXX>".
func byteToken(s string) (byte, bool) {
	if len(s) != 6 || s[:3] != "<0x" || s[5] != '>' {
		return 0, false
	}
	hex := func(c byte) (byte, bool) {
		switch {
		case c >= '0' && c <= '9':
			return c - '0', true
		case c >= 'A' && c <= 'F':
			return c - 'A' + 10, true
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10, true
		}
		return 0, false
	}
	hi, ok1 := hex(s[3])
	lo, ok2 := hex(s[4])
	return hi<<4 | lo, ok1 && ok2
}

// addFallback appends the tokens for a character the vocabulary lacks: its
// bytes' tokens when the model falls back to bytes and has them all, else
// the unknown token (once for a run of unknown characters when fuse is set).
// It returns whether the unknown token was used.
func (t *Tokenizer) addFallback(sc *bpeScratch, ch string, prevUnk bool) bool {
	if t.byteFallback {
		ok := true
		for i := 0; i < len(ch); i++ {
			if t.byteTok[ch[i]] < 0 {
				ok = false
				break
			}
		}
		if ok {
			for i := 0; i < len(ch); i++ {
				sc.add(t.byteTok[ch[i]])
			}
			return false
		}
	}
	if t.unk >= 0 && !(t.fuseUnk && prevUnk) {
		sc.add(t.unk)
	}
	return true
}

// charBPE runs Hugging Face's BPE on a word's characters.
func (t *Tokenizer) charBPE(w string, sc *bpeScratch) []int32 {
	sc.reset()
	prevUnk := false
	for i := 0; i < len(w); {
		_, n := utf8.DecodeRuneInString(w[i:])
		ch := w[i : i+n]
		i += n
		if id, ok := t.vocab[ch]; ok {
			sc.add(id)
			prevUnk = false
			continue
		}
		prevUnk = t.addFallback(sc, ch, prevUnk)
	}
	return sc.run(t)
}

// spmSymbol is a stretch of the text in llama.cpp's SPM merge.
type spmSymbol struct {
	start, end int32
	prev, next int32
}

type spmBigram struct {
	score       float32
	left, right int32
	size        int32 // bytes of the pair when queued; a changed size makes the entry stale
}

type spmHeap []spmBigram

func (h spmHeap) Len() int { return len(h) }
func (h spmHeap) Less(i, j int) bool {
	return h[i].score > h[j].score || (h[i].score == h[j].score && h[i].left < h[j].left)
}
func (h spmHeap) Swap(i, j int)        { h[i], h[j] = h[j], h[i] }
func (h *spmHeap) Push(x any)          { *h = append(*h, x.(spmBigram)) }
func (h *spmHeap) Pop() any            { old := *h; x := old[len(old)-1]; *h = old[:len(old)-1]; return x }
func (h *spmHeap) reset()              { *h = (*h)[:0] }
func (h *spmHeap) pushBig(b spmBigram) { heap.Push(h, b) }

type spmScratch struct {
	syms []spmSymbol
	heap spmHeap
}

// spm runs llama.cpp's SentencePiece BPE on w (already escaped): every
// character is a symbol; the adjacent pair whose concatenation is a token
// with the highest score (the leftmost among equal scores) is merged, until
// no pair is a token. A symbol that is not a token is written as its bytes'
// tokens.
func (t *Tokenizer) spm(w string, sc *bpeScratch, ss *spmScratch) []int32 {
	ss.syms = ss.syms[:0]
	ss.heap.reset()
	for i := 0; i < len(w); {
		_, n := utf8.DecodeRuneInString(w[i:])
		k := int32(len(ss.syms))
		ss.syms = append(ss.syms, spmSymbol{start: int32(i), end: int32(i + n), prev: k - 1, next: k + 1})
		i += n
	}
	if len(ss.syms) == 0 {
		return nil
	}
	ss.syms[len(ss.syms)-1].next = -1
	tryPair := func(l, r int32) {
		if l < 0 || r < 0 {
			return
		}
		a, b := ss.syms[l], ss.syms[r]
		id, ok := t.vocab[w[a.start:b.end]]
		if !ok {
			return
		}
		ss.heap.pushBig(spmBigram{score: t.scores[id], left: l, right: r, size: b.end - a.start})
	}
	for i := int32(1); i < int32(len(ss.syms)); i++ {
		tryPair(i-1, i)
	}
	for ss.heap.Len() > 0 {
		b := heap.Pop(&ss.heap).(spmBigram)
		l, r := &ss.syms[b.left], &ss.syms[b.right]
		if l.end == l.start || r.end == r.start || l.next != b.right || r.end-l.start != b.size {
			continue
		}
		l.end = r.end
		r.start = r.end // dead
		l.next = r.next
		if r.next >= 0 {
			ss.syms[r.next].prev = b.left
		}
		tryPair(l.prev, b.left)
		tryPair(b.left, l.next)
	}
	sc.reset()
	for i := int32(0); i >= 0; i = ss.syms[i].next {
		s := ss.syms[i]
		text := w[s.start:s.end]
		if id, ok := t.vocab[text]; ok {
			sc.out = append(sc.out, id)
			continue
		}
		for k := 0; k < len(text); k++ {
			if id := t.byteTok[text[k]]; id >= 0 {
				sc.out = append(sc.out, id)
			} else if t.unk >= 0 {
				sc.out = append(sc.out, t.unk)
			}
		}
	}
	return sc.out
}

// pieceTrie is a byte trie of the vocabulary, for the Unigram lattice.
type pieceTrie struct {
	edges    map[uint64]int32
	terminal []int32
}

func newPieceTrie(tokens []string, types []TokenType) pieceTrie {
	tr := pieceTrie{edges: make(map[uint64]int32, len(tokens)*2), terminal: []int32{-1}}
	for id, s := range tokens {
		if s == "" || types[id] == TypeUnused {
			continue
		}
		node := int32(0)
		for i := 0; i < len(s); i++ {
			key := uint64(node)<<8 | uint64(s[i])
			child, ok := tr.edges[key]
			if !ok {
				child = int32(len(tr.terminal))
				tr.terminal = append(tr.terminal, -1)
				tr.edges[key] = child
			}
			node = child
		}
		if tr.terminal[node] < 0 {
			tr.terminal[node] = int32(id)
		}
	}
	return tr
}

type latticeNode struct {
	score float64
	start int32
	id    int32
	set   bool
}

// unigram finds the segmentation of w with the highest total score; a
// character no piece starts with is an unknown token of score min-10, and
// runs of unknown characters are one unknown token (or their bytes' tokens
// with byte fallback).
func (t *Tokenizer) unigram(w string, sc *bpeScratch) []int32 {
	sc.reset()
	if w == "" {
		return nil
	}
	best := make([]latticeNode, len(w)+1)
	best[0].set = true
	for i := 0; i < len(w); {
		_, n := utf8.DecodeRuneInString(w[i:])
		if !best[i].set {
			i += n
			continue
		}
		single := false
		node := int32(0)
		for j := i; j < len(w); j++ {
			child, ok := t.trie.edges[uint64(node)<<8|uint64(w[j])]
			if !ok {
				break
			}
			node = child
			if id := t.trie.terminal[node]; id >= 0 {
				end := j + 1
				score := best[i].score + t.scores64[id]
				if !best[end].set || score > best[end].score {
					best[end] = latticeNode{score: score, start: int32(i), id: id, set: true}
				}
				if end == i+n {
					single = true
				}
			}
		}
		if !single {
			end := i + n
			score := best[i].score + t.unkScore
			if !best[end].set || score > best[end].score {
				best[end] = latticeNode{score: score, start: int32(i), id: -1, set: true}
			}
		}
		i += n
	}
	// Walk back from the end, then reverse; unknown runs are fused.
	for end := len(w); end > 0; {
		nd := best[end]
		start := int(nd.start)
		if nd.id < 0 || nd.id == t.unk {
			for start > 0 && (best[start].id < 0 || best[start].id == t.unk) {
				start = int(best[start].start)
			}
			t.unknownRun(sc, w[start:end])
		} else {
			sc.out = append(sc.out, nd.id)
		}
		end = start
	}
	for i, j := 0, len(sc.out)-1; i < j; i, j = i+1, j-1 {
		sc.out[i], sc.out[j] = sc.out[j], sc.out[i]
	}
	return sc.out
}

// unknownRun appends, reversed, the tokens of a run of unknown characters.
func (t *Tokenizer) unknownRun(sc *bpeScratch, s string) {
	if id, ok := t.vocab[s]; ok {
		sc.out = append(sc.out, id)
		return
	}
	if t.byteFallback {
		ok := true
		for i := 0; i < len(s); i++ {
			ok = ok && t.byteTok[s[i]] >= 0
		}
		if ok {
			for i := len(s) - 1; i >= 0; i-- {
				sc.out = append(sc.out, t.byteTok[s[i]])
			}
			return
		}
	}
	if t.unk >= 0 {
		sc.out = append(sc.out, t.unk)
	}
}

var spmScratchPool = sync.Pool{New: func() any { return new(spmScratch) }}
