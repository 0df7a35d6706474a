package llamacpp

// Prompt-prefix reuse. Agents resend the whole conversation with every
// request, so a prompt usually starts with the previous one (and often with
// the answer that followed it). The model's context keeps the KV cache of
// the tokens it decoded last, in order from position 0, and the model
// remembers those tokens (model.cached). The next request keeps the cache
// for the longest common prefix of its prompt and those tokens, removes the
// rest (llama_memory_seq_rm) and decodes only the suffix: always at least
// the prompt's last token, whose logits the first sample needs.
//
// model.cached is only ever what llama.cpp holds: a token is appended after
// the llama_decode that put it there returned 0, a failed decode forgets
// everything (the next request starts from an empty cache), and a token
// sampled but not yet decoded is not in it. A request cancelled half-way
// leaves exactly what it decoded.

// seq is the one sequence the engine uses.
const seq = 0

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

// reuse prepares the context for prompt: it keeps the cached prefix the
// prompt starts with, less the prompt's last token, and returns its length;
// everything after it is removed. When llama.cpp cannot remove part of a
// sequence (recurrent or hybrid memory), or no longer holds the whole
// prefix (a sliding-window cache drops old positions), the memory is
// cleared and 0 returned.
func (m *model) reuse(prompt []llamaToken) int {
	mem := llamaGetMemory(m.lctx)
	keep := 0
	if !m.noReuse {
		keep = min(commonPrefix(m.cached, prompt), len(prompt)-1)
	}
	if keep > 0 && (!llamaMemorySeqRm(mem, seq, int32(keep), -1) ||
		llamaMemorySeqPosMin(mem, seq) != 0 || llamaMemorySeqPosMax(mem, seq) != int32(keep-1)) {
		keep = 0
	}
	if keep == 0 {
		llamaMemoryClear(mem, true)
	}
	m.cached = m.cached[:keep]
	return keep
}

// eval decodes tokens after those in the cache and records them; when
// llama_decode fails, what the cache holds is unknown, so it is forgotten
// and the next request starts from an empty cache.
func (m *model) eval(tokens []llamaToken) int32 {
	rc := decode(m.lctx, tokens)
	if rc == 0 && decodeFault != nil && decodeFault() {
		rc = -1
	}
	if rc != 0 {
		m.cached = m.cached[:0]
		return rc
	}
	m.cached = append(m.cached, tokens...)
	return 0
}

// decodeFault, set by tests, turns a decode llama.cpp did into a failure
// (the worst case: the cache changed, the caller is told it did not).
var decodeFault func() bool
