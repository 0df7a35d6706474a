package llamacpp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// stream samples one answer, a token per step, while it holds its model's
// context. Next does the work; the context is given back at the last chunk,
// on an error or at Close.
var _ backend.PromptCounter = (*stream)(nil)

// PromptTokens is the prompt's length in tokens, known before the first chunk.
func (s *stream) PromptTokens() int { return s.promptTokens }

type stream struct {
	m    *model
	slot *slot // the model's slot the request took (cache.go)
	ctx  context.Context
	smpl *sampling

	promptTokens int
	cachedTokens int // of promptTokens, kept from an earlier request (cache.go)
	maxTokens    int
	stops        []string
	checked      int           // tokens checked against the grammar (sampling.checked)
	refused      int           // and refused by it (sampling.resampled)
	promptTime   time.Duration // decoding the prompt
	genTime      time.Duration // in step: decoding and sampling the answer

	pos     int         // tokens in the KV cache
	next    *llamaToken // sampled but not yet decoded
	tokens  int         // completion tokens sampled
	out     []byte      // the completion so far
	sent    int         // bytes of out already returned
	finish  chat.FinishReason
	stopAt  int // where a stop string starts in out; -1 for none
	done    bool
	mu      sync.Mutex // Next against Close
	relOnce sync.Once
}

// Next returns the next piece of text; the last chunk has the finish reason
// and the usage. A cancelled context ends the stream with its error.
func (s *stream) Next() (backend.Chunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.done {
			return backend.Chunk{}, io.EOF
		}
		if s.finish != "" {
			return s.last(), nil
		}
		if err := s.ctx.Err(); err != nil {
			s.release()
			return backend.Chunk{}, err
		}
		if err := s.step(); err != nil {
			s.release()
			return backend.Chunk{}, err
		}
		if s.finish == "" {
			if text := s.ready(); text != "" {
				return backend.Chunk{Text: text}, nil
			}
		}
	}
}

// step samples one token (decoding the previous one first), or sets finish.
func (s *stream) step() error {
	start := time.Now()
	defer func() { s.genTime += time.Since(start) }()
	m := s.m
	if s.next != nil {
		t := []llamaToken{*s.next}
		s.next = nil
		if rc := m.eval(s.slot, t); rc != 0 {
			return fmt.Errorf("llama_decode failed (%d) after %d tokens: %s", rc, s.tokens, orUnknown(takeProblems()))
		}
		s.pos++
	}
	if s.maxTokens > 0 && s.tokens >= s.maxTokens || s.pos >= m.nCtx {
		s.finish = chat.FinishLength
		return nil
	}
	t, err := s.smpl.sample(m)
	if err != nil {
		return fmt.Errorf("sampling after %d tokens: %w", s.tokens, err)
	}
	if llamaVocabIsEOG(m.vocab, t) {
		s.finish = chat.FinishStop
		return nil
	}
	s.tokens++
	s.out = m.piece(t, s.out)
	s.next = &t
	if i := s.stopIndex(); i >= 0 {
		s.finish, s.stopAt = chat.FinishStop, i
	}
	return nil
}

// stopIndex is where the first stop string starts in the unsent text, or -1.
// Sent text never holds the start of one (ready holds such text back).
func (s *stream) stopIndex() int {
	best := -1
	for _, stop := range s.stops {
		if i := bytes.Index(s.out[s.sent:], []byte(stop)); i >= 0 && (best < 0 || s.sent+i < best) {
			best = s.sent + i
		}
	}
	return best
}

// ready returns the text that can go out now: all but a tail that may be the
// start of a stop string or an incomplete UTF-8 character.
func (s *stream) ready() string {
	end := len(s.out)
	hold := 0
	for _, stop := range s.stops {
		for k := min(len(stop)-1, end-s.sent); k > hold; k-- {
			if bytes.HasSuffix(s.out[:end], []byte(stop[:k])) {
				hold = k
				break
			}
		}
	}
	end -= hold
	end = s.sent + completeUTF8(s.out[s.sent:end])
	text := string(s.out[s.sent:end])
	s.sent = end
	return text
}

// completeUTF8 is the length of b without a trailing incomplete character.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// last is the final chunk: what was held back (up to a stop string), the
// finish reason, the usage and the timings. The context is given back.
func (s *stream) last() backend.Chunk {
	end := len(s.out)
	if s.stopAt >= 0 {
		end = s.stopAt
	}
	c := backend.Chunk{
		Text:         string(s.out[s.sent:max(end, s.sent)]),
		FinishReason: s.finish,
		Usage:        &chat.Usage{PromptTokens: s.promptTokens, CompletionTokens: s.tokens},
		Timings: &backend.Timings{PromptTokens: s.promptTokens - s.cachedTokens, CachedTokens: s.cachedTokens,
			PromptMS: ms(s.promptTime), GeneratedTokens: s.tokens, GenerateMS: ms(s.genTime)},
		StopReported: true, // the engine knows what ended the answer
	}
	for _, stop := range s.stops { // the one stopIndex found: first in order at stopAt
		if s.stopAt >= 0 && bytes.HasPrefix(s.out[s.stopAt:], []byte(stop)) {
			c.StopSequence = stop
			break
		}
	}
	s.sent = len(s.out)
	s.release()
	return c
}

// Close gives the model's context back; it may be called at any time, more
// than once.
func (s *stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.release()
	return nil
}

// release frees the sampler and gives the context back, once.
func (s *stream) release() {
	s.done = true
	s.relOnce.Do(func() {
		if s.smpl != nil {
			s.checked, s.refused = s.smpl.checked, s.smpl.resampled
			s.smpl.free()
			s.smpl = nil
		}
		s.m.release()
	})
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
