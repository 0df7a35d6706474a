package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// Codex CLI's GET /v1/models?client_version=… gets Codex's catalog shape
// with what Dragoman knows of each model; every other client keeps
// OpenAI's list. The fields Codex 0.169 refuses the catalog without
// (seen by serving it catalogs without each: display_name,
// supported_reasoning_levels, shell_type, visibility, supported_in_api,
// priority, support_verbosity, truncation_policy,
// experimental_supported_tools and the base instructions) are all there.
func TestCodexModels(t *testing.T) {
	corpus := func(name string) string {
		data, err := os.ReadFile(filepath.Join(fixtures.Require(t), "corpus", "templates", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true, models: map[string]backend.ModelInfo{
		// Qwen3: hermes calls (several a turn), thinking switched by enable_thinking.
		"qwen3": {Template: corpus("Qwen-Qwen3-0.6B.jinja"), ContextLength: 40960},
		// Llama 3.1: one call a turn, no reasoning.
		"llama": {Template: corpus("meta-llama-Llama-3.1-8B-Instruct.jinja"), ContextLength: 131072},
		// gpt-oss: the template reads reasoning_effort; generation stops after a call.
		"gpt-oss": {Template: corpus("openai-gpt-oss-120b.jinja")},
		// No template: relay mode, nothing known of calls or reasoning.
		"bare": {},
	}}
	ts := newFakeGateway(t, Config{Aliases: map[string]string{"fast": "qwen3"}}, rt)

	v := decodeBody(t, get(t, ts.URL+"/v1/models?client_version=0.169.0"))
	list, _ := path(v, "models").([]any)
	byslug := map[string]any{}
	for _, m := range list {
		byslug[str(path(m, "slug"))] = m
		for _, field := range []string{"display_name", "supported_reasoning_levels", "shell_type", "visibility", "supported_in_api",
			"priority", "support_verbosity", "truncation_policy", "experimental_supported_tools", "base_instructions", "input_modalities"} {
			if path(m, field) == nil {
				t.Errorf("%s: no %s: %v", str(path(m, "slug")), field, m)
			}
		}
		// What Dragoman does not know is as Codex's own fallback metadata has it
		// (values Codex takes: an empty shell_type or visibility it refuses).
		if path(m, "shell_type") != "default" || path(m, "visibility") != "list" || path(m, "supported_in_api") != true ||
			path(m, "truncation_policy", "mode") != "bytes" || path(m, "truncation_policy", "limit") != 10000.0 {
			t.Errorf("%s: shell_type %v, visibility %v, supported_in_api %v, truncation_policy %v", str(path(m, "slug")),
				path(m, "shell_type"), path(m, "visibility"), path(m, "supported_in_api"), path(m, "truncation_policy"))
		}
		if path(m, "base_instructions") != "" {
			t.Errorf("%s: base_instructions %q: Dragoman writes no agent prompt", str(path(m, "slug")), path(m, "base_instructions"))
		}
		if mods, _ := path(m, "input_modalities").([]any); len(mods) != 1 || mods[0] != "text" {
			t.Errorf("%s: input_modalities %v", str(path(m, "slug")), path(m, "input_modalities"))
		}
	}
	if len(list) != 5 || path(v, "object") != nil {
		t.Fatalf("want the four models and the alias in Codex's shape: %v", v)
	}
	efforts := func(m any) []string {
		var out []string
		for _, l := range path(m, "supported_reasoning_levels").([]any) {
			out = append(out, str(path(l, "effort")))
		}
		return out
	}
	for _, c := range []struct {
		slug     string
		window   float64 // 0: not written
		parallel bool
		efforts  []string
		def      any
	}{
		{"qwen3", 40960, true, []string{"none", "medium"}, "medium"},
		{"fast", 40960, true, []string{"none", "medium"}, "medium"},
		{"llama", 131072, false, nil, nil},
		{"gpt-oss", 0, false, []string{"low", "medium", "high"}, "medium"},
		{"bare", 0, false, nil, nil},
	} {
		m := byslug[c.slug]
		if m == nil {
			t.Errorf("no %s in %v", c.slug, byslug)
			continue
		}
		if w, _ := path(m, "context_window").(float64); w != c.window || path(m, "max_context_window") != path(m, "context_window") {
			t.Errorf("%s: context_window %v, max %v: want %v", c.slug, path(m, "context_window"), path(m, "max_context_window"), c.window)
		}
		if path(m, "supports_parallel_tool_calls") != c.parallel {
			t.Errorf("%s: supports_parallel_tool_calls %v, want %v", c.slug, path(m, "supports_parallel_tool_calls"), c.parallel)
		}
		if got := efforts(m); !slices.Equal(got, c.efforts) || path(m, "default_reasoning_level") != c.def {
			t.Errorf("%s: reasoning levels %v default %v, want %v %v", c.slug, got, path(m, "default_reasoning_level"), c.efforts, c.def)
		}
	}

	// OpenAI's clients keep OpenAI's list.
	v = decodeBody(t, get(t, ts.URL+"/v1/models"))
	if path(v, "object") != "list" || path(v, "models") != nil || len(path(v, "data").([]any)) != 5 {
		t.Errorf("GET /v1/models: %v", v)
	}
}

// A catalog of more models than codexPrepareAll prepares none of them (each
// would keep its tokenizer): those a request has used, and so prepared,
// carry what their templates say; the others what the runtime's listing
// said.
func TestCodexModelsLargeCatalog(t *testing.T) {
	models := map[string]backend.ModelInfo{}
	for i := range codexPrepareAll + 1 {
		models[fmt.Sprintf("qwen-%d", i)] = backend.ModelInfo{Template: qwenTemplate, ContextLength: 40960, EOSToken: "<|im_end|>"}
	}
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true, models: models,
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop}}}
	ts := newFakeGateway(t, Config{}, rt)
	catalog := func() map[string]any {
		out := map[string]any{}
		for _, m := range path(decodeBody(t, get(t, ts.URL+"/v1/models?client_version=0.169.0")), "models").([]any) {
			out[str(path(m, "slug"))] = m
		}
		return out
	}
	first := catalog()
	if len(first) != codexPrepareAll+1 {
		t.Fatalf("%d models: %v", len(first), first)
	}
	for slug, m := range first {
		if path(m, "context_window") != nil || path(m, "dragoman", "prepared") != false {
			t.Errorf("%s prepared for the catalog: %v", slug, m)
		}
	}
	rt.mu.Lock()
	infos := rt.infos
	rt.mu.Unlock()
	if infos != 0 {
		t.Errorf("the catalog asked the runtime to describe %d models", infos)
	}
	if resp := post(t, ts.URL+"/v1/chat/completions", `{"model": "qwen-3", "messages": [{"role": "user", "content": "hi"}]}`); resp.StatusCode != 200 {
		t.Fatalf("chat: %d", resp.StatusCode)
	}
	m := catalog()["qwen-3"]
	if path(m, "context_window") != 40960.0 || path(m, "supports_parallel_tool_calls") != true || path(m, "default_reasoning_level") != "medium" {
		t.Errorf("qwen-3, used: %v", m)
	}
}
