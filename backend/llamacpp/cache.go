package llamacpp

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
// Running requests (sched.go) each own a slot until they end: take chooses
// among the idle slots only, and no other request clears, evicts or
// decodes into a busy one (a prefix may be copied from it: its tokens up
// to the prefix's end do not change). There is always an idle slot, since
// at most one request runs per slot.
//
// A prompt that will not fit beside what the slots hold makes its room
// before its first token is decoded (makeRoom): the least recently used
// idle slots are cleared until its tokens fit. Clearing them later, when a
// decode finds no room, would cost the same slots but place the prompt's
// first tokens in the cells after theirs, and llama.cpp's attention spans
// every cell up to the highest one in use: a 1,508-token prompt beside an
// idle 1,510-token conversation in a 2,048-cell context was decoded in
// 51–71 ms that way, against 41 ms in an empty cache, where it now is.
// When the cells are all taken all the same (llama_decode returns 1: no
// room for the batch, nothing decoded: answers grow, and the count below
// is a lower bound), the least recently used idle slots are cleared one by
// one and the batch decoded again; only with no idle slot left to clear
// does a request fail (step.go: the newest in the batch).
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
	busy   bool   // a running request owns it
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

// take chooses an idle slot for prompt and prepares it (see above): it
// returns the slot and how many of the prompt's tokens it holds already, at
// most all but the last; everything after them is removed from its
// sequence. With noReuse every idle slot is cleared and the request starts
// from an empty cache.
func (m *model) take(prompt []llamaToken) (*slot, int) {
	m.clock++
	mem := llamaGetMemory(m.lctx)
	if m.noReuse {
		for _, sl := range m.slots {
			if !sl.busy {
				m.clear(sl)
			}
		}
		sl := m.lru()
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
	if best == nil || best.busy || keep < len(best.cached) {
		// best runs a request, or would lose tokens: an empty slot takes
		// the request instead, else the least recently used idle one unless
		// best is idle and keeps at least half.
		if empty := m.empty(); empty != nil {
			target = empty
		} else if best == nil || best.busy || 2*keep < len(best.cached) {
			target = m.lru()
		}
		if target != best {
			m.clear(target)
			if best == nil || !m.canCopy {
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

// makeRoom clears least recently used idle slots until need more cells
// fit in the context beside the ones the slots hold (see above). Only for
// attention caches, where a token takes a cell: a recurrent or hybrid
// model's sequence holds its state in a few cells however long it is.
func (m *model) makeRoom(need int) {
	if !m.canCopy || m.noReuse {
		return
	}
	for m.cellsUsed()+need > m.nCtx && m.evictIdle() {
	}
}

// cellsUsed counts the cells the slots hold, a prefix copied from one slot
// into another (llama_memory_seq_cp) once: each slot's tokens less the
// longest prefix it shares with a slot before it. Two slots that decoded
// the same tokens each on their own hold a cell each, so this is a lower
// bound, and makeRoom never clears a slot the prompt does not need gone.
func (m *model) cellsUsed() int {
	n := 0
	for i, sl := range m.slots {
		shared := 0
		for _, o := range m.slots[:i] {
			shared = max(shared, commonPrefix(sl.cached, o.cached))
		}
		n += len(sl.cached) - shared
	}
	return n
}

// empty is an idle slot that holds nothing, or nil.
func (m *model) empty() *slot {
	for _, sl := range m.slots {
		if !sl.busy && len(sl.cached) == 0 {
			return sl
		}
	}
	return nil
}

// lru is the least recently used idle slot (there is always one: see
// above).
func (m *model) lru() *slot {
	var lru *slot
	for _, sl := range m.slots {
		if !sl.busy && (lru == nil || sl.used < lru.used) {
			lru = sl
		}
	}
	return lru
}

// clear removes sl's sequence from the memory. (llama.h: removing a whole
// sequence never fails, so the other slots, running or not, keep theirs.)
func (m *model) clear(sl *slot) {
	sl.cached = sl.cached[:0]
	llamaMemorySeqRm(llamaGetMemory(m.lctx), sl.seq, -1, -1)
}

// clearAll empties the memory and every slot; only when nothing runs
// (tests).
func (m *model) clearAll() {
	llamaMemoryClear(llamaGetMemory(m.lctx), true)
	for _, sl := range m.slots {
		sl.cached = sl.cached[:0]
	}
}

// decodeFault, set by tests, turns a decode llama.cpp did into a failure
// (the worst case: the cache changed, the caller is told it did not).
var decodeFault func() bool
