package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
)

// Every family's call grammar, lazy and eager, is accepted by llama.cpp's own
// grammar parser: llama-server answers 400 for a grammar it cannot read.
func TestFamilyGrammarsLoadInLlamaServer(t *testing.T) {
	ls := startLlamaServerWith(t, "tiny-qwen3-random.gguf")
	var tools []chat.Tool
	for _, f := range boundedTools {
		raw, _ := json.Marshal(f.Parameters)
		tools = append(tools, chat.Tool{Type: "function", Function: chat.ToolFunction{Name: f.Name, Parameters: raw}})
	}
	checked := 0
	for _, f := range format.Families() {
		if f.Calls == nil {
			continue
		}
		for _, choice := range []format.ToolChoice{{Mode: "auto"}, {Mode: "required"}} {
			c, err := f.Constrain(tools, choice, false)
			if err != nil {
				t.Fatalf("%s: %v", f.ID, err)
			}
			body := map[string]any{"prompt": "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", "n_predict": 1,
				"grammar": c.Grammar, "preserved_tokens": c.Triggers}
			if c.Lazy {
				var triggers []map[string]any
				for _, w := range c.Triggers {
					triggers = append(triggers, map[string]any{"type": 1, "value": w})
				}
				body["grammar_lazy"], body["grammar_triggers"] = true, triggers
			}
			raw, _ := json.Marshal(body)
			if status, answer := postJSON(t, ls.URL+"/completion", raw); status != 200 {
				t.Errorf("%s %s: llama-server answered %d: %s\n%s", f.ID, choice.Mode, status, answer, c.Grammar)
			}
			checked++
		}
	}
	t.Logf("%d grammars (%d families, lazy and eager) loaded by llama-server %s", checked, checked/2, ls.BuildInfo)
}

// tool_choice "required" through the gateway on llama-server, with the
// random-weights model: the eager grammar makes every sample a call valid
// against its tool's schema (the goal is at least 99 of 100); without a
// constraint ("auto", no call opener written) the same model writes none.
// It takes about 15 minutes on two cores: run it with -timeout 60m.
func TestRequiredCallsOnLlamaServer(t *testing.T) {
	ls := startLlamaServerWith(t, "tiny-qwen3-random.gguf")
	base := startGateway(t, "llama-server="+ls.URL, "own")
	cl := client(base)
	tools, schemas := boundedToolsAndSchemas(t)
	sample := func(choice string, seed int) (bool, string) {
		resp, err := cl.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model:      ls.Model,
			Messages:   []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Use a tool.")},
			Tools:      tools,
			ToolChoice: openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String(choice)},
			MaxTokens:  openai.Int(128),
			Seed:       openai.Int(int64(seed)),
			// One call, so that the grammar ends and the sample stops: llama.cpp's
			// grammar sampler costs about 0.2 s per token with this 151k-token
			// vocabulary when the model's own choice is refused (always, with
			// random weights), and a random model never chooses to stop.
			ParallelToolCalls: openai.Bool(false),
		})
		if err != nil {
			return false, apiError(err).Error() // with the gateway's error body, which quotes the runtime
		}
		calls := resp.Choices[0].Message.ToolCalls
		if len(calls) == 0 {
			return false, "no call; content " + strings.TrimSpace(resp.Choices[0].Message.Content)
		}
		for _, c := range calls {
			var compact bytes.Buffer
			g := schemas[c.Function.Name]
			if g == nil || json.Compact(&compact, []byte(c.Function.Arguments)) != nil || !g.Match(compact.String()) {
				return false, "invalid call " + c.Function.Name + " " + c.Function.Arguments
			}
		}
		return true, ""
	}
	samples := sampleCount(t, 100)
	valid := 0
	for i := range samples {
		if ok, why := sample("required", i); ok {
			valid++
		} else {
			t.Logf("sample %d: %s", i, why)
		}
	}
	unconstrained := 0
	for i := range samples / 10 {
		if ok, _ := sample("auto", i); ok {
			unconstrained++
		}
	}
	t.Logf("llama-server %s, random model: %d of %d required calls valid with our grammar; %d of %d with auto (lazy grammar, never triggered)",
		ls.BuildInfo, valid, samples, unconstrained, samples/10)
	if valid < samples*99/100 {
		t.Errorf("%d of %d valid calls; the goal is at least 99%%", valid, samples)
	}
}
