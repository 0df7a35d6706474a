package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/format"
	"github.com/dragoman-dev/dragoman/format/response"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// inspect --response-template prints the response template of the family
// that claims a model's chat template: it loads, and `dragoman parse
// --response-template` reads that family's output with it as `dragoman
// parse --format` does.
func TestInspectResponseTemplate(t *testing.T) {
	fixtures.Require(t)
	qwen := filepath.Join(fixtures.Dir(), "corpus", "templates", "Qwen-Qwen3-0.6B.jinja")
	r := dragoman(t, "", nil, "inspect", "--response-template", "--template", qwen)
	if r.status != 0 {
		t.Fatalf("status %d: %s", r.status, r.stderr)
	}
	tpl, err := response.Load([]byte(r.stdout))
	if err != nil || len(tpl.Notes) > 0 {
		t.Fatalf("the printed template does not load cleanly (%v, notes %q):\n%s", err, tpl.Notes, r.stdout)
	}
	if !strings.Contains(r.stdout, `"open_pattern": "\\s*(?:<tool_call>)"`) {
		t.Errorf("markers are escaped or missing:\n%s", r.stdout)
	}
	file := write(t, t.TempDir(), "rt.json", r.stdout)
	output := "<think>\nThe user wants weather.\n</think>\n\nLet me check. <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	byTemplate := dragoman(t, output, nil, "parse", "--response-template", file)
	byFamily := dragoman(t, output, nil, "parse", "--format", "hermes")
	if byTemplate.status != 0 || byFamily.status != 0 {
		t.Fatalf("parse: %s / %s", byTemplate.stderr, byFamily.stderr)
	}
	if got, want := withoutIDs(t, byTemplate.stdout), withoutIDs(t, byFamily.stdout); got != want {
		t.Errorf("the template reads\n%s\nthe family parser\n%s", got, want)
	}

	// From a model folder holding that chat template: the same.
	src, err := os.ReadFile(qwen)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, dir, "chat_template.jinja", string(src))
	if m := dragoman(t, "", nil, "inspect", "--response-template", "--model", dir); m.status != 0 || m.stdout != r.stdout {
		t.Errorf("--model: status %d, %s%s", m.status, m.stderr, m.stdout)
	}

	// By name: the same template.
	if n := dragoman(t, "", nil, "inspect", "--response-template", "--family", "qwen3"); n.status != 0 || n.stdout != r.stdout {
		t.Errorf("--family qwen3 (an alias of hermes): status %d, %s", n.status, n.stdout)
	}
}

// withoutIDs is a parse result with its call ids removed (they are
// generated) and the arguments decoded (their layout differs).
func withoutIDs(t *testing.T, out string) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %s", out)
	}
	calls, _ := v["tool_calls"].([]any)
	for _, c := range calls {
		call := c.(map[string]any)
		delete(call, "id")
		fn := call["function"].(map[string]any)
		var args any
		if err := json.Unmarshal([]byte(fn["arguments"].(string)), &args); err != nil {
			t.Fatalf("arguments are not JSON: %s", out)
		}
		fn["arguments"] = args
	}
	b, _ := json.Marshal(map[string]any{"content": v["content"], "reasoning_content": v["reasoning_content"], "tool_calls": calls})
	return string(b)
}

// A family the spec cannot express is an error that says why, with nothing
// on stdout; so is a chat template no family claims, or an unknown name.
func TestInspectResponseTemplateRefusals(t *testing.T) {
	lfm2, _ := format.Lookup("lfm2")
	r := dragoman(t, "", nil, "inspect", "--response-template", "--family", "lfm2")
	if r.status != 1 || r.stdout != "" || !strings.Contains(r.stderr, "family lfm2") || !strings.Contains(r.stderr, lfm2.NoResponseTemplate) {
		t.Errorf("lfm2: status %d, stdout %q, stderr %q", r.status, r.stdout, r.stderr)
	}
	plain := write(t, t.TempDir(), "plain.jinja", "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}")
	if r := dragoman(t, "", nil, "inspect", "--response-template", "--template", plain); r.status != 1 || !strings.Contains(r.stderr, "no family claims") {
		t.Errorf("a template no family claims: status %d, stderr %q", r.status, r.stderr)
	}
	if r := dragoman(t, "", nil, "inspect", "--response-template", "--family", "nonesuch"); r.status != 1 || !strings.Contains(r.stderr, "unknown family") {
		t.Errorf("an unknown family: status %d, stderr %q", r.status, r.stderr)
	}
	if r := dragoman(t, "", nil, "inspect", "--family", "hermes"); r.status != 2 {
		t.Errorf("--family without --response-template: status %d", r.status)
	}
}

// --family all lists every family once, each with a template or the reason
// it has none.
func TestInspectResponseTemplateAll(t *testing.T) {
	r := dragoman(t, "", nil, "inspect", "--response-template", "--family", "all")
	if r.status != 0 {
		t.Fatalf("status %d: %s", r.status, r.stderr)
	}
	var rows []familyTemplateRow
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("not a JSON list: %s", r.stdout)
	}
	if len(rows) != len(format.Families()) {
		t.Fatalf("%d rows for %d families", len(rows), len(format.Families()))
	}
	with := 0
	for i, row := range rows {
		f := format.Families()[i]
		if row.Family != f.ID || row.ResponseTemplate != (f.ResponseTemplate != nil) || row.Reason != f.NoResponseTemplate {
			t.Errorf("row %d %+v, family %s", i, row, f.ID)
		}
		if row.ResponseTemplate {
			with++
		}
	}
	if with == 0 || with == len(rows) {
		t.Errorf("%d of %d families with a template", with, len(rows))
	}
}
