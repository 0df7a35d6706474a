package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/template"
)

// count_tokens with the official SDK: the number is the prompt a Messages
// request with the same content is rendered to, counted with the model's own
// tokenizer (the trace's prompt_tokens); a tool adds its schema's tokens; a
// model without a known tokenizer is refused, an unknown model is a 404.
func TestCountTokens(t *testing.T) {
	gguf := tinyModel(t)
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{
			"tiny":   {GGUFPath: gguf, ContextLength: 40960},
			"notokn": {Template: qwenTemplate, TemplateOrigin: "fake"},
		},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop}}}
	ts := newFakeGateway(t, Config{}, rt)
	cl := sdkClient(ts)
	ctx := context.Background()
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris?"))}
	tool := anthropic.MessageCountTokensToolParamOfTool(anthropic.ToolInputSchemaParam{
		Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}}, "get_weather")

	plain, err := cl.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: "tiny", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	withTool, err := cl.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: "tiny", Messages: msgs,
		Tools: []anthropic.MessageCountTokensToolUnionParam{tool}})
	if err != nil {
		t.Fatal(err)
	}
	if plain.InputTokens < 5 || withTool.InputTokens <= plain.InputTokens+10 {
		t.Errorf("input tokens: %d plain, %d with a tool", plain.InputTokens, withTool.InputTokens)
	}

	resp := post(t, ts.URL+"/v1/messages", `{"model": "tiny", "max_tokens": 16, "messages": [{"role": "user", "content": "What is the weather in Paris?"}]}`)
	tr := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+resp.Header.Get("X-Dragoman-Request-Id")))
	if n, _ := tr["prompt_tokens"].(float64); int64(n) != plain.InputTokens {
		t.Errorf("count_tokens %d, the request's prompt %v tokens", plain.InputTokens, tr["prompt_tokens"])
	}

	if _, err := cl.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: "notokn", Messages: msgs}); err == nil {
		t.Error("a model without a tokenizer: no error")
	}
	var apiErr *anthropic.Error
	if _, err := cl.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: "nope", Messages: msgs}); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Errorf("an unknown model: %v", err)
	}
}

// count_tokens over llama-server: with the weights named by an absolute
// model_path in /props the GGUF's tokenizer counts (as for Ollama); with a
// relative one (llama-server's working directory is unknown) llama-server
// counts the rendered prompt itself, through /tokenize.
func TestCountTokensOnLlamaServer(t *testing.T) {
	type tcase struct {
		name, modelPath string
		tokenized       bool
		templates       map[string]string
	}
	cases := []tcase{
		{"absolute model_path", tinyModel(t), false, nil},
		{"relative model_path", "tiny-qwen3-toolcall.gguf", true, nil},
	}
	// A template configured from a model folder with a tokenizer.json does
	// not replace llama-server's own count of its vocabulary.
	if tj, err := os.ReadFile(os.Getenv("DRAGOMAN_QWEN3_TOKENIZER_JSON")); err == nil {
		folder := t.TempDir()
		for name, data := range map[string][]byte{"chat_template.jinja": []byte(qwenTemplate), "tokenizer.json": tj} {
			if err := os.WriteFile(filepath.Join(folder, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cases = append(cases, tcase{"relative model_path, a model folder's template", "tiny-qwen3-toolcall.gguf", true, map[string]string{"tiny": folder}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tokenized []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/v1/models":
					io.WriteString(w, `{"object":"list","data":[{"id":"tiny","object":"model"}]}`)
				case "/props":
					json.NewEncoder(w).Encode(map[string]any{"chat_template": qwenTemplate, "model_path": c.modelPath,
						"default_generation_settings": map[string]any{"n_ctx": 4096}})
				case "/tokenize":
					var body struct {
						Content    string `json:"content"`
						AddSpecial bool   `json:"add_special"`
					}
					json.NewDecoder(r.Body).Decode(&body)
					tokenized = append(tokenized, body.Content)
					toks := make([]int, len(strings.Fields(body.Content)))
					json.NewEncoder(w).Encode(map[string]any{"tokens": toks})
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			s, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: srv.URL, Kind: "llama-server", Templates: c.templates}}}, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ts := httptestServer(t, s)
			resp := post(t, ts.URL+"/v1/messages/count_tokens", `{"model":"tiny","messages":[{"role":"user","content":"What is the weather in Paris?"}]}`)
			v := decodeBody(t, resp)
			n, _ := v["input_tokens"].(float64)
			if resp.StatusCode != 200 || n < 5 {
				t.Fatalf("status %d, %v", resp.StatusCode, v)
			}
			if (len(tokenized) > 0) != c.tokenized {
				t.Errorf("/tokenize asked %d times, want it asked: %v", len(tokenized), c.tokenized)
			}
			if c.tokenized && (int(n) != len(strings.Fields(tokenized[0])) || !strings.Contains(tokenized[0], "<|im_start|>user\nWhat is the weather in Paris?")) {
				t.Errorf("counted %v for the prompt %q", n, tokenized[0])
			}
		})
	}
}

// In relay mode (and in own mode off Ollama, where no num_ctx needs the
// count) the runtime counts the prompt only with its answer; Anthropic's message_start then carries the count count_tokens
// gives where Dragoman can count (the model's template and tokenizer at
// hand), message_delta the runtime's own figure (or message_start's where
// the runtime gave none); where Dragoman cannot count, message_start says 0
// as before and message_delta the runtime's figure.
func TestMessageStartInputTokens(t *testing.T) {
	gguf := tinyModel(t)
	usage := &chat.Usage{PromptTokens: 77, CompletionTokens: 1}
	counted := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", // no raw prompts: relay mode
		models: map[string]backend.ModelInfo{"tiny": {GGUFPath: gguf}, "notokn": {Template: qwenTemplate, TemplateOrigin: "fake"}},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop, Usage: usage}}}
	silent := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:2",
		models: map[string]backend.ModelInfo{"tiny2": {GGUFPath: gguf}},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop}}}
	// Own mode on a runtime other than Ollama (no num_ctx to count for):
	// the prompt sent is counted.
	own := &fakeRuntime{kind: backend.VLLM, url: "http://127.0.0.1:3", canComplete: true,
		models: map[string]backend.ModelInfo{"tiny-own": {GGUFPath: gguf}},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop, Usage: usage}}}
	ts := newFakeGateway(t, Config{}, counted, silent, own)
	const msgs = `"messages": [{"role": "user", "content": "What is the weather in Paris?"}], "tools": [{"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]`
	want := decodeBody(t, post(t, ts.URL+"/v1/messages/count_tokens", `{"model": "tiny", `+msgs+`}`))["input_tokens"]
	if n, _ := want.(float64); n < 20 {
		t.Fatalf("count_tokens %v", want)
	}
	for _, c := range []struct {
		model, mode  string
		start, delta any
	}{
		{"tiny", "relay", want, 77.0},   // counted here; the runtime's figure at the end
		{"tiny2", "relay", want, want},  // counted here; the runtime gave none
		{"notokn", "relay", 0.0, 77.0},  // no tokenizer: as before
		{"tiny-own", "own", want, 77.0}, // the prompt sent, counted
	} {
		resp := post(t, ts.URL+"/v1/messages", `{"model": "`+c.model+`", "max_tokens": 16, "stream": true, `+msgs+`}`)
		body, _ := io.ReadAll(resp.Body)
		var start, delta any
		for _, line := range strings.Split(string(body), "\n") {
			var ev map[string]any
			if data, ok := strings.CutPrefix(line, "data: "); !ok || json.Unmarshal([]byte(data), &ev) != nil {
				continue
			}
			switch ev["type"] {
			case "message_start":
				start = path(ev, "message", "usage", "input_tokens")
			case "message_delta":
				delta = path(ev, "usage", "input_tokens")
			}
		}
		if start != c.start || delta != c.delta {
			t.Errorf("%s: input_tokens %v in message_start, %v in message_delta: want %v and %v\n%s", c.model, start, delta, c.start, c.delta, body)
		}
		tr := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+resp.Header.Get("X-Dragoman-Request-Id")))
		if tr["mode"] != c.mode {
			t.Errorf("%s: mode %v", c.model, tr["mode"])
		}
	}
}

// count_tokens for a model whose template comes from a Hugging Face model
// folder (configured as the folder or as its chat_template.jinja): the
// tokenizer.json beside it counts, and gives what the GGUF of the same
// model gives (the tiny models' vocabulary is Qwen3's tokenizer.json);
// without one, count_tokens still says it cannot count.
func TestCountTokensHFFolder(t *testing.T) {
	tj := os.Getenv("DRAGOMAN_QWEN3_TOKENIZER_JSON")
	if tj == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DRAGOMAN_QWEN3_TOKENIZER_JSON not set (scripts/test.sh sets it from scripts/tokenizer-refs.sh)")
		}
		t.Skip("DRAGOMAN_QWEN3_TOKENIZER_JSON not set (scripts/test.sh sets it from scripts/tokenizer-refs.sh)")
	}
	gguf := tinyModel(t)
	src, err := template.Find(gguf)
	if err != nil {
		t.Fatal(err)
	}
	folder := func(withTokenizer bool) string {
		dir := t.TempDir()
		cfg, _ := json.Marshal(map[string]any{"chat_template": src.Text, "eos_token": "<|im_end|>", "tokenizer_class": "Qwen2Tokenizer"})
		if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "chat_template.jinja"), []byte(src.Text), 0o644); err != nil {
			t.Fatal(err)
		}
		if withTokenizer {
			data, err := os.ReadFile(tj)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	ref := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"tiny": {GGUFPath: gguf}}}
	hf := &fakeRuntime{kind: backend.VLLM, url: "http://127.0.0.1:2", canComplete: true,
		models: map[string]backend.ModelInfo{"by-folder": {}, "by-template-file": {}, "no-tokenizer": {}}}
	withTok := folder(true)
	cfg := Config{NoDiscover: true, Upstreams: []Upstream{{URL: ref.url}, {URL: hf.url, Templates: map[string]string{
		"by-folder": withTok, "by-template-file": filepath.Join(withTok, "chat_template.jinja"), "no-tokenizer": folder(false)}}}}
	s, err := New(cfg, Hooks{Connect: func(ctx context.Context, u Upstream) (backend.Backend, error) {
		return map[string]*fakeRuntime{ref.url: ref, hf.url: hf}[u.URL], nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ts := httptestServer(t, s)
	count := func(model string) (int, any) {
		resp := post(t, ts.URL+"/v1/messages/count_tokens", `{"model": "`+model+`", "system": "Be brief.", "messages": [{"role": "user", "content": "What is the weather in Paris? Caf\u00e9s?"}],
			"tools": [{"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}`)
		v := decodeBody(t, resp)
		return resp.StatusCode, v["input_tokens"]
	}
	_, want := count("tiny")
	if n, _ := want.(float64); n < 30 {
		t.Fatalf("the GGUF's count: %v", want)
	}
	for _, m := range []string{"by-folder", "by-template-file"} {
		if status, n := count(m); status != 200 || n != want {
			t.Errorf("%s: %d, %v tokens; the GGUF's tokenizer counts %v", m, status, n, want)
		}
	}
	if status, n := count("no-tokenizer"); status != 400 {
		t.Errorf("no tokenizer.json: %d, %v", status, n)
	}
}

// count_tokens for LM Studio's models: LM Studio names no file, and the
// gateway finds the model's GGUF in LM Studio's models folder (as LM Studio
// names models: the folder, lower-cased, without "-GGUF", the publisher
// before it and a variant after "@" where needed), whose template and
// tokenizer it then reads. A name that fits the folders of two publishers,
// a model not in the folder, and an LM Studio that is not on this machine
// get no count.
func TestCountTokensLMStudioFolder(t *testing.T) {
	gguf := tinyModel(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	for _, f := range []string{"lmstudio-community/Tiny-Qwen3-GGUF/Tiny-Qwen3-Q8_0.gguf", "lmstudio-community/Tiny-Qwen3-GGUF/Tiny-Qwen3-Q4_K_M.gguf",
		"unsloth/Tiny-Qwen3-GGUF/Tiny-Qwen3-Q8_0.gguf", "lmstudio-community/Only-Here-GGUF/Only-Here-Q8_0.gguf"} {
		p := filepath.Join(home, ".lmstudio", "models", f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(gguf, p); err != nil {
			t.Fatal(err)
		}
	}
	ref := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"tiny": {GGUFPath: gguf}}}
	lms := &fakeRuntime{kind: backend.LMStudio, url: "http://127.0.0.1:2", canComplete: true, models: map[string]backend.ModelInfo{
		"only-here": {ContextLength: 2048}, "unsloth/tiny-qwen3": {}, "tiny-qwen3@q4_k_m": {}, "tiny-qwen3": {}, "not-in-folder": {}}}
	remote := &fakeRuntime{kind: backend.LMStudio, url: "http://192.168.7.7:1234", canComplete: true,
		models: map[string]backend.ModelInfo{"only-here": {}}}
	count := func(ts *httptest.Server, model string) (int, any) {
		resp := post(t, ts.URL+"/v1/messages/count_tokens", `{"model": "`+model+`", "messages": [{"role": "user", "content": "What is the weather in Paris?"}]}`)
		return resp.StatusCode, decodeBody(t, resp)["input_tokens"]
	}
	ts := newFakeGateway(t, Config{}, ref, lms)
	_, want := count(ts, "tiny")
	for _, m := range []string{"only-here", "unsloth/tiny-qwen3", "tiny-qwen3@q4_k_m"} {
		if status, n := count(ts, m); status != 200 || n != want {
			t.Errorf("%s: %d, %v tokens; want %v", m, status, n, want)
		}
	}
	for _, m := range []string{"tiny-qwen3", "not-in-folder"} {
		if status, n := count(ts, m); status != 400 {
			t.Errorf("%s: %d, %v tokens; want no count", m, status, n)
		}
	}
	if status, n := count(newFakeGateway(t, Config{}, remote), "only-here"); status != 400 {
		t.Errorf("an LM Studio on another machine: %d, %v tokens; want no count", status, n)
	}
}
