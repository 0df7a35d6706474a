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
