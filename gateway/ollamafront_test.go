package gateway

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// The Ollama-compatible front, on the wire, against scripted runtimes (the
// npm ollama client drives it end to end in e2e/npmclients_test.go).

// ndjson reads an NDJSON body into its objects.
func ndjson(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("bad NDJSON line %q: %v", sc.Text(), err)
		}
		out = append(out, v)
	}
	return out
}

func readAll(t *testing.T, url, body string) (int, string, string) {
	t.Helper()
	resp := post(t, url, body)
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b.String()
}

// A model behind any runtime, asked through /api/chat, has its call parsed
// and returned with the arguments as an object, streamed (Ollama's default)
// and not.
func TestOllamaFrontChat(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "<think>Paris.</think>\n\n" + weatherCall[:15]}, backend.Chunk{Text: weatherCall[15:]},
		backend.Chunk{FinishReason: chat.FinishStop, Usage: &chat.Usage{PromptTokens: 30, CompletionTokens: 12}})
	rt.kind = backend.LlamaServer // no Ollama behind: the front is Dragoman's own
	ts := newFakeGateway(t, Config{}, rt)
	req := `{"model":"qwen","think":true,"tools":` + weatherTools + `,"messages":[{"role":"user","content":"Weather in Paris?"}]`
	for _, stream := range []string{"", `,"stream":false`} {
		status, ctype, body := readAll(t, ts.URL+"/api/chat", req+stream+"}")
		lines := ndjson(t, body)
		if status != 200 || len(lines) == 0 {
			t.Fatalf("stream %q: %d %s", stream, status, body)
		}
		if (stream == "") != (ctype == "application/x-ndjson") || (stream == "") != (len(lines) > 1) {
			t.Errorf("stream %q: content type %q, %d lines", stream, ctype, len(lines))
		}
		var content, thinking string
		var calls []any
		for _, l := range lines {
			content += str(path(l, "message", "content"))
			thinking += str(path(l, "message", "thinking"))
			if c, ok := path(l, "message", "tool_calls").([]any); ok {
				calls = append(calls, c...)
			}
		}
		if len(calls) != 1 || path(calls[0], "function", "name") != "get_weather" || path(calls[0], "function", "arguments", "city") != "Paris" {
			t.Errorf("stream %q: calls %v", stream, calls)
		}
		if thinking != "Paris." || strings.Contains(content, "<tool_call>") {
			t.Errorf("stream %q: thinking %q, content %q", stream, thinking, content)
		}
		last := lines[len(lines)-1]
		if last["done"] != true || last["done_reason"] != "stop" || last["prompt_eval_count"] != 30.0 || last["eval_count"] != 12.0 {
			t.Errorf("stream %q: last %v", stream, last)
		}
	}
}

// The call and its result go back: the arguments as an object, the result
// matched to the call by the tool's name (Ollama sends no call id).
func TestOllamaFrontToolResult(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "18C."}, backend.Chunk{FinishReason: chat.FinishStop})
	ts := newFakeGateway(t, Config{}, rt)
	_, _, body := readAll(t, ts.URL+"/api/chat", `{"model":"qwen","stream":false,"tools":`+weatherTools+`,"messages":[
		{"role":"user","content":"Weather in Paris?"},
		{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},
		{"role":"tool","tool_name":"get_weather","content":"18C"}]}`)
	if got := path(ndjson(t, body)[0], "message", "content"); got != "18C." {
		t.Errorf("answer %v", got)
	}
	prompt := rt.completes[0].Prompt
	for _, want := range []string{`{"name": "get_weather", "arguments": {"city": "Paris"}}`, "<tool_response>\n18C\n</tool_response>"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
}

// /api/generate renders the prompt (and system) with the model's template;
// format and options reach the runtime; the limit says "length".
func TestOllamaFrontGenerate(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: `{"city":`}, backend.Chunk{Text: `"Paris"}`}, backend.Chunk{FinishReason: chat.FinishLength})
	ts := newFakeGateway(t, Config{}, rt)
	_, _, body := readAll(t, ts.URL+"/api/generate", `{"model":"qwen","prompt":"Where?","system":"Answer in JSON.",
		"format":{"type":"object","properties":{"city":{"type":"string"}}},"options":{"num_predict":7,"temperature":0.5,"num_ctx":8192}}`)
	lines := ndjson(t, body)
	var text string
	for _, l := range lines {
		text += str(l["response"])
	}
	if text != `{"city":"Paris"}` || lines[len(lines)-1]["done_reason"] != "length" {
		t.Errorf("response %q, last %v", text, lines[len(lines)-1])
	}
	c := rt.completes[0]
	if !strings.Contains(c.Prompt, "<|im_start|>system\nAnswer in JSON.<|im_end|>\n<|im_start|>user\nWhere?") || c.MaxTokens != 7 ||
		c.Temperature == nil || *c.Temperature != 0.5 || !strings.Contains(string(c.JSONSchema), "city") {
		t.Errorf("completion request %+v", c)
	}
	status, _, body := readAll(t, ts.URL+"/api/generate", `{"model":"qwen","prompt":"x","raw":true}`)
	if status != 400 || !strings.Contains(body, `"error"`) {
		t.Errorf("raw: %d %s", status, body)
	}
}

// The listing endpoints answer in Ollama's shapes; a model that cannot be
// pulled says why; errors are Ollama's {"error": …}.
func TestOllamaFrontModels(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime())
	tags := decodeBody(t, get(t, ts.URL+"/api/tags"))
	if path(tags, "models", 0, "name") != "qwen" || path(tags, "models", 0, "model") != "qwen" {
		t.Errorf("tags %v", tags)
	}
	ps := decodeBody(t, get(t, ts.URL+"/api/ps"))
	if path(ps, "models", 0, "name") != "qwen" || path(ps, "models", 0, "expires_at") == nil {
		t.Errorf("ps %v", ps)
	}
	show := decodeBody(t, post(t, ts.URL+"/api/show", `{"model":"qwen"}`))
	if !strings.Contains(str(show["template"]), "<tool_call>") || !strings.Contains(toJSON(t, show["capabilities"]), `"tools"`) {
		t.Errorf("show %v", show)
	}
	if v := decodeBody(t, get(t, ts.URL+"/api/version")); v["version"] != ollamaAPIVersion {
		t.Errorf("version %v", v)
	}
	if v := decodeBody(t, post(t, ts.URL+"/api/pull", `{"model":"qwen"}`)); v["status"] != "success" {
		t.Errorf("pull of a served model: %v", v)
	}
	resp := post(t, ts.URL+"/api/pull", `{"model":"llama9"}`)
	if v := decodeBody(t, resp); resp.StatusCode != 404 || !strings.Contains(str(v["error"]), "does not download models") {
		t.Errorf("pull of an unknown model: %d %v", resp.StatusCode, v)
	}
	status, _, body := readAll(t, ts.URL+"/api/chat", `{"model":"nosuch","messages":[{"role":"user","content":"Hi"}]}`)
	if status != 404 || !strings.Contains(body, `"error":"model \"nosuch\" not found`) {
		t.Errorf("unknown model: %d %s", status, body)
	}
}

func str(v any) string { s, _ := v.(string); return s }
