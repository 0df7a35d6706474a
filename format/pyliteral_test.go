package format

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

func TestParsePyLiteral(t *testing.T) {
	cases := []struct{ in, want string }{
		{`'Paris'`, `"Paris"`},
		{`"say \"hi\"\n"`, `"say \"hi\"\n"`},
		{`'it\'s'`, `"it's"`},
		{`'a' 'b'`, `"ab"`},
		{`r'C:\new'`, `"C:\\new"`},
		{`'''multi
line'''`, `"multi\nline"`},
		{`'\u00e9\x41\N'`, `"éA\\N"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`42`, `42`},
		{`-7`, `-7`},
		{`+3`, `3`},
		{`007`, `7`},
		{`1_000`, `1000`},
		{`0x1F`, `31`},
		{`3.14`, `3.14`},
		{`.5`, `0.5`},
		{`5.`, `5`},
		{`1e5`, `1e5`},
		{`-2.5E-3`, `-2.5E-3`},
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
		{`True`, `true`}, {`false`, `false`}, {`None`, `null`}, {`null`, `null`},
		{`[1, 'a', None,]`, `[1,"a",null]`},
		{`(1, 2)`, `[1,2]`},
		{`{'b': 1, 'a': [True, {'x': "<&>"}]}`, `{"b":1,"a":[true,{"x":"<&>"}]}`},
		{`{"enabled":true, 1: 2}`, `{"enabled":true,"1":2}`},
		{`{1, 2}`, `[1,2]`},
		{`{}`, `{}`},
		{` 'x' `, `"x"`},
		{`'日本語'`, `"日本語"`},
	}
	for _, c := range cases {
		v, err := parsePyLiteral(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		got, err := pyJSON(v)
		if err != nil || got != c.want {
			t.Errorf("%s: got %s (%v), want %s", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{`'abc`, `[1, 2`, `{'a':`, `Tru`, `-`, `"\u00`, `'''abc''`} {
		if _, err := parsePyLiteral(in); !errors.Is(err, errPyIncomplete) {
			t.Errorf("%s: got %v, want incomplete", in, err)
		}
	}
	for _, in := range []string{`abc`, `[1 2]`, `{'a' 1}`, `'a' b`, `inf`, `0xZZ`, `{[1]: 2}`} {
		if _, err := parsePyLiteral(in); err == nil || errors.Is(err, errPyIncomplete) {
			t.Errorf("%s: got %v, want a syntax error", in, err)
		}
	}
}

func TestParsePyCalls(t *testing.T) {
	type want struct {
		calls string
		n     int
	}
	cases := []struct {
		in   string
		want []pyCall
		n    int
	}{
		{`[get_weather(location='Paris', unit='celsius')]`, []pyCall{{"get_weather", `{"location":"Paris","unit":"celsius"}`}}, 47},
		{`[a(x=1), b()] tail`, []pyCall{{"a", `{"x":1}`}, {"b", `{}`}}, 13},
		{`f(a=1)`, []pyCall{{"f", `{"a":1}`}}, 6},
		{"f(a=1)\ng(from=\"SFO\")</x>", []pyCall{{"f", `{"a":1}`}, {"g", `{"from":"SFO"}`}}, 20},
		{"f(a=1) and then", []pyCall{{"f", `{"a":1}`}}, 6},
		{`  brave_search.call(query="Paris weather")`, []pyCall{{"brave_search.call", `{"query":"Paris weather"}`}}, 42},
		{`[f(config={'options': [1, 2], 'nested': {'key': 'value'}})]`, []pyCall{{"f", `{"config":{"options":[1,2],"nested":{"key":"value"}}}`}}, 59},
	}
	for _, c := range cases {
		calls, n, err := parsePyCalls(c.in, false)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if n != c.n || len(calls) != len(c.want) {
			t.Errorf("%q: got %v n=%d, want %v n=%d", c.in, calls, n, c.want, c.n)
			continue
		}
		for i := range calls {
			if calls[i] != c.want[i] {
				t.Errorf("%q: call %d = %v, want %v", c.in, i, calls[i], c.want[i])
			}
		}
	}
	for _, in := range []string{``, `[`, `[get_wea`, `[f(a=`, `[f(a='x'`, `[f(a=1)`, `[f(a=1), `, `f(a=1`} {
		if _, _, err := parsePyCalls(in, false); !errors.Is(err, errPyIncomplete) {
			t.Errorf("%q: got %v, want incomplete", in, err)
		}
	}
	if calls, n, err := parsePyCalls("f(a=1)\nThe", false); !errors.Is(err, errPyIncomplete) || len(calls) != 1 || n != 6 {
		t.Errorf("bare call then a word: %v %d %v", calls, n, err)
	}
	for _, in := range []string{`[1, 2]`, `[]`, `[f('Paris')]`, `[f(a=1) g()]`, `hello world`, `[f(a=b)]`} {
		if _, _, err := parsePyCalls(in, false); err == nil || errors.Is(err, errPyIncomplete) {
			t.Errorf("%q: got %v, want a syntax error", in, err)
		}
	}
}

// pyfCase is a unit case of the families of this helper's files (mistral,
// llama3-json, pythonic, lfm2, olmo3): an output, the tools offered, and what
// must come out, diagnostics included.
type pyfCase struct {
	name     string
	in       string
	tools    []string // tool names offered
	open     bool     // reasoning forced open
	content  string
	thinking string
	calls    []string // "name args"
	ids      []string // expected ids ("" = generated)
	diags    []string // diagnostic codes, in order
}

func pyfTool(name string) chat.Tool {
	var t chat.Tool
	t.Type = "function"
	t.Function.Name = name
	t.Function.Parameters = json.RawMessage(`{"type": "object", "properties": {}}`)
	return t
}

// pyfCheck runs each case whole and byte by byte (the results must agree),
// checks that every byte is accounted for, and compares with the case.
func pyfCheck(t *testing.T, family string, cases []pyfCase) {
	t.Helper()
	fam, ok := Lookup(family)
	if !ok {
		t.Fatalf("family %s not registered", family)
	}
	for _, c := range cases {
		opts := Options{ReasoningOpen: c.open, NewID: func() string { return "gen" }}
		for _, name := range c.tools {
			opts.Tools = append(opts.Tools, pyfTool(name))
		}
		p := fam.New(opts)
		r := Run(p, c.in)
		var bytes []string
		for i := 0; i < len(c.in); i++ {
			bytes = append(bytes, c.in[i:i+1])
		}
		if b := Run(fam.New(opts), bytes...); !equalResults(b, r) {
			t.Errorf("%s/%s: byte by byte differs:\n got %+v\nwant %+v", family, c.name, b, r)
		}
		if a, ok := p.(accounter); ok {
			if n := len(r.Content) + len(r.Reasoning) + a.markupLen(); n != len(c.in) {
				t.Errorf("%s/%s: %d of %d bytes accounted for", family, c.name, n, len(c.in))
			}
		}
		if r.Content != c.content || r.Reasoning != c.thinking {
			t.Errorf("%s/%s: content %q thinking %q, want %q and %q", family, c.name, r.Content, r.Reasoning, c.content, c.thinking)
		}
		var calls []string
		for i, tc := range r.ToolCalls {
			calls = append(calls, tc.Function.Name+" "+tc.Function.Arguments)
			if i < len(c.ids) && c.ids[i] != "" && tc.ID != c.ids[i] {
				t.Errorf("%s/%s: call %d id %q, want %q", family, c.name, i, tc.ID, c.ids[i])
			}
		}
		if strings.Join(calls, "\n") != strings.Join(c.calls, "\n") {
			t.Errorf("%s/%s: calls\n%s\nwant\n%s", family, c.name, strings.Join(calls, "\n"), strings.Join(c.calls, "\n"))
		}
		var codes []string
		for _, d := range r.Diagnostics {
			codes = append(codes, d.Code)
		}
		if strings.Join(codes, ",") != strings.Join(c.diags, ",") {
			t.Errorf("%s/%s: diagnostics %v, want %v", family, c.name, r.Diagnostics, c.diags)
		}
	}
}

// TestParsePyCallsPrefixes: a bracketed call list decides as soon as it can,
// and never differently from the whole text: every prefix is either
// incomplete or gives the whole text's result (its error message included).
func TestParsePyCallsPrefixes(t *testing.T) {
	for _, s := range []string{
		"[A(00000 x",
		`[A(A={"0":"","0":true,"0":['00'B"0 x`,
		"[A(\\ x",
		"[f(a='''x''', b=r'\\d', c=b\"y\", d='a' 'b')] x",
		"[f(a=1e5, b=-0x1F, c=.5, d=Tru)] x",
		"[f(a={'k': [1, (2, 3)], 'n': None}), g()] x",
		"[f(a='é\\u00e9\\x41')] x",
		"[f(a=1), 2] x",
	} {
		wantCalls, wantN, wantErr := parsePyCalls(s, false)
		for k := 0; k < len(s); k++ {
			calls, n, err := parsePyCalls(s[:k], false)
			if errors.Is(err, errPyIncomplete) {
				continue
			}
			if n != wantN || fmt.Sprint(calls) != fmt.Sprint(wantCalls) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("%q: prefix %q gives %v %d %v, whole gives %v %d %v", s, s[:k], calls, n, err, wantCalls, wantN, wantErr)
				break
			}
		}
	}
}
