package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/trace"
)

// maxRequestBody bounds a client request.
const maxRequestBody = 32 << 20

// openAIRequest is the Chat Completions request body.
type openAIRequest struct {
	Model               string          `json:"model"`
	Messages            []chat.Message  `json:"messages"`
	Tools               []chat.Tool     `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls"`
	ResponseFormat      json.RawMessage `json:"response_format"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	Seed                *int64          `json:"seed"`
	Stop                json.RawMessage `json:"stop"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ReasoningEffort    string                     `json:"reasoning_effort"`
	ChatTemplateKwargs map[string]json.RawMessage `json:"chat_template_kwargs"`
	N                  *int                       `json:"n"`
}

// decodeOpenAI reads and checks a Chat Completions request.
func decodeOpenAI(body []byte) (*chat.Request, error) {
	var in openAIRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&in); err != nil {
		return nil, &requestError{msg: "the request body is not valid JSON for Chat Completions: " + err.Error()}
	}
	switch {
	case in.Model == "":
		return nil, &requestError{msg: "model is required", param: "model"}
	case len(in.Messages) == 0:
		return nil, &requestError{msg: "messages must hold at least one message", param: "messages"}
	case in.N != nil && *in.N != 1:
		return nil, &requestError{msg: "only n=1 is supported", param: "n"}
	}
	req := &chat.Request{
		Model: in.Model, Messages: in.Messages, Tools: in.Tools, ParallelToolCalls: in.ParallelToolCalls,
		Temperature: in.Temperature, TopP: in.TopP, Seed: in.Seed, Stream: in.Stream,
		TemplateKwargs: in.ChatTemplateKwargs,
	}
	for i, m := range in.Messages {
		switch m.Role {
		case chat.RoleSystem, chat.RoleUser, chat.RoleAssistant, chat.RoleTool, "developer":
		default:
			return nil, &requestError{msg: fmt.Sprintf("messages[%d]: unknown role %q", i, m.Role), param: "messages"}
		}
	}
	for i, t := range in.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return nil, &requestError{msg: fmt.Sprintf("tools[%d]: want {\"type\": \"function\", \"function\": {\"name\": ...}}", i), param: "tools"}
		}
	}
	if in.MaxCompletionTokens != nil {
		req.MaxTokens = *in.MaxCompletionTokens
	} else if in.MaxTokens != nil {
		req.MaxTokens = *in.MaxTokens
	}
	if (in.MaxTokens != nil || in.MaxCompletionTokens != nil) && req.MaxTokens < 1 {
		// Passed on, 0 and below mean "no limit" to most runtimes.
		return nil, &requestError{msg: fmt.Sprintf("max_tokens must be at least 1, not %d", req.MaxTokens), param: "max_tokens"}
	}
	if in.StreamOptions != nil {
		req.IncludeUsage = in.StreamOptions.IncludeUsage
	}
	var err error
	if req.ToolChoice, err = decodeToolChoice(in.ToolChoice, in.Tools); err != nil {
		return nil, err
	}
	if req.Stop, err = decodeStop(in.Stop); err != nil {
		return nil, err
	}
	if req.ResponseFormat, err = decodeResponseFormat(in.ResponseFormat); err != nil {
		return nil, err
	}
	switch in.ReasoningEffort {
	case "":
	case "none", "minimal":
		off := false
		req.Reasoning.Enabled = &off
		req.Reasoning.Effort = in.ReasoningEffort
	default:
		req.Reasoning.Effort = in.ReasoningEffort
	}
	if raw, ok := in.ChatTemplateKwargs["enable_thinking"]; ok {
		var on bool
		if json.Unmarshal(raw, &on) == nil {
			req.Reasoning.Enabled = &on
		}
	}
	return req, nil
}

func decodeToolChoice(raw json.RawMessage, tools []chat.Tool) (chat.ToolChoice, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return chat.ToolChoice{}, nil
	}
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		switch chat.ToolChoiceMode(mode) {
		case chat.ToolAuto, chat.ToolNone, chat.ToolRequired:
			if mode == "required" && len(tools) == 0 {
				return chat.ToolChoice{}, &requestError{msg: `tool_choice "required" needs tools`, param: "tool_choice"}
			}
			return chat.ToolChoice{Mode: chat.ToolChoiceMode(mode)}, nil
		}
		return chat.ToolChoice{}, &requestError{msg: fmt.Sprintf("tool_choice %q: want auto, none, required or a function", mode), param: "tool_choice"}
	}
	var named struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &named); err != nil || named.Function.Name == "" {
		return chat.ToolChoice{}, &requestError{msg: `tool_choice: want a string or {"type": "function", "function": {"name": ...}}`, param: "tool_choice"}
	}
	for _, t := range tools {
		if t.Function.Name == named.Function.Name {
			return chat.ToolChoice{Mode: chat.ToolNamed, Name: named.Function.Name}, nil
		}
	}
	return chat.ToolChoice{}, &requestError{msg: fmt.Sprintf("tool_choice names %q, which is not among the tools", named.Function.Name), param: "tool_choice"}
}

func decodeStop(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, &requestError{msg: "stop: want a string or a list of strings", param: "stop"}
	}
	return many, nil
}

func decodeResponseFormat(raw json.RawMessage) (*chat.ResponseFormat, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		return nil, &requestError{msg: "response_format: " + err.Error(), param: "response_format"}
	}
	switch rf.Type {
	case "text":
		return nil, nil
	case "json_object":
		return &chat.ResponseFormat{Type: rf.Type}, nil
	case "json_schema":
		if rf.JSONSchema == nil {
			return nil, &requestError{msg: "response_format json_schema needs a json_schema object", param: "response_format"}
		}
		return &chat.ResponseFormat{Type: rf.Type, Name: rf.JSONSchema.Name, Schema: rf.JSONSchema.Schema, Strict: rf.JSONSchema.Strict}, nil
	}
	return nil, &requestError{msg: fmt.Sprintf("response_format type %q: want text, json_object or json_schema", rf.Type), param: "response_format"}
}

// openAIChat is the OpenAI Chat Completions dialect (POST /v1/chat/completions).
var openAIChat = &dialect{
	api:      "openai",
	idPrefix: "chatcmpl-",
	decode: func(body []byte, _ *trace.Record) (*chat.Request, any, error) {
		req, err := decodeOpenAI(body)
		return req, nil, err
	},
	respond: func(w http.ResponseWriter, req *chat.Request, _ any) response {
		if req.Stream {
			return newOpenAIStream(w, req.IncludeUsage)
		}
		return &collected{write: completeOpenAI}
	},
	fail: func(w http.ResponseWriter, err error) int {
		status, typ, param := errorStatus(err)
		writeOpenAIError(w, status, typ, err.Error(), param)
		return status
	},
}

// errorStatus maps a pipeline error to an HTTP status, an OpenAI error type
// and the parameter at fault.
func errorStatus(err error) (int, string, string) {
	var re *requestError
	var ue *upstreamError
	var nf *errModelNotFound
	switch {
	case errors.As(err, &re) && re.status != 0:
		return re.status, "invalid_request_error", re.param
	case errors.As(err, &re):
		return http.StatusBadRequest, "invalid_request_error", re.param
	case errors.As(err, &nf):
		return http.StatusNotFound, "model_not_found", "model"
	case errors.As(err, &ue):
		return ue.status, "upstream_error", ""
	case errors.Is(err, context.Canceled):
		return statusClientClosed, "client_closed_request", ""
	}
	return http.StatusInternalServerError, "internal_error", ""
}

func writeOpenAIError(w http.ResponseWriter, status int, typ, msg, param string) {
	type errBody struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	b := errBody{Message: msg, Type: typ, Code: &typ}
	if param != "" {
		b.Param = &param
	}
	writeJSON(w, status, struct {
		Error errBody `json:"error"`
	}{b})
}

// openAIToolCall is a call in a response message or a stream delta.
// openAIToolCall is a call, or in a stream a delta of one: the first names
// it (id, type, name), the next carry only arguments (the fields a whole
// call always has are left out when empty).
type openAIToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func toOpenAICall(c chat.ToolCall, index *int) openAIToolCall {
	o := openAIToolCall{Index: index, ID: c.ID, Type: "function"}
	o.Function.Name, o.Function.Arguments = c.Function.Name, c.Function.Arguments
	return o
}

type openAIUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func toOpenAIUsage(u chat.Usage) *openAIUsage {
	o := &openAIUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
	o.PromptTokensDetails.CachedTokens = u.CachedTokens
	return o
}

// dragomanExtra is Dragoman's addition to a response: what the parser
// noticed. Clients that do not know it ignore it.
type dragomanExtra struct {
	RequestID   string             `json:"request_id"`
	Diagnostics []trace.Diagnostic `json:"diagnostics,omitempty"`
}

// completeOpenAI writes a collected answer; a broken-off answer is an error
// that still carries everything the model produced.
func completeOpenAI(w http.ResponseWriter, rec *trace.Record, c *collected) int {
	type message struct {
		Role      string           `json:"role"`
		Content   *string          `json:"content"`
		Reasoning string           `json:"reasoning_content,omitempty"`
		ToolCalls []openAIToolCall `json:"tool_calls,omitempty"`
	}
	m := c.resp.Message()
	msg := message{Role: "assistant", Reasoning: m.Reasoning}
	if text := m.Content; text != "" || len(m.ToolCalls) == 0 {
		msg.Content = &text
	}
	for _, tc := range m.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, toOpenAICall(tc, nil))
	}
	if failure := c.broken(); failure != nil {
		writeJSON(w, http.StatusBadGateway, map[string]any{
			"error": map[string]any{"message": failure.Error(), "type": "upstream_error", "param": nil, "code": "upstream_error"},
			// What the model produced before the break, so that nothing is lost.
			"partial":  map[string]any{"message": msg},
			"dragoman": dragomanExtra{RequestID: c.resp.ID, Diagnostics: rec.Diagnostics},
		})
		return http.StatusBadGateway
	}
	end := c.resp.Finish
	type choice struct {
		Index        int               `json:"index"`
		Message      message           `json:"message"`
		FinishReason chat.FinishReason `json:"finish_reason"`
	}
	resp := struct {
		ID       string         `json:"id"`
		Object   string         `json:"object"`
		Created  int64          `json:"created"`
		Model    string         `json:"model"`
		Choices  []choice       `json:"choices"`
		Usage    *openAIUsage   `json:"usage"`
		Dragoman *dragomanExtra `json:"dragoman,omitempty"`
	}{ID: c.resp.ID, Object: "chat.completion", Created: c.resp.Created, Model: c.resp.Model,
		Choices: []choice{{Message: msg, FinishReason: end.Reason}}, Usage: toOpenAIUsage(end.Usage)}
	if len(end.Diagnostics) > 0 {
		resp.Dragoman = &dragomanExtra{RequestID: c.resp.ID, Diagnostics: end.Diagnostics}
	}
	writeJSON(w, http.StatusOK, resp)
	return http.StatusOK
}

// openAIStream writes an answer as Server-Sent Events of chat.completion.chunk
// objects, flushing each.
type openAIStream struct {
	sse
	includeUsage bool
	id, model    string
	created      int64
	delta        *deltaEvent // the token events' fixed parts, made by begin
	tok          tokenWriter
}

func (s *openAIStream) begun() bool                                     { return s.started }
func (s *openAIStream) complete(http.ResponseWriter, *trace.Record) int { return http.StatusOK }

func newOpenAIStream(w http.ResponseWriter, includeUsage bool) *openAIStream {
	return &openAIStream{sse: sse{w: w}, includeUsage: includeUsage}
}

type openAIDelta struct {
	Role      string           `json:"role,omitempty"`
	Content   *string          `json:"content,omitempty"`
	Reasoning *string          `json:"reasoning_content,omitempty"`
	ToolCalls []openAIToolCall `json:"tool_calls,omitempty"`
}

type openAIChunkChoice struct {
	Index        int                `json:"index"`
	Delta        openAIDelta        `json:"delta"`
	FinishReason *chat.FinishReason `json:"finish_reason"`
}

type openAIChunk struct {
	ID       string              `json:"id"`
	Object   string              `json:"object"`
	Created  int64               `json:"created"`
	Model    string              `json:"model"`
	Choices  []openAIChunkChoice `json:"choices"`
	Usage    *openAIUsage        `json:"usage,omitempty"`
	Dragoman *dragomanExtra      `json:"dragoman,omitempty"`
}

func (s *openAIStream) begin(id, model string, _ int) error {
	s.id, s.model, s.created = id, model, time.Now().Unix()
	s.delta = newDeltaEvent(s.id, s.created, s.model)
	s.start()
	empty := ""
	return s.send(openAIDelta{Role: "assistant", Content: &empty}, nil, nil, nil)
}

func (s *openAIStream) send(d openAIDelta, finish *chat.FinishReason, usage *openAIUsage, extra *dragomanExtra) error {
	c := openAIChunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
		Choices: []openAIChunkChoice{{Delta: d, FinishReason: finish}}, Dragoman: extra}
	if usage != nil {
		c.Choices, c.Usage = []openAIChunkChoice{}, usage
	}
	return s.event("", c)
}

// deltaEvent is the fixed part of a stream's one-field delta events: the
// chunk up to the field's value, and after it.
type deltaEvent struct {
	head               []byte // data: {…"delta":{
	content, reasoning []byte // data: {…"delta":{"content":
	end                []byte // },"finish_reason":null}]}\n\n
}

// newDeltaEvent makes the fixed parts for a stream's id, creation time and
// model, in openAIChunk's field order: the three in one array (each slice
// capped at its end, so nothing appends into the next), made once a
// request.
func newDeltaEvent(id string, created int64, model string) *deltaEvent {
	const (
		content   = `"content":`
		reasoning = `"reasoning_content":`
		end       = "},\"finish_reason\":null}]}\n\n"
	)
	b := make([]byte, 0, 2*(96+len(id)+len(model))+len(content)+len(reasoning)+len(end))
	b = append(b, `data: {"id":`...)
	b = appendJSONString(b, id)
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, model)
	b = append(b, `,"choices":[{"index":0,"delta":{`...)
	head := len(b)
	b = append(b, content...)
	c := len(b)
	b = append(b, b[:head]...)
	b = append(b, reasoning...)
	r := len(b)
	b = append(b, end...)
	return &deltaEvent{head: b[:head:head], content: b[:c:c], reasoning: b[c:r:r], end: b[r:len(b):len(b)]}
}

// emit encodes one delta as its chunk. A call still being written: the
// first delta names it, with empty arguments, as OpenAI's streams do; the
// next carry the arguments' fragments; its end writes nothing. A withdrawn
// call cannot be taken back in this API: it stays as far as it was shown,
// and the finish chunk's diagnostics say it does not count.
func (s *openAIStream) emit(d chat.Delta) error {
	switch d.Kind {
	case chat.DeltaContent:
		return s.content(d.Text)
	case chat.DeltaReasoning:
		return s.reasoning(d.Text)
	case chat.DeltaCall:
		return s.call(d.Index, *d.Call)
	case chat.DeltaCallStart:
		return s.call(d.Index, chat.ToolCall{ID: d.ID, Function: chat.FunctionCall{Name: d.Name}})
	case chat.DeltaCallArgs:
		return s.callArgs(d.Index, d.Text)
	case chat.DeltaFinish:
		return s.finish(d.Finish)
	}
	return nil
}

func (s *openAIStream) streamsCalls() bool { return true }

// content and reasoning are the events of every token, written without
// encoding/json (tokenevents.go), the same bytes as send's.
func (s *openAIStream) content(t string) error {
	return s.write(s.tok.event(s.delta.content, t, s.delta.end))
}
func (s *openAIStream) reasoning(t string) error {
	return s.write(s.tok.event(s.delta.reasoning, t, s.delta.end))
}
func (s *openAIStream) call(i int, c chat.ToolCall) error {
	return s.send(openAIDelta{ToolCalls: []openAIToolCall{toOpenAICall(c, &i)}}, nil, nil, nil)
}

// callArgs writes a fragment's event as send would (an openAIToolCall with
// its index and arguments alone), without encoding/json: a long call
// streams in many.
func (s *openAIStream) callArgs(i int, fragment string) error {
	w := s.tok.start(s.delta.head).raw(toolCallIndexKey).int(i).raw(toolCallArgumentsKey).text(fragment)
	return s.write(w.raw(toolCallArgumentsEnd).raw(s.delta.end).bytes())
}

var (
	toolCallIndexKey     = []byte(`"tool_calls":[{"index":`)
	toolCallArgumentsKey = []byte(`,"function":{"arguments":`)
	toolCallArgumentsEnd = []byte(`}}]`)
)

func (s *openAIStream) finish(f *chat.Finish) error {
	var extra *dragomanExtra
	if len(f.Diagnostics) > 0 {
		extra = &dragomanExtra{RequestID: s.id, Diagnostics: f.Diagnostics}
	}
	if err := s.send(openAIDelta{}, &f.Reason, nil, extra); err != nil {
		return err
	}
	if s.includeUsage {
		if err := s.send(openAIDelta{}, nil, toOpenAIUsage(f.Usage), nil); err != nil {
			return err
		}
	}
	return s.done()
}

// fail sends an error event (the shape OpenAI-compatible servers use mid
// stream) after everything already delivered, and ends the stream.
func (s *openAIStream) fail(err error) error {
	e := s.event("", map[string]any{"error": map[string]any{"message": err.Error(), "type": "upstream_error", "code": "upstream_error"}})
	if e != nil {
		return e
	}
	return s.done()
}

func (s *openAIStream) done() error {
	return s.write([]byte("data: [DONE]\n\n"))
}
