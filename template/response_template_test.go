package template

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A model's response_template is found beside its chat template:
// tokenizer_config.json first, then chat_template.json; also when the config
// file is named on its own.
func TestFindResponseTemplate(t *testing.T) {
	rt := `{"start_anchor": "<|im_start|>assistant\n", "fields": {"content": {}}}`
	write := func(dir, name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	write(dir, "chat_template.jinja", "{{ messages[0].content }}")
	write(dir, "tokenizer_config.json", `{"eos_token": "<|im_end|>", "response_template": `+rt+`}`)
	write(dir, "chat_template.json", `{"response_template": {"start_anchor": "x", "fields": {"content": {}}}}`)
	s, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(s.ResponseTemplate), "im_start") || s.ResponseTemplateFrom.Field != "response_template" ||
		filepath.Base(s.ResponseTemplateFrom.Path) != "tokenizer_config.json" {
		t.Fatalf("response template %q from %v", s.ResponseTemplate, s.ResponseTemplateFrom)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "different") {
		t.Errorf("notes %q: want the disagreeing copies reported", s.Notes)
	}

	only := t.TempDir()
	write(only, "chat_template.jinja", "{{ messages[0].content }}")
	write(only, "chat_template.json", `{"response_template": `+rt+`}`)
	if s, err = Find(only); err != nil || filepath.Base(s.ResponseTemplateFrom.Path) != "chat_template.json" {
		t.Fatalf("chat_template.json: %v %v", err, s.ResponseTemplateFrom)
	}

	none := t.TempDir()
	write(none, "chat_template.jinja", "x")
	write(none, "tokenizer_config.json", `{"response_template": null}`)
	if s, err = Find(none); err != nil || s.ResponseTemplate != nil {
		t.Fatalf("null: %v %q", err, s.ResponseTemplate)
	}

	cfg := t.TempDir()
	write(cfg, "tokenizer_config.json", `{"chat_template": "x", "response_template": `+rt+`}`)
	if s, err = Find(filepath.Join(cfg, "tokenizer_config.json")); err != nil || s.ResponseTemplate == nil {
		t.Fatalf("config file on its own: %v", err)
	}
}
