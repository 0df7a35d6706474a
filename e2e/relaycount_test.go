package e2e

import (
	"context"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"

	"github.com/dragoman-dev/dragoman/internal/ollamatest"
)

// Relay mode over a real Ollama: Ollama renders the prompt and counts it
// only with its answer, so the streamed Messages answer's message_start
// carries the gateway's count (count_tokens': the model's template rendered,
// counted with the GGUF's tokenizer from Ollama's store) and message_delta
// Ollama's own count. Ollama renders with its Go template, not the Jinja one:
// the two counts are logged, and must be near each other.
func TestAnthropicRelayStreamInputTokens(t *testing.T) {
	srv := ollamatest.Shared(t)
	base := startDragoman(t, srv, "relay")
	cl := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey("unused"), aoption.WithMaxRetries(0))
	ctx := context.Background()
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in Paris?"))}
	count, err := cl.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: anthropic.Model(srv.ToolCall), Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	stream := cl.Messages.NewStreaming(ctx, anthropic.MessageNewParams{Model: anthropic.Model(srv.ToolCall), MaxTokens: 16, Messages: msgs})
	var start, final int64
	for stream.Next() {
		switch ev := stream.Current(); ev.Type {
		case "message_start":
			start = ev.AsMessageStart().Message.Usage.InputTokens
		case "message_delta":
			final = ev.AsMessageDelta().Usage.InputTokens
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("input tokens: %d in message_start (count_tokens %d), %d in message_delta (Ollama's)", start, count.InputTokens, final)
	if start == 0 || start != count.InputTokens {
		t.Errorf("message_start's input_tokens %d: want count_tokens' %d", start, count.InputTokens)
	}
	if final == 0 || final < start/2 || final > start*2 {
		t.Errorf("message_delta's input_tokens %d: want Ollama's count, near %d", final, start)
	}
}
