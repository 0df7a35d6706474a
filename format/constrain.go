package format

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// CallSyntax says how a family writes its calls, so that the calls can be
// constrained at sampling time: the GBNF of one call to each tool, and what
// goes before, between and after the calls. Every family that has one
// describes it in its own file; Constrain assembles the grammar.
type CallSyntax struct {
	// Triggers are the literal texts that start the calls. A lazy grammar
	// (tool_choice "auto") applies from the first of them on, so the text
	// Open + call matches must start with one of them.
	Triggers []string
	// TriggersFor, when not nil, adds triggers made from the tools (a
	// family whose calls start with the function's name: "[get_weather(").
	TriggersFor func(tools []chat.Tool) []string
	// Open, Sep and Close are GBNF expressions: before the first call,
	// between two calls, after the last ("" for nothing).
	Open, Sep, Close string
	// Call is the GBNF expression of one call to b.Tools[i].
	Call func(b *Builder, i int) (string, error)
	// Single says the family writes at most one call per turn (its
	// templates render only one, or generation stops after a call).
	Single bool
	// ThinkOpen and ThinkClose are the reasoning markers; reasoning may come
	// before the calls when a call is forced. Empty when the family has
	// none.
	ThinkOpen, ThinkClose string
	// Wrap, when not nil, replaces Open and Close: it returns the GBNF of
	// the whole calls section given the calls (for families with several
	// openers, each with its own closer).
	Wrap func(calls string) string
	// PrettyJSON says the templates write the call's JSON over several
	// lines (indented); otherwise JSON in calls is one line, with at most one
	// space between tokens, so that a constrained model cannot pad it.
	PrettyJSON bool
	// Tag, when not nil, writes one call as begin + the arguments as a JSON
	// object + end: the form structural tags take (vLLM, SGLang), and the
	// form a named function is forced in through a JSON Schema (Ollama).
	// Families whose arguments are not one JSON object have none.
	Tag func(name string) (begin, end string)
}

// ToolChoice is what the request asks of the calls.
type ToolChoice struct {
	// Mode is "auto" (calls may come: the grammar is lazy, triggered by the
	// family's call opener), "required" (a call must come, after reasoning
	// where the template allows it) or "none" (no calls: no constraint).
	Mode string
	// Name, when set, allows calls to that function only, and requires one.
	Name string
	// Single allows at most one call (parallel_tool_calls: false).
	Single bool
	// NoReasoning, for a forced call, leaves out the reasoning the grammar
	// would otherwise allow before it (where the template lets the model
	// open it): the call comes at once, for an output limit too small to
	// hold reasoning and a call. A prompt that left reasoning open must be
	// closed by the caller.
	NoReasoning bool
}

// Constraint is what a runtime needs to constrain one request's calls.
type Constraint struct {
	// Grammar is GBNF whose rule "root" the output must follow; when Lazy,
	// from the first trigger on (llama.cpp's grammar_lazy), and otherwise
	// from its first byte.
	Grammar  string
	Lazy     bool
	Triggers []string
	// Tags are the per-tool structural tags, when the family writes its
	// arguments as one JSON object (CallSyntax.Tag): vLLM's and SGLang's
	// structural_tag, with Triggers as its triggers.
	Tags []StructuralTag
	// Warnings name what the tools' schemas ask that the grammar does not
	// enforce, each prefixed with the tool's name.
	Warnings []string
}

// StructuralTag is one tool's call as begin text, a JSON Schema for the
// arguments, and end text.
type StructuralTag struct {
	Begin  string          `json:"begin"`
	Schema json.RawMessage `json:"schema"`
	End    string          `json:"end"`
}

// ErrNoCallSyntax is returned by Constrain for a family whose calls cannot
// be constrained yet.
var ErrNoCallSyntax = errors.New("no call grammar for this family yet")

// Constrain builds the constraint for calls to tools in the family's markup.
// reasoningOpen says the rendered prompt left reasoning open, so a forced
// call comes after the reasoning closes. tool_choice "none" and an empty
// tool list give no constraint (nil). A schema past the grammar's bounds is
// an error wrapping a *grammar.LimitError (errors.Is grammar.ErrLimit).
func (f *Family) Constrain(tools []chat.Tool, choice ToolChoice, reasoningOpen bool) (*Constraint, error) {
	return f.constrain(nil, tools, choice, reasoningOpen)
}

// ConstrainContext is Constrain stopping when ctx is done: the error then
// wraps ctx.Err() (errors.Is context.Canceled for a client that left).
func (f *Family) ConstrainContext(ctx context.Context, tools []chat.Tool, choice ToolChoice, reasoningOpen bool) (*Constraint, error) {
	return f.constrain(ctx, tools, choice, reasoningOpen)
}

func (f *Family) constrain(ctx context.Context, tools []chat.Tool, choice ToolChoice, reasoningOpen bool) (*Constraint, error) {
	if choice.Mode == "none" || len(tools) == 0 {
		return nil, nil
	}
	cs := f.Calls
	if cs == nil {
		return nil, fmt.Errorf("%s: %w", f.ID, ErrNoCallSyntax)
	}
	if choice.Name != "" {
		var only []chat.Tool
		for _, t := range tools {
			if t.Function.Name == choice.Name {
				only = append(only, t)
				break
			}
		}
		if only == nil {
			return nil, fmt.Errorf("tool_choice names %q, which is not among the tools", choice.Name)
		}
		tools = only
	}
	var opts grammar.Options
	if !cs.PrettyJSON {
		opts.Whitespace = grammar.WhitespaceSpace
	}
	b := newBuilder(ctx, tools, opts)
	defer b.release()
	alts := make([]string, len(tools))
	for i := range tools {
		if ctx != nil && i%64 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("building the call grammar stopped: %w", err)
			}
		}
		c, err := cs.Call(b, i)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", tools[i].Function.Name, err)
		}
		name := b.G.Add(b.ruleName("call-", i), c)
		alts[i] = name
	}
	call := b.G.Add("call", strings.Join(alts, " | "))
	body := call
	if !(cs.Single || choice.Single) {
		sep := cs.Sep
		body = call + " (" + seqOf(sep, call) + ")*"
	}
	section := seqOf(cs.Open, body, cs.Close)
	if cs.Wrap != nil {
		section = cs.Wrap(body)
	}
	if strings.Contains(section, wsPlaceholder) {
		section = strings.ReplaceAll(section, wsPlaceholder, b.WS())
	}
	calls := b.G.Add("calls", section)
	c := &Constraint{Triggers: cs.Triggers, Warnings: b.warnings}
	if cs.TriggersFor != nil {
		c.Triggers = append(append([]string(nil), cs.Triggers...), cs.TriggersFor(tools)...)
	}
	lazy := choice.Mode != "required" && choice.Name == ""
	if lazy {
		c.Lazy = true
		b.G.Rule("root", calls)
	} else {
		think := ""
		if cs.ThinkClose != "" && !choice.NoReasoning {
			reasoning := seqOf(b.G.TextWithout(cs.ThinkClose), grammar.Literal(cs.ThinkClose), layout)
			switch {
			case reasoningOpen:
				think = reasoning
			case cs.ThinkOpen != "":
				think = "(" + seqOf(grammar.Literal(cs.ThinkOpen), reasoning) + ")?"
			}
		}
		b.G.Rule("root", seqOf(think, layout, calls))
	}
	if cs.Tag != nil {
		c.Tags = make([]StructuralTag, 0, len(tools))
		for _, t := range tools {
			begin, end := cs.Tag(t.Function.Name)
			c.Tags = append(c.Tags, StructuralTag{Begin: begin, Schema: argumentsSchema(t), End: end})
		}
	}
	c.Grammar = b.G.String()
	return c, nil
}

// wsPlaceholder stands for the JSON whitespace rule in a CallSyntax's Open,
// Sep and Close; Constrain replaces it with the rule's name.
const wsPlaceholder = "{ws}"

// layout is the whitespace allowed between reasoning and calls, and before
// a forced call.
var layout = grammar.Repeat(grammar.Class(false, grammar.Range{Lo: ' ', Hi: ' '}, grammar.Range{Lo: '\n', Hi: '\n'}), 0, 4)

// argumentsSchema is a tool's parameters, or the empty object's schema.
func argumentsSchema(t chat.Tool) json.RawMessage {
	p := json.RawMessage(bytes.TrimSpace(t.Function.Parameters)) // no copy: grammar only reads it
	if len(p) == 0 || string(p) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return p
}

// seqOf joins the non-empty GBNF expressions in sequence, each in
// parentheses when it holds alternatives.
func seqOf(parts ...string) string {
	n, nonEmpty, one := 0, 0, ""
	for _, p := range parts {
		n += len(p) + 3
		if p != "" {
			nonEmpty, one = nonEmpty+1, p
		}
	}
	if nonEmpty <= 1 && !needsParens(one) {
		return one
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		seqPart(&b, p)
	}
	return b.String()
}

// seqPart writes one part of seqOf's sequence.
func seqPart(b *strings.Builder, p string) {
	if p == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	if needsParens(p) {
		b.WriteByte('(')
		b.WriteString(p)
		b.WriteByte(')')
		return
	}
	b.WriteString(p)
}

// needsParens reports whether p, as a part of a sequence, is put in
// parentheses: it holds alternatives and is not already in parentheses.
func needsParens(p string) bool {
	return strings.IndexByte(p, '|') >= 0 && !(strings.HasPrefix(p, "(") && strings.HasSuffix(p, ")"))
}

// Builder is what a family's CallSyntax.Call writes one call with: the
// grammar being built and the rules for each tool's name and arguments.
type Builder struct {
	G     *grammar.Grammar
	Tools []chat.Tool

	opts     grammar.Options
	ctx      context.Context    // stops the schemas' conversion (nil: nothing does)
	conv     *grammar.Converter // made with opts when the first schema is added
	ws       string             // WS, once asked for
	keys     [][2]string        // keyLiteral's: key, literal
	args     []string
	warnings []string
	str      string
	textStop string // textWithout's last stop and its rule
	textRule string
	idMember string // nameArgumentsID's "id" member, once built
	// arguments' and separated's working slices, used as stacks (nested
	// values' arguments go above their parent's)
	parts    []string
	required []bool
	pieces   []piece
	offsets  []int
	scratch  []byte            // arguments' working text
	rules    map[string]string // rules shared by a grammar's calls, by key (Rule)
}

// Rule returns the rule named after key, defined by def the first time a
// grammar asks for it: value syntaxes every call of a family shares.
func (b *Builder) Rule(key string, def func() string) string {
	if b.rules == nil {
		b.rules = map[string]string{}
	}
	if name, ok := b.rules[key]; ok {
		return name
	}
	name := b.G.Add(key, "")
	b.rules[key] = name
	b.G.Rule(name, def())
	return name
}

// builders keeps Builders between constraints: a constraint keeps only its
// grammar's text, so the rules, the schema converter's buffers and the
// scratch text can serve the next one instead of being grown anew (a tenth
// of the time for 20 tools, most of it the collector's).
var builders = sync.Pool{New: func() any { return new(Builder) }}

// newBuilder returns a Builder for tools, from the pool; release gives it
// back once the constraint's text is written.
func newBuilder(ctx context.Context, tools []chat.Tool, opts grammar.Options) *Builder {
	b := builders.Get().(*Builder)
	if b.G == nil {
		// About four rules per tool (arguments, nested values, the call) and
		// a dozen shared ones.
		b.G = grammar.NewSized(12 + 4*len(tools))
	}
	b.Tools, b.opts, b.ctx = tools, opts, ctx
	if b.conv != nil {
		b.conv.Reset(opts) // the options of this constraint (b.G is empty already)
		b.conv.SetContext(ctx)
	}
	b.args = slices.Grow(b.args[:0], len(tools))[:len(tools)]
	return b
}

// release empties b and puts it back in the pool. Nothing the constraint
// returned may point into b: its text is a string of its own, its warnings
// a slice b forgets here.
func (b *Builder) release() {
	if b.conv != nil {
		b.conv.Reset(grammar.Options{})
	} else {
		b.G.Reset()
	}
	clear(b.keys)
	clear(b.args)
	clear(b.rules)
	*b = Builder{G: b.G, conv: b.conv, keys: b.keys[:0], args: b.args[:0], scratch: b.scratch[:0], rules: b.rules,
		parts: b.parts[:0], required: b.required[:0], pieces: b.pieces[:0], offsets: b.offsets[:0]}
	builders.Put(b)
}

// Name is tools[i]'s name as a GBNF literal.
func (b *Builder) Name(i int) string { return grammar.Literal(b.Tools[i].Function.Name) }

// JSONName is tools[i]'s name as a JSON string, as a GBNF literal.
func (b *Builder) JSONName(i int) string {
	return grammar.Literal(jsonName(b.Tools[i].Function.Name))
}

// WS is the whitespace allowed between JSON tokens.
func (b *Builder) WS() string {
	if b.ws == "" {
		b.ws = b.G.JSONWhitespace(b.opts)
	}
	return b.ws
}

// Args is the rule for tools[i]'s arguments as one JSON object.
func (b *Builder) Args(i int) (string, error) {
	if b.args[i] != "" {
		return b.args[i], nil
	}
	rule, warns, err := b.converter().Add(b.ruleName("args-", i), argumentsSchema(b.Tools[i]))
	b.warn(i, warns)
	if err != nil {
		return "", err
	}
	b.args[i] = rule
	return rule, nil
}

// ruleName is prefix and tools[i]'s name as a rule name: characters a rule
// name cannot hold written as '-' (as the grammar would), in one string.
func (b *Builder) ruleName(prefix string, i int) string {
	name := b.Tools[i].Function.Name
	var s strings.Builder
	s.Grow(len(prefix) + len(name))
	s.WriteString(prefix)
	for k := 0; k < len(name); k++ {
		c := name[k]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			c = '-'
		}
		s.WriteByte(c)
	}
	return s.String()
}

// converter is the schema converter every tool's schema goes through (b.opts are set by then).
func (b *Builder) converter() *grammar.Converter {
	if b.conv == nil {
		b.conv = grammar.NewConverter(b.G, b.opts)
		b.conv.SetContext(b.ctx)
	}
	return b.conv
}

func (b *Builder) warn(i int, warns []string) {
	for _, w := range warns {
		b.warnings = append(b.warnings, b.Tools[i].Function.Name+": "+w)
	}
}

// JSONCall is tools[i]'s call as one JSON object with the name under
// nameKey and the arguments under argsKey, in that order; extra, when not
// empty, is a GBNF expression for further members after them (each with its
// leading comma).
func (b *Builder) JSONCall(i int, nameKey, argsKey, extra string) (string, error) {
	args, err := b.Args(i)
	if err != nil {
		return "", err
	}
	ws := b.WS()
	name := b.JSONName(i)
	var s strings.Builder
	s.Grow(64 + 8*len(ws) + len(name) + len(args) + len(extra))
	for _, p := range [...]string{`"{"`, ws, b.keyLiteral(nameKey), ws, `":"`, ws, name, ws,
		`","`, ws, b.keyLiteral(argsKey), ws, `":"`, ws, args, ws, extra, `"}"`} {
		seqPart(&s, p)
	}
	return s.String(), nil
}

// keyLiteral is a JSON member name in quotes as a GBNF literal, made once per grammar.
func (b *Builder) keyLiteral(key string) string {
	for _, k := range b.keys {
		if k[0] == key {
			return k[1]
		}
	}
	l := grammar.Literal(`"` + key + `"`)
	b.keys = append(b.keys, [2]string{key, l})
	return l
}

// JSONString is the rule for any JSON string.
func (b *Builder) JSONString() string {
	if b.str == "" {
		b.str, _, _ = b.converter().Add("string-value", json.RawMessage(`{"type":"string"}`))
	}
	return b.str
}

// Value says how a family writes one argument's value in markup of its own.
type Value struct {
	// Stop is the markup that ends a value; a string value is any text
	// without it.
	Stop string
	// String, when not empty, is the GBNF of a string value instead of any
	// text without Stop.
	String string
	// Python says the templates write non-strings with Python's str():
	// True, False and None are accepted beside true, false and null.
	Python bool
	// UnescapedQuotes says the templates write Python strings between
	// single quotes they do not escape ('it's'): inside one, a quote that
	// no delimiter follows is text, as the parser reads it
	// (pyBlock.unescapedQuotes).
	UnescapedQuotes bool
	// PythonContainers says they write objects and arrays so too
	// ({'a': True}, ['x']): such values are Python literals, typed by the
	// schema where it declares their properties or items (it implies
	// Nested).
	PythonContainers bool
	// Encode, when not nil, is the GBNF of one argument's value instead of
	// the above (families with a value syntax of their own: Gemma's
	// key:value, Python literals).
	Encode func(m grammar.Member) string
	// Sep is the GBNF between two arguments ("" when each argument carries
	// its own layout); it is written only between arguments that are
	// present.
	Sep string
	// Sorted writes the arguments in the order of their names, as
	// templates that sort them do (Gemma 4), instead of the schema's; the
	// members given to Arguments are sorted in place.
	Sorted bool
	// Nested asks for the members' nested values described
	// (grammar.Member's Properties and Items), for an Encode that writes
	// nested objects and arrays in the family's own syntax.
	Nested bool
}

// Params is the sequence of tools[i]'s arguments written one by one, in the
// schema's order, optional ones optional; param writes one of them given
// its name (plain text, not a literal) and the GBNF of its value, and may
// look at the member's schema type. Only declared properties can be
// written.
func (b *Builder) Params(i int, v Value, param func(m grammar.Member, value string) string) (string, error) {
	return b.paramsBetween(i, "", "", v, paramOf{text: param})
}

// paramOf writes one argument's GBNF given its member and the GBNF of its
// value: as a string (text, what Params takes), or appended to a buffer
// (write, for arguments written straight into the call's text).
type paramOf struct {
	text  func(m grammar.Member, value string) string
	write func(dst []byte, m grammar.Member, value string) []byte
}

func (p paramOf) appendTo(dst []byte, m grammar.Member, value string) []byte {
	if p.write != nil {
		return p.write(dst, m, value)
	}
	return append(dst, p.text(m, value)...)
}

// keyValue writes a parameter as its name and sep in one literal, then its
// value (Gemma's key:value, Python's key=value).
func keyValue(sep string) paramOf {
	return paramOf{write: func(dst []byte, m grammar.Member, value string) []byte {
		start := len(dst)
		dst = grammar.AppendLiteralOf(dst, m.Name, sep)
		if bytes.IndexByte(dst[start:], '|') >= 0 { // seqPart's parentheses
			dst = wrapFrom(dst, start, "(", ")")
		}
		return appendSeqPart(dst, start, value)
	}}
}

// paramsBetween is the sequence head, Params(i, v, …), tail, the whole call
// written at once; head and tail are sequences themselves (seqOf's), joined
// as they are.
func (b *Builder) paramsBetween(i int, head, tail string, v Value, param paramOf) (string, error) {
	members := b.Members
	if v.Nested || v.PythonContainers { // Python containers are typed by their nested members
		members = b.NestedMembers
	}
	ms, err := members(i)
	if err != nil {
		return "", err
	}
	return b.arguments(head, tail, func() string { return b.ruleName("args-rest-", i) }, ms, v, param), nil
}

// Arguments is Params over the members ms (a tool's, or a nested object's
// declared properties); long tails of separated members become rules named
// after restName().
func (b *Builder) Arguments(restName func() string, ms []grammar.Member, v Value, param func(m grammar.Member, value string) string) string {
	return b.arguments("", "", restName, ms, v, paramOf{text: param})
}

// arguments is Arguments between head and tail, as paramsBetween.
func (b *Builder) arguments(head, tail string, restName func() string, ms []grammar.Member, v Value, param paramOf) string {
	if v.Sorted { // in place: the members are this call's own (Members reads them anew)
		slices.SortFunc(ms, func(a, c grammar.Member) int { return strings.Compare(a.Name, c.Name) })
	}
	if v.Sep != "" {
		// The parts are written on b.scratch, and read where they lie until
		// separated has joined them: nothing writes over them before this
		// call returns (what is written later goes after them, and a grown
		// buffer leaves the old bytes as they were).
		mark := b.scratchMark()
		// parts and required are taken from stacks that nested values'
		// calls (b.encode) push onto and pop before returning, and are
		// written by index after each of them: their slices are only taken
		// once all are.
		pmark := len(b.parts)
		b.parts = slices.Grow(b.parts, len(ms))[:pmark+len(ms)]
		b.required = slices.Grow(b.required[:pmark], len(ms))[:pmark+len(ms)]
		defer func() {
			b.scratch = b.scratch[:mark]
			clear(b.parts[pmark:])
			b.parts, b.required = b.parts[:pmark], b.required[:pmark]
		}()
		for k, m := range ms {
			value := b.encode(m, v)
			start := len(b.scratch)
			b.scratch = param.appendTo(b.scratch, m, value)
			b.parts[pmark+k] = ""
			if n := len(b.scratch) - start; n > 0 {
				b.parts[pmark+k] = unsafe.String(&b.scratch[start], n)
			}
			b.required[pmark+k] = m.Required
		}
		body := b.separated(restName, b.parts[pmark:], b.required[pmark:], v.Sep)
		if head == "" && tail == "" {
			return body
		}
		// joinCall only reads the bytes.
		return joinCall(head, unsafe.Slice(unsafe.StringData(body), len(body)), strings.IndexByte(body, '|') >= 0, tail)
	}
	// Each argument in turn, as seqPart would join them, optional ones as
	// (…)?, which seqPart parenthesises once more when they hold
	// alternatives. The text is built on b.scratch, above whatever an
	// enclosing call keeps there (nested objects' values come through
	// here too).
	mark := b.scratchMark()
	bar := false
	for _, m := range ms {
		value := b.encode(m, v)
		start := len(b.scratch)
		if start > mark {
			b.scratch = append(b.scratch, ' ')
			start++
		}
		b.scratch = param.appendTo(b.scratch, m, value)
		p := b.scratch[start:]
		pbar := bytes.IndexByte(p, '|') >= 0
		bar = bar || pbar
		switch {
		case m.Required && pbar && !(p[0] == '(' && p[len(p)-1] == ')'):
			b.scratch = wrapFrom(b.scratch, start, "(", ")")
		case m.Required:
		case pbar:
			b.scratch = wrapFrom(b.scratch, start, "((", ")?)")
		default:
			b.scratch = wrapFrom(b.scratch, start, "(", ")?")
		}
	}
	defer func() { b.scratch = b.scratch[:mark] }()
	return joinCall(head, b.scratch[mark:], bar, tail)
}

// scratchMark is where text built on b.scratch starts: its length, the
// buffer made at the first use (a call's text is a few hundred bytes).
func (b *Builder) scratchMark() int {
	if b.scratch == nil {
		b.scratch = make([]byte, 0, 2048)
	}
	return len(b.scratch)
}

// joinCall is head, body and tail in sequence (head and tail are sequences
// already; body is parenthesised as seqPart would, bar saying whether it
// holds a '|'), in one allocation.
func joinCall(head string, body []byte, bar bool, tail string) string {
	if head == "" && tail == "" {
		return string(body)
	}
	var s strings.Builder
	s.Grow(len(head) + len(body) + len(tail) + 6)
	s.WriteString(head)
	if len(body) > 0 {
		if s.Len() > 0 {
			s.WriteByte(' ')
		}
		wrap := bar && !(body[0] == '(' && body[len(body)-1] == ')')
		if wrap {
			s.WriteByte('(')
		}
		s.Write(body)
		if wrap {
			s.WriteByte(')')
		}
	}
	if tail != "" {
		if s.Len() > 0 {
			s.WriteByte(' ')
		}
		s.WriteString(tail)
	}
	return s.String()
}

// wrapFrom puts open before dst[start:] and close after it.
func wrapFrom(dst []byte, start int, open, close string) []byte {
	n := len(dst)
	dst = append(dst, open...)
	copy(dst[start+len(open):], dst[start:n])
	copy(dst[start:], open)
	return append(dst, close...)
}

// appendSeqPart is seqPart for a sequence written to dst from start.
func appendSeqPart(dst []byte, start int, p string) []byte {
	if p == "" {
		return dst
	}
	if len(dst) > start {
		dst = append(dst, ' ')
	}
	if needsParens(p) {
		return append(append(append(dst, '('), p...), ')')
	}
	return append(dst, p...)
}

// encode is the GBNF of member m's value as v writes it.
func (b *Builder) encode(m grammar.Member, v Value) string {
	if v.Encode != nil {
		return v.Encode(m)
	}
	return b.value(m, v)
}

// separated is the GBNF of the parts in order, optional ones optional, with
// sep exactly between those present: one alternative per part that can come
// first (every part up to the first required one), each followed by the rest
// with their leading separators.
func (b *Builder) separated(restName func() string, parts []string, required []bool, sep string) string {
	n := len(parts)
	if n == 0 {
		return ""
	}
	// The tails nest: rest[k] is seqOf(p[k], rest[k+1]), p[k] being
	// seqOf(sep, parts[k]), (…)? when optional, so every tail is a
	// substring of the longest one used, rest[1]. It is written once: each
	// p[k] in turn, "(" before a tail that seqOf parenthesises and all the
	// ")" at the end.
	mark := b.scratchMark()
	defer func() { b.scratch = b.scratch[:mark] }()
	// separated calls nothing that uses pieces or offsets: they need no
	// stack discipline, only to be long enough.
	b.pieces = slices.Grow(b.pieces[:0], n)[:n]
	pieces := b.pieces
	for k := range parts {
		start := len(b.scratch)
		buf := appendSeqPart(appendSeqPart(b.scratch, start, sep), start, parts[k])
		if !required[k] {
			buf = wrapFrom(buf, start, "(", ")?")
		}
		if p := buf[start:]; bytes.IndexByte(p, '|') >= 0 && !(p[0] == '(' && p[len(p)-1] == ')') {
			buf = wrapFrom(buf, start, "(", ")")
		}
		b.scratch = buf
		pieces[k] = piece{start: start, end: len(buf)}
	}
	// rest[k] holds '|' when a piece from k on does; it starts with p[k]'s
	// first byte and ends with p[n-1]'s last, or ')' when a tail inside it
	// is parenthesised.
	bar, last := false, byte(0)
	for k := n - 1; k >= 1; k-- {
		p := b.scratch[pieces[k].start:pieces[k].end]
		bar = bar || bytes.IndexByte(p, '|') >= 0
		if k == n-1 {
			last = p[len(p)-1]
		}
		pieces[k].wrapRest = bar && !(p[0] == '(' && last == ')')
		if pieces[k].wrapRest {
			last = ')'
		}
	}
	// Each tail longer than sharedTail becomes a rule, which holds its text
	// in full: the rules of many optional parts hold a quadratic amount of
	// text between them (every tail is the next one and a part more). Past
	// maxNestedTails bytes of such rules, the tails are chained instead, each
	// rule a part and the rule of the next tail (chainedTails).
	if b.nestedTailsBytes(pieces, required) > maxNestedTails {
		return b.chainedTails(restName, parts, required, pieces)
	}
	size := 2 * n
	for _, p := range pieces {
		size += p.end - p.start
	}
	text := make([]byte, 0, size)
	b.offsets = slices.Grow(b.offsets[:0], n+1)[:n+1]
	restStart := b.offsets // where rest[k] starts in text
	clear(restStart)
	for k := 1; k < n; k++ {
		if k > 1 {
			text = append(text, ' ')
			if pieces[k].wrapRest {
				text = append(text, '(')
			}
		}
		restStart[k] = len(text)
		text = append(text, b.scratch[pieces[k].start:pieces[k].end]...)
	}
	for k := 2; k < n; k++ {
		if pieces[k].wrapRest {
			text = append(text, ')')
		}
	}
	all := unsafe.String(unsafe.SliceData(text), len(text)) // text is not written again
	restOf := func(k int) string {                          // rest[k] without its own parentheses
		if k >= n {
			return ""
		}
		end := len(all) // less the ")" of the tails that enclose it
		for i := 2; i <= k; i++ {
			if pieces[i].wrapRest {
				end--
			}
		}
		return all[restStart[k]:end]
	}
	bodyStart := len(b.scratch)
	buf := append(b.scratch, '(')
	allOptional := true
	for k := range parts {
		tail := restOf(k + 1)
		if tail != "" && len(tail) > sharedTail {
			tail = b.G.Add(restName(), tail)
		}
		if k > 0 {
			buf = append(buf, " | "...)
		}
		start := len(buf)
		buf = appendSeqPart(appendSeqPart(buf, start, parts[k]), start, tail)
		if required[k] {
			allOptional = false
			break
		}
	}
	buf = append(buf, ')')
	if allOptional {
		buf = append(buf, '?')
	}
	b.scratch = buf
	return string(buf[bodyStart:])
}

// sharedTail is the longest tail of separated's written where it is used;
// a longer one becomes a rule.
const sharedTail = 200

// maxNestedTails bounds the text separated's tail rules may hold between
// them written nested (each tail in full); real tools' hold a few KB.
const maxNestedTails = 64 << 10

// nestedTailsBytes is how many bytes separated's tail rules hold written
// nested: rest[k] is p[k], a space and rest[k+1], parenthesised when it
// holds a '|', and the alternatives use rest[1] up to the one after the
// first required part.
func (b *Builder) nestedTailsBytes(pieces []piece, required []bool) int {
	n := len(pieces)
	total, rest := 0, 0 // rest: len(rest[k+1]) for the k at hand
	lengths := slices.Grow(b.offsets[:0], n+1)[:n+1]
	lengths[n] = 0
	for k := n - 1; k >= 1; k-- {
		rest = pieces[k].end - pieces[k].start
		if k < n-1 {
			rest += 1 + lengths[k+1]
			if pieces[k+1].wrapRest {
				rest += 2
			}
		}
		lengths[k] = rest
	}
	for k := range required {
		if k+1 < n && lengths[k+1] > sharedTail {
			total += lengths[k+1]
		}
		if required[k] {
			break
		}
	}
	b.offsets = lengths
	return total
}

// chainedTails is separated's body with the tails as a chain: rest[k] is
// p[k] then rest[k+1], a rule of its own once longer than sharedTail bytes,
// so that the rules hold each part once.
func (b *Builder) chainedTails(restName func() string, parts []string, required []bool, pieces []piece) string {
	n := len(parts)
	tails := make([]string, n+1) // rest[k] as one part of a sequence: its text, or its rule
	for k := n - 1; k >= 1; k-- {
		t := seqOf(string(b.scratch[pieces[k].start:pieces[k].end]), tails[k+1])
		if len(t) > sharedTail {
			t = b.G.Add(restName(), t)
		}
		tails[k] = t
	}
	bodyStart := len(b.scratch)
	buf := append(b.scratch, '(')
	allOptional := true
	for k := range parts {
		if k > 0 {
			buf = append(buf, " | "...)
		}
		start := len(buf)
		buf = appendSeqPart(appendSeqPart(buf, start, parts[k]), start, tails[k+1])
		if required[k] {
			allOptional = false
			break
		}
	}
	buf = append(buf, ')')
	if allOptional {
		buf = append(buf, '?')
	}
	b.scratch = buf
	return string(buf[bodyStart:])
}

// piece is one part of separated's arguments.
type piece struct {
	start, end int  // p[k] in b.scratch, as the first part of a sequence
	wrapRest   bool // rest[k] is parenthesised when it follows p[k-1]
}

// NestedMembers are Members with their nested values described (object
// members' properties, array members' items).
func (b *Builder) NestedMembers(i int) ([]grammar.Member, error) { return b.membersOf(i, true) }

// Members are tools[i]'s declared arguments with their JSON value rules.
// They are valid until the next call of Members or NestedMembers, which
// reuses their memory (a family reads one tool's at a time).
func (b *Builder) Members(i int) ([]grammar.Member, error) { return b.membersOf(i, false) }

func (b *Builder) membersOf(i int, nested bool) ([]grammar.Member, error) {
	read := b.converter().Members
	if nested {
		read = b.converter().NestedMembers
	}
	ms, warns, err := read(b.ruleName("arg-", i), argumentsSchema(b.Tools[i]))
	b.warn(i, warns)
	return ms, err
}

// textWithout is G.TextWithout, the last stop's rule kept at hand: every
// string argument of a tagged family asks for the same one.
func (b *Builder) textWithout(stop string) string {
	if b.textRule == "" || b.textStop != stop {
		b.textStop, b.textRule = stop, b.G.TextWithout(stop)
	}
	return b.textRule
}

// value is the GBNF of one raw-text value: a string is any text without the
// stop markup (an enum: one of its values); other types as JSON.
func (b *Builder) value(m grammar.Member, v Value) string {
	if len(m.Enum) > 0 {
		return grammar.Alternatives(m.Enum)
	}
	switch m.Type {
	case "string", "":
		if v.String != "" {
			return v.String
		}
		return b.textWithout(v.Stop)
	case "boolean":
		if v.Python {
			return `("true" | "false" | "True" | "False")`
		}
		return `("true" | "false")`
	case "null":
		if v.Python {
			return `("null" | "None")`
		}
		return `"null"`
	case "object", "array":
		if v.PythonContainers {
			return b.pythonLiteral(m)
		}
	}
	return m.Value
}

// pythonLiteral is m's value as Python's str() writes it: strings quoted,
// True/False/None, lists and dicts of literals, typed where m describes its
// nested values.
func (b *Builder) pythonLiteral(m grammar.Member) string {
	v := Value{Sep: pyItemSep, Nested: true}
	v.Encode = func(m grammar.Member) string { return pythonValue(b, m, v) }
	return pythonValue(b, m, v)
}
