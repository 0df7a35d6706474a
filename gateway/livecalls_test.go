package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// A call streams while the model writes it (format's live calls): these
// scripts write a Hermes call a few bytes at a time.

// inPieces cuts text into chunks of n bytes, then the finish.
func inPieces(text string, n int, finish chat.FinishReason) []backend.Chunk {
	var out []backend.Chunk
	for i := 0; i < len(text); i += n {
		out = append(out, backend.Chunk{Text: text[i:min(i+n, len(text))]})
	}
	return append(out, backend.Chunk{FinishReason: finish, Usage: &chat.Usage{PromptTokens: 3, CompletionTokens: 9}})
}

func TestAnthropicStreamsCallArguments(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(inPieces("Checking."+parisCall, 4, chat.FinishStop)...))
	_, data := postMessages(t, ts, `{"model": "qwen", "max_tokens": 100, "stream": true, "tools": [`+weatherTool+`], "messages": [{"role": "user", "content": "Weather?"}]}`)
	evs := readSSE(t, data)
	fragments := 0
	for _, e := range evs {
		if e.name == "content_block_delta" && e.data["index"] == float64(1) {
			if path(e.data, "delta", "type") != "input_json_delta" {
				t.Errorf("delta %v", e.data)
			}
			fragments++
		}
	}
	if fragments < 3 {
		t.Errorf("%d input_json_delta events, want the arguments in fragments", fragments)
	}
	if got := deltaText(evs, 1, "partial_json"); got != `{"city": "Paris"}` {
		t.Errorf("partial_json adds up to %q", got)
	}
	if s := shape(evs); s[len(s)-2] != "message_delta tool_use" || s[5] != "content_block_start 1 tool_use" {
		t.Errorf("events %v", s)
	}
}

func TestResponsesStreamsCallArguments(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(inPieces(weatherCall, 4, chat.FinishStop)...))
	client := responsesClient(ts.URL)
	stream := client.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
		Model: "qwen", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Paris?")},
		Tools: []responses.ToolUnionParam{weatherFunction},
	})
	var args, done string
	deltas := 0
	var final responses.Response
	for stream.Next() {
		switch ev := stream.Current(); ev.Type {
		case "response.output_item.added":
			if item := ev.AsResponseOutputItemAdded().Item; item.Type != "function_call" || item.Name != "get_weather" || item.Arguments.OfString != "" {
				t.Errorf("added %+v", item)
			}
		case "response.function_call_arguments.delta":
			args += ev.Delta
			deltas++
		case "response.function_call_arguments.done":
			done = ev.Arguments
		case "response.completed":
			final = ev.AsResponseCompleted().Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if deltas < 3 || args != `{"city": "Paris"}` || done != args {
		t.Errorf("%d deltas adding up to %q, done %q", deltas, args, done)
	}
	if len(final.Output) != 1 || final.Output[0].Arguments.OfString != args || final.Output[0].Status != "completed" {
		t.Errorf("final output %+v", final.Output)
	}
}

// A call cut before its arguments end is withdrawn: shown as far as it got,
// then its text as content, no tool_calls finish, and a diagnostic.
func TestOpenAIStreamWithdrawsCutCall(t *testing.T) {
	cut := weatherCall[:strings.Index(weatherCall, "Paris")+2]
	ts := newFakeGateway(t, Config{}, qwenRuntime(inPieces(cut, 4, chat.FinishStop)...))
	events, _ := sseData(t, post(t, ts.URL+"/v1/chat/completions", chatBody(`"stream":true`)).Body)
	var content, args string
	var finish any
	var diags []any
	for _, ev := range events {
		d := path(ev, "choices", 0, "delta")
		if s, ok := path(d, "content").(string); ok {
			content += s
		}
		if tc, ok := path(d, "tool_calls").([]any); ok {
			for _, c := range tc {
				args += path(c, "function", "arguments").(string)
			}
		}
		if f := path(ev, "choices", 0, "finish_reason"); f != nil {
			finish = f
		}
		if ds, ok := path(ev, "dragoman", "diagnostics").([]any); ok {
			diags = append(diags, ds...)
		}
	}
	if content != cut || !strings.HasPrefix(args, `{"city": "Pa`) || finish != "stop" {
		t.Errorf("content %q, arguments shown %q, finish %v", content, args, finish)
	}
	codes, _ := json.Marshal(diags)
	if !strings.Contains(string(codes), `"withdrawn-call"`) || !strings.Contains(string(codes), `"malformed-call"`) {
		t.Errorf("diagnostics %s", codes)
	}
}

// With content capture on (OTel), the answer is wrapped, and calls still
// stream; the span's call event has the whole arguments.
func TestLiveCallsThroughCapturedAnswer(t *testing.T) {
	url, spans := otelGateway(t, Config{OTel: OTel{CaptureContent: true}}, qwenRuntime(inPieces(weatherCall, 4, chat.FinishStop)...))
	chunks, _ := sseData(t, post(t, url+"/v1/chat/completions", chatBody(`"stream":true`)).Body)
	deltas := 0
	for _, ev := range chunks {
		if tc, ok := path(ev, "choices", 0, "delta", "tool_calls").([]any); ok {
			deltas += len(tc)
		}
	}
	if deltas < 3 {
		t.Errorf("%d tool_calls deltas, want the call streamed", deltas)
	}
	root := spanNamed(t, spans(), "chat qwen")
	if c := events(root, "dragoman.call"); len(c) != 1 || c[0]["gen_ai.tool.call.arguments"] != `{"city": "Paris"}` {
		t.Errorf("call events %v", c)
	}
}

// A Qwen3-Coder call (tagged values, typed by the tool's schema) streams
// through Chat Completions: announced at its name, the string parameter's
// text in fragments before its close tag, the integer sent whole, the
// fragments adding up to the arguments the whole parse gives.
func TestLiveTaggedCallThroughChatCompletions(t *testing.T) {
	tpl, err := os.ReadFile(filepath.Join(fixtures.Require(t), "corpus", "templates", "Qwen3-Coder.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("line of the file\n", 40) + "end"
	out := "<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.txt\n</parameter>\n<parameter=text>\n" + text +
		"\n</parameter>\n<parameter=mode>\n420\n</parameter>\n</function>\n</tool_call>"
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"coder": {Template: string(tpl), TemplateOrigin: "fake runtime", EOSToken: "<|im_end|>"}},
		script: inPieces(out, 6, chat.FinishStop)}
	ts := newFakeGateway(t, Config{}, rt)
	body := `{"model": "coder", "stream": true, "messages": [{"role": "user", "content": "Write notes."}], "tools": [{"type": "function", "function": {"name": "write_file",
		"parameters": {"type": "object", "properties": {"path": {"type": "string"}, "text": {"type": "string"}, "mode": {"type": "integer"}}}}}]}`
	events, _ := sseData(t, post(t, ts.URL+"/v1/chat/completions", body).Body)
	var args, name, finish string
	deltas, textFragments := 0, 0
	for _, ev := range events {
		if f, ok := path(ev, "choices", 0, "finish_reason").(string); ok {
			finish = f
		}
		calls, _ := path(ev, "choices", 0, "delta", "tool_calls").([]any)
		for _, c := range calls {
			if n, ok := path(c, "function", "name").(string); ok && n != "" {
				name = n
			}
			if a, ok := path(c, "function", "arguments").(string); ok && a != "" {
				args += a
				deltas++
				if strings.Contains(args, `"text": "`) && !strings.Contains(args, `"mode"`) {
					textFragments++ // the text, before its close tag
				}
			}
		}
	}
	want, _ := json.Marshal(text)
	if wantArgs := `{"path": "notes.txt", "text": ` + string(want) + `, "mode": 420}`; name != "write_file" || args != wantArgs {
		t.Errorf("call %q streamed %q, want %q", name, args, wantArgs)
	}
	if textFragments < 20 || finish != "tool_calls" {
		t.Errorf("%d deltas, %d of them the text as it came, finish %q", deltas, textFragments, finish)
	}
}

// A MiniMax M2 call (corpus template) streams to an Anthropic client as
// input_json_delta fragments that add up to the typed arguments.
func TestLiveTaggedCallThroughAnthropic(t *testing.T) {
	tpl, err := os.ReadFile(filepath.Join(fixtures.Require(t), "corpus", "templates", "MiniMax-M2.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("a line \"quoted\"\n", 30)
	out := "<think>\nWriting it.\n</think>\n\n<minimax:tool_call>\n<invoke name=\"write_file\">\n<parameter name=\"mode\">420</parameter>\n<parameter name=\"text\">" +
		text + "</parameter>\n</invoke>\n</minimax:tool_call>"
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"m2": {Template: string(tpl), TemplateOrigin: "fake runtime", EOSToken: "[e~["}},
		script: inPieces(out, 5, chat.FinishStop)}
	ts := newFakeGateway(t, Config{}, rt)
	_, data := postMessages(t, ts, `{"model": "m2", "max_tokens": 100, "stream": true, "messages": [{"role": "user", "content": "Write."}],
		"tools": [{"name": "write_file", "input_schema": {"type": "object", "properties": {"text": {"type": "string"}, "mode": {"type": "integer"}}}}]}`)
	evs := readSSE(t, data)
	index, fragments := -1.0, 0
	for _, e := range evs {
		if e.name == "content_block_start" && path(e.data, "content_block", "type") == "tool_use" {
			index = e.data["index"].(float64)
		}
		if e.name == "content_block_delta" && e.data["index"] == index && path(e.data, "delta", "type") == "input_json_delta" {
			fragments++
		}
	}
	want, _ := json.Marshal(text)
	if got := deltaText(evs, int(index), "partial_json"); got != `{"mode": 420, "text": `+string(want)+`}` {
		t.Errorf("partial_json adds up to %q", got)
	}
	if fragments < 20 {
		t.Errorf("%d input_json_delta events, want the text as it came", fragments)
	}
	if s := shape(evs); s[len(s)-2] != "message_delta tool_use" {
		t.Errorf("events %v", s)
	}
}

// A GLM-4.7 call (corpus template) streams to the OpenAI SDK's Responses
// client: function_call_arguments.delta events before the value's close tag,
// done and the final item with the same typed arguments.
func TestLiveTaggedCallThroughResponses(t *testing.T) {
	tpl, err := os.ReadFile(filepath.Join(fixtures.Require(t), "corpus", "templates", "GLM-4.7-Flash.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	city := strings.Repeat("Saint-Rémy-de-Provence ", 12)
	out := "<tool_call>get_weather<arg_key>city</arg_key><arg_value>" + city + "</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></tool_call>"
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"glm": {Template: string(tpl), TemplateOrigin: "fake runtime", EOSToken: "<|user|>"}},
		script: inPieces(out, 5, chat.FinishStop)}
	ts := newFakeGateway(t, Config{}, rt)
	tool := responses.ToolParamOfFunction("get_weather", map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}, "days": map[string]any{"type": "integer"}},
	}, false)
	client := responsesClient(ts.URL)
	stream := client.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
		Model: "glm", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather?")},
		Tools: []responses.ToolUnionParam{tool},
	})
	var args, done string
	deltas := 0
	var final responses.Response
	for stream.Next() {
		switch ev := stream.Current(); ev.Type {
		case "response.function_call_arguments.delta":
			args += ev.Delta
			deltas++
		case "response.function_call_arguments.done":
			done = ev.Arguments
		case "response.completed":
			final = ev.AsResponseCompleted().Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(city)
	if wantArgs := `{"city": ` + string(want) + `, "days": 3}`; args != wantArgs || done != args {
		t.Errorf("deltas add up to %q, done %q, want %q", args, done, wantArgs)
	}
	if deltas < 20 {
		t.Errorf("%d deltas, want the city as it came", deltas)
	}
	if len(final.Output) != 1 || final.Output[0].Arguments.OfString != args || final.Output[0].Status != "completed" {
		t.Errorf("final output %+v", final.Output)
	}
}
