package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/internal/ollamatest"
)

// Two tools with bounded arguments, so that a random model's constrained call
// fits in a few dozen tokens.
var boundedTools = []shared.FunctionDefinitionParam{
	{Name: "get_weather", Parameters: shared.FunctionParameters{
		"type":       "object",
		"properties": map[string]any{"city": map[string]any{"type": "string", "maxLength": 12}},
		"required":   []string{"city"},
	}},
	{Name: "add", Parameters: shared.FunctionParameters{
		"type": "object",
		"properties": map[string]any{
			"a": map[string]any{"type": "integer"},
			"b": map[string]any{"type": "integer"},
		},
		"required":             []string{"a", "b"},
		"additionalProperties": false,
	}},
}

// boundedToolsAndSchemas is boundedTools as the SDK sends them, and each
// tool's parameters as a grammar, to check that a call's arguments are valid.
func boundedToolsAndSchemas(t *testing.T) ([]openai.ChatCompletionToolUnionParam, map[string]*grammar.Grammar) {
	t.Helper()
	var tools []openai.ChatCompletionToolUnionParam
	schemas := map[string]*grammar.Grammar{}
	for _, f := range boundedTools {
		tools = append(tools, openai.ChatCompletionFunctionTool(f))
		raw, _ := json.Marshal(f.Parameters)
		g, _, err := grammar.FromJSONSchema(raw, grammar.Options{})
		if err != nil {
			t.Fatal(err)
		}
		schemas[f.Name] = g
	}
	return tools, schemas
}

// tool_choice "required" and a named function on Ollama, which has neither:
// every sampled completion must come back as a call valid against its tool's
// schema (checked with our own recogniser). The scripted model always wants
// get_weather, so naming "add" is a real test of the constraint; the random
// model with "auto" shows how often an unconstrained model manages a valid
// call. (The random model with the constraint also writes valid calls, but
// fills the whitespace the runtime's grammar allows until max_tokens cuts it.)
func TestForcedCallOnOllama(t *testing.T) {
	srv := ollamatest.Shared(t)
	base := startDragoman(t, srv, "own")
	cl := client(base)
	tools, schemas := boundedToolsAndSchemas(t)
	samples := sampleCount(t, 50)
	valid := func(model string, choice openai.ChatCompletionToolChoiceOptionUnionParam, seed int) (ok bool, why string) {
		resp, err := cl.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model:      model,
			Messages:   []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Use a tool.")},
			Tools:      tools,
			ToolChoice: choice,
			MaxTokens:  openai.Int(64),
			Seed:       openai.Int(int64(seed)),
		})
		if err != nil {
			return false, err.Error()
		}
		calls := resp.Choices[0].Message.ToolCalls
		if len(calls) != 1 {
			return false, "no call; content " + resp.Choices[0].Message.Content
		}
		// Valid JSON of any layout (the runtime's grammar allows more
		// whitespace than ours), and valid against the tool's schema.
		var compact bytes.Buffer
		g := schemas[calls[0].Function.Name]
		if g == nil || json.Compact(&compact, []byte(calls[0].Function.Arguments)) != nil || !g.Match(compact.String()) {
			return false, "invalid call " + calls[0].Function.Name + " " + calls[0].Function.Arguments
		}
		return true, calls[0].Function.Name
	}

	for _, c := range []struct {
		name   string
		choice openai.ChatCompletionToolChoiceOptionUnionParam
		only   string
	}{
		{"required", openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")}, ""},
		{"named", openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: "add"}), "add"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for i := range samples {
				ok, what := valid(srv.ToolCall, c.choice, i)
				if !ok {
					t.Errorf("sample %d: %s", i, what)
				} else if c.only != "" && what != c.only {
					t.Errorf("sample %d: called %s, not %s", i, what, c.only)
				}
			}
		})
	}

	// The rate without the constraint, for the record.
	got := 0
	for i := range samples / 5 {
		if ok, _ := valid(srv.Random, openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("auto")}, i); ok {
			got++
		}
	}
	t.Logf("without the constraint (tool_choice auto, random model): %d of %d completions were valid calls", got, samples/5)
}
