// Package makeup measures a prompt's make-up: how many of its tokens each part
// of the request costs — the system prompt, each tool's schema, each message,
// tool results — and how many are the chat template's own scaffolding.
//
// A part's size is measured by rendering the request without it and counting
// the difference: the tokens a part costs are the tokens the prompt would lose
// without it, whatever text the template wraps around it. Removing a message
// can break templates that insist on alternating roles or on a user message;
// where the template then raises, the part is measured by emptying the
// message's content instead (Part.ContentOnly), and where that raises too the
// part is left unmeasured. The analysis itself never fails once the full
// request renders.
//
// The parts need not add up to the total: tokens merge across the boundaries
// between parts, and a template may render a part differently depending on the
// others (Qwen3 keeps the reasoning of turns after the last user query only).
// What the parts do not account for is reported as the "template" part:
// scaffolding plus that residual.
package makeup

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/template"
)

// Counter counts a text's tokens as the runtime will see it as a raw prompt
// (*tokenize.Tokenizer's Count). It must be deterministic and safe to call
// many times; Count("") is taken as what the runtime adds around any prompt
// (BOS, EOS).
type Counter interface {
	Count(text string) int
}

// Part kinds.
const (
	KindSystem      = "system"            // the system (and developer) messages, together
	KindTool        = "tool"              // one tool's definition
	KindTools       = "tools"             // a group of tools, measured together
	KindToolPreface = "tool_instructions" // the tool section's own text: what the tools cost beyond their definitions
	KindMessage     = "message"           // one message
	KindToolResult  = "tool_result"       // one tool-result message
	KindMessages    = "messages"          // a group of consecutive messages, measured together
	KindTemplate    = "template"          // the template's scaffolding and what the parts do not account for
)

// Part is one part of the prompt and the tokens it costs.
type Part struct {
	Kind string `json:"kind"`
	// Name says what the part is, for people: "system", "read_file",
	// "message 3 (user)", "tool result 4 (read_file)", "tools 1-12", ….
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	// Tools are the names of the tools a tool part holds.
	Tools []string `json:"tools,omitempty"`
	// Estimates are, for a group of tools, each tool's share of the group's
	// tokens in proportion to the size of its definition: an estimate, as
	// the group was measured as a whole.
	Estimates []int `json:"estimates,omitempty"`
	// Messages are the indices (in the request's messages) of the messages a
	// message, tool-result, system or group part holds.
	Messages []int  `json:"messages,omitempty"`
	Role     string `json:"role,omitempty"`
	// ContentOnly: removing the part's messages made the template raise, so
	// the part was measured by emptying their content; what the template puts
	// around a message is then counted as scaffolding.
	ContentOnly bool `json:"content_only,omitempty"`
	// Unmeasured: neither removing nor emptying the part rendered; its tokens
	// are in the template part.
	Unmeasured bool `json:"unmeasured,omitempty"`
}

// Makeup is a prompt's make-up.
type Makeup struct {
	// Total is the prompt's length in tokens, with what the runtime adds.
	Total int `json:"total"`
	// Tools is what all the tools cost together: the total minus the prompt
	// rendered without tools (definitions and the tool section's own text).
	Tools int `json:"tools"`
	// ToolCount is the number of tools offered.
	ToolCount int `json:"tool_count"`
	// Parts in prompt order: system, tools, tool instructions, messages, and
	// last the template's part.
	Parts []Part `json:"parts"`
	// Renders is the number of renders the analysis made, the full one included.
	Renders int `json:"renders"`
	// Grouped is set when parts were measured in groups to keep within
	// Options.MaxRenders.
	Grouped bool `json:"grouped,omitempty"`
	// Windowed is set when variants were counted only where they differ from
	// the full prompt (Options.Exact off and the tokenizer splits at line
	// starts, checked on the prompt).
	Windowed bool `json:"windowed,omitempty"`
	// PrefillEstimateMS is how long the runtime would take to process the
	// whole prompt at the prompt rate it reported for this model's earlier
	// requests (the gateway fills it; 0 before any was measured). Runtimes
	// that reuse a cached prefix take less.
	PrefillEstimateMS float64 `json:"prefill_estimate_ms,omitempty"`
	// Notes say what was measured in another way than by removal, or not at all.
	Notes []string `json:"notes,omitempty"`
}

// Options tune an analysis. The zero value is usable.
type Options struct {
	// MaxRenders caps the renders beyond the full one; 0 means
	// DefaultMaxRenders. Beyond it tools, then messages, are measured in
	// groups of consecutive ones. With fewer than 2, only the tools as a
	// whole and the system prompt are measured.
	MaxRenders int
	// Exact counts every variant of the prompt whole. Otherwise a variant is
	// counted only between the line starts around where it differs from the
	// full prompt, which gives the same numbers for tokenizers that never merge
	// a newline with the start of the next line (checked on each prompt: the
	// sum of its lines' counts must equal its count, else every variant is
	// counted whole).
	Exact bool
	// Render is passed to each render (a pinned clock); may be nil.
	Render *jinja.Options
	// Prompt is the full render when the caller already has it (it must be
	// what t renders for req); empty renders it.
	Prompt string
}

// DefaultMaxRenders is the render cap when Options.MaxRenders is 0.
const DefaultMaxRenders = 64

// Analyze measures the make-up of req rendered with t, counting with c. It
// fails only when the request itself does not render.
func Analyze(t *jinja.Template, req template.Request, c Counter, opts Options) (*Makeup, error) {
	vars, err := req.Vars()
	if err != nil {
		return nil, err
	}
	a := &analysis{t: t, vars: vars, opts: opts}
	if msgs, ok := vars["messages"].(*jinja.List); ok {
		a.msgs = msgs.Items
	}
	if tools, ok := vars["tools"].(*jinja.List); ok {
		a.tools = tools.Items
	}
	full := opts.Prompt
	if full == "" {
		if full, err = a.render(a.msgs, vars["tools"]); err != nil {
			return nil, err
		}
	} else {
		a.renders++ // the caller's
	}
	a.cnt = newCounter(c, full, opts.Exact)
	m := &Makeup{Total: a.cnt.total, ToolCount: len(a.tools), Windowed: a.cnt.windowed}
	a.m = m
	a.run()
	m.Renders = a.renders
	return m, nil
}

// analysis is one Analyze call's state.
type analysis struct {
	t       *jinja.Template
	vars    map[string]jinja.Value
	opts    Options
	msgs    []jinja.Value // the request's messages
	tools   []jinja.Value // the request's tools
	cnt     *counter
	m       *Makeup
	renders int
}

// context is the render context of one variant: the request's variables with
// messages and tools replaced.
type context struct {
	vars           map[string]jinja.Value
	messages, tool jinja.Value
}

func (c *context) Lookup(name string) (jinja.Value, bool) {
	switch name {
	case "messages":
		return c.messages, true
	case "tools":
		return c.tool, true
	}
	v, ok := c.vars[name]
	return v, ok
}

func (a *analysis) render(msgs []jinja.Value, tools jinja.Value) (string, error) {
	a.renders++
	return a.t.RenderContext(&context{vars: a.vars, messages: jinja.NewList(msgs), tool: tools}, a.opts.Render)
}

// without is the tokens the prompt loses without the messages at drop and the
// tools at dropTools (nil tools: no tools at all, None). When removing the
// messages makes the template raise, their content is emptied instead.
func (a *analysis) without(drop []int, tools jinja.Value) (tokens int, contentOnly bool, err error) {
	msgs := a.msgs
	if len(drop) > 0 {
		msgs = make([]jinja.Value, 0, len(a.msgs))
		for i, m := range a.msgs {
			if !contains(drop, i) {
				msgs = append(msgs, m)
			}
		}
	}
	out, err := a.render(msgs, tools)
	if err != nil && len(drop) > 0 {
		msgs = make([]jinja.Value, len(a.msgs))
		copy(msgs, a.msgs)
		for _, i := range drop {
			msgs[i] = emptied(a.msgs[i])
		}
		var err2 error
		out, err2 = a.render(msgs, tools)
		if err2 != nil {
			return 0, false, err
		}
		contentOnly, err = true, nil
	}
	if err != nil {
		return 0, false, err
	}
	return a.m.Total - a.cnt.count(out), contentOnly, nil
}

// emptied is message m with content "".
func emptied(m jinja.Value) jinja.Value {
	d, ok := m.(*jinja.Dict)
	if !ok {
		return m
	}
	c := d.Copy()
	c.SetStr("content", "")
	return c
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// run measures the parts within the render budget: the tools as a whole
// first, then the system prompt, then tools and messages one by one or in
// groups.
func (a *analysis) run() {
	m := a.m
	budget := a.opts.MaxRenders
	if budget <= 0 {
		budget = DefaultMaxRenders
	}
	// Messages: system ones together, the others one by one.
	var system, others []int
	for i, msg := range a.msgs {
		if r := role(msg); r == "system" || r == "developer" {
			system = append(system, i)
		} else {
			others = append(others, i)
		}
	}
	measured := 0
	if len(a.tools) > 0 && budget > 0 {
		budget--
		n, _, err := a.without(nil, nil)
		if err != nil {
			m.note("the prompt without tools does not render (%s): the tools' share is unknown", errText(err))
		} else {
			m.Tools = n
		}
	}
	if len(system) > 0 && budget > 0 {
		budget--
		p := Part{Kind: KindSystem, Name: "system", Messages: system, Role: "system"}
		a.measure(&p, system, a.vars["tools"])
		m.Parts = append(m.Parts, p)
	}
	// Split what is left between tools and messages, in proportion.
	nt, nm := len(a.tools), len(others)
	gt, gm := nt, nm
	if nt+nm > budget {
		m.Grouped = true
		gt = 0
		if nt+nm > 0 {
			gt = budget * nt / (nt + nm)
		}
		if nt > 0 && gt == 0 && budget > 0 {
			gt = 1
		}
		gm = budget - gt
		if nm > 0 && gm == 0 && gt > 1 {
			gt, gm = gt-1, 1
		}
	}
	toolSum := 0
	for _, g := range groups(nt, gt) {
		p := Part{Kind: KindTool}
		for i := g[0]; i < g[1]; i++ {
			p.Tools = append(p.Tools, toolName(a.tools[i], i))
		}
		if g[1]-g[0] == 1 {
			p.Name = p.Tools[0]
		} else {
			p.Kind, p.Name = KindTools, fmt.Sprintf("tools %d-%d", g[0]+1, g[1])
		}
		rest := make([]jinja.Value, 0, nt-(g[1]-g[0]))
		rest = append(append(rest, a.tools[:g[0]]...), a.tools[g[1]:]...)
		n, _, err := a.without(nil, jinja.NewList(rest))
		if err != nil {
			p.Unmeasured = true
			m.note("%s: the prompt without it does not render (%s)", p.Name, errText(err))
		}
		p.Tokens = n
		toolSum += n
		if p.Kind == KindTools {
			p.Estimates = a.estimates(g[0], g[1], n)
		}
		m.Parts = append(m.Parts, p)
	}
	if nt > 0 && gt == 0 && m.Tools != 0 {
		// No renders left for single tools: the tools as one part.
		name := fmt.Sprintf("%d tools", nt)
		if nt == 1 {
			name = "1 tool"
		}
		m.Parts = append(m.Parts, Part{Kind: KindTools, Name: name, Tokens: m.Tools,
			Tools: a.toolNames(), Estimates: a.estimates(0, nt, m.Tools)})
		toolSum = m.Tools
	}
	if nt > 0 && m.Tools != 0 && m.Tools != toolSum {
		m.Parts = append(m.Parts, Part{Kind: KindToolPreface, Name: "tool instructions", Tokens: m.Tools - toolSum})
	}
	names := a.callNames()
	for _, g := range groups(nm, gm) {
		idx := others[g[0]:g[1]]
		var p Part
		if len(idx) == 1 {
			i := idx[0]
			r := role(a.msgs[i])
			p = Part{Kind: KindMessage, Name: fmt.Sprintf("message %d (%s)", i, r), Role: r}
			if r == "tool" || r == "tool_result" || r == "ipython" || r == "function" {
				p.Kind = KindToolResult
				p.Name = fmt.Sprintf("tool result %d", i)
				if n := resultName(a.msgs[i], names); n != "" {
					p.Name += " (" + n + ")"
				}
			}
		} else {
			p = Part{Kind: KindMessages, Name: fmt.Sprintf("messages %d-%d", idx[0], idx[len(idx)-1])}
		}
		p.Messages = idx
		a.measure(&p, idx, a.vars["tools"])
		m.Parts = append(m.Parts, p)
	}
	if nm > 0 && gm == 0 {
		m.note("%d messages not measured (render budget spent): their tokens are in the template part", nm)
	}
	for _, p := range m.Parts {
		measured += p.Tokens
	}
	m.Parts = append(m.Parts, Part{Kind: KindTemplate, Name: "template", Tokens: m.Total - measured})
}

// measure sets p's tokens: the prompt without the messages at idx.
func (a *analysis) measure(p *Part, idx []int, tools jinja.Value) {
	n, contentOnly, err := a.without(idx, tools)
	switch {
	case err != nil:
		p.Unmeasured = true
		a.m.note("%s: neither removing it nor emptying its content renders (%s)", p.Name, errText(err))
	case contentOnly:
		p.ContentOnly = true
		a.m.note("%s: removing it makes the template raise; measured by emptying its content", p.Name)
	}
	p.Tokens = n
}

func (m *Makeup) note(format string, args ...any) {
	m.Notes = append(m.Notes, fmt.Sprintf(format, args...))
}

func errText(err error) string {
	var je *jinja.Error
	if errors.As(err, &je) {
		return je.Kind + ": " + je.Message
	}
	return err.Error()
}

// groups cuts n items into g runs of consecutive items as even as possible:
// [start, end) pairs. g ≥ n gives one item per run; g ≤ 0 none.
func groups(n, g int) [][2]int {
	if g <= 0 || n == 0 {
		return nil
	}
	if g > n {
		g = n
	}
	out := make([][2]int, 0, g)
	start := 0
	for k := range g {
		end := (k + 1) * n / g
		out = append(out, [2]int{start, end})
		start = end
	}
	return out
}

func role(m jinja.Value) string {
	if d, ok := m.(*jinja.Dict); ok {
		if r, ok := d.GetStr("role"); ok {
			if s, ok := r.(string); ok {
				return s
			}
		}
	}
	return ""
}

func str(d *jinja.Dict, key string) string {
	if v, ok := d.GetStr(key); ok {
		if s, ok := v.(string); ok {
			return s
		}
	}
	return ""
}

// toolName is a tool's function name (OpenAI shape {"type","function":{name}}
// or a bare {"name"}), or "tool N".
func toolName(t jinja.Value, i int) string {
	if d, ok := t.(*jinja.Dict); ok {
		if f, ok := d.GetStr("function"); ok {
			if fd, ok := f.(*jinja.Dict); ok {
				if n := str(fd, "name"); n != "" {
					return n
				}
			}
		}
		if n := str(d, "name"); n != "" {
			return n
		}
	}
	return fmt.Sprintf("tool %d", i+1)
}

// estimates shares tokens among the tools from lo to hi in proportion to the
// size of their definitions.
func (a *analysis) estimates(lo, hi, tokens int) []int {
	sizes := make([]int, hi-lo)
	sum := 0
	for i := range sizes {
		sizes[i] = size(a.tools[lo+i])
		sum += sizes[i]
	}
	for i := range sizes {
		if sum > 0 {
			sizes[i] = int(float64(tokens)*float64(sizes[i])/float64(sum) + 0.5)
		}
	}
	return sizes
}

// size is about the length of v written as JSON.
func size(v jinja.Value) int {
	switch x := v.(type) {
	case string:
		return len(x) + 2
	case *jinja.Dict:
		n := 2
		for i, k := range x.Keys() {
			n += size(k) + 2 + size(x.Values()[i])
		}
		return n
	case *jinja.List:
		n := 2
		for _, it := range x.Items {
			n += size(it) + 2
		}
		return n
	}
	return 4
}

func (a *analysis) toolNames() []string {
	out := make([]string, len(a.tools))
	for i, t := range a.tools {
		out[i] = toolName(t, i)
	}
	return out
}

// callNames maps the call ids of the assistant messages' tool calls to the
// called function's name, to label tool results.
func (a *analysis) callNames() map[string]string {
	names := map[string]string{}
	for _, msg := range a.msgs {
		d, ok := msg.(*jinja.Dict)
		if !ok {
			continue
		}
		calls, ok := d.GetStr("tool_calls")
		if !ok {
			continue
		}
		l, ok := calls.(*jinja.List)
		if !ok {
			continue
		}
		for _, c := range l.Items {
			cd, ok := c.(*jinja.Dict)
			if !ok {
				continue
			}
			id := str(cd, "id")
			name := str(cd, "name")
			if f, ok := cd.GetStr("function"); ok {
				if fd, ok := f.(*jinja.Dict); ok {
					name = str(fd, "name")
				}
			}
			if id != "" && name != "" {
				names[id] = name
			}
		}
	}
	return names
}

// resultName names the tool a tool-result message answers: its "name", or
// the call its tool_call_id refers to.
func resultName(m jinja.Value, calls map[string]string) string {
	d, ok := m.(*jinja.Dict)
	if !ok {
		return ""
	}
	if n := str(d, "name"); n != "" {
		return n
	}
	return calls[str(d, "tool_call_id")]
}

// ToolShare is the tools' share of the prompt, 0 to 1.
func (m *Makeup) ToolShare() float64 {
	if m.Total <= 0 {
		return 0
	}
	return float64(m.Tools) / float64(m.Total)
}

// Dominant is the share above which the tools are said to dominate the prompt.
const Dominant = 0.5

// Warning is a sentence for people when the tools take more than half of the
// prompt, naming the largest tools; "" otherwise. For example:
//
//	tools are 87% of the prompt (43,120 of 49,511 tokens): 73 tools; the largest: a (2,104), b (1,980), c (1,511)
func (m *Makeup) Warning() string {
	if m.ToolShare() <= Dominant {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tools are %d%% of the prompt (%s of %s tokens): %d tool", int(m.ToolShare()*100+0.5), Thousands(m.Tools), Thousands(m.Total), m.ToolCount)
	if m.ToolCount != 1 {
		b.WriteByte('s')
	}
	type tool struct {
		name, tokens string
		n            int
	}
	var tools []tool
	for _, p := range m.Parts {
		switch {
		case p.Kind == KindTool:
			tools = append(tools, tool{p.Name, Thousands(p.Tokens), p.Tokens})
		case p.Kind == KindTools && len(p.Estimates) == len(p.Tools):
			for i, name := range p.Tools {
				tools = append(tools, tool{name, "~" + Thousands(p.Estimates[i]), p.Estimates[i]})
			}
		}
	}
	sort.SliceStable(tools, func(i, j int) bool { return tools[i].n > tools[j].n })
	for i, t := range tools[:min(3, len(tools))] {
		if i == 0 {
			b.WriteString("; the largest: ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", t.name, t.tokens)
	}
	return b.String()
}

// Thousands writes n with commas between groups of three digits.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
