package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
	rtpl "github.com/dragoman-dev/dragoman/format/response"
	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/plan"
	"github.com/dragoman-dev/dragoman/template"
	"github.com/dragoman-dev/dragoman/trace"
)

// answer is one client API's encoding of an answer, streaming or
// collecting: the pipeline produces the answer as chat.Deltas and each API
// encodes them. The pipeline calls begin before anything else, then emit with
// the answer's deltas in order, then exactly one of emit with a DeltaFinish or
// fail. An error returned by a method means the client is gone; the pipeline
// stops.
type answer interface {
	// begin comes first; promptTokens is the prompt's length where Dragoman
	// counted it, else 0.
	begin(id, model string, promptTokens int) error
	// emit encodes one delta: content, reasoning, a whole call (DeltaCall,
	// with its Index among the answer's calls), the finish. A call still
	// being written comes as DeltaCallStart, DeltaCallArgs and DeltaCallEnd
	// (with the call assembled) or DeltaCallWithdrawn (the parser found the
	// section was not that call; what it held follows as content or as a
	// whole call), and only to an answer whose streamsCalls is true.
	emit(d chat.Delta) error
	// streamsCalls says whether the answer can show a call while the model
	// writes it; one that collects gets whole calls.
	streamsCalls() bool
	// fail ends an answer the upstream broke off: what was produced has been
	// delivered, err says what happened.
	fail(err error) error
}

// requestError is a problem with the client's request: HTTP 400, or status
// when set.
type requestError struct {
	msg, param string
	status     int
}

func (e *requestError) Error() string { return e.msg }

// upstreamError is a failure of the runtime before any output (HTTP 502, or
// the runtime's own 4xx status passed on).
type upstreamError struct {
	status int
	err    error
	// retryAfter, for a 502 or 503, is when the gateway will try the
	// runtime again (the Retry-After header; 0 means a second).
	retryAfter time.Duration
}

func (e *upstreamError) Error() string { return e.err.Error() }
func (e *upstreamError) Unwrap() error { return e.err }

// exchange is one request on its way through the pipeline.
type exchange struct {
	// burst holds back the answer's flushes during a burst of chunks
	// (burst.go); nil flushes every event as written.
	burst *burstWriter
	s     *Server
	// client is the client's context: done when the client has gone.
	client context.Context
	req    *chat.Request
	rec    *trace.Record
	// end is the answer's finish, made here rather than on its own.
	end chat.Finish
	out answer
	rt  *route

	parser format.Parser // nil when calls are not parsed
	// prefill and suffix are what a forced call put at the end of the prompt
	// and what follows the constrained body: the parser reads them around
	// the output, as if the model had written them.
	prefill, suffix string
	pending         map[int]*chat.ToolCall
	// live maps the parser's index of a call being streamed to the client's.
	live      map[int]int
	calls     int // calls delivered so far, or announced (streamed)
	withdrawn int // calls announced and then withdrawn
	begun     bool
	// rawBytes counts the raw text received, answerBytes that and the
	// runtime's own reasoning (limits.max_answer_bytes).
	rawBytes, answerBytes int

	// treq is the template request rendered (own mode), for the make-up.
	treq *template.Request
}

// run answers req through out. An error returned before out.begin is the
// handler's to report (with a status); after it, run has called out.fail.
// When several upstreams serve the model, the least busy healthy one is
// tried first, and one that cannot be reached is marked down and the next
// one tried, as long as nothing has been sent to the client.
func (s *Server) run(ctx context.Context, req *chat.Request, rec *trace.Record, out answer, burst *burstWriter) error {
	routes, err := s.resolve(ctx, req.Model)
	if err != nil {
		return err
	}
	client := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// However the runtime keeps the answer alive (a chunk now and then, just
	// inside the idle limit), the whole answer has a limit of its own.
	answerWait := time.Duration(s.cfg.Limits.AnswerTimeout)
	deadline := time.AfterFunc(answerWait, func() { cancel(errAnswerTimeout) })
	defer deadline.Stop()
	for i, rt := range routes {
		x := &exchange{s: s, client: client, req: req, rec: rec, out: out, pending: map[int]*chat.ToolCall{}, rt: rt, burst: burst}
		rt.up.inFlight.Add(1)
		// A runtime that accepts the request and never begins its answer
		// would hold it forever: the wait has its own limit.
		wait := time.Duration(s.cfg.Limits.ResponseHeaderTimeout)
		header := time.AfterFunc(wait, func() { cancel(errHeaderTimeout) })
		stream, err := x.start(ctx)
		if !header.Stop() {
			if stream != nil {
				stream.Close()
			}
			rt.up.inFlight.Add(-1)
			return &upstreamError{status: http.StatusGatewayTimeout, err: fmt.Errorf("%s did not begin its answer within %s (limits.response_header_timeout)", rt.up.name, wait)}
		}
		if err != nil && errors.Is(context.Cause(ctx), errAnswerTimeout) {
			rt.up.inFlight.Add(-1)
			return &upstreamError{status: http.StatusGatewayTimeout, err: fmt.Errorf("%s did not answer within %s (limits.answer_timeout)", rt.up.name, answerWait)}
		}
		if err != nil {
			rt.up.inFlight.Add(-1)
			var ue *upstreamError
			if errors.As(err, &ue) && ue.status == http.StatusBadGateway && i+1 < len(routes) {
				rt.up.markDown(s.now().Add(time.Duration(s.cfg.Limits.MarkDown)))
				rec.Decide(fmt.Sprintf("%s failed (%v); marked down, trying the next upstream serving the model", rt.up.name, err))
				continue
			}
			return err
		}
		defer rt.up.inFlight.Add(-1)
		defer stream.Close()
		return x.pump(ctx, cancel, stream)
	}
	return errors.New("no upstream") // not reached: resolve returns at least one route
}

// start records where the request goes and starts generating.
func (x *exchange) start(ctx context.Context) (backend.Stream, error) {
	rt, rec := x.rt, x.rec
	rec.Upstream, rec.Runtime, rec.UpstreamModel = rt.up.name, string(rt.up.be.Kind()), rt.model
	rec.TemplateOrigin = rt.state.templateOrigin
	if rt.state.family != nil {
		rec.Format = rt.state.family.ID
	}
	rec.Decisions = append(rec.Decisions, rt.state.why...)
	mc := plan.Mode(plan.ModeFacts{Configured: rt.up.cfg.Mode, Runtime: rt.runtime(), HasTemplate: rt.state.tpl != nil,
		Forced: x.forced(), Choice: x.req.ToolChoice})
	for _, d := range mc.Decisions {
		rec.Decide(d)
	}
	if mc.Action != "" {
		rec.Act(mc.Action)
	}
	if mc.Err != nil {
		return nil, fromPlan(mc.Err)
	}
	rec.Mode = mc.Mode
	if mc.Mode == plan.Own {
		return x.startOwn(ctx)
	}
	return x.startRelay(ctx)
}

// forced reports whether the request requires a call (required, or a named
// function) and offers tools.
func (x *exchange) forced() bool {
	m := x.req.ToolChoice.Mode
	return (m == chat.ToolRequired || m == chat.ToolNamed) && len(x.req.Tools) > 0 && !x.rt.up.cfg.NoTools
}

// tools is the tool list the model is offered: none when the client said
// tool_choice "none" (the model then cannot call) or the upstream is set
// never to get tools.
func (x *exchange) tools() []chat.Tool {
	switch {
	case len(x.req.Tools) == 0:
		return nil
	case x.req.ToolChoice.Mode == chat.ToolNone:
		x.rec.Decide(`tool_choice "none": the tools are left out of the prompt`)
		return nil
	case x.rt.up.cfg.NoTools:
		x.rec.Decide("this upstream is configured never to get tools")
		return nil
	}
	return x.req.Tools
}

// startOwn renders the prompt and starts a raw completion.
func (x *exchange) startOwn(ctx context.Context) (backend.Stream, error) {
	tools := x.tools()
	start := time.Now()
	x.rec.Timings.RenderStartMS = msBetween(x.rec.Start, start)
	prompt, err := x.render(tools)
	x.rec.Timings.RenderMS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		return nil, err
	}
	x.rec.Prompt = prompt
	x.promptMakeup(prompt)
	st := x.rt.state
	reasoningOpen := false
	if st.family != nil && (len(tools) > 0 || st.family.ThinkOpen != "") {
		reasoningOpen = format.ForcedOpen(st.family, prompt)
		opts := format.Options{Tools: tools, NoCalls: len(tools) == 0, ReasoningOpen: reasoningOpen}
		if e := x.req.Reasoning.Enabled; e != nil && !*e {
			opts.ReasoningDisabled = true
		}
		if opts.ReasoningOpen {
			x.rec.Decide("the prompt leaves reasoning open: the output starts as reasoning")
		}
		x.parser = st.family.New(opts)
	}
	creq := backend.CompleteRequest{
		Model: x.rt.model, Prompt: prompt, MaxTokens: x.req.MaxTokens,
		Temperature: x.req.Temperature, TopP: x.req.TopP, Seed: x.req.Seed, Stop: x.req.Stop,
		KeepAlive: x.req.KeepAlive,
	}
	var second *callPass
	if len(tools) > 0 {
		planned := time.Now()
		x.rec.Timings.ConstrainStartMS = msBetween(x.rec.Start, planned)
		if x.closeReasoningForCall(reasoningOpen, &creq) {
			reasoningOpen = false
		}
		err := x.constrainCalls(ctx, tools, reasoningOpen, &creq)
		if err == nil {
			second = x.budgetForcedCall(tools, reasoningOpen, &creq)
		}
		x.rec.Timings.ConstrainMS = float64(time.Since(planned).Microseconds()) / 1000
		if err != nil {
			return nil, err
		}
	}
	if plan.SizesContext(x.rt.up.be.Kind().Caps(), st.tok != nil) {
		if creq.ContextLength, err = x.contextFor(st.tok.Count(creq.Prompt)); err != nil {
			return nil, err
		}
	}
	if rf := x.req.ResponseFormat; rf != nil && len(tools) == 0 {
		creq.JSONSchema = responseSchema(rf)
	}
	x.useResponseTemplate(tools, creq.Prompt, second != nil)
	x.upstreamSent()
	s, err := x.rt.up.be.Complete(ctx, creq)
	if err != nil {
		x.upstreamEnded()
		return nil, upstreamFailure(err)
	}
	if second != nil {
		return newTwoPassStream(ctx, second, s), nil
	}
	return s, nil
}

// useResponseTemplate parses the output with the model's response template
// where it ships one (modelState.response): the prompt as sent is its
// prefix, as parse_response takes it. A forced call keeps the family's
// parser, because its grammar, prefill and second pass are the family's
// markup, as does a template that fails to start; the trace says which.
func (x *exchange) useResponseTemplate(tools []chat.Tool, prompt string, twoPass bool) {
	st := x.rt.state
	if st.response == nil {
		return
	}
	if x.prefill != "" || x.suffix != "" || twoPass {
		x.rec.Decide("the response template is not used for this request: the forced call is constrained, prefilled and parsed in the family's markup")
		return
	}
	p, err := st.response.NewFormatParser(rtpl.Options{Prefix: prompt, Tools: tools}, nil)
	if err != nil {
		x.rec.Decide("the response template failed on this prompt (" + err.Error() + "): the family's parser reads the output")
		return
	}
	x.parser = p
	fallback := "no family parser"
	if st.family != nil {
		fallback = "the " + st.family.ID + " parser"
	}
	x.rec.Decide("output parsed with the model's response template (" + st.responseFrom + "), in place of " + fallback + " (upstream parser: family to use that)")
}

// constrainCalls constrains this request's calls on its runtime (plan.Calls)
// and records how in the trace.
func (x *exchange) constrainCalls(ctx context.Context, tools []chat.Tool, reasoningOpen bool, creq *backend.CompleteRequest) error {
	cp, err := plan.Calls(ctx, x.callFacts(tools, reasoningOpen), creq)
	err = fromPlan(err)
	for _, d := range cp.Decisions {
		x.rec.Decide(d)
	}
	var re *requestError
	if errors.As(err, &re) && re.param == "tool_choice" {
		x.rec.Act(trace.ActionForcedCallRefused)
	}
	if err != nil {
		return err
	}
	x.rec.Constraint = cp.Form
	if cp.Prefill != "" {
		x.rec.Prompt = creq.Prompt
		x.prefill, x.suffix = x.prefill+cp.Prefill, cp.Suffix
	}
	return nil
}

// callFacts are what plan.Calls plans this request's calls from.
func (x *exchange) callFacts(tools []chat.Tool, reasoningOpen bool) plan.CallFacts {
	return plan.CallFacts{Family: x.rt.state.family, Runtime: x.rt.runtime(), Tools: tools,
		Choice: x.req.ToolChoice, Parallel: x.req.ParallelToolCalls, ReasoningOpen: reasoningOpen}
}

// closeReasoningForCall closes the reasoning the prompt left open where a
// forced call cannot afford it (plan.CloseReasoning): the prompt then ends
// with the family's reasoning closer, and the parser reads that closer
// first. It reports whether it closed the reasoning.
func (x *exchange) closeReasoningForCall(reasoningOpen bool, creq *backend.CompleteRequest) bool {
	closer, why := plan.CloseReasoning(x.forcedFacts(reasoningOpen), creq.MaxTokens)
	if closer == "" {
		return false
	}
	creq.Prompt += closer
	x.rec.Prompt = creq.Prompt
	x.prefill += closer
	x.rec.Decide(why)
	x.rec.Act(trace.ActionReasoningClosed)
	return true
}

// forcedFacts are what plan decides a forced call's reasoning from.
func (x *exchange) forcedFacts(reasoningOpen bool) plan.ForcedFacts {
	return plan.ForcedFacts{Family: x.rt.state.family, Runtime: x.rt.runtime(), Forced: x.forced(),
		Choice: x.req.ToolChoice, ReasoningOpen: reasoningOpen}
}

// minContext is plan.MinContext, the smallest num_ctx asked for.
const minContext = plan.MinContext

// contextFor asks for the context plan.Context picks for a prompt of
// promptTokens tokens, and records why.
func (x *exchange) contextFor(promptTokens int) (int, error) {
	x.rec.PromptTokens = promptTokens
	c, err := plan.Context(plan.ContextFacts{PromptTokens: promptTokens, MaxTokens: x.req.MaxTokens,
		Limit: x.rt.state.contextLength, Model: x.rt.model})
	if err != nil {
		return 0, fromPlan(err)
	}
	x.rec.Decide(c.Decision)
	if c.Raised {
		x.rec.Act(trace.ActionContextRaised) // the runtime's default would have cut the prompt or the answer
	}
	return c.Size, nil
}

// startRelay sends the request to the runtime's chat API. Content is still
// parsed when the model's family is known, for calls the runtime left in it.
func (x *exchange) startRelay(ctx context.Context) (backend.Stream, error) {
	req := *x.req
	req.Model = x.rt.model
	req.Tools = x.tools()
	if len(req.Tools) == 0 && x.req.ToolChoice.Mode == chat.ToolNone {
		req.ToolChoice = chat.ToolChoice{}
	}
	if f := x.rt.state.family; f != nil && len(req.Tools) > 0 {
		x.parser = f.New(format.Options{Tools: req.Tools})
	}
	if x.rt.up.be.Kind().Caps().ToolRequestCalls && len(req.Tools) > 0 {
		// LM Studio prompts a model it has no parser for with its own
		// [TOOL_REQUEST] protocol, and returns such a call in the content
		// when it cannot parse it: read those blocks too.
		x.parser = format.WithLMStudioCalls(x.parser, format.Options{Tools: req.Tools})
		if x.rec.Format == "" {
			x.rec.Format = "lmstudio"
		}
		x.rec.Decide("LM Studio: calls left in the content are read in its [TOOL_REQUEST] protocol and, where the family is known, in the model's own markup")
	}
	x.upstreamSent()
	s, err := x.rt.up.be.Chat(ctx, &req)
	if err != nil {
		x.upstreamEnded()
		return nil, upstreamFailure(err)
	}
	return s, nil
}

// upstreamSent notes when the runtime was first asked (a request tried on
// a second upstream keeps the first's start); upstreamEnded when its
// answer ended, or its request failed.
func (x *exchange) upstreamSent() {
	if x.rec.Timings.UpstreamStartMS == 0 {
		x.rec.Timings.UpstreamStartMS = x.rec.Since()
	}
}

func (x *exchange) upstreamEnded() { x.rec.Timings.UpstreamEndMS = x.rec.Since() }

// msBetween is t's milliseconds after start, to the microsecond.
func msBetween(start, t time.Time) float64 { return float64(t.Sub(start).Microseconds()) / 1000 }

// upstreamFailure is the status a runtime's failure gives the client: the
// runtime's own 4xx (the request is wrong) and 503 (busy: the client may
// retry, as the embedded engine says when its context is held by other
// requests), else 502.
func upstreamFailure(err error) error {
	var be *backend.Error
	if errors.As(err, &be) && (be.Status >= 400 && be.Status < 500 || be.Status == http.StatusServiceUnavailable) {
		return &upstreamError{status: be.Status, err: err}
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return &upstreamError{status: 502, err: err}
}

// render builds the template request as transformers' apply_chat_template
// receives it and renders it.
func (x *exchange) render(tools []chat.Tool) (string, error) {
	st := x.rt.state
	msgs, err := x.templateMessagesFor(st.caps)
	if err != nil {
		return "", err
	}
	treq, err := template.FromChat(template.Chat{
		Messages:            msgs,
		Tools:               tools,
		AddGenerationPrompt: true,
		BOSToken:            st.bos,
		EOSToken:            st.eos,
		Reasoning:           x.req.Reasoning,
		Kwargs:              x.req.TemplateKwargs,
	})
	if err != nil {
		return "", &requestError{msg: err.Error()}
	}
	x.treq = &treq
	// The render stops when the client leaves: a hostile or huge template
	// must not keep working for nobody.
	prompt, err := template.Render(st.tpl, treq, &jinja.Options{Now: x.s.templateNow, Context: x.client})
	if err != nil {
		if x.client != nil && x.client.Err() != nil && errors.Is(err, x.client.Err()) {
			return "", x.client.Err()
		}
		var je *jinja.Error
		if errors.As(err, &je) && je.Kind == "TemplateError" {
			// raise_exception: the template refuses this conversation.
			return "", &requestError{msg: "the model's chat template refuses this conversation: " + je.Message, param: "messages"}
		}
		return "", &requestError{msg: "the model's chat template failed on this conversation: " + err.Error(), param: "messages"}
	}
	x.checkRendered(msgs, prompt)
	return prompt, nil
}

// responseSchema is the JSON Schema a response_format asks for.
func responseSchema(rf *chat.ResponseFormat) json.RawMessage {
	if rf.Type == "json_schema" && len(rf.Schema) > 0 {
		return rf.Schema
	}
	return json.RawMessage(`{"type":"object"}`)
}

// errIdle, errHeaderTimeout and errAnswerTimeout are why the gateway
// cancelled a runtime's request itself (context.Cause), as opposed to the
// client leaving.
var (
	errIdle          = errors.New("the runtime went quiet (limits.idle_timeout)")
	errHeaderTimeout = errors.New("the runtime did not begin (limits.response_header_timeout)")
	errAnswerTimeout = errors.New("the answer took too long (limits.answer_timeout)")
)

// pump moves chunks from the upstream to the client until the stream ends.
// The idle timer runs only while the gateway waits for the runtime: a client
// slow to read (its writes block in deliver) is not the runtime's silence.
func (x *exchange) pump(ctx context.Context, cancel context.CancelCauseFunc, stream backend.Stream) error {
	defer x.burst.hold(stream)()
	limits := x.s.cfg.Limits
	idleTimeout := time.Duration(limits.IdleTimeout)
	idle := time.AfterFunc(idleTimeout, func() { cancel(errIdle) })
	idle.Stop() // armed around each wait for the runtime only
	defer idle.Stop()
	if pc, ok := stream.(backend.PromptCounter); ok && x.rec.PromptTokens == 0 {
		x.rec.PromptTokens = pc.PromptTokens() // the runtime's own count (the embedded engine's)
	}
	if err := x.out.begin(x.rec.ID, x.req.Model, x.announcedPromptTokens(ctx)); err != nil {
		return err
	}
	x.begun = true
	if x.prefill != "" && x.parser != nil {
		if err := x.events(x.parser.Feed(x.prefill)); err != nil {
			return err
		}
	}
	var raw strings.Builder
	var finish chat.FinishReason
	var stopped backend.Chunk // the last chunk: what ended the answer
	var usage chat.Usage
	first := true
	for {
		idle.Reset(idleTimeout)
		chunk, err := stream.Next()
		if err == io.EOF {
			x.upstreamEnded()
			break
		}
		if err != nil {
			x.upstreamEnded()
			x.rec.Completion = x.kept(&raw)
			if x.client.Err() != nil {
				return x.left()
			}
			switch cause := context.Cause(ctx); {
			case errors.Is(cause, errIdle):
				err = fmt.Errorf("the runtime sent nothing for %s (limits.idle_timeout)", idleTimeout)
			case errors.Is(cause, errAnswerTimeout):
				err = fmt.Errorf("the answer was not done after %s (limits.answer_timeout)", time.Duration(limits.AnswerTimeout))
			}
			return x.broken(err)
		}
		idle.Stop() // until the next wait for the runtime
		x.answerBytes += len(chunk.Text) + len(chunk.Reasoning)
		if x.answerBytes > limits.MaxAnswerBytes {
			cancel(nil) // the runtime stops generating
			x.upstreamEnded()
			x.rec.Completion = x.kept(&raw)
			return x.broken(fmt.Errorf("the answer passed %d bytes (limits.max_answer_bytes): the runtime was cut off there", limits.MaxAnswerBytes))
		}
		if first && (chunk.Text != "" || chunk.Reasoning != "" || len(chunk.Calls) > 0) {
			first = false
			x.rec.Timings.FirstChunkMS = x.rec.Since()
		}
		if room := limits.MaxTraceBytes - raw.Len(); room > 0 {
			raw.WriteString(chunk.Text[:min(room, len(chunk.Text))])
		}
		x.rawBytes += len(chunk.Text)
		if err := x.deliver(chunk); err != nil {
			return err
		}
		if chunk.FinishReason != "" {
			finish = chunk.FinishReason
			stopped = chunk
		}
		if chunk.Usage != nil {
			usage = *chunk.Usage
		}
		if t := chunk.Timings; t != nil {
			x.rec.Timings.SetUpstream(t.PromptTokens, t.CachedTokens, t.PromptMS, t.GeneratedTokens, t.GenerateMS)
			x.rec.Timings.UpstreamSlot = t.Slot
			x.rt.state.rate.observe(t.PromptTokens, t.PromptMS)
		}
	}
	x.rec.Completion = x.kept(&raw)
	if x.suffix != "" && x.parser != nil {
		if err := x.events(x.parser.Feed(x.suffix)); err != nil {
			return err
		}
	}
	if err := x.closeParser(); err != nil {
		return err
	}
	switch {
	case finish == chat.FinishLength:
		// The limit cut the answer, whatever it held: a client must know
		// that it is incomplete (a call cut in the middle stayed text).
	case x.calls-x.withdrawn > 0:
		finish = chat.FinishToolCalls
	case finish == "" || finish == chat.FinishToolCalls:
		finish = chat.FinishStop
	}
	if usage.CachedTokens == 0 {
		usage.CachedTokens = x.rec.Timings.UpstreamCachedTokens
	}
	if usage.PromptTokens == 0 {
		usage.PromptTokens = x.rec.PromptTokens // the runtime did not say; our count is exact
	}
	if x.rec.PromptTokens == 0 {
		x.rec.PromptTokens = usage.PromptTokens
	}
	x.rec.CompletionTokens = usage.CompletionTokens
	x.rec.FinishReason = string(finish)
	end := &x.end
	*end = chat.Finish{Reason: finish, Usage: usage, Diagnostics: x.rec.Diagnostics}
	if finish == chat.FinishStop {
		end.StopSequence = x.stopSequence(stopped)
	}
	return x.out.emit(chat.Delta{Kind: chat.DeltaFinish, Finish: end})
}

// kept is the raw completion the trace keeps: all of it, or its first
// limits.max_trace_bytes and a note of what was not kept.
func (x *exchange) kept(raw *strings.Builder) string {
	if rest := x.rawBytes - raw.Len(); rest > 0 {
		return raw.String() + fmt.Sprintf("\n[… %d more bytes not kept in the trace (limits.max_trace_bytes)]", rest)
	}
	return raw.String()
}

// broken ends an answer whose upstream failed mid-way: held-back text is
// released first, so that nothing the model wrote is lost.
func (x *exchange) broken(cause error) error {
	if err := x.closeParser(); err != nil {
		return err
	}
	err := fmt.Errorf("the runtime's stream broke off after %d bytes: %w", x.rawBytes, cause)
	x.rec.Error = err.Error()
	// The diagnostic goes to the client with the answer: it names no
	// address (rec.Error, the operator's, keeps the whole message).
	public := x.s.public(err)
	x.rec.Diagnostics = append(x.rec.Diagnostics, trace.Diagnostic{Code: "upstream-cut", Message: public.Error(), Offset: x.rawBytes})
	return x.out.fail(public)
}

// left ends an answer whose client went away: there is no one to tell, and
// the runtime did nothing wrong (no upstream-cut diagnostic); the trace
// keeps what the model wrote until then.
func (x *exchange) left() error {
	p := x.parser
	x.parser = nil
	if p != nil {
		p.Close()
		x.parserDiagnostics(p)
		x.rec.Timings.ParseEndMS = x.rec.Since()
	}
	return fmt.Errorf("the client closed the connection after %d bytes of the answer: %w", x.rawBytes, context.Canceled)
}

// deliver passes one chunk on: raw text through the parser, the runtime's
// own reasoning and calls as they are.
func (x *exchange) deliver(c backend.Chunk) error {
	if c.Reasoning != "" {
		if err := x.out.emit(chat.Delta{Kind: chat.DeltaReasoning, Text: c.Reasoning}); err != nil {
			return err
		}
	}
	if c.Text != "" {
		if x.parser == nil {
			if err := x.out.emit(chat.Delta{Kind: chat.DeltaContent, Text: c.Text}); err != nil {
				return err
			}
		} else if err := x.events(x.parser.Feed(c.Text)); err != nil {
			return err
		}
	}
	for _, call := range c.Calls {
		if err := x.deliverCall(call); err != nil {
			return err
		}
	}
	return nil
}

func (x *exchange) deliverCall(c chat.ToolCall) error {
	if c.Type == "" {
		c.Type = "function"
	}
	return x.emitCall(c)
}

// emitCall hands a whole call to the client and the trace.
func (x *exchange) emitCall(c chat.ToolCall) error {
	x.checkOffered(c.Function.Name)
	x.rec.Calls = append(x.rec.Calls, c)
	i := x.calls
	x.calls++
	return x.out.emit(chat.Delta{Kind: chat.DeltaCall, Index: i, Call: &c})
}

// checkOffered gives a call of a tool the request did not offer a
// diagnostic; the name is all it needs, so a streamed call is checked when
// it is announced.
func (x *exchange) checkOffered(name string) {
	if !x.offered(name) {
		x.rec.Diagnostics = append(x.rec.Diagnostics, trace.Diagnostic{Code: "unknown-tool",
			Message: fmt.Sprintf("the model called %q, which the request did not offer", name)})
	}
}

// streamsCalls says whether calls are to be shown as they are written. A
// forced call (tool_choice required or named) is held back and delivered
// whole: the request was promised a call, and one withdrawn after it was
// shown would break that promise mid-stream.
func (x *exchange) streamsCalls() bool {
	return x.out.streamsCalls() && !x.forced()
}

// endsIn reports whether evs end or withdraw the call at index: a call
// announced and ended in the same events is delivered whole.
func endsIn(evs []format.Event, index int) bool {
	for _, e := range evs {
		if (e.Kind == format.CallEnd || e.Kind == format.CallWithdrawn) && e.Index == index {
			return true
		}
	}
	return false
}

func (x *exchange) offered(name string) bool {
	for _, t := range x.req.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// events turns parser events into answer calls: a call whose end is among
// the same events is delivered whole; one still being written is streamed
// where the answer can show it (streamer), else assembled whole.
func (x *exchange) events(evs []format.Event) error {
	for _, e := range evs {
		var err error
		switch e.Kind {
		case format.Content, format.Reasoning:
			err = x.out.emit(chat.Delta{Kind: e.Kind, Text: e.Text})
		case format.CallStart:
			x.pending[e.Index] = &chat.ToolCall{ID: e.ID, Type: "function", Function: chat.FunctionCall{Name: e.Name}}
			if x.streamsCalls() && !endsIn(evs, e.Index) {
				err = x.startLive(e)
			}
		case format.CallArgs:
			if c := x.pending[e.Index]; c != nil {
				c.Function.Arguments += e.Text
				if i, ok := x.live[e.Index]; ok {
					err = x.out.emit(chat.Delta{Kind: chat.DeltaCallArgs, Index: i, Text: e.Text})
				}
			}
		case format.CallEnd:
			err = x.endCall(e.Index)
		case format.CallWithdrawn:
			err = x.withdrawCall(e.Index)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// startLive announces a call whose arguments are still being written.
func (x *exchange) startLive(e format.Event) error {
	if x.live == nil {
		x.live = map[int]int{}
	}
	x.checkOffered(e.Name)
	x.live[e.Index] = x.calls
	x.calls++
	return x.out.emit(chat.Delta{Kind: chat.DeltaCallStart, Index: x.live[e.Index], ID: e.ID, Name: e.Name})
}

// endCall delivers the call at the parser's index: whole, or the end of
// its stream.
func (x *exchange) endCall(index int) error {
	c := x.pending[index]
	if c == nil {
		return nil
	}
	delete(x.pending, index)
	if x.rec.Mode == "relay" {
		x.rec.Act(trace.ActionCallFromContent)
	}
	i, live := x.live[index]
	if !live {
		return x.emitCall(*c)
	}
	delete(x.live, index)
	x.rec.Calls = append(x.rec.Calls, *c)
	return x.out.emit(chat.Delta{Kind: chat.DeltaCallEnd, Index: i, Call: c})
}

// withdrawCall takes back a call the parser announced and then found not to
// be one. A streamed one stays at the client as far as it was shown: the
// client is told it ended, and a diagnostic says that it does not count.
func (x *exchange) withdrawCall(index int) error {
	c := x.pending[index]
	delete(x.pending, index)
	i, live := x.live[index]
	if c == nil || !live {
		return nil
	}
	delete(x.live, index)
	x.withdrawn++
	x.rec.Diagnostics = append(x.rec.Diagnostics, trace.Diagnostic{Code: "withdrawn-call",
		Message: fmt.Sprintf("call %d (%q) was shown while the model wrote it, and its markup then turned out not to be that call; what it held follows as text or as a call of its own", i, c.Function.Name)})
	return x.out.emit(chat.Delta{Kind: chat.DeltaCallWithdrawn, Index: i})
}

// closeParser flushes the parser and records its diagnostics.
func (x *exchange) closeParser() error {
	if x.parser == nil {
		return nil
	}
	p := x.parser
	x.parser = nil
	if err := x.events(p.Close()); err != nil {
		return err
	}
	x.parserDiagnostics(p)
	x.rec.Timings.ParseEndMS = x.rec.Since()
	return nil
}

// parserDiagnostics records the parser's diagnostics. A family's parser that
// checks the tool names itself reports an undeclared tool as emitCall does:
// its report, which knows where in the output the call is, replaces the
// gateway's, so that the call is reported once.
func (x *exchange) parserDiagnostics(p format.Parser) {
	for _, d := range p.Diagnostics() {
		td := d
		if i := slices.IndexFunc(x.rec.Diagnostics, func(o trace.Diagnostic) bool {
			return o.Code == "unknown-tool" && o.Code == td.Code && o.Message == td.Message && o.Offset == 0
		}); i >= 0 {
			x.rec.Diagnostics[i] = td
			continue
		}
		x.rec.Diagnostics = append(x.rec.Diagnostics, td)
	}
}
