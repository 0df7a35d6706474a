package gateway

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// tinyModel is the shared tiny GGUF (real Qwen3 tokenizer and template).
func tinyModel(t *testing.T) string {
	t.Helper()
	return filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf")
}

// On Ollama the gateway counts the rendered prompt with the model's own
// tokenizer and asks for a num_ctx that holds it and the answer, since
// Ollama cuts a prompt that does not fit without a word; a prompt the
// model's context cannot hold is refused, clearly.
func TestOllamaContextFromPromptTokens(t *testing.T) {
	gguf := tinyModel(t)
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{
			"tiny":   {GGUFPath: gguf, ContextLength: 40960},
			"narrow": {GGUFPath: gguf, ContextLength: 64},
		},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop}}}
	ts := newFakeGateway(t, Config{}, rt)

	resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"tiny","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`)
	id := resp.Header.Get("X-Dragoman-Request-Id")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %v", resp.StatusCode, decodeBody(t, resp))
	}
	tr := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+id))
	tokens, _ := tr["prompt_tokens"].(float64)
	if tokens < 5 || tokens > 50 {
		t.Errorf("prompt_tokens %v for a one-line chat", tr["prompt_tokens"])
	}
	if got := rt.completes[0].ContextLength; got != minContext {
		t.Errorf("num_ctx %d; want %d for a short prompt", got, minContext)
	}
	if acts := tr["actions"]; acts != nil {
		t.Errorf("actions %v for a prompt Ollama's default context holds", acts)
	}

	// A long conversation needs a larger context, in powers of two.
	long := strings.Repeat("word ", 5000)
	resp = post(t, ts.URL+"/v1/chat/completions", `{"model":"tiny","max_tokens":100,"messages":[{"role":"user","content":"`+long+`"}]}`)
	if got := rt.completes[1].ContextLength; got != 8192 {
		t.Errorf("num_ctx %d; want 8192 for a prompt of about 5000 tokens", got)
	}
	tr = decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+resp.Header.Get("X-Dragoman-Request-Id")))
	if acts, _ := tr["actions"].([]any); len(acts) != 1 || acts[0] != "context-raised" {
		t.Errorf("actions %v, want context-raised", tr["actions"])
	}

	resp = post(t, ts.URL+"/v1/chat/completions", `{"model":"narrow","messages":[{"role":"user","content":"`+long+`"}]}`)
	v := decodeBody(t, resp)
	msg, _ := path(v, "error", "message").(string)
	if resp.StatusCode != 400 || !strings.Contains(msg, "context holds 64") {
		t.Errorf("a prompt beyond the context: status %d, %v", resp.StatusCode, v)
	}
	if len(rt.completes) != 2 {
		t.Errorf("the refused prompt reached the runtime")
	}
}

// Where the gateway counted the prompt, Anthropic's message_start carries
// the input tokens (the runtime reports them only at the end).
func TestAnthropicInputTokensAtStart(t *testing.T) {
	gguf := tinyModel(t)
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"tiny": {GGUFPath: gguf, ContextLength: 40960}},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop}}}
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/v1/messages", `{"model":"tiny","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	events, _ := sseData(t, resp.Body)
	if len(events) == 0 || path(events[0], "type") != "message_start" {
		t.Fatalf("events %v", events)
	}
	in, _ := path(events[0], "message", "usage", "input_tokens").(float64)
	if in < 5 || in > 50 {
		t.Errorf("message_start input_tokens %v for a one-line chat", in)
	}
}
