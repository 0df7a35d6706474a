package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

const countRequest = `{"messages": [{"role": "system", "content": "You are a careful coding agent."},
	{"role": "user", "content": "Read main.go and tell me what it does."}],
 "tools": [{"type": "function", "function": {"name": "read_file", "description": "Read a file.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
	{"type": "function", "function": {"name": "grep", "description": "Search the repository for a regular expression and list matching lines.",
	"parameters": {"type": "object", "properties": {"pattern": {"type": "string", "description": "The regular expression"}, "path": {"type": "string", "description": "Where to search"}}, "required": ["pattern"]}}}],
 "add_generation_prompt": true}`

// count prints the make-up of a request with the tiny model's own template
// and tokenizer: a table, largest part first, and the warning when the tools
// dominate; or JSON; a template file counts with --tokenizer.
func TestCount(t *testing.T) {
	gguf := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf")
	r := dragoman(t, countRequest, nil, "count", "--model", gguf)
	if r.status != 0 {
		t.Fatalf("status %d, stderr %q", r.status, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	if !strings.HasPrefix(lines[0], "prompt: ") || !strings.Contains(lines[0], " tokens (2 tools, 2 messages;") {
		t.Errorf("first line %q", lines[0])
	}
	var order []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) >= 3 && strings.HasSuffix(f[1], "%") && f[1] != "%" {
			order = append(order, strings.Join(f[2:], " "))
		}
	}
	if len(order) != 6 || order[0] != "tool grep" || !contains(order, "tool read_file") || !contains(order, "template") ||
		!contains(order, "system") || !contains(order, "message 1 (user)") || !contains(order, "tool instructions") {
		t.Errorf("parts %q in\n%s", order, r.stdout)
	}
	if !strings.Contains(r.stdout, "\nwarning: tools are 8") || !strings.Contains(r.stdout, "2 tools; the largest: grep (") {
		t.Errorf("no warning in\n%s", r.stdout)
	}

	dir := t.TempDir()
	reqFile := write(t, dir, "req.json", countRequest)
	j := dragoman(t, "", nil, "count", "--model", gguf, "--request", reqFile, "--json")
	var v struct {
		Total, Tools int
		Parts        []struct {
			Kind, Name string
			Tokens     int
		}
		Warning string
	}
	if err := json.Unmarshal([]byte(j.stdout), &v); err != nil || j.status != 0 {
		t.Fatalf("--json: status %d, %v: %q", j.status, err, j.stdout)
	}
	sum := 0
	for _, p := range v.Parts {
		sum += p.Tokens
	}
	if v.Total < 200 || sum != v.Total || v.Tools <= v.Total/2 || !strings.HasPrefix(v.Warning, "tools are ") {
		t.Errorf("--json: %+v", v)
	}

	// A template file, counted with the GGUF given as --tokenizer.
	qwen := filepath.Join(fixtures.Dir(), "corpus", "templates", "Qwen-Qwen3-0.6B.jinja")
	r = dragoman(t, countRequest, nil, "count", "--template", qwen, "--tokenizer", gguf)
	if r.status != 0 || !strings.Contains(r.stdout, "%  tool grep\n") {
		t.Errorf("--tokenizer: status %d %q %q", r.status, r.stdout, r.stderr)
	}
	// A system prompt that starts "</s>You": one token more than "You" when
	// the vocabulary is read as llama.cpp reads it (one control token), two
	// more as Ollama reads it (plain text: "</", "s", ">You").
	endS := strings.Replace(countRequest, `"content": "`, `"content": "</s>`, 1)
	totals := map[string]int{}
	for _, rt := range []string{"ollama", "llamacpp"} {
		for _, req := range []string{countRequest, endS} {
			j := dragoman(t, req, nil, "count", "--model", gguf, "--runtime", rt, "--json")
			var v struct{ Total int }
			if err := json.Unmarshal([]byte(j.stdout), &v); err != nil || j.status != 0 {
				t.Fatalf("--runtime %s: status %d, %v: %q %q", rt, j.status, err, j.stdout, j.stderr)
			}
			totals[rt] -= v.Total
			if req == endS {
				totals[rt] += 2 * v.Total
			}
		}
	}
	if totals["llamacpp"] != 1 || totals["ollama"] != 2 {
		t.Errorf(`tokens "</s>" adds: %v; want llamacpp 1, ollama 2`, totals)
	}
	// A template that refuses the request: status 1 and the template's error.
	raise := write(t, dir, "raise.jinja", "{{ raise_exception('no tools here') }}")
	r = dragoman(t, countRequest, nil, "count", "--template", raise, "--tokenizer", gguf)
	if r.status != 1 || r.stderr != "dragoman count: TemplateError: no tools here\n" {
		t.Errorf("raise: status %d, stderr %q", r.status, r.stderr)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestCountErrors(t *testing.T) {
	dir := t.TempDir()
	tmpl := write(t, dir, "t.jinja", chatTemplate)
	for _, c := range []struct {
		args   []string
		stdin  string
		status int
		stderr string
	}{
		{[]string{"count"}, countRequest, 2, "no template"},
		{[]string{"count", "--template", tmpl}, countRequest, 2, "no tokenizer"},
		{[]string{"count", "--template", tmpl, "--model", tmpl}, countRequest, 2, "not both"},
		{[]string{"count", "--template", tmpl, "--tokenizer", filepath.Join(dir, "missing.json")}, countRequest, 1, "missing.json"},
		{[]string{"count", "--model", tmpl}, countRequest, 1, "no tokenizer: " + dir + " has no tokenizer.json"},
		{[]string{"count", "--model", tmpl, "--runtime", "vllm"}, countRequest, 2, `--runtime: unknown runtime "vllm"`},
	} {
		r := dragoman(t, c.stdin, nil, c.args...)
		if r.status != c.status || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%v: status %d, stderr %q; want %d, %q", c.args, r.status, r.stderr, c.status, c.stderr)
		}
	}
}
