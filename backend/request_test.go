package backend

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
)

// captured is one request a fake server received.
type captured struct {
	path, auth string
	hasAuth    bool
	body       map[string]any
}

// capture answers every request with an empty clean stream of the right
// dialect and records what was sent.
func capture(t *testing.T) (*httptest.Server, *captured) {
	t.Helper()
	got := &captured{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.path = r.URL.Path
		got.auth = r.Header.Get("Authorization")
		_, got.hasAuth = r.Header["Authorization"]
		b, _ := io.ReadAll(r.Body)
		got.body = nil
		_ = json.Unmarshal(b, &got.body)
		switch r.URL.Path {
		case "/api/chat", "/api/generate":
			io.WriteString(w, `{"done":true,"done_reason":"stop"}`+"\n")
		case "/completion":
			io.WriteString(w, "data: {\"content\":\"\",\"stop\":true,\"stop_type\":\"eos\"}\n\n")
		default:
			io.WriteString(w, "data: [DONE]\n\n")
		}
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func mustDrain(t *testing.T, s Stream, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(t, s); err != nil {
		t.Fatal(err)
	}
}

func asJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// A conversation with a call, its result (without the tool's name) and an
// image, as the gateway hands it over.
var history = []chat.Message{
	{Role: chat.RoleSystem, Content: "be brief"},
	{Role: chat.RoleUser, Parts: []chat.Part{{Type: "text", Text: "look"}, {Type: "image_url", ImageURL: "data:image/png;base64,iVBORw0"}, {Type: "image_url", ImageURL: "https://example.com/x.png"}}},
	{Role: chat.RoleAssistant, Reasoning: "hmm", ToolCalls: []chat.ToolCall{{ID: "call_1", Type: "function", Function: chat.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
	{Role: chat.RoleTool, ToolCallID: "call_1", Content: "sunny"},
}

func TestOpenAIChatRequest(t *testing.T) {
	srv, got := capture(t)
	off := false
	req := &chat.Request{
		Model: "m", Messages: history, Tools: weatherTool,
		ToolChoice:     chat.ToolChoice{Mode: chat.ToolNamed, Name: "get_weather"},
		ResponseFormat: &chat.ResponseFormat{Type: "json_schema", Schema: json.RawMessage(`{"type":"object"}`)},
		MaxTokens:      9, Temperature: ptr(0.5), TopP: ptr(0.9), Seed: ptr(int64(3)), Stop: []string{"END"},
		Reasoning:      chat.Reasoning{Enabled: &off, Effort: "low"},
		TemplateKwargs: map[string]json.RawMessage{"custom": json.RawMessage(`1`)},
	}
	s, err := NewOpenAI(VLLM, srv.URL, "", nil).Chat(context.Background(), req)
	mustDrain(t, s, err)
	b := got.body
	if got.path != "/v1/chat/completions" || got.hasAuth {
		t.Errorf("path %q, Authorization present %v (empty key must send none)", got.path, got.hasAuth)
	}
	checks := map[string]any{
		"stream":                               true,
		"stream_options.include_usage":         true,
		"tool_choice.function.name":            "get_weather",
		"response_format.type":                 "json_schema",
		"response_format.json_schema.name":     "response",
		"max_tokens":                           9.0,
		"temperature":                          0.5,
		"seed":                                 3.0,
		"reasoning_effort":                     "low",
		"chat_template_kwargs.enable_thinking": false,
		"chat_template_kwargs.custom":          1.0,
	}
	for k, want := range checks {
		if v := path(b, splitDots(k)...); v != want {
			t.Errorf("%s = %v, want %v", k, v, want)
		}
	}
	msgs := b["messages"].([]any)
	asst := msgs[2].(map[string]any)
	if asst["content"] != nil || asst["reasoning_content"] != "hmm" || path(asst["tool_calls"].([]any)[0], "function", "arguments") != `{"city":"Paris"}` {
		t.Errorf("assistant message = %v", asst)
	}
}

func TestOpenAIAPIKey(t *testing.T) {
	srv, got := capture(t)
	s, err := NewOpenAI(LMStudio, srv.URL, "sekrit", nil).Chat(context.Background(), &chat.Request{Model: "m"})
	mustDrain(t, s, err)
	if got.auth != "Bearer sekrit" {
		t.Errorf("Authorization = %q", got.auth)
	}
	if _, ok := got.body["tool_choice"]; ok {
		t.Errorf("tool_choice sent without tools: %v", got.body)
	}
}

func TestToolChoiceModes(t *testing.T) {
	srv, got := capture(t)
	for _, mode := range []chat.ToolChoiceMode{chat.ToolAuto, chat.ToolNone, chat.ToolRequired} {
		req := weatherRequest("m")
		req.ToolChoice = chat.ToolChoice{Mode: mode}
		s, err := NewOpenAI(LlamaServer, srv.URL, "", nil).Chat(context.Background(), req)
		mustDrain(t, s, err)
		if got.body["tool_choice"] != string(mode) {
			t.Errorf("tool_choice = %v, want %q", got.body["tool_choice"], mode)
		}
	}
}

// TestCompleteRoutes: which endpoint and constraint each kind gets.
func TestCompleteRoutes(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	cases := []struct {
		kind   Kind
		req    CompleteRequest
		path   string
		want   map[string]any
		absent []string
	}{
		{LlamaServer, CompleteRequest{Prompt: "p", JSONSchema: schema, MaxTokens: 5}, "/completion",
			map[string]any{"json_schema.type": "object", "n_predict": 5.0, "stream": true}, []string{"grammar", "model"}},
		{VLLM, CompleteRequest{Model: "m", Prompt: "p", JSONSchema: schema, MaxTokens: 5}, "/v1/completions",
			map[string]any{"structured_outputs.json.type": "object", "max_tokens": 5.0, "stream_options.include_usage": true}, []string{"grammar", "guided_json"}},
		{VLLM, CompleteRequest{Model: "m", Prompt: "p", Grammar: `root ::= "x"`}, "/v1/completions",
			map[string]any{"model": "m"}, []string{"grammar", "structured_outputs", "guided_grammar"}},
		{SGLang, CompleteRequest{Model: "m", Prompt: "p", JSONSchema: schema}, "/v1/completions",
			map[string]any{"prompt": "p", "json_schema.type": "object"}, []string{"structured_outputs", "ebnf"}},
		{SGLang, CompleteRequest{Model: "m", Prompt: "p", Grammar: `root ::= "x"`}, "/v1/completions",
			map[string]any{"ebnf": `root ::= "x"`}, []string{"structured_outputs", "json_schema"}},
		{SGLang, CompleteRequest{Model: "m", Prompt: "p", Grammar: `root ::= "x"`, GrammarLazy: true}, "/v1/completions",
			map[string]any{"prompt": "p"}, []string{"ebnf"}}, // SGLang has no lazy grammar
		{LlamaServer, CompleteRequest{Prompt: "p", Grammar: `root ::= "<tool_call>" [a-z]+`, GrammarLazy: true,
			GrammarTriggers: []GrammarTrigger{{Type: "word", Value: "<tool_call>"}, {Type: "pattern", Value: "x+"}}, PreservedTokens: []string{"<tool_call>"}}, "/completion",
			map[string]any{"grammar_lazy": true, "grammar_triggers": []any{map[string]any{"type": 1.0, "value": "<tool_call>"}, map[string]any{"type": 2.0, "value": "x+"}},
				"preserved_tokens": []any{"<tool_call>"}}, []string{"json_schema"}},
		{VLLM, CompleteRequest{Model: "m", Prompt: "p", StructuralTag: json.RawMessage(`{"type":"structural_tag"}`)}, "/v1/completions",
			map[string]any{"structured_outputs.structural_tag": `{"type":"structural_tag"}`}, []string{"grammar"}},
		{LMStudio, CompleteRequest{Model: "m", Prompt: "p"}, "/v1/completions", map[string]any{"stream": true}, nil},
		{MLX, CompleteRequest{Model: "m", Prompt: "p", Stop: []string{"x"}}, "/v1/completions", map[string]any{"stop": []any{"x"}}, nil},
	}
	for _, c := range cases {
		srv, got := capture(t)
		b := NewOpenAI(c.kind, srv.URL, "", nil)
		if !b.CanComplete() {
			t.Errorf("%s: CanComplete false", c.kind)
		}
		s, err := b.Complete(context.Background(), c.req)
		mustDrain(t, s, err)
		if got.path != c.path {
			t.Errorf("%s: path %q, want %q", c.kind, got.path, c.path)
		}
		for k, want := range c.want {
			if v := path(got.body, splitDots(k)...); !reflect.DeepEqual(v, want) {
				t.Errorf("%s: %s = %v, want %v", c.kind, k, v, want)
			}
		}
		for _, k := range c.absent {
			if _, ok := got.body[k]; ok {
				t.Errorf("%s: %s sent: %v", c.kind, k, got.body)
			}
		}
	}
	if b := NewOpenAI(OpenAI, "http://127.0.0.1:1", "", nil); b.CanComplete() {
		t.Error("generic OpenAI server claims raw completion")
	} else if _, err := b.Complete(context.Background(), CompleteRequest{}); !errors.Is(err, ErrNoComplete) {
		t.Errorf("err = %v", err)
	}
}

// TestOllamaChatRequest: Ollama's message shape — arguments as an object,
// tool results named, images as bare base64, think and format.
func TestOllamaChatRequest(t *testing.T) {
	srv, got := capture(t)
	on := true
	req := &chat.Request{Model: "m", Messages: history, Tools: weatherTool, MaxTokens: 7, Seed: ptr(int64(1)),
		Reasoning: chat.Reasoning{Enabled: &on}, ResponseFormat: &chat.ResponseFormat{Type: "json_object"}}
	s, err := NewOllama(srv.URL, nil).Chat(context.Background(), req)
	mustDrain(t, s, err)
	b := got.body
	want := `[{"role":"system","content":"be brief"},` +
		`{"role":"user","content":"look","images":["iVBORw0"]},` +
		`{"role":"assistant","content":"","thinking":"hmm","tool_calls":[{"id":"call_1","function":{"index":0,"name":"get_weather","arguments":{"city":"Paris"}}}]},` +
		`{"role":"tool","content":"sunny","tool_name":"get_weather","tool_call_id":"call_1"}]`
	var wantMsgs any
	_ = json.Unmarshal([]byte(want), &wantMsgs)
	if !reflect.DeepEqual(b["messages"], wantMsgs) {
		t.Errorf("messages =\n%s\nwant\n%s", asJSON(b["messages"]), want)
	}
	if b["think"] != true || b["format"] != "json" || b["stream"] != true || path(b, "options", "num_predict") != 7.0 || path(b, "options", "seed") != 1.0 || b["tools"] == nil {
		t.Errorf("body = %v", b)
	}

	req.ToolChoice = chat.ToolChoice{Mode: chat.ToolNone}
	s, err = NewOllama(srv.URL, nil).Chat(context.Background(), req)
	mustDrain(t, s, err)
	if _, ok := got.body["tools"]; ok {
		t.Error("tool_choice none: tools still offered to Ollama (it has no tool_choice)")
	}
}

func TestOllamaRefusesBrokenArguments(t *testing.T) {
	srv, _ := capture(t)
	msgs := []chat.Message{{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c", Function: chat.FunctionCall{Name: "f", Arguments: `{"x":`}}}}}
	_, err := NewOllama(srv.URL, nil).Chat(context.Background(), &chat.Request{Model: "m", Messages: msgs})
	if err == nil {
		t.Fatal("broken arguments were sent to Ollama")
	}
}

func splitDots(k string) []string {
	var out []string
	start := 0
	for i := 0; i < len(k); i++ {
		if k[i] == '.' {
			out = append(out, k[start:i])
			start = i + 1
		}
	}
	return append(out, k[start:])
}

// keep_alive goes to Ollama as it reads it: a duration string, -1 for ever,
// absent when the client set none.
func TestOllamaKeepAlive(t *testing.T) {
	srv, got := capture(t)
	o := NewOllama(srv.URL, nil)
	for _, c := range []struct {
		keep *time.Duration
		want any
	}{{nil, nil}, {ptr(time.Duration(0)), "0s"}, {ptr(90 * time.Second), "1m30s"}, {ptr(time.Duration(-1)), -1.0}} {
		s, err := o.Chat(context.Background(), &chat.Request{Model: "m", Messages: history, KeepAlive: c.keep})
		mustDrain(t, s, err)
		if v := got.body["keep_alive"]; v != c.want {
			t.Errorf("chat, keep-alive %v: keep_alive %#v, want %#v", c.keep, v, c.want)
		}
		s, err = o.Complete(context.Background(), CompleteRequest{Model: "m", Prompt: "p", KeepAlive: c.keep})
		mustDrain(t, s, err)
		if v := got.body["keep_alive"]; v != c.want {
			t.Errorf("generate, keep-alive %v: keep_alive %#v, want %#v", c.keep, v, c.want)
		}
	}
}
