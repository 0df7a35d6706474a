package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/trace"
)

// The Anthropic Messages dialect: POST /v1/messages decoded into the
// canonical chat.Request, and the pipeline's answer written back as a Message
// or as its stream of server-sent events.
//
// Tool-call ids pass through unchanged in both directions: the ids the
// pipeline assigns (OpenAI-style, "call_...") become tool_use ids as they are,
// and come back as tool_result tool_use_id, which is matched against the
// tool_use ids of the earlier assistant turns. Anthropic clients treat ids as
// opaque strings, so no "toolu_" prefix is added (adding one would need a
// mapping kept consistent across requests for nothing).

// anthropicRequest is the Messages request body.
type anthropicRequest struct {
	Model         string             `json:"model"`
	MaxTokens     *int               `json:"max_tokens"`
	System        json.RawMessage    `json:"system"`
	Messages      []anthropicMessage `json:"messages"`
	Tools         []anthropicTool    `json:"tools"`
	ToolChoice    json.RawMessage    `json:"tool_choice"`
	StopSequences []string           `json:"stop_sequences"`
	Temperature   *float64           `json:"temperature"`
	TopP          *float64           `json:"top_p"`
	TopK          *int               `json:"top_k"`
	Stream        bool               `json:"stream"`
	Metadata      json.RawMessage    `json:"metadata"`
	Thinking      *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
	// Structured outputs: output_config.format (current), output_format
	// (the beta's name); both {"type": "json_schema", "schema": {...}}.
	OutputConfig *struct {
		Format json.RawMessage `json:"format"`
	} `json:"output_config"`
	OutputFormat json.RawMessage `json:"output_format"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// anthropicTool is a client tool; server tools carry a versioned type
// ("web_search_20250305", "bash_20250124", ...).
type anthropicTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// anthropicInBlock is one content block of a request message, any type.
type anthropicInBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Thinking string `json:"thinking"`
	Source   *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// decodeAnthropic reads and checks a Messages request. The notes are
// decisions for the trace (what was dropped or not passed on).
func decodeAnthropic(body []byte) (*chat.Request, []string, error) {
	var in anthropicRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, nil, &requestError{msg: "the request body is not valid JSON for Messages: " + err.Error()}
	}
	switch {
	case in.Model == "":
		return nil, nil, &requestError{msg: "model: Field required", param: "model"}
	case in.MaxTokens == nil:
		return nil, nil, &requestError{msg: "max_tokens: Field required", param: "max_tokens"}
	case *in.MaxTokens < 1:
		return nil, nil, &requestError{msg: "max_tokens: must be at least 1", param: "max_tokens"}
	case len(in.Messages) == 0:
		return nil, nil, &requestError{msg: "messages: at least one message is required", param: "messages"}
	}
	d := &anthropicDecoder{names: map[string]string{}}
	req := &chat.Request{
		Model: in.Model, MaxTokens: *in.MaxTokens, Temperature: in.Temperature, TopP: in.TopP,
		Stop: in.StopSequences, Stream: in.Stream,
		// Anthropic always reports usage, streamed or not.
		IncludeUsage: true,
	}
	if in.TopK != nil {
		d.note("top_k is not passed on: the runtimes' raw completion APIs used here do not all take it")
	}
	system, err := d.systemText(in.System)
	if err != nil {
		return nil, nil, err
	}
	if system != "" {
		req.Messages = append(req.Messages, chat.Message{Role: chat.RoleSystem, Content: system})
	}
	for i, m := range in.Messages {
		msgs, err := d.message(i, m)
		if err != nil {
			return nil, nil, err
		}
		req.Messages = append(req.Messages, msgs...)
	}
	for i, t := range in.Tools {
		if t.Type != "" && t.Type != "custom" {
			return nil, nil, &requestError{msg: fmt.Sprintf("tools[%d]: server tool %q is not supported: Dragoman serves client tools only (name, description, input_schema)", i, t.Type), param: "tools"}
		}
		if t.Name == "" {
			return nil, nil, &requestError{msg: fmt.Sprintf("tools[%d].name: Field required", i), param: "tools"}
		}
		schema := bytes.TrimSpace(t.InputSchema)
		if len(schema) == 0 || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		req.Tools = append(req.Tools, chat.Tool{Type: "function", Function: chat.ToolFunction{Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	if err := decodeAnthropicToolChoice(in.ToolChoice, req); err != nil {
		return nil, nil, err
	}
	format := in.OutputFormat
	if in.OutputConfig != nil && len(in.OutputConfig.Format) > 0 {
		format = in.OutputConfig.Format
	}
	if req.ResponseFormat, err = decodeAnthropicOutputFormat(format); err != nil {
		return nil, nil, err
	}
	if th := in.Thinking; th != nil {
		switch th.Type {
		case "enabled":
			on := true
			req.Reasoning.Enabled, req.Reasoning.BudgetTokens = &on, th.BudgetTokens
			if th.BudgetTokens > 0 {
				d.note(fmt.Sprintf("thinking budget_tokens %d is not enforced: the model thinks as long as it will, within max_tokens", th.BudgetTokens))
			}
		case "disabled":
			off := false
			req.Reasoning.Enabled = &off
		case "adaptive":
			d.note(`thinking "adaptive": left to the model's template default`)
		default:
			return nil, nil, &requestError{msg: fmt.Sprintf("thinking.type %q: want enabled, disabled or adaptive", th.Type), param: "thinking"}
		}
	}
	return req, d.notes, nil
}

// anthropicDecoder holds what decoding one request's messages needs.
type anthropicDecoder struct {
	names map[string]string // tool_use id → tool name, from assistant turns
	notes []string
}

func (d *anthropicDecoder) note(s string) {
	for _, n := range d.notes {
		if n == s {
			return
		}
	}
	d.notes = append(d.notes, s)
}

// blocks reads content given as a string or a list of blocks; a string is
// one text block.
func blocks(raw json.RawMessage, where string) ([]anthropicInBlock, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, &requestError{msg: where + ": " + err.Error(), param: "messages"}
		}
		return []anthropicInBlock{{Type: "text", Text: s}}, nil
	case raw[0] == '[':
		var bs []anthropicInBlock
		if err := json.Unmarshal(raw, &bs); err != nil {
			return nil, &requestError{msg: where + ": " + err.Error(), param: "messages"}
		}
		return bs, nil
	}
	return nil, &requestError{msg: where + ": want a string or a list of content blocks", param: "messages"}
}

// joinText joins the texts of consecutive text blocks; separate blocks are
// separate paragraphs.
// decodeAnthropicOutputFormat reads a structured-outputs format into the
// same constraint as OpenAI's response_format.
func decodeAnthropicOutputFormat(raw json.RawMessage) (*chat.ResponseFormat, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var f struct {
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, &requestError{msg: "output_config.format: " + err.Error(), param: "output_config"}
	}
	if f.Type != "json_schema" || len(bytes.TrimSpace(f.Schema)) == 0 {
		return nil, &requestError{msg: `output_config.format: want {"type": "json_schema", "schema": {...}}`, param: "output_config"}
	}
	return &chat.ResponseFormat{Type: "json_schema", Schema: f.Schema, Strict: true}, nil
}

func joinText(parts []string) string { return strings.Join(parts, "\n\n") }

func (d *anthropicDecoder) systemText(raw json.RawMessage) (string, error) {
	bs, err := blocks(raw, "system")
	if err != nil {
		err.(*requestError).param = "system"
		return "", err
	}
	var texts []string
	for i, b := range bs {
		if b.Type != "text" {
			return "", &requestError{msg: fmt.Sprintf("system[%d]: type %q: the system prompt takes text blocks only", i, b.Type), param: "system"}
		}
		texts = append(texts, b.Text)
	}
	return joinText(texts), nil
}

// message turns one Messages turn into canonical messages: a user turn with
// tool results becomes a tool message per result, followed by a user message
// with the rest of its content, if any.
func (d *anthropicDecoder) message(i int, m anthropicMessage) ([]chat.Message, error) {
	where := fmt.Sprintf("messages[%d]", i)
	bs, err := blocks(m.Content, where+".content")
	if err != nil {
		return nil, err
	}
	switch m.Role {
	case chat.RoleUser, chat.RoleSystem:
	case chat.RoleAssistant:
		return d.assistant(where, bs)
	case "":
		return nil, &requestError{msg: where + ".role: Field required", param: "messages"}
	default:
		return nil, &requestError{msg: fmt.Sprintf("%s.role: unknown role %q: want user or assistant", where, m.Role), param: "messages"}
	}
	var out []chat.Message
	rest := chat.Message{Role: m.Role}
	var texts []string
	hasImage := false
	for j, b := range bs {
		bw := fmt.Sprintf("%s.content[%d]", where, j)
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
			rest.Parts = append(rest.Parts, chat.Part{Type: "text", Text: b.Text})
		case "image":
			url, err := imageURL(bw, b)
			if err != nil {
				return nil, err
			}
			hasImage = true
			rest.Parts = append(rest.Parts, chat.Part{Type: "image_url", ImageURL: url})
		case "document":
			if b.Source == nil || b.Source.Type != "text" {
				return nil, &requestError{msg: bw + ": only documents with a plain-text source are supported", param: "messages"}
			}
			texts = append(texts, b.Source.Data)
			rest.Parts = append(rest.Parts, chat.Part{Type: "text", Text: b.Source.Data})
		case "tool_result":
			if m.Role != chat.RoleUser {
				return nil, &requestError{msg: bw + ": tool_result blocks belong in user turns", param: "messages"}
			}
			tm, err := d.toolResult(bw, b)
			if err != nil {
				return nil, err
			}
			out = append(out, tm)
		case "tool_use", "thinking", "redacted_thinking":
			return nil, &requestError{msg: fmt.Sprintf("%s: %s blocks belong in assistant turns", bw, b.Type), param: "messages"}
		default:
			return nil, &requestError{msg: fmt.Sprintf("%s: content block type %q is not supported", bw, b.Type), param: "messages"}
		}
	}
	if len(rest.Parts) == 0 && len(out) > 0 {
		return out, nil // a turn of tool results only
	}
	if hasImage {
		if m.Role == chat.RoleSystem {
			return nil, &requestError{msg: where + ": a system turn takes text only", param: "messages"}
		}
	} else {
		rest.Parts, rest.Content = nil, joinText(texts)
	}
	return append(out, rest), nil
}

func imageURL(where string, b anthropicInBlock) (string, error) {
	switch {
	case b.Source == nil:
		return "", &requestError{msg: where + ".source: Field required", param: "messages"}
	case b.Source.Type == "base64" && b.Source.MediaType != "" && b.Source.Data != "":
		return "data:" + b.Source.MediaType + ";base64," + b.Source.Data, nil
	case b.Source.Type == "url" && b.Source.URL != "":
		return b.Source.URL, nil
	}
	return "", &requestError{msg: fmt.Sprintf("%s.source: type %q: want base64 (with media_type and data) or url", where, b.Source.Type), param: "messages"}
}

func (d *anthropicDecoder) toolResult(where string, b anthropicInBlock) (chat.Message, error) {
	if b.ToolUseID == "" {
		return chat.Message{}, &requestError{msg: where + ".tool_use_id: Field required", param: "messages"}
	}
	inner, err := blocks(b.Content, where+".content")
	if err != nil {
		return chat.Message{}, err
	}
	var texts []string
	for _, ib := range inner {
		switch ib.Type {
		case "text":
			texts = append(texts, ib.Text)
		default:
			d.note(fmt.Sprintf("a tool result's %s block was left out: tool messages carry text only", ib.Type))
		}
	}
	m := chat.Message{Role: chat.RoleTool, ToolCallID: b.ToolUseID, Name: d.names[b.ToolUseID], Content: joinText(texts)}
	if b.IsError {
		m.IsError, m.Content = true, errorResult(m.Content)
	}
	return m, nil
}

// errorResult is the text of a tool result with is_error: true as the model
// reads it. Templates have no place for the flag, so the text says it: the
// tool's words after "Error: ", unless they already begin with "error".
func errorResult(text string) string {
	switch {
	case strings.TrimSpace(text) == "":
		return "Error"
	case len(text) >= 5 && strings.EqualFold(text[:5], "error"):
		return text
	}
	return "Error: " + text
}

func (d *anthropicDecoder) assistant(where string, bs []anthropicInBlock) ([]chat.Message, error) {
	m := chat.Message{Role: chat.RoleAssistant}
	var texts, thinking []string
	for j, b := range bs {
		bw := fmt.Sprintf("%s.content[%d]", where, j)
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "thinking":
			thinking = append(thinking, b.Thinking)
		case "redacted_thinking":
			d.note("redacted_thinking blocks were left out: their content is opaque")
		case "tool_use":
			if b.ID == "" || b.Name == "" {
				return nil, &requestError{msg: bw + ": tool_use needs an id and a name", param: "messages"}
			}
			args := "{}"
			if in := bytes.TrimSpace(b.Input); len(in) > 0 && string(in) != "null" {
				var c bytes.Buffer
				if err := json.Compact(&c, in); err != nil {
					return nil, &requestError{msg: bw + ".input: " + err.Error(), param: "messages"}
				}
				args = c.String()
			}
			d.names[b.ID] = b.Name
			m.ToolCalls = append(m.ToolCalls, chat.ToolCall{ID: b.ID, Type: "function", Function: chat.FunctionCall{Name: b.Name, Arguments: args}})
		case "tool_result":
			return nil, &requestError{msg: bw + ": tool_result blocks belong in user turns", param: "messages"}
		default:
			return nil, &requestError{msg: fmt.Sprintf("%s: content block type %q is not supported in assistant turns", bw, b.Type), param: "messages"}
		}
	}
	m.Content, m.Reasoning = joinText(texts), joinText(thinking)
	return []chat.Message{m}, nil
}

// decodeAnthropicToolChoice sets req's ToolChoice and ParallelToolCalls.
func decodeAnthropicToolChoice(raw json.RawMessage, req *chat.Request) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var tc struct {
		Type                   string `json:"type"`
		Name                   string `json:"name"`
		DisableParallelToolUse bool   `json:"disable_parallel_tool_use"`
	}
	if err := json.Unmarshal(raw, &tc); err != nil {
		return &requestError{msg: `tool_choice: want {"type": "auto" | "any" | "tool" | "none", ...}`, param: "tool_choice"}
	}
	switch tc.Type {
	case "auto":
		req.ToolChoice = chat.ToolChoice{Mode: chat.ToolAuto}
	case "none":
		req.ToolChoice = chat.ToolChoice{Mode: chat.ToolNone}
	case "any":
		if len(req.Tools) == 0 {
			return &requestError{msg: `tool_choice "any" needs tools`, param: "tool_choice"}
		}
		req.ToolChoice = chat.ToolChoice{Mode: chat.ToolRequired}
	case "tool":
		found := false
		for _, t := range req.Tools {
			found = found || t.Function.Name == tc.Name
		}
		if !found {
			return &requestError{msg: fmt.Sprintf("tool_choice names %q, which is not among the tools", tc.Name), param: "tool_choice"}
		}
		req.ToolChoice = chat.ToolChoice{Mode: chat.ToolNamed, Name: tc.Name}
	default:
		return &requestError{msg: fmt.Sprintf("tool_choice.type %q: want auto, any, tool or none", tc.Type), param: "tool_choice"}
	}
	if tc.DisableParallelToolUse {
		off := false
		req.ParallelToolCalls = &off
	}
	return nil
}

// anthropicMessages is the Anthropic Messages dialect (POST /v1/messages).
var anthropicMessages = &dialect{
	api:      "anthropic",
	idPrefix: "msg_",
	idHeader: "Request-Id",
	decode: func(body []byte, rec *trace.Record) (*chat.Request, any, error) {
		req, notes, err := decodeAnthropic(body)
		for _, n := range notes {
			rec.Decide(n)
		}
		return req, nil, err
	},
	respond: func(w http.ResponseWriter, req *chat.Request, _ any) response {
		if req.Stream {
			return newAnthropicStream(w)
		}
		return &collected{write: completeAnthropic}
	},
	fail: func(w http.ResponseWriter, err error) int {
		status, _, _ := errorStatus(err)
		writeAnthropicError(w, status, anthropicErrorType(status), err.Error())
		return status
	},
}

// anthropicErrorType is the Messages API's error type for an HTTP status.
func anthropicErrorType(status int) string {
	switch {
	case status == http.StatusBadRequest:
		return "invalid_request_error"
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusNotFound:
		return "not_found_error"
	case status == http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == 529:
		return "overloaded_error"
	case status >= 400 && status < 500:
		return "invalid_request_error"
	}
	return "api_error"
}

func writeAnthropicError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, anthropicErrorBody(typ, msg))
}

type anthropicErrorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type anthropicError struct {
	Type  string               `json:"type"`
	Error anthropicErrorDetail `json:"error"`
}

func anthropicErrorBody(typ, msg string) anthropicError {
	return anthropicError{Type: "error", Error: anthropicErrorDetail{Type: typ, Message: msg}}
}

// stopReason is the Messages API's stop_reason for a finish reason and the
// stop sequence that ended the answer, if one did.
func stopReason(r chat.FinishReason, stopSeq string) string {
	if r == chat.FinishStop && stopSeq != "" {
		return "stop_sequence"
	}
	switch r {
	case chat.FinishLength:
		return "max_tokens"
	case chat.FinishToolCalls:
		return "tool_use"
	}
	return "end_turn"
}

// toolInput is a call's arguments as a tool_use input: a JSON object,
// compact. Arguments that are not an object become {} and a diagnostic.
func toolInput(c chat.ToolCall) (json.RawMessage, *trace.Diagnostic) {
	args := bytes.TrimSpace([]byte(c.Function.Arguments))
	if len(args) == 0 {
		return json.RawMessage("{}"), nil
	}
	var b bytes.Buffer
	if args[0] == '{' && json.Compact(&b, args) == nil {
		return b.Bytes(), nil
	}
	return json.RawMessage("{}"), &trace.Diagnostic{Code: "tool-input-not-object",
		Message: fmt.Sprintf("the arguments of the call to %q are not a JSON object; sent as {}: %s", c.Function.Name, c.Function.Arguments)}
}

// Output content blocks, in the shapes the Messages API writes them.
type anthropicText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anthropicThinking struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type anthropicToolUse struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type anthropicUsage struct {
	InputTokens          int `json:"input_tokens"`
	OutputTokens         int `json:"output_tokens"`
	CacheReadInputTokens int `json:"cache_read_input_tokens"`
}

// toAnthropicUsage counts as Anthropic does: input_tokens are the prompt
// tokens evaluated for this request, cache_read_input_tokens those the
// runtime kept from an earlier one; together they are the prompt.
func toAnthropicUsage(u chat.Usage) anthropicUsage {
	return anthropicUsage{InputTokens: u.PromptTokens - u.CachedTokens, OutputTokens: u.CompletionTokens, CacheReadInputTokens: u.CachedTokens}
}

// anthropicMessageOut is a response Message.
type anthropicMessageOut struct {
	ID           string         `json:"id"`
	Type         string         `json:"type"`
	Role         string         `json:"role"`
	Model        string         `json:"model"`
	Content      []any          `json:"content"`
	StopReason   *string        `json:"stop_reason"`
	StopSequence *string        `json:"stop_sequence"`
	Usage        anthropicUsage `json:"usage"`
	Dragoman     *dragomanExtra `json:"dragoman,omitempty"`
}

// collectedBlock is one content block of a non-streamed answer.
// anthropicContent renders a collected answer's pieces as content blocks,
// in the order produced; an answer with none has an empty content list, as
// the Messages API sends it.
func anthropicContent(out []chat.Output) ([]any, []trace.Diagnostic) {
	blocks := []any{}
	var diags []trace.Diagnostic
	for _, o := range out {
		switch o.Kind {
		case chat.DeltaContent:
			blocks = append(blocks, anthropicText{Type: "text", Text: o.Text})
		case chat.DeltaReasoning:
			blocks = append(blocks, anthropicThinking{Type: "thinking", Thinking: o.Text})
		case chat.DeltaCall:
			input, d := toolInput(o.Call)
			if d != nil {
				diags = append(diags, *d)
			}
			blocks = append(blocks, anthropicToolUse{Type: "tool_use", ID: o.Call.ID, Name: o.Call.Function.Name, Input: input})
		}
	}
	return blocks, diags
}

// completeAnthropic writes a collected answer; a broken-off answer is an
// error that still carries everything the model produced.
func completeAnthropic(w http.ResponseWriter, rec *trace.Record, c *collected) int {
	content, diags := anthropicContent(c.resp.Output())
	rec.Diagnostics = append(rec.Diagnostics, diags...)
	end := c.resp.Finish
	var usage chat.Usage
	if end != nil {
		usage = end.Usage
	}
	msg := anthropicMessageOut{ID: c.resp.ID, Type: "message", Role: "assistant", Model: c.resp.Model, Content: content,
		Usage: toAnthropicUsage(usage)}
	if failure := c.broken(); failure != nil {
		writeJSON(w, http.StatusBadGateway, struct {
			anthropicError
			// What the model produced before the break, so that nothing is lost.
			Partial  anthropicMessageOut `json:"partial"`
			Dragoman dragomanExtra       `json:"dragoman"`
		}{anthropicErrorBody("api_error", failure.Error()), msg, dragomanExtra{RequestID: c.resp.ID, Diagnostics: rec.Diagnostics}})
		return http.StatusBadGateway
	}
	reason := stopReason(end.Reason, end.StopSequence)
	msg.StopReason = &reason
	if reason == "stop_sequence" {
		stop := end.StopSequence
		msg.StopSequence = &stop
	}
	if len(rec.Diagnostics) > 0 {
		msg.Dragoman = &dragomanExtra{RequestID: c.resp.ID, Diagnostics: rec.Diagnostics}
	}
	writeJSON(w, http.StatusOK, msg)
	return http.StatusOK
}

// anthropicStream writes an answer as the Messages API's server-sent events:
// message_start, ping, then per content block content_block_start, deltas and
// content_block_stop, then message_delta and message_stop. A new block starts
// whenever the kind of output changes; calls arrive whole, so a tool_use
// block carries its whole input in one input_json_delta.
type anthropicStream struct {
	sse
	id, model string
	open      string // kind of the open block; "" when none is open
	next      int    // index of the next block
	diags     []trace.Diagnostic
	// announced is message_start's input_tokens; message_delta carries the
	// runtime's count instead where it gave one.
	announced int
	tok       tokenWriter
}

func (s *anthropicStream) begun() bool                                     { return s.started }
func (s *anthropicStream) complete(http.ResponseWriter, *trace.Record) int { return http.StatusOK }

func newAnthropicStream(w http.ResponseWriter) *anthropicStream {
	return &anthropicStream{sse: sse{w: w}}
}

type anthropicTypeOnly struct {
	Type string `json:"type"`
}

type anthropicBlockStart struct {
	Type         string `json:"type"`
	Index        int    `json:"index"`
	ContentBlock any    `json:"content_block"`
}

type anthropicBlockDelta struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

type anthropicBlockStop struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

// anthropicTextDelta and anthropicThinkingDelta are the deltas of the token
// events, which textDelta writes without encoding/json.
type anthropicTextDelta struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anthropicThinkingDelta struct {
	Type     string `json:"type"`
	Thinking string `json:"thinking"`
}

type anthropicInputDelta struct {
	Type        string `json:"type"`
	PartialJSON string `json:"partial_json"`
}

type anthropicMessageDelta struct {
	Type  string `json:"type"`
	Delta struct {
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	} `json:"delta"`
	Usage    anthropicUsage `json:"usage"`
	Dragoman *dragomanExtra `json:"dragoman,omitempty"`
}

// announcesPromptTokens: message_start carries input_tokens, so the
// pipeline counts the prompt in relay mode too where it can
// (announcedPromptTokens).
func (s *anthropicStream) announcesPromptTokens() bool { return true }

func (s *anthropicStream) begin(id, model string, promptTokens int) error {
	s.id, s.model, s.announced = id, model, promptTokens
	s.start()
	// Input tokens are known here where Dragoman counted the prompt (own
	// mode with the model's tokenizer; relay mode where count_tokens works
	// for the model) or the runtime did before answering (the embedded
	// engine), else 0 until message_delta.
	start := struct {
		Type    string              `json:"type"`
		Message anthropicMessageOut `json:"message"`
	}{"message_start", anthropicMessageOut{ID: id, Type: "message", Role: "assistant", Model: model, Content: []any{},
		Usage: anthropicUsage{InputTokens: promptTokens}}}
	if err := s.event("message_start", start); err != nil {
		return err
	}
	return s.event("ping", anthropicTypeOnly{"ping"})
}

// event writes one server-sent event and flushes it.
// startBlock closes the open block, if any, and starts a new one.
func (s *anthropicStream) startBlock(kind string, block any) error {
	if err := s.closeBlock(); err != nil {
		return err
	}
	s.open = kind
	s.next++
	return s.event("content_block_start", anthropicBlockStart{"content_block_start", s.next - 1, block})
}

func (s *anthropicStream) closeBlock() error {
	if s.open == "" {
		return nil
	}
	s.open = ""
	return s.event("content_block_stop", anthropicBlockStop{"content_block_stop", s.next - 1})
}

func (s *anthropicStream) delta(d any) error {
	return s.event("content_block_delta", anthropicBlockDelta{"content_block_delta", s.next - 1, d})
}

func (s *anthropicStream) content(t string) error {
	if t == "" {
		return nil
	}
	if s.open != "text" {
		if err := s.startBlock("text", anthropicText{Type: "text"}); err != nil {
			return err
		}
	}
	return s.textDelta(anthropicTextHead, t)
}

func (s *anthropicStream) reasoning(t string) error {
	if t == "" {
		return nil
	}
	if s.open != "thinking" {
		if err := s.startBlock("thinking", anthropicThinking{Type: "thinking"}); err != nil {
			return err
		}
	}
	return s.textDelta(anthropicThinkingHead, t)
}

// The fixed parts of the token events, a text or thinking block's delta.
var (
	anthropicDeltaHead    = []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":")
	anthropicTextHead     = []byte(`,"delta":{"type":"text_delta","text":`)
	anthropicThinkingHead = []byte(`,"delta":{"type":"thinking_delta","thinking":`)
	anthropicDeltaEnd     = []byte("}}\n\n")
)

// textDelta writes the open block's delta of t without encoding/json
// (tokenevents.go): the bytes delta writes for an anthropicTextDelta or
// anthropicThinkingDelta.
func (s *anthropicStream) textDelta(kind []byte, t string) error {
	return s.write(s.tok.start(anthropicDeltaHead).int(s.next - 1).raw(kind).text(t).raw(anthropicDeltaEnd).bytes())
}

// emit encodes one delta. A call still being written is a tool_use block:
// started with an empty input, its arguments as input_json_delta fragments,
// stopped at its end. A withdrawn call's block stops where it was (its
// input may be incomplete JSON); the message_delta's diagnostics say it
// does not count.
func (s *anthropicStream) emit(d chat.Delta) error {
	switch d.Kind {
	case chat.DeltaContent:
		return s.content(d.Text)
	case chat.DeltaReasoning:
		return s.reasoning(d.Text)
	case chat.DeltaCall:
		return s.call(*d.Call)
	case chat.DeltaCallStart:
		return s.startBlock("tool_use", anthropicToolUse{Type: "tool_use", ID: d.ID, Name: d.Name, Input: json.RawMessage("{}")})
	case chat.DeltaCallArgs:
		return s.delta(anthropicInputDelta{"input_json_delta", d.Text})
	case chat.DeltaCallEnd, chat.DeltaCallWithdrawn:
		return s.closeBlock()
	case chat.DeltaFinish:
		return s.finish(d.Finish)
	}
	return nil
}

func (s *anthropicStream) streamsCalls() bool { return true }

func (s *anthropicStream) call(c chat.ToolCall) error {
	input, d := toolInput(c)
	if d != nil {
		s.diags = append(s.diags, *d)
	}
	start := anthropicToolUse{Type: "tool_use", ID: c.ID, Name: c.Function.Name, Input: json.RawMessage("{}")}
	if err := s.startBlock("tool_use", start); err != nil {
		return err
	}
	if err := s.delta(anthropicInputDelta{"input_json_delta", string(input)}); err != nil {
		return err
	}
	return s.closeBlock()
}

func (s *anthropicStream) finish(f *chat.Finish) error {
	if err := s.closeBlock(); err != nil {
		return err
	}
	u, d := f.Usage, f.Diagnostics
	if u.PromptTokens == 0 {
		// The runtime gave no count: message_delta repeats message_start's
		// rather than overwrite it with 0 (SDKs keep the last one).
		u.PromptTokens = s.announced
	}
	m := anthropicMessageDelta{Type: "message_delta", Usage: toAnthropicUsage(u)}
	m.Delta.StopReason = stopReason(f.Reason, f.StopSequence)
	if m.Delta.StopReason == "stop_sequence" {
		m.Delta.StopSequence = &f.StopSequence
	}
	if all := append(append([]trace.Diagnostic(nil), d...), s.diags...); len(all) > 0 {
		m.Dragoman = &dragomanExtra{RequestID: s.id, Diagnostics: all}
	}
	if err := s.event("message_delta", m); err != nil {
		return err
	}
	return s.event("message_stop", anthropicTypeOnly{"message_stop"})
}

// fail closes the open block, keeping what was delivered, and ends the
// stream with an error event, as the Messages API does mid-stream.
func (s *anthropicStream) fail(err error) error {
	if e := s.closeBlock(); e != nil {
		return e
	}
	return s.event("error", anthropicErrorBody("api_error", err.Error()))
}
