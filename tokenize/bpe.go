package tokenize

import "sync"

// The merge loop, as llama.cpp's llm_tokenizer_bpe_session and Hugging Face's
// BPE model run it: every byte of the word starts as its own symbol; the
// adjacent pair with the lowest merge rank (the leftmost among equal ranks) is
// merged, and its neighbours' pairs are queued anew, until no queued pair has a
// merge. Symbols are token ids, so a pair's merge is one map lookup.

type symbol struct {
	id         int32
	prev, next int32 // indices into the symbol slice, -1 at the ends
	dead       bool
}

type bigram struct {
	rank        uint32
	left, right int32
	lid, rid    int32 // the ids the pair was queued with; a changed id makes the entry stale
	merged      int32
}

type bpeScratch struct {
	syms []symbol
	heap []bigram
	out  []int32
}

var bpeScratchPool = sync.Pool{New: func() any { return new(bpeScratch) }}

func (t *Tokenizer) mergeOf(l, r int32) (rank uint32, merged int32, ok bool) {
	v, ok := t.merges[uint64(uint32(l))<<32|uint64(uint32(r))]
	return uint32(v >> 32), int32(uint32(v)), ok
}

func (sc *bpeScratch) reset() {
	sc.syms = sc.syms[:0]
	sc.heap = sc.heap[:0]
	sc.out = sc.out[:0]
}

// add appends a symbol to the word being built.
func (sc *bpeScratch) add(id int32) {
	n := int32(len(sc.syms))
	sc.syms = append(sc.syms, symbol{id: id, prev: n - 1, next: n + 1})
}

// merge runs byte-level BPE on w: its bytes are the first symbols.
func (sc *bpeScratch) merge(t *Tokenizer, w string) []int32 {
	sc.reset()
	for i := 0; i < len(w); i++ {
		sc.syms = append(sc.syms, symbol{id: t.byteID[w[i]], prev: int32(i - 1), next: int32(i + 1)})
	}
	return sc.run(t)
}

// run merges the symbols in sc.syms (linked in order) and returns the ids.
func (sc *bpeScratch) run(t *Tokenizer) []int32 {
	if len(sc.syms) == 0 {
		return sc.out
	}
	sc.syms[len(sc.syms)-1].next = -1
	for i := 1; i < len(sc.syms); i++ {
		sc.push(t, int32(i-1), int32(i))
	}
	for len(sc.heap) > 0 {
		b := sc.pop()
		l, r := &sc.syms[b.left], &sc.syms[b.right]
		if l.dead || r.dead || l.id != b.lid || r.id != b.rid {
			continue
		}
		l.id = b.merged
		r.dead = true
		l.next = r.next
		if r.next >= 0 {
			sc.syms[r.next].prev = b.left
		}
		if l.prev >= 0 {
			sc.push(t, l.prev, b.left)
		}
		if l.next >= 0 {
			sc.push(t, b.left, l.next)
		}
	}
	// The first symbol only ever grows, so the chain starts at 0.
	for i := int32(0); i >= 0; i = sc.syms[i].next {
		if id := sc.syms[i].id; id >= 0 {
			sc.out = append(sc.out, id)
		}
	}
	return sc.out
}

func (sc *bpeScratch) push(t *Tokenizer, left, right int32) {
	lid, rid := sc.syms[left].id, sc.syms[right].id
	if lid < 0 || rid < 0 {
		return
	}
	rank, merged, ok := t.mergeOf(lid, rid)
	if !ok {
		return
	}
	h := append(sc.heap, bigram{rank: rank, left: left, right: right, lid: lid, rid: rid, merged: merged})
	// sift up
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	sc.heap = h
}

func less(a, b *bigram) bool {
	return a.rank < b.rank || (a.rank == b.rank && a.left < b.left)
}

func (sc *bpeScratch) pop() bigram {
	h := sc.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(&h[r], &h[l]) {
			m = r
		}
		if !less(&h[m], &h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	sc.heap = h
	return top
}
