package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/jinja"
)

// probe prints what the template sees of each variable render.py passes.
const probe = `tools={{ tools }}|documents={{ documents }}|agp={{ add_generation_prompt }}|` +
	`bos={{ bos_token }}|eos={{ eos_token }}|pad={{ pad_token }}|x={{ x }}|n={{ messages | length }}|` +
	`tools_none={{ tools is none }}|bos_defined={{ bos_token is defined }}`

func renderString(t *testing.T, tmpl, request string) (string, error) {
	t.Helper()
	req, err := ParseRequest([]byte(request))
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	tp, err := jinja.Compile(tmpl)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return Render(tp, req, nil)
}

func TestRenderVariables(t *testing.T) {
	for _, tc := range []struct {
		name, req, want string
	}{
		{"absent tools are None",
			`{"messages": [{"role": "user", "content": "hi"}]}`,
			`tools=None|documents=None|agp=False|bos=|eos=|pad=|x=|n=1|tools_none=True|bos_defined=False`},
		{"null tools are None",
			`{"messages": [], "tools": null, "documents": null, "add_generation_prompt": true}`,
			`tools=None|documents=None|agp=True|bos=|eos=|pad=|x=|n=0|tools_none=True|bos_defined=False`},
		{"empty tools are a list",
			`{"messages": [], "tools": [], "add_generation_prompt": 1}`,
			`tools=[]|documents=None|agp=True|bos=|eos=|pad=|x=|n=0|tools_none=False|bos_defined=False`},
		{"special tokens, bos/eos override, null dropped",
			`{"messages": [], "special_tokens": {"bos_token": "<old>", "pad_token": "<pad>", "eos_token": null}, "bos_token": "<s>", "eos_token": null}`,
			`tools=None|documents=None|agp=False|bos=<s>|eos=|pad=<pad>|x=|n=0|tools_none=True|bos_defined=True`},
		{"kwargs override special tokens",
			`{"messages": [], "bos_token": "<s>", "eos_token": "</s>", "kwargs": {"bos_token": "KW", "x": 1.0, "pad_token": null}}`,
			`tools=None|documents=None|agp=False|bos=KW|eos=</s>|pad=None|x=1.0|n=0|tools_none=True|bos_defined=True`},
		{"falsy add_generation_prompt and kwargs",
			`{"messages": [], "add_generation_prompt": "", "kwargs": null, "special_tokens": {}}`,
			`tools=None|documents=None|agp=False|bos=|eos=|pad=|x=|n=0|tools_none=True|bos_defined=False`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := renderString(t, probe, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestRenderKeepsJSONShape(t *testing.T) {
	got, err := renderString(t, `{{ messages[0] | tojson }}`, `{"messages": [{"role": "user", "z": 1, "a": 2.0, "content": "é"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"role": "user", "z": 1, "a": 2.0, "content": "é"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestRenderErrors(t *testing.T) {
	var je *jinja.Error
	_, err := renderString(t, `x`, `{"tools": []}`)
	if !errors.As(err, &je) || je.Kind != "KeyError" || je.Message != "'messages'" {
		t.Errorf("no messages: %v", err)
	}
	_, err = renderString(t, `x`, `{"messages": [], "special_tokens": {"messages": "a"}, "kwargs": {"tools": 1}}`)
	if !errors.As(err, &je) || je.Kind != "TypeError" ||
		je.Message != "jinja2.environment.Template.render() got multiple values for keyword argument 'messages'" {
		t.Errorf("collision: %v", err)
	}
	_, err = renderString(t, `{{ raise_exception("nope") }}`, `{"messages": []}`)
	if !errors.As(err, &je) || je.Kind != "TemplateError" || je.Message != "nope" {
		t.Errorf("raise_exception: %v", err)
	}
	for _, bad := range []string{`[]`, `null`, `{"kwargs": [1]}`, `{"special_tokens": "x"}`, `{"template": 3}`, `{`} {
		if _, err := ParseRequest([]byte(bad)); err == nil {
			t.Errorf("ParseRequest(%s): no error", bad)
		}
	}
}

func TestWithSpecialTokens(t *testing.T) {
	req, err := ParseRequest([]byte(`{"messages": [], "special_tokens": {"pad_token": null}, "eos_token": "<req-eos>"}`))
	if err != nil {
		t.Fatal(err)
	}
	req, err = req.WithSpecialTokens(map[string]any{"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>"})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := jinja.Compile(probe)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Render(tp, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The request's eos_token wins, its null pad_token removes the model's.
	want := `tools=None|documents=None|agp=False|bos=<s>|eos=<req-eos>|pad=|x=|n=0|tools_none=True|bos_defined=True`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRenderSourceNamedAndClock(t *testing.T) {
	dir := hfFolder(t, map[string]string{
		"tokenizer_config.json": `{"chat_template": [
			{"name": "default", "template": "D {{ bos_token }} {{ strftime_now('%Y-%m-%d %H:%M') }}"},
			{"name": "tool_use", "template": "T {{ tools | length }} {{ eos_token }}"}],
			"bos_token": "<s>", "eos_token": {"content": "</s>"}}`,
	})
	src, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	now, err := NowFunc("2026-01-15T12:00:00")
	if err != nil {
		t.Fatal(err)
	}
	var cache Compiled
	for _, tc := range []struct{ req, want, field string }{
		{`{"messages": []}`, "D <s> 2026-01-15 12:00", "chat_template[0]"},
		{`{"messages": [], "tools": [{"type": "function"}]}`, "T 1 </s>", "chat_template[1]"},
	} {
		req, err := ParseRequest([]byte(tc.req))
		if err != nil {
			t.Fatal(err)
		}
		got, used, err := RenderSource(src, req, "", &cache, &jinja.Options{Now: now})
		if err != nil || got != tc.want || used.Field != tc.field {
			t.Errorf("%s: got %q from %s, %v; want %q", tc.req, got, used.Field, err, tc.want)
		}
	}
}

func TestParseNow(t *testing.T) {
	for in, want := range map[string]string{
		"2026-01-15T12:00:00":        "2026-01-15 12:00:00",
		"2026-01-15 08:30:05.123456": "2026-01-15 08:30:05",
		"2026-01-15":                 "2026-01-15 00:00:00",
		"2026-01-15T23:59:00+05:00":  "2026-01-15 23:59:00",
		"2026-01-15T10:00Z":          "2026-01-15 10:00:00",
	} {
		got, err := ParseNow(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if s := got.Format(time.DateTime); s != want {
			t.Errorf("%s: got %s, want %s", in, s, want)
		}
	}
	if _, err := ParseNow("yesterday"); err == nil {
		t.Error("yesterday parsed")
	}
	if f, err := NowFunc(""); f != nil || err != nil {
		t.Error("empty DRAGOMAN_NOW should mean the real clock")
	}
}

// TestRenderCorpus renders every corpus pair through Request and RenderSource,
// built the way gen_goldens.py builds its requests, when the shared corpus is
// present. The engine's own conformance test lives in package jinja; this one
// checks the request plumbing end to end.
func TestRenderCorpus(t *testing.T) {
	corpus := filepath.Join(sharedDir(t), "corpus")
	goldens, _ := filepath.Glob(filepath.Join(corpus, "golden", "*__*.*"))
	if len(goldens) == 0 {
		t.Fatalf("no goldens in %s", corpus)
	}
	var tokens map[string]map[string]json.RawMessage
	if b, err := os.ReadFile(filepath.Join(corpus, "templates", "tokens.json")); err == nil {
		_ = json.Unmarshal(b, &tokens)
	}
	now, _ := NowFunc("2026-01-15T12:00:00")
	var cache Compiled
	pass := 0
	for _, g := range goldens {
		ext := filepath.Ext(g)
		tname, sname, _ := strings.Cut(strings.TrimSuffix(filepath.Base(g), ext), "__")
		tname += ".jinja"
		src, err := FromFile(filepath.Join(corpus, "templates", tname))
		if err != nil {
			t.Fatal(err)
		}
		scen, err := os.ReadFile(filepath.Join(corpus, "scenarios", sname+".json"))
		if err != nil {
			t.Fatal(err)
		}
		req, err := ParseRequest(scen)
		if err != nil {
			t.Fatalf("%s: %v", sname, err)
		}
		req.BOSToken, req.EOSToken = tokens[tname]["bos_token"], tokens[tname]["eos_token"]
		want, _ := os.ReadFile(g)
		got, _, err := RenderSource(src, req, "", &cache, &jinja.Options{Now: now})
		ok := (ext == ".err" && err != nil) || (ext == ".txt" && err == nil && got == string(want))
		if ok {
			pass++
			continue
		}
		t.Errorf("%s: got %q, %v", filepath.Base(g), got, err)
	}
	t.Logf("corpus: %d of %d goldens match", pass, len(goldens))
}

// TestParseRequestDecodesOnce: the values ParseRequest decoded serve every
// render while the fields keep their text; a field given new text is decoded
// anew, and the caller's buffer is not kept.
func TestParseRequestDecodesOnce(t *testing.T) {
	data := []byte(`{"messages": [{"role": "user", "content": "hi"}], "kwargs": {"x": {"a": 1}}}`)
	req, err := ParseRequest(data)
	if err != nil {
		t.Fatal(err)
	}
	copy(data, bytes.Repeat([]byte(" "), len(data))) // the request must not alias data
	v1, err := req.Vars()
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := req.Vars()
	if v1["messages"] != v2["messages"] || v1["x"] != v2["x"] {
		t.Error("Vars decoded the parsed messages or kwargs again")
	}
	req.Messages = json.RawMessage(`[{"role": "assistant", "content": "new"}]`)
	tp, err := jinja.Compile(`{{ messages[0].content }} {{ x.a }}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Render(tp, req, nil); err != nil || got != "new 1" {
		t.Errorf("got %q, %v; want \"new 1\"", got, err)
	}
}

// TestParseRequestPythonValues: JSON as Python's json.loads reads it (NaN is a
// number; 1e-400 is 0.0, which is false). Wants from render.py.
func TestParseRequestPythonValues(t *testing.T) {
	got, err := renderString(t, `{{ add_generation_prompt }}|{{ x }}|{{ y }}`,
		`{"messages": [], "add_generation_prompt": 1e-400, "kwargs": {"x": NaN, "y": -Infinity}}`)
	if want := "False|nan|-inf"; err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

// TestWithTokens: the tokens are decoded once and serve every render of the
// copy; the original request is untouched, nil keeps a field, bad JSON fails.
func TestWithTokens(t *testing.T) {
	req, err := ParseRequest([]byte(`{"messages": [], "bos_token": "<s>"}`))
	if err != nil {
		t.Fatal(err)
	}
	withEOS, err := req.WithTokens(nil, json.RawMessage(`"</s>"`))
	if err != nil {
		t.Fatal(err)
	}
	both, err := withEOS.WithTokens(json.RawMessage(`"[BOS]"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := jinja.Compile(`{{ bos_token }}|{{ eos_token }}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		req  Request
		want string
	}{{req, "<s>|"}, {withEOS, "<s>|</s>"}, {both, "[BOS]|</s>"}} {
		if got, err := Render(tp, c.req, nil); err != nil || got != c.want {
			t.Errorf("got %q, %v; want %q", got, err, c.want)
		}
	}
	if len(req.decoded) != 2 || len(withEOS.decoded) != 3 || len(both.decoded) != 4 { // messages, bos_token, then one per token
		t.Errorf("decoded values kept: %d, %d, %d; want 2, 3, 4", len(req.decoded), len(withEOS.decoded), len(both.decoded))
	}
	if _, err := req.WithTokens(json.RawMessage(`"unterminated`), nil); err == nil {
		t.Error("bad token JSON: no error")
	}
}
