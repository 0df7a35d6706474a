package llamacpp

import (
	"errors"
	"math"
	"runtime"
	"sync"
	"unsafe"
)

// sampling is one request's sampler: the chain (repetition penalty, then
// greedy, or top-k, top-p, min-p, temperature and a seeded draw) and, when
// the output is constrained, llama.cpp's grammar sampler beside it.
//
// With a grammar, a token is drawn from the chain alone first and only that
// token is checked against the grammar (a one-candidate array): the grammar
// costs one token's check instead of a pass over the whole vocabulary
// (151,936 candidates for Qwen3). When the grammar refuses the token, the
// candidates are built again from the logits, the grammar is applied to all
// of them, and the chain draws again from what is left. Both samplers then
// accept the token. This is what llama.cpp's own sampler (common_sampler)
// does. A lazy grammar waiting for its trigger lets every token through.
type sampling struct {
	chain, grammar llamaSampler
	// grammarFirst applies the grammar to every candidate before the chain
	// at every token: the engine's first way, kept for the benchmark.
	grammarFirst bool
	// checked counts the tokens checked against the grammar, and
	// resampled those it refused.
	checked, resampled int

	cand []tokenData    // the candidates, one per vocabulary entry
	arr  tokenDataArray // over cand
	one  tokenData      // the token being checked
	oneA tokenDataArray // over one
}

// grammarFirst, when true, makes new requests apply the grammar to the whole
// vocabulary before the chain (BenchmarkGrammar compares both ways).
var grammarFirst = false

// spreadMin is the fewest draws spread over goroutines: a spread draw fills
// its candidates in Go, slower than llama_sampler_sample's C (0.15–0.19 ms
// for 151,936), so on two cores spreading pays only for many draws
// (BenchmarkConcurrent: 64 streams 1,030–1,439 tokens/s spread against
// 1,021–1,074 one after the other; 16 streams 1,057–1,121 against
// 1,059–1,294). A variable for the tests.
var spreadMin = 32

// draw is one sequence's next token in a step: its logits (read from the
// context before the draws start), and the token drawn or why none was.
type draw struct {
	s      *seq
	at     int32 // the row's index in the batch
	logits *float32
	token  llamaToken
	err    error
}

// sampleAll draws every sequence's next token. A draw reads only its own
// logits row and its own samplers (the vocabulary they consult is
// read-only), so the draws of a step run on as many goroutines as Go has
// processors: between two decodes, llama.cpp's threads are idle, and on a
// large vocabulary sampling is a third of a step (151,936 candidates a
// token; docs/PERFORMANCE.md). The rows are read from the context first,
// one after the other, because llama_get_logits_ith may reorder the
// context's outputs on its first call after a decode.
func (m *model) sampleAll(due []draw) {
	workers := min(len(due), runtime.GOMAXPROCS(0))
	if workers < 2 || len(due) < spreadMin || m.serialDraws.Load() {
		for i := range due {
			d := &due[i]
			if d.s.smpl.grammar == 0 && d.logits != nil && d.at >= 0 && m.lctx != 0 {
				// One after the other, llama_sampler_sample may read the
				// context: it fills the candidates in C, faster than the
				// Go loop (0.15–0.19 ms of a token's 1.4 ms on one stream).
				d.token = llamaSamplerSample(d.s.smpl.chain, m.lctx, d.at)
				continue
			}
			d.sample(m.nVocab)
		}
		return
	}
	m.stats.spread.Add(1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(due); i += workers {
				due[i].sample(m.nVocab)
			}
		})
	}
	wg.Wait()
}

func (d *draw) sample(nVocab int32) {
	if d.logits == nil {
		d.err = errors.New("llama.cpp has no logits for the last token")
		return
	}
	d.token, d.err = d.s.smpl.sample(unsafe.Slice(d.logits, nVocab))
}

// sample picks the next token from a sequence's row of logits.
func (s *sampling) sample(lg []float32) (llamaToken, error) {
	if s.grammar == 0 {
		t, err := s.pick(lg, false)
		if err == nil {
			llamaSamplerAccept(s.chain, t)
		}
		return t, err
	}
	if !s.grammarFirst {
		s.checked++
		t, err := s.pick(lg, false)
		if err != nil {
			return 0, err
		}
		s.one = tokenData{id: t, logit: 1}
		s.oneA = tokenDataArray{data: &s.one, size: 1, selected: -1}
		llamaSamplerApply(s.grammar, &s.oneA)
		if !math.IsInf(float64(s.one.logit), -1) {
			s.accept(t)
			return t, nil
		}
		s.resampled++
	}
	t, err := s.pick(lg, true)
	if err != nil {
		return 0, err
	}
	s.accept(t)
	return t, nil
}

// pick fills the candidates from the logits, applies the grammar (when
// withGrammar) and the chain, and returns the chain's choice.
func (s *sampling) pick(logits []float32, withGrammar bool) (llamaToken, error) {
	if len(s.cand) != len(logits) {
		s.cand = make([]tokenData, len(logits))
	}
	c := s.cand
	for i, l := range logits {
		c[i] = tokenData{id: llamaToken(i), logit: l}
	}
	s.arr = tokenDataArray{data: &c[0], size: uintptr(len(c)), selected: -1}
	if withGrammar {
		llamaSamplerApply(s.grammar, &s.arr)
	}
	llamaSamplerApply(s.chain, &s.arr)
	// The samplers may point data elsewhere (llama.h says so); read it back.
	got := unsafe.Slice(s.arr.data, s.arr.size)
	if s.arr.selected < 0 || s.arr.selected >= int64(len(got)) {
		return 0, errors.New("llama.cpp's sampler selected no token")
	}
	t := got[s.arr.selected]
	if withGrammar && math.IsInf(float64(t.logit), -1) {
		return 0, errors.New("the grammar allows no token here")
	}
	return t.id, nil
}

// accept tells both samplers the token was chosen: the grammar advances,
// the penalty remembers it.
func (s *sampling) accept(t llamaToken) {
	llamaSamplerAccept(s.grammar, t)
	llamaSamplerAccept(s.chain, t)
}

// free releases both samplers.
func (s *sampling) free() {
	if s.grammar != 0 {
		llamaSamplerFree(s.grammar)
		s.grammar = 0
	}
	if s.chain != 0 {
		llamaSamplerFree(s.chain)
		s.chain = 0
	}
}
