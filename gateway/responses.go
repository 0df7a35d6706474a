package gateway

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/trace"
)

// The OpenAI Responses API (POST /v1/responses): the API Codex CLI, the
// OpenAI Agents SDK and the AI SDK's default OpenAI provider speak. Its
// input items are decoded into the canonical chat.Request; its answer is
// written as output items (reasoning, message, function_call), streamed as
// the documented sequence of events or collected into one response object.
// Responses are kept in a bounded store (responseStore) so that
// previous_response_id chains turns and GET/DELETE /v1/responses/{id} work.

// responsesRequest is the request body, as far as Dragoman reads it. Fields
// it does not read (user, truncation, service_tier, prompt_cache_key, …) are
// accepted and ignored.
type responsesRequest struct {
	Model             string            `json:"model"`
	Input             json.RawMessage   `json:"input"`
	Instructions      *string           `json:"instructions"`
	Tools             []json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage   `json:"tool_choice"`
	ParallelToolCalls *bool             `json:"parallel_tool_calls"`
	Text              *struct {
		Format json.RawMessage `json:"format"`
	} `json:"text"`
	Reasoning *struct {
		Effort string `json:"effort"`
	} `json:"reasoning"`
	MaxOutputTokens    *int                       `json:"max_output_tokens"`
	Temperature        *float64                   `json:"temperature"`
	TopP               *float64                   `json:"top_p"`
	Seed               *int64                     `json:"seed"`
	Stream             bool                       `json:"stream"`
	Store              *bool                      `json:"store"`
	PreviousResponseID string                     `json:"previous_response_id"`
	Include            []string                   `json:"include"`
	Metadata           map[string]string          `json:"metadata"`
	ChatTemplateKwargs map[string]json.RawMessage `json:"chat_template_kwargs"`
}

// responsesState is what one request's answer echoes back and stores.
type responsesState struct {
	store        *responseStore
	instructions *string
	tools        []json.RawMessage // the function tools, as sent
	toolChoice   json.RawMessage
	parallel     bool
	textFormat   json.RawMessage
	effort       string
	maxOutput    *int
	temperature  *float64
	topP         *float64
	metadata     map[string]string
	keep         bool // store it
	previous     string
	encrypted    bool // include reasoning.encrypted_content
	// history is the conversation before this answer, without the
	// instructions (which a chained turn does not inherit).
	history []chat.Message
}

// responsesDialect is the Responses API of s: its decoder reads the chained
// conversations from s's store.
func (s *Server) responsesDialect() *dialect {
	return &dialect{
		api:      "responses",
		idPrefix: "resp_",
		decode: func(body []byte, rec *trace.Record) (*chat.Request, any, error) {
			return decodeResponses(body, s.responses, rec)
		},
		respond: func(w http.ResponseWriter, req *chat.Request, state any) response {
			b := &responsesBuilder{state: state.(*responsesState), req: req}
			if req.Stream {
				b.stream = &sse{w: w}
			}
			return b
		},
		fail: func(w http.ResponseWriter, err error) int {
			status, typ, param := errorStatus(err)
			writeOpenAIError(w, status, typ, err.Error(), param)
			return status
		},
	}
}

// decodeResponses reads and checks a Responses request.
func decodeResponses(body []byte, store *responseStore, rec *trace.Record) (*chat.Request, any, error) {
	var in responsesRequest
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&in); err != nil {
		return nil, nil, &requestError{msg: "the request body is not valid JSON for the Responses API: " + err.Error()}
	}
	if in.Model == "" {
		return nil, nil, &requestError{msg: "model is required", param: "model"}
	}
	st := &responsesState{store: store, instructions: in.Instructions, toolChoice: in.ToolChoice, parallel: true,
		maxOutput: in.MaxOutputTokens, temperature: in.Temperature, topP: in.TopP, metadata: in.Metadata,
		keep: in.Store == nil || *in.Store, previous: in.PreviousResponseID, encrypted: slices.Contains(in.Include, "reasoning.encrypted_content")}
	if in.ParallelToolCalls != nil {
		st.parallel = *in.ParallelToolCalls
	}
	req := &chat.Request{Model: in.Model, ParallelToolCalls: in.ParallelToolCalls, Temperature: in.Temperature, TopP: in.TopP,
		Seed: in.Seed, Stream: in.Stream, IncludeUsage: true, TemplateKwargs: in.ChatTemplateKwargs}
	if in.MaxOutputTokens != nil {
		if *in.MaxOutputTokens < 1 {
			return nil, nil, &requestError{msg: "max_output_tokens must be at least 1", param: "max_output_tokens"}
		}
		req.MaxTokens = *in.MaxOutputTokens
	}
	if in.PreviousResponseID != "" {
		prev, ok := store.history(in.PreviousResponseID)
		if !ok {
			return nil, nil, &requestError{msg: fmt.Sprintf("previous response %q not found (responses are kept for a while after they were made, and only with store true)", in.PreviousResponseID), param: "previous_response_id"}
		}
		st.history = append(st.history, prev...)
	}
	items, err := decodeInput(in.Input, rec)
	if err != nil {
		return nil, nil, err
	}
	st.history = append(st.history, items...)
	if in.Instructions != nil && *in.Instructions != "" {
		req.Messages = append(req.Messages, chat.Message{Role: chat.RoleSystem, Content: *in.Instructions})
	}
	req.Messages = append(req.Messages, st.history...)
	if len(req.Messages) == 0 {
		return nil, nil, &requestError{msg: "input must hold at least one item", param: "input"}
	}
	for i, raw := range in.Tools {
		tool, ok, err := decodeResponsesTool(i, raw)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			rec.Decide(fmt.Sprintf("tools[%d] is a %s tool, which Dragoman cannot run: left out of the prompt", i, toolType(raw)))
			continue
		}
		req.Tools = append(req.Tools, tool)
		st.tools = append(st.tools, raw)
	}
	if req.ToolChoice, err = decodeResponsesToolChoice(in.ToolChoice, req.Tools, rec); err != nil {
		return nil, nil, err
	}
	if in.Text != nil {
		st.textFormat = in.Text.Format
		if req.ResponseFormat, err = decodeTextFormat(in.Text.Format); err != nil {
			return nil, nil, err
		}
	}
	if in.Reasoning != nil {
		st.effort = in.Reasoning.Effort
		switch in.Reasoning.Effort {
		case "":
		case "none", "minimal":
			off := false
			req.Reasoning.Enabled, req.Reasoning.Effort = &off, in.Reasoning.Effort
		default:
			req.Reasoning.Effort = in.Reasoning.Effort
		}
	}
	if raw, ok := in.ChatTemplateKwargs["enable_thinking"]; ok {
		var on bool
		if json.Unmarshal(raw, &on) == nil {
			req.Reasoning.Enabled = &on
		}
	}
	return req, st, nil
}

// inputItem is one element of input: a message (with or without "type"),
// a function call, a call's output, or reasoning.
type inputItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Output           json.RawMessage `json:"output"`
	Summary          []inputPart     `json:"summary"`
	EncryptedContent string          `json:"encrypted_content"`
}

type inputPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
	FileID   string `json:"file_id"`
}

// decodeInput turns input (a string, or a list of items) into messages. The
// items of one assistant turn — reasoning, its message, its calls — become
// one assistant message, as chat templates expect them.
func decodeInput(raw json.RawMessage, rec *trace.Record) ([]chat.Message, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, &requestError{msg: "input: " + err.Error(), param: "input"}
		}
		return []chat.Message{{Role: chat.RoleUser, Content: text}}, nil
	}
	var items []inputItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, &requestError{msg: "input: want a string or a list of items: " + err.Error(), param: "input"}
	}
	var out []chat.Message
	names := map[string]string{} // call id → function name
	pendingReasoning := ""
	// turn is the assistant message being assembled, or nil.
	turn := func() *chat.Message {
		if n := len(out); n > 0 && out[n-1].Role == chat.RoleAssistant {
			return &out[n-1]
		}
		return nil
	}
	newTurn := func() *chat.Message {
		out = append(out, chat.Message{Role: chat.RoleAssistant, Reasoning: pendingReasoning})
		pendingReasoning = ""
		return &out[len(out)-1]
	}
	for i, it := range items {
		where := fmt.Sprintf("input[%d]", i)
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message"
		}
		switch typ {
		case "message":
			m, err := inputMessage(where, it)
			if err != nil {
				return nil, err
			}
			if m.Role != chat.RoleAssistant {
				out = append(out, m)
				continue
			}
			t := turn()
			if t == nil || t.Text() != "" || len(t.ToolCalls) > 0 || pendingReasoning != "" {
				t = newTurn()
			}
			t.Content, t.Parts = m.Content, m.Parts
		case "function_call":
			if it.Name == "" || it.CallID == "" {
				return nil, &requestError{msg: where + ": a function_call needs name and call_id", param: "input"}
			}
			t := turn()
			if t == nil || pendingReasoning != "" {
				t = newTurn()
			}
			t.ToolCalls = append(t.ToolCalls, chat.ToolCall{ID: it.CallID, Type: "function", Function: chat.FunctionCall{Name: it.Name, Arguments: it.Arguments}})
			names[it.CallID] = it.Name
		case "function_call_output":
			if it.CallID == "" {
				return nil, &requestError{msg: where + ": a function_call_output needs call_id", param: "input"}
			}
			text, err := outputText(where, it.Output)
			if err != nil {
				return nil, err
			}
			out = append(out, chat.Message{Role: chat.RoleTool, Content: text, ToolCallID: it.CallID, Name: names[it.CallID]})
		case "reasoning":
			pendingReasoning += reasoningText(it)
		default:
			rec.Decide(fmt.Sprintf("%s is a %q item, which Dragoman cannot render: left out", where, typ))
		}
	}
	if pendingReasoning != "" {
		rec.Decide("a reasoning item with no assistant turn after it: left out")
	}
	return out, nil
}

// inputMessage reads a message item: content as a string or as parts.
func inputMessage(where string, it inputItem) (chat.Message, error) {
	m := chat.Message{Role: it.Role}
	switch it.Role {
	case chat.RoleUser, chat.RoleAssistant, chat.RoleSystem, chat.RoleDeveloper:
	default:
		return m, &requestError{msg: fmt.Sprintf("%s.role: %q: want user, assistant, system or developer", where, it.Role), param: "input"}
	}
	content := bytes.TrimSpace(it.Content)
	if len(content) > 0 && content[0] == '"' {
		err := json.Unmarshal(content, &m.Content)
		return m, err
	}
	var parts []inputPart
	if len(content) > 0 && string(content) != "null" {
		if err := json.Unmarshal(content, &parts); err != nil {
			return m, &requestError{msg: where + ".content: want a string or a list of parts", param: "input"}
		}
	}
	m.Parts = []chat.Part{}
	for j, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text", "refusal":
			m.Parts = append(m.Parts, chat.Part{Type: "text", Text: p.Text})
		case "input_image":
			if p.ImageURL == "" {
				return m, &requestError{msg: fmt.Sprintf("%s.content[%d]: only images given by image_url are supported (file ids need OpenAI's file store)", where, j), param: "input"}
			}
			m.Parts = append(m.Parts, chat.Part{Type: "image_url", ImageURL: p.ImageURL})
		default:
			return m, &requestError{msg: fmt.Sprintf("%s.content[%d]: content type %q is not supported", where, j, p.Type), param: "input"}
		}
	}
	return m, nil
}

// outputText is a function_call_output's output: a string, or text parts.
func outputText(where string, raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []inputPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", &requestError{msg: where + ".output: want a string or a list of parts", param: "input"}
	}
	m := chat.Message{Parts: []chat.Part{}}
	for _, p := range parts {
		if p.Type == "input_text" || p.Type == "output_text" || p.Type == "text" {
			m.Parts = append(m.Parts, chat.Part{Type: "text", Text: p.Text})
		}
	}
	return m.Text(), nil
}

// encryptedPrefix marks the opaque reasoning Dragoman hands out for
// include: ["reasoning.encrypted_content"]. It is not encrypted (the model
// runs on the user's machine): only opaque, so that a stateless client sends
// it back unchanged and the template sees the reasoning again.
const encryptedPrefix = "dragoman.reasoning.v1."

func encodeReasoning(text string) string {
	return encryptedPrefix + base64.RawURLEncoding.EncodeToString([]byte(text))
}

// reasoningText is a reasoning item's text: its opaque form where Dragoman
// made it, else its content, else its summary.
func reasoningText(it inputItem) string {
	if enc, ok := strings.CutPrefix(it.EncryptedContent, encryptedPrefix); ok {
		if b, err := base64.RawURLEncoding.DecodeString(enc); err == nil {
			return string(b)
		}
	}
	var parts []inputPart
	_ = json.Unmarshal(it.Content, &parts)
	if len(parts) == 0 {
		parts = it.Summary
	}
	var texts []string
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

func toolType(raw json.RawMessage) string {
	var t struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &t)
	return fmt.Sprintf("%q", t.Type)
}

// decodeResponsesTool reads a tool; ok is false for tool types Dragoman
// cannot run (web_search, file_search, computer use, custom, …), which are
// left out rather than refused, since clients send them always.
func decodeResponsesTool(i int, raw json.RawMessage) (chat.Tool, bool, error) {
	var t struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return chat.Tool{}, false, &requestError{msg: fmt.Sprintf("tools[%d]: %v", i, err), param: "tools"}
	}
	if t.Type != "function" {
		return chat.Tool{}, false, nil
	}
	if t.Name == "" {
		return chat.Tool{}, false, &requestError{msg: fmt.Sprintf("tools[%d]: a function tool needs a name", i), param: "tools"}
	}
	if p := bytes.TrimSpace(t.Parameters); string(p) == "null" {
		t.Parameters = nil
	}
	return chat.Tool{Type: "function", Function: chat.ToolFunction{Name: t.Name, Description: t.Description, Parameters: t.Parameters}}, true, nil
}

// decodeResponsesToolChoice reads tool_choice: a mode, a function by name,
// or allowed_tools (its mode is kept; the subset is not enforced, and the
// trace says so).
func decodeResponsesToolChoice(raw json.RawMessage, tools []chat.Tool, rec *trace.Record) (chat.ToolChoice, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == '"' || string(raw) == "null" {
		return decodeToolChoice(raw, tools)
	}
	var c struct {
		Type string `json:"type"`
		Name string `json:"name"`
		Mode string `json:"mode"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return chat.ToolChoice{}, &requestError{msg: "tool_choice: " + err.Error(), param: "tool_choice"}
	}
	switch c.Type {
	case "function":
		return decodeToolChoice(json.RawMessage(fmt.Sprintf(`{"type":"function","function":{"name":%q}}`, c.Name)), tools)
	case "allowed_tools":
		rec.Decide("tool_choice allowed_tools: its mode is kept, the subset of tools is not enforced")
		return decodeToolChoice(json.RawMessage(fmt.Sprintf("%q", c.Mode)), tools)
	}
	rec.Decide(fmt.Sprintf("tool_choice names a %q tool, which Dragoman cannot run: auto", c.Type))
	return chat.ToolChoice{}, nil
}

// decodeTextFormat reads text.format into the same constraint as
// response_format.
func decodeTextFormat(raw json.RawMessage) (*chat.ResponseFormat, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var f struct {
		Type   string          `json:"type"`
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, &requestError{msg: "text.format: " + err.Error(), param: "text.format"}
	}
	switch f.Type {
	case "text":
		return nil, nil
	case "json_object":
		return &chat.ResponseFormat{Type: f.Type}, nil
	case "json_schema":
		if len(f.Schema) == 0 {
			return nil, &requestError{msg: "text.format json_schema needs a schema", param: "text.format.schema"}
		}
		return &chat.ResponseFormat{Type: f.Type, Name: f.Name, Schema: f.Schema, Strict: f.Strict}, nil
	}
	return nil, &requestError{msg: fmt.Sprintf("text.format type %q: want text, json_object or json_schema", f.Type), param: "text.format"}
}

// responsesBuilder assembles one answer's output items. With stream set it
// writes each step as the documented events; without, complete writes the
// response object. Either way the same items are built, and stored.
type responsesBuilder struct {
	state  *responsesState
	req    *chat.Request
	stream *sse // nil when collecting
	// liveCall is the output index of the call being streamed, liveArgs
	// its arguments so far.
	liveCall int
	liveArgs string
	seq      int

	id, model  string
	created    int64
	output     []map[string]any
	open       map[string]any // the reasoning or message item receiving text, or nil
	openIDs    []byte         // its delta events' fields after the text, up to the sequence number's value
	tok        tokenWriter
	openText   strings.Builder
	held       string // whitespace before any message item: kept until text follows
	status     string
	incomplete string // why, when status is incomplete
	failure    error
	usage      chat.Usage
	diags      []trace.Diagnostic
	assistant  chat.Message // the answer as a turn, for the store
	// answer and thought collect the answer's text and reasoning for
	// assistant (save): appended to, not rebuilt, at every token.
	answer, thought strings.Builder
}

func (b *responsesBuilder) begun() bool { return b.stream != nil && b.stream.started }

// event writes one streamed event of type typ with the fields of v.
func (b *responsesBuilder) event(typ string, v map[string]any) error {
	if b.stream == nil {
		return nil
	}
	v["type"], v["sequence_number"] = typ, b.seq
	b.seq++
	return b.stream.event(typ, v)
}

func (b *responsesBuilder) begin(id, model string, _ int) error {
	b.id, b.model, b.created, b.status = id, model, time.Now().Unix(), "in_progress"
	b.assistant.Role = chat.RoleAssistant
	if b.stream == nil {
		return nil
	}
	b.stream.start()
	if err := b.event("response.created", map[string]any{"response": b.object()}); err != nil {
		return err
	}
	return b.event("response.in_progress", map[string]any{"response": b.object()})
}

// openItem makes typ ("reasoning" or "message") the item receiving text,
// closing another one first.
func (b *responsesBuilder) openItem(typ string) error {
	if b.open != nil && b.open["type"] == typ {
		return nil
	}
	if err := b.closeItem(); err != nil {
		return err
	}
	item := map[string]any{"type": typ, "status": "in_progress"}
	part := map[string]any{"type": "reasoning_text", "text": ""}
	if typ == "message" {
		item["id"], item["role"], item["content"] = newID("msg_"), "assistant", []any{}
		part = map[string]any{"type": "output_text", "text": "", "annotations": []any{}, "logprobs": []any{}}
	} else {
		item["id"], item["summary"], item["content"] = newID("rs_"), []any{}, []any{}
	}
	b.open = item
	b.openText.Reset()
	index := len(b.output)
	b.openIDs = appendJSONString(append(b.openIDs[:0], `,"item_id":`...), item["id"].(string))
	if typ == "message" {
		b.openIDs = append(b.openIDs, `,"logprobs":[]`...)
	}
	b.openIDs = strconv.AppendInt(append(b.openIDs, `,"output_index":`...), int64(index), 10)
	b.openIDs = append(b.openIDs, `,"sequence_number":`...)
	b.output = append(b.output, item)
	if err := b.event("response.output_item.added", map[string]any{"output_index": index, "item": item}); err != nil {
		return err
	}
	return b.event("response.content_part.added", map[string]any{"item_id": item["id"], "output_index": index, "content_index": 0, "part": part})
}

// closeItem finishes the item receiving text, if any.
func (b *responsesBuilder) closeItem() error {
	item := b.open
	if item == nil {
		return nil
	}
	b.open = nil
	text := b.openText.String()
	index := len(b.output) - 1
	var part map[string]any
	var done string
	if item["type"] == "message" {
		part = map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
		done = "response.output_text.done"
	} else {
		part = map[string]any{"type": "reasoning_text", "text": text}
		done = "response.reasoning_text.done"
		if b.state.encrypted {
			item["encrypted_content"] = encodeReasoning(text)
		}
	}
	item["content"], item["status"] = []any{part}, "completed"
	ids := map[string]any{"item_id": item["id"], "output_index": index, "content_index": 0}
	for _, e := range []struct {
		typ    string
		fields map[string]any
	}{
		{done, map[string]any{"text": text}},
		{"response.content_part.done", map[string]any{"part": part}},
	} {
		for k, v := range ids {
			e.fields[k] = v
		}
		if e.typ == "response.output_text.done" {
			e.fields["logprobs"] = []any{}
		}
		if err := b.event(e.typ, e.fields); err != nil {
			return err
		}
	}
	return b.event("response.output_item.done", map[string]any{"output_index": index, "item": item})
}

// emit builds one delta into the output items, writing their events when
// streaming.
func (b *responsesBuilder) emit(d chat.Delta) error {
	switch d.Kind {
	case chat.DeltaContent:
		return b.content(d.Text)
	case chat.DeltaReasoning:
		return b.reasoning(d.Text)
	case chat.DeltaCall:
		return b.call(*d.Call)
	case chat.DeltaCallStart:
		return b.callStart(d.ID, d.Name)
	case chat.DeltaCallArgs:
		return b.callArgs(d.Text)
	case chat.DeltaCallEnd:
		b.assistant.ToolCalls = append(b.assistant.ToolCalls, *d.Call)
		return b.endLive("completed")
	case chat.DeltaCallWithdrawn:
		return b.endLive("incomplete")
	case chat.DeltaFinish:
		return b.finish(d.Finish)
	}
	return nil
}

func (b *responsesBuilder) reasoning(t string) error {
	b.thought.WriteString(t)
	if err := b.openItem("reasoning"); err != nil {
		return err
	}
	b.openText.WriteString(t)
	return b.textDelta(responsesReasoningDelta, t)
}

func (b *responsesBuilder) content(t string) error {
	if b.open == nil || b.open["type"] != "message" {
		if strings.TrimSpace(t) == "" {
			b.held += t // layout between markup, until text follows
			return nil
		}
		t, b.held = b.held+t, ""
	}
	b.answer.WriteString(t)
	if err := b.openItem("message"); err != nil {
		return err
	}
	b.openText.WriteString(t)
	return b.textDelta(responsesTextDelta, t)
}

// The fixed parts of the token events, before the text and after the
// sequence number, in the order encoding/json writes a map's keys.
var (
	responsesTextDelta      = responsesDeltaParts("response.output_text.delta")
	responsesReasoningDelta = responsesDeltaParts("response.reasoning_text.delta")
)

func responsesDeltaParts(typ string) [2][]byte {
	return [2][]byte{[]byte("event: " + typ + "\ndata: {\"content_index\":0,\"delta\":"), []byte(`,"type":"` + typ + "\"}\n\n")}
}

// textDelta writes the open item's delta of t without encoding/json
// (tokenevents.go): the bytes event writes for the map of item_id,
// output_index, content_index 0, delta, and for a message logprobs [].
func (b *responsesBuilder) textDelta(parts [2][]byte, t string) error {
	if b.stream == nil {
		return nil
	}
	b.seq++
	return b.stream.write(b.tok.start(parts[0]).text(t).raw(b.openIDs).int(b.seq - 1).raw(parts[1]).bytes())
}

func (b *responsesBuilder) call(c chat.ToolCall) error {
	if err := b.closeItem(); err != nil {
		return err
	}
	b.held = ""
	b.assistant.ToolCalls = append(b.assistant.ToolCalls, c)
	item := map[string]any{"type": "function_call", "id": newID("fc_"), "call_id": c.ID, "name": c.Function.Name, "arguments": "", "status": "in_progress"}
	index := len(b.output)
	b.output = append(b.output, item)
	if err := b.event("response.output_item.added", map[string]any{"output_index": index, "item": item}); err != nil {
		return err
	}
	ids := map[string]any{"item_id": item["id"], "output_index": index}
	if err := b.event("response.function_call_arguments.delta", merge(ids, "delta", c.Function.Arguments)); err != nil {
		return err
	}
	if err := b.event("response.function_call_arguments.done", merge(merge(ids, "name", c.Function.Name), "arguments", c.Function.Arguments)); err != nil {
		return err
	}
	item["arguments"], item["status"] = c.Function.Arguments, "completed"
	return b.event("response.output_item.done", map[string]any{"output_index": index, "item": item})
}

// A streamed call (streaming only): output_item.added with empty arguments,
// the fragments as function_call_arguments.delta, then .done and
// output_item.done. A withdrawn call ends with status "incomplete": it stays
// in the output as the stream showed it (output indexes do not move), but
// not in what previous_response_id continues.
func (b *responsesBuilder) streamsCalls() bool { return b.stream != nil }

func (b *responsesBuilder) callStart(id, name string) error {
	if err := b.closeItem(); err != nil {
		return err
	}
	b.held = ""
	item := map[string]any{"type": "function_call", "id": newID("fc_"), "call_id": id, "name": name, "arguments": "", "status": "in_progress"}
	b.liveCall, b.liveArgs = len(b.output), ""
	b.output = append(b.output, item)
	return b.event("response.output_item.added", map[string]any{"output_index": b.liveCall, "item": item})
}

func (b *responsesBuilder) callArgs(fragment string) error {
	b.liveArgs += fragment
	item := b.output[b.liveCall]
	return b.event("response.function_call_arguments.delta", map[string]any{"item_id": item["id"], "output_index": b.liveCall, "delta": fragment})
}

// endLive ends the streamed call with the arguments it showed.
func (b *responsesBuilder) endLive(status string) error {
	index, item := b.liveCall, b.output[b.liveCall]
	ids := map[string]any{"item_id": item["id"], "output_index": index}
	if err := b.event("response.function_call_arguments.done", merge(merge(ids, "name", item["name"]), "arguments", b.liveArgs)); err != nil {
		return err
	}
	item["arguments"], item["status"] = b.liveArgs, status
	return b.event("response.output_item.done", map[string]any{"output_index": index, "item": item})
}

// merge returns a copy of m with k set to v.
func merge(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}

func (b *responsesBuilder) finish(f *chat.Finish) error {
	if err := b.closeItem(); err != nil {
		return err
	}
	b.usage, b.diags, b.status = f.Usage, f.Diagnostics, "completed"
	if f.Reason == chat.FinishLength {
		b.status, b.incomplete = "incomplete", "max_output_tokens"
	}
	b.save()
	if b.status == "incomplete" {
		return b.event("response.incomplete", map[string]any{"response": b.object()})
	}
	return b.event("response.completed", map[string]any{"response": b.object()})
}

func (b *responsesBuilder) fail(err error) error {
	if e := b.closeItem(); e != nil {
		return e
	}
	b.failure, b.status = err, "failed"
	return b.event("response.failed", map[string]any{"response": b.object()})
}

// complete writes a collected answer; a broken-off one is a 502 that still
// carries everything the model produced.
func (b *responsesBuilder) complete(w http.ResponseWriter, rec *trace.Record) int {
	if b.stream != nil {
		return http.StatusOK
	}
	if b.failure != nil {
		writeJSON(w, http.StatusBadGateway, map[string]any{
			"error":    map[string]any{"message": b.failure.Error(), "type": "upstream_error", "param": nil, "code": "upstream_error"},
			"partial":  b.object(),
			"dragoman": dragomanExtra{RequestID: b.id, Diagnostics: rec.Diagnostics},
		})
		return http.StatusBadGateway
	}
	writeJSON(w, http.StatusOK, b.object())
	return http.StatusOK
}

// object is the response object as it stands.
func (b *responsesBuilder) object() map[string]any {
	st := b.state
	o := map[string]any{
		"id": b.id, "object": "response", "created_at": b.created, "status": b.status, "model": b.model,
		"output": b.output, "error": nil, "incomplete_details": nil,
		"instructions": st.instructions, "max_output_tokens": st.maxOutput, "temperature": st.temperature, "top_p": st.topP,
		"parallel_tool_calls": st.parallel, "previous_response_id": nil, "store": st.keep, "truncation": "disabled",
		"tools": toolsOrEmpty(st.tools), "tool_choice": rawOr(st.toolChoice, `"auto"`),
		"text":      map[string]any{"format": rawOr(st.textFormat, `{"type":"text"}`)},
		"reasoning": map[string]any{"effort": nilIfEmpty(st.effort), "summary": nil},
		"metadata":  metadataOrEmpty(st.metadata), "usage": nil,
	}
	if b.output == nil {
		o["output"] = []any{}
	}
	if st.previous != "" {
		o["previous_response_id"] = st.previous
	}
	if b.incomplete != "" {
		o["incomplete_details"] = map[string]any{"reason": b.incomplete}
	}
	if b.failure != nil {
		o["error"] = map[string]any{"code": "server_error", "message": b.failure.Error()}
	}
	if b.status == "completed" || b.status == "incomplete" {
		o["usage"] = map[string]any{
			"input_tokens": b.usage.PromptTokens, "input_tokens_details": map[string]any{"cached_tokens": b.usage.CachedTokens},
			"output_tokens": b.usage.CompletionTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": b.usage.PromptTokens + b.usage.CompletionTokens,
		}
	}
	if len(b.diags) > 0 {
		o["dragoman"] = dragomanExtra{RequestID: b.id, Diagnostics: b.diags}
	}
	return o
}

// save keeps a finished response for previous_response_id and GET, unless
// the client said store false.
func (b *responsesBuilder) save() {
	if !b.state.keep || b.state.store == nil {
		return
	}
	b.assistant.Content, b.assistant.Reasoning = b.answer.String(), b.thought.String()
	history := append(slices.Clip(b.state.history), b.assistant)
	body, err := json.Marshal(b.object())
	if err != nil {
		return
	}
	b.state.store.put(b.id, body, history)
}

func toolsOrEmpty(tools []json.RawMessage) []json.RawMessage {
	if tools == nil {
		return []json.RawMessage{}
	}
	return tools
}

func rawOr(raw json.RawMessage, def string) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return json.RawMessage(def)
	}
	return raw
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func metadataOrEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// handleGetResponse returns a stored response (GET /v1/responses/{id}).
func (s *Server) handleGetResponse(w http.ResponseWriter, r *http.Request) {
	body, ok := s.responses.get(r.PathValue("id"))
	if !ok {
		writeOpenAIError(w, http.StatusNotFound, "not_found", fmt.Sprintf("response %q not found (responses are kept for a while after they were made, and only with store true)", r.PathValue("id")), "response_id")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// handleDeleteResponse forgets a stored response (DELETE /v1/responses/{id}).
func (s *Server) handleDeleteResponse(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.responses.delete(id) {
		writeOpenAIError(w, http.StatusNotFound, "not_found", fmt.Sprintf("response %q not found", id), "response_id")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "response", "deleted": true})
}
