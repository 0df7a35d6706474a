package response

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustLoad(t *testing.T, src string) *Template {
	t.Helper()
	tpl, err := Load([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func loadShared(t *testing.T, name string) *Template {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(templatesDir(t), name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := Load(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tpl
}

// parseAll parses whole, byte by byte and in random splits, checks they
// agree, and returns the message as canonical text.
func parseAll(t *testing.T, tpl *Template, text string, opts Options) (string, []string) {
	t.Helper()
	msg, diags, err := Parse(tpl, text, opts)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	want := canonical(msg)
	rng := rand.New(rand.NewPCG(7, uint64(len(text))))
	splits := [][]string{bytewise(text)}
	for i := 0; i < 20; i++ {
		splits = append(splits, randomSplit(text, rng))
	}
	for _, pieces := range splits {
		p, _, err := NewParser(tpl, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range pieces {
			if _, err := p.Feed(c); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.Finish(); err != nil {
			t.Fatal(err)
		}
		if got := canonical(p.Message()); got != want {
			t.Fatalf("split %q: %s, whole: %s", pieces, got, want)
		}
		if len(p.Diagnostics()) != len(diags) {
			t.Fatalf("split %q: %d diagnostics, whole %d", pieces, len(p.Diagnostics()), len(diags))
		}
	}
	var codes []string
	for _, d := range diags {
		codes = append(codes, d.Code)
	}
	return want, codes
}

// Every shipped template loads, and real outputs of the templates the
// vectors do not exercise parse the same in every split.
func TestSharedTemplates(t *testing.T) {
	dir := templatesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 21 {
		t.Errorf("%d templates, want 21", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		tpl := loadShared(t, name)
		for _, n := range tpl.Notes {
			t.Logf("%s: %s", name, n)
		}
	}
	cases := []struct{ tpl, prefix, text, want string }{
		{"trl_qwen3", "", "<think>\nhmm\n</think>\n\nSure.<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\"}}\n</tool_call>\n<|im_end|>\n",
			`{"content":"Sure.","reasoning_content":"hmm","role":"assistant","tool_calls":[{"function":{"arguments":{"location":"Paris"},"name":"get_weather"},"type":"function"}]}`},
		{"trl_nemotron_3", "<|im_start|>assistant\n<think>\n", "plan it</think>\nok<|im_end|>",
			`{"content":"ok","reasoning_content":"plan it","role":"assistant"}`},
		{"trl_nemotron_3", "<|im_start|>assistant\n<think></think>", "just text<|im_end|>",
			`{"content":"just text","role":"assistant"}`},
		{"thirdparty_mistral_bracket", "", "[THINK]x[/THINK]Hi[TOOL_CALLS]get_weather[ARGS]{\"a\": 1}[TOOL_CALLS]f[ARGS]{}</s>",
			`{"content":"Hi","role":"assistant","thinking":"x","tool_calls":[{"function":{"arguments":{"a":1},"name":"get_weather"},"type":"function"},{"function":{"arguments":{},"name":"f"},"type":"function"}]}`},
		{"trl_gemma4", "<|turn>model\n", "<|channel>thought\nt<channel|>A<|tool_call>call:f{x:<|\"|>a, b<|\"|>,n:2}<tool_call|>",
			`{"content":"A","reasoning_content":"t","role":"assistant","tool_calls":[{"function":{"arguments":{"n":2,"x":"a, b"},"name":"f"},"type":"function"}]}`},
		{"trl_glm4moe", "", "<think>r</think>x<tool_call>get\n<arg_key>k</arg_key>\n<arg_value>42</arg_value></tool_call>",
			`{"content":"x","reasoning_content":"r","role":"assistant","tool_calls":[{"function":{"arguments":{"k":42},"name":"get"},"type":"function"}]}`},
		{"trl_lfm2_2_5", "", "<|tool_call_start|>[f(a='x, y', b=3), g(c=[1, 2])]<|tool_call_end|>done<|im_end|>",
			`{"content":"done","role":"assistant","tool_calls":[{"function":{"arguments":{"a":"x, y","b":3},"name":"f"},"type":"function"},{"function":{"arguments":{"c":[1,2]},"name":"g"},"type":"function"}]}`},
		{"synthetic_deepseek_v31", "", "<think>r</think>ok<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": \"名\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
			`{"content":"ok","reasoning_content":"r","role":"assistant","tool_calls":[{"function":{"arguments":{"a":"名"},"name":"f"},"type":"function"}]}`},
		{"synthetic_kimi_k2", "", "a<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
			`{"content":"a","role":"assistant","tool_calls":[{"function":{"arguments":{},"name":"get_weather"},"index":"0","type":"function"}]}`},
		{"hf_muse_glimmer", "", "<|channel|>to=self<|message|>why<|eom|><atem:invoke name=\"f\"><atem:parameter name=\"x\">7</atem:parameter></atem:invoke>",
			`{"reasoning_content":"why","role":"assistant","tool_calls":[{"function":{"arguments":{"x":7},"name":"f"},"type":"function"}]}`},
	}
	for _, c := range cases {
		t.Run(c.tpl, func(t *testing.T) {
			got, _ := parseAll(t, loadShared(t, c.tpl), c.text, Options{Prefix: c.prefix, Reference: true})
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// Dragoman's guarantees where the reference throws text away.
func TestKeepsText(t *testing.T) {
	qwenXML := loadShared(t, "hf_test_qwen3_xml")
	smol := loadShared(t, "hf_test_smollm")
	cases := []struct {
		name  string
		tpl   *Template
		text  string
		ref   string // the reference's message
		want  string // Dragoman's
		codes string
	}{
		{"no content field", qwenXML, "I'll check.\n<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>",
			`{"role":"assistant","tool_calls":[{"function":{"arguments":{"x":1},"name":"f"},"type":"function"}]}`,
			`{"content":"I'll check.","role":"assistant","tool_calls":[{"function":{"arguments":{"x":1},"name":"f"},"type":"function"}]}`, "unclaimed-text"},
		{"markup is not content", qwenXML, "<tool_call>\n<function=f>\n</function>\n</tool_call><|im_end|>",
			`{"role":"assistant","tool_calls":[{"function":{"arguments":{},"name":"f"},"type":"function"}]}`,
			`{"role":"assistant","tool_calls":[{"function":{"arguments":{},"name":"f"},"type":"function"}]}`, "stray-markup"},
		{"text before a call", smol, "first<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>second",
			`{"content":"second","role":"assistant","tool_calls":[{"function":{"arguments":{},"name":"f"},"type":"function"}]}`,
			`{"content":"first\n\nsecond","role":"assistant","tool_calls":[{"function":{"arguments":{},"name":"f"},"type":"function"}]}`, "overwritten-value"},
		{"malformed call", smol, "<think>r</think>ok<tool_call>{\"name\": \"f\", </tool_call>",
			"error",
			`{"content":"ok\n\n<tool_call>{\"name\": \"f\", </tool_call>","role":"assistant","thinking":"r"}`, "malformed-region"},
		{"truncated call", smol, "ok<tool_call>{\"name\": \"f\"",
			"error",
			`{"content":"ok\n\n<tool_call>{\"name\": \"f\"","role":"assistant"}`, "malformed-region"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg, _, err := Parse(c.tpl, c.text, Options{Reference: true})
			switch {
			case c.ref == "error" && err == nil:
				t.Errorf("reference mode parsed %s, want an error", canonical(msg))
			case c.ref != "error" && (err != nil || canonical(msg) != c.ref):
				t.Errorf("reference mode: %v %s, want %s", err, canonical(msg), c.ref)
			}
			got, codes := parseAll(t, c.tpl, c.text, Options{})
			if got != c.want || strings.Join(codes, ",") != c.codes {
				t.Errorf("got  %s %v\nwant %s %s", got, codes, c.want, c.codes)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	base := func(fields string) string {
		return `{"start_anchor": "a", "fields": ` + fields + `}`
	}
	bad := map[string]string{
		"unknown top key":     `{"start_anchor": "a", "fields": {"c": {}}, "extra": 1}`,
		"unknown field key":   base(`{"c": {"opn": "<x>"}}`),
		"version":             `{"version": 2, "start_anchor": "a", "fields": {"c": {}}}`,
		"defaults":            `{"defaults": [], "start_anchor": "a", "fields": {"c": {}}}`,
		"no fields":           `{"start_anchor": "a"}`,
		"empty fields":        base(`{}`),
		"field not object":    base(`{"c": 1}`),
		"no anchor":           `{"fields": {"c": {}}}`,
		"both anchors":        `{"start_anchor": "a", "start_anchor_pattern": "a", "fields": {"c": {}}}`,
		"both open":           base(`{"c": {"open": "x", "open_pattern": "x"}}`),
		"bad regex":           base(`{"c": {"open_pattern": "(x"}}`),
		"lookbehind":          base(`{"c": {"open_pattern": "(?<=a)x"}}`),
		"negative lookahead":  base(`{"c": {"open_pattern": "x(?!a)"}}`),
		"lookahead not tail":  base(`{"c": {"open_pattern": "(?=a)ab"}}`),
		"quantified la":       base(`{"c": {"open_pattern": "(?:x(?=a))*"}}`),
		"backref delimiter":   base(`{"c": {"open_pattern": "(a)\\1"}}`),
		"possessive":          base(`{"c": {"open_pattern": "a*+"}}`),
		"dollar not tail":     base(`{"c": {"open_pattern": "a$b"}}`),
		"unknown parser":      base(`{"c": {"content": "yaml"}}`),
		"join no repeats":     base(`{"c": {"join": ""}}`),
		"join not string":     base(`{"c": {"repeats": true, "join": 1}}`),
		"each not bool":       base(`{"c": {"transform": {}, "transform_each": 1}}`),
		"each no transform":   base(`{"c": {"transform_each": true}}`),
		"mixed placeholder":   base(`{"c": {"transform": {"a": "x {content}"}}}`),
		"groups no transform": base(`{"c": {"open_pattern": "<(?P<n>a)>"}}`),
		"two implicit":        base(`{"a": {}, "b": {}}`),
		"empty literal list":  base(`{"c": {"open": []}}`),
		"empty literal":       base(`{"c": {"open": ""}}`),
		"non-string literal":  base(`{"c": {"open": [1]}}`),
		"literal object":      base(`{"c": {"open": {}}}`),
		"repeats not bool":    base(`{"c": {"repeats": "yes"}}`),
		"not an object":       `[]`,
	}
	for name, src := range bad {
		if _, err := Load([]byte(src)); err == nil {
			t.Errorf("%s: loaded, want an error", name)
		}
	}
	if _, err := Load([]byte(base(`{"c": {"open_pattern": "x(?=a|b)", "close_pattern": "y|$"}}`))); err != nil {
		t.Errorf("tail lookahead and $: %v", err)
	}
}

// Python regex semantics that Go's regexp lacks or spells differently.
func TestPythonRegex(t *testing.T) {
	find := func(pat, text string) string {
		r, err := compileRx(pat, true)
		if err != nil {
			t.Fatalf("%s: %v", pat, err)
		}
		var out []string
		for _, m := range r.findAll(text) {
			out = append(out, "["+text[m[0]:r.consumedEnd(m)]+"]")
		}
		return strings.Join(out, "")
	}
	cases := []struct{ pat, text, want string }{
		{`\w+`, "ü名 x", "[ü名][x]"},
		{`\d`, "٣", "[٣]"},
		{`a\sb`, "a\u00a0b", "[a\u00a0b]"},
		{`\S+`, "a\u3000b", "[a][b]"},
		{`^x`, "xx", "[x]"},
		{`x$`, "x\n", "[x]"},
		{`x$`, "x\ny", ""},
		{`x\Z`, "x\n", ""},
		{`a(?=b)`, "ab ac", "[a]"},
		{`.`, "\n", "[\n]"},
		{`\bé`, "é xé", "[é]"},
		{`a{,2}`, "aaa", "[aa][a][]"},
		{`<(?P<k>\w+)>(?P<v>.*?)</\1>`, "<a><b>1</b></a><c>2</c>", "[<a><b>1</b></a>][<c>2</c>]"},
		{`[\s\S]+`, "a\nb", "[a\nb]"},
	}
	for _, c := range cases {
		if got := find(c.pat, c.text); got != c.want {
			t.Errorf("%s on %q: %s, want %s", c.pat, c.text, got, c.want)
		}
	}
}

// The matcher holds text back exactly while more input could change a
// decision, and no longer.
func TestHoldBack(t *testing.T) {
	tpl := mustLoad(t, `{"start_anchor": "a", "fields": {"content": {}, "t": {"open": "<t>", "close_pattern": "</t>\\s*", "transform": "{content}"}}}`)
	p, _, _ := NewParser(tpl, Options{})
	evs, _ := p.Feed("hello <")
	if len(evs) != 2 || evs[1].Text != "hello " {
		t.Fatalf("events %+v: want the text before a possible opener released", evs)
	}
	evs, _ = p.Feed("x")
	if len(evs) != 1 || evs[0].Text != "<x" {
		t.Fatalf("events %+v: want <x released once it cannot open", evs)
	}
	p.Feed("<t>a</t>")
	evs, _ = p.Feed("  ")
	for _, e := range evs {
		if e.Type == "region_close" {
			t.Fatalf("close committed while its \\s* could still grow: %+v", evs)
		}
	}
	evs, _ = p.Feed("b")
	if len(evs) == 0 || evs[0].Type != "region_close" {
		t.Fatalf("events %+v: want the close committed", evs)
	}
	// a split UTF-8 character is held until complete
	p2, _, _ := NewParser(tpl, Options{})
	evs, _ = p2.Feed("a\xe5")
	if len(evs) != 2 || evs[1].Text != "a" {
		t.Fatalf("events %+v: want the partial character held", evs)
	}
}

// The spec's order at one position: longer first, then opener before close.
func TestTieRules(t *testing.T) {
	tpl := mustLoad(t, `{"start_anchor": "a", "fields": {"content": {"close": "<x>"}, "b": {"open": "<t", "close": "</t>"}, "c": {"open": "<tool>", "close": "</tool>"}, "d": {"open": "<x>"}}}`)
	got, _ := parseAll(t, tpl, "hi<tool>call</tool>then<x>rest", Options{Reference: true})
	if want := `{"c":"call","content":"then","d":"rest"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// The prefix is cut after the last start anchor, literal or pattern.
func TestPrefixLastAnchor(t *testing.T) {
	for _, anchor := range []string{`"start_anchor": ["<A>", "<B>"]`, `"start_anchor_pattern": "<[AB]>"`} {
		tpl := mustLoad(t, `{`+anchor+`, "fields": {"content": {}, "r": {"open": "<r>", "close": "</r>"}}}`)
		got, _ := parseAll(t, tpl, "answer", Options{Prefix: "<A>old<B><r>new<A><r>", Reference: true})
		if want := `{"r":"answer"}`; got != want {
			t.Errorf("%s: got %s, want %s", anchor, got, want)
		}
	}
}

// text strips Python's whitespace: U+00A0, U+3000, U+0085, U+001C–U+001F.
func TestPythonStrip(t *testing.T) {
	tpl := mustLoad(t, `{"start_anchor": "a", "fields": {"content": {}}}`)
	got, _ := parseAll(t, tpl, "\u00a0\u3000\x1c hi \u0085\x1f", Options{Reference: true})
	if got != `{"content":"hi"}` {
		t.Errorf("got %s", got)
	}
}

// Casting by schema: whole numbers without a '.' become integers.
func TestCastNumbers(t *testing.T) {
	for in, want := range map[string]Number{"1e3": {Lit: "1000"}, "2.0": {Lit: "2", Float: true}, "7": {Lit: "7"}} {
		got, ok := castString(in, []string{"number"}).(Number)
		if !ok || got.Float != want.Float || canonical(got) != canonical(want) {
			t.Errorf("%s: %#v, want %#v", in, got, want)
		}
	}
	if got := castString("007", []string{"integer", "string"}); canonical(got) != "7" {
		t.Errorf("007: %v", got)
	}
	if got := castString("007", []string{"string"}); got != "007" {
		t.Errorf("007 as string: %v", got)
	}
}

// A pattern delimiter that ends where the text ends waits for more, even
// when nothing could extend it (the spec's rule; events only).
func TestRegexEndWaits(t *testing.T) {
	tpl := mustLoad(t, `{"start_anchor": "a", "fields": {"u": {"open": "<u>", "close_pattern": "</u>"}}}`)
	p, _, _ := NewParser(tpl, Options{Reference: true})
	evs, _ := p.Feed("<u>a</u>")
	for _, e := range evs {
		if e.Type == "region_close" {
			t.Fatalf("closed before more input: %+v", evs)
		}
	}
	if evs, _ = p.Feed("b"); len(evs) == 0 || evs[0].Type != "region_close" {
		t.Fatalf("events %+v: want the close", evs)
	}
}

// Scope precedence: element keys over the opener's groups (transform_each),
// content over a group named content.
func TestTransformScope(t *testing.T) {
	each := mustLoad(t, `{"start_anchor": "a", "fields": {"x": {"open_pattern": "<x (?P<name>\\w+) (?P<g>\\w+)>", "close": "</x>", "content": "json", "transform_each": true, "transform": {"n": "{name}", "g": "{g}"}}}}`)
	got, _ := parseAll(t, each, `<x outer grp>[{"name": "inner"}, {"other": 1}]</x>`, Options{Reference: true})
	if want := `{"x":[{"g":"grp","n":"inner"},{"g":"grp","n":"outer"}]}`; got != want {
		t.Errorf("transform_each: got %s, want %s", got, want)
	}
	plain := mustLoad(t, `{"start_anchor": "a", "fields": {"x": {"open_pattern": "<x (?P<content>\\w+)>", "close": "</x>", "transform": {"v": "{content}"}}}}`)
	got, _ = parseAll(t, plain, `<x group>body</x>`, Options{Reference: true})
	if want := `{"x":{"v":"body"}}`; got != want {
		t.Errorf("content: got %s, want %s", got, want)
	}
}

// The three corner cases where the reference's streaming departs from its own
// one-shot answer (README, "Streaming"): here every split gives the one-shot
// answer.
func TestReferenceStreamingCaveats(t *testing.T) {
	cases := []struct{ tpl, text, want string }{
		{`{"start_anchor": "a", "fields": {"content": {}, "x": {"open": "<x>", "close_pattern": "end(?:ing)?", "transform": "{content}"}}}`,
			"<x>body ending tail", `{"content":"tail","x":"body"}`},
		{`{"start_anchor": "a", "fields": {"content": {"close_pattern": "<eot>|$"}, "r": {"open": "<r>", "close": "</r>"}}}`,
			"hello<eot>", `{"content":"hello"}`},
		{`{"start_anchor": "a", "fields": {"content": {}, "w": {"open_pattern": "\\bgo\\b", "close": ";"}}}`,
			"ago go now;", `{"content":"ago","w":"now"}`},
	}
	for _, c := range cases {
		got, _ := parseAll(t, mustLoad(t, c.tpl), c.text, Options{Reference: true})
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.text, got, c.want)
		}
	}
}

// Zero-width delimiters that hand over to each other at one position still
// end: each fires once there.
func TestZeroWidthTerminates(t *testing.T) {
	tpl := mustLoad(t, `{"start_anchor": "a", "fields": {"content": {}, "z": {"open_pattern": "(?=x)", "close_pattern": "(?=x)"}}}`)
	got, _ := parseAll(t, tpl, "abxcd", Options{Reference: true})
	if got != `{"content":"xcd"}` {
		t.Errorf("got %s", got)
	}
}

// The content parsers' Python rules and options.
func TestContentParsers(t *testing.T) {
	one := func(field, text string) (string, error) {
		tpl := mustLoad(t, `{"start_anchor": "a", "fields": {"v": `+field+`}}`)
		msg, _, err := Parse(tpl, "<v>"+text+"</v>", Options{Reference: true})
		if err != nil {
			return "", err
		}
		return canonical(msg.Val("v")), nil
	}
	ok := []struct{ field, text, want string }{
		{`{"open": "<v>", "close": "</v>", "content": "int"}`, " -1_000 ", "-1000"},
		{`{"open": "<v>", "close": "</v>", "content": "int"}`, "123456789012345678901234567890", "123456789012345678901234567890"},
		{`{"open": "<v>", "close": "</v>", "content": "float"}`, "1e3", "1000"},
		{`{"open": "<v>", "close": "</v>", "content": "bool"}`, " TRUE ", "true"},
		{`{"open": "<v>", "close": "</v>", "content": "bool"}`, "yes", "false"},
		{`{"open": "<v>", "close": "</v>", "content": "bool"}`, "1", "true"},
		{`{"open": "<v>", "close": "</v>", "content": "text", "content_args": {"strip": false}}`, " a ", `" a "`},
		{`{"open": "<v>", "close": "</v>", "content": "json"}`, ` {"a": 1, "a": 2, "b": 1.0} `, `{"a":2,"b":1}`},
		{`{"open": "<v>", "close": "</v>", "content": "json", "content_args": {"allow_non_json": true}}`, " Paris ", `"Paris"`},
		{`{"open": "<v>", "close": "</v>", "content": "json", "content_args": {"unquoted_keys": true, "string_delims": [["<q>", "</q>"]]}}`,
			`{city:<q>a{b:c}</q>,n:1}`, `{"city":"a{b:c}","n":1}`},
		{`{"open": "<v>", "close": "</v>", "content": "kv-lines", "content_args": {"line_sep": ";", "kv_sep": "=", "value_parser": {"name": "int"}}}`,
			"a = 1; junk ;b=2;a=3", `{"a":3,"b":2}`},
		{`{"open": "<v>", "close": "</v>", "content": "xml-inline", "content_args": {"tag_pattern": "<(?P<key>\\w+)>(?P<value>[^<]*)</\\w+>", "strict": true}}`,
			" <a>1</a> <b>2</b> ", `{"a":"1","b":"2"}`},
	}
	for _, c := range ok {
		got, err := one(c.field, c.text)
		if err != nil || got != c.want {
			t.Errorf("%s on %q: %s %v, want %s", c.field, c.text, got, err, c.want)
		}
	}
	bad := []struct{ field, text string }{
		{`{"open": "<v>", "close": "</v>", "content": "int"}`, "1__0"},
		{`{"open": "<v>", "close": "</v>", "content": "int"}`, "1.0"},
		{`{"open": "<v>", "close": "</v>", "content": "float"}`, "0x10"},
		{`{"open": "<v>", "close": "</v>", "content": "json"}`, `{"a": 1} x`},
		{`{"open": "<v>", "close": "</v>", "content": "json"}`, ``},
		{`{"open": "<v>", "close": "</v>", "content": "json", "content_args": {"string_delims": [["'", "'"]]}}`, "'\x01'"},
		{`{"open": "<v>", "close": "</v>", "content": "xml-inline", "content_args": {"tag_pattern": "<(?P<key>\\w+)>(?P<value>[^<]*)</\\w+>", "strict": true}}`, "<a>1</a> stray"},
		{`{"open": "<v>", "close": "</v>", "content": "xml-inline", "content_args": {"tag_pattern": "<(?P<key>\\w+)>(?P<value>[^<]*)</\\w+>", "strict": true}}`, "<a>1</a> stray <b>2</b>"},
		{`{"open": "<v>", "close": "</v>", "content": "xml-inline"}`, "<a>1</a>"},
	}
	if n, _ := pyFloat("2"); encodeValue(n) != "2.0" {
		t.Errorf("float 2 written as %s, want 2.0", encodeValue(n))
	}
	for _, c := range bad {
		if got, err := one(c.field, c.text); err == nil {
			t.Errorf("%s on %q: %s, want an error", c.field, c.text, got)
		}
	}
}
