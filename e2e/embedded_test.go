package e2e

// The gateway with the embedded llama.cpp engine: `dragoman serve --model
// tiny-qwen3-toolcall.gguf -no-discover`, no other runtime. The libraries come
// from $DRAGOMAN_LLAMA_LIB (.ci/llamalib.sh); without it the tests skip, or
// fail under CI=true, where .ci/run sets it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

const envLlamaLib = "DRAGOMAN_LLAMA_LIB"

// requireEnv returns $name, which a set-up step of scripts/test.sh sets (how
// says); without it the test skips, or fails under CI=true, where it is set.
func requireEnv(t *testing.T, name, how string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		msg := name + " is unset: " + how + " and set it to the directory it prints"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return v
}

// requireLlamaLib is requireEnv for the embedded engine's libraries.
func requireLlamaLib(t *testing.T) string {
	t.Helper()
	return requireEnv(t, envLlamaLib, "run .ci/llamalib.sh (npm pack @node-llama-cpp/linux-x64@3.22.1)")
}

// startEmbedded runs `dragoman serve -model <tiny toolcall model>
// -no-discover` and returns its base URL and the model's id.
func startEmbedded(t *testing.T, extra ...string) (string, string) {
	t.Helper()
	requireLlamaLib(t)
	model := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf")
	args := append([]string{"serve", "-listen", "127.0.0.1:0", "-no-discover", "-model", model, "-ctx", "2048", "-threads", "1"}, extra...)
	return startServe(t, args, nil, 60*time.Second), "tiny-qwen3-toolcall"
}

// The OpenAI SDK gets the scripted model's call parsed, streamed and not.
func TestEmbeddedOpenAI(t *testing.T) {
	base, model := startEmbedded(t)
	cl := client(base)
	ctx := context.Background()

	models, err := cl.Models.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(models.Data) != 1 || models.Data[0].ID != model || models.Data[0].OwnedBy != "embedded" {
		t.Errorf("models %+v", models.Data)
	}

	resp, err := cl.Chat.Completions.New(ctx, weatherParams(model))
	if err != nil {
		t.Fatal(err)
	}
	checkWeatherCall(t, resp.Choices[0].Message, resp.Choices[0].FinishReason)
	if resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 {
		t.Errorf("usage %+v", resp.Usage)
	}

	stream := cl.Chat.Completions.NewStreaming(ctx, weatherParams(model))
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	checkWeatherCall(t, acc.Choices[0].Message, acc.Choices[0].FinishReason)

	trace := getJSON(t, base+"/v1/dragoman/requests/"+resp.ID)
	if trace["mode"] != "own" || trace["runtime"] != "embedded" || !strings.Contains(fmt.Sprint(trace["completion"]), "<tool_call>") {
		t.Errorf("trace mode %v runtime %v completion %q", trace["mode"], trace["runtime"], trace["completion"])
	}
	if !strings.Contains(fmt.Sprint(trace["template_origin"]), "tokenizer.chat_template") {
		t.Errorf("trace template origin %v", trace["template_origin"])
	}
	// The engine's own timings reach the trace.
	timings, _ := trace["timings"].(map[string]any)
	for _, k := range []string{"upstream_prompt_ms", "upstream_prompt_tokens_per_s", "upstream_generate_ms", "upstream_generate_tokens_per_s"} {
		if v, ok := timings[k].(float64); !ok || v <= 0 {
			t.Errorf("trace timings: %s is %v (%v)", k, timings[k], timings)
		}
	}
}

// A conversation longer than the context is refused with a 400 that says so.
func TestEmbeddedPromptTooLong(t *testing.T) {
	base, model := startEmbedded(t, "-ctx", "256")
	params := weatherParams(model)
	params.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage(strings.Repeat("weather ", 400))}
	cl := client(base)
	_, err := cl.Chat.Completions.New(context.Background(), params)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, "context holds 256") {
		t.Fatalf("err %v", err)
	}
}

// A max_tokens beyond what the context leaves after the prompt (Claude Code
// asks for 32,000 on every turn; here 2,000) is answered, cut where the context ends:
// stop_reason max_tokens, in the client's dialect; the engine's slot and
// cached tokens reach the trace of a request it served.
func TestEmbeddedNoRoomForMaxTokens(t *testing.T) {
	random := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-random.gguf")
	base, model := startEmbedded(t, "-ctx", "512", "-model", random)
	cl := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey("unused"), aoption.WithMaxRetries(0))
	params := anthropic.MessageNewParams{
		Model:     "tiny-qwen3-random", // it writes until it is stopped
		MaxTokens: 2000,                // beyond the context; the SDK wants a stream for 32,000
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))},
	}
	cut, err := cl.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if cut.StopReason != anthropic.StopReasonMaxTokens || cut.Usage.InputTokens+cut.Usage.OutputTokens > 512 || cut.Usage.OutputTokens < 400 {
		t.Errorf("stop %q, usage %+v: want the answer cut at the 512-token context's end", cut.StopReason, cut.Usage)
	}
	params.Model, params.MaxTokens = anthropic.Model(model), 16
	var msg *anthropic.Message
	for range 2 {
		if msg, err = cl.Messages.New(context.Background(), params); err != nil {
			t.Fatal(err)
		}
	}
	// The second time, the prompt came from the slot of the first.
	trace := getJSON(t, base+"/v1/dragoman/requests/"+msg.ID)
	timings, _ := trace["timings"].(map[string]any)
	if slot, ok := timings["upstream_slot"].(float64); !ok || slot < 0 || slot > 3 {
		t.Errorf("trace: upstream_slot %v (%v)", timings["upstream_slot"], timings)
	}
	if cached, _ := timings["upstream_cached_tokens"].(float64); cached == 0 {
		t.Errorf("trace: upstream_cached_tokens %v", timings["upstream_cached_tokens"])
	}
}

// The Anthropic SDK gets the call as a tool_use block.
func TestEmbeddedAnthropic(t *testing.T) {
	base, model := startEmbedded(t)
	cl := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey("unused"), aoption.WithMaxRetries(0))
	msg, err := cl.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: 64,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        "get_weather",
			Description: anthropic.String("Current weather"),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != anthropic.StopReasonToolUse || len(msg.Content) == 0 {
		t.Fatalf("stop_reason %q, content %s", msg.StopReason, msg.RawJSON())
	}
	tu := msg.Content[len(msg.Content)-1].AsToolUse()
	var input struct{ City string }
	if err := json.Unmarshal(tu.Input, &input); err != nil {
		t.Fatalf("input %s: %v", tu.Input, err)
	}
	if tu.Name != "get_weather" || tu.ID == "" || input.City != "Paris" {
		t.Errorf("tool_use %s", msg.RawJSON())
	}
	if msg.Usage.InputTokens == 0 || msg.Usage.OutputTokens == 0 {
		t.Errorf("usage %+v", msg.Usage)
	}
}

// Streamed, the Anthropic answer says the prompt's length from its first
// event: the engine counted the prompt's tokens before it answered.
func TestEmbeddedAnthropicStreamInputTokens(t *testing.T) {
	base, model := startEmbedded(t)
	cl := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey("unused"), aoption.WithMaxRetries(0))
	stream := cl.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: 64,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))},
	})
	var start, final int64
	events := 0
	for stream.Next() {
		ev := stream.Current()
		if events == 0 {
			if ev.Type != "message_start" {
				t.Fatalf("first event %q", ev.Type)
			}
			start = ev.AsMessageStart().Message.Usage.InputTokens
		}
		if ev.Type == "message_delta" {
			final = ev.AsMessageDelta().Usage.InputTokens
		}
		events++
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if start == 0 || start != final {
		t.Errorf("input tokens: %d in message_start, %d in message_delta", start, final)
	}
}

// count_tokens answers for the embedded engine's model, from the GGUF's own
// template and tokenizer, and equals the prompt tokens the engine counts for
// the same request.
func TestEmbeddedCountTokens(t *testing.T) {
	base, model := startEmbedded(t)
	cl := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey("unused"), aoption.WithMaxRetries(0))
	ctx := context.Background()
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))}
	tools := []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather",
		InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}}}}
	count, err := cl.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: anthropic.Model(model), Messages: msgs,
		Tools: []anthropic.MessageCountTokensToolUnionParam{{OfTool: tools[0].OfTool}}})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := cl.Messages.New(ctx, anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 64, Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	prompt := msg.Usage.InputTokens + msg.Usage.CacheReadInputTokens
	if count.InputTokens == 0 || count.InputTokens != prompt {
		t.Errorf("count_tokens %d, the engine's prompt %d (%d evaluated, %d cached)", count.InputTokens, prompt, msg.Usage.InputTokens, msg.Usage.CacheReadInputTokens)
	}
}
