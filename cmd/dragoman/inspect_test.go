package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

type inspected struct {
	Format    string   `json:"format"`
	Decisions []string `json:"decisions"`
	Error     string   `json:"error"`
	Request   *struct {
		Path string         `json:"path"`
		Body map[string]any `json:"body"`
	} `json:"request"`
}

const inspectTools = `[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
	"properties": {"city": {"type": "string"}}, "required": ["city"]}}}]`

// inspect prints the request each runtime would get for a corpus template
// and tools: the grammar and its triggers for llama-server, a structural tag
// for vLLM, the prefilled call and schema for Ollama, and an error where the
// choice cannot be enforced.
func TestInspect(t *testing.T) {
	fixtures.Require(t)
	qwen := filepath.Join(fixtures.Dir(), "corpus", "templates", "Qwen-Qwen3-0.6B.jinja")
	gemma := filepath.Join(fixtures.Dir(), "corpus", "templates", "google-gemma-4-31B-it.jinja")
	tools := write(t, t.TempDir(), "tools.json", inspectTools)
	run := func(wantStatus int, args ...string) inspected {
		t.Helper()
		r := dragoman(t, "", nil, append([]string{"inspect", "--tools", tools}, args...)...)
		if r.status != wantStatus {
			t.Fatalf("%v: status %d, stderr %q", args, r.status, r.stderr)
		}
		var v inspected
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
			t.Fatalf("%v: stdout is not JSON: %q", args, r.stdout)
		}
		return v
	}

	v := run(0, "--template", qwen, "--runtime", "llamacpp")
	body := v.Request.Body
	if v.Format != "hermes" || v.Request.Path != "/completion" || body["grammar_lazy"] != true ||
		!strings.HasSuffix(body["prompt"].(string), "<|im_start|>assistant\n") {
		t.Fatalf("llama-server auto: %+v", v)
	}
	g, err := grammar.Parse(body["grammar"].(string))
	if err != nil || !g.Match("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>") {
		t.Errorf("the grammar printed does not admit a call (%v)", err)
	}

	v = run(0, "--template", qwen, "--runtime", "vllm")
	tag, _ := v.Request.Body["structured_outputs"].(map[string]any)["structural_tag"].(string)
	if !strings.Contains(tag, `"triggers":["<tool_call>"]`) {
		t.Errorf("vLLM auto: structural tag %q", tag)
	}

	v = run(0, "--template", qwen, "--runtime", "ollama", "--tool-choice", "get_weather")
	if p := v.Request.Body["prompt"].(string); !strings.HasSuffix(p, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ") ||
		v.Request.Body["format"] == nil || v.Request.Path != "/api/generate" {
		t.Errorf("Ollama named: %+v", v)
	}

	v = run(1, "--template", gemma, "--runtime", "ollama", "--tool-choice", "required")
	if v.Format != "gemma4" || !strings.Contains(v.Error, "cannot be enforced") || v.Request != nil {
		t.Errorf("gemma4 required on Ollama: %+v", v)
	}
	if r := dragoman(t, "", nil, "inspect", "--tools", tools, "--template", qwen, "--runtime", "tgi"); r.status != 2 {
		t.Errorf("an unknown runtime: status %d", r.status)
	}
}

type modelInspected struct {
	Kind      string   `json:"kind"`
	Template  string   `json:"template"`
	Conflicts []string `json:"conflicts"`
	Copies    []struct {
		Location string `json:"location"`
		Used     bool   `json:"used"`
	} `json:"copies"`
	Format  string `json:"format"`
	Derived string `json:"derived"`
	Caps    struct {
		Tools         bool `json:"tools"`
		ToolRole      bool `json:"tool_role"`
		Reasoning     bool `json:"reasoning"`
		ForcedOpen    bool `json:"reasoning_forced_open"`
		ParallelCalls bool `json:"parallel_calls"`
	} `json:"capabilities"`
	Constraint    map[string]struct{ Auto, Required string } `json:"constraint"`
	SpecialTokens map[string]any                             `json:"special_tokens"`
}

func inspectModelJSON(t *testing.T, args ...string) modelInspected {
	t.Helper()
	r := dragoman(t, "", nil, append([]string{"inspect"}, args...)...)
	if r.status != 0 {
		t.Fatalf("%v: status %d, stderr %q", args, r.status, r.stderr)
	}
	var v modelInspected
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("stdout is not JSON: %q", r.stdout)
	}
	return v
}

// inspect --model on a GGUF: the template from its metadata, the family,
// the capabilities, the constraint per runtime, the special tokens.
func TestInspectModelGGUF(t *testing.T) {
	gguf := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf")
	v := inspectModelJSON(t, "--model", gguf)
	if v.Kind != "gguf" || !strings.Contains(v.Template, "tokenizer.chat_template") || v.Format != "hermes" || len(v.Conflicts) != 0 {
		t.Errorf("%+v", v)
	}
	if !v.Caps.Tools || !v.Caps.ToolRole || !v.Caps.Reasoning || v.Caps.ForcedOpen || !v.Caps.ParallelCalls {
		t.Errorf("capabilities %+v", v.Caps)
	}
	if v.SpecialTokens["eos_token"] != "<|im_end|>" {
		t.Errorf("special tokens %v", v.SpecialTokens)
	}
	if c := v.Constraint["llama-server"]; !strings.Contains(c.Auto, "once the model opens a call") || !strings.Contains(c.Required, "from its first byte") {
		t.Errorf("llama-server constraint %+v", c)
	}
	if c := v.Constraint["lmstudio"]; !strings.HasPrefix(c.Required, "refused") {
		t.Errorf("lmstudio constraint %+v", c)
	}
}

// inspect --model on a Hugging Face folder whose chat_template.jinja and
// tokenizer_config.json disagree: both copies listed, the conflict reported
// with a diff, the .jinja used (as transformers does).
func TestInspectModelConflict(t *testing.T) {
	dir := t.TempDir()
	jinjaTpl := `{% for m in messages %}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endfor %}{% if tools %}<tools>{{ tools | tojson }}</tools>{% endif %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}`
	write(t, dir, "chat_template.jinja", jinjaTpl)
	cfg, _ := json.Marshal(map[string]any{"chat_template": strings.Replace(jinjaTpl, "<tools>", "<tool_list>", 1),
		"eos_token": "<|im_end|>", "bos_token": nil})
	write(t, dir, "tokenizer_config.json", string(cfg))
	v := inspectModelJSON(t, "--model", dir)
	if v.Kind != "hf" || len(v.Copies) != 2 || len(v.Conflicts) != 1 || !strings.HasSuffix(v.Template, "chat_template.jinja") {
		t.Fatalf("%+v", v)
	}
	if c := v.Conflicts[0]; !strings.Contains(c, "<tools>") || !strings.Contains(c, "<tool_list>") {
		t.Errorf("the conflict has no diff: %q", c)
	}
	used := 0
	for _, c := range v.Copies {
		if c.Used {
			used++
		}
	}
	if used != 1 {
		t.Errorf("copies %+v", v.Copies)
	}
	if !v.Caps.Tools || v.Format == "hermes" {
		t.Errorf("format %q, capabilities %+v", v.Format, v.Caps)
	}
}
