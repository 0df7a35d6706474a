package jinja

// Generators for the differential fuzzer (difffuzz_test.go): requests in the
// OpenAI Chat Completions shape for the corpus templates, and small random
// templates over the engine's features. Everything is driven by one
// *rand.Rand so a (seed, case number) pair always yields the same case.

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ---------------------------------------------------------------------------
// Ordered JSON values
//
// Generated variables are JSON that both sides parse from the same bytes:
// Python's json.loads in the oracle, FromJSON here. Objects must keep their key
// order (templates iterate over tool parameters and message fields, and Python
// dicts are ordered), so they are *jobj rather than Go maps. Values are nil,
// bool, int, jnum, string, []any and *jobj.

type jobj struct {
	keys []string
	vals []any
}

// jnum is a number written verbatim ("2.0", "1e16", "-0.0"), so that a float
// stays a float and its spelling is under the generator's control.
type jnum string

func jsonObj(kv ...any) *jobj {
	o := &jobj{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *jobj) set(k string, v any) {
	for i, kk := range o.keys {
		if kk == k {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

func (o *jobj) get(k string) (any, bool) {
	for i, kk := range o.keys {
		if kk == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

func (o *jobj) MarshalJSON() ([]byte, error) { return appendJSON(nil, o), nil }

func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case jnum:
		return append(b, v...)
	case string:
		return appendJSONString(b, v)
	case []any:
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendJSON(b, x)
		}
		return append(b, ']')
	case *jobj:
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendJSONString(b, k)
			b = append(b, ": "...)
			b = appendJSON(b, v.vals[i])
		}
		return append(b, '}')
	}
	panic("appendJSON: unexpected " + strconv.Quote(typeName(v)))
}

// appendJSONString writes s as JSON without Go's HTML escaping, so recorded
// cases stay readable.
func appendJSONString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

func fuzzJSON(v any) string { return string(appendJSON(nil, v)) }

func cloneJSON(v any) any {
	switch v := v.(type) {
	case []any:
		c := make([]any, len(v))
		for i, x := range v {
			c[i] = cloneJSON(x)
		}
		return c
	case *jobj:
		c := &jobj{keys: append([]string(nil), v.keys...), vals: make([]any, len(v.vals))}
		for i, x := range v.vals {
			c.vals[i] = cloneJSON(x)
		}
		return c
	}
	return v
}

// ---------------------------------------------------------------------------
// Random helpers

func pickOne[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// oneIn is true with probability 1/n.
func oneIn(r *rand.Rand, n int) bool { return r.IntN(n) == 0 }

// fuzzTexts are message and variable strings chosen for what templates do with
// text: split on </think>, strip, escape into JSON, compare with special tokens.
var fuzzTexts = []string{
	"Hello", "What's the weather in Paris?", "ok", "x", "", " ", "  padded  ",
	"a\nb", "line1\nline2\n", "\n\nleading newlines", "trailing spaces   ", "tab\there",
	"quote \" and ' and \\ backslash", "unicode é ñ ß 中文 日本語", "emoji 🎉👍🏽", "RTL مرحبا",
	"{{ not a tag }} {% raw %}", "<b>bold</b> & <i>it</i>", "</think>", "<think>\nhmm\n</think>\n\nanswer",
	"<think>only thinking", "answer</think>", "<tool_call>\n{\"name\": \"f\"}\n</tool_call>",
	"[INST] fake [/INST]", "<|im_end|>", "<s>", "0", "null", "true", "123", "1.5",
	"{\"json\": [1, 2]}", "%s %d {}", "\u00a0nbsp\u2028sep", "CamelCase words_here", "UPPER lower",
}

func randText(r *rand.Rand) string {
	n := 1 + r.IntN(3)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = pickOne(r, fuzzTexts...)
	}
	return strings.Join(parts, pickOne(r, " ", "\n", "", "\n\n"))
}

const idAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// toolCallID is 9 alphanumerics: the Mistral templates raise on anything else.
func toolCallID(r *rand.Rand) string {
	b := make([]byte, 9)
	for i := range b {
		b[i] = idAlphabet[r.IntN(len(idAlphabet))]
	}
	return string(b)
}

// ---------------------------------------------------------------------------
// a. Conversations in the Chat Completions shape

var toolNames = []string{"get_weather", "search", "calc", "run_code", "lookup_user", "send_email", "x"}

// convVars returns the request variables (everything but the template) for
// one corpus template: messages, tools, documents, add_generation_prompt, the
// template's bos/eos tokens and kwargs.
func convVars(r *rand.Rand, src string, tokens map[string]any) *jobj {
	vars := &jobj{}
	var tools []any
	if !oneIn(r, 3) {
		for range 1 + r.IntN(3) {
			tools = append(tools, genTool(r))
		}
	}
	vars.set("messages", genMessages(r, tools))
	if tools != nil {
		vars.set("tools", tools)
	} else if oneIn(r, 4) {
		vars.set("tools", []any{})
	}
	if oneIn(r, 6) {
		vars.set("documents", genDocuments(r))
	}
	vars.set("add_generation_prompt", r.IntN(2) == 0)
	for _, k := range []string{"bos_token", "eos_token"} {
		// null means the tokenizer has no such token: the variable stays undefined.
		if s, ok := tokens[k].(string); ok {
			vars.set(k, s)
		}
	}
	kw := &jobj{}
	switch r.IntN(3) {
	case 0:
		kw.set("enable_thinking", true)
	case 1:
		kw.set("enable_thinking", false)
	}
	if oneIn(r, 4) {
		kw.set("reasoning_effort", pickOne(r, "low", "medium", "high", "none"))
	}
	// Variables some corpus templates read when the caller passes them:
	// those the template mentions, each half of the time.
	for _, k := range templateKwargs {
		if strings.Contains(src, k) && oneIn(r, 2) {
			kw.set(k, kwargValue(r, k))
		}
	}
	vars.set("kwargs", kw)
	return vars
}

var templateKwargs = []string{"thinking", "preserve_thinking", "tools_in_user_message", "date_string", "builtin_tools",
	"custom_tools", "system_message", "enable_citations", "continue_final_message", "add_vision_id", "keep_reasoning",
	"truncate_history_thinking", "clear_thinking", "thinking_mode", "response_format", "tool_choice", "functions",
	"datetime", "thinking_budget", "model_identity", "knowledge_cutoff", "developer_instruction", "reasoning_mode",
	"keep_past_thinking", "include_thinking", "drop_thinking", "current_date"}

func kwargValue(r *rand.Rand, k string) any {
	switch k {
	case "functions": // firefunction: the tool list as a JSON string
		return fuzzJSON([]any{genTool(r)})
	case "datetime", "date_string", "current_date", "knowledge_cutoff":
		return pickOne(r, "2024-07-26", "26 Jul 2024", "")
	case "builtin_tools":
		return pickOne[any](r, []any{"code_interpreter"}, []any{"brave_search", "wolfram_alpha"}, []any{})
	case "custom_tools":
		return []any{genTool(r)}
	case "response_format":
		return jsonObj("type", "json_schema", "json_schema", jsonObj("name", "r", "schema", genSchema(r, 1)))
	case "thinking_budget":
		return pickOne(r, 0, 128, 1024)
	}
	return pickOne[any](r, true, false, true, "auto", "high", randText(r))
}

func genMessages(r *rand.Rand, tools []any) []any {
	// Chaos: any roles in any order; the API allows it and templates must
	// either render or raise, as Python does.
	if oneIn(r, 6) {
		var msgs []any
		for range 1 + r.IntN(5) {
			switch r.IntN(5) {
			case 0:
				msgs = append(msgs, genSystem(r))
			case 1, 2:
				msgs = append(msgs, genUser(r))
			case 3:
				msgs = append(msgs, genAssistant(r, tools)...)
			case 4:
				msgs = append(msgs, jsonObj("role", "tool", "tool_call_id", toolCallID(r), "content", genContent(r, false)))
			}
		}
		return msgs
	}
	// Simple: what every template supports, strictly alternating text turns.
	if oneIn(r, 3) {
		var msgs []any
		if oneIn(r, 2) {
			msgs = append(msgs, jsonObj("role", "system", "content", randText(r)))
		}
		for t := range 1 + r.IntN(3) {
			if t > 0 {
				msgs = append(msgs, jsonObj("role", "assistant", "content", randText(r)))
			}
			msgs = append(msgs, jsonObj("role", "user", "content", randText(r)))
		}
		if oneIn(r, 3) {
			msgs = append(msgs, jsonObj("role", "assistant", "content", randText(r)))
		}
		return msgs
	}
	var msgs []any
	if r.IntN(3) > 0 {
		msgs = append(msgs, genSystem(r))
	}
	turns := 1 + r.IntN(3)
	for t := range turns {
		msgs = append(msgs, genUser(r))
		if t == turns-1 && oneIn(r, 2) {
			break // the conversation ends with the user
		}
		msgs = append(msgs, genAssistant(r, tools)...)
	}
	return msgs
}

func genSystem(r *rand.Rand) *jobj {
	return jsonObj("role", pickOne(r, "system", "system", "developer"), "content", genContent(r, false))
}

func genUser(r *rand.Rand) *jobj {
	m := jsonObj("role", "user", "content", genContent(r, true))
	if oneIn(r, 8) {
		m.set("name", pickOne(r, "alice", "Bob_2", "x"))
	}
	return m
}

// genContent is a message content: a string (sometimes empty), null, or an
// array of parts; only user messages get image parts.
func genContent(r *rand.Rand, images bool) any {
	switch r.IntN(16) {
	case 0:
		return ""
	case 1:
		return nil
	case 2, 3:
		var parts []any
		for range 1 + r.IntN(3) {
			if images && oneIn(r, 3) {
				url := pickOne(r, "https://example.com/cat.png", "data:image/png;base64,iVBORw0KGgo=")
				parts = append(parts, jsonObj("type", "image_url", "image_url", jsonObj("url", url)))
			} else {
				parts = append(parts, jsonObj("type", "text", "text", randText(r)))
			}
		}
		return parts
	}
	return randText(r)
}

// genAssistant is an assistant message, and when it calls tools, the tool
// results and sometimes the assistant's follow-up.
func genAssistant(r *rand.Rand, tools []any) []any {
	m := jsonObj("role", "assistant")
	if !oneIn(r, 3) || (len(tools) == 0 && !oneIn(r, 4)) { // mostly plain replies, rarely calls of tools never offered
		m.set("content", genContent(r, false))
		if oneIn(r, 4) {
			m.set("reasoning_content", randText(r))
		}
		return []any{m}
	}
	switch r.IntN(4) { // content beside tool calls: absent, null, empty or text
	case 1:
		m.set("content", nil)
	case 2:
		m.set("content", "")
	case 3:
		m.set("content", randText(r))
	}
	if oneIn(r, 4) {
		m.set("reasoning_content", randText(r))
	}
	var calls, results []any
	for range 1 + r.IntN(3) {
		name := pickOne(r, toolNames...)
		if len(tools) > 0 && !oneIn(r, 5) {
			fn, _ := pickOne(r, tools...).(*jobj).get("function")
			n, _ := fn.(*jobj).get("name")
			name = n.(string)
		}
		id := toolCallID(r)
		var args any = genArgs(r)
		if oneIn(r, 2) {
			args = fuzzJSON(args) // arguments as the API sends them: a JSON string
		}
		calls = append(calls, jsonObj("id", id, "type", "function", "function", jsonObj("name", name, "arguments", args)))
		res := jsonObj("role", "tool", "tool_call_id", id)
		if oneIn(r, 2) {
			res.set("name", name)
		}
		res.set("content", genContent(r, false))
		results = append(results, res)
	}
	m.set("tool_calls", calls)
	out := append([]any{m}, results...)
	if oneIn(r, 2) {
		out = append(out, jsonObj("role", "assistant", "content", randText(r)))
	}
	return out
}

func genArgs(r *rand.Rand) *jobj {
	a := &jobj{}
	for range r.IntN(4) {
		a.set(pickOne(r, "location", "query", "n", "flag", "items", "opts", "unit"), randJSON(r, 1))
	}
	return a
}

// randJSON is an arbitrary JSON value, nested at most depth levels.
func randJSON(r *rand.Rand, depth int) any {
	k := r.IntN(10)
	if depth <= 0 && k >= 8 {
		k = r.IntN(8)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2, 3:
		return r.IntN(200) - 20
	case 4:
		return pickOne(r, jnum("0.5"), jnum("2.0"), jnum("1e16"), jnum("1e-05"), jnum("-0.0"), jnum("3.14159"), jnum("100.25"))
	case 5, 6, 7:
		return pickOne(r, fuzzTexts...)
	case 8:
		var l []any
		for range r.IntN(4) {
			l = append(l, randJSON(r, depth-1))
		}
		if l == nil {
			return []any{}
		}
		return l
	}
	o := &jobj{}
	for range r.IntN(4) {
		o.set(pickOne(r, "a", "b", "name", "role", "content", "x y", "items", "1", "é"), randJSON(r, depth-1))
	}
	return o
}

var schemaDescriptions = []string{
	"The city, e.g. \"Paris\"", "Line one\nline two", "Unicode: température °C — 東京", "It's `code` & <tag>",
	"", "Trailing space ", "Tab\tseparated", "Number of items (1-10)",
}

func genTool(r *rand.Rand) *jobj {
	fn := jsonObj("name", pickOne(r, toolNames...))
	if !oneIn(r, 4) {
		fn.set("description", pickOne(r, schemaDescriptions...))
	}
	params := jsonObj("type", "object", "properties", genProperties(r, 0))
	if oneIn(r, 8) {
		params.set("additionalProperties", false)
	}
	fn.set("parameters", params)
	return jsonObj("type", "function", "function", fn)
}

// genProperties is an object schema's properties, with required set on the
// parent by the caller's choice.
func genProperties(r *rand.Rand, depth int) *jobj {
	props := &jobj{}
	for range r.IntN(4) {
		props.set(pickOne(r, "location", "query", "n", "flag", "items", "opts", "unit", "x-y", "名前"), genSchema(r, depth+1))
	}
	return props
}

func genSchema(r *rand.Rand, depth int) *jobj {
	s := &jobj{}
	kinds := []string{"string", "integer", "number", "boolean", "enum", "array", "object", "union"}
	if depth >= 2 {
		kinds = kinds[:5]
	}
	switch k := pickOne(r, kinds...); k {
	case "enum":
		s.set("type", "string")
		s.set("enum", []any{"celsius", "fahrenheit", "k'elvin"}[:1+r.IntN(3)])
	case "array":
		s.set("type", "array")
		s.set("items", genSchema(r, depth+1))
	case "object":
		s.set("type", "object")
		props := genProperties(r, depth)
		s.set("properties", props)
		if len(props.keys) > 0 && oneIn(r, 2) {
			s.set("required", []any{props.keys[0]})
		}
	case "union":
		s.set("type", []any{"string", "null"})
	default:
		s.set("type", k)
	}
	if oneIn(r, 2) {
		s.set("description", pickOne(r, schemaDescriptions...))
	}
	if oneIn(r, 8) {
		s.set("default", randJSON(r, 0))
	}
	return s
}

func genDocuments(r *rand.Rand) []any {
	var docs []any
	for range 1 + r.IntN(2) {
		if oneIn(r, 3) {
			docs = append(docs, jsonObj("id", strconv.Itoa(r.IntN(9)), "content", randText(r)))
		} else {
			docs = append(docs, jsonObj("title", pickOne(r, "Doc", "Ünïcode", "a \"b\""), "text", randText(r)))
		}
	}
	return docs
}

// ---------------------------------------------------------------------------
// b. Generated templates
//
// A template is built as a tree of gnodes so a mismatch can be shrunk
// structurally: statements are dropped from sequences, and a node is replaced
// by one of its alts (its own sub-expressions or branch bodies), always making
// the text shorter.

type gnode struct {
	parts []any    // string or *gnode, concatenated
	alts  []*gnode // simpler stand-ins of the same syntactic kind
	seq   bool     // parts are statements, any of which may be dropped
	drop  bool     // text that may be emptied
	loose byte     // expressions: 0 atomic, 'f' a filter chain, 'o' an operator without parentheses
}

func gn(parts ...any) *gnode { return &gnode{parts: parts} }

func (n *gnode) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *gnode) write(b *strings.Builder) {
	for _, p := range n.parts {
		switch p := p.(type) {
		case string:
			b.WriteString(p)
		case *gnode:
			p.write(b)
		}
	}
}

// walk visits n and its descendants, parents first.
func (n *gnode) walk(f func(*gnode)) {
	f(n)
	for _, p := range n.parts {
		if c, ok := p.(*gnode); ok {
			c.walk(f)
		}
	}
}

// tight parenthesizes an expression used as the operand of a postfix
// (attribute, item, call); a filter chain may stay bare where filter is true.
func tight(e *gnode, filter bool) *gnode {
	if e.loose == 0 || filter && e.loose == 'f' {
		return e
	}
	return &gnode{parts: []any{"(", e, ")"}, alts: []*gnode{e}}
}

// Kinds of values, as hints: the generator mostly produces well-typed
// expressions (so templates get past the first operation), and sometimes
// deliberately not.
const (
	gkStr  byte = 's'
	gkNum  byte = 'n'
	gkList byte = 'l' // list of scalars
	gkRecs byte = 'm' // list of dicts (attribute filters)
	gkDict byte = 'd'
	gkBool byte = 'b'
	gkAny  byte = 'a'
)

var genKinds = []byte{gkStr, gkNum, gkList, gkRecs, gkDict, gkBool, gkAny}

type tvar struct {
	name  string
	kind  byte
	arity int // macros: number of named parameters
}

type tgen struct {
	r       *rand.Rand
	vars    []tvar // visible variables
	macros  []tvar // callable macros
	depth   int    // statement nesting
	edepth  int    // expression nesting
	loops   int    // enclosing for loops
	ns      bool   // a namespace "ns" is set
	fresh   int    // counter for new names
	filters []string
	tests   []string
}

// templateVars are the kwargs of a generated template: one variable per kind,
// each sometimes left out so that undefined values get exercised too.
func templateVars(r *rand.Rand) (*jobj, []tvar) {
	kw := &jobj{}
	var scope []tvar
	add := func(name string, kind byte, v any) {
		if !oneIn(r, 8) {
			kw.set(name, v)
		}
		// Undefined names stay in scope: the template may still use them.
		scope = append(scope, tvar{name: name, kind: kind})
	}
	add("s", gkStr, pickOne(r, fuzzTexts...))
	add("t", gkStr, pickOne(r, "a,b,,c", "Hello World", "  x  ", "abc", "ÄÖü ß", "line\nline", "a-b_c d", ""))
	add("n", gkNum, pickOne(r, 0, 1, 2, 3, 5, 7, -4, 10, 42))
	add("f", gkNum, pickOne(r, jnum("0.5"), jnum("2.0"), jnum("1e16"), jnum("1e-05"), jnum("-0.0"), jnum("3.14159"), jnum("2.675")))
	add("l", gkList, genScalarList(r))
	add("ml", gkRecs, genRecords(r))
	add("d", gkDict, randDict(r))
	add("u", gkAny, nil)
	add("b", gkBool, r.IntN(2) == 0)
	add("x", gkAny, randJSON(r, 2))
	add("tr", gkRecs, genTree(r, 2))
	return kw, scope
}

func genScalarList(r *rand.Rand) []any {
	l := []any{}
	mode := r.IntN(3) // homogeneous lists sort and sum; mixed ones raise
	for range r.IntN(6) {
		switch {
		case mode == 0:
			l = append(l, r.IntN(20)-5)
		case mode == 1:
			l = append(l, pickOne(r, "b", "a", "B", "c", "", "ab", "é", "10", "9"))
		default:
			l = append(l, randJSON(r, 0))
		}
	}
	return l
}

func genRecords(r *rand.Rand) []any {
	l := []any{}
	for range r.IntN(5) {
		m := jsonObj("role", pickOne(r, "user", "assistant", "system"), "content", pickOne(r, fuzzTexts...))
		if oneIn(r, 2) {
			m.set("a", r.IntN(5))
		}
		if oneIn(r, 3) {
			m.set("name", pickOne(r, "b", "a", "C"))
		}
		l = append(l, m)
	}
	return l
}

func randDict(r *rand.Rand) *jobj {
	d := &jobj{}
	for range r.IntN(5) {
		d.set(pickOne(r, "a", "b", "c", "role", "content", "name", "items", "keys", "x y", "1", "B"), randJSON(r, 1))
	}
	return d
}

// genTree is the input of recursive loops: items with a name and children.
func genTree(r *rand.Rand, depth int) []any {
	l := []any{}
	for range r.IntN(3) {
		var kids any = []any{}
		if depth > 0 && oneIn(r, 2) {
			kids = genTree(r, depth-1)
		}
		l = append(l, jsonObj("name", pickOne(r, "a", "b", "c"), "children", kids))
	}
	return l
}

func newTgen(r *rand.Rand, scope []tvar) *tgen {
	g := &tgen{r: r, vars: scope}
	// The registered filters and tests, so new ones get fuzzed automatically.
	for name := range builtinFilters {
		if name != "random" { // nondeterministic in Python
			g.filters = append(g.filters, name)
		}
	}
	ident := regexp.MustCompile(`^[a-z_]+$`)
	for name := range builtinTests {
		if ident.MatchString(name) { // "==" and friends are not test syntax
			g.tests = append(g.tests, name)
		}
	}
	sort.Strings(g.filters)
	sort.Strings(g.tests)
	return g
}

// genTemplate is a random template over the variables of templateVars.
func genTemplate(r *rand.Rand, scope []tvar) *gnode {
	g := newTgen(r, scope)
	return g.body(1 + r.IntN(5))
}

func (g *tgen) pickS(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// ---- statements

// body is a droppable sequence of n statements.
func (g *tgen) body(n int) *gnode {
	s := &gnode{seq: true}
	for range n {
		s.parts = append(s.parts, g.stmt())
	}
	return s
}

// text is literal template text, mostly whitespace: trim_blocks and
// lstrip_blocks make the whitespace around tags matter.
func (g *tgen) text() *gnode {
	n := gn(g.pickS("", "", "\n", " ", "  ", "\t", "\n  ", "x", "ab\n", " \n", "\n\n", "  \t", "-", "é", "\n\t ", "a b "))
	n.drop = true
	return n
}

// tag is {% body %} with random whitespace control and spacing.
func (g *tgen) tag(body ...any) *gnode {
	l := g.pickS("", "", "", "", "", "-", "-", "+")
	rt := g.pickS("", "", "", "", "", "-", "-", "+")
	sp := " "
	if oneIn(g.r, 8) {
		sp = ""
	}
	parts := append([]any{"{%", droppable(l), sp}, body...)
	return gn(append(parts, sp, droppable(rt), "%}")...)
}

func (g *tgen) output(e *gnode) *gnode {
	l := g.pickS("", "", "", "", "-", "-")
	rt := g.pickS("", "", "", "", "-", "-")
	sp := " "
	if oneIn(g.r, 6) {
		sp = ""
	}
	return gn("{{", droppable(l), sp, e, sp, droppable(rt), "}}")
}

// droppable is a piece the shrinker may delete: whitespace control markers,
// optional clauses.
func droppable(parts ...any) *gnode {
	n := gn(parts...)
	n.drop = true
	return n
}

func (g *tgen) stmt() *gnode {
	if g.depth >= 3 {
		return pickOne(g.r, g.text, g.outputStmt)()
	}
	g.depth++
	defer func() { g.depth-- }()
	type choice struct {
		w int
		f func() *gnode
	}
	choices := []choice{
		{14, g.text}, {30, g.outputStmt}, {12, g.ifStmt}, {10, g.forStmt}, {8, g.setStmt},
		{3, g.setBlock}, {3, g.namespaceStmt}, {4, g.macroStmt}, {2, g.callBlock}, {2, g.filterBlock},
		{2, g.withStmt}, {3, g.comment}, {1, g.rawBlock}, {1, g.generationBlock}, {1, g.recursiveLoop},
	}
	if g.loops > 0 {
		choices = append(choices, choice{4, g.loopControl})
	}
	total := 0
	for _, c := range choices {
		total += c.w
	}
	k := g.r.IntN(total)
	for _, c := range choices {
		if k < c.w {
			return c.f()
		}
		k -= c.w
	}
	panic("unreachable")
}

func (g *tgen) outputStmt() *gnode {
	s := gn(g.text(), g.output(g.expr(gkAny)))
	return s
}

func (g *tgen) ifStmt() *gnode {
	n := gn(g.text(), g.tag("if ", g.expr(gkBool)), g.text())
	b1 := g.body(1 + g.r.IntN(3))
	n.parts = append(n.parts, b1)
	n.alts = append(n.alts, b1)
	for range g.r.IntN(3) - 1 { // elif: sometimes one
		b := g.body(1 + g.r.IntN(2))
		n.parts = append(n.parts, droppable(g.tag("elif ", g.expr(gkBool)), b))
		n.alts = append(n.alts, b)
	}
	if oneIn(g.r, 2) {
		b := g.body(1 + g.r.IntN(2))
		n.parts = append(n.parts, droppable(g.tag("else"), b))
		n.alts = append(n.alts, b)
	}
	n.parts = append(n.parts, g.tag("endif"), g.text())
	return n
}

// iterable is something a loop can go over; it stays small so nested loops
// cannot run away in the oracle.
func (g *tgen) iterable() (it *gnode, pairs bool) {
	switch g.r.IntN(9) {
	case 0:
		return gn(g.pickS("range(3)", "range(0)", "range(1, 4)", "range(5, 0, -2)", "range(n)")), false
	case 1:
		return gn(g.pickS("d.items()", "d|dictsort", "d|items", "ml|groupby('role')", "[[1, 2], [3, 4]]", "[('a', 1)]")), true
	case 2:
		return gn(g.pickS("d", "s", "t", "x", "u", "n")), false
	case 3:
		return g.listLit(), false
	case 4, 5:
		return gn(g.pickS("l", "ml")), false
	}
	return g.expr(pickOne(g.r, gkList, gkRecs, gkStr)), false
}

func (g *tgen) forStmt() *gnode {
	it, pairs := g.iterable()
	mark := len(g.vars)
	g.fresh++
	name := "i" + strconv.Itoa(g.fresh)
	head := []any{"for ", name, " in ", it}
	if pairs && !oneIn(g.r, 4) {
		k, v := "k"+strconv.Itoa(g.fresh), "v"+strconv.Itoa(g.fresh)
		head = []any{"for ", k, ", ", v, " in ", it}
		g.vars = append(g.vars, tvar{name: k, kind: gkAny}, tvar{name: v, kind: gkAny})
	} else {
		g.vars = append(g.vars, tvar{name: name, kind: gkAny})
	}
	if oneIn(g.r, 5) {
		head = append(head, droppable(" if ", g.expr(gkBool)))
	}
	g.loops++
	n := gn(g.text(), g.tag(head...), g.text())
	b := g.body(1 + g.r.IntN(3))
	g.loops--
	g.vars = g.vars[:mark] // loop variables and sets inside do not leak
	n.parts = append(n.parts, b)
	n.alts = append(n.alts, b)
	if oneIn(g.r, 4) {
		e := g.body(1)
		n.parts = append(n.parts, droppable(g.tag("else"), e))
		n.alts = append(n.alts, e)
	}
	n.parts = append(n.parts, g.tag("endfor"), g.text())
	return n
}

// recursiveLoop walks the tree variable with loop(...) and loop.depth.
func (g *tgen) recursiveLoop() *gnode {
	mark := len(g.vars)
	g.vars = append(g.vars, tvar{name: "it", kind: gkDict})
	g.loops++
	inner := g.body(g.r.IntN(2))
	g.loops--
	g.vars = g.vars[:mark]
	rec := gn(g.tag("if it.children"), g.pickS("(", "[", "\n"), g.output(gn("loop(it.children)")), g.pickS(")", "]", ""), g.tag("endif"))
	n := gn(g.tag("for it in tr recursive"), g.output(gn(g.pickS("it.name", "loop.depth ~ it.name", "loop.depth0", "loop.index ~ '/' ~ loop.length"))),
		inner, rec, g.tag("endfor"))
	n.alts = []*gnode{inner}
	return n
}

func (g *tgen) loopControl() *gnode {
	c := gn(g.tag(g.pickS("break", "continue")))
	if oneIn(g.r, 4) {
		return c
	}
	n := gn(g.tag("if ", g.expr(gkBool)), c, g.tag("endif"))
	n.alts = []*gnode{c}
	return n
}

func (g *tgen) newVar(kind byte) string {
	g.fresh++
	name := "v" + strconv.Itoa(g.fresh)
	g.vars = append(g.vars, tvar{name: name, kind: kind})
	return name
}

func (g *tgen) setStmt() *gnode {
	switch g.r.IntN(6) {
	case 0: // tuple unpacking
		e := gn(g.pickS("[1, 2]", "(s, n)", "'ab'", "l", "[1, 2, 3]", "d.items()|first"))
		a, b := g.newVar(gkAny), g.newVar(gkAny)
		return gn(g.tag("set ", a, ", ", b, " = ", e), g.text())
	case 1: // accumulate onto an existing variable
		v := g.pickVar(gkStr)
		if v == "" {
			break
		}
		return gn(g.tag("set ", v, " = ", v, " ~ ", g.expr(gkAny)), g.text())
	}
	k := pickOne(g.r, genKinds...)
	e := g.expr(k)
	return gn(g.tag("set ", g.newVar(k), " = ", e), g.text())
}

func (g *tgen) setBlock() *gnode {
	b := g.body(1 + g.r.IntN(2))
	head := []any{"set ", g.newVar(gkStr)}
	if oneIn(g.r, 3) {
		head = append(head, "|", g.filterCall(gkStr))
	}
	n := gn(g.tag(head...), b, g.tag("endset"), g.text())
	return n
}

func (g *tgen) namespaceStmt() *gnode {
	if !g.ns || oneIn(g.r, 4) {
		g.ns = true
		init := g.pickS("namespace(c=0, s='', l=[])", "namespace(c=n, s=s)", "namespace()", "namespace(d, c=1)", "namespace(c=0, s='')")
		return gn(g.tag("set ns = ", init), g.text())
	}
	switch g.r.IntN(3) {
	case 0:
		return gn(g.tag("set ns.c = ns.c + ", g.expr(gkNum)))
	case 1:
		return gn(g.tag("set ns.s = ns.s ~ ", g.expr(gkAny)))
	}
	return gn(g.output(gn(g.pickS("ns.c", "ns.s", "ns.l", "ns", "ns.missing", "ns['c']"))))
}

func (g *tgen) macroStmt() *gnode {
	g.fresh++
	name := "m" + strconv.Itoa(g.fresh)
	arity := g.r.IntN(4)
	params := []any{}
	mark := len(g.vars)
	defaults := false // once one parameter has a default, all that follow need one
	for i := range arity {
		p := string(rune('a' + i))
		if i > 0 {
			params = append(params, ", ")
		}
		params = append(params, p)
		if defaults || i > 0 && oneIn(g.r, 2) { // a default, evaluated at call time
			defaults = true
			params = append(params, "=", g.expr(gkAny))
		}
		g.vars = append(g.vars, tvar{name: p, kind: gkAny})
	}
	g.vars = append(g.vars, tvar{name: "varargs", kind: gkList}, tvar{name: "kwargs", kind: gkDict})
	b := g.body(1 + g.r.IntN(2))
	if oneIn(g.r, 3) {
		b.parts = append(b.parts, g.output(gn(g.pickS("caller()", "caller(1, 'x')", "caller() if caller is defined"))))
	}
	g.vars = g.vars[:mark]
	def := gn(g.tag("macro ", name, "(", gn(params...), ")"), b, g.tag("endmacro"), g.text())
	g.macros = append(g.macros, tvar{name: name, arity: arity})
	// Often called right away, so the definition is exercised.
	if oneIn(g.r, 2) {
		return gn(def, g.output(g.macroCall()))
	}
	return def
}

func (g *tgen) macroCall() *gnode {
	if len(g.macros) == 0 {
		return gn("undefined_macro()")
	}
	m := pickOne(g.r, g.macros...)
	var args []any
	n := m.arity
	switch g.r.IntN(5) {
	case 0:
		n--
	case 1:
		n += 1 + g.r.IntN(2) // extra positional: varargs
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			args = append(args, ", ")
		}
		args = append(args, g.expr(gkAny))
	}
	if oneIn(g.r, 4) { // keyword arguments, known or not
		if len(args) > 0 {
			args = append(args, ", ")
		}
		args = append(args, g.pickS("a", "b", "z"), "=", g.expr(gkAny))
	}
	return gn(m.name, "(", gn(args...), ")")
}

func (g *tgen) callBlock() *gnode {
	if len(g.macros) == 0 {
		return g.macroStmt()
	}
	mark := len(g.vars)
	head := []any{"call ", g.macroCall()}
	if oneIn(g.r, 2) {
		head = []any{"call(p, q) ", g.macroCall()}
		g.vars = append(g.vars, tvar{name: "p", kind: gkAny}, tvar{name: "q", kind: gkAny})
	}
	b := g.body(1 + g.r.IntN(2))
	g.vars = g.vars[:mark]
	return gn(g.tag(head...), b, g.tag("endcall"), g.text())
}

func (g *tgen) filterBlock() *gnode {
	b := g.body(1 + g.r.IntN(2))
	n := gn(g.tag("filter ", g.filterCall(gkStr)), b, g.tag("endfilter"), g.text())
	n.alts = []*gnode{b}
	return n
}

func (g *tgen) withStmt() *gnode {
	mark := len(g.vars)
	e1 := g.expr(gkAny)
	head := []any{"with ", g.newVar(gkAny), " = ", e1}
	if oneIn(g.r, 2) {
		head = append(head, ", ", g.newVar(gkAny), " = ", g.expr(gkAny))
	}
	b := g.body(1 + g.r.IntN(2))
	g.vars = g.vars[:mark]
	n := gn(g.tag(head...), b, g.tag("endwith"), g.text())
	n.alts = []*gnode{b}
	return n
}

func (g *tgen) comment() *gnode {
	l := g.pickS("", "", "-")
	rt := g.pickS("", "", "-")
	return gn(g.text(), "{#"+l+g.pickS(" note ", "", " {{ x }} ", "\nmulti\nline\n")+rt+"#}", g.text())
}

func (g *tgen) rawBlock() *gnode {
	return gn(g.tag("raw"), g.pickS("{{ x }}", " {% if %} ", "\n{#c#}\n", ""), g.tag("endraw"), g.text())
}

// generationBlock is transformers' AssistantTracker tag: its body renders
// unchanged.
func (g *tgen) generationBlock() *gnode {
	b := g.body(1)
	n := gn(g.tag("generation"), b, g.tag("endgeneration"))
	n.alts = []*gnode{b}
	return n
}

// ---- expressions

func (g *tgen) pickVar(kind byte) string {
	var names []string
	for _, v := range g.vars {
		if v.kind == kind || kind == gkAny {
			names = append(names, v.name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return pickOne(g.r, names...)
}

// expr is an expression that evaluates to roughly the given kind.
func (g *tgen) expr(kind byte) *gnode {
	if oneIn(g.r, 12) { // type confusion on purpose: the error paths count too
		kind = pickOne(g.r, genKinds...)
	}
	if g.edepth >= 3 {
		return g.atom(kind)
	}
	g.edepth++
	defer func() { g.edepth-- }()
	switch k := g.r.IntN(20); {
	case k < 6:
		return g.atom(kind)
	case k < 10:
		return g.filterExpr(kind)
	case k < 13:
		return g.opExpr(kind)
	case k < 15:
		return g.methodExpr(kind)
	case k < 17:
		return g.accessExpr(kind)
	case k < 18:
		c := g.expr(gkBool)
		a, b := g.expr(kind), g.expr(kind)
		if oneIn(g.r, 5) { // no else: undefined when false
			return &gnode{parts: []any{"(", a, " if ", c, ")"}, alts: []*gnode{a}}
		}
		return &gnode{parts: []any{"(", a, " if ", c, " else ", b, ")"}, alts: []*gnode{a, b}}
	case k < 19:
		return g.callExpr(kind)
	}
	return g.structLit(kind)
}

// atom is a variable or a literal.
func (g *tgen) atom(kind byte) *gnode {
	if g.loops > 0 && oneIn(g.r, 5) {
		if f := g.loopField(kind); f != "" {
			return gn(f)
		}
	}
	if !oneIn(g.r, 3) {
		if v := g.pickVar(kind); v != "" {
			return gn(v)
		}
	}
	if oneIn(g.r, 40) {
		return gn(g.pickS("nope", "nope.attr", "u.attr"))
	}
	n := gn(g.literal(kind))
	if strings.HasPrefix(n.String(), "-") { // a negation: -1[0] is -(1[0])
		n.loose = 'o'
	}
	return n
}

func (g *tgen) loopField(kind byte) string {
	switch kind {
	case gkNum:
		return g.pickS("loop.index", "loop.index0", "loop.revindex", "loop.revindex0", "loop.length", "loop.depth")
	case gkBool:
		return g.pickS("loop.first", "loop.last", "loop.changed(1)")
	case gkAny:
		return g.pickS("loop.previtem", "loop.nextitem", "loop.cycle('odd', 'even')", "loop", "loop.index")
	case gkStr:
		return g.pickS("loop.cycle('a', 'b', 'c')", "(loop.index|string)")
	}
	return ""
}

func (g *tgen) literal(kind byte) string {
	switch kind {
	case gkStr:
		return g.pickS(`'a'`, `"q'uote"`, `'a\nb'`, `'\u00e9\x41'`, `'tab\t'`, `'{{ x }}'`, `'<b>&amp;</b>'`,
			`'  padded  '`, `'Hello World'`, `'a,b,,c'`, `'日本語 🎉'`, `''`, `'%s'`, `'{}-{}'`, `'{0}{a}'`,
			`'x y z'`, `'\\'`, `'%s and %d'`, `"it's"`, `'ß'`, `'10'`, `'-3.5'`, `' 7 '`, `'0x1F'`, `'The end.'`)
	case gkNum:
		return g.pickS("0", "1", "2", "3", "-1", "7", "10", "42", "0.1", "2.5", "1e16", "1e-5", "3.0", "-0.0",
			"(0.1 + 0.2)", "1_000", "0x1f", "1.5e300", "123456789.0", "2.675", "0.5", "-7", "1e3")
	case gkBool:
		return g.pickS("true", "false", "True", "False", "none", "None", "(1 == 1.0)")
	case gkList:
		return g.pickS("[]", "[1, 2, 3]", "['b', 'a', 'C']", "[1, 'a', none]", "[3, 1, 2, 1]", "[[1, 2], [3]]",
			"(1, 2)", "(1,)", "()", "[0.5, -1, 2]", "['x']")
	case gkRecs:
		return g.pickS("[{'a': 1}, {'a': 0, 'b': 2}]", "[{'role': 'user', 'content': 'hi'}]", "[{}]", "[{'a': 'B'}, {'a': 'a'}]")
	case gkDict:
		return g.pickS("{}", "{'a': 1, 'b': 2}", "{'b': 'x', 'a': none}", "{1: 'one', 'k': [1]}", "{'a': {'b': 'c'}}", "{'B': 1, 'a': 2}")
	}
	return g.literal(pickOne(g.r, gkStr, gkNum, gkBool, gkList, gkDict))
}

// structLit is a list, tuple or dict literal built from sub-expressions.
func (g *tgen) structLit(kind byte) *gnode {
	a, b := g.expr(gkAny), g.expr(gkAny)
	switch kind {
	case gkDict:
		return &gnode{parts: []any{"{", gn(g.literal(gkStr)), ": ", a, ", 'k': ", b, "}"}, alts: []*gnode{a, b}}
	case gkRecs:
		return &gnode{parts: []any{"[{'a': ", a, "}, {'a': ", b, "}]"}, alts: []*gnode{a, b}}
	}
	if oneIn(g.r, 3) {
		return &gnode{parts: []any{"(", a, ", ", b, ")"}, alts: []*gnode{a, b}}
	}
	return &gnode{parts: []any{"[", a, ", ", b, "]"}, alts: []*gnode{a, b}}
}

func (g *tgen) listLit() *gnode {
	var parts []any
	n := g.r.IntN(4)
	for i := range n {
		if i > 0 {
			parts = append(parts, ", ")
		}
		parts = append(parts, gn(g.literal(pickOne(g.r, gkStr, gkNum, gkBool))))
	}
	return gn("[", gn(parts...), "]")
}

// opExpr is an operator expression; operands are parenthesized mostly, so
// shrinking by replacing a node with an operand keeps the meaning local.
func (g *tgen) opExpr(kind byte) *gnode {
	bin := func(a *gnode, op string, b *gnode) *gnode {
		parts := []any{a, " " + op + " ", b}
		if !oneIn(g.r, 5) {
			return &gnode{parts: append(append([]any{"("}, parts...), ")"), alts: []*gnode{a, b}}
		}
		return &gnode{parts: parts, alts: []*gnode{a, b}, loose: 'o'}
	}
	switch kind {
	case gkNum:
		if oneIn(g.r, 6) { // powers only of small literals, to stay bounded
			return gn("(", g.pickS("2", "-2", "3", "0.5", "10", "2.0"), " ** ", g.pickS("0", "2", "-1", "3", "0.5", "10"), ")")
		}
		if oneIn(g.r, 8) {
			a := g.expr(gkNum)
			return &gnode{parts: []any{g.pickS("-", "+", "- "), tight(a, true)}, alts: []*gnode{a}, loose: 'o'}
		}
		return bin(g.expr(gkNum), g.pickS("+", "-", "*", "/", "//", "%"), g.expr(gkNum))
	case gkStr:
		switch g.r.IntN(4) {
		case 0:
			return bin(g.expr(gkStr), "+", g.expr(gkStr))
		case 1:
			return bin(g.expr(gkStr), "*", gn(g.pickS("0", "2", "3", "-1")))
		case 2: // printf-style formatting
			return bin(gn(g.pickS(`'%s'`, `'<%s|%s>'`, `'%d%%'`, `'%r'`, `'%5.2f'`, `'%-4s|'`, `'%(a)s'`)), "%", g.expr(gkAny))
		}
		return bin(g.expr(gkAny), "~", g.expr(gkAny))
	case gkList, gkRecs:
		if oneIn(g.r, 3) {
			return bin(g.expr(kind), "*", gn(g.pickS("0", "2")))
		}
		return bin(g.expr(kind), "+", g.expr(kind))
	case gkBool:
		switch g.r.IntN(6) {
		case 0, 1:
			k := pickOne(g.r, gkStr, gkNum, gkAny, gkList)
			return bin(g.expr(k), g.pickS("==", "!=", "<", "<=", ">", ">="), g.expr(k))
		case 2:
			return bin(g.expr(pickOne(g.r, gkStr, gkAny, gkNum)), g.pickS("in", "not in"), g.expr(pickOne(g.r, gkStr, gkList, gkDict, gkRecs)))
		case 3:
			a := g.expr(gkAny)
			return &gnode{parts: []any{"not ", a}, alts: []*gnode{a}, loose: 'o'}
		case 4:
			return g.testExpr()
		}
		return bin(g.expr(gkAny), g.pickS("and", "or"), g.expr(gkAny))
	}
	return bin(g.expr(gkAny), g.pickS("or", "and"), g.expr(gkAny))
}

// filterExpr applies a registered filter, chosen among those whose output is
// of the wanted kind most of the time.
func (g *tgen) filterExpr(kind byte) *gnode {
	name, spec := g.pickFilter(kind)
	in := g.expr(pickOne(g.r, []byte(spec.in)...))
	f := gn(name, g.args(spec.args))
	return &gnode{parts: []any{tight(in, true), "|", f}, alts: []*gnode{in}, loose: 'f'}
}

// filterCall is a filter with arguments (for filter blocks and set blocks).
func (g *tgen) filterCall(kind byte) *gnode {
	name, spec := g.pickFilter(kind)
	return gn(name, g.args(spec.args))
}

func (g *tgen) pickFilter(kind byte) (string, fuzzFilterSpec) {
	for range 8 {
		name := pickOne(g.r, g.filters...)
		spec, ok := fuzzFilterSpecs[name]
		if !ok {
			spec = fuzzFilterSpec{in: "a", out: gkAny}
		}
		if spec.out == kind || kind == gkAny || oneIn(g.r, 6) {
			return name, spec
		}
	}
	return "string", fuzzFilterSpecs["string"]
}

// args instantiates one of the argument lists: "" is none, and $s, $n, $a,
// $l stand for generated expressions of that kind.
func (g *tgen) args(alts []string) *gnode {
	if len(alts) == 0 {
		return gn()
	}
	a := pickOne(g.r, alts...)
	n := gn()
	for {
		i := strings.IndexByte(a, '$')
		if i < 0 || i+1 >= len(a) {
			n.parts = append(n.parts, a)
			return n
		}
		n.parts = append(n.parts, a[:i], g.expr(a[i+1]))
		a = a[i+2:]
	}
}

type fuzzFilterSpec struct {
	in   string // kinds of input it mostly expects
	out  byte
	args []string // alternative argument lists
}

var fuzzFilterSpecs = map[string]fuzzFilterSpec{
	"abs":            {"n", gkNum, nil},
	"attr":           {"dm", gkAny, []string{"('a')", "('items')", "($s)"}},
	"batch":          {"lsm", gkList, []string{"(2)", "(3, $a)", "(1)", "(0)"}},
	"capitalize":     {"s", gkStr, nil},
	"center":         {"s", gkStr, []string{"", "(9)", "(2)", "($n)"}},
	"count":          {"slmd", gkNum, nil},
	"d":              {"a", gkAny, []string{"", "($a)", "($a, true)"}},
	"default":        {"a", gkAny, []string{"", "($a)", "($a, true)", "($a, boolean=true)"}},
	"dictsort":       {"d", gkList, []string{"", "(by='value')", "(reverse=true)", "(true)", "(false, 'key', true)", "(by='x')"}},
	"e":              {"s", gkStr, nil},
	"escape":         {"sa", gkStr, nil},
	"filesizeformat": {"n", gkStr, []string{"", "(true)"}},
	"first":          {"lsm", gkAny, nil},
	"float":          {"sn", gkNum, []string{"", "(1.5)", "(default=-1)"}},
	"forceescape":    {"s", gkStr, nil},
	"format":         {"s", gkStr, []string{"", "($a)", "($a, $a)", "(a=$a)"}},
	"groupby":        {"m", gkList, []string{"('role')", "('a')", "(attribute='name', default='z')", "('a', case_sensitive=true)"}},
	"indent":         {"s", gkStr, []string{"", "(2)", "(4, true)", "(2, first=true, blank=true)", "('> ')", "(width=1, blank=true)"}},
	"int":            {"sn", gkNum, []string{"", "(7)", "(base=16)", "(0, 2)", "(default=$a)"}},
	"items":          {"d", gkList, nil},
	"join":           {"lsm", gkStr, []string{"", "(', ')", "($s)", "('-', 'a')", "(attribute='role')", "('\\n')"}},
	"last":           {"lsm", gkAny, nil},
	"length":         {"slmd", gkNum, nil},
	"list":           {"sldm", gkList, nil},
	"lower":          {"s", gkStr, nil},
	"map":            {"lm", gkList, []string{"('upper')", "('length')", "(attribute='a')", "(attribute='a', default='z')", "('default', 'q')", "('int')", "('string')", "('tojson')", "('round', 1)"}},
	"max":            {"lsm", gkAny, []string{"", "(attribute='a')", "(case_sensitive=true)"}},
	"min":            {"lsm", gkAny, []string{"", "(attribute='a')", "(case_sensitive=true)"}},
	"pprint":         {"a", gkStr, nil},
	"reject":         {"lm", gkList, []string{"", "('odd')", "('none')", "('defined')", "('equalto', 1)", "('in', [1, 'a'])", "('string')", "('gt', 2)"}},
	"rejectattr":     {"m", gkList, []string{"('a')", "('a', 'equalto', 1)", "('role', 'in', ['user', 'system'])", "('content', 'none')", "('name', 'defined')"}},
	"replace":        {"s", gkStr, []string{"('a', 'b')", "('a', 'b', 1)", "('', '-')", "($s, $s)", "(' ', '')"}},
	"reverse":        {"lsm", gkList, nil},
	"round":          {"n", gkNum, []string{"", "(1)", "(1, 'floor')", "(0, 'ceil')", "(2, 'common')", "(-1)"}},
	"safe":           {"s", gkStr, nil},
	"select":         {"lm", gkList, []string{"", "('odd')", "('none')", "('defined')", "('equalto', 1)", "('in', [1, 'a'])", "('string')", "('lt', 2)"}},
	"selectattr":     {"m", gkList, []string{"('a')", "('a', 'equalto', 1)", "('role', 'in', ['user', 'system'])", "('content', 'none')", "('name', 'defined')", "('role', '==', 'user')"}},
	"slice":          {"lsm", gkList, []string{"(2)", "(3, $a)", "(1)"}},
	"sort":           {"lsm", gkList, []string{"", "(reverse=true)", "(attribute='a')", "(case_sensitive=true)", "(attribute='role,a')", "(true, true)"}},
	"string":         {"a", gkStr, nil},
	"striptags":      {"s", gkStr, nil},
	"sum":            {"lm", gkNum, []string{"", "(attribute='a')", "(start=1)", "(start=0.5)"}},
	"title":          {"s", gkStr, nil},
	"tojson":         {"adlm", gkStr, []string{"", "", "(indent=2)", "(sort_keys=true)", "(indent=1, sort_keys=true)", "(ensure_ascii=true)", "(separators=(',', ':'))", "(indent=0)", "(indent='  ')"}},
	"trim":           {"s", gkStr, []string{"", "('x')", "(' a')"}},
	"truncate":       {"s", gkStr, []string{"(3)", "(5, true)", "(9, false, '..')", "(4, leeway=0)", "(255)", "(2, true, '')"}},
	"unique":         {"lm", gkList, []string{"", "(attribute='a')", "(case_sensitive=true)"}},
	"upper":          {"s", gkStr, nil},
	"urlencode":      {"sd", gkStr, nil},
	"wordcount":      {"s", gkNum, nil},
	"wordwrap":       {"s", gkStr, []string{"(5)", "(3, false)", "(4, wrapstring='|')", "(6, break_on_hyphens=false)", "(79)"}},
	"xmlattr":        {"d", gkStr, []string{"", "(false)"}},
}

// testExpr is "x is [not] test(args)" over the registered tests.
func (g *tgen) testExpr() *gnode {
	name := pickOne(g.r, g.tests...)
	var args []string
	switch name {
	case "divisibleby":
		args = []string{"(2)", "(3)", "(0)"}
	case "in":
		args = []string{"([1, 2, 'a'])", "('abc')", "($l)", "($d)"}
	case "eq", "ne", "gt", "ge", "lt", "le", "equalto", "greaterthan", "lessthan", "sameas":
		args = []string{"($a)", " 1", "(none)"}
	case "filter":
		args = []string{"", "('upper')"}
	case "test":
		args = []string{"", "('odd')"}
	}
	a := g.expr(gkAny)
	neg := ""
	if oneIn(g.r, 4) {
		neg = "not "
	}
	return &gnode{parts: []any{"(", a, " is ", neg, name, g.args(args), ")"}, alts: []*gnode{a}}
}

type fuzzMethodSpec struct {
	call string // ".name(args)" with $-placeholders as in filter arguments
	out  byte
}

// fuzzMethods are the Python str, list, dict and number methods templates call.
var fuzzMethods = map[byte][]fuzzMethodSpec{
	gkStr: {
		{".strip()", gkStr}, {".strip('x ')", gkStr}, {".lstrip()", gkStr}, {".rstrip('\\n')", gkStr},
		{".split()", gkList}, {".split(',')", gkList}, {".split(',', 1)", gkList}, {".rsplit(' ', 1)", gkList}, {".split($s)", gkList},
		{".startswith('a')", gkBool}, {".startswith(('H', 'a'))", gkBool}, {".endswith($s)", gkBool},
		{".replace('a', 'b')", gkStr}, {".replace('a', 'b', 1)", gkStr}, {".upper()", gkStr}, {".lower()", gkStr},
		{".title()", gkStr}, {".capitalize()", gkStr}, {".swapcase()", gkStr}, {".casefold()", gkStr},
		{".find('a')", gkNum}, {".rfind('a')", gkNum}, {".index('a')", gkNum}, {".count('a')", gkNum},
		{".join($l)", gkStr}, {".join(['x', 'y'])", gkStr}, {".format($a)", gkStr}, {".format(a=$a)", gkStr},
		{".center(9, '*')", gkStr}, {".ljust(6)", gkStr}, {".rjust(6, '0')", gkStr}, {".zfill(5)", gkStr},
		{".isdigit()", gkBool}, {".isalpha()", gkBool}, {".isalnum()", gkBool}, {".isspace()", gkBool},
		{".isupper()", gkBool}, {".islower()", gkBool}, {".istitle()", gkBool}, {".isnumeric()", gkBool},
		{".splitlines()", gkList}, {".splitlines(true)", gkList}, {".partition(' ')", gkList}, {".rpartition(',')", gkList},
		{".removeprefix('a')", gkStr}, {".removesuffix('.')", gkStr}, {".expandtabs(4)", gkStr}, {"[0]", gkStr}, {"[::-1]", gkStr},
	},
	gkList: {
		{".count(1)", gkNum}, {".index('a')", gkNum}, {".append(1)", gkAny}, {".copy()", gkList}, {".pop()", gkAny}, {"[1:]", gkList},
	},
	gkDict: {
		{".get('a')", gkAny}, {".get('a', 'z')", gkAny}, {".get($s, $a)", gkAny}, {".items()", gkList}, {".keys()", gkList},
		{".values()", gkList}, {".copy()", gkDict}, {".pop('a')", gkAny}, {".update({'a': 1})", gkAny}, {".setdefault('a')", gkAny},
	},
	gkNum: {
		{".is_integer()", gkBool}, {".bit_length()", gkNum}, {".real", gkNum}, {".imag", gkNum}, {".conjugate()", gkNum},
	},
}

func (g *tgen) methodExpr(kind byte) *gnode {
	recv := pickOne(g.r, gkStr, gkStr, gkList, gkDict, gkNum)
	var ms []fuzzMethodSpec
	for _, m := range fuzzMethods[recv] {
		if m.out == kind || kind == gkAny {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 || oneIn(g.r, 8) {
		ms = fuzzMethods[recv]
	}
	m := pickOne(g.r, ms...)
	on := g.expr(recv)
	return &gnode{parts: []any{tight(on, false), g.args([]string{m.call})}, alts: []*gnode{on}}
}

// accessExpr is attribute, item or slice access.
func (g *tgen) accessExpr(kind byte) *gnode {
	switch g.r.IntN(4) {
	case 0:
		d := g.expr(gkDict)
		return &gnode{parts: []any{tight(d, false), g.pickS(".a", ".b", ".items", ".keys", ".name", ".missing", "['a']", "['x y']", "[1]", "['items']", "[$s]")}, alts: []*gnode{d}}
	case 1:
		m := g.expr(gkRecs)
		sub := g.pickS("[0].a", "[-1]['role']", "[0]", "|first", "[1:]")
		n := &gnode{parts: []any{tight(m, sub == "|first"), sub}, alts: []*gnode{m}}
		if sub == "|first" {
			n.loose = 'f'
		}
		return n
	}
	on := g.expr(pickOne(g.r, gkList, gkStr))
	sub := g.pickS("[0]", "[-1]", "[1:]", "[:2]", "[::-1]", "[::2]", "[-2:]", "[1:-1]", "[5:1:-1]", "[::-2]", "[10]", "[-10:10]", "[n]", "[1::-1]", "[:]")
	return &gnode{parts: []any{tight(on, false), sub}, alts: []*gnode{on}}
}

// callExpr calls a global function or a macro.
func (g *tgen) callExpr(kind byte) *gnode {
	switch {
	case kind == gkStr && len(g.macros) > 0 && oneIn(g.r, 2):
		return g.macroCall()
	case kind == gkList:
		return gn(g.pickS("range(3)", "range(2, 5)", "range(4, 0, -1)", "range(0)", "range(n)", "range(-2)"))
	case kind == gkDict:
		return gn(g.pickS("dict(a=1)", "dict()", "dict(a=s, b=[n])", "dict(d, z=0)"))
	case kind == gkStr && oneIn(g.r, 3):
		return gn(g.pickS("strftime_now('%Y-%m-%d')", "strftime_now('%d %B %Y')", "strftime_now('%A %H:%M')", "strftime_now('%b %-d')"))
	}
	if oneIn(g.r, 10) {
		return gn("raise_exception('boom')")
	}
	return gn(g.pickS("cycler('a', 'b').next()", "joiner(', ')()", "namespace(a=1).a", "(range(2)|list)", "dict(a=1).a", "cycler(1, 2).current"))
}
