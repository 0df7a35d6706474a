package e2e

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
)

// The embedded engine's model writes its call token by token; each client
// API's stream shows the call as it is written — announced, then its
// arguments in several fragments — and the official SDKs' accumulators add
// the fragments up to the call the collected answer has.
func TestEmbeddedLiveCalls(t *testing.T) {
	base, model := startEmbedded(t)
	ctx := context.Background()
	cl := client(base)

	whole, err := cl.Chat.Completions.New(ctx, weatherParams(model))
	if err != nil {
		t.Fatal(err)
	}
	checkWeatherCall(t, whole.Choices[0].Message, whole.Choices[0].FinishReason)
	wantArgs := whole.Choices[0].Message.ToolCalls[0].Function.Arguments

	t.Run("openai", func(t *testing.T) {
		stream := cl.Chat.Completions.NewStreaming(ctx, weatherParams(model))
		var acc openai.ChatCompletionAccumulator
		fragments := 0
		for stream.Next() {
			chunk := stream.Current()
			acc.AddChunk(chunk)
			for _, d := range chunk.Choices[0].Delta.ToolCalls {
				if d.Function.Arguments != "" {
					fragments++
				}
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		checkWeatherCall(t, acc.Choices[0].Message, acc.Choices[0].FinishReason)
		if got := acc.Choices[0].Message.ToolCalls[0].Function.Arguments; fragments < 2 || got != wantArgs {
			t.Errorf("%d argument fragments adding up to %q, want several adding up to %q", fragments, got, wantArgs)
		}
	})

	t.Run("anthropic", func(t *testing.T) {
		acl := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey("unused"), aoption.WithMaxRetries(0))
		stream := acl.Messages.NewStreaming(ctx, anthropic.MessageNewParams{
			Model:     anthropic.Model(model),
			MaxTokens: 64,
			Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in Paris?"))},
			Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
				Name:        "get_weather",
				InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}},
			}}},
		})
		var msg anthropic.Message
		fragments := 0
		for stream.Next() {
			ev := stream.Current()
			if err := msg.Accumulate(ev); err != nil {
				t.Fatal(err)
			}
			if ev.Type == "content_block_delta" && ev.Delta.Type == "input_json_delta" {
				fragments++
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if msg.StopReason != anthropic.StopReasonToolUse || len(msg.Content) == 0 {
			t.Fatalf("stop_reason %q, content %s", msg.StopReason, msg.RawJSON())
		}
		tu := msg.Content[len(msg.Content)-1].AsToolUse()
		var got, want any
		if err := json.Unmarshal(tu.Input, &got); err != nil {
			t.Fatalf("input %s: %v", tu.Input, err)
		}
		_ = json.Unmarshal([]byte(wantArgs), &want)
		if fragments < 2 || tu.Name != "get_weather" || !jsonSame(got, want) {
			t.Errorf("%d input_json_delta fragments, tool_use %s(%s), want several making %s", fragments, tu.Name, tu.Input, wantArgs)
		}
	})

	t.Run("responses", func(t *testing.T) {
		stream := cl.Responses.NewStreaming(ctx, weatherResponseParams(model))
		var args, done string
		fragments := 0
		for stream.Next() {
			switch ev := stream.Current(); ev.Type {
			case "response.function_call_arguments.delta":
				args += ev.Delta
				fragments++
			case "response.function_call_arguments.done":
				done = ev.Arguments
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if fragments < 2 || args != wantArgs || done != wantArgs {
			t.Errorf("%d deltas adding up to %q, done %q, want several making %q", fragments, args, done, wantArgs)
		}
	})
}

// jsonSame compares two decoded JSON values.
func jsonSame(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
