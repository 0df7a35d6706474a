package gateway

import (
	"context"
	"errors"
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
