package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// parsed is the JSON object dragoman parse prints.
type parsed struct {
	Content   string `json:"content"`
	Reasoning string `json:"reasoning_content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	Diagnostics []struct {
		Code string `json:"code"`
	} `json:"diagnostics"`
}

func decodeParsed(t *testing.T, r result) parsed {
	t.Helper()
	if r.status != 0 {
		t.Fatalf("status %d, stderr %q", r.status, r.stderr)
	}
	var p parsed
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("stdout is not one JSON object: %q", r.stdout)
	}
	return p
}

func TestParseFormat(t *testing.T) {
	out := "<think>check</think>Sure.<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	p := decodeParsed(t, dragoman(t, out, nil, "parse", "--format", "hermes"))
	if p.Content != "Sure." || p.Reasoning != "check" || len(p.ToolCalls) != 1 {
		t.Fatalf("%+v", p)
	}
	c := p.ToolCalls[0]
	if c.Type != "function" || c.Function.Name != "get_weather" || c.Function.Arguments != `{"city": "Paris"}` || len(c.ID) != 9 {
		t.Errorf("call %+v", c)
	}
}

// A format is found in any case; a wrong name lists the formats.
func TestParseFormatNames(t *testing.T) {
	p := decodeParsed(t, dragoman(t, "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>", nil, "parse", "--format", "HERMES"))
	if len(p.ToolCalls) != 1 {
		t.Errorf("HERMES: %+v", p)
	}
	r := dragoman(t, "", nil, "parse", "--format", "nosuch")
	if r.status != 2 || !strings.Contains(r.stderr, "the formats are: ") || !strings.Contains(r.stderr, "hermes") || !strings.Contains(r.stderr, "qwen3-coder-xml") {
		t.Errorf("nosuch: %+v", r)
	}
}

func TestParseTemplateAndReasoning(t *testing.T) {
	dir := t.TempDir()
	// A template that renders calls the hermes way and leaves reasoning open.
	tmpl := write(t, dir, "t.jinja", `{% for m in messages %}{% if m.tool_calls %}{% for c in m.tool_calls %}<tool_call>
{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments | tojson }}}
</tool_call>{% endfor %}{% else %}{{ m.content }}{% endif %}{% endfor %}{% if add_generation_prompt %}<think>
{% endif %}`)
	out := "Need a lookup<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"
	p := decodeParsed(t, dragoman(t, out, nil, "parse", "--template", tmpl))
	if p.Reasoning != "Need a lookup" || p.Content != "" || len(p.ToolCalls) != 1 {
		t.Errorf("forced open from the template: %+v", p)
	}
	p = decodeParsed(t, dragoman(t, out, nil, "parse", "--template", tmpl, "--reasoning", "closed"))
	if p.Reasoning != "" || p.Content != "Need a lookup" {
		t.Errorf("--reasoning closed: %+v", p)
	}
}

func TestParseJSONChunksAndTools(t *testing.T) {
	req := `{"format": "qwen3", "tools": [{"type": "function", "function": {"name": "other"}}],
		"chunks": ["<tool_", "call>{\"name\":\"x\",\"arguments\":{\"a\":1}}</tool", "_call> done"]}`
	p := decodeParsed(t, dragoman(t, req, nil, "parse", "--json"))
	if len(p.ToolCalls) != 1 || p.ToolCalls[0].Function.Name != "x" || p.Content != "done" {
		t.Fatalf("%+v", p)
	}
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].Code != "unknown-tool" {
		t.Errorf("diagnostics %+v", p.Diagnostics)
	}
}

func TestParseMalformedKeepsText(t *testing.T) {
	out := "Answer <tool_call>{\"name\": oops}</tool_call> tail"
	p := decodeParsed(t, dragoman(t, out, nil, "parse", "--format", "hermes"))
	if p.Content != out || len(p.ToolCalls) != 0 || len(p.Diagnostics) != 1 || p.Diagnostics[0].Code != "malformed-call" {
		t.Errorf("%+v", p)
	}
}

func TestParseUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"parse"},
		{"parse", "--format", "no-such-family"},
		{"parse", "--format", "hermes", "--reasoning", "sideways"},
		{"parse", "--json", "--format", "hermes"},
	} {
		r := dragoman(t, "", nil, args...)
		if r.status != 2 || !strings.HasPrefix(r.stderr, "dragoman parse: ") || r.stdout != "" {
			t.Errorf("%v: %+v", args, r)
		}
	}
}

// think:true with a template: the output starts inside the reasoning only
// when the template's prompt leaves it open (LFM2's never does, so a direct
// answer stays content); with a format alone, as the vectors read it.
func TestParseJSONThinkFollowsTheTemplate(t *testing.T) {
	lfm2, err := os.ReadFile(filepath.Join(fixtures.Require(t), "corpus", "templates", "LFM2.5-8B-A1B.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		req                string
		content, reasoning string
	}{
		{`{"template": ` + strconv.Quote(string(lfm2)) + `, "think": true, "chunks": ["The answer is 42."]}`, "The answer is 42.", ""},
		{`{"template": ` + strconv.Quote(string(lfm2)) + `, "think": true, "chunks": ["<think>hm</think>42"]}`, "42", "hm"},
		{`{"format": "lfm2", "think": true, "chunks": ["The answer is 42."]}`, "", "The answer is 42."},
	} {
		p := decodeParsed(t, dragoman(t, c.req, nil, "parse", "--json"))
		if p.Content != c.content || p.Reasoning != c.reasoning {
			t.Errorf("%.60s…: content %q reasoning %q, want %q and %q", c.req, p.Content, p.Reasoning, c.content, c.reasoning)
		}
	}
}
