package gateway

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

const weatherTools = `[{"type":"function","function":{"name":"get_weather","description":"Weather of a city",
	"parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]`

const weatherCall = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"

func post(t *testing.T, url, body string, header ...string) *http.Response {
	t.Helper()
	return request(t, "POST", url, "", body, header...)
}

// request sends method to url with body and the headers given, and with
// host as its Host when it is not empty.
func request(t *testing.T, method, url, host, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func decodeBody(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("response body: %v", err)
	}
	return v
}

// path walks a decoded JSON value: keys for objects, ints for arrays.
func path(v any, steps ...any) any {
	for _, s := range steps {
		switch k := s.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// sseData reads an SSE body into its data payloads (without "[DONE]", which
// is reported by done).
func sseData(t *testing.T, body io.Reader) (events []map[string]any, done bool) {
	t.Helper()
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			done = true
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("bad SSE data %q: %v", line, err)
		}
		events = append(events, ev)
	}
	return events, done
}

func chatBody(extra string) string {
	b := `{"model":"qwen","messages":[{"role":"user","content":"Weather in Paris?"}],"tools":` + weatherTools
	if extra != "" {
		b += "," + extra
	}
	return b + "}"
}

// --- own mode: render, generate, parse ---

func TestOpenAIOwnModeToolCall(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: weatherCall[:17]}, backend.Chunk{Text: weatherCall[17:]},
		backend.Chunk{FinishReason: chat.FinishStop, Usage: &chat.Usage{PromptTokens: 40, CompletionTokens: 20}})
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/v1/chat/completions", chatBody(""))
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	id := resp.Header.Get("X-Dragoman-Request-Id")
	v := decodeBody(t, resp)
	if path(v, "id") != id || !strings.HasPrefix(id, "chatcmpl-") {
		t.Errorf("id %v, header %q", path(v, "id"), id)
	}
	call := path(v, "choices", 0, "message", "tool_calls", 0)
	if path(call, "function", "name") != "get_weather" || path(call, "function", "arguments") != `{"city": "Paris"}` || path(call, "type") != "function" {
		t.Errorf("call = %v", call)
	}
	if s, _ := path(call, "id").(string); s == "" {
		t.Error("call has no id")
	}
	if path(v, "choices", 0, "finish_reason") != "tool_calls" || path(v, "choices", 0, "message", "content") != nil {
		t.Errorf("finish %v, content %v", path(v, "choices", 0, "finish_reason"), path(v, "choices", 0, "message", "content"))
	}
	if path(v, "usage", "total_tokens") != 60.0 {
		t.Errorf("usage = %v", path(v, "usage"))
	}
	if len(rt.completes) != 1 {
		t.Fatalf("runtime got %d completions", len(rt.completes))
	}
	prompt := rt.completes[0].Prompt
	for _, want := range []string{`"name": "get_weather"`, "<|im_start|>user\nWeather in Paris?<|im_end|>", "<|im_start|>assistant\n"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}

	// The trace holds the prompt, the raw completion and the decisions.
	tr := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+id))
	if tr["prompt"] != prompt || tr["completion"] != weatherCall || tr["mode"] != "own" || tr["format"] != "hermes" {
		t.Errorf("trace = %v", tr)
	}
}

func get(t *testing.T, url string) *http.Response {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestOpenAIOwnModeStream(t *testing.T) {
	out := "Let me check." + weatherCall
	var script []backend.Chunk
	for i := 0; i < len(out); i += 5 { // markers split across chunks
		script = append(script, backend.Chunk{Text: out[i:min(i+5, len(out))]})
	}
	script = append(script, backend.Chunk{FinishReason: chat.FinishStop, Usage: &chat.Usage{PromptTokens: 3, CompletionTokens: 4}})
	ts := newFakeGateway(t, Config{}, qwenRuntime(script...))
	resp := post(t, ts.URL+"/v1/chat/completions", chatBody(`"stream":true,"stream_options":{"include_usage":true}`))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events, done := sseData(t, resp.Body)
	if !done {
		t.Error("no [DONE]")
	}
	var content string
	var calls []any
	var finish any
	for _, ev := range events {
		if path(ev, "object") != "chat.completion.chunk" {
			t.Errorf("object %v", path(ev, "object"))
		}
		d := path(ev, "choices", 0, "delta")
		if s, ok := path(d, "content").(string); ok {
			content += s
		}
		if tc, ok := path(d, "tool_calls").([]any); ok {
			calls = append(calls, tc...)
		}
		if f := path(ev, "choices", 0, "finish_reason"); f != nil {
			finish = f
		}
	}
	if path(events[0], "choices", 0, "delta", "role") != "assistant" {
		t.Errorf("first chunk %v", events[0])
	}
	// The call streams: the first delta names it with empty arguments, the
	// next carry only the index and fragments of the arguments.
	args := ""
	for i, c := range calls {
		if path(c, "index") != 0.0 || (i == 0) != (path(c, "id") != nil) || (i == 0) != (path(c, "function", "name") == "get_weather") {
			t.Errorf("delta %d %v", i, c)
		}
		args += path(c, "function", "arguments").(string)
	}
	if content != "Let me check." || len(calls) < 3 || path(calls[0], "function", "arguments") != "" || args != `{"city": "Paris"}` {
		t.Errorf("content %q, arguments %q, calls %v", content, args, calls)
	}
	if finish != "tool_calls" {
		t.Errorf("finish %v", finish)
	}
	last := events[len(events)-1]
	if path(last, "usage", "completion_tokens") != 4.0 || len(path(last, "choices").([]any)) != 0 {
		t.Errorf("usage chunk %v", last)
	}
}

func TestOpenAIToolChoiceNoneLeavesToolsOut(t *testing.T) {
	// A model that writes call markup anyway: with no tool offered it stays text.
	rt := qwenRuntime(backend.Chunk{Text: weatherCall}, backend.Chunk{FinishReason: chat.FinishStop})
	ts := newFakeGateway(t, Config{}, rt)
	v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody(`"tool_choice":"none"`)))
	if path(v, "choices", 0, "message", "content") != weatherCall || path(v, "choices", 0, "message", "tool_calls") != nil {
		t.Errorf("tool_choice none: call markup parsed into a call: %v", v)
	}

	rt = qwenRuntime(backend.Chunk{Text: "It is sunny."}, backend.Chunk{FinishReason: chat.FinishStop})
	ts = newFakeGateway(t, Config{}, rt)
	v = decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody(`"tool_choice":"none"`)))
	if path(v, "choices", 0, "message", "content") != "It is sunny." || path(v, "choices", 0, "finish_reason") != "stop" {
		t.Errorf("answer %v", v)
	}
	if strings.Contains(rt.completes[0].Prompt, "get_weather") {
		t.Errorf("tool_choice none: the prompt still offers the tools:\n%s", rt.completes[0].Prompt)
	}
}

// A tool-result round trip: the earlier call's arguments reach the template
// as an object, and the result as a tool turn.
func TestOpenAIToolResultRoundTrip(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "It is 21 °C in Paris."}, backend.Chunk{FinishReason: chat.FinishStop})
	ts := newFakeGateway(t, Config{}, rt)
	body := `{"model":"qwen","tools":` + weatherTools + `,"messages":[
		{"role":"user","content":"Weather in Paris?"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"21 °C"}]}`
	v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", body))
	if path(v, "choices", 0, "message", "content") != "It is 21 °C in Paris." {
		t.Errorf("answer %v", v)
	}
	prompt := rt.completes[0].Prompt
	for _, want := range []string{`{"name": "get_weather", "arguments": {"city": "Paris"}}`, "<tool_response>\n21 °C\n</tool_response>"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
}

func TestOpenAIReasoning(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "<think>Paris is in France.</think>\n\nIt is sunny."}, backend.Chunk{FinishReason: chat.FinishStop})
	ts := newFakeGateway(t, Config{}, rt)
	v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody("")))
	if path(v, "choices", 0, "message", "reasoning_content") != "Paris is in France." || path(v, "choices", 0, "message", "content") != "It is sunny." {
		t.Errorf("message %v", path(v, "choices", 0, "message"))
	}
	// Turning thinking off reaches the template.
	decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody(`"chat_template_kwargs":{"enable_thinking":false}`)))
	if p := rt.completes[1].Prompt; !strings.HasSuffix(p, "<think>\n\n</think>\n\n") {
		t.Errorf("enable_thinking false: prompt ends %q", p[max(0, len(p)-40):])
	}
}

// --- relay mode: the runtime's chat API, repaired ---

func TestOpenAIRelayMode(t *testing.T) {
	rt := qwenRuntime(
		backend.Chunk{Reasoning: "thinking"},
		backend.Chunk{Text: "Checking. " + weatherCall}, // a call the runtime left in content
		backend.Chunk{Calls: []chat.ToolCall{{ID: "call_x", Function: chat.FunctionCall{Name: "get_weather", Arguments: `{"city":"Rome"}`}}}},
		backend.Chunk{FinishReason: chat.FinishStop})
	rt.canComplete = false
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/v1/chat/completions", chatBody(""))
	v := decodeBody(t, resp)
	msg := path(v, "choices", 0, "message")
	if path(msg, "reasoning_content") != "thinking" || path(msg, "content") != "Checking." { // the space before the call is its layout
		t.Errorf("message %v", msg)
	}
	calls, _ := path(msg, "tool_calls").([]any)
	if len(calls) != 2 || path(calls[0], "function", "arguments") != `{"city": "Paris"}` || path(calls[1], "id") != "call_x" {
		t.Errorf("calls %v", calls)
	}
	if path(v, "choices", 0, "finish_reason") != "tool_calls" || len(rt.chats) != 1 || len(rt.completes) != 0 {
		t.Errorf("finish %v, chats %d, completes %d", path(v, "choices", 0, "finish_reason"), len(rt.chats), len(rt.completes))
	}
}

// --- faults: the client gets a well-formed error and loses nothing ---

func TestOpenAIRequestErrors(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime())
	for _, c := range []struct {
		name, body string
		status     int
		param      any
	}{
		{"not JSON", `{"model":`, 400, nil},
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, 400, "model"},
		{"no messages", `{"model":"qwen","messages":[]}`, 400, "messages"},
		{"bad role", `{"model":"qwen","messages":[{"role":"robot","content":"hi"}]}`, 400, "messages"},
		{"bad tool_choice", chatBody(`"tool_choice":"sometimes"`), 400, "tool_choice"},
		{"unknown named tool", chatBody(`"tool_choice":{"type":"function","function":{"name":"nope"}}`), 400, "tool_choice"},
		{"unknown model", `{"model":"nope","messages":[{"role":"user","content":"hi"}]}`, 404, "model"},
		{"negative max_tokens", chatBody(`"max_tokens":-5`), 400, "max_tokens"},
		{"zero max_completion_tokens", chatBody(`"max_completion_tokens":0`), 400, "max_tokens"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := post(t, ts.URL+"/v1/chat/completions", c.body)
			v := decodeBody(t, resp)
			if resp.StatusCode != c.status || path(v, "error", "message") == nil || path(v, "error", "param") != c.param {
				t.Errorf("status %d, body %v", resp.StatusCode, v)
			}
		})
	}
}

func TestOpenAIUpstreamErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		err    error
		status int
	}{
		{"runtime refuses", &backend.Error{Kind: backend.Ollama, Status: 400, Message: "does not support tools"}, 400},
		{"runtime down", errors.New("connection refused"), 502},
		{"runtime busy", &backend.Error{Kind: backend.Embedded, Status: 503, Message: "context is held by 1 other running requests"}, 503},
		{"runtime fails", &backend.Error{Kind: backend.Embedded, Status: 500, Message: "llama_decode failed"}, 502},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt := qwenRuntime()
			rt.startErr = c.err
			ts := newFakeGateway(t, Config{}, rt)
			resp := post(t, ts.URL+"/v1/chat/completions", chatBody(""))
			v := decodeBody(t, resp)
			if resp.StatusCode != c.status || !strings.Contains(path(v, "error", "message").(string), c.err.Error()) {
				t.Errorf("status %d, body %v", resp.StatusCode, v)
			}
		})
	}
}

// A stream cut mid-answer: what the model wrote is delivered, then the error.
func TestOpenAIStreamCut(t *testing.T) {
	script := []backend.Chunk{{Text: "Partial answer <tool_call>\n{\"name\": \"get_we"}}
	cut := io.ErrUnexpectedEOF
	t.Run("not streamed", func(t *testing.T) {
		rt := qwenRuntime(script...)
		rt.err = cut
		ts := newFakeGateway(t, Config{}, rt)
		resp := post(t, ts.URL+"/v1/chat/completions", chatBody(""))
		v := decodeBody(t, resp)
		if resp.StatusCode != 502 || path(v, "partial", "message", "content") != script[0].Text {
			t.Errorf("status %d, body %v", resp.StatusCode, v)
		}
		if !strings.Contains(path(v, "error", "message").(string), "broke off") {
			t.Errorf("error %v", path(v, "error"))
		}
	})
	t.Run("streamed", func(t *testing.T) {
		rt := qwenRuntime(script...)
		rt.err = cut
		ts := newFakeGateway(t, Config{}, rt)
		events, _ := sseData(t, post(t, ts.URL+"/v1/chat/completions", chatBody(`"stream":true`)).Body)
		var content string
		for _, ev := range events {
			if s, ok := path(ev, "choices", 0, "delta", "content").(string); ok {
				content += s
			}
		}
		last := events[len(events)-1]
		if content != script[0].Text || path(last, "error", "message") == nil {
			t.Errorf("content %q, last event %v", content, last)
		}
	})
}

func TestClientKey(t *testing.T) {
	ts := newFakeGateway(t, Config{APIKey: "sekret"}, qwenRuntime(backend.Chunk{Text: "hi"}))
	if resp := post(t, ts.URL+"/v1/chat/completions", chatBody("")); resp.StatusCode != 401 {
		t.Errorf("no key: status %d", resp.StatusCode)
	}
	if resp := post(t, ts.URL+"/v1/chat/completions", chatBody(""), "Authorization", "Bearer sekret"); resp.StatusCode != 200 {
		t.Errorf("with key: status %d", resp.StatusCode)
	}
	if resp := get(t, ts.URL+"/healthz"); resp.StatusCode != 200 {
		t.Errorf("healthz needs no key: status %d", resp.StatusCode)
	}
}

func TestModelsList(t *testing.T) {
	ts := newFakeGateway(t, Config{Aliases: map[string]string{"fast": "qwen"}}, qwenRuntime())
	v := decodeBody(t, get(t, ts.URL+"/v1/models"))
	ids := map[any]bool{}
	for _, m := range path(v, "data").([]any) {
		ids[path(m, "id")] = true
	}
	if !ids["qwen"] || !ids["fast"] || path(v, "object") != "list" {
		t.Errorf("models %v", v)
	}
	resp := get(t, ts.URL+"/v1/models/qwen")
	if v := decodeBody(t, resp); resp.StatusCode != 200 || path(v, "id") != "qwen" || path(v, "object") != "model" {
		t.Errorf("GET /v1/models/qwen: %d %v", resp.StatusCode, v)
	}
	resp = get(t, ts.URL+"/v1/models/nosuch")
	if v := decodeBody(t, resp); resp.StatusCode != 404 || path(v, "error", "type") != "model_not_found" {
		t.Errorf("GET /v1/models/nosuch: %d %v", resp.StatusCode, v)
	}
}

// A path no route serves is a JSON error in the dialect its prefix implies.
func TestUnknownPathsAnswerJSON(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime())
	for _, c := range []struct{ path, want string }{
		{"/v1/nosuch", "error.type=not_found"},
		{"/v1/messages/nosuch", "type=error"},
		{"/api/nosuch", "error"},
		{"/", "error.type=not_found"},
	} {
		resp := get(t, ts.URL+c.path)
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 404 || ct != "application/json" {
			t.Errorf("%s: status %d, content type %q", c.path, resp.StatusCode, ct)
			continue
		}
		v := decodeBody(t, resp)
		key, want, _ := strings.Cut(c.want, "=")
		var got any = v
		for _, k := range strings.Split(key, ".") {
			got = path(got, k)
		}
		if want != "" && got != want || want == "" && got == nil {
			t.Errorf("%s: %v", c.path, v)
		}
	}
}

// tool_choice "required" and a named function, in own mode on a runtime that
// takes a JSON Schema: "required" ends the prompt with the call opener and
// constrains the output to the call's body; a named function ends it with
// the call opened up to the arguments and constrains them to the tool's
// parameters. Either way the output comes back as the call.
func TestOpenAIForcedCall(t *testing.T) {
	for _, tc := range []struct {
		choice, output, promptEnd, schemaHas string
	}{
		{`"required"`, `{"name": "get_weather", "arguments": {"city": "Oslo"}}`, "<|im_start|>assistant\n<tool_call>\n", `"const":"get_weather"`},
		{`{"type":"function","function":{"name":"get_weather"}}`, `{"city": "Oslo"}`, "<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ", `"required":["city"]`},
	} {
		rt := qwenRuntime(backend.Chunk{Text: tc.output[:5]}, backend.Chunk{Text: tc.output[5:]}, backend.Chunk{FinishReason: chat.FinishStop})
		ts := newFakeGateway(t, Config{}, rt)
		v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody(`"tool_choice":`+tc.choice)))
		call := path(v, "choices", 0, "message", "tool_calls", 0)
		if path(call, "function", "name") != "get_weather" || path(call, "function", "arguments") != `{"city": "Oslo"}` {
			t.Errorf("%s: answer %v", tc.choice, v)
		}
		c := rt.completes[0]
		if !strings.HasSuffix(c.Prompt, tc.promptEnd) || !strings.Contains(string(c.JSONSchema), tc.schemaHas) {
			t.Errorf("%s: prompt ends %q, schema %s", tc.choice, c.Prompt[max(0, len(c.Prompt)-60):], c.JSONSchema)
		}
	}
}

// Where a forced call cannot be enforced, the request is refused rather than
// sent unconstrained.
func TestOpenAIForcedCallUnsupported(t *testing.T) {
	generic := qwenRuntime(backend.Chunk{Text: "prose"})
	generic.kind = backend.OpenAI // a generic server: no output constraint for raw prompts
	relay := qwenRuntime(backend.Chunk{Text: "prose"})
	relay.url, relay.canComplete = "http://127.0.0.1:2", false // Ollama's chat API ignores tool_choice
	relay.models = map[string]backend.ModelInfo{"relayed": relay.models["qwen"]}
	ts := newFakeGateway(t, Config{}, generic, relay)
	for _, model := range []string{"qwen", "relayed"} {
		resp := post(t, ts.URL+"/v1/chat/completions", strings.Replace(chatBody(`"tool_choice":"required"`), `"qwen"`, `"`+model+`"`, 1))
		v := decodeBody(t, resp)
		if resp.StatusCode != 400 || path(v, "error", "param") != "tool_choice" {
			t.Errorf("%s: status %d, body %v", model, resp.StatusCode, v)
		}
	}
	if len(generic.completes)+len(relay.chats)+len(relay.completes) != 0 {
		t.Error("an unenforceable forced call reached a runtime")
	}
}

// A body over the limit is refused with 413, in each API's error shape.
func TestRequestTooLarge(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime())
	big := `{"model":"qwen","messages":[{"role":"user","content":"` + strings.Repeat("x", maxRequestBody) + `"}]}`
	resp := post(t, ts.URL+"/v1/chat/completions", big)
	if v := decodeBody(t, resp); resp.StatusCode != 413 || path(v, "error", "type") != "invalid_request_error" {
		t.Errorf("openai: status %d, %v", resp.StatusCode, v)
	}
	resp = post(t, ts.URL+"/v1/messages", big)
	if v := decodeBody(t, resp); resp.StatusCode != 413 || path(v, "error", "type") != "request_too_large" {
		t.Errorf("anthropic: status %d, %v", resp.StatusCode, v)
	}
}

// The trace pages: the request's page shows the prompt, the raw completion
// and the parsed call, escaped; the list links to it; an unknown id is a 404.
func TestTracePage(t *testing.T) {
	out := "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>"
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: out}, backend.Chunk{FinishReason: chat.FinishStop}))
	v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody("")))
	id, _ := v["id"].(string)
	resp := get(t, ts.URL+"/dragoman/requests/"+id)
	body, _ := io.ReadAll(resp.Body)
	page := string(body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("status %d, %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{`id="prompt"`, "&lt;|im_start|&gt;assistant", `id="completion"`, "&lt;tool_call&gt;",
		`<td class="name">get_weather</td>`, `id="decisions"`, "hermes"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<tool_call>") {
		t.Error("model output reached the page unescaped")
	}
	index := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests"))
	if path(index, "requests", 0, "id") != id || path(index, "requests", 0, "calls") != 1.0 || path(index, "requests", 0, "api") != "openai" {
		t.Errorf("trace index %v", index)
	}
	list, _ := io.ReadAll(get(t, ts.URL+"/dragoman/").Body)
	if !strings.Contains(string(list), `href="/dragoman/requests/`+id+`"`) {
		t.Errorf("the list does not link the request:\n%s", list)
	}
	if resp := get(t, ts.URL+"/dragoman/requests/nope"); resp.StatusCode != 404 {
		t.Errorf("unknown id: status %d", resp.StatusCode)
	}
}
