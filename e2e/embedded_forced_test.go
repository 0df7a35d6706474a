package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// The family's call grammar in llama.cpp's own sampler, in this process:
// with the random-weights model, tool_choice "required" and a named function
// give a call valid against its tool's schema in 50 of 50 samples (eager
// grammar), while "auto" (a lazy grammar the random model never triggers)
// gives none.
func TestEmbeddedForcedCalls(t *testing.T) {
	random := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-random.gguf")
	base, _ := startEmbedded(t, "-model", random)
	cl := client(base)
	tools, schemas := boundedToolsAndSchemas(t)
	sample := func(choice openai.ChatCompletionToolChoiceOptionUnionParam, seed int) (bool, string) {
		resp, err := cl.Chat.Completions.New(context.Background(), useATool("tiny-qwen3-random", tools, choice, 128, seed))
		if err != nil {
			return false, err.Error()
		}
		calls := resp.Choices[0].Message.ToolCalls
		if len(calls) != 1 {
			return false, fmt.Sprintf("%d calls; content %q", len(calls), resp.Choices[0].Message.Content)
		}
		var compact bytes.Buffer
		g := schemas[calls[0].Function.Name]
		if g == nil || json.Compact(&compact, []byte(calls[0].Function.Arguments)) != nil || !g.Match(compact.String()) {
			return false, "invalid call " + calls[0].Function.Name + " " + calls[0].Function.Arguments
		}
		return true, calls[0].Function.Name
	}
	samples := sampleCount(t, 50)
	for _, c := range []struct {
		name   string
		choice openai.ChatCompletionToolChoiceOptionUnionParam
		only   string
	}{
		{"required", openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")}, ""},
		{"named", openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: "add"}), "add"},
	} {
		valid := 0
		for i := range samples {
			ok, what := sample(c.choice, i)
			switch {
			case !ok:
				t.Errorf("%s, sample %d: %s", c.name, i, what)
			case c.only != "" && what != c.only:
				t.Errorf("%s, sample %d: called %s", c.name, i, what)
			default:
				valid++
			}
		}
		t.Logf("%s: %d of %d samples are calls valid against the schema", c.name, valid, samples)
	}
	unconstrained := 0
	for i := range samples {
		if ok, _ := sample(openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("auto")}, i); ok {
			unconstrained++
		}
	}
	t.Logf("auto (no call opener, so the lazy grammar never applies): %d of %d samples are valid calls", unconstrained, samples)
	if unconstrained > samples/10 {
		t.Errorf("the random model wrote %d valid calls of %d without a constraint: the comparison shows nothing", unconstrained, samples)
	}
}

// With "auto", the lazy grammar takes over once the model writes the call
// opener: the scripted model always writes get_weather({"city": "Paris"}),
// but offered a get_weather whose only argument is an integer "zip", the
// call that comes back has a zip, and the raw completion in the trace shows
// the model was steered after <tool_call>.
func TestEmbeddedLazyGrammar(t *testing.T) {
	base, model := startEmbedded(t)
	cl := client(base)
	zipTool := openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "get_weather", Parameters: shared.FunctionParameters{
		"type": "object", "properties": map[string]any{"zip": map[string]any{"type": "integer"}},
		"required": []string{"zip"}, "additionalProperties": false,
	}})
	resp, err := cl.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:     model,
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What's the weather in Paris?")},
		Tools:     []openai.ChatCompletionToolUnionParam{zipTool},
		MaxTokens: openai.Int(96),
		// One call: the model never stops on its own, and the grammar
		// ends after one call only when parallel calls are off.
		ParallelToolCalls: openai.Bool(false),
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Choices[0].Message.ToolCalls
	if len(calls) != 1 || calls[0].Function.Name != "get_weather" {
		t.Fatalf("calls %+v, content %q", calls, resp.Choices[0].Message.Content)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(calls[0].Function.Arguments), &args); err != nil || len(args) != 1 || args["zip"] == nil {
		t.Errorf("arguments %s: the lazy grammar did not hold the call to the schema", calls[0].Function.Arguments)
	}
	trace := getJSON(t, base+"/v1/dragoman/requests/"+resp.ID)
	completion := fmt.Sprint(trace["completion"])
	if !strings.HasPrefix(completion, "<tool_call>") || strings.Contains(completion, "city") {
		t.Errorf("raw completion %q", completion)
	}
	t.Logf("constrained completion: %q (unconstrained, the model writes {\"city\":\"Paris\"})", completion)
}

// A template whose generation prompt opens the reasoning (as DeepSeek-R1's
// and QwQ's do) and the random model, which writes no "</think>" by itself:
// with room to reason, every forced call's first pass ends on its limit
// inside the reasoning, the gateway closes it, and the call comes in the
// second, call-only pass. Without that pass each answer would end at
// max_tokens with no call.
func TestEmbeddedForcedCallAfterOpenReasoning(t *testing.T) {
	base, _ := startEmbedded(t, "-model", reasoningOpenModel(t))
	cl := client(base)
	tools, schemas := boundedToolsAndSchemas(t)
	samples := sampleCount(t, 20)
	for i := range samples {
		resp, err := cl.Chat.Completions.New(context.Background(), useATool("tiny-reasoning-open", tools, required, 1024, i))
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		msg := resp.Choices[0].Message
		reasoning := msg.JSON.ExtraFields["reasoning_content"].Raw()
		if len(msg.ToolCalls) != 1 || resp.Choices[0].FinishReason != "tool_calls" || len(reasoning) < 100 {
			t.Errorf("sample %d: %d calls, finish %q, %d bytes of reasoning; content %q", i, len(msg.ToolCalls), resp.Choices[0].FinishReason, len(reasoning), msg.Content)
			continue
		}
		var compact bytes.Buffer
		call := msg.ToolCalls[0].Function
		if g := schemas[call.Name]; g == nil || json.Compact(&compact, []byte(call.Arguments)) != nil || !g.Match(compact.String()) {
			t.Errorf("sample %d: invalid call %s %s", i, call.Name, call.Arguments)
		}
		if resp.Usage.CompletionTokens <= 768 || resp.Usage.CompletionTokens > 1024 {
			t.Errorf("sample %d: %d completion tokens, want the first pass's 768 and the call's", i, resp.Usage.CompletionTokens)
		}
	}
}

// reasoningOpenModel writes a copy of the random model whose chat template
// leaves the reasoning open after the generation prompt: Qwen3's
// "enable_thinking is false" branch made unconditional and its closed
// "<think></think>" cut to "<think>\n", each padded with spaces inside the tag
// so that the GGUF's string keeps its length.
func reasoningOpenModel(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-random.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]string{
		{"{%- if enable_thinking is defined and enable_thinking is false %}", "{%- if true"},
		{`{{- '<think>\n\n</think>\n\n' }}`, `{{- '<think>\n'`},
	} {
		end := r[0][len(r[0])-2:] // "%}" or "}}"
		with := r[1] + strings.Repeat(" ", len(r[0])-len(r[1])-3) + " " + end
		if bytes.Count(data, []byte(r[0])) != 1 || len(with) != len(r[0]) {
			t.Fatalf("the template does not hold %q once", r[0])
		}
		data = bytes.Replace(data, []byte(r[0]), []byte(with), 1)
	}
	path := filepath.Join(t.TempDir(), "tiny-reasoning-open.gguf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The grammar per sequence, through the gateway with streaming clients: 8
// OpenAI SDK streams at once, tool_choice "required", the random model (its
// every token drawn against its own request's grammar while the engine
// decodes the 8 in one batch): every call streamed back is valid against
// its tool's schema. That the requests overlapped is read from their traces:
// a prompt the same as the last one's would take the same slot when run
// alone, so requests on several slots ran side by side.
func TestEmbeddedForcedCallsConcurrentStreams(t *testing.T) {
	const streams = 8
	random := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-random.gguf")
	base, _ := startEmbedded(t, "-model", random, "-slots", fmt.Sprint(streams))
	cl := client(base)
	tools, schemas := boundedToolsAndSchemas(t)
	samples := max(sampleCount(t, 50), streams)
	type outcome struct {
		id, problem string
	}
	work := make(chan int)
	results := make(chan outcome)
	for range streams {
		go func() {
			for seed := range work {
				results <- streamRequiredCall(cl, tools, schemas, seed)
			}
		}()
	}
	go func() {
		for i := range samples {
			work <- i
		}
		close(work)
	}()
	valid := 0
	slots := map[float64]bool{}
	for range samples {
		r := <-results
		if r.problem != "" {
			t.Error(r.problem)
			continue
		}
		valid++
		timings, _ := getJSON(t, base+"/v1/dragoman/requests/"+r.id)["timings"].(map[string]any)
		if slot, ok := timings["upstream_slot"].(float64); ok {
			slots[slot] = true
		}
	}
	t.Logf("%d of %d streamed required calls valid against the schema, %d streams at once on %d slots", valid, samples, streams, len(slots))
	if len(slots) < 2 {
		t.Errorf("every request took the same slot: they did not run side by side")
	}
}

// streamRequiredCall streams one tool_choice "required" request and checks
// its one call against the schemas; it returns the response's id (its
// trace's) or what was wrong.
func streamRequiredCall(cl openai.Client, tools []openai.ChatCompletionToolUnionParam, schemas map[string]*grammar.Grammar, seed int) struct{ id, problem string } {
	stream := cl.Chat.Completions.NewStreaming(context.Background(), useATool("tiny-qwen3-random", tools, required, 128, seed))
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	fail := func(format string, args ...any) struct{ id, problem string } {
		return struct{ id, problem string }{acc.ID, fmt.Sprintf("seed %d: ", seed) + fmt.Sprintf(format, args...)}
	}
	if err := stream.Err(); err != nil {
		return fail("%v", err)
	}
	if len(acc.Choices) != 1 || len(acc.Choices[0].Message.ToolCalls) != 1 || acc.Choices[0].FinishReason != "tool_calls" {
		return fail("want one call and finish tool_calls: %+v", acc.Choices)
	}
	c := acc.Choices[0].Message.ToolCalls[0]
	var compact bytes.Buffer
	g := schemas[c.Function.Name]
	if g == nil || json.Compact(&compact, []byte(c.Function.Arguments)) != nil || !g.Match(compact.String()) {
		return fail("invalid call %s %s", c.Function.Name, c.Function.Arguments)
	}
	return struct{ id, problem string }{id: acc.ID}
}

// required is tool_choice "required".
var required = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")}

// useATool is the forced-call tests' request: "Use a tool." with the tools,
// the tool choice, an output limit and a seed, one call at most (the grammar
// then ends after one call).
func useATool(model string, tools []openai.ChatCompletionToolUnionParam, choice openai.ChatCompletionToolChoiceOptionUnionParam, maxTokens, seed int) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:             model,
		Messages:          []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Use a tool.")},
		Tools:             tools,
		ToolChoice:        choice,
		MaxTokens:         openai.Int(int64(maxTokens)),
		Seed:              openai.Int(int64(seed)),
		ParallelToolCalls: openai.Bool(false),
	}
}
