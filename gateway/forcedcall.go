package gateway

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/plan"
	"github.com/dragoman-dev/dragoman/trace"
)

// A forced call whose grammar lets the model reason first can spend the
// whole output limit reasoning and end with no call (the random-weights
// model did so for 1 of 50 seeds, on llama-server and in the engine). Where
// the limit has room for reasoning (plan.ForcedReasoningMin), the answer is
// written in up to two passes: the first may use the limit less a reserve
// kept for the call; if it ends on that limit with the reasoning still open,
// the gateway closes the reasoning itself and a second pass, constrained to
// the call alone, writes the call within the reserve. The client sees one
// answer: the reasoning, then the call.

// callPass is the second pass of a forced call, ready to run.
type callPass struct {
	x       *exchange
	tools   []chat.Tool
	first   backend.CompleteRequest // the first pass, as sent
	reserve int
	// startsOpen says the prompt left the reasoning open: the first pass
	// begins inside it.
	startsOpen bool
}

// budgetForcedCall splits a forced call's output limit between reasoning
// and the call where plan.SplitForcedCall says so: it lowers creq's limit
// to the first pass's and returns the second pass; nil when nothing is split.
func (x *exchange) budgetForcedCall(tools []chat.Tool, reasoningOpen bool, creq *backend.CompleteRequest) *callPass {
	sp := plan.SplitForcedCall(x.forcedFacts(reasoningOpen), creq, func() int { return x.contextRoom(creq.Prompt) })
	if sp.Decision != "" {
		x.rec.Decide(sp.Decision)
	}
	if sp.Reserve == 0 {
		return nil
	}
	creq.MaxTokens = sp.First
	return &callPass{x: x, tools: tools, first: *creq, reserve: sp.Reserve, startsOpen: reasoningOpen}
}

// contextRoom is how many tokens the model's context leaves after prompt;
// 0 when the context or the prompt's size is unknown.
func (x *exchange) contextRoom(prompt string) int {
	st := x.rt.state
	if st.contextLength <= 0 || st.tok == nil {
		return 0
	}
	return st.contextLength - st.tok.Count(prompt)
}

// stillReasoning reports whether raw, the first pass's output, ends inside
// the reasoning: the grammar admits reasoning once, at the start.
func (p *callPass) stillReasoning(raw string) bool {
	calls := p.x.rt.state.family.Calls
	if !p.startsOpen {
		i := strings.Index(raw, calls.ThinkOpen)
		if i < 0 {
			return false
		}
		raw = raw[i+len(calls.ThinkOpen):]
	}
	return !strings.Contains(raw, calls.ThinkClose)
}

// start begins the second pass after raw, the first pass's output: the
// prompt continued with raw and the reasoning's closer, the output limited
// to the reserve and constrained to the call alone.
func (p *callPass) start(ctx context.Context, raw string) (backend.Stream, string, error) {
	x := p.x
	closer := x.rt.state.family.Calls.ThinkClose + "\n\n"
	creq := p.first
	creq.Prompt = p.first.Prompt + raw + closer
	creq.MaxTokens = p.reserve
	creq.Grammar, creq.GrammarLazy, creq.GrammarTriggers, creq.PreservedTokens = "", false, nil, nil
	q := x.callFacts(p.tools, false)
	q.NoReasoning = true
	if _, err := plan.Calls(ctx, q, &creq); err != nil {
		return nil, "", fromPlan(err)
	}
	s, err := x.rt.up.be.Complete(ctx, creq)
	if err != nil {
		return nil, "", upstreamFailure(err)
	}
	return s, closer, nil
}

// twoPassStream is a forced call's answer over one or two passes, as one
// stream: the first pass's chunks as they come, but for its end; if that
// end is the limit inside the reasoning, the closer the gateway wrote and
// the second pass's chunks. Usage and timings are the two passes' together.
type twoPassStream struct {
	ctx  context.Context
	pass *callPass
	cur  backend.Stream
	raw  strings.Builder // the first pass's output
	// second is set once the second pass has begun; held is the first
	// pass's last chunk (its finish, usage and timings), kept until the
	// answer's end.
	second  bool
	held    *backend.Chunk
	pending []backend.Chunk
	done    bool // the held chunk has been returned: only io.EOF is left
}

func newTwoPassStream(ctx context.Context, pass *callPass, first backend.Stream) *twoPassStream {
	return &twoPassStream{ctx: ctx, pass: pass, cur: first}
}

func (s *twoPassStream) Next() (backend.Chunk, error) {
	if len(s.pending) > 0 {
		c := s.pending[0]
		s.pending = s.pending[1:]
		return c, nil
	}
	if s.done {
		return backend.Chunk{}, io.EOF
	}
	c, err := s.cur.Next()
	if s.second {
		return s.fromSecond(c, err)
	}
	if err != nil {
		return c, err
	}
	s.raw.WriteString(c.Text)
	if c.FinishReason != chat.FinishLength || !s.pass.stillReasoning(s.raw.String()) {
		return c, nil
	}
	return s.begin(c)
}

// fromSecond passes on the second pass's chunks, its last one carrying
// both passes' usage. A second pass that ends without a last chunk of its
// own (a runtime that closed the stream) ends on the first pass's: cut by
// the limit.
func (s *twoPassStream) fromSecond(c backend.Chunk, err error) (backend.Chunk, error) {
	switch {
	case err == io.EOF && s.held != nil:
		s.done = true
		held := *s.held
		held.Text = ""
		return held, nil
	case err != nil:
		return c, err
	case c.FinishReason != "":
		s.merge(&c)
		s.held = nil
	}
	return c, nil
}

// begin ends the first pass (its last chunk c held back but for its text)
// and starts the second. If the second cannot start, the first pass's end
// stands: the answer was cut by the limit, as reported.
func (s *twoPassStream) begin(c backend.Chunk) (backend.Chunk, error) {
	x := s.pass.x
	next, closer, err := s.pass.start(s.ctx, s.raw.String())
	if err != nil {
		x.rec.Decide(fmt.Sprintf("the reasoning used its %d tokens unclosed, and the call's second pass could not start: %v", s.pass.first.MaxTokens, x.s.public(err)))
		return c, nil
	}
	x.rec.Decide(fmt.Sprintf("the reasoning used its %d tokens unclosed: the gateway closed it (%q) and asked for the call alone, within %d tokens", s.pass.first.MaxTokens, strings.TrimSpace(closer), s.pass.reserve))
	x.rec.Act(trace.ActionCallSecondPass)
	s.cur.Close()
	s.cur, s.second = next, true
	held := c
	s.held = &held
	s.pending = append(s.pending, backend.Chunk{Text: closer})
	return backend.Chunk{Text: c.Text}, nil
}

// merge makes the second pass's last chunk the answer's: its usage and
// timings counted with the first pass's (the first pass's prompt, both
// passes' output).
func (s *twoPassStream) merge(c *backend.Chunk) {
	first := s.held
	if first.Usage != nil {
		u := *first.Usage
		if c.Usage != nil {
			u.CompletionTokens += c.Usage.CompletionTokens
		}
		c.Usage = &u
	}
	if first.Timings != nil {
		t := *first.Timings
		if c.Timings != nil {
			t.GeneratedTokens += c.Timings.GeneratedTokens
			t.GenerateMS += c.Timings.GenerateMS + c.Timings.PromptMS
		}
		c.Timings = &t
	}
}

func (s *twoPassStream) Close() error { return s.cur.Close() }

// PromptTokens is the first pass's own prompt count, where its runtime
// gives one (backend.PromptCounter).
func (s *twoPassStream) PromptTokens() int {
	if pc, ok := s.cur.(backend.PromptCounter); ok && !s.second {
		return pc.PromptTokens()
	}
	return 0
}
