package makeup

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/template"
	"github.com/dragoman-dev/dragoman/tokenize"
)

var (
	qwenOnce sync.Once
	qwenTpl  *jinja.Template
	qwenTok  *tokenize.Tokenizer
	qwenErr  error
)

// qwen3 is the tiny model's Qwen3 template and tokenizer (the real ones).
func qwen3(t testing.TB) (*jinja.Template, *tokenize.Tokenizer) {
	t.Helper()
	gguf := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf")
	qwenOnce.Do(func() {
		var src *template.Source
		if src, qwenErr = template.Find(gguf); qwenErr != nil {
			return
		}
		if qwenTpl, qwenErr = jinja.Compile(src.Text); qwenErr != nil {
			return
		}
		qwenTok, qwenErr = tokenize.FromGGUF(gguf)
	})
	if qwenErr != nil {
		t.Fatal(qwenErr)
	}
	return qwenTpl, qwenTok
}

// toolJSON is a tool definition written as Python's json.dumps writes it (what
// Qwen3's `tool | tojson` renders), so that its text is known.
func toolJSON(name string, props int) string {
	var ps []string
	for i := range props {
		ps = append(ps, fmt.Sprintf(`"arg%d": {"type": "string", "description": "Argument number %d of %s, a path relative to the repository root."}`, i, i, name))
	}
	return fmt.Sprintf(`{"type": "function", "function": {"name": "%s", "description": "Does %s on the workspace.", "parameters": {"type": "object", "properties": {%s}, "required": ["arg0"]}}}`,
		name, name, strings.Join(ps, ", "))
}

func request(t testing.TB, messages string, tools []string) template.Request {
	t.Helper()
	body := `{"messages": ` + messages + `, "add_generation_prompt": true`
	if tools != nil {
		body += `, "tools": [` + strings.Join(tools, ", ") + `]`
	}
	req, err := template.ParseRequest([]byte(body + "}"))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func part(m *Makeup, name string) *Part {
	for i := range m.Parts {
		if m.Parts[i].Name == name {
			return &m.Parts[i]
		}
	}
	return nil
}

const twoTurns = `[{"role": "system", "content": "You are a careful coding agent."},
	{"role": "user", "content": "Read main.go and tell me what it does."}]`

// Each tool's part is the tokens of its own block in the prompt, and the
// prompt without a tool is shorter by exactly that part.
func TestTwoTools(t *testing.T) {
	tpl, tok := qwen3(t)
	tools := []string{toolJSON("read_file", 3), toolJSON("grep", 6)}
	req := request(t, twoTurns, tools)
	for _, exact := range []bool{true, false} {
		m, err := Analyze(tpl, req, tok, Options{Exact: exact})
		if err != nil {
			t.Fatal(err)
		}
		full, _ := template.Render(tpl, req, nil)
		if m.Total != tok.Count(full) {
			t.Errorf("total %d; the prompt counts %d", m.Total, tok.Count(full))
		}
		if !exact && !m.Windowed {
			t.Errorf("Qwen3's tokenizer should count windows")
		}
		affix := tok.Count("")
		sum := 0
		for i, name := range []string{"read_file", "grep"} {
			p := part(m, name)
			if p == nil || p.Kind != KindTool {
				t.Fatalf("exact=%v: no part for tool %s: %+v", exact, name, m.Parts)
			}
			block := tok.Count("\n"+tools[i]) - affix
			if d := p.Tokens - block; d < -2 || d > 2 {
				t.Errorf("exact=%v: %s is %d tokens; its block counts %d", exact, name, p.Tokens, block)
			}
			rest := request(t, twoTurns, []string{tools[1-i]})
			out, err := template.Render(tpl, rest, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Total - tok.Count(out); got != p.Tokens {
				t.Errorf("exact=%v: removing %s saves %d tokens; its part says %d", exact, name, got, p.Tokens)
			}
		}
		for _, p := range m.Parts {
			sum += p.Tokens
			if p.Tokens < 0 && p.Kind != KindTemplate {
				t.Errorf("negative part %+v", p)
			}
		}
		if sum != m.Total {
			t.Errorf("parts add up to %d; total %d", sum, m.Total)
		}
		if p := part(m, "tool instructions"); p == nil || p.Tokens < 20 {
			t.Errorf("Qwen3's tool section text: %+v", p)
		}
		if s := part(m, "system"); s == nil || s.Tokens < 6 || s.Tokens > 12 {
			t.Errorf("system part %+v for a 6-word system prompt", s)
		}
		if u := part(m, "message 1 (user)"); u == nil || u.Tokens < 10 || u.Tokens > 20 {
			t.Errorf("the user message: %+v (notes %q)", u, m.Notes)
		}
		if m.Tools != m.Total-tok.Count(mustRender(t, tpl, request(t, twoTurns, nil))) {
			t.Errorf("tools %d", m.Tools)
		}
		// Two tools and a one-line question: the tools are most of the prompt.
		if w := m.Warning(); !strings.Contains(w, "2 tools; the largest: grep (") {
			t.Errorf("warning %q", w)
		}
	}
}

func mustRender(t testing.TB, tpl *jinja.Template, req template.Request) string {
	t.Helper()
	out, err := template.Render(tpl, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Thirty large tools dominate a short conversation; one small tool beside a
// real system prompt does not.
func TestWarning(t *testing.T) {
	tpl, tok := qwen3(t)
	var tools []string
	for i := range 30 {
		tools = append(tools, toolJSON(fmt.Sprintf("tool_%02d", i), 4+i%5))
	}
	m, err := Analyze(tpl, request(t, twoTurns, tools), tok, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := m.Warning()
	if m.ToolShare() < 0.9 || !strings.HasPrefix(w, "tools are ") || !strings.Contains(w, ": 30 tools; the largest: tool_") {
		t.Errorf("warning %q (tools %d of %d)", w, m.Tools, m.Total)
	}
	long := strings.Repeat("Follow the repository's conventions and run the tests before answering. ", 12)
	msgs := `[{"role": "system", "content": "` + long + `"}, {"role": "user", "content": "hi"}]`
	m, err = Analyze(tpl, request(t, msgs, []string{toolJSON("read_file", 1)}), tok, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := m.Warning(); w != "" || m.ToolShare() <= 0 {
		t.Errorf("one tool: warning %q, share %.2f", w, m.ToolShare())
	}
}

// A template that refuses a conversation without alternating roles: removing
// a middle message makes it raise, so that message is measured by emptying
// its content; one whose emptying raises too is left unmeasured; the analysis
// never fails.
func TestFallbackWhenRemovalRaises(t *testing.T) {
	_, tok := qwen3(t)
	src := `{%- for m in messages -%}
{%- if (m.role == 'user') != (loop.index0 % 2 == 0) -%}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{%- endif -%}
{%- if m.content == '' and m.role == 'assistant' and loop.index0 == 3 -%}{{ raise_exception('empty answer') }}{%- endif -%}
<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endfor -%}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif -%}`
	tpl, err := jinja.Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	msgs := `[{"role": "user", "content": "What is in the box?"}, {"role": "assistant", "content": "A cat, asleep on a blanket."},
		{"role": "user", "content": "And the other one?"}, {"role": "assistant", "content": "Nothing."}, {"role": "user", "content": "Thanks."}]`
	m, err := Analyze(tpl, request(t, msgs, nil), tok, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := part(m, "message 1 (assistant)")
	if a == nil || !a.ContentOnly || a.Unmeasured {
		t.Fatalf("message 1: %+v", a)
	}
	if want := tok.Count("A cat, asleep on a blanket.") - tok.Count(""); a.Tokens != want {
		t.Errorf("message 1 measured by its content: %d tokens; want %d", a.Tokens, want)
	}
	if p := part(m, "message 3 (assistant)"); p == nil || !p.Unmeasured || p.Tokens != 0 {
		t.Errorf("message 3: %+v", p)
	}
	if p := part(m, "message 4 (user)"); p == nil || p.ContentOnly {
		t.Errorf("the last message can go: %+v", p)
	}
	notes := strings.Join(m.Notes, "\n")
	if !strings.Contains(notes, "message 1 (assistant): removing it makes the template raise; measured by emptying its content") ||
		!strings.Contains(notes, "message 3 (assistant): neither removing it nor emptying its content renders (TemplateError: Conversation roles must alternate") {
		t.Errorf("notes:\n%s", notes)
	}

	// The full request failing is the one error.
	if _, err := Analyze(tpl, request(t, `[{"role": "assistant", "content": "x"}]`, nil), tok, Options{}); err == nil {
		t.Error("a request the template refuses: no error")
	}
}

// agentRequest is a request of the kind agents send: a system prompt, n tools
// and turns with calls and results, msgs messages in all.
func agentRequest(t testing.TB, nTools, nMsgs int) template.Request {
	var tools []string
	for i := range nTools {
		tools = append(tools, toolJSON(fmt.Sprintf("tool_%02d", i), 2+i%4))
	}
	msgs := []map[string]any{{"role": "system", "content": "You are a coding agent working in a repository. Prefer small diffs and run the tests."}}
	for i := 1; len(msgs) < nMsgs; i++ {
		switch i % 3 {
		case 1:
			msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("Step %d: look at file_%d.go and fix the failing test.", i, i)})
		case 2:
			msgs = append(msgs, map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{
				"id": fmt.Sprintf("call%d", i), "type": "function",
				"function": map[string]any{"name": fmt.Sprintf("tool_%02d", i%nTools), "arguments": map[string]any{"arg0": fmt.Sprintf("file_%d.go", i)}}}}})
		default:
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": fmt.Sprintf("call%d", i-1),
				"content": strings.Repeat(fmt.Sprintf("file_%d.go:%d: func handler() error { return nil }\n", i, i), 8)})
		}
	}
	b, _ := json.Marshal(msgs)
	return request(t, string(b), tools)
}

// Counting only the window where a variant differs gives the same numbers as
// counting every variant whole; a budget groups parts.
func TestWindowedEqualsExact(t *testing.T) {
	tpl, tok := qwen3(t)
	req := agentRequest(t, 20, 10)
	exact, err := Analyze(tpl, req, tok, Options{Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	win, err := Analyze(tpl, req, tok, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !win.Windowed || exact.Windowed {
		t.Fatalf("windowed %v / %v", win.Windowed, exact.Windowed)
	}
	win.Windowed = false
	a, _ := json.Marshal(exact)
	b, _ := json.Marshal(win)
	if string(a) != string(b) {
		t.Errorf("exact:\n%s\nwindowed:\n%s", a, b)
	}
	if len(exact.Parts) != 1+20+1+9+1 || exact.Renders != 1+1+1+20+9 {
		t.Errorf("%d parts, %d renders", len(exact.Parts), exact.Renders)
	}
	if p := part(exact, "tool result 3 (tool_02)"); p == nil || p.Kind != KindToolResult || p.Tokens < 100 {
		t.Errorf("tool result: %+v", p)
	}

	g, err := Analyze(tpl, req, tok, Options{MaxRenders: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Grouped || g.Renders > 9 {
		t.Errorf("grouped %v, %d renders", g.Grouped, g.Renders)
	}
	toolSum, groupSum := 0, 0
	for _, p := range exact.Parts {
		if p.Kind == KindTool {
			toolSum += p.Tokens
		}
	}
	for _, p := range g.Parts {
		if p.Kind == KindTools {
			groupSum += p.Tokens
			if len(p.Tools) < 2 {
				t.Errorf("group %+v", p)
			}
		}
	}
	if d := toolSum - groupSum; d < -5 || d > 5 {
		t.Errorf("tools one by one %d, in groups %d", toolSum, groupSum)
	}
	if p := part(g, "tools 1-5"); p == nil || len(p.Estimates) != 5 {
		t.Errorf("no group 'tools 1-5' with estimates in %+v", g.Parts)
	}
	// Grouped tools: the warning names the largest by estimate.
	var big []string
	for i := range 30 {
		big = append(big, toolJSON(fmt.Sprintf("tool_%02d", i), 1+i%7))
	}
	g, err = Analyze(tpl, request(t, twoTurns, big), tok, Options{MaxRenders: 4})
	if err != nil {
		t.Fatal(err)
	}
	if w := g.Warning(); !strings.Contains(w, "30 tools; the largest: tool_06 (~") {
		t.Errorf("grouped warning %q", w)
	}
}

// spacePrefixCounter adds a token at the start of every text, as SentencePiece
// files that prepend "▁" do: cutting at lines changes the count, so windows
// must not be used.
type spacePrefixCounter struct{ tok *tokenize.Tokenizer }

func (c spacePrefixCounter) Count(s string) int {
	if s == "" {
		return 0
	}
	return c.tok.Count(s) + 1
}

func TestWindowsCheckedOnThePrompt(t *testing.T) {
	tpl, tok := qwen3(t)
	req := agentRequest(t, 5, 6)
	m, err := Analyze(tpl, req, spacePrefixCounter{tok}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Windowed {
		t.Error("windows used where cutting changes the count")
	}
	e, _ := Analyze(tpl, req, spacePrefixCounter{tok}, Options{Exact: true})
	a, _ := json.Marshal(m)
	b, _ := json.Marshal(e)
	if string(a) != string(b) {
		t.Errorf("fallback differs from exact:\n%s\n%s", a, b)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 49511: "49,511", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q", n, got)
		}
	}
}
