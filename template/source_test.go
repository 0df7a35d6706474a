package template

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// hfFolder writes files (name → content) into a fresh folder.
func hfFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), []byte(content))
	}
	return dir
}

const jinjaTmpl = `{% for m in messages %}
<|{{ m.role }}|>
{{ m.content }}
{% endfor %}
{% if tools %}TOOLS{% endif %}
{% if add_generation_prompt %}<|assistant|>
{% endif %}`

const configTmpl = `{% for m in messages %}
<|{{ m.role }}|>
{{ m.content }}
{% endfor %}
{% if add_generation_prompt %}<|assistant|>
{% endif %}`

func TestFindHFJinjaWinsWithConflict(t *testing.T) {
	dir := hfFolder(t, map[string]string{
		"chat_template.jinja": jinjaTmpl + "\n", // a trailing newline alone is no difference
		"tokenizer_config.json": `{"chat_template": ` + jsonString(configTmpl) + `,
			"bos_token": "<s>", "eos_token": {"content": "</s>", "lstrip": false, "__type": "AddedToken"},
			"pad_token": null, "unk_token": "", "added_tokens_decoder": {}}`,
	})
	s, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != KindHF || s.Text != jinjaTmpl+"\n" || s.From.Path != filepath.Join(dir, "chat_template.jinja") || s.From.Field != "" {
		t.Errorf("chose %v %q", s.From, s.Text)
	}
	if len(s.Copies) != 2 || !s.Copies[0].Used || s.Copies[1].Used || s.Copies[1].Field != "chat_template" {
		t.Errorf("copies %+v", s.Copies)
	}
	if len(s.Conflicts) != 1 {
		t.Fatalf("conflicts %+v", s.Conflicts)
	}
	c := s.Conflicts[0]
	if c.Used != s.From || c.Other.Path != filepath.Join(dir, "tokenizer_config.json") || c.Missing {
		t.Errorf("conflict %+v", c)
	}
	msg := c.String()
	for _, want := range []string{
		"chat_template.jinja and tokenizer_config.json (chat_template) hold different",
		"using chat_template.jinja",
		"ignoring tokenizer_config.json (chat_template)",
		"--- tokenizer_config.json (chat_template) (ignored)",
		"+++ chat_template.jinja (used)",
		"+{% if tools %}TOOLS{% endif %}",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("conflict message lacks %q:\n%s", want, msg)
		}
	}
	t.Log(msg)
	want := map[string]any{"bos_token": "<s>", "eos_token": "</s>"}
	if !reflect.DeepEqual(s.SpecialTokens, want) {
		t.Errorf("special tokens %v", s.SpecialTokens)
	}
}

func TestFindHFSameCopiesNoConflict(t *testing.T) {
	dir := hfFolder(t, map[string]string{
		"chat_template.jinja":   configTmpl + "\n",
		"tokenizer_config.json": `{"chat_template": ` + jsonString(configTmpl) + `}`,
	})
	s, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conflicts) != 0 || len(s.Copies) != 2 {
		t.Errorf("conflicts %v copies %d", s.Conflicts, len(s.Copies))
	}
}

func TestFindHFChatTemplateJSON(t *testing.T) {
	dir := hfFolder(t, map[string]string{
		"chat_template.json":    `{"chat_template": "FROM JSON"}`,
		"tokenizer_config.json": `{"chat_template": "FROM CONFIG", "bos_token": "<s>"}`,
	})
	s, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Text != "FROM JSON" || s.From != (Location{Path: filepath.Join(dir, "chat_template.json"), Field: "chat_template"}) {
		t.Errorf("chose %v %q", s.From, s.Text)
	}
	if len(s.Conflicts) != 1 || !strings.Contains(s.Conflicts[0].Diff, "-FROM CONFIG\n+FROM JSON") {
		t.Errorf("conflicts %+v", s.Conflicts)
	}
}

func TestFindHFNamedTemplates(t *testing.T) {
	dir := hfFolder(t, map[string]string{
		"tokenizer_config.json": `{"chat_template": [
			{"name": "default", "template": "DEFAULT"},
			{"name": "tool_use", "template": "TOOL USE"},
			{"name": "rag", "template": "RAG"}],
			"bos_token": {"content": "<bos>"}, "eos_token": "<eos>",
			"additional_special_tokens": ["<a>", {"content": "<b>"}]}`,
	})
	s, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "default" || s.Text != "DEFAULT" || s.From.Field != "chat_template[0]" {
		t.Errorf("default choice %q %q %v", s.Name, s.Text, s.From)
	}
	if got := s.Names(); !reflect.DeepEqual(got, []string{"default", "tool_use", "rag"}) {
		t.Errorf("names %v", got)
	}
	for _, tc := range []struct {
		name  string
		tools bool
		want  string
	}{{"", false, "DEFAULT"}, {"", true, "TOOL USE"}, {"rag", true, "RAG"}, {"default", true, "DEFAULT"}, {"tool_use", false, "TOOL USE"}} {
		c, err := s.Select(tc.name, tc.tools)
		if err != nil || c.Text != tc.want {
			t.Errorf("Select(%q, %v) = %q, %v; want %q", tc.name, tc.tools, c.Text, err, tc.want)
		}
	}
	if _, err := s.Select("nope", false); err == nil || !strings.Contains(err.Error(), `"rag"`) {
		t.Errorf("unknown name: %v", err)
	}
	want := map[string]any{"bos_token": "<bos>", "eos_token": "<eos>", "additional_special_tokens": []string{"<a>", "<b>"}}
	if !reflect.DeepEqual(s.SpecialTokens, want) {
		t.Errorf("special tokens %v", s.SpecialTokens)
	}
}

func TestFindHFNamedWithoutDefault(t *testing.T) {
	dir := hfFolder(t, map[string]string{
		"tokenizer_config.json": `{"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "rag", "template": "R"}]}`,
	})
	s, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Text != "" {
		t.Errorf("default text %q", s.Text)
	}
	if _, err := s.Select("", false); err == nil || !strings.Contains(err.Error(), "none named \"default\"") {
		t.Errorf("err %v", err)
	}
	if c, err := s.Select("", true); err != nil || c.Text != "T" {
		t.Errorf("tools: %q %v", c.Text, err)
	}
}

func TestFindHFAdditionalTemplates(t *testing.T) {
	dir := hfFolder(t, map[string]string{
		"chat_template.jinja":                      "MAIN",
		"additional_chat_templates/tool_use.jinja": "TOOLS",
		"tokenizer_config.json":                    `{"chat_template": [{"name": "default", "template": "MAIN"}, {"name": "tool_use", "template": "OLD TOOLS"}, {"name": "rag", "template": "RAG"}]}`,
	})
	s, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Names(); !reflect.DeepEqual(got, []string{"default", "tool_use"}) {
		t.Errorf("names %v", got)
	}
	if c, _ := s.Select("", true); c.Text != "TOOLS" {
		t.Errorf("tools template %q", c.Text)
	}
	// tool_use differs; rag exists only in the ignored config.
	if len(s.Conflicts) != 2 {
		t.Fatalf("conflicts %+v", s.Conflicts)
	}
	if c := s.Conflicts[0]; c.Name != "tool_use" || c.Missing || !strings.Contains(c.Diff, "-OLD TOOLS\n+TOOLS") {
		t.Errorf("conflict 0: %+v", c)
	}
	if c := s.Conflicts[1]; c.Name != "rag" || !c.Missing || !strings.Contains(c.String(), `has a "rag" template`) {
		t.Errorf("conflict 1: %s", c)
	}
}

func TestFindHFLegacySpecialTokensMap(t *testing.T) {
	dir := hfFolder(t, map[string]string{
		"tokenizer_config.json":   `{"chat_template": "X", "bos_token": "<old>"}`,
		"special_tokens_map.json": `{"bos_token": {"content": "<new>"}, "pad_token": "<pad>"}`,
	})
	s, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"bos_token": "<new>", "pad_token": "<pad>"}
	if !reflect.DeepEqual(s.SpecialTokens, want) {
		t.Errorf("special tokens %v", s.SpecialTokens)
	}
	// A modern config (with added_tokens_decoder) ignores special_tokens_map.json.
	dir = hfFolder(t, map[string]string{
		"tokenizer_config.json":   `{"chat_template": "X", "bos_token": "<old>", "added_tokens_decoder": {}}`,
		"special_tokens_map.json": `{"bos_token": "<new>"}`,
	})
	if s, err = Find(dir); err != nil || s.SpecialTokens["bos_token"] != "<old>" {
		t.Errorf("modern: %v %v", s.SpecialTokens, err)
	}
}

func TestFindHFErrors(t *testing.T) {
	dir := hfFolder(t, map[string]string{"tokenizer_config.json": `{"bos_token": "<s>"}`})
	if _, err := Find(dir); !errors.Is(err, ErrNoTemplate) {
		t.Errorf("no template: %v", err)
	}
	dir = hfFolder(t, map[string]string{"tokenizer_config.json": `{"chat_template": 42}`})
	if _, err := Find(dir); err == nil || !strings.Contains(err.Error(), "must be a string") {
		t.Errorf("bad field: %v", err)
	}
	dir = hfFolder(t, map[string]string{"tokenizer_config.json": `{"chat_template": `})
	if _, err := Find(dir); err == nil || !strings.Contains(err.Error(), "tokenizer_config.json") {
		t.Errorf("bad JSON: %v", err)
	}
}

func TestFindPlainFile(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "t.jinja"), []byte("a\r\nb\rc\n"))
	s, err := Find(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != KindFile || s.Text != "a\nb\nc\n" || s.From != (Location{Path: path}) || len(s.Copies) != 1 {
		t.Errorf("%+v", s)
	}
	if _, err := s.Select("tool_use", true); err == nil {
		t.Error("a named template from a single-template file")
	}
	if c, err := s.Select("", true); err != nil || c.Text != s.Text {
		t.Errorf("tools: %v", err)
	}
	writeFile(t, filepath.Join(dir, "bad.jinja"), []byte{0xff, 0xfe})
	if _, err := Find(filepath.Join(dir, "bad.jinja")); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("invalid UTF-8: %v", err)
	}
	if _, err := Find(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file")
	}
}

func TestLineDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10"
	b := "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11"
	got := LineDiff(a, b, "a", "b", 0)
	want := `--- a
+++ b
@@ -1,5 +1,5 @@
 1
 2
-3
+three
 4
 5
@@ -9,2 +9,3 @@
 9
 10
+11
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if LineDiff("x", "x", "a", "b", 0) != "" {
		t.Error("equal inputs")
	}
	var long []string
	for i := range 200 {
		long = append(long, strings.Repeat("x", i))
	}
	d := LineDiff("", strings.Join(long, "\n"), "a", "b", 40)
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	if len(lines) != 41 || !strings.HasPrefix(lines[40], "... (") {
		t.Errorf("capped diff has %d lines, last %q", len(lines), lines[len(lines)-1])
	}
	if d := LineDiff("", "x", "a", "b", 0); !strings.Contains(d, "@@ -0,0 +1 @@") {
		t.Errorf("insert into empty: %q", d)
	}
}

func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// One of a folder's JSON files named on its own gives its "chat_template"
// field (and, for tokenizer_config.json, the special tokens), never its JSON
// text as a template; a JSON file without the field is ErrNoTemplate.
func TestFindHFConfigFile(t *testing.T) {
	dir := hfFolder(t, map[string]string{
		"chat_template.jinja":         "FROM JINJA",
		"chat_template.json":          `{"chat_template": "FROM JSON"}`,
		"tokenizer_config.json":       `{"chat_template": "FROM CONFIG", "bos_token": "<s>", "added_tokens_decoder": {}}`,
		"other/tokenizer_config.json": `{"bos_token": "<s>"}`,
	})
	for _, c := range []struct{ file, text, bos string }{
		{"tokenizer_config.json", "FROM CONFIG", "<s>"},
		{"chat_template.json", "FROM JSON", ""},
	} {
		s, err := Find(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if s.Text != c.text || s.Kind != KindHF || s.From.Field != "chat_template" {
			t.Errorf("%s: chose %v %q (%s)", c.file, s.From, s.Text, s.Kind)
		}
		if bos, _ := s.SpecialTokens["bos_token"].(string); bos != c.bos {
			t.Errorf("%s: bos_token %q, want %q", c.file, bos, c.bos)
		}
	}
	if _, err := Find(filepath.Join(dir, "other", "tokenizer_config.json")); !errors.Is(err, ErrNoTemplate) {
		t.Errorf("a config without a template: %v", err)
	}
}
