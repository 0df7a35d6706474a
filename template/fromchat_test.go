package template

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/jinja"
)

// FromChat is checked against the JSON path it replaced (jsonPathRequest,
// fromchat_ref_test.go) on every corpus request with every corpus template,
// on generated conversations full of the cases JSON encoding decides
// (arguments that are objects or not, numbers, text that is not UTF-8,
// kwargs of every JSON kind), and by FuzzFromChat. Two requests are the same
// when both fail, or when their template variables are the same values
// (types, dict key order, float bits) and every template renders the same
// bytes or fails on both.

// dumpTemplate prints every variable FromChat sets, as Python's repr and as
// tojson: a render that shows any difference of value, type or key order.
const dumpTemplate = `{{ messages }}|{{ messages | tojson }}|{{ tools }}|{{ tools | tojson }}|` +
	`{{ documents }}|{{ add_generation_prompt }}|{{ bos_token is defined }}{{ bos_token }}|` +
	`{{ eos_token is defined }}{{ eos_token }}|{{ enable_thinking is defined }}{{ enable_thinking }}|` +
	`{{ reasoning_effort is defined }}{{ reasoning_effort }}|` +
	`{% for m in messages %}{% for k, v in m.items() %}{{ k }}={{ v }};{% endfor %}{% endfor %}`

var fromChatNow, _ = NowFunc("2026-01-15T12:00:00")

// equivalence compares FromChat with the JSON path on c.
type equivalence struct {
	dump     *jinja.Template
	opts     *jinja.Options
	cases    int // requests compared
	built    int // of which both paths built a request
	rendered int // renders with a corpus template that both paths made (not failed)
}

func newEquivalence(tb testing.TB) *equivalence {
	dump, err := jinja.Compile(dumpTemplate)
	if err != nil {
		tb.Fatal(err)
	}
	limits := jinja.Limits{MaxOutputBytes: 4 << 20, MaxIterations: 1_000_000}
	return &equivalence{dump: dump, opts: &jinja.Options{Now: fromChatNow, Limits: limits}}
}

// check compares the two requests for c: their errors, their variables and
// their renders with the dump template and with tpls.
func (e *equivalence) check(tb testing.TB, label string, c Chat, tpls ...*jinja.Template) {
	tb.Helper()
	e.cases++
	want, wantErr := jsonPathRequest(c)
	got, gotErr := FromChat(c)
	if (wantErr != nil) != (gotErr != nil) {
		tb.Errorf("%s: JSON path error %v, FromChat error %v", label, wantErr, gotErr)
		return
	}
	if wantErr != nil {
		return
	}
	e.built++
	wantVars, wantErr := want.Vars()
	gotVars, gotErr := got.Vars()
	if (wantErr != nil) != (gotErr != nil) {
		tb.Errorf("%s: Vars: JSON path error %v, FromChat error %v", label, wantErr, gotErr)
		return
	}
	if d := diffVars(wantVars, gotVars); d != "" {
		tb.Errorf("%s: variables differ: %s", label, d)
		return
	}
	if want.HasTools() != got.HasTools() {
		tb.Errorf("%s: HasTools %v, FromChat %v", label, want.HasTools(), got.HasTools())
	}
	for i, tpl := range append([]*jinja.Template{e.dump}, tpls...) {
		w, werr := Render(tpl, want, e.opts)
		g, gerr := Render(tpl, got, e.opts)
		if w != g || (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			tb.Errorf("%s: renders differ:\nJSON path %q, %v\nFromChat  %q, %v", label, w, werr, g, gerr)
			return
		}
		if i > 0 && werr == nil {
			e.rendered++
		}
	}
}

// diffVars describes the first difference between two variable maps, or "".
func diffVars(want, got map[string]jinja.Value) string {
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	})
	if len(want) != len(got) {
		return fmt.Sprintf("%d variables, FromChat %d", len(want), len(got))
	}
	for _, k := range names {
		g, ok := got[k]
		if !ok {
			return k + ": missing"
		}
		if d := diffValue(want[k], g); d != "" {
			return k + d
		}
	}
	return ""
}

// diffValue describes where got differs from want, as Python would tell
// them apart (type, dict key order, float bits), or "".
func diffValue(want, got jinja.Value) string {
	switch w := want.(type) {
	case *jinja.Dict:
		g, ok := got.(*jinja.Dict)
		if !ok {
			return fmt.Sprintf(": dict, FromChat %T", got)
		}
		if !slices.Equal(w.Keys(), g.Keys()) {
			return fmt.Sprintf(": keys %v, FromChat %v", w.Keys(), g.Keys())
		}
		for _, k := range w.Keys() {
			wv, _ := w.Get(k)
			gv, _ := g.Get(k)
			if d := diffValue(wv, gv); d != "" {
				return fmt.Sprintf(".%v%s", k, d)
			}
		}
		return ""
	case *jinja.List:
		g, ok := got.(*jinja.List)
		if !ok {
			return fmt.Sprintf(": list, FromChat %T", got)
		}
		if len(w.Items) != len(g.Items) {
			return fmt.Sprintf(": %d items, FromChat %d", len(w.Items), len(g.Items))
		}
		for i := range w.Items {
			if d := diffValue(w.Items[i], g.Items[i]); d != "" {
				return fmt.Sprintf("[%d]%s", i, d)
			}
		}
		return ""
	case float64:
		g, ok := got.(float64)
		if !ok || math.Float64bits(w) != math.Float64bits(g) && !(math.IsNaN(w) && math.IsNaN(g)) {
			return fmt.Sprintf(": %T %v, FromChat %T %v", want, want, got, got)
		}
		return ""
	}
	if fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) || want != got {
		return fmt.Sprintf(": %T %q, FromChat %T %q", want, fmt.Sprint(want), got, fmt.Sprint(got))
	}
	return ""
}

// chatCorpus is the shared corpus as Chats: the scenarios, and the
// templates with the tokens each was rendered with.
type chatCorpus struct {
	names     []string // template file names, sorted
	templates map[string]*jinja.Template
	tokens    map[string][2]string // bos, eos ("" for null)
	scenarios map[string][]byte    // scenario name → its JSON
}

func loadChatCorpus(tb testing.TB) *chatCorpus {
	tb.Helper()
	shared := os.Getenv("DRAGOMAN_SHARED")
	if shared == "" {
		shared, _ = filepath.Abs(filepath.Join("..", "..", "shared"))
	}
	root := filepath.Join(shared, "corpus")
	if _, err := os.Stat(root); err != nil {
		tb.Skipf("corpus missing at %s (set DRAGOMAN_SHARED): %v", root, err)
	}
	c := &chatCorpus{templates: map[string]*jinja.Template{}, tokens: map[string][2]string{}, scenarios: map[string][]byte{}}
	var tokens map[string]json.RawMessage
	data, err := os.ReadFile(filepath.Join(root, "templates", "tokens.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(data, &tokens); err != nil {
		tb.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(root, "templates", "*.jinja"))
	slices.Sort(paths)
	for _, p := range paths {
		name := filepath.Base(p)
		src, err := FromFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if c.templates[name], err = jinja.Compile(src.Text); err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		var tok struct{ BOS, EOS *string }
		_ = json.Unmarshal(tokens[name], &struct {
			BOS **string `json:"bos_token"`
			EOS **string `json:"eos_token"`
		}{&tok.BOS, &tok.EOS})
		var pair [2]string
		for i, s := range []*string{tok.BOS, tok.EOS} {
			if s != nil {
				pair[i] = *s
			}
		}
		c.tokens[name] = pair
		c.names = append(c.names, name)
	}
	scenarios, _ := filepath.Glob(filepath.Join(root, "scenarios", "*.json"))
	for _, p := range scenarios {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		c.scenarios[strings.TrimSuffix(filepath.Base(p), ".json")] = data
	}
	if len(c.names) == 0 || len(c.scenarios) == 0 {
		tb.Skipf("no templates or scenarios in %s", root)
	}
	return c
}

// scenarioChat reads a corpus scenario (the OpenAI chat shape) as the
// gateway would have it: arguments given as an object become its JSON text,
// as OpenAI clients send them.
func scenarioChat(data []byte) (Chat, error) {
	var s struct {
		Messages            []map[string]json.RawMessage `json:"messages"`
		Tools               []chat.Tool                  `json:"tools"`
		AddGenerationPrompt bool                         `json:"add_generation_prompt"`
		Kwargs              map[string]json.RawMessage   `json:"kwargs"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return Chat{}, err
	}
	c := Chat{Tools: s.Tools, AddGenerationPrompt: s.AddGenerationPrompt, Kwargs: s.Kwargs}
	for _, m := range s.Messages {
		if raw, ok := m["tool_calls"]; ok {
			var calls []map[string]json.RawMessage
			if err := json.Unmarshal(raw, &calls); err == nil {
				for _, call := range calls {
					var fn map[string]json.RawMessage
					if json.Unmarshal(call["function"], &fn) != nil {
						continue
					}
					if args := bytes.TrimSpace(fn["arguments"]); len(args) > 0 && args[0] != '"' {
						fn["arguments"], _ = json.Marshal(string(args))
						call["function"], _ = json.Marshal(fn)
					}
				}
				m["tool_calls"], _ = json.Marshal(calls)
			}
		}
		data, _ := json.Marshal(m)
		var msg chat.Message
		if err := json.Unmarshal(data, &msg); err != nil {
			return Chat{}, err
		}
		c.Messages = append(c.Messages, msg)
	}
	return c, nil
}

// TestFromChatCorpus: every corpus scenario with every corpus template (and
// its tokens) renders the same through FromChat as through the JSON path.
func TestFromChatCorpus(t *testing.T) {
	corpus := loadChatCorpus(t)
	e := newEquivalence(t)
	for _, sname := range slices.Sorted(func(yield func(string) bool) {
		for k := range corpus.scenarios {
			if !yield(k) {
				return
			}
		}
	}) {
		c, err := scenarioChat(corpus.scenarios[sname])
		if err != nil {
			t.Fatalf("%s: %v", sname, err)
		}
		for _, tname := range corpus.names {
			c.BOSToken, c.EOSToken = corpus.tokens[tname][0], corpus.tokens[tname][1]
			e.check(t, tname+"__"+sname, c, corpus.templates[tname])
		}
	}
	if want := len(corpus.names) * len(corpus.scenarios); e.cases != want {
		t.Errorf("%d pairs compared, want %d", e.cases, want)
	}
	t.Logf("%d corpus pairs the same (%d rendered, the rest raise on both)", e.cases, e.rendered)
}

// TestFromChatGenerated: generated conversations, each with a corpus
// template in turn, render the same through FromChat as through the JSON
// path. The stream is fixed (seed and count below), so a failure repeats.
func TestFromChatGenerated(t *testing.T) {
	corpus := loadChatCorpus(t)
	e := newEquivalence(t)
	n := 4000
	if testing.Short() {
		n = 500
	}
	for i := range n {
		r := rand.New(rand.NewPCG(20261203, uint64(i)))
		tname := corpus.names[i%len(corpus.names)]
		c := genChat(r)
		if r.IntN(3) > 0 {
			c.BOSToken, c.EOSToken = corpus.tokens[tname][0], corpus.tokens[tname][1]
		}
		e.check(t, fmt.Sprintf("case %d (%s)", i, tname), c, corpus.templates[tname])
	}
	// The stream must reach the renders: most requests valid, many rendered.
	t.Logf("%d conversations: %d requests built, %d rendered by their template", n, e.built, e.rendered)
	if e.built < n/2 || e.rendered < n/5 {
		t.Errorf("only %d of %d requests built, %d rendered", e.built, n, e.rendered)
	}
}

// FuzzFromChat: a request read from a corpus-shaped scenario, with the text
// given laid into the fields whose JSON FromChat reads (arguments,
// parameters, a kwarg) and its content, renders the same through FromChat
// as through the JSON path, with the dump template and a corpus template.
//
//	go test ./template -run '^$' -fuzz FuzzFromChat -fuzztime 60s
func FuzzFromChat(f *testing.F) {
	corpus := loadChatCorpus(f)
	for _, data := range corpus.scenarios {
		f.Add(data, `{"b": 1, "a": [1.0, -0, 1e2, 12345678901234567890]}`, uint16(0))
		f.Add(data, " \u00a0{\"x\": \"\xff\"} ", uint16(0x1f3))
	}
	for i := range 8 {
		r := rand.New(rand.NewPCG(7, uint64(i)))
		if data, err := json.Marshal(jsonPathBody(genChat(r))); err == nil {
			f.Add(data, "[1, 2]", uint16(i*37))
		}
	}
	e := newEquivalence(f)
	f.Fuzz(func(t *testing.T, scenario []byte, text string, pick uint16) {
		c, err := scenarioChat(scenario)
		if err != nil {
			return
		}
		layText(&c, text, pick)
		tname := corpus.names[int(pick>>4)%len(corpus.names)]
		c.BOSToken, c.EOSToken = corpus.tokens[tname][0], corpus.tokens[tname][1]
		e.check(t, tname, c, corpus.templates[tname])
	})
}

// jsonPathBody is a Chat in the corpus scenario shape, for FuzzFromChat's
// seeds.
func jsonPathBody(c Chat) map[string]any {
	return map[string]any{"messages": c.Messages, "tools": c.Tools, "add_generation_prompt": c.AddGenerationPrompt, "kwargs": c.Kwargs}
}

// layText puts text where pick's low bits say: a call's arguments, a
// tool's parameters, a kwarg's JSON, a message's content.
func layText(c *Chat, text string, pick uint16) {
	if pick&1 != 0 {
		c.Messages = append(c.Messages, chat.Message{Role: chat.RoleAssistant,
			ToolCalls: []chat.ToolCall{{ID: "call00009", Function: chat.FunctionCall{Name: "f", Arguments: text}}}})
	}
	if pick&2 != 0 {
		c.Tools = append(c.Tools, chat.Tool{Type: "function", Function: chat.ToolFunction{Name: "f", Parameters: json.RawMessage(text)}})
	}
	if pick&4 != 0 {
		c.Kwargs = map[string]json.RawMessage{"fuzzed": json.RawMessage(text), text: json.RawMessage("1")}
	}
	if pick&8 != 0 {
		c.Messages = append(c.Messages, chat.Message{Role: chat.RoleUser, Content: text, Name: text})
	}
}

// genChat is a random conversation in which every field FromChat reads
// takes the values whose JSON encoding matters.
func genChat(r *rand.Rand) Chat {
	c := Chat{AddGenerationPrompt: r.IntN(2) == 0}
	for range r.IntN(4) {
		c.Tools = append(c.Tools, genChatTool(r))
	}
	for i := range 1 + r.IntN(7) {
		c.Messages = append(c.Messages, genChatMessage(r, i))
	}
	if r.IntN(3) == 0 {
		c.BOSToken, c.EOSToken = genText(r), genText(r)
	}
	switch r.IntN(3) {
	case 0:
		c.Reasoning.Enabled = new(bool)
	case 1:
		c.Reasoning.Enabled = new(bool)
		*c.Reasoning.Enabled = true
	}
	if r.IntN(3) == 0 {
		c.Reasoning.Effort = pick(r, "low", "high", genText(r))
	}
	if r.IntN(2) == 0 {
		c.Kwargs = map[string]json.RawMessage{}
		for range 1 + r.IntN(4) {
			name := pick(r, "enable_thinking", "reasoning_effort", "bos_token", "eos_token", "x", "tools_in_user_message",
				"messages", "b\xffx", "b\xfex", genText(r))
			c.Kwargs[name] = genKwarg(r)
		}
	}
	return c
}

func genChatTool(r *rand.Rand) chat.Tool {
	t := chat.Tool{Type: pick(r, "function", "function", ""), Function: chat.ToolFunction{
		Name:        pick(r, "get_weather", "run", genText(r)),
		Description: pick(r, "", "Get the weather.", genText(r)),
	}}
	switch r.IntN(6) {
	case 0: // none
	case 1:
		t.Function.Parameters = json.RawMessage(pick(r, "null", "{}", " {\n} ", `{"type": "object", "properties": {}}`))
	case 2:
		t.Function.Parameters = json.RawMessage(pick(r, "{", "NaN", `{"a": 1} x`, `{"a": "`+"\x01"+`"}`)) // not JSON: both fail
	default:
		t.Function.Parameters = json.RawMessage(genJSONObject(r, 3))
	}
	return t
}

func genChatMessage(r *rand.Rand, i int) chat.Message {
	m := chat.Message{Role: pick(r, "user", "assistant", "system", "tool", "developer", genText(r))}
	if r.IntN(5) == 0 {
		m.Parts = []chat.Part{}
		for range r.IntN(3) {
			p := chat.Part{Type: pick(r, "text", "text", "image_url", genText(r)), Text: pick(r, "", genText(r))}
			if p.Type == "image_url" || r.IntN(4) == 0 {
				p.ImageURL = pick(r, "", "https://example.com/a.png", genText(r))
			}
			m.Parts = append(m.Parts, p)
		}
	} else {
		m.Content = pick(r, "", genText(r), genText(r))
	}
	if r.IntN(3) == 0 {
		m.Reasoning = genText(r)
	}
	if r.IntN(3) == 0 {
		for j := range 1 + r.IntN(3) {
			m.ToolCalls = append(m.ToolCalls, chat.ToolCall{
				ID:       pick(r, fmt.Sprintf("call%05d", i*10+j), "", genText(r)),
				Type:     pick(r, "function", "", "other"),
				Function: chat.FunctionCall{Name: pick(r, "get_weather", genText(r)), Arguments: genArguments(r)},
			})
		}
		if r.IntN(2) == 0 {
			m.ToolCalls = []chat.ToolCall{} // present but empty: no tool_calls key
		}
	}
	if r.IntN(3) == 0 {
		m.ToolCallID = pick(r, fmt.Sprintf("call%05d", i), genText(r))
	}
	if r.IntN(4) == 0 {
		m.Name = pick(r, "get_weather", genText(r))
	}
	return m
}

// genArguments is a call's arguments text: mostly a JSON object, padded
// with JSON or Unicode space, sometimes not an object or not JSON at all.
func genArguments(r *rand.Rand) string {
	switch r.IntN(8) {
	case 0:
		return pick(r, "", " ", "[1, 2]", `"text"`, "42", "null", "{", "{} {}", `{"a": NaN}`, "{\"a\": \"\x01\"}", genText(r))
	case 1:
		return pick(r, " ", "\n\t", "\u00a0", "\u0085", "\u2028") + genJSONObject(r, 3) + pick(r, "", " ", "\u3000")
	}
	return genJSONObject(r, 3)
}

// genKwarg is a kwarg's JSON: any JSON value, nil (None), or not JSON.
func genKwarg(r *rand.Rand) json.RawMessage {
	switch r.IntN(10) {
	case 0:
		return nil
	case 1:
		return json.RawMessage(pick(r, "", "{", "NaN", "tru"))
	}
	return json.RawMessage(genJSONValue(r, 2))
}

func genJSONObject(r *rand.Rand, depth int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range r.IntN(4) {
		if i > 0 {
			b.WriteString(pick(r, ",", ", ", " ,\n"))
		}
		key := pick(r, "a", "b", "z", "location", "a", genText(r)) // "a" twice: repeated keys
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteString(pick(r, ":", ": "))
		b.WriteString(genJSONValue(r, depth-1))
	}
	b.WriteByte('}')
	return b.String()
}

func genJSONValue(r *rand.Rand, depth int) string {
	n := 9
	if depth <= 0 {
		n = 7
	}
	switch r.IntN(n) {
	case 0:
		return pick(r, "null", "true", "false")
	case 1, 2:
		return pick(r, "0", "-0", "1", "-1", "1.0", "1.5", "-0.0", "1e2", "1E-3", "2.5e+10", "12345678901234567890",
			"-9223372036854775808", "9223372036854775807", "0.1", "1e400", "3.14159265358979323846")
	case 3, 4, 5:
		s, _ := json.Marshal(genText(r))
		return string(s)
	case 6:
		return pick(r, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"a\u0000b"`, `"\/\b\f"`, "\"\xff\xfe\"")
	case 7:
		var items []string
		for range r.IntN(4) {
			items = append(items, genJSONValue(r, depth-1))
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	return genJSONObject(r, depth-1)
}

// genText is text with what JSON encoding changes or escapes: markup,
// quotes, backslashes, control characters, line separators, bytes that are
// not UTF-8, U+FFFD itself.
func genText(r *rand.Rand) string {
	pieces := []string{"hello", " ", "<think>", "</s>", "&", "\"", "\\", "'", "\n", "\t", "\x00", "\x1f", "\u2028",
		"\u2029", "é", "😀", "\xff", "\xe2\x82", "\xf0\x9f\x98", "\ufffd", "{", "}", "\u00a0", "x", "Paris", "{{", "%}"}
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// TestFromChatNesting: arguments, parameters and kwargs nested right up to
// the JSON bound fail or not through FromChat exactly where they did inside
// the request document of the JSON path.
func TestFromChatNesting(t *testing.T) {
	nested := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	e := newEquivalence(t)
	e.dump = mustCompile(t, `{{ messages | length }}`)
	for n := 9990; n <= 10001; n++ {
		e.check(t, fmt.Sprintf("arguments %d deep", n), Chat{Messages: []chat.Message{{Role: "assistant",
			ToolCalls: []chat.ToolCall{{Function: chat.FunctionCall{Name: "f", Arguments: nested(n)}}}}}})
		e.check(t, fmt.Sprintf("parameters %d deep", n), Chat{Messages: []chat.Message{},
			Tools: []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "f", Parameters: json.RawMessage(nested(n))}}}})
		e.check(t, fmt.Sprintf("kwarg %d deep", n), Chat{Messages: []chat.Message{},
			Kwargs: map[string]json.RawMessage{"x": json.RawMessage(nested(n))}})
	}
	if e.built == 0 || e.built == e.cases {
		t.Errorf("%d of %d requests built: the bound was not reached on both sides", e.built, e.cases)
	}
}

// TestFromChatValues: what FromChat makes of the cases JSON decides, checked
// on their own (the wants are what json.loads gives for the JSON path's text).
func TestFromChatValues(t *testing.T) {
	yes := true
	req, err := FromChat(Chat{
		Messages: []chat.Message{
			{Role: "assistant", ToolCalls: []chat.ToolCall{
				{ID: "call00001", Function: chat.FunctionCall{Name: "f", Arguments: " {\"z\": 1, \"a\": 1.0, \"z\": [2e0, 3]} "}},
				{Type: "custom", Function: chat.FunctionCall{Name: "g", Arguments: " [1] "}},
			}},
			{Role: "tool", ToolCallID: "call00001", Name: "f", Content: "a\xff\xfeb"},
			{Role: "user", Parts: []chat.Part{{Type: "text", Text: "hi"}, {Type: "image_url", ImageURL: "u"}}},
		},
		Tools:     []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "f", Parameters: json.RawMessage(`{"type": "object", "properties": {"z": {}, "a": {}}}`)}}},
		BOSToken:  "<s>",
		Reasoning: chat.Reasoning{Enabled: &yes, Effort: "low"},
		Kwargs:    map[string]json.RawMessage{"reasoning_effort": json.RawMessage(`"high"`), "n": nil},
	})
	if err != nil {
		t.Fatal(err)
	}
	tpl := mustCompile(t, `{{ messages }}|{{ tools[0].function.parameters | tojson }}|{{ bos_token }}|`+
		`{{ eos_token is defined }}|{{ enable_thinking }}|{{ reasoning_effort }}|{{ n is none }}`)
	got, err := Render(tpl, req, nil)
	want := `[{'role': 'assistant', 'content': '', 'tool_calls': [` +
		`{'id': 'call00001', 'type': 'function', 'function': {'name': 'f', 'arguments': {'z': [2.0, 3], 'a': 1.0}}}, ` +
		`{'type': 'custom', 'function': {'name': 'g', 'arguments': ' [1] '}}]}, ` +
		"{'role': 'tool', 'content': 'a\ufffd\ufffdb', 'tool_call_id': 'call00001', 'name': 'f'}, " +
		`{'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}, {'type': 'image_url', 'image_url': {'url': 'u'}}]}]|` +
		`{"type": "object", "properties": {"z": {}, "a": {}}}|<s>|False|True|high|True`
	if err != nil || got != want {
		t.Errorf("got  %s, %v\nwant %s", got, err, want)
	}
	if !req.HasTools() {
		t.Error("HasTools: false")
	}
	for _, bad := range []Chat{
		{Tools: []chat.Tool{{Function: chat.ToolFunction{Name: "f", Parameters: json.RawMessage(`{"a": NaN}`)}}}},
		{Kwargs: map[string]json.RawMessage{"x": json.RawMessage(`{`)}},
		{Kwargs: map[string]json.RawMessage{"x": json.RawMessage(``)}},
	} {
		if _, err := FromChat(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func mustCompile(tb testing.TB, src string) *jinja.Template {
	tb.Helper()
	tpl, err := jinja.Compile(src)
	if err != nil {
		tb.Fatal(err)
	}
	return tpl
}

// TestFromChatFieldsWin: on a request FromChat built, a raw field set
// afterwards (WithTokens, WithSpecialTokens, Messages, Tools, Kwargs) wins
// over what FromChat made, as it would on a parsed request; the model's
// special tokens stay beneath FromChat's tokens.
func TestFromChatFieldsWin(t *testing.T) {
	req, err := FromChat(Chat{Messages: []chat.Message{{Role: "user", Content: "hi"}}, BOSToken: "<s>", EOSToken: "</s>",
		Kwargs: map[string]json.RawMessage{"x": json.RawMessage(`1`)}})
	if err != nil {
		t.Fatal(err)
	}
	tpl := mustCompile(t, `{{ messages[0].content }}|{{ tools }}|{{ bos_token }}|{{ eos_token }}|{{ pad_token }}|{{ x }}`)
	withTokens, err := req.WithTokens(json.RawMessage(`"[BOS]"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	withModel, err := req.WithSpecialTokens(map[string]any{"bos_token": "<model>", "pad_token": "<pad>"})
	if err != nil {
		t.Fatal(err)
	}
	replaced := req
	replaced.Messages = json.RawMessage(`[{"role": "user", "content": "new"}]`)
	replaced.Tools = json.RawMessage(`[]`)
	replaced.Kwargs = map[string]json.RawMessage{"x": json.RawMessage(`2`)}
	for _, c := range []struct {
		name string
		req  Request
		want string
	}{
		{"as built", req, "hi|None|<s>|</s>||1"},
		{"WithTokens", withTokens, "hi|None|[BOS]|</s>||1"},
		{"WithSpecialTokens", withModel, "hi|None|<s>|</s>|<pad>|1"},
		{"fields set", replaced, "new|[]|<s>|</s>||2"},
	} {
		if got, err := Render(tpl, c.req, nil); err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	if req.HasTools() || !replaced.HasTools() {
		t.Errorf("HasTools: %v as built, %v with tools set", req.HasTools(), replaced.HasTools())
	}
}

// agentChat is a request of the kind coding agents send: a system prompt,
// nTools tools with JSON Schemas, and turns with calls (arguments as JSON
// text) and long tool results, nMsgs messages in all.
func agentChat(nTools, nMsgs int) Chat {
	c := Chat{AddGenerationPrompt: true, BOSToken: "", EOSToken: "<|im_end|>"}
	for i := range nTools {
		var props []string
		for j := range 2 + i%4 {
			props = append(props, fmt.Sprintf(`"arg%d": {"type": "string", "description": "Argument %d of tool %d: a path, a pattern or a command."}`, j, j, i))
		}
		params := fmt.Sprintf(`{"type": "object", "properties": {%s}, "required": ["arg0"], "additionalProperties": false}`, strings.Join(props, ", "))
		c.Tools = append(c.Tools, chat.Tool{Type: "function", Function: chat.ToolFunction{
			Name: fmt.Sprintf("tool_%02d", i), Description: fmt.Sprintf("Tool %d of the agent: reads, searches or edits files in the repository.", i),
			Parameters: json.RawMessage(params)}})
	}
	c.Messages = []chat.Message{{Role: chat.RoleSystem, Content: "You are a coding agent working in a repository. Prefer small diffs and run the tests."}}
	for i := 1; len(c.Messages) < nMsgs; i++ {
		switch i % 3 {
		case 1:
			c.Messages = append(c.Messages, chat.Message{Role: chat.RoleUser, Content: fmt.Sprintf("Step %d: look at file_%d.go and fix the failing test.", i, i)})
		case 2:
			c.Messages = append(c.Messages, chat.Message{Role: chat.RoleAssistant, Reasoning: "The test fails in the handler; read the file first.",
				ToolCalls: []chat.ToolCall{{ID: fmt.Sprintf("call%05d", i), Type: "function", Function: chat.FunctionCall{
					Name: fmt.Sprintf("tool_%02d", i%nTools), Arguments: fmt.Sprintf(`{"arg0": "file_%d.go", "arg1": "func handler", "limit": 200, "ratio": 0.5}`, i)}}}})
		default:
			c.Messages = append(c.Messages, chat.Message{Role: chat.RoleTool, ToolCallID: fmt.Sprintf("call%05d", i-1), Name: fmt.Sprintf("tool_%02d", (i-1)%nTools),
				Content: strings.Repeat(fmt.Sprintf("file_%d.go:%d: func handler() error { return nil }\n", i, i), 8)})
		}
	}
	return c
}

// BenchmarkAgentRender is the gateway's render step on an agent request (20
// tools, 30 messages) with Qwen3's template: the request built through the
// old JSON path or through FromChat, then rendered (each path on its own,
// and the two in turn); the building alone; and the render alone.
//
//	go test ./template -run '^$' -bench AgentRender -count 5 -benchmem
func BenchmarkAgentRender(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(loadChatCorpusRoot(b), "templates", "Qwen-Qwen3-0.6B.jinja"))
	if err != nil {
		b.Fatal(err)
	}
	tpl := mustCompile(b, string(src))
	c := agentChat(20, 30)
	opts := &jinja.Options{Now: fromChatNow}
	want, err := jsonPathRequest(c)
	if err != nil {
		b.Fatal(err)
	}
	wantOut, _ := Render(tpl, want, opts)
	b.Run("render-only", func(b *testing.B) { // the template's share: the request built beforehand
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Render(tpl, want, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The two paths in turn, each timed: a load that comes and goes weighs
	// on both alike, so their ratio holds on a shared machine.
	b.Run("alternating", func(b *testing.B) {
		var took [2]time.Duration
		for b.Loop() {
			for i, build := range [...]func(Chat) (Request, error){jsonPathRequest, FromChat} {
				start := time.Now()
				req, err := build(c)
				if err != nil {
					b.Fatal(err)
				}
				if out, err := Render(tpl, req, opts); err != nil || out != wantOut {
					b.Fatalf("render: %v", err)
				}
				took[i] += time.Since(start)
			}
		}
		b.ReportMetric(float64(took[0].Nanoseconds())/float64(b.N), "json-ns/op")
		b.ReportMetric(float64(took[1].Nanoseconds())/float64(b.N), "fromchat-ns/op")
		b.ReportMetric(float64(took[0])/float64(took[1]), "json/fromchat")
	})
	for _, path := range []struct {
		name  string
		build func(Chat) (Request, error)
	}{{"json", jsonPathRequest}, {"fromchat", FromChat}} {
		b.Run(path.name+"/render", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, err := path.build(c)
				if err != nil {
					b.Fatal(err)
				}
				if out, err := Render(tpl, req, opts); err != nil || out != wantOut {
					b.Fatalf("render: %v", err)
				}
			}
		})
		b.Run(path.name+"/request", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := path.build(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// loadChatCorpusRoot is the corpus folder, or skips.
func loadChatCorpusRoot(tb testing.TB) string {
	shared := os.Getenv("DRAGOMAN_SHARED")
	if shared == "" {
		shared, _ = filepath.Abs(filepath.Join("..", "..", "shared"))
	}
	root := filepath.Join(shared, "corpus")
	if _, err := os.Stat(root); err != nil {
		tb.Skipf("corpus missing at %s (set DRAGOMAN_SHARED): %v", root, err)
	}
	return root
}

// A schema read once is the same value the next time (an agent's tools, sent
// with every request, are read once), another schema has its own, and the
// cache empties itself when its text passes paramsCacheBytes. That no render
// writes into a shared value is what the corpus and fuzz comparisons with the
// JSON path check, their renders sharing the cache.
func TestToolParametersCached(t *testing.T) {
	a := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)
	b := json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"}}}`)
	va, err := toolParameters(a)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := toolParameters(append(json.RawMessage(nil), a...))
	vb, _ := toolParameters(b)
	if again != va {
		t.Error("the same schema was read again")
	}
	if vb == va {
		t.Error("another schema got the first one's value")
	}
	paramsCache.mu.Lock()
	paramsCache.bytes = paramsCacheBytes
	paramsCache.mu.Unlock()
	c := json.RawMessage(`{"type":"object"}`)
	toolParameters(c)
	paramsCache.mu.Lock()
	n := len(paramsCache.m)
	paramsCache.mu.Unlock()
	if n != 1 {
		t.Errorf("after the cache filled, %d schemas are held, want the new one alone", n)
	}
	if _, err := toolParameters(json.RawMessage(`{"type":`)); err == nil {
		t.Error("broken JSON was taken")
	}
}
