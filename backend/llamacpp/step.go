package llamacpp

import (
	"fmt"
	"net/http"
	"slices"
	"time"
	"unsafe"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// One step of the scheduler (sched.go): a batch of every running sequence,
// one llama_decode, then a token sampled for each sequence whose logits came
// out.
//
// Fairness, after llama-server's slots: every generating sequence puts its
// one token into every batch, so a long prompt never stops another's
// answer; prompt tokens fill the rest of the batch up to n_ubatch tokens
// (llama.cpp's compute batch, 512 by default), so a step with a long prompt
// in it costs one micro-batch, not n_batch tokens, and the answers around it
// keep their pace; and that room is shared evenly among the prompts being
// decoded (shares), so a short prompt that arrives behind a long one is
// decoded in a step or two, not after it.

// entry is one sequence's part of a batch: tokens after those its slot
// holds, the last one's logits wanted when logits is set. s is nil for a
// test's decode into a bare slot.
type entry struct {
	s      *seq
	sl     *slot
	toks   []llamaToken
	logits bool
	at     int32 // the last token's index in the batch
}

// plan is the next batch: the generated token of each sequence whose
// reader has room, then the prompts' shares (above).
func (m *model) plan() []entry {
	var plan []entry
	var prompts []*seq
	for _, s := range m.active {
		switch {
		case s.prompting():
			prompts = append(prompts, s)
		case s.hasNext && s.room():
			plan = append(plan, entry{s: s, sl: s.slot, toks: []llamaToken{s.next}, logits: true})
		}
	}
	if len(prompts) == 0 {
		return plan
	}
	// At least one prompt token per step, so that prompts advance however
	// many answers run (capacity keeps them within n_batch).
	budget := min(max(m.nUbatch-len(plan), 1), m.nBatch-len(plan))
	rest := make([]int, len(prompts))
	for i, s := range prompts {
		rest[i] = len(s.prompt) - s.fed
	}
	for i, n := range shares(rest, budget) {
		if s := prompts[i]; n > 0 {
			plan = append(plan, entry{s: s, sl: s.slot, toks: s.prompt[s.fed : s.fed+n], logits: s.fed+n == len(s.prompt)})
		}
	}
	return plan
}

// shares divides budget tokens among prompts that have rest[i] tokens left:
// evenly, what a short one does not need going to the others (water
// filling), the remainder to the earliest. The sum is min(budget, sum of rest).
func shares(rest []int, budget int) []int {
	out := make([]int, len(rest))
	for budget > 0 {
		open := 0
		for i := range rest {
			if out[i] < rest[i] {
				open++
			}
		}
		if open == 0 {
			break
		}
		each, extra := budget/open, budget%open
		for i := range rest {
			if out[i] >= rest[i] {
				continue
			}
			n := each
			if extra > 0 {
				n, extra = n+1, extra-1
			}
			n = min(n, rest[i]-out[i])
			out[i] += n
			budget -= n
		}
	}
	return out
}

// step decodes plan and samples for every sequence whose logits came out.
// Each generating sequence is charged the step's time (its generation time
// then leaves out the time its reader kept it waiting).
func (m *model) step(plan []entry) {
	start := time.Now()
	plan = m.decodePlan(plan)
	due := m.due[:0]
	for _, e := range plan {
		s := e.s
		if s.prompting() {
			s.fed += len(e.toks)
			if s.prompting() {
				continue
			}
			s.promptTime = time.Since(s.admitted)
			s.promptStep = m.stats.decodes.Load()
			s.started <- nil
		} else {
			s.hasNext = false
		}
		if s.maxTokens > 0 && s.tokens >= s.maxTokens || len(s.slot.cached) >= m.nCtx {
			m.finish(s, chat.FinishLength)
			continue
		}
		due = append(due, draw{s: s, at: e.at, logits: llamaGetLogitsIth(m.lctx, e.at)})
	}
	m.sampleAll(due)
	for i := range due {
		m.generate(due[i])
	}
	clear(due) // the sequences may end before the next step
	m.due = due[:0]
	d := time.Since(start)
	for _, e := range plan {
		if e.s.tokens > 0 {
			e.s.genTime += d
		}
	}
}

// decodePlan decodes plan in one llama_decode and returns the entries
// decoded (their tokens recorded in their slots). When the memory has no
// room for the batch (llama_decode 1: nothing decoded), the least recently
// used idle slot is cleared and the batch tried again; with none left, the
// newest running request gives way (outOfCells) and the batch is tried
// without it: one request's full context does not end the others, and
// which one gives way does not hang on whose reader was quicker (it need
// not be in this batch). Any other failure
// fails every sequence in the batch: what their slots hold is unknown.
func (m *model) decodePlan(plan []entry) []entry {
	for len(plan) > 0 {
		rc := m.decode(plan)
		switch {
		case rc == 0:
			m.count(plan)
			return plan
		case rc == 1 && m.evictIdle():
			m.stats.full.Add(1)
			takeProblems() // llama.cpp's warning that the memory was full
		case rc == 1:
			m.stats.full.Add(1)
			s := m.active[len(m.active)-1] // admission order
			m.outOfCells(s)
			plan = slices.DeleteFunc(plan, func(e entry) bool { return e.s == s })
		default:
			for _, e := range plan {
				m.failDecode(e.s, rc)
			}
			return nil
		}
	}
	return nil
}

// decode fills the batch from plan and runs llama_decode on it; on success
// the tokens are appended to their slots.
func (m *model) decode(plan []entry) int32 {
	m.fill(plan)
	rc := decode(m.lctx, &m.batch)
	if rc == 0 && decodeFault != nil && decodeFault() {
		rc = -1
	}
	if rc == 0 {
		for _, e := range plan {
			e.sl.cached = append(e.sl.cached, e.toks...)
		}
	}
	return rc
}

// fill writes plan into the model's llama_batch: each entry's tokens at the
// positions after those its slot holds, in its slot's sequence, logits
// asked for where wanted (entry.at says where they will be).
func (m *model) fill(plan []entry) {
	n := 0
	for _, e := range plan {
		n += len(e.toks)
	}
	if n == 0 || n > m.nBatch {
		panic("llamacpp: a batch that is empty or larger than n_batch")
	}
	b := &m.batch
	tok := unsafe.Slice(b.token, n)
	pos := unsafe.Slice(b.pos, n)
	nSeq := unsafe.Slice(b.nSeqID, n)
	seqs := unsafe.Slice(b.seqID, n)
	logits := unsafe.Slice(b.logits, n)
	i := 0
	for k := range plan {
		e := &plan[k]
		start := int32(len(e.sl.cached))
		for j, t := range e.toks {
			tok[i], pos[i], nSeq[i], logits[i] = t, start+int32(j), 1, 0
			*seqs[i] = e.sl.seq
			i++
		}
		e.at = int32(i - 1)
		if e.logits {
			logits[i-1] = 1
		}
	}
	b.nTokens = int32(n)
}

// count records a decode in the stats.
func (m *model) count(plan []entry) {
	m.stats.decodes.Add(1)
	m.stats.seqs.Add(int64(len(plan)))
	if n := int32(len(plan)); n > m.stats.maxSeqs.Load() {
		m.stats.maxSeqs.Store(n) // only the scheduler writes
	}
}

// evictIdle clears the least recently used slot that no sequence runs in
// and that holds tokens; false when there is none.
func (m *model) evictIdle() bool {
	var lru *slot
	for _, o := range m.slots {
		if !o.busy && len(o.cached) > 0 && (lru == nil || o.used < lru.used) {
			lru = o
		}
	}
	if lru == nil {
		return false
	}
	m.clear(lru)
	return true
}

// outOfCells ends s, the newest running request, when the cells the
// running requests hold together fill the context and no idle slot is left
// to clear. An answer under way ends as one that reached the context's end
// would: finish "length", every token generated delivered (an error here
// would throw away text the model produced, and the client could not tell
// it from a broken engine). A prompt not yet decoded is refused with a 503
// the client may retry once the others end: the request is not wrong, the
// engine is busy. Either way s's slot is kept, idle: the next decode that
// needs cells clears it first.
func (m *model) outOfCells(s *seq) {
	takeProblems() // llama.cpp's warning that the memory was full
	if !s.prompting() {
		m.finish(s, chat.FinishLength)
		return
	}
	m.fail(s, &backend.Error{Kind: backend.Embedded, Status: http.StatusServiceUnavailable, Message: fmt.Sprintf(
		"%s's context of %d tokens is held by %d other running requests and has no room for this prompt: retry when they end, or start the engine with a larger -ctx or -kv-budget",
		m.id, m.nCtx, len(m.active)-1)})
}

// failDecode ends s after a failed decode, with the error requests got
// before the scheduler; its slot is cleared (after a failure other than a
// full memory, what the slot holds is unknown).
func (m *model) failDecode(s *seq, rc int32) {
	m.clear(s.slot)
	if s.prompting() {
		m.fail(s, fmt.Errorf("llama_decode of the prompt failed (%d): %s", rc, orUnknown(takeProblems())))
		return
	}
	m.fail(s, fmt.Errorf("llama_decode failed (%d) after %d tokens: %s", rc, s.tokens, orUnknown(takeProblems())))
}

// fail ends s with err: Complete returns it while the prompt is being
// decoded, the stream's Next after.
func (m *model) fail(s *seq, err error) {
	if s.prompting() {
		s.started <- err
	} else {
		s.out <- event{err: err, checked: s.smpl.checked, refused: s.smpl.resampled}
	}
	m.end(s)
}

// generate follows the draw of s's next token (sampleAll), the answer not
// at max_tokens or the context's end: an end-of-generation token or a stop
// string ends it, other text goes out. The token is decoded in the next
// step (hasNext).
func (m *model) generate(d draw) {
	s, t, err := d.s, d.token, d.err
	if err != nil {
		m.fail(s, fmt.Errorf("sampling after %d tokens: %w", s.tokens, err))
		return
	}
	if llamaVocabIsEOG(m.vocab, t) {
		m.finish(s, chat.FinishStop)
		return
	}
	s.tokens++
	s.text = m.piece(t, s.text)
	s.next, s.hasNext = t, true
	if i := s.stopIndex(); i >= 0 {
		s.stopAt = i
		m.finish(s, chat.FinishStop)
		return
	}
	if text := s.ready(); text != "" {
		s.out <- event{chunk: backend.Chunk{Text: text}}
	}
}

// finish sends s's last chunk and ends it.
func (m *model) finish(s *seq, why chat.FinishReason) {
	s.out <- event{chunk: s.last(why), checked: s.smpl.checked, refused: s.smpl.resampled, promptStep: s.promptStep}
	m.end(s)
}
