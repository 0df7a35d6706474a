package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// An answer the token limit cut inside a call reports the cut, in each
// dialect's words, and keeps the call's text as content: the client must
// not take a half-written call for a finished answer.
func TestCutInsideACallReportsTheLimit(t *testing.T) {
	cut := weatherCall[:30]
	rt := qwenRuntime(backend.Chunk{Text: cut}, backend.Chunk{FinishReason: chat.FinishLength})
	ts := newFakeGateway(t, Config{}, rt)

	v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody(`"max_tokens":10`)))
	if got := path(v, "choices", 0, "finish_reason"); got != "length" {
		t.Errorf("OpenAI finish_reason %v, want length", got)
	}
	if got, _ := path(v, "choices", 0, "message", "content").(string); got != cut {
		t.Errorf("content %q, want the cut call's text %q", got, cut)
	}

	v = decodeBody(t, post(t, ts.URL+"/v1/messages", `{"model":"qwen","max_tokens":10,"messages":[{"role":"user","content":"Weather in Paris?"}],"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]}`))
	if got := path(v, "stop_reason"); got != "max_tokens" {
		t.Errorf("Anthropic stop_reason %v, want max_tokens", got)
	}
}

// A call completed before the limit cut the answer still reports the cut.
func TestCallThenCutReportsTheLimit(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: weatherCall + "\n<tool_call>\n{\"na"}, backend.Chunk{FinishReason: chat.FinishLength})
	ts := newFakeGateway(t, Config{}, rt)
	v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody("")))
	if path(v, "choices", 0, "finish_reason") != "length" || path(v, "choices", 0, "message", "tool_calls", 0, "function", "name") != "get_weather" {
		t.Errorf("choice %v", path(v, "choices", 0))
	}
}

// The prompt tokens a runtime kept from an earlier request are reported:
// OpenAI's cached_tokens (part of prompt_tokens), Anthropic's
// cache_read_input_tokens (beside input_tokens).
func TestCachedPromptTokensReported(t *testing.T) {
	script := []backend.Chunk{{Text: "Sunny."}, {FinishReason: chat.FinishStop, Usage: &chat.Usage{PromptTokens: 40, CompletionTokens: 2},
		Timings: &backend.Timings{PromptTokens: 10, CachedTokens: 30, PromptMS: 5, GeneratedTokens: 2, GenerateMS: 3}}}
	rt := qwenRuntime(script...)
	ts := newFakeGateway(t, Config{}, rt)
	v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody("")))
	if got := path(v, "usage", "prompt_tokens_details", "cached_tokens"); got != 30.0 || path(v, "usage", "prompt_tokens") != 40.0 {
		t.Errorf("usage %v", path(v, "usage"))
	}
	v = decodeBody(t, post(t, ts.URL+"/v1/messages", `{"model":"qwen","max_tokens":10,"messages":[{"role":"user","content":"Weather?"}]}`))
	if path(v, "usage", "input_tokens") != 10.0 || path(v, "usage", "cache_read_input_tokens") != 30.0 {
		t.Errorf("usage %v", path(v, "usage"))
	}
	// Streamed, the OpenAI usage chunk carries it too.
	resp := post(t, ts.URL+"/v1/chat/completions", chatBody(`"stream":true,"stream_options":{"include_usage":true}`))
	events, _ := sseData(t, resp.Body)
	last := events[len(events)-1]
	if !strings.Contains(toJSON(t, last), `"cached_tokens":30`) {
		t.Errorf("last chunk %v", last)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Anthropic structured outputs (output_config.format, and the beta's
// output_format) constrain the answer like OpenAI's response_format.
func TestAnthropicStructuredOutputs(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: `{"city":"Paris"}`}, backend.Chunk{FinishReason: chat.FinishStop})
	ts := newFakeGateway(t, Config{}, rt)
	const schema = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`
	for i, field := range []string{`"output_config":{"format":{"type":"json_schema","schema":` + schema + `}}`, `"output_format":{"type":"json_schema","schema":` + schema + `}`} {
		resp := post(t, ts.URL+"/v1/messages", `{"model":"qwen","max_tokens":50,"messages":[{"role":"user","content":"Where?"}],`+field+`}`)
		v := decodeBody(t, resp)
		if resp.StatusCode != 200 || path(v, "content", 0, "text") != `{"city":"Paris"}` {
			t.Errorf("%s: %d %v", field, resp.StatusCode, v)
		}
		if got := string(rt.completes[i].JSONSchema); got != schema {
			t.Errorf("%s: the runtime got schema %q", field, got)
		}
	}
	resp := post(t, ts.URL+"/v1/messages", `{"model":"qwen","max_tokens":50,"messages":[{"role":"user","content":"Where?"}],"output_config":{"format":{"type":"yaml"}}}`)
	if v := decodeBody(t, resp); resp.StatusCode != 400 || !strings.Contains(path(v, "error", "message").(string), "output_config.format") {
		t.Errorf("bad format: %d %v", resp.StatusCode, v)
	}
}

// A configured output limit applies to requests that set none, with a
// decision; a request's own limit stands.
func TestConfiguredOutputLimit(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "ok"}, backend.Chunk{FinishReason: chat.FinishStop})
	ts := newFakeGateway(t, Config{MaxOutputTokens: 300}, rt)
	resp := post(t, ts.URL+"/v1/responses", `{"model":"qwen","input":"Hi"}`)
	post(t, ts.URL+"/v1/chat/completions", chatBody(`"max_tokens":7`)).Body.Close()
	if rt.completes[0].MaxTokens != 300 || rt.completes[1].MaxTokens != 7 {
		t.Errorf("max tokens %d and %d, want 300 and 7", rt.completes[0].MaxTokens, rt.completes[1].MaxTokens)
	}
	if rec := traceOf(t, ts, ts.URL, resp.Header.Get("X-Dragoman-Request-Id")); !decided(rec, "max_output_tokens 300, as configured") {
		t.Errorf("decisions %v", rec.Decisions)
	}
	if _, err := New(Config{MaxOutputTokens: -1}, Hooks{}); err == nil {
		t.Error("a negative limit is accepted")
	}
}

// With the only runtime down, a request is a 502 naming it (clients retry
// those), not a 404 saying the model does not exist.
func TestDownRuntimeIsABadGateway(t *testing.T) {
	rt := qwenRuntime()
	rt.modelsErr = errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	ts := newFakeGateway(t, Config{}, rt)
	for i := range 2 { // the first request and a later one alike
		resp := post(t, ts.URL+"/v1/chat/completions", chatBody(""))
		v := decodeBody(t, resp)
		msg, _ := path(v, "error", "message").(string)
		if resp.StatusCode != 502 || !strings.Contains(msg, "connection refused") || !strings.Contains(msg, "did not answer") {
			t.Errorf("request %d: %d %v", i, resp.StatusCode, v)
		}
	}
	// A configured upstream that cannot even be set up says so too.
	s, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: "http://127.0.0.1:1"}}}, Hooks{
		Connect: func(context.Context, Upstream) (backend.Backend, error) { return nil, errors.New("no runtime answers") }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp := post(t, srv.URL+"/v1/messages", `{"model":"qwen","max_tokens":5,"messages":[{"role":"user","content":"Hi"}]}`)
	if v := decodeBody(t, resp); resp.StatusCode != 502 || !strings.Contains(toJSON(t, v), "no runtime answers") {
		t.Errorf("unconnectable upstream: %d %v", resp.StatusCode, v)
	}
}

// In relay mode a forced call is never sent as if it were "auto": where the
// runtime's chat API does not enforce tool_choice, the request goes in own
// mode when the template is known, else it is refused; vLLM's chat API
// enforces it and gets it.
func TestRelayForcedCallPolicy(t *testing.T) {
	required := chatBody(`"tool_choice":"required"`)
	rt := qwenRuntime(backend.Chunk{Text: weatherCall}, backend.Chunk{FinishReason: chat.FinishStop})
	rt.kind = backend.LlamaServer
	s, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: rt.url, Mode: "relay"}}}, Hooks{
		Connect: func(context.Context, Upstream) (backend.Backend, error) { return rt, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp := post(t, srv.URL+"/v1/chat/completions", required)
	v := decodeBody(t, resp)
	if resp.StatusCode != 200 || len(rt.completes) != 1 || len(rt.chats) != 0 || path(v, "choices", 0, "message", "tool_calls", 0, "function", "name") != "get_weather" {
		t.Fatalf("llama-server in relay mode: %d, %d completes, %d chats, %v", resp.StatusCode, len(rt.completes), len(rt.chats), v)
	}
	if rec := traceOf(t, srv, srv.URL, resp.Header.Get("X-Dragoman-Request-Id")); rec.Mode != "own" || !decided(rec, "does not enforce it, so this request goes in own mode") {
		t.Errorf("mode %q, decisions %v", rec.Mode, rec.Decisions)
	}

	// No template: refused, naming tool_choice.
	lms := &fakeRuntime{kind: backend.LMStudio, url: "http://127.0.0.1:2", canComplete: true, models: map[string]backend.ModelInfo{"qwen": {}}}
	ts2 := newFakeGateway(t, Config{}, lms)
	resp = post(t, ts2.URL+"/v1/chat/completions", required)
	if v := decodeBody(t, resp); resp.StatusCode != 400 || path(v, "error", "param") != "tool_choice" || len(lms.chats) != 0 {
		t.Errorf("LM Studio without a template: %d %v", resp.StatusCode, v)
	}

	// vLLM's chat API enforces it: relayed with the tool choice.
	vllm := &fakeRuntime{kind: backend.VLLM, url: "http://127.0.0.1:3", models: map[string]backend.ModelInfo{"qwen": {}},
		script: []backend.Chunk{{Calls: []chat.ToolCall{{ID: "c1", Function: chat.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}}, {FinishReason: chat.FinishToolCalls}}}
	ts3 := newFakeGateway(t, Config{}, vllm)
	resp = post(t, ts3.URL+"/v1/chat/completions", required)
	if v := decodeBody(t, resp); resp.StatusCode != 200 || len(vllm.chats) != 1 || vllm.chats[0].ToolChoice.Mode != chat.ToolRequired {
		t.Errorf("vLLM: %d %v", resp.StatusCode, v)
	}
}
