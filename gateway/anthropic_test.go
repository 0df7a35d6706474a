package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// Helpers.

const weatherTool = `{"name": "get_weather", "description": "Current weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}`

const parisCall = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"

func stop() backend.Chunk {
	return backend.Chunk{FinishReason: chat.FinishStop, Usage: &chat.Usage{PromptTokens: 12, CompletionTokens: 5}}
}

// postMessages sends a Messages request and returns the response with its body read.
func postMessages(t *testing.T, ts *httptest.Server, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", ts.URL+"/v1/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// messageOK posts body, wants a 200 Message, and decodes it.
func messageOK(t *testing.T, ts *httptest.Server, body string) map[string]any {
	t.Helper()
	resp, data := postMessages(t, ts, body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, data)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	return m
}

// promptOf is the prompt the fake runtime was given for its only request.
func promptOf(t *testing.T, f *fakeRuntime) string {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.completes) != 1 {
		t.Fatalf("the runtime got %d completions, want 1", len(f.completes))
	}
	return f.completes[0].Prompt
}

func jsonEq(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s = %s, want %s", what, g, want)
	}
}

type sseEvent struct {
	name string
	data map[string]any
}

// readSSE parses a stream of `event: name\ndata: json\n\n`, checking that each
// event's name matches its data's type.
func readSSE(t *testing.T, body []byte) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name == "" && cur.data == nil {
				continue
			}
			if typ, _ := cur.data["type"].(string); typ != cur.name {
				t.Errorf("event %q carries data of type %q", cur.name, typ)
			}
			out = append(out, cur)
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("data line %q: %v", line, err)
			}
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if cur.name != "" || cur.data != nil {
		t.Fatalf("the stream ends inside an event: %+v", cur)
	}
	return out
}

// shape summarises events, one line each, runs of deltas to one block merged:
// "content_block_delta 0 text_delta" once however many there are.
func shape(evs []sseEvent) []string {
	var out []string
	for _, e := range evs {
		s := e.name
		if idx, ok := e.data["index"].(float64); ok {
			s += " " + strings.TrimSuffix(strings.TrimSuffix(jsonNum(idx), ".0"), ".")
		}
		switch e.name {
		case "content_block_start":
			s += " " + e.data["content_block"].(map[string]any)["type"].(string)
		case "content_block_delta":
			s += " " + e.data["delta"].(map[string]any)["type"].(string)
		case "message_delta":
			s += " " + e.data["delta"].(map[string]any)["stop_reason"].(string)
		case "error":
			s += " " + e.data["error"].(map[string]any)["type"].(string)
		}
		if len(out) > 0 && out[len(out)-1] == s && e.name == "content_block_delta" {
			continue
		}
		out = append(out, s)
	}
	return out
}

func jsonNum(f float64) string { b, _ := json.Marshal(f); return string(b) }

// deltaText joins the deltas of one kind to the block at index.
func deltaText(evs []sseEvent, index int, field string) string {
	var b strings.Builder
	for _, e := range evs {
		if e.name == "content_block_delta" && e.data["index"] == float64(index) {
			if s, ok := e.data["delta"].(map[string]any)[field].(string); ok {
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

func wantShape(t *testing.T, evs []sseEvent, want ...string) {
	t.Helper()
	if got := shape(evs); !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func wantAnthropicError(t *testing.T, resp *http.Response, data []byte, status int, typ string) string {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, data)
	}
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if e.Type != "error" || e.Error.Type != typ || e.Error.Message == "" {
		t.Fatalf("error body %s, want type error / %s with a message", data, typ)
	}
	return e.Error.Message
}

// Decoding: the request reaches the template as the model expects it.

func TestAnthropicDecodeSystemString(t *testing.T) {
	f := qwenRuntime(backend.Chunk{Text: "Hi."}, stop())
	ts := newFakeGateway(t, Config{}, f)
	messageOK(t, ts, `{"model": "qwen", "max_tokens": 100, "system": "Be brief.", "messages": [{"role": "user", "content": "Hello"}]}`)
	p := promptOf(t, f)
	if !strings.HasPrefix(p, "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n") {
		t.Errorf("prompt:\n%s", p)
	}
}

func TestAnthropicDecodeSystemBlocksAndContentBlocks(t *testing.T) {
	f := qwenRuntime(backend.Chunk{Text: "Hi."}, stop())
	ts := newFakeGateway(t, Config{}, f)
	messageOK(t, ts, `{"model": "qwen", "max_tokens": 100,
		"system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Be kind.", "cache_control": {"type": "ephemeral"}}],
		"messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"}, {"type": "text", "text": "there"}]}]}`)
	p := promptOf(t, f)
	if !strings.HasPrefix(p, "<|im_start|>system\nBe brief.\n\nBe kind.<|im_end|>\n<|im_start|>user\nHello\n\nthere<|im_end|>\n") {
		t.Errorf("prompt:\n%s", p)
	}
}

func TestAnthropicDecodeToolRoundTrip(t *testing.T) {
	f := qwenRuntime(backend.Chunk{Text: "Tomorrow: rain."}, stop())
	ts := newFakeGateway(t, Config{}, f)
	messageOK(t, ts, `{"model": "qwen", "max_tokens": 100, "tools": [`+weatherTool+`], "messages": [
		{"role": "user", "content": "Weather in Paris?"},
		{"role": "assistant", "content": [
			{"type": "text", "text": "Let me check."},
			{"type": "tool_use", "id": "call_abc", "name": "get_weather", "input": {"city": "Paris"}}]},
		{"role": "user", "content": [
			{"type": "tool_result", "tool_use_id": "call_abc", "content": [{"type": "text", "text": "18C, sunny"}]},
			{"type": "text", "text": "And tomorrow?"}]}]}`)
	p := promptOf(t, f)
	for _, want := range []string{
		`<tools>{"type": "function", "function": {"name": "get_weather", "description": "Current weather", "parameters": {"type": "object"`,
		"<|im_start|>user\nWeather in Paris?<|im_end|>\n" +
			"<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>\n" +
			"<|im_start|>user\n<tool_response>\n18C, sunny\n</tool_response><|im_end|>\n" +
			"<|im_start|>user\nAnd tomorrow?<|im_end|>\n<|im_start|>assistant\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt lacks\n%s\nprompt:\n%s", want, p)
		}
	}
}

func TestAnthropicDecodeThinking(t *testing.T) {
	for _, tc := range []struct {
		thinking string
		closed   bool // the template closes the think block: thinking off
	}{
		{`{"type": "enabled", "budget_tokens": 2048}`, false},
		{`{"type": "disabled"}`, true},
	} {
		f := qwenRuntime(backend.Chunk{Text: "4"}, stop())
		ts := newFakeGateway(t, Config{}, f)
		messageOK(t, ts, `{"model": "qwen", "max_tokens": 4096, "thinking": `+tc.thinking+`, "messages": [{"role": "user", "content": "2+2?"}]}`)
		p := promptOf(t, f)
		if got := strings.HasSuffix(p, "<|im_start|>assistant\n<think>\n\n</think>\n\n"); got != tc.closed {
			t.Errorf("thinking %s: prompt ends with a closed think block = %v, want %v:\n%s", tc.thinking, got, tc.closed, p)
		}
	}
}

func TestAnthropicDecodeMapping(t *testing.T) {
	req, notes, err := decodeAnthropic([]byte(`{"model": "qwen", "max_tokens": 300, "stream": true,
		"stop_sequences": ["END"], "temperature": 0.2, "top_p": 0.9, "top_k": 40, "metadata": {"user_id": "u1"},
		"thinking": {"type": "enabled", "budget_tokens": 1024},
		"tools": [` + weatherTool + `, {"type": "custom", "name": "noop", "input_schema": {"type": "object"}}],
		"tool_choice": {"type": "any", "disable_parallel_tool_use": true},
		"messages": [
			{"role": "user", "content": [{"type": "text", "text": "What is this?"},
				{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]},
			{"role": "assistant", "content": [
				{"type": "thinking", "thinking": "A picture.", "signature": "sig"},
				{"type": "redacted_thinking", "data": "opaque"},
				{"type": "text", "text": "A cat."},
				{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris", "days": [1, 2]}}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok", "is_error": false}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	off, on := false, true
	want := &chat.Request{
		Model: "qwen", MaxTokens: 300, Stream: true, IncludeUsage: true, Stop: []string{"END"},
		Temperature: req.Temperature, TopP: req.TopP,
		Tools: []chat.Tool{
			{Type: "function", Function: chat.ToolFunction{Name: "get_weather", Description: "Current weather", Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`)}},
			{Type: "function", Function: chat.ToolFunction{Name: "noop", Parameters: json.RawMessage(`{"type": "object"}`)}},
		},
		ToolChoice:        chat.ToolChoice{Mode: chat.ToolRequired},
		ParallelToolCalls: &off,
		Reasoning:         chat.Reasoning{Enabled: &on, BudgetTokens: 1024},
		Messages: []chat.Message{
			{Role: "user", Parts: []chat.Part{{Type: "text", Text: "What is this?"}, {Type: "image_url", ImageURL: "data:image/png;base64,iVBORw0KGgo="}}},
			{Role: "assistant", Content: "A cat.", Reasoning: "A picture.", ToolCalls: []chat.ToolCall{
				{ID: "toolu_1", Type: "function", Function: chat.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris","days":[1,2]}`}}}},
			{Role: "tool", ToolCallID: "toolu_1", Name: "get_weather", Content: "ok"},
		},
	}
	if *req.Temperature != 0.2 || *req.TopP != 0.9 {
		t.Errorf("temperature %v top_p %v", *req.Temperature, *req.TopP)
	}
	if !reflect.DeepEqual(req, want) {
		g, _ := json.MarshalIndent(req, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("request:\n%s\nwant:\n%s", g, w)
	}
	if len(notes) != 3 { // top_k, budget_tokens, redacted_thinking
		t.Errorf("notes: %q", notes)
	}
}

func TestAnthropicDecodeToolChoice(t *testing.T) {
	for _, tc := range []struct {
		choice string
		want   chat.ToolChoice
	}{
		{`{"type": "auto"}`, chat.ToolChoice{Mode: chat.ToolAuto}},
		{`{"type": "none"}`, chat.ToolChoice{Mode: chat.ToolNone}},
		{`{"type": "any"}`, chat.ToolChoice{Mode: chat.ToolRequired}},
		{`{"type": "tool", "name": "get_weather"}`, chat.ToolChoice{Mode: chat.ToolNamed, Name: "get_weather"}},
	} {
		req, _, err := decodeAnthropic([]byte(`{"model": "m", "max_tokens": 1, "tools": [` + weatherTool + `], "tool_choice": ` + tc.choice + `, "messages": [{"role": "user", "content": "x"}]}`))
		if err != nil {
			t.Errorf("%s: %v", tc.choice, err)
			continue
		}
		if req.ToolChoice != tc.want || req.ParallelToolCalls != nil {
			t.Errorf("%s: %+v parallel %v, want %+v", tc.choice, req.ToolChoice, req.ParallelToolCalls, tc.want)
		}
	}
}

func TestAnthropicDecodeUserTurnOrder(t *testing.T) {
	// Tool results come first, as tool messages, then the turn's other content.
	req, _, err := decodeAnthropic([]byte(`{"model": "m", "max_tokens": 1, "messages": [
		{"role": "assistant", "content": [
			{"type": "tool_use", "id": "a", "name": "f", "input": {}},
			{"type": "tool_use", "id": "b", "name": "g"}]},
		{"role": "user", "content": [
			{"type": "tool_result", "tool_use_id": "a", "content": "one"},
			{"type": "tool_result", "tool_use_id": "b", "content": [{"type": "text", "text": "two"}, {"type": "image", "source": {"type": "url", "url": "http://x/y.png"}}]},
			{"type": "text", "text": "go on"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.Message{
		{Role: "assistant", ToolCalls: []chat.ToolCall{
			{ID: "a", Type: "function", Function: chat.FunctionCall{Name: "f", Arguments: "{}"}},
			{ID: "b", Type: "function", Function: chat.FunctionCall{Name: "g", Arguments: "{}"}}}},
		{Role: "tool", ToolCallID: "a", Name: "f", Content: "one"},
		{Role: "tool", ToolCallID: "b", Name: "g", Content: "two"},
		{Role: "user", Content: "go on"},
	}
	if !reflect.DeepEqual(req.Messages, want) {
		t.Errorf("messages %+v\nwant %+v", req.Messages, want)
	}
}

// Responses: the non-streamed Message.

func TestAnthropicResponseText(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "Hello "}, backend.Chunk{Text: "there."}, stop()))
	m := messageOK(t, ts, `{"model": "qwen", "max_tokens": 100, "messages": [{"role": "user", "content": "Hi"}]}`)
	if id, _ := m["id"].(string); !strings.HasPrefix(id, "msg_") {
		t.Errorf("id %q", id)
	}
	delete(m, "id")
	jsonEq(t, "message", m, `{"type": "message", "role": "assistant", "model": "qwen",
		"content": [{"type": "text", "text": "Hello there."}],
		"stop_reason": "end_turn", "stop_sequence": null, "usage": {"input_tokens": 12, "output_tokens": 5, "cache_read_input_tokens": 0}}`)
}

func TestAnthropicResponseToolUse(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: parisCall}, stop()))
	m := messageOK(t, ts, `{"model": "qwen", "max_tokens": 100, "tools": [`+weatherTool+`], "messages": [{"role": "user", "content": "Weather in Paris?"}]}`)
	content := m["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("content %v", content)
	}
	block := content[0].(map[string]any)
	if id, _ := block["id"].(string); id == "" {
		t.Errorf("tool_use without an id: %v", block)
	}
	delete(block, "id")
	jsonEq(t, "block", block, `{"type": "tool_use", "name": "get_weather", "input": {"city": "Paris"}}`)
	if m["stop_reason"] != "tool_use" {
		t.Errorf("stop_reason %v", m["stop_reason"])
	}
}

func TestAnthropicResponseTextThenToolUse(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "I'll check.\n" + parisCall}, stop()))
	m := messageOK(t, ts, `{"model": "qwen", "max_tokens": 100, "tools": [`+weatherTool+`], "messages": [{"role": "user", "content": "Weather in Paris?"}]}`)
	content := m["content"].([]any)
	if len(content) != 2 {
		t.Fatalf("content %v", content)
	}
	if b := content[0].(map[string]any); b["type"] != "text" || !strings.HasPrefix(b["text"].(string), "I'll check.") {
		t.Errorf("first block %v", b)
	}
	if b := content[1].(map[string]any); b["type"] != "tool_use" {
		t.Errorf("second block %v", b)
	}
}

func TestAnthropicResponseThinking(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "<think>\nTwo and two.\n</think>\n\nFour."}, stop()))
	m := messageOK(t, ts, `{"model": "qwen", "max_tokens": 100, "thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": [{"role": "user", "content": "2+2?"}]}`)
	content := m["content"].([]any)
	if len(content) != 2 {
		t.Fatalf("content %v", content)
	}
	th, tx := content[0].(map[string]any), content[1].(map[string]any)
	if th["type"] != "thinking" || strings.TrimSpace(th["thinking"].(string)) != "Two and two." || th["signature"] != "" {
		t.Errorf("thinking block %v", th)
	}
	if tx["type"] != "text" || strings.TrimSpace(tx["text"].(string)) != "Four." {
		t.Errorf("text block %v", tx)
	}
}

func TestAnthropicResponseStopReasons(t *testing.T) {
	for _, tc := range []struct {
		finish chat.FinishReason
		want   string
	}{
		{chat.FinishStop, "end_turn"},
		{chat.FinishLength, "max_tokens"},
		{"", "end_turn"},
	} {
		ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "Some text", FinishReason: tc.finish}))
		m := messageOK(t, ts, `{"model": "qwen", "max_tokens": 3, "messages": [{"role": "user", "content": "Hi"}]}`)
		if m["stop_reason"] != tc.want {
			t.Errorf("finish %q: stop_reason %v, want %s", tc.finish, m["stop_reason"], tc.want)
		}
	}
}

func TestAnthropicResponseEmpty(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(stop()))
	m := messageOK(t, ts, `{"model": "qwen", "max_tokens": 3, "messages": [{"role": "user", "content": "Hi"}]}`)
	jsonEq(t, "content", m["content"], `[]`)
	if m["stop_reason"] != "end_turn" {
		t.Errorf("stop_reason %v", m["stop_reason"])
	}
}

// Streaming: the server-sent events.

func TestAnthropicStreamText(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "Hello "}, backend.Chunk{Text: "there."}, stop()))
	resp, data := postMessages(t, ts, `{"model": "qwen", "max_tokens": 100, "stream": true, "messages": [{"role": "user", "content": "Hi"}]}`)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := readSSE(t, data)
	wantShape(t, evs,
		"message_start", "ping",
		"content_block_start 0 text", "content_block_delta 0 text_delta", "content_block_stop 0",
		"message_delta end_turn", "message_stop")
	if got := deltaText(evs, 0, "text"); got != "Hello there." {
		t.Errorf("text %q", got)
	}
	start := evs[0].data["message"].(map[string]any)
	if id, _ := start["id"].(string); !strings.HasPrefix(id, "msg_") {
		t.Errorf("message id %q", id)
	}
	delete(start, "id")
	jsonEq(t, "message_start.message", start, `{"type": "message", "role": "assistant", "model": "qwen", "content": [],
		"stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0}}`)
	jsonEq(t, "content_block_start", evs[2].data["content_block"], `{"type": "text", "text": ""}`)
	md := evs[len(evs)-2].data
	delete(md, "dragoman")
	jsonEq(t, "message_delta", md, `{"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"input_tokens": 12, "output_tokens": 5, "cache_read_input_tokens": 0}}`)
}

func TestAnthropicStreamTextThenToolUse(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "I'll check.\n"}, backend.Chunk{Text: parisCall}, stop()))
	_, data := postMessages(t, ts, `{"model": "qwen", "max_tokens": 100, "stream": true, "tools": [`+weatherTool+`], "messages": [{"role": "user", "content": "Weather?"}]}`)
	evs := readSSE(t, data)
	wantShape(t, evs,
		"message_start", "ping",
		"content_block_start 0 text", "content_block_delta 0 text_delta", "content_block_stop 0",
		"content_block_start 1 tool_use", "content_block_delta 1 input_json_delta", "content_block_stop 1",
		"message_delta tool_use", "message_stop")
	if got := deltaText(evs, 0, "text"); !strings.HasPrefix(got, "I'll check.") {
		t.Errorf("text %q", got)
	}
	for _, e := range evs {
		if e.name == "content_block_start" && e.data["index"] == float64(1) {
			cb := e.data["content_block"].(map[string]any)
			if id, _ := cb["id"].(string); id == "" {
				t.Errorf("tool_use block without id: %v", cb)
			}
			delete(cb, "id")
			jsonEq(t, "tool_use start", cb, `{"type": "tool_use", "name": "get_weather", "input": {}}`)
		}
	}
	var input any
	if err := json.Unmarshal([]byte(deltaText(evs, 1, "partial_json")), &input); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, "input", input, `{"city": "Paris"}`)
}

func TestAnthropicStreamThinkingThenText(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "<think>\nTwo and two.\n"}, backend.Chunk{Text: "</think>\n\nFour."}, stop()))
	_, data := postMessages(t, ts, `{"model": "qwen", "max_tokens": 100, "stream": true, "messages": [{"role": "user", "content": "2+2?"}]}`)
	evs := readSSE(t, data)
	wantShape(t, evs,
		"message_start", "ping",
		"content_block_start 0 thinking", "content_block_delta 0 thinking_delta", "content_block_stop 0",
		"content_block_start 1 text", "content_block_delta 1 text_delta", "content_block_stop 1",
		"message_delta end_turn", "message_stop")
	if got := strings.TrimSpace(deltaText(evs, 0, "thinking")); got != "Two and two." {
		t.Errorf("thinking %q", got)
	}
	if got := strings.TrimSpace(deltaText(evs, 1, "text")); got != "Four." {
		t.Errorf("text %q", got)
	}
}

// Errors.

func TestAnthropicErrorMissingMaxTokens(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(stop()))
	resp, data := postMessages(t, ts, `{"model": "qwen", "messages": [{"role": "user", "content": "Hi"}]}`)
	if msg := wantAnthropicError(t, resp, data, 400, "invalid_request_error"); !strings.Contains(msg, "max_tokens") {
		t.Errorf("message %q", msg)
	}
}

func TestAnthropicErrorBadRequests(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(stop()))
	for _, tc := range []struct{ name, body, mention string }{
		{"malformed JSON", `{"model": "qwen", "max_tokens": 10, "messages": [`, "JSON"},
		{"no model", `{"max_tokens": 10, "messages": [{"role": "user", "content": "Hi"}]}`, "model"},
		{"no messages", `{"model": "qwen", "max_tokens": 10, "messages": []}`, "messages"},
		{"unknown role", `{"model": "qwen", "max_tokens": 10, "messages": [{"role": "robot", "content": "Hi"}]}`, "robot"},
		{"bad content", `{"model": "qwen", "max_tokens": 10, "messages": [{"role": "user", "content": 7}]}`, "content"},
		{"unknown block", `{"model": "qwen", "max_tokens": 10, "messages": [{"role": "user", "content": [{"type": "hologram"}]}]}`, "hologram"},
		{"server tool", `{"model": "qwen", "max_tokens": 10, "tools": [{"type": "web_search_20250305", "name": "web_search"}], "messages": [{"role": "user", "content": "Hi"}]}`, "not supported"},
		{"tool_choice unknown tool", `{"model": "qwen", "max_tokens": 10, "tools": [` + weatherTool + `], "tool_choice": {"type": "tool", "name": "nope"}, "messages": [{"role": "user", "content": "Hi"}]}`, "nope"},
		{"tool_choice any without tools", `{"model": "qwen", "max_tokens": 10, "tool_choice": {"type": "any"}, "messages": [{"role": "user", "content": "Hi"}]}`, "any"},
		{"bad thinking", `{"model": "qwen", "max_tokens": 10, "thinking": {"type": "maybe"}, "messages": [{"role": "user", "content": "Hi"}]}`, "thinking"},
	} {
		resp, data := postMessages(t, ts, tc.body)
		if msg := wantAnthropicError(t, resp, data, 400, "invalid_request_error"); !strings.Contains(msg, tc.mention) {
			t.Errorf("%s: message %q does not mention %q", tc.name, msg, tc.mention)
		}
	}
}

func TestAnthropicErrorUnknownModel(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(stop()))
	resp, data := postMessages(t, ts, `{"model": "nope", "max_tokens": 10, "messages": [{"role": "user", "content": "Hi"}]}`)
	wantAnthropicError(t, resp, data, 404, "not_found_error")
}

func TestAnthropicErrorUnauthorized(t *testing.T) {
	ts := newFakeGateway(t, Config{APIKey: "secret"}, qwenRuntime(stop()))
	resp, data := postMessages(t, ts, `{"model": "qwen", "max_tokens": 10, "messages": [{"role": "user", "content": "Hi"}]}`)
	wantAnthropicError(t, resp, data, 401, "authentication_error")
}

func TestAnthropicErrorUpstreamBeforeOutput(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		typ    string
	}{
		{&backend.Error{Kind: backend.Ollama, Status: 500, Message: "model failed to load"}, 502, "api_error"},
		{&backend.Error{Kind: backend.Ollama, Status: 429, Message: "busy"}, 429, "rate_limit_error"},
		{errors.New("connection refused"), 502, "api_error"},
	} {
		f := qwenRuntime()
		f.startErr = tc.err
		ts := newFakeGateway(t, Config{}, f)
		for _, stream := range []string{"false", "true"} {
			resp, data := postMessages(t, ts, `{"model": "qwen", "max_tokens": 10, "stream": `+stream+`, "messages": [{"role": "user", "content": "Hi"}]}`)
			wantAnthropicError(t, resp, data, tc.status, tc.typ)
		}
	}
}

func TestAnthropicErrorStreamCut(t *testing.T) {
	f := qwenRuntime(backend.Chunk{Text: "Partial "}, backend.Chunk{Text: "answer"})
	f.err = errors.New("connection reset by peer")
	ts := newFakeGateway(t, Config{}, f)
	resp, data := postMessages(t, ts, `{"model": "qwen", "max_tokens": 100, "stream": true, "messages": [{"role": "user", "content": "Hi"}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	evs := readSSE(t, data)
	wantShape(t, evs,
		"message_start", "ping",
		"content_block_start 0 text", "content_block_delta 0 text_delta", "content_block_stop 0",
		"error api_error")
	if got := deltaText(evs, 0, "text"); got != "Partial answer" {
		t.Errorf("text %q", got)
	}
	if msg := evs[len(evs)-1].data["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "connection reset") {
		t.Errorf("error message %q", msg)
	}
}

func TestAnthropicErrorCutNotStreamed(t *testing.T) {
	f := qwenRuntime(backend.Chunk{Text: "Partial "}, backend.Chunk{Text: "answer"})
	f.err = errors.New("connection reset by peer")
	ts := newFakeGateway(t, Config{}, f)
	resp, data := postMessages(t, ts, `{"model": "qwen", "max_tokens": 100, "messages": [{"role": "user", "content": "Hi"}]}`)
	wantAnthropicError(t, resp, data, 502, "api_error")
	var body struct {
		Partial struct {
			Content []map[string]any `json:"content"`
		} `json:"partial"`
		Dragoman struct {
			RequestID   string `json:"request_id"`
			Diagnostics []struct {
				Code string `json:"code"`
			} `json:"diagnostics"`
		} `json:"dragoman"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Partial.Content) != 1 || body.Partial.Content[0]["text"] != "Partial answer" {
		t.Errorf("partial %s", data)
	}
	if !strings.HasPrefix(body.Dragoman.RequestID, "msg_") || len(body.Dragoman.Diagnostics) == 0 || body.Dragoman.Diagnostics[len(body.Dragoman.Diagnostics)-1].Code != "upstream-cut" {
		t.Errorf("dragoman %s", data)
	}
}

// The official SDK as the client.

func sdkClient(ts *httptest.Server) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(ts.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0), option.WithHTTPClient(ts.Client()))
}

func sdkParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     anthropic.Model("qwen"),
		MaxTokens: 256,
		System:    []anthropic.TextBlockParam{{Text: "You are helpful."}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        "get_weather",
			Description: anthropic.String("Current weather"),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}},
		}}},
	}
}

func checkSDKMessage(t *testing.T, msg *anthropic.Message) {
	t.Helper()
	if msg.StopReason != anthropic.StopReasonToolUse || len(msg.Content) != 2 {
		t.Fatalf("stop_reason %q, content %s", msg.StopReason, msg.RawJSON())
	}
	if tb := msg.Content[0].AsText(); !strings.HasPrefix(tb.Text, "I'll check.") {
		t.Errorf("text %q", tb.Text)
	}
	tu := msg.Content[1].AsToolUse()
	var input struct{ City string }
	if err := json.Unmarshal(tu.Input, &input); err != nil {
		t.Fatalf("input %s: %v", tu.Input, err)
	}
	if tu.Name != "get_weather" || tu.ID == "" || input.City != "Paris" {
		t.Errorf("tool_use %s", msg.Content[1].RawJSON())
	}
}

func TestAnthropicSDK(t *testing.T) {
	f := qwenRuntime(backend.Chunk{Text: "I'll check.\n"}, backend.Chunk{Text: parisCall}, stop())
	ts := newFakeGateway(t, Config{APIKey: "test-key"}, f)
	client := sdkClient(ts)

	msg, err := client.Messages.New(context.Background(), sdkParams())
	if err != nil {
		t.Fatal(err)
	}
	checkSDKMessage(t, msg)
	if msg.Usage.InputTokens != 12 || msg.Usage.OutputTokens != 5 || !strings.HasPrefix(msg.ID, "msg_") {
		t.Errorf("id %q usage %+v", msg.ID, msg.Usage)
	}

	// The answer goes back as the SDK builds the next turn; the prompt then
	// holds the call and its result.
	params := sdkParams()
	params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(
		anthropic.NewToolResultBlock(msg.Content[1].AsToolUse().ID, "18C, sunny", false)))
	if _, err := client.Messages.New(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	prompt := f.completes[len(f.completes)-1].Prompt
	f.mu.Unlock()
	if !strings.Contains(prompt, "<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n18C, sunny\n</tool_response>") {
		t.Errorf("second prompt:\n%s", prompt)
	}
}

func TestAnthropicSDKStreaming(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "I'll check.\n"}, backend.Chunk{Text: parisCall}, stop()))
	client := sdkClient(ts)
	stream := client.Messages.NewStreaming(context.Background(), sdkParams())
	defer stream.Close()
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	checkSDKMessage(t, &msg)
	if msg.Usage.InputTokens != 12 || msg.Usage.OutputTokens != 5 {
		t.Errorf("usage %+v", msg.Usage)
	}
}

func TestAnthropicSDKStreamingCut(t *testing.T) {
	f := qwenRuntime(backend.Chunk{Text: "Partial "}, backend.Chunk{Text: "answer"})
	f.err = errors.New("connection reset by peer")
	ts := newFakeGateway(t, Config{}, f)
	client := sdkClient(ts)
	stream := client.Messages.NewStreaming(context.Background(), sdkParams())
	defer stream.Close()
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	var apiErr *anthropic.Error
	if err := stream.Err(); !errors.As(err, &apiErr) || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("stream error %v (%T)", err, err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "Partial answer" {
		t.Errorf("partial content %+v", msg.Content)
	}
}

func TestAnthropicSDKErrors(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(stop()))
	params := sdkParams()
	params.Model = "nope"
	client := sdkClient(ts)
	_, err := client.Messages.New(context.Background(), params)
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Type() != "not_found_error" {
		t.Fatalf("error %v", err)
	}
}
