package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// count_tokens with the official SDK: the number is the prompt a Messages
// request with the same content is rendered to, counted with the model's own
// tokenizer (the trace's prompt_tokens); a tool adds its schema's tokens; a
// model without a known tokenizer is refused, an unknown model is a 404.
func TestCountTokens(t *testing.T) {
	gguf := tinyModel(t)
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{
			"tiny":   {GGUFPath: gguf, ContextLength: 40960},
			"notokn": {Template: qwenTemplate, TemplateOrigin: "fake"},
		},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop}}}
	ts := newFakeGateway(t, Config{}, rt)
	cl := sdkClient(ts)
	ctx := context.Background()
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris?"))}
	tool := anthropic.MessageCountTokensToolParamOfTool(anthropic.ToolInputSchemaParam{
		Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}}, "get_weather")

	plain, err := cl.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: "tiny", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	withTool, err := cl.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: "tiny", Messages: msgs,
		Tools: []anthropic.MessageCountTokensToolUnionParam{tool}})
	if err != nil {
		t.Fatal(err)
	}
	if plain.InputTokens < 5 || withTool.InputTokens <= plain.InputTokens+10 {
		t.Errorf("input tokens: %d plain, %d with a tool", plain.InputTokens, withTool.InputTokens)
	}

	resp := post(t, ts.URL+"/v1/messages", `{"model": "tiny", "max_tokens": 16, "messages": [{"role": "user", "content": "What is the weather in Paris?"}]}`)
	tr := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+resp.Header.Get("X-Dragoman-Request-Id")))
	if n, _ := tr["prompt_tokens"].(float64); int64(n) != plain.InputTokens {
		t.Errorf("count_tokens %d, the request's prompt %v tokens", plain.InputTokens, tr["prompt_tokens"])
	}

	if _, err := cl.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: "notokn", Messages: msgs}); err == nil {
		t.Error("a model without a tokenizer: no error")
	}
	var apiErr *anthropic.Error
	if _, err := cl.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: "nope", Messages: msgs}); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Errorf("an unknown model: %v", err)
	}
}

// count_tokens over llama-server: with the weights named by an absolute
// model_path in /props the GGUF's tokenizer counts (as for Ollama); with a
// relative one (llama-server's working directory is unknown) llama-server
// counts the rendered prompt itself, through /tokenize.
func TestCountTokensOnLlamaServer(t *testing.T) {
	for _, c := range []struct {
		name, modelPath string
		tokenized       bool
	}{
		{"absolute model_path", tinyModel(t), false},
		{"relative model_path", "tiny-qwen3-toolcall.gguf", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var tokenized []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/v1/models":
					io.WriteString(w, `{"object":"list","data":[{"id":"tiny","object":"model"}]}`)
				case "/props":
					json.NewEncoder(w).Encode(map[string]any{"chat_template": qwenTemplate, "model_path": c.modelPath,
						"default_generation_settings": map[string]any{"n_ctx": 4096}})
				case "/tokenize":
					var body struct {
						Content    string `json:"content"`
						AddSpecial bool   `json:"add_special"`
					}
					json.NewDecoder(r.Body).Decode(&body)
					tokenized = append(tokenized, body.Content)
					toks := make([]int, len(strings.Fields(body.Content)))
					json.NewEncoder(w).Encode(map[string]any{"tokens": toks})
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			s, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: srv.URL, Kind: "llama-server"}}}, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ts := httptestServer(t, s)
			resp := post(t, ts.URL+"/v1/messages/count_tokens", `{"model":"tiny","messages":[{"role":"user","content":"What is the weather in Paris?"}]}`)
			v := decodeBody(t, resp)
			n, _ := v["input_tokens"].(float64)
			if resp.StatusCode != 200 || n < 5 {
				t.Fatalf("status %d, %v", resp.StatusCode, v)
			}
			if (len(tokenized) > 0) != c.tokenized {
				t.Errorf("/tokenize asked %d times, want it asked: %v", len(tokenized), c.tokenized)
			}
			if c.tokenized && (int(n) != len(strings.Fields(tokenized[0])) || !strings.Contains(tokenized[0], "<|im_start|>user\nWhat is the weather in Paris?")) {
				t.Errorf("counted %v for the prompt %q", n, tokenized[0])
			}
		})
	}
}

// In relay mode the runtime renders the prompt and counts it only with its
// answer; Anthropic's message_start then carries the count count_tokens
// gives where Dragoman can count (the model's template and tokenizer at
// hand), message_delta the runtime's own figure (or message_start's where
// the runtime gave none); where Dragoman cannot count, message_start says 0
// as before and message_delta the runtime's figure.
func TestMessageStartInputTokensInRelayMode(t *testing.T) {
	gguf := tinyModel(t)
	usage := &chat.Usage{PromptTokens: 77, CompletionTokens: 1}
	counted := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", // no raw prompts: relay mode
		models: map[string]backend.ModelInfo{"tiny": {GGUFPath: gguf}, "notokn": {Template: qwenTemplate, TemplateOrigin: "fake"}},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop, Usage: usage}}}
	silent := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:2",
		models: map[string]backend.ModelInfo{"tiny2": {GGUFPath: gguf}},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop}}}
	ts := newFakeGateway(t, Config{}, counted, silent)
	const msgs = `"messages": [{"role": "user", "content": "What is the weather in Paris?"}], "tools": [{"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]`
	want := decodeBody(t, post(t, ts.URL+"/v1/messages/count_tokens", `{"model": "tiny", `+msgs+`}`))["input_tokens"]
	if n, _ := want.(float64); n < 20 {
		t.Fatalf("count_tokens %v", want)
	}
	for _, c := range []struct {
		model        string
		start, delta any
	}{
		{"tiny", want, 77.0},  // counted here; the runtime's figure at the end
		{"tiny2", want, want}, // counted here; the runtime gave none
		{"notokn", 0.0, 77.0}, // no tokenizer: as before
	} {
		resp := post(t, ts.URL+"/v1/messages", `{"model": "`+c.model+`", "max_tokens": 16, "stream": true, `+msgs+`}`)
		body, _ := io.ReadAll(resp.Body)
		var start, delta any
		for _, line := range strings.Split(string(body), "\n") {
			var ev map[string]any
			if data, ok := strings.CutPrefix(line, "data: "); !ok || json.Unmarshal([]byte(data), &ev) != nil {
				continue
			}
			switch ev["type"] {
			case "message_start":
				start = path(ev, "message", "usage", "input_tokens")
			case "message_delta":
				delta = path(ev, "usage", "input_tokens")
			}
		}
		if start != c.start || delta != c.delta {
			t.Errorf("%s: input_tokens %v in message_start, %v in message_delta: want %v and %v\n%s", c.model, start, delta, c.start, c.delta, body)
		}
		tr := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+resp.Header.Get("X-Dragoman-Request-Id")))
		if tr["mode"] != "relay" {
			t.Errorf("%s: mode %v", c.model, tr["mode"])
		}
	}
}
