package e2e

// The OpenAI Responses API through the real binary, with openai-go's
// Responses client, over the embedded engine and over a real Ollama in both
// modes: a call streamed and not, the call's output sent back, and a turn
// chained with previous_response_id.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/dragoman-dev/dragoman/internal/ollamatest"
)

var weatherFunction = responses.ToolParamOfFunction("get_weather", map[string]any{
	"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"},
}, false)

func weatherResponseParams(model string) responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model:           model,
		Input:           responses.ResponseNewParamsInputUnion{OfString: openai.String("What's the weather in Paris?")},
		Tools:           []responses.ToolUnionParam{weatherFunction},
		MaxOutputTokens: openai.Int(64),
	}
}

// checkResponsesCall asserts the output holds the scripted model's one call
// and returns it.
func checkResponsesCall(t *testing.T, out []responses.ResponseOutputItemUnion) responses.ResponseFunctionToolCall {
	t.Helper()
	var calls []responses.ResponseFunctionToolCall
	for _, it := range out {
		switch it.Type {
		case "function_call":
			calls = append(calls, it.AsFunctionCall())
		case "message":
			for _, c := range it.AsMessage().Content {
				if strings.Contains(c.Text, "<tool_call>") {
					t.Errorf("markup left in the message: %q", c.Text)
				}
			}
		}
	}
	if len(calls) != 1 {
		t.Fatalf("want one function_call, got %d in %d items", len(calls), len(out))
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(calls[0].Arguments), &args); err != nil || calls[0].Name != "get_weather" || args["city"] != "Paris" || calls[0].CallID == "" {
		t.Errorf("call %s (%v)", calls[0].RawJSON(), err)
	}
	return calls[0]
}

func exerciseResponses(t *testing.T, base, model string) {
	cl := client(base)
	ctx := context.Background()
	resp, err := cl.Responses.New(ctx, weatherResponseParams(model))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != "completed" {
		t.Errorf("status %q", resp.Status)
	}
	call := checkResponsesCall(t, resp.Output)
	if resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens == 0 {
		t.Errorf("usage %s", resp.Usage.RawJSON())
	}

	stream := cl.Responses.NewStreaming(ctx, weatherResponseParams(model))
	var done []responses.ResponseOutputItemUnion
	var completed bool
	for stream.Next() {
		switch ev := stream.Current(); ev.Type {
		case "response.output_item.done":
			done = append(done, ev.AsResponseOutputItemDone().Item)
		case "response.completed":
			completed = true
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	checkResponsesCall(t, done)
	if !completed {
		t.Error("the stream did not end with response.completed")
	}

	// The call's output goes back, chained to the first response: the
	// prompt holds the call and its result.
	out := responses.ResponseInputItemParamOfFunctionCallOutput("18C and sunny")
	out.OfFunctionCallOutput.CallID = param.NewOpt(call.CallID)
	next, err := cl.Responses.New(ctx, responses.ResponseNewParams{
		Model: model, PreviousResponseID: openai.String(resp.ID), MaxOutputTokens: openai.Int(64),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{out}},
		Tools: []responses.ToolUnionParam{weatherFunction},
	})
	if err != nil {
		t.Fatal(err)
	}
	trace := getJSON(t, base+"/v1/dragoman/requests/"+next.ID)
	if trace["api"] != "responses" {
		t.Errorf("trace api %v", trace["api"])
	}
	if trace["mode"] == "own" && !strings.Contains(trace["prompt"].(string), "18C and sunny") {
		t.Errorf("the chained prompt lacks the tool's output:\n%s", trace["prompt"])
	}
	got, err := cl.Responses.Get(ctx, resp.ID, responses.ResponseGetParams{})
	if err != nil || got.ID != resp.ID {
		t.Errorf("GET /v1/responses/%s: %v", resp.ID, err)
	}
}

func TestEmbeddedResponses(t *testing.T) {
	base, model := startEmbedded(t)
	exerciseResponses(t, base, model)
}

func TestResponsesOnOllama(t *testing.T) {
	srv := ollamatest.Shared(t)
	for _, mode := range []string{"own", "relay"} {
		t.Run(mode, func(t *testing.T) {
			exerciseResponses(t, startDragoman(t, srv, mode), srv.ToolCall)
		})
	}
}
