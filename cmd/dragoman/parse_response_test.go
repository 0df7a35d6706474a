package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// dragoman parse --response-template: the family-less parser, same JSON out.
func TestParseResponseTemplate(t *testing.T) {
	file := filepath.Join(fixtures.Require(t), "response-templates", "hf_test_qwen3_xml.json")
	out := "<think>hm</think>I will check.<tool_call>\n<function=get_weather>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call><|im_end|>"
	tools := filepath.Join(t.TempDir(), "tools.json")
	os.WriteFile(tools, []byte(`[{"type": "function", "function": {"name": "other"}}]`), 0o644)
	p := decodeParsed(t, dragoman(t, out, nil, "parse", "--response-template", file, "--tools", tools))
	if p.Content != "I will check." || p.Reasoning != "hm" || len(p.ToolCalls) != 1 {
		t.Fatalf("%+v", p)
	}
	if c := p.ToolCalls[0]; c.Function.Name != "get_weather" || c.Function.Arguments != `{"days":3}` || len(c.ID) != 9 {
		t.Errorf("call %+v", c)
	}
	var codes []string
	for _, d := range p.Diagnostics {
		codes = append(codes, d.Code)
	}
	if strings.Join(codes, ",") != "unclaimed-text,unknown-tool,stray-markup" {
		t.Errorf("diagnostics %v", codes)
	}

	// --json with the template inline (or a tokenizer_config.json holding it)
	req := `{"response_template": {"start_anchor": "<|im_start|>assistant\n", "fields": {"reasoning_content": {"open": "<think>", "close": "</think>"}, "content": {}}},
		"prefix": "<|im_start|>assistant\n<think>", "chunks": ["plan</th", "ink>answer"]}`
	p = decodeParsed(t, dragoman(t, req, nil, "parse", "--json"))
	if p.Reasoning != "plan" || p.Content != "answer" {
		t.Errorf("--json: %+v", p)
	}
	cfg := filepath.Join(t.TempDir(), "tokenizer_config.json")
	os.WriteFile(cfg, []byte(`{"bos_token": "<s>", "response_template": {"start_anchor": "a", "fields": {"content": {}}}}`), 0o644)
	if p = decodeParsed(t, dragoman(t, " hi ", nil, "parse", "--response-template", cfg)); p.Content != "hi" {
		t.Errorf("tokenizer_config.json: %+v", p)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"start_anchor": "a", "fields": {"c": {"open_pattern": "(?<=x)y"}}}`), 0o644)
	for _, args := range [][]string{
		{"parse", "--response-template", bad},
		{"parse", "--response-template", file, "--format", "hermes"},
	} {
		if r := dragoman(t, "x", nil, args...); r.status != 2 || !strings.HasPrefix(r.stderr, "dragoman parse: ") {
			t.Errorf("%v: %+v", args, r)
		}
	}
}
