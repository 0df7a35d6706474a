package gateway

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// In own mode with the model's tokenizer at hand, the trace holds the
// prompt's make-up and the response says the prompt's tokens in a header;
// when the tools dominate the prompt, the trace says so.
func TestPromptMakeupInTrace(t *testing.T) {
	gguf := tinyModel(t)
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"tiny": {GGUFPath: gguf, ContextLength: 40960}},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop}}}
	ts := newFakeGateway(t, Config{}, rt)

	tool := func(name string, props int) string {
		var ps []string
		for i := range props {
			ps = append(ps, fmt.Sprintf(`"arg%d": {"type": "string", "description": "Argument %d of %s: a path relative to the repository root."}`, i, i, name))
		}
		return fmt.Sprintf(`{"type": "function", "function": {"name": %q, "description": "Does %s.", "parameters": {"type": "object", "properties": {%s}}}}`,
			name, name, strings.Join(ps, ","))
	}
	long := strings.Repeat("Follow the repository's conventions and run the tests before answering. ", 12)
	body := `{"model":"tiny","messages":[{"role":"system","content":"` + long + `"},{"role":"user","content":"hi"}],"tools":[` + tool("read_file", 1) + `]}`
	for _, api := range []string{"/v1/chat/completions", "/v1/messages"} {
		b := body
		if api == "/v1/messages" {
			b = `{"model":"tiny","max_tokens":50,"system":"` + long + `","messages":[{"role":"user","content":"hi"}],` +
				`"tools":[{"name":"read_file","description":"Does read_file.","input_schema":{"type":"object","properties":{"arg0":{"type":"string"}}}}]}`
		}
		resp := post(t, ts.URL+api, b)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d: %v", api, resp.StatusCode, decodeBody(t, resp))
		}
		tr := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+resp.Header.Get("X-Dragoman-Request-Id")))
		tokens, _ := tr["prompt_tokens"].(float64)
		if h := resp.Header.Get("X-Dragoman-Prompt-Tokens"); h != strconv.Itoa(int(tokens)) || tokens < 100 {
			t.Errorf("%s: X-Dragoman-Prompt-Tokens %q; the trace counted %v", api, h, tokens)
		}
		mk, _ := tr["makeup"].(map[string]any)
		if mk == nil || mk["total"] != tokens {
			t.Fatalf("%s: makeup %v (prompt_tokens %v)", api, mk, tokens)
		}
		names := map[string]float64{}
		sum := 0.0
		for _, p := range mk["parts"].([]any) {
			p := p.(map[string]any)
			names[p["name"].(string)] = p["tokens"].(float64)
			sum += p["tokens"].(float64)
		}
		if names["read_file"] < 20 || names["system"] < 100 || names["message 1 (user)"] < 1 || sum != tokens {
			t.Errorf("%s: parts %v", api, names)
		}
		for _, d := range tr["decisions"].([]any) {
			if strings.HasPrefix(d.(string), "tools are ") {
				t.Errorf("%s: one small tool beside a long system prompt: %q", api, d)
			}
		}
	}

	var tools []string
	for i := range 30 {
		tools = append(tools, tool(fmt.Sprintf("tool_%02d", i), 3+i%4))
	}
	resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"tools":[`+strings.Join(tools, ",")+`]}`)
	tr := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+resp.Header.Get("X-Dragoman-Request-Id")))
	found := false
	for _, d := range tr["decisions"].([]any) {
		if s := d.(string); strings.HasPrefix(s, "tools are ") && strings.Contains(s, "30 tools; the largest: tool_") {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning among the decisions %v", tr["decisions"])
	}
	if mk, _ := tr["makeup"].(map[string]any); mk == nil || mk["tool_count"] != 30.0 {
		t.Errorf("makeup %v", tr["makeup"])
	}

	// Relay mode: nothing counted, no header.
	rt.canComplete = false
	resp = post(t, ts.URL+"/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hi"}]}`)
	if h := resp.Header.Get("X-Dragoman-Prompt-Tokens"); h != "" {
		t.Errorf("relay mode: X-Dragoman-Prompt-Tokens %q", h)
	}
}

// The prefill estimate: once the runtime has reported its prompt rate for
// the model (500 tokens in 250 ms: 2000 tokens/s), the make-up of the next
// request says how long its prompt takes to process, and the tools warning
// says what the tools cost in seconds.
func TestPrefillEstimate(t *testing.T) {
	gguf := tinyModel(t)
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"tiny": {GGUFPath: gguf, ContextLength: 40960}},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop,
			Timings: &backend.Timings{PromptTokens: 500, PromptMS: 250, GeneratedTokens: 1, GenerateMS: 5}}}}
	ts := newFakeGateway(t, Config{}, rt)
	var tools []string
	for i := range 30 {
		tools = append(tools, fmt.Sprintf(`{"type": "function", "function": {"name": "tool_%02d", "description": "Does a thing with a long description of what it does.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}`, i))
	}
	body := `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"tools":[` + strings.Join(tools, ",") + `]}`
	first := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+post(t, ts.URL+"/v1/chat/completions", body).Header.Get("X-Dragoman-Request-Id")))
	if mk := first["makeup"].(map[string]any); mk["prefill_estimate_ms"] != nil {
		t.Errorf("an estimate before any rate was measured: %v", mk["prefill_estimate_ms"])
	}
	tr := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+post(t, ts.URL+"/v1/chat/completions", body).Header.Get("X-Dragoman-Request-Id")))
	mk := tr["makeup"].(map[string]any)
	total, _ := mk["total"].(float64)
	if est, _ := mk["prefill_estimate_ms"].(float64); est != math.Round(total/2000*1000) {
		t.Errorf("estimate %v ms for %v tokens at 2000 tokens/s", mk["prefill_estimate_ms"], total)
	}
	found := false
	for _, d := range tr["decisions"].([]any) {
		found = found || strings.Contains(d.(string), "at the 2000 tokens/s measured for this model, the tools cost about")
	}
	if !found {
		t.Errorf("the warning gives no seconds: %v", tr["decisions"])
	}
}
