package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// inspect --model shows the response template a model ships, loaded: its
// fields, or why it does not load.
func TestInspectModelResponseTemplate(t *testing.T) {
	rt, err := os.ReadFile(filepath.Join(fixtures.Require(t), "response-templates", "trl_qwen3.json"))
	if err != nil {
		t.Fatal(err)
	}
	show := func(rtJSON string) map[string]any {
		dir := t.TempDir()
		write(t, dir, "chat_template.jinja", "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}")
		write(t, dir, "tokenizer_config.json", `{"eos_token": "<|im_end|>", "response_template": `+rtJSON+`}`)
		r := dragoman(t, "", nil, "inspect", "--model", dir)
		if r.status != 0 {
			t.Fatalf("status %d: %s", r.status, r.stderr)
		}
		var v struct {
			RT map[string]any `json:"response_template"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.RT == nil {
			t.Fatalf("no response_template in %s", r.stdout)
		}
		return v.RT
	}
	v := show(string(rt))
	if !strings.HasSuffix(v["location"].(string), "tokenizer_config.json (response_template)") || v["error"] != nil {
		t.Errorf("%v", v)
	}
	if fields, _ := json.Marshal(v["fields"]); string(fields) != `["content","reasoning_content","tool_calls"]` {
		t.Errorf("fields %s", fields)
	}
	if v = show(`{"fields": {"content": {}}}`); !strings.Contains(v["error"].(string), "start_anchor") {
		t.Errorf("a template that does not load: %v", v)
	}
}
