package gateway

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// The Responses API is tested with the official Go SDK (openai-go) as the
// client, against scripted runtimes.

func responsesClient(url string) openai.Client {
	return openai.NewClient(option.WithBaseURL(url+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
}

var weatherFunction = responses.ToolParamOfFunction("get_weather", map[string]any{
	"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"},
}, false)

func TestResponsesToolCallRoundTrip(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: weatherCall}, backend.Chunk{FinishReason: chat.FinishStop, Usage: &chat.Usage{PromptTokens: 40, CompletionTokens: 20}})
	ts := newFakeGateway(t, Config{}, rt)
	client := responsesClient(ts.URL)
	ctx := context.Background()
	resp, err := client.Responses.New(ctx, responses.ResponseNewParams{
		Model:        "qwen",
		Instructions: openai.String("You forecast."),
		Input:        responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Paris?")},
		Tools:        []responses.ToolUnionParam{weatherFunction},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != "completed" || !strings.HasPrefix(resp.ID, "resp_") || len(resp.Output) != 1 {
		t.Fatalf("response %s", resp.RawJSON())
	}
	call := resp.Output[0].AsFunctionCall()
	if resp.Output[0].Type != "function_call" || call.Name != "get_weather" || call.Arguments != `{"city": "Paris"}` || call.CallID == "" {
		t.Errorf("output %s", resp.Output[0].RawJSON())
	}
	if resp.Usage.InputTokens != 40 || resp.Usage.OutputTokens != 20 || resp.Usage.TotalTokens != 60 {
		t.Errorf("usage %s", resp.Usage.RawJSON())
	}
	if p := rt.completes[0].Prompt; !strings.HasPrefix(p, "<|im_start|>system\n# Tools") && !strings.Contains(p, "You forecast.") {
		t.Errorf("prompt lacks the instructions:\n%s", p)
	}

	// The client runs the tool and sends the call and its output back,
	// statelessly (the whole conversation in input).
	rt.script = []backend.Chunk{{Text: "It is 18C in Paris."}, {FinishReason: chat.FinishStop}}
	out := responses.ResponseInputItemParamOfFunctionCallOutput("18C")
	out.OfFunctionCallOutput.CallID = param.NewOpt(call.CallID)
	resp, err = client.Responses.New(ctx, responses.ResponseNewParams{
		Model: "qwen", Store: openai.Bool(false),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfMessage("Weather in Paris?", responses.EasyInputMessageRoleUser),
			responses.ResponseInputItemParamOfFunctionCall(call.Arguments, call.CallID, call.Name),
			out,
		}},
		Tools: []responses.ToolUnionParam{weatherFunction},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.OutputText() != "It is 18C in Paris." || resp.Output[0].Type != "message" {
		t.Errorf("answer %s", resp.RawJSON())
	}
	prompt := rt.completes[1].Prompt
	for _, want := range []string{`{"name": "get_weather", "arguments": {"city": "Paris"}}`, "<tool_response>\n18C\n</tool_response>"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	// store false: not kept.
	if _, err := client.Responses.Get(ctx, resp.ID, responses.ResponseGetParams{}); err == nil {
		t.Error("a store:false response can be read back")
	}
}

// A streamed answer is the documented event sequence: created, in
// progress, each item added, its deltas, done, and completed, with
// sequence numbers counting up.
func TestResponsesStream(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "<think>Paris"}, backend.Chunk{Text: " is in France.</think>\n\nLet me check.\n" + weatherCall[:20]},
		backend.Chunk{Text: weatherCall[20:]}, backend.Chunk{FinishReason: chat.FinishStop, Usage: &chat.Usage{PromptTokens: 30, CompletionTokens: 25}})
	ts := newFakeGateway(t, Config{}, rt)
	client := responsesClient(ts.URL)
	stream := client.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
		Model: "qwen", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Paris?")},
		Tools: []responses.ToolUnionParam{weatherFunction},
	})
	var types []string
	var text, reasoning, args string
	var done []responses.ResponseOutputItemUnion
	var final responses.Response
	seq := int64(-1)
	for stream.Next() {
		ev := stream.Current()
		if ev.SequenceNumber != seq+1 {
			t.Errorf("%s: sequence_number %d after %d", ev.Type, ev.SequenceNumber, seq)
		}
		seq = ev.SequenceNumber
		types = append(types, ev.Type)
		switch ev.Type {
		case "response.output_text.delta":
			text += ev.Delta
		case "response.reasoning_text.delta":
			reasoning += ev.Delta
		case "response.function_call_arguments.delta":
			args += ev.Delta
		case "response.output_item.done":
			done = append(done, ev.AsResponseOutputItemDone().Item)
		case "response.completed":
			final = ev.AsResponseCompleted().Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"response.created", "response.in_progress",
		"response.output_item.added", "response.content_part.added", "response.reasoning_text.delta", "response.reasoning_text.delta",
		"response.reasoning_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done",
		"response.completed"}
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(types, "\n"), strings.Join(want, "\n"))
	}
	if reasoning != "Paris is in France." || strings.TrimSpace(text) != "Let me check." || args != `{"city": "Paris"}` {
		t.Errorf("reasoning %q, text %q, arguments %q", reasoning, text, args)
	}
	if len(done) != 3 || done[2].AsFunctionCall().Name != "get_weather" || done[1].AsMessage().Content[0].Text != text {
		t.Errorf("items done: %v", done)
	}
	if final.Status != "completed" || len(final.Output) != 3 || final.Usage.InputTokens != 30 {
		t.Errorf("final response %s", final.RawJSON())
	}
}

// previous_response_id continues a stored conversation; GET reads a stored
// response back and DELETE forgets it.
func TestResponsesChainedAndStored(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "Hello, Ada."}, backend.Chunk{FinishReason: chat.FinishStop})
	ts := newFakeGateway(t, Config{}, rt)
	client := responsesClient(ts.URL)
	ctx := context.Background()
	first, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "qwen",
		Instructions: openai.String("Be kind."),
		Input:        responses.ResponseNewParamsInputUnion{OfString: openai.String("I am Ada.")}})
	if err != nil {
		t.Fatal(err)
	}
	rt.script = []backend.Chunk{{Text: "You are Ada."}, {FinishReason: chat.FinishStop}}
	second, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "qwen",
		PreviousResponseID: openai.String(first.ID),
		Input:              responses.ResponseNewParamsInputUnion{OfString: openai.String("Who am I?")}})
	if err != nil {
		t.Fatal(err)
	}
	p := rt.completes[1].Prompt
	if !strings.Contains(p, "<|im_start|>user\nI am Ada.<|im_end|>\n<|im_start|>assistant\nHello, Ada.<|im_end|>\n<|im_start|>user\nWho am I?") {
		t.Errorf("the chained prompt lacks the earlier turn:\n%s", p)
	}
	if strings.Contains(p, "Be kind.") {
		t.Errorf("instructions are not inherited by a chained turn:\n%s", p)
	}
	if second.PreviousResponseID != first.ID {
		t.Errorf("previous_response_id %q", second.PreviousResponseID)
	}
	got, err := client.Responses.Get(ctx, first.ID, responses.ResponseGetParams{})
	if err != nil || got.OutputText() != "Hello, Ada." {
		t.Fatalf("GET: %v %v", got, err)
	}
	if err := client.Responses.Delete(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Responses.Get(ctx, first.ID, responses.ResponseGetParams{}); err == nil {
		t.Error("a deleted response can be read back")
	}
	_, err = client.Responses.New(ctx, responses.ResponseNewParams{Model: "qwen", PreviousResponseID: openai.String(first.ID),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Again?")}})
	var apiErr *openai.Error
	if !asAPIError(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || apiErr.Param != "previous_response_id" {
		t.Errorf("unknown previous_response_id: %v", err)
	}
}

// A stateless client keeps reasoning across turns through
// reasoning.encrypted_content: sent back, it reaches the template's history.
func TestResponsesEncryptedReasoningRoundTrip(t *testing.T) {
	// qwenTemplate, with earlier turns' reasoning written back.
	tpl := strings.Replace(qwenTemplate, "{% else %}<|im_start|>{{ message.role }}\n{{ message.content }}",
		"{% else %}<|im_start|>{{ message.role }}\n{% if message.reasoning_content %}[think:{{ message.reasoning_content }}]{% endif %}{{ message.content }}", 1)
	if tpl == qwenTemplate {
		t.Fatal("the template was not changed")
	}
	rt := templateRuntime(tpl)
	rt.script = []backend.Chunk{{Text: "<think>Hmm.</think>Fine."}, {FinishReason: chat.FinishStop}}
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/v1/responses", `{"model":"m","store":false,"include":["reasoning.encrypted_content"],"input":"How are you?"}`)
	v := decodeBody(t, resp)
	item := path(v, "output", 0)
	enc, _ := path(item, "encrypted_content").(string)
	if path(item, "type") != "reasoning" || enc == "" {
		t.Fatalf("no reasoning item with encrypted_content: %v", v)
	}
	body := `{"model":"m","store":false,"input":[{"role":"user","content":"How are you?"},
		{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"` + enc + `"},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Fine."}]},
		{"role":"user","content":"Sure?"}]}`
	post(t, ts.URL+"/v1/responses", body).Body.Close()
	if p := rt.completes[1].Prompt; !strings.Contains(p, "<|im_start|>assistant\n[think:Hmm.]Fine.<|im_end|>") {
		t.Errorf("reasoning not restored:\n%s", p)
	}
}

// Tool types Dragoman cannot run are left out with a decision, never a 400;
// developer messages and input_text parts reach the prompt; text.format is
// the same constraint as response_format; the token limit makes the answer
// incomplete.
func TestResponsesClientShapes(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: `{"city":"Paris"}`}, backend.Chunk{FinishReason: chat.FinishLength})
	ts := newFakeGateway(t, Config{}, rt)
	body := `{"model":"qwen","max_output_tokens":5,
		"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"Answer in JSON."}]},
		         {"type":"message","role":"user","content":[{"type":"input_text","text":"Where?"},{"type":"input_text","text":"A city."}]}],
		"tools":[{"type":"web_search"},{"type":"custom","name":"apply_patch"}],
		"text":{"format":{"type":"json_schema","name":"place","schema":{"type":"object","properties":{"city":{"type":"string"}}},"strict":true}}}`
	resp := post(t, ts.URL+"/v1/responses", body)
	v := decodeBody(t, resp)
	if resp.StatusCode != 200 || path(v, "status") != "incomplete" || path(v, "incomplete_details", "reason") != "max_output_tokens" {
		t.Fatalf("status %d: %v", resp.StatusCode, v)
	}
	c := rt.completes[0]
	if !strings.Contains(c.Prompt, "<|im_start|>system\nAnswer in JSON.") || !strings.Contains(c.Prompt, "Where?\nA city.") {
		t.Errorf("prompt:\n%s", c.Prompt)
	}
	if !strings.Contains(string(c.JSONSchema), `"city"`) || c.MaxTokens != 5 {
		t.Errorf("constraint %s, max tokens %d", c.JSONSchema, c.MaxTokens)
	}
	rec := traceOf(t, ts, ts.URL, resp.Header.Get("X-Dragoman-Request-Id"))
	if !decided(rec, `tools[0] is a "web_search" tool`) || !decided(rec, `tools[1] is a "custom" tool`) {
		t.Errorf("decisions %v", rec.Decisions)
	}
	if rec.API != "responses" {
		t.Errorf("api %q", rec.API)
	}
}

func TestResponsesRequestErrors(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime())
	for _, c := range []struct{ body, param string }{
		{`{"input":"hi"}`, "model"},
		{`{"model":"qwen"}`, "input"},
		{`{"model":"qwen","input":[{"type":"message","role":"robot","content":"x"}]}`, "input"},
		{`{"model":"qwen","input":"x","tool_choice":{"type":"function","name":"nosuch"}}`, "tool_choice"},
		{`{"model":"qwen","input":"x","text":{"format":{"type":"yaml"}}}`, "text.format"},
		{`{"model":"qwen","input":"x","max_output_tokens":0}`, "max_output_tokens"},
	} {
		resp := post(t, ts.URL+"/v1/responses", c.body)
		v := decodeBody(t, resp)
		if resp.StatusCode != 400 || path(v, "error", "param") != c.param {
			t.Errorf("%s: status %d, %v", c.body, resp.StatusCode, v)
		}
	}
}

// asAPIError is errors.As for the SDK's error type.
func asAPIError(err error, target **openai.Error) bool {
	e, ok := err.(*openai.Error)
	if ok {
		*target = e
	}
	return ok
}
