package format

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/template"
)

// The tools of the constraint tests: every argument type a call can carry.
var constrainTools = []chat.Tool{
	{Type: "function", Function: chat.ToolFunction{Name: "lookup_weather", Description: "Weather for a city.", Parameters: json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string", "description": "City name"},
			"days": {"type": "integer", "description": "Days ahead"},
			"unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Unit"},
			"detailed": {"type": "boolean", "description": "Hourly detail"}
		},
		"required": ["city", "days"]}`)}},
	{Type: "function", Function: chat.ToolFunction{Name: "book_table", Description: "Book a table.", Parameters: json.RawMessage(`{
		"type": "object",
		"properties": {
			"restaurant": {"type": "string", "description": "Where"},
			"guests": {"type": "integer", "description": "How many"},
			"budget": {"type": "number", "description": "Most to spend"},
			"tags": {"type": "array", "items": {"type": "string"}, "description": "Wishes"},
			"filters": {"type": "object", "description": "Constraints", "properties": {
				"vegan": {"type": "boolean"}, "max_price": {"type": "number"}, "area": {"type": "string"}},
				"required": ["vegan"], "additionalProperties": false}
		},
		"required": ["restaurant", "guests"]}`)}},
}

// untypedNested are the families whose grammars admit any well-formed value
// inside an object argument (their value syntax is not generated from the
// schema below the top level; docs/ROADMAP.md).
var untypedNested = map[string]bool{}

// unescapedStrings are the families whose templates write string arguments
// between quotes without escaping them (LFM2.5: 'it's', 'C:\temp'). Their
// grammars and parsers read a quote no delimiter follows as text, so quotes
// are generated; a backslash is not, since it reads as an escape ('\t').
var unescapedStrings = map[string]bool{"lfm2": true}

var sampleStrings = []string{"Paris", "São Paulo", "New York", "東京", "x < y & z", "a \"quoted\" word", "two\nlines", "it's", "  padded  ", "C:\\temp"}

// randomCall makes a call to one of constrainTools with arguments valid for
// its schema, in the schema's order.
func randomCall(r *rand.Rand, family string, tool int) (string, []kv) {
	s := func() string {
		for {
			v := sampleStrings[r.IntN(len(sampleStrings))]
			if !unescapedStrings[family] || !strings.ContainsAny(v, `\`) {
				return v
			}
		}
	}
	switch tool {
	case 0:
		args := []kv{{"city", s()}, {"days", r.IntN(14) + 1}}
		if r.IntN(2) == 0 {
			args = append(args, kv{"unit", []string{"celsius", "fahrenheit"}[r.IntN(2)]})
		}
		if r.IntN(2) == 0 {
			args = append(args, kv{"detailed", r.IntN(2) == 0})
		}
		return "lookup_weather", args
	default:
		args := []kv{{"restaurant", s()}, {"guests", r.IntN(8) + 1}}
		if r.IntN(2) == 0 {
			args = append(args, kv{"budget", float64(r.IntN(2000)) / 8})
		}
		if r.IntN(2) == 0 {
			args = append(args, kv{"tags", []string{s(), s()}[:1+r.IntN(2)]})
		}
		if r.IntN(2) == 0 {
			f := object{{"vegan", r.IntN(2) == 0}}
			if r.IntN(2) == 0 {
				f = append(f, kv{"max_price", float64(r.IntN(400)) / 4})
			}
			if r.IntN(2) == 0 {
				f = append(f, kv{"area", s()})
			}
			args = append(args, kv{"filters", f})
		}
		return "book_table", args
	}
}

// kv is one argument, so that arguments keep their order in JSON.
type kv struct {
	k string
	v any
}

// object is a nested object argument whose members keep their order (the
// schema's) in JSON, written as Python's json.dumps writes it.
type object []kv

func (o object) MarshalJSON() ([]byte, error) { return []byte(argsJSON(o)), nil }

func argsJSON(args []kv) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(a.k)
		v, _ := json.Marshal(a.v)
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

type testCall struct {
	name string
	args []kv
}

// renderCalls renders a conversation whose assistant turn makes the calls,
// trying the shapes templates disagree on: content "" or null, arguments
// as an object or as a JSON string. It returns every render that succeeded.
func renderCalls(tpl *jinja.Template, calls []testCall) []string {
	tools, _ := json.Marshal(constrainTools)
	var outs []string
	for _, shape := range []struct {
		content    string
		stringArgs bool
	}{{`""`, false}, {`null`, false}, {`""`, true}, {`null`, true}} {
		var tc, results []string
		for i, c := range calls {
			args := argsJSON(c.args)
			if shape.stringArgs {
				j, _ := json.Marshal(args)
				args = string(j)
			}
			id := fmt.Sprintf("call%05d", i+1)
			tc = append(tc, `{"id": "`+id+`", "type": "function", "function": {"name": "`+c.name+`", "arguments": `+args+`}}`)
			results = append(results, `{"role": "tool", "tool_call_id": "`+id+`", "name": "`+c.name+`", "content": "ok"}`)
		}
		req := `{"messages": [{"role": "user", "content": "Plan my evening."},
			{"role": "assistant", "content": ` + shape.content + `, "tool_calls": [` + strings.Join(tc, ", ") + `]}, ` +
			strings.Join(results, ", ") + `, {"role": "assistant", "content": "Done."}],
			"tools": ` + string(tools) + `, "add_generation_prompt": false, "bos_token": "<s>", "eos_token": "</s>"}`
		r, err := template.ParseRequest([]byte(req))
		if err != nil {
			panic(err)
		}
		if out, err := template.Render(tpl, r, nil); err == nil {
			outs = append(outs, out)
		}
	}
	return outs
}

// findSection finds the call section in a render: text that starts with one
// of the triggers, that the rule matches as a whole, and that holds every
// call's name. It returns the longest such text for the first trigger
// position that has one.
func findSection(g *grammar.Grammar, rule string, triggers []string, render string, calls []testCall) (string, bool) {
	var starts []int
	for _, t := range triggers {
		for i := 0; ; {
			k := strings.Index(render[i:], t)
			if k < 0 {
				break
			}
			starts = append(starts, i+k)
			i += k + 1
		}
	}
	sort.Ints(starts)
	for _, i := range starts {
		best := -1
		for j := i + 1; j <= len(render); j++ {
			s := render[i:j]
			if !g.PrefixRule(rule, s) {
				break
			}
			if g.MatchRule(rule, s) {
				best = j
			}
		}
		if best < 0 {
			continue
		}
		s := render[i:best]
		all := true
		for _, c := range calls {
			all = all && strings.Contains(s, c.name)
		}
		if all {
			return s, true
		}
	}
	return "", false
}

// sourceOnly are corpus templates whose FORMATS.md row says "source": they
// render no assistant call (or raise on every shape), so there is nothing
// to check the grammar against.
func sourceOnly(t *testing.T) map[string]string {
	data, err := os.ReadFile(filepath.Join(sharedDir(t), "FORMATS.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) >= 4 && strings.HasSuffix(cells[0], ".jinja") && cells[2] == "source" {
			out[strings.TrimPrefix(cells[0], "| ")] = strings.TrimSuffix(cells[3], " |")
		}
	}
	return out
}

// For every family with a call syntax and every corpus template of that
// family: the grammar accepts the calls the template itself renders (one
// call and two, with generated arguments), the parser reads that text back
// into the same calls, and the grammar refuses mutations: an unknown name,
// a missing required argument, a wrongly typed value, broken markup.
func TestCallSyntaxMatchesTemplates(t *testing.T) {
	source := sourceOnly(t)
	byFamily := map[string][]string{}
	for name, id := range templateMap(t) {
		byFamily[id] = append(byFamily[id], name)
	}
	checked := 0
	for _, f := range Families() {
		if f.Calls == nil {
			if len(byFamily[f.ID]) > 0 {
				t.Logf("%s: no call syntax yet; %d corpus templates unchecked", f.ID, len(byFamily[f.ID]))
			}
			continue
		}
		names := byFamily[f.ID]
		sort.Strings(names)
		for _, name := range names {
			t.Run(f.ID+"/"+name, func(t *testing.T) {
				src, err := os.ReadFile(filepath.Join(sharedDir(t), "corpus", "templates", name))
				if err != nil {
					t.Fatal(err)
				}
				tpl, err := jinja.Compile(string(src))
				if err != nil {
					t.Fatal(err)
				}
				if checkTemplateCalls(t, f, tpl) {
					checked++
				} else if why, ok := source[name]; ok {
					t.Skipf("the template renders no call to check (FORMATS.md: %s)", why)
				} else {
					t.Error("no render of the generated calls matches the call grammar")
				}
			})
		}
	}
	if checked == 0 {
		t.Fatal("no template checked")
	}
}

// The corpus's own renders: the reference renderer's golden output of the
// scenario with an assistant call (s05: get_weather with an object of
// arguments) holds a call section the family's grammar, built for that
// scenario's tools, accepts, for every corpus template that renders the
// call at all.
func TestCallSyntaxMatchesCorpusGoldens(t *testing.T) {
	shared := sharedDir(t)
	const scenario = "s05_tool_call_dict_args"
	raw, err := os.ReadFile(filepath.Join(shared, "corpus", "scenarios", scenario+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Tools    []chat.Tool `json:"tools"`
		Messages []struct {
			ToolCalls []struct {
				Function struct{ Name string } `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	var calls []testCall
	for _, m := range sc.Messages {
		for _, c := range m.ToolCalls {
			calls = append(calls, testCall{name: c.Function.Name})
		}
	}
	if len(sc.Tools) == 0 || len(calls) == 0 {
		t.Fatalf("%s: no tools or no call", scenario)
	}
	source := sourceOnly(t)
	checked := 0
	for name, id := range templateMap(t) {
		f, _ := Lookup(id)
		if f == nil || f.Calls == nil {
			continue
		}
		golden, err := os.ReadFile(filepath.Join(shared, "corpus", "golden", strings.TrimSuffix(name, ".jinja")+"__"+scenario+".txt"))
		if err != nil {
			continue // the reference renderer raised (a .err golden)
		}
		c, err := f.Constrain(sc.Tools, ToolChoice{Mode: "auto"}, false)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		g, err := grammar.Parse(c.Grammar)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if _, ok := findSection(g, "root", c.Triggers, string(golden), calls); ok {
			checked++
		} else if _, ok := source[name]; !ok {
			t.Errorf("%s (%s): no call section in the golden render that the grammar accepts:\n%s", name, id, golden)
		}
	}
	t.Logf("%d corpus goldens checked", checked)
	if checked == 0 {
		t.Fatal("no golden checked")
	}
}

// checkTemplateCalls runs the checks on one template; false when the
// template renders none of the generated calls in a form the grammar
// matches.
func checkTemplateCalls(t *testing.T, f *Family, tpl *jinja.Template) bool {
	c, err := f.Constrain(constrainTools, ToolChoice{Mode: "auto"}, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Parse(c.Grammar)
	if err != nil {
		t.Fatalf("the grammar does not parse: %v\n%s", err, c.Grammar)
	}
	if err := g.Check(); err != nil {
		t.Fatalf("llama.cpp would refuse the grammar: %v", err)
	}
	required, err := f.Constrain(constrainTools, ToolChoice{Mode: "required"}, false)
	if err != nil {
		t.Fatal(err)
	}
	rg, err := grammar.Parse(required.Grammar)
	if err != nil {
		t.Fatalf("the required grammar does not parse: %v", err)
	}
	r := rand.New(rand.NewPCG(7, uint64(len(f.ID))))
	seen := 0
	var unmatched []string
	for n := 0; n < 24; n++ {
		calls := []testCall{}
		count := 1 + n%2
		if f.Calls.Single {
			count = 1
		}
		for k := 0; k < count; k++ {
			name, args := randomCall(r, f.ID, r.IntN(2))
			calls = append(calls, testCall{name, args})
		}
		var section string
		found := false
		for _, render := range renderCalls(tpl, calls) {
			if section, found = findSection(g, "root", c.Triggers, render, calls); found {
				break
			}
		}
		if !found {
			if count == 1 { // a template may render one call per turn only
				unmatched = append(unmatched, fmt.Sprint(calls))
			}
			continue
		}
		seen++
		if !rg.Match(section) {
			t.Errorf("the required grammar refuses the template's calls: %q", section)
		}
		checkParsedBack(t, f, section, calls)
		checkMutations(t, g, section, calls)
		if count == 1 {
			checkRenderMutations(t, f, g, c.Triggers, tpl, calls[0])
		}
	}
	if seen > 0 {
		for _, u := range unmatched {
			t.Errorf("calls %s: no render matches, though other calls' renders do", u)
		}
	}
	return seen > 0
}

// checkParsedBack: the family's parser reads the text the grammar accepts as
// the same calls.
func checkParsedBack(t *testing.T, f *Family, section string, calls []testCall) {
	t.Helper()
	res := Run(f.New(Options{Tools: constrainTools}), section)
	if len(res.ToolCalls) != len(calls) {
		t.Errorf("parsed %d calls from %q, want %d (content %q, diagnostics %v)", len(res.ToolCalls), section, len(calls), res.Content, res.Diagnostics)
		return
	}
	for i, c := range calls {
		got := res.ToolCalls[i]
		var a, b any
		_ = json.Unmarshal([]byte(got.Function.Arguments), &a)
		_ = json.Unmarshal([]byte(argsJSON(c.args)), &b)
		if got.Function.Name != c.name || !reflect.DeepEqual(a, b) {
			t.Errorf("parsed %s(%s) from %q, want %s(%s)", got.Function.Name, got.Function.Arguments, section, c.name, argsJSON(c.args))
		}
	}
}

// checkMutations: the grammar refuses the accepted text with an unknown
// name, or with its first or last character missing.
func checkMutations(t *testing.T, g *grammar.Grammar, section string, calls []testCall) {
	t.Helper()
	mutants := map[string]string{
		"unknown tool":        strings.Replace(section, calls[0].name, "unknown_tool", 1),
		"opener cut":          section[1:],
		"closer cut":          section[:len(section)-1],
		"wrong tool spelling": strings.Replace(section, calls[0].name, strings.ToUpper(calls[0].name[:1])+calls[0].name[1:], 1),
	}
	for what, m := range mutants {
		if g.Match(m) {
			t.Errorf("%s: the grammar accepts %q", what, m)
		}
	}
}

// checkRenderMutations: the calls the template renders with a required
// argument missing, or with a value of the wrong type, are refused.
func checkRenderMutations(t *testing.T, f *Family, g *grammar.Grammar, triggers []string, tpl *jinja.Template, c testCall) {
	t.Helper()
	missing := testCall{c.name, c.args[1:]}
	wrong := testCall{c.name, append([]kv{c.args[0], {c.args[1].k, "many"}}, c.args[2:]...)}
	mutations := map[string]testCall{"missing required argument": missing, "wrongly typed value": wrong}
	// A nested object's required member missing, or wrongly typed, where
	// the family types nested values.
	for k, a := range c.args {
		if o, ok := a.v.(object); ok && !untypedNested[f.ID] {
			args := func(v object) []kv {
				return append(append(append([]kv(nil), c.args[:k]...), kv{a.k, v}), c.args[k+1:]...)
			}
			mutations["nested required member missing"] = testCall{c.name, args(append(object{{"area", "x"}}, o[1:]...))}
			mutations["nested value wrongly typed"] = testCall{c.name, args(append(object{{"vegan", "many"}}, o[1:]...))}
		}
	}
	for what, m := range mutations {
		for _, render := range renderCalls(tpl, []testCall{m}) {
			if s, ok := findSection(g, "root", triggers, render, []testCall{m}); ok {
				t.Errorf("%s: the grammar accepts %q", what, s)
				break
			}
		}
	}
}

// Constrain's choices: none and no tools give nothing, a named function
// must be among the tools and admits only itself, required is eager.
func TestConstrainChoices(t *testing.T) {
	f, _ := Lookup("hermes")
	for _, choice := range []ToolChoice{{Mode: "none"}, {Mode: "none", Name: "lookup_weather"}} {
		if c, err := f.Constrain(constrainTools, choice, false); c != nil || err != nil {
			t.Errorf("%+v: got %v, %v", choice, c, err)
		}
	}
	if c, err := f.Constrain(nil, ToolChoice{Mode: "required"}, false); c != nil || err != nil {
		t.Errorf("no tools: got %v, %v", c, err)
	}
	if _, err := f.Constrain(constrainTools, ToolChoice{Mode: "required", Name: "nope"}, false); err == nil {
		t.Error("a name not among the tools: no error")
	}
	one := "<tool_call>\n{\"name\": \"book_table\", \"arguments\": {\"restaurant\": \"Chez Paul\", \"guests\": 2}}\n</tool_call>"
	other := "<tool_call>\n{\"name\": \"lookup_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>"
	two := one + "\n" + other
	cases := []struct {
		choice        ToolChoice
		reasoningOpen bool
		in            string
		want          bool
	}{
		{ToolChoice{Mode: "auto"}, false, one, true},
		{ToolChoice{Mode: "auto"}, false, two, true},
		{ToolChoice{Mode: "auto", Single: true}, false, two, false},
		{ToolChoice{Mode: "auto"}, false, "Sure. " + one, false}, // lazy: the grammar starts at the trigger
		{ToolChoice{Mode: "required"}, false, "Sure. " + one, false},
		{ToolChoice{Mode: "required"}, false, "<think>Need a table.</think>\n\n" + one, true},
		{ToolChoice{Mode: "required"}, true, "Need a table.</think>\n\n" + one, true},
		{ToolChoice{Mode: "required"}, true, one, false}, // reasoning was opened by the prompt: it must close
		{ToolChoice{Mode: "required"}, false, "", false},
		{ToolChoice{Mode: "required", Name: "book_table"}, false, one, true},
		{ToolChoice{Mode: "required", Name: "book_table"}, false, other, false},
		{ToolChoice{Mode: "auto", Name: "book_table"}, false, "<think>x</think>" + one, true}, // a named function is forced
	}
	for _, tc := range cases {
		c, err := f.Constrain(constrainTools, tc.choice, tc.reasoningOpen)
		if err != nil {
			t.Fatal(err)
		}
		if c.Lazy != (tc.choice.Mode == "auto" && tc.choice.Name == "") {
			t.Errorf("%+v: lazy %v", tc.choice, c.Lazy)
		}
		g, err := grammar.Parse(c.Grammar)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Match(tc.in); got != tc.want {
			t.Errorf("%+v (reasoning open %v) on %q: %v, want %v", tc.choice, tc.reasoningOpen, tc.in, got, tc.want)
		}
	}
	noSyntax := &Family{ID: "test-no-syntax"}
	if _, err := noSyntax.Constrain(constrainTools, ToolChoice{Mode: "auto"}, false); !errors.Is(err, ErrNoCallSyntax) {
		t.Errorf("a family without a call syntax: %v", err)
	}
}

func mustFamily(t testing.TB, id string) *Family {
	f, ok := Lookup(id)
	if !ok {
		t.Fatalf("no family %s", id)
	}
	return f
}

// Structural tags: one per tool, begin + schema + end; the begin and end
// around a valid arguments object parse as that call.
func TestStructuralTags(t *testing.T) {
	for _, f := range Families() {
		if f.Calls == nil || f.Calls.Tag == nil {
			continue
		}
		c, err := f.Constrain(constrainTools, ToolChoice{Mode: "auto"}, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Tags) != len(constrainTools) {
			t.Errorf("%s: %d tags", f.ID, len(c.Tags))
			continue
		}
		tag := c.Tags[1]
		text := tag.Begin + `{"restaurant": "Chez Paul", "guests": 2}` + tag.End
		res := Run(f.New(Options{Tools: constrainTools}), text)
		if len(res.ToolCalls) != 1 || res.ToolCalls[0].Function.Name != "book_table" || res.Content != "" {
			t.Errorf("%s: %q parses as %+v", f.ID, text, res)
		}
		g, _ := grammar.Parse(c.Grammar)
		if !g.Match(text) {
			t.Errorf("%s: the grammar refuses the structural tag's call %q", f.ID, text)
		}
	}
}

// The families with no corpus template that renders calls: the call grammar
// admits FORMATS.md's own examples of the markup (get_weather and get_time),
// and the parser reads that text as the same calls.
func TestCallSyntaxFormatsExamples(t *testing.T) {
	tools := []chat.Tool{
		{Type: "function", Function: chat.ToolFunction{Name: "get_weather", Parameters: json.RawMessage(`{"type": "object",
			"properties": {"location": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["location"]}`)}},
		{Type: "function", Function: chat.ToolFunction{Name: "get_time", Parameters: json.RawMessage(`{"type": "object",
			"properties": {"zone": {"type": "string"}}, "required": ["zone"]}`)}},
	}
	cases := map[string][]string{
		"functiongemma": {
			"<start_function_call>call:get_weather{location:<escape>Paris<escape>,unit:<escape>celsius<escape>}<end_function_call>",
			"<start_function_call>call:get_weather{location:<escape>Paris<escape>,unit:<escape>celsius<escape>}<end_function_call><start_function_call>call:get_time{zone:<escape>Europe/Paris<escape>}<end_function_call>",
		},
		"pythonic": {
			"[get_weather(location='Paris', unit='celsius')]",
			"[get_weather(location='Paris', unit='celsius'), get_time(zone='Europe/Paris')]",
			"<|python_start|>[get_weather(location='Paris', unit='celsius')]<|python_end|>",
		},
		"olmo3": {
			`<function_calls>get_weather(location="Paris", unit="celsius")</function_calls>`,
			"<function_calls>get_weather(location=\"Paris\", unit=\"celsius\")\nget_time(zone=\"Europe/Paris\")</function_calls>",
		},
		"step3": {
			`<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="location">Paris</steptml:parameter><steptml:parameter name="unit">celsius</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_time"><steptml:parameter name="zone">Europe/Paris</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>`,
		},
		"xlam": {
			`[{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}, {"name": "get_time", "arguments": {"zone": "Europe/Paris"}}]`,
		},
		"granite": {
			`<|tool_call|>[{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}]`,
			`<|tool_call|>[{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}, {"name": "get_time", "arguments": {"zone": "Europe/Paris"}}]`,
		},
		"internlm2": {
			"<|action_start|><|plugin|>\n{\"name\": \"get_weather\", \"parameters\": {\"location\": \"Paris\", \"unit\": \"celsius\"}}<|action_end|>",
		},
		"longcat": {
			"<longcat_tool_call>get_weather\n<longcat_arg_key>location</longcat_arg_key>\n<longcat_arg_value>Paris</longcat_arg_value>\n<longcat_arg_key>unit</longcat_arg_key>\n<longcat_arg_value>celsius</longcat_arg_value>\n</longcat_tool_call>\n<longcat_tool_call>get_time\n<longcat_arg_key>zone</longcat_arg_key>\n<longcat_arg_value>Europe/Paris</longcat_arg_value>\n</longcat_tool_call>",
		},
		"lfm2": {
			"<|tool_call_start|>[get_weather(location='Paris', unit='celsius'), get_time(zone='Europe/Paris')]<|tool_call_end|>",
		},
	}
	want := map[string]string{"get_weather": `{"location": "Paris", "unit": "celsius"}`, "get_time": `{"zone": "Europe/Paris"}`}
	for id, examples := range cases {
		f := mustFamily(t, id)
		c, err := f.Constrain(tools, ToolChoice{Mode: "auto"}, false)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		g, err := grammar.Parse(c.Grammar)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		for _, ex := range examples {
			if !g.Match(ex) {
				t.Errorf("%s: the grammar refuses FORMATS.md's %q", id, ex)
			}
			if cut := ex[:len(ex)-2]; g.Match(cut) {
				t.Errorf("%s: the grammar accepts the cut %q", id, cut)
			}
			res := Run(f.New(Options{Tools: tools}), ex)
			if len(res.ToolCalls) == 0 || res.Content != "" {
				t.Errorf("%s: %q parses as %+v", id, ex, res)
			}
			for _, call := range res.ToolCalls {
				var a, b any
				_ = json.Unmarshal([]byte(call.Function.Arguments), &a)
				_ = json.Unmarshal([]byte(want[call.Function.Name]), &b)
				if !reflect.DeepEqual(a, b) {
					t.Errorf("%s: %s(%s) from %q", id, call.Function.Name, call.Function.Arguments, ex)
				}
			}
		}
	}
}
