package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
)

// reflectResponseTemplate reads reasoning between <reflect> markers, which
// the hermes family (the one qwenTemplate is detected as) does not know:
// what the client gets says which parser read the output.
const reflectResponseTemplate = `{"start_anchor": "<|im_start|>assistant\n", "fields": {
	"reasoning_content": {"open": "<reflect>", "close_pattern": "</reflect>\\s*", "content": "text"},
	"tool_calls": {"open": "<tool_call>", "close_pattern": "</tool_call>\\s*", "repeats": true, "content": "json",
		"transform": {"type": "function", "function": "{content}"}},
	"content": {"close_pattern": "<\\|im_end\\|>\\s*", "content": "text"}}}`

// responseTemplateGateway serves "qwen" from a fake runtime, its template
// from a Hugging Face model folder whose tokenizer_config.json ships a
// response_template, with the upstream's parser setting.
func responseTemplateGateway(t *testing.T, parser string, script ...backend.Chunk) string {
	return responseTemplateGatewayWith(t, qwenTemplate, parser, script...)
}

func responseTemplateGatewayWith(t *testing.T, chatTemplate, parser string, script ...backend.Chunk) string {
	t.Helper()
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"chat_template": chatTemplate, "eos_token": "<|im_end|>",
		"response_template": json.RawMessage(reflectResponseTemplate)})
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"qwen": {}}, script: script}
	s, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: rt.url, Parser: parser, Templates: map[string]string{"qwen": dir}}}},
		Hooks{Connect: func(ctx context.Context, u Upstream) (backend.Backend, error) {
			if u.URL != rt.url {
				return nil, errors.New("unknown fake")
			}
			return rt, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return httptestServer(t, s).URL
}

func decisionsOf(t *testing.T, base, id string) string {
	t.Helper()
	tr := decodeBody(t, get(t, base+"/v1/dragoman/requests/"+id))
	b, _ := json.Marshal(tr["decisions"])
	return string(b)
}

// A model that ships a response_template is parsed with it in own mode: its
// reasoning markers, unknown to the family, give reasoning, and its calls
// come back; the trace names the template and the family it stands in for.
func TestResponseTemplateParses(t *testing.T) {
	base := responseTemplateGateway(t, "",
		backend.Chunk{Text: "<reflect>The user wants "}, backend.Chunk{Text: "weather.</reflect>\nChecking.\n<tool_call>\n"},
		backend.Chunk{Text: "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"})
	resp := post(t, base+"/v1/chat/completions", `{"model":"qwen","messages":[{"role":"user","content":"Weather in Paris?"}],"tools":`+weatherTools+`}`)
	v := decodeBody(t, resp)
	msg := path(v, "choices", 0, "message")
	if r := path(msg, "reasoning_content"); r != "The user wants weather." {
		t.Errorf("reasoning %q", r)
	}
	if c := path(msg, "content"); c != "Checking." {
		t.Errorf("content %q", c)
	}
	if name := path(msg, "tool_calls", 0, "function", "name"); name != "get_weather" {
		t.Errorf("call %v", path(msg, "tool_calls"))
	}
	d := decisionsOf(t, base, resp.Header.Get("X-Dragoman-Request-Id"))
	if !strings.Contains(d, "output parsed with the model's response template") || !strings.Contains(d, "tokenizer_config.json") || !strings.Contains(d, "hermes") {
		t.Errorf("decisions %s", d)
	}
}

// The rendered prompt is the template's prefix, as parse_response takes it:
// a generation prompt that opens the reasoning makes the output start inside
// it.
func TestResponseTemplatePromptIsPrefix(t *testing.T) {
	opening := strings.Replace(qwenTemplate, "{%- if add_generation_prompt %}<|im_start|>assistant\n", "{%- if add_generation_prompt %}<|im_start|>assistant\n<reflect>\n", 1)
	if opening == qwenTemplate {
		t.Fatal("the generation prompt was not changed")
	}
	base := responseTemplateGatewayWith(t, opening, "", backend.Chunk{Text: "weighing it</reflect>\nSure."})
	v := decodeBody(t, post(t, base+"/v1/chat/completions", `{"model":"qwen","messages":[{"role":"user","content":"Hi"}],"tools":`+weatherTools+`}`))
	if r, c := path(v, "choices", 0, "message", "reasoning_content"), path(v, "choices", 0, "message", "content"); r != "weighing it" || c != "Sure." {
		t.Errorf("reasoning %q, content %q", r, c)
	}
}

// parser: family keeps the family's parser, and the trace says the template
// was left alone.
func TestResponseTemplateFamilySetting(t *testing.T) {
	base := responseTemplateGateway(t, "family", backend.Chunk{Text: "<reflect>hm</reflect>Sure."})
	resp := post(t, base+"/v1/chat/completions", `{"model":"qwen","messages":[{"role":"user","content":"Hi"}],"tools":`+weatherTools+`}`)
	v := decodeBody(t, resp)
	if c := path(v, "choices", 0, "message", "content"); c != "<reflect>hm</reflect>Sure." {
		t.Errorf("content %q: the family parser does not know <reflect>", c)
	}
	if d := decisionsOf(t, base, resp.Header.Get("X-Dragoman-Request-Id")); !strings.Contains(d, `not used: the upstream's parser is \"family\"`) {
		t.Errorf("decisions %s", d)
	}
}

// A forced call is constrained and prefilled in the family's markup, so the
// family parses it, and the trace says why.
func TestResponseTemplateForcedCallUsesFamily(t *testing.T) {
	base := responseTemplateGateway(t, "", backend.Chunk{Text: "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"})
	resp := post(t, base+"/v1/chat/completions", `{"model":"qwen","messages":[{"role":"user","content":"Weather?"}],"tool_choice":"required","tools":`+weatherTools+`}`)
	v := decodeBody(t, resp)
	if name := path(v, "choices", 0, "message", "tool_calls", 0, "function", "name"); name != "get_weather" {
		t.Fatalf("answer %v", v)
	}
	if d := decisionsOf(t, base, resp.Header.Get("X-Dragoman-Request-Id")); !strings.Contains(d, "the response template is not used for this request") {
		t.Errorf("decisions %s", d)
	}
}

// An unknown parser setting is refused at start.
func TestResponseTemplateParserSettingChecked(t *testing.T) {
	_, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: "http://127.0.0.1:1", Parser: "regex"}}}, Hooks{})
	if err == nil || !strings.Contains(err.Error(), `parser "regex"`) {
		t.Errorf("err %v", err)
	}
}
