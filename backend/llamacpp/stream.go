package llamacpp

import (
	"bytes"
	"context"
	"io"
	"time"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// stream is the request's side of a sequence (sched.go): Next reads the
// chunks the scheduler sends on the sequence's channel. Closing the stream,
// or the request's context ending, makes the scheduler drop the sequence
// at its next step.
var _ backend.PromptCounter = (*stream)(nil)

// PromptTokens is the prompt's length in tokens, known before the first chunk.
func (s *stream) PromptTokens() int { return s.promptTokens }

type stream struct {
	m   *model
	s   *seq // only s.out and s.closed are the stream's to use
	ctx context.Context

	promptTokens int
	checked      int // tokens checked against the grammar (sampling.checked)
	refused      int // and refused by it (sampling.resampled)
	promptStep   int64
	done         bool
	onWait       func() // backend.WaitNotifier
}

// OnWait: see backend.WaitNotifier; Next calls f when no chunk is waiting in
// the sequence's channel.
func (s *stream) OnWait(f func()) { s.onWait = f }

// Next returns the next piece of text; the last chunk has the finish reason
// and the usage. A cancelled context ends the stream with its error.
func (s *stream) Next() (backend.Chunk, error) {
	if s.done || s.s.closed.Load() {
		return backend.Chunk{}, io.EOF
	}
	if err := s.ctx.Err(); err != nil {
		s.leave()
		return backend.Chunk{}, err
	}
	if s.onWait != nil && len(s.s.out) == 0 {
		s.onWait()
	}
	select {
	case ev, ok := <-s.s.out:
		s.m.wake() // there is room for the sequence's next chunk
		if !ok {   // dropped: the context ended (or Close, above)
			s.done = true
			if err := s.ctx.Err(); err != nil {
				return backend.Chunk{}, err
			}
			return backend.Chunk{}, io.EOF
		}
		if ev.err != nil || ev.chunk.FinishReason != "" {
			s.done = true
			s.checked, s.refused, s.promptStep = ev.checked, ev.refused, ev.promptStep
		}
		return ev.chunk, ev.err
	case <-s.ctx.Done():
		s.leave()
		return backend.Chunk{}, s.ctx.Err()
	}
}

// leave ends the stream for its reader and tells the scheduler.
func (s *stream) leave() {
	s.done = true
	s.Close()
}

// Close drops the sequence (the scheduler frees it at its next step); it
// may be called at any time, more than once, from any goroutine.
func (s *stream) Close() error {
	if !s.s.closed.Swap(true) {
		s.m.wake()
	}
	return nil
}

// stopIndex is where the first stop string starts in the unsent text, or -1.
// Sent text never holds the start of one (ready holds such text back).
func (s *seq) stopIndex() int {
	best := -1
	for _, stop := range s.stops {
		if i := bytes.Index(s.text[s.sent:], []byte(stop)); i >= 0 && (best < 0 || s.sent+i < best) {
			best = s.sent + i
		}
	}
	return best
}

// ready returns the text that can go out now: all but a tail that may be the
// start of a stop string or an incomplete UTF-8 character.
func (s *seq) ready() string {
	end := len(s.text)
	hold := 0
	for _, stop := range s.stops {
		for k := min(len(stop)-1, end-s.sent); k > hold; k-- {
			if bytes.HasSuffix(s.text[:end], []byte(stop[:k])) {
				hold = k
				break
			}
		}
	}
	end -= hold
	end = s.sent + completeUTF8(s.text[s.sent:end])
	text := string(s.text[s.sent:end])
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
// finish reason, the usage and the timings.
func (s *seq) last(finish chat.FinishReason) backend.Chunk {
	end := len(s.text)
	if s.stopAt >= 0 {
		end = s.stopAt
	}
	n := len(s.prompt)
	slot := int(s.slot.seq)
	c := backend.Chunk{
		Text:         string(s.text[s.sent:max(end, s.sent)]),
		FinishReason: finish,
		Usage:        &chat.Usage{PromptTokens: n, CompletionTokens: s.tokens},
		Timings: &backend.Timings{PromptTokens: n - s.cached, CachedTokens: s.cached,
			PromptMS: ms(s.promptTime), GeneratedTokens: s.tokens, GenerateMS: ms(s.genTime), Slot: &slot},
		StopReported: true, // the engine knows what ended the answer
	}
	for _, stop := range s.stops { // the one stopIndex found: first in order at stopAt
		if s.stopAt >= 0 && bytes.HasPrefix(s.text[s.stopAt:], []byte(stop)) {
			c.StopSequence = stop
			break
		}
	}
	s.sent = len(s.text)
	return c
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
