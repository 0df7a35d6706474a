package llamacpp

import "unsafe"

// Prompt-prefix reuse, in several slots. Agents resend the whole
// conversation with every request, so a prompt usually starts with an
// earlier one (and often with the answer that followed it); and they send
// side requests to the same model between their turns (a title, a summary,
// a sub-agent), which must not cost the main conversation its cache.
//
// A model's context has Options.Slots slots. Each slot is a llama.cpp
// sequence (its id is the slot's index) whose tokens, from position 0, the
// slot remembers (slot.cached). The KV cache is unified: one pool of n_ctx
// cells that every sequence draws from, so one conversation alone can fill
// the whole context, and a prefix copied into another sequence shares its
// cells (llama_memory_seq_cp) instead of taking more.
//
// A request takes a slot (take). The slot holding the longest common prefix
// with its prompt takes it when that loses nothing, all its tokens being a
// prefix of the prompt: an agent's resent turn. Otherwise an empty slot
// takes the request, the common prefix copied into it from the slot that
// holds it, so that both conversations stay cached: a title request sharing
// a system prompt with the main conversation reuses those tokens and leaves
// the main conversation whole. With no empty slot, the best slot takes the
// request when it keeps at least half of its tokens (a resent turn whose
// last answer the template renders differently), else the least recently
// used slot does, cleared, the prefix copied into it. The slot keeps the
// prefix, less the prompt's last token (whose logits the first sample
// needs), removes the rest (llama_memory_seq_rm) and decodes only the
// suffix, into its own sequence (a llama_batch with explicit positions and
// sequence id).
//
// When the cells are all taken (llama_decode returns 1: no room for the
// batch, nothing decoded), the least recently used other slots are cleared
// one by one and the batch decoded again; only with no other slot left to
// clear does the request fail.
//
// A slot's cached is only ever what llama.cpp holds: a token is appended
// after the llama_decode that put it there returned 0, a failed decode
// forgets the slot (its whole sequence is removed, the other slots stay),
// and a token sampled but not yet decoded is not in it. A request cancelled
// half-way leaves exactly what it decoded. Where llama.cpp cannot remove
// part of a sequence (recurrent or hybrid memory), or no longer holds the
// whole prefix (a sliding-window cache drops old positions), the slot is
// cleared and decodes the whole prompt; prefixes are not copied between
// slots of such models.

// DefaultSlots is the number of slots when Options.Slots is 0.
const DefaultSlots = 4

// maxSlots is llama.cpp's limit on sequences in one context (LLAMA_MAX_SEQ).
const maxSlots = 256

// slot is one cached conversation: a llama.cpp sequence and its tokens.
type slot struct {
	seq    int32
	cached []llamaToken
	used   uint64 // the model's clock when a request last took it; 0: never
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []llamaToken) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// take chooses the slot for prompt and prepares it (see above): it returns
// the slot and how many of the prompt's tokens it holds already, at most
// all but the last; everything after them is removed from its sequence.
// With noReuse every slot is cleared and the request starts from an empty
// cache, as with one slot before.
func (m *model) take(prompt []llamaToken) (*slot, int) {
	m.clock++
	mem := llamaGetMemory(m.lctx)
	if m.noReuse {
		m.clearAll()
		sl := m.slots[0]
		sl.used = m.clock
		return sl, 0
	}
	var best *slot
	keep := 0
	for _, sl := range m.slots {
		n := min(commonPrefix(sl.cached, prompt), len(prompt)-1)
		if n > keep || n == keep && n > 0 && sl.used > best.used {
			best, keep = sl, n
		}
	}
	target := best
	if best == nil || keep < len(best.cached) {
		// best would lose tokens: an empty slot takes the request instead,
		// else the least recently used one unless best keeps at least half.
		if empty := m.empty(); empty != nil {
			target = empty
		} else if best == nil || 2*keep < len(best.cached) {
			target = m.lru()
		}
		if target != best {
			m.clear(target)
			if best == nil || !m.canCopy || len(best.cached) < keep { // (clear may have emptied every slot)
				keep = 0
			} else {
				llamaMemorySeqCp(mem, best.seq, target.seq, 0, int32(keep))
				target.cached = append(target.cached[:0], best.cached[:keep]...)
			}
		}
	}
	target.used = m.clock
	if keep > 0 && (!llamaMemorySeqRm(mem, target.seq, int32(keep), -1) ||
		llamaMemorySeqPosMin(mem, target.seq) != 0 || llamaMemorySeqPosMax(mem, target.seq) != int32(keep-1)) {
		keep = 0
	}
	if keep == 0 {
		m.clear(target)
	}
	target.cached = target.cached[:keep]
	return target, keep
}

// empty is a slot that holds nothing, or nil.
func (m *model) empty() *slot {
	for _, sl := range m.slots {
		if len(sl.cached) == 0 {
			return sl
		}
	}
	return nil
}

// lru is the least recently used slot.
func (m *model) lru() *slot {
	lru := m.slots[0]
	for _, sl := range m.slots[1:] {
		if sl.used < lru.used {
			lru = sl
		}
	}
	return lru
}

// clear removes sl's sequence from the memory; should llama.cpp refuse, the
// whole memory is cleared.
func (m *model) clear(sl *slot) {
	sl.cached = sl.cached[:0]
	if !llamaMemorySeqRm(llamaGetMemory(m.lctx), sl.seq, -1, -1) {
		m.clearAll()
	}
}

// clearAll empties the memory and every slot.
func (m *model) clearAll() {
	llamaMemoryClear(llamaGetMemory(m.lctx), true)
	for _, sl := range m.slots {
		sl.cached = sl.cached[:0]
	}
}

// evictFor clears the least recently used slot other than sl that holds
// tokens, to make room for sl's batch; false when there is none.
func (m *model) evictFor(sl *slot) bool {
	var lru *slot
	for _, o := range m.slots {
		if o != sl && len(o.cached) > 0 && (lru == nil || o.used < lru.used) {
			lru = o
		}
	}
	if lru == nil {
		return false
	}
	m.clear(lru)
	return true
}

// eval decodes tokens (at most n_batch) after those sl holds, into its
// sequence, and records them. When the memory has no room for them, other
// slots are evicted first (evictFor). When llama_decode fails otherwise,
// what sl's sequence holds is unknown, so the slot is forgotten.
func (m *model) eval(sl *slot, tokens []llamaToken) int32 {
	n := len(tokens)
	if n == 0 || n > m.nBatch {
		panic("llamacpp: eval of a batch that is empty or larger than n_batch")
	}
	b := &m.batch
	tok := unsafe.Slice(b.token, n)
	pos := unsafe.Slice(b.pos, n)
	nSeq := unsafe.Slice(b.nSeqID, n)
	seqs := unsafe.Slice(b.seqID, n)
	logits := unsafe.Slice(b.logits, n)
	start := int32(len(sl.cached))
	for i, t := range tokens {
		tok[i], pos[i], nSeq[i], logits[i] = t, start+int32(i), 1, 0
		*seqs[i] = sl.seq
	}
	logits[n-1] = 1 // the last token's logits, for the sampler
	b.nTokens = int32(n)
	for {
		rc := decode(m.lctx, b)
		if rc == 0 && decodeFault != nil && decodeFault() {
			rc = -1
		}
		if rc == 1 && m.evictFor(sl) {
			takeProblems() // llama.cpp's warning that the memory was full
			continue
		}
		if rc != 0 {
			m.clear(sl)
			return rc
		}
		sl.cached = append(sl.cached, tokens...)
		return 0
	}
}

// decodeFault, set by tests, turns a decode llama.cpp did into a failure
// (the worst case: the cache changed, the caller is told it did not).
var decodeFault func() bool
