package backend

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

// streamMode says which answer shape an sseStream reads.
type streamMode int

const (
	// modeChat reads /v1/chat/completions chunks: choices[].delta.
	modeChat streamMode = iota
	// modeCompletions reads /v1/completions chunks: choices[].text.
	modeCompletions
	// modeLlamaCompletion reads llama-server's /completion chunks: content,
	// and stop:true with stop_type and token counts on the last.
	modeLlamaCompletion
)

// sseStream reads a server-sent-events answer of the OpenAI-compatible
// servers. Text and reasoning are passed on as they come; tool calls are held
// until the answer ends and then announced whole, in the last chunk, with the
// finish reason and the usage (which arrives after the finish reason).
type sseStream struct {
	kind  Kind
	mode  streamMode
	lines *lineReader
	// whole is the answer of a server that ignored stream:true; wholeRead
	// is set once it was handed to the parser.
	whole     []byte
	wholeRead bool

	calls     callAssembler
	finish    string
	sawFinish bool
	usage     *chat.Usage
	ended     bool
	cutErr    error // returned after the calls of a cut stream were handed out

	// stopSeq and stopReported are what ended the answer, where the
	// runtime says (Chunk.StopSequence, Chunk.StopReported).
	stopSeq      string
	stopReported bool
	// timings are llama-server's account of the generation (its
	// "timings" object, on the last chunk of /completion and of its chat
	// stream).
	timings *Timings

	// fast reads the per-token lines; unmarshalOnly (tests, benchmarks)
	// sends every line through encoding/json instead.
	fast          sseFast
	unmarshalOnly bool
}

func (s *sseStream) Close() error { return s.lines.close(s.ended && s.cutErr == nil) }

// OnWait: see WaitNotifier.
func (s *sseStream) OnWait(f func()) {
	if s.lines != nil {
		s.lines.onWait = f
	}
}

func (s *sseStream) Next() (Chunk, error) {
	if s.cutErr != nil {
		return Chunk{}, s.cutErr
	}
	for !s.ended {
		payload, err := s.payload()
		switch {
		case err == io.EOF:
			return s.end(false)
		case err != nil:
			return s.broke(err)
		case payload == nil:
			continue
		case string(payload) == "[DONE]":
			return s.end(true)
		}
		out, err := s.parse(payload)
		if err != nil {
			return Chunk{}, err
		}
		if out.Text != "" || out.Reasoning != "" {
			return out, nil
		}
	}
	return Chunk{}, io.EOF
}

// payload returns the data of the next event, or nil for lines that carry
// none (blank lines, comments such as mlx_lm.server's ": keepalive", event:
// and id: fields). Every known runtime puts one JSON object on one data:
// line, so a line is taken as a whole event.
func (s *sseStream) payload() ([]byte, error) {
	if s.whole != nil || s.wholeRead {
		if s.wholeRead {
			return nil, io.EOF
		}
		b := s.whole
		s.whole, s.wholeRead = nil, true
		return bytes.TrimSpace(b), nil
	}
	line, err := s.lines.next()
	if err != nil {
		return nil, err
	}
	switch {
	case bytes.HasPrefix(line, []byte("data:")):
		return bytes.TrimSpace(line[len("data:"):]), nil
	case bytes.HasPrefix(line, []byte("{")):
		return line, nil // a server that streams bare JSON lines
	}
	return nil, nil
}

// end closes the answer. A clean end ([DONE], or the body ending after a
// finish reason) yields the last chunk; a body that ends before either was
// cut, and the calls assembled so far are handed out before the error.
func (s *sseStream) end(clean bool) (Chunk, error) {
	s.ended = true
	if !clean && !s.sawFinish {
		s.cutErr = truncated(s.kind, "its finish reason")
		if calls := s.calls.whole(); len(calls) > 0 {
			return Chunk{Calls: calls}, nil
		}
		return Chunk{}, s.cutErr
	}
	out := Chunk{Calls: s.calls.whole(), FinishReason: toFinish(s.finish), Usage: s.usage,
		StopSequence: s.stopSeq, StopReported: s.stopReported, Timings: s.timings}
	if len(out.Calls) > 0 {
		out.FinishReason = chat.FinishToolCalls
	}
	return out, nil
}

// broke ends an answer whose body failed to read (a connection reset, a
// chunked body cut short): calls assembled so far are handed out before the
// error, as for a body that ended early, so that a call cut mid-arguments
// reaches the client and the trace as the runtime sent it.
func (s *sseStream) broke(err error) (Chunk, error) {
	s.ended = true
	if calls := s.calls.whole(); len(calls) > 0 {
		s.cutErr = err
		return Chunk{Calls: calls}, nil
	}
	return Chunk{}, err
}

// sseChunk is any of the three chunk shapes.
type sseChunk struct {
	Choices []sseChoice     `json:"choices"`
	Usage   *chat.Usage     `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Timings *llamaTimings   `json:"timings"`

	// llama-server /completion.
	Content         string `json:"content"`
	Stop            bool   `json:"stop"`
	StopType        string `json:"stop_type"`
	StoppingWord    string `json:"stopping_word"`
	TokensPredicted int    `json:"tokens_predicted"`
	TokensEvaluated int    `json:"tokens_evaluated"`
}

// sseChoice is one entry of choices.
type sseChoice struct {
	Index        int       `json:"index"`
	Delta        *sseDelta `json:"delta"`
	Message      *sseDelta `json:"message"`
	Text         string    `json:"text"`
	FinishReason *string   `json:"finish_reason"`
	// What ended the answer, beside the finish reason: vLLM's
	// stop_reason, SGLang's matched_stop (read by stopReason).
	StopReason  json.RawMessage `json:"stop_reason"`
	MatchedStop json.RawMessage `json:"matched_stop"`
}

// llamaTimings is llama-server's "timings" object. prompt_n counts only the
// prompt tokens it evaluated: those it found in its cache (cache_n) cost
// nothing.
type llamaTimings struct {
	CacheN      int     `json:"cache_n"`
	PromptN     int     `json:"prompt_n"`
	PromptMS    float64 `json:"prompt_ms"`
	PredictedN  int     `json:"predicted_n"`
	PredictedMS float64 `json:"predicted_ms"`
}

// sseDelta is a chat delta (or a whole message). Reasoning comes in one of
// three fields depending on the runtime and its version: reasoning_content
// (llama-server, SGLang, vLLM before v0.11), reasoning (vLLM v0.11+,
// mlx_lm.server, LM Studio), thinking (some proxies).
type sseDelta struct {
	Content          *string         `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
	Thinking         *string         `json:"thinking"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

func (d *sseDelta) reasoning() string {
	for _, p := range []*string{d.ReasoningContent, d.Reasoning, d.Thinking} {
		if p != nil && *p != "" {
			return *p // a server sending two of them sends the same text
		}
	}
	return ""
}

func (s *sseStream) parse(payload []byte) (Chunk, error) {
	var c *sseChunk
	if !s.unmarshalOnly {
		c = s.fast.line(payload) // the per-token shapes (fastline.go)
	}
	if c == nil {
		c = new(sseChunk)
		if err := json.Unmarshal(payload, c); err != nil {
			return Chunk{}, s.lines.badLine(s.kind, payload, err)
		}
	}
	return s.use(c)
}

// use takes in one decoded chunk.
func (s *sseStream) use(c *sseChunk) (Chunk, error) {
	if msg := rawErrorText(c.Error); msg != "" {
		return Chunk{}, &Error{Kind: s.kind, Status: errorCode(c.Error), Message: msg}
	}
	if c.Usage != nil {
		s.usage = c.Usage
	}
	if t := c.Timings; t != nil {
		s.timings = &Timings{PromptTokens: t.PromptN, CachedTokens: t.CacheN, PromptMS: t.PromptMS, GeneratedTokens: t.PredictedN, GenerateMS: t.PredictedMS}
	}
	if s.mode == modeLlamaCompletion {
		return s.parseLlama(c), nil
	}
	var out Chunk
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // only one choice is asked for
		}
		out.Text += ch.Text
		if d := ch.Delta; d != nil {
			out.Text += deref(d.Content)
			out.Reasoning += d.reasoning()
			s.calls.addDeltas(d.ToolCalls)
		}
		if m := ch.Message; m != nil {
			out.Text += deref(m.Content)
			out.Reasoning += m.reasoning()
			s.calls.addWhole(m.ToolCalls)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finish, s.sawFinish = *ch.FinishReason, true
			s.stopSeq, s.stopReported = stopReason(ch.StopReason, ch.MatchedStop)
		}
	}
	return out, nil
}

// parseLlama reads llama-server's native chunk; stop_type "limit" means the
// token budget ran out, "word" that stopping_word (a stop string) ended the
// answer, "eos" the end-of-generation token.
func (s *sseStream) parseLlama(c *sseChunk) Chunk {
	if c.Stop {
		s.finish, s.sawFinish = c.StopType, true
		s.usage = &chat.Usage{PromptTokens: c.TokensEvaluated, CompletionTokens: c.TokensPredicted}
		switch c.StopType {
		case "word":
			s.stopSeq, s.stopReported = c.StoppingWord, true
		case "eos", "limit":
			s.stopReported = true
		}
	}
	return Chunk{Text: c.Content}
}

// stopReason reads what ended an answer from vLLM's stop_reason or SGLang's
// matched_stop: a string is the stop string; a token id (an end-of-turn
// token) or null (no stop: the end-of-sequence token, the length) is no stop
// string. A field the runtime does not send is no report.
func stopReason(fields ...json.RawMessage) (seq string, reported bool) {
	for _, raw := range fields {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		reported = true
		if json.Unmarshal(raw, &seq) == nil && seq != "" {
			return seq, true
		}
	}
	return "", reported
}

// errorCode is the HTTP status an in-stream error object names, or 500: the
// runtime failed after it had answered 200.
func errorCode(raw json.RawMessage) int {
	var o struct {
		Code int `json:"code"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Code >= 400 && o.Code <= 599 {
		return o.Code
	}
	return http.StatusInternalServerError
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// toolCallDelta is one fragment of a call: the first usually has the id and
// the name, the rest pieces of the arguments string. Some servers omit index
// or id; a few send arguments as an object.
type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type pendingCall struct {
	id, name string
	args     strings.Builder
}

// callAssembler joins fragments into calls. A fragment belongs to the call of
// its index; without an index, to the previous fragment's call, unless it
// brings a different id (a new call) or is not the first entry of its delta
// (entries of one list are different calls).
type callAssembler struct {
	calls   []*pendingCall
	byIndex map[int]*pendingCall
	last    *pendingCall
}

func (a *callAssembler) addDeltas(ds []toolCallDelta) {
	for i, d := range ds {
		a.add(d, a.find(d, i > 0))
	}
}

// addWhole adds the calls of a whole message, each a call of its own.
func (a *callAssembler) addWhole(ds []toolCallDelta) {
	for _, d := range ds {
		a.add(d, a.open(d.Index))
	}
}

func (a *callAssembler) find(d toolCallDelta, notFirst bool) *pendingCall {
	sameID := func(pc *pendingCall) bool { return d.ID == "" || pc.id == "" || pc.id == d.ID }
	if d.Index != nil {
		if pc := a.byIndex[*d.Index]; pc != nil && sameID(pc) {
			return pc
		}
		return a.open(d.Index)
	}
	if a.last != nil && !notFirst && sameID(a.last) {
		return a.last
	}
	return a.open(nil)
}

func (a *callAssembler) open(index *int) *pendingCall {
	pc := &pendingCall{}
	a.calls = append(a.calls, pc)
	if index != nil {
		if a.byIndex == nil {
			a.byIndex = map[int]*pendingCall{}
		}
		a.byIndex[*index] = pc
	}
	return pc
}

// add appends a fragment. The name is taken once: servers that repeat it in
// every fragment must not make "get_weatherget_weather".
func (a *callAssembler) add(d toolCallDelta, pc *pendingCall) {
	if pc.id == "" {
		pc.id = d.ID
	}
	if pc.name == "" {
		pc.name = d.Function.Name
	}
	pc.args.WriteString(argumentsText(d.Function.Arguments))
	a.last = pc
}

// argumentsText is a fragment's text: the string, or an object compacted.
func argumentsText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return compactArguments(raw)
}

// whole returns the assembled calls, each with an id. Arguments that are not
// valid JSON are returned as they came: the gateway reports them, and the
// text is the evidence.
func (a *callAssembler) whole() []chat.ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	out := make([]chat.ToolCall, 0, len(a.calls))
	for _, pc := range a.calls {
		id := pc.id
		if id == "" {
			id = chat.NewCallID()
		}
		args := pc.args.String()
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		out = append(out, chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: pc.name, Arguments: args}})
	}
	a.calls, a.byIndex, a.last = nil, nil, nil
	return out
}
