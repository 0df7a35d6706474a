package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"hash/maphash"
	"strings"
	"sync"
)

// Tool is what a tool-call constraint needs of one tool: its name and its parameters' JSON Schema.
type Tool struct {
	Name       string
	Parameters json.RawMessage
}

// ToolGrammar is the grammar for calls to a set of tools. For each tool i, Args[i] is the rule matching
// its arguments object and Call[i] the rule matching one call written as
// {"name": "<name>", "arguments": <arguments>}; root matches one call to any of the tools. A tool-call
// format whose calls look different wraps the Args rules its own way.
//
// A ToolGrammar is shared by every user of a Cache: do not add rules to its Grammar.
type ToolGrammar struct {
	Grammar  *Grammar
	Text     string // Grammar.String()
	Args     []string
	Call     []string
	Warnings []string // each prefixed with the tool's name
}

// Tools builds the grammar for calls to the tools. A tool without parameters takes the empty object;
// warnings are AddSchema's. The options' bounds hold for the tools together; an error about one tool's
// schema is a *ToolError.
func Tools(tools []Tool, opts Options) (*ToolGrammar, error) {
	return buildTools(nil, tools, opts)
}

// ToolsContext is Tools stopping when ctx is done (an error wrapping ctx.Err()).
func ToolsContext(ctx context.Context, tools []Tool, opts Options) (*ToolGrammar, error) {
	return buildTools(ctx, tools, opts)
}

// ToolError is an error about one tool's schema: Err is AddSchema's (a *SchemaError, a *LimitError, a
// stopped build's, …), which errors.As and errors.Is find through it.
type ToolError struct {
	Tool string
	Err  error
}

func (e *ToolError) Error() string {
	return "grammar: tool " + e.Tool + ": " + strings.TrimPrefix(e.Err.Error(), "grammar: ")
}

func (e *ToolError) Unwrap() error { return e.Err }

func buildTools(ctx context.Context, tools []Tool, opts Options) (*ToolGrammar, error) {
	if len(tools) == 0 {
		return nil, errors.New("grammar: no tools")
	}
	g := newSized(16 + 6*len(tools))
	root := g.alloc("root")
	tg := &ToolGrammar{Grammar: g, Args: make([]string, len(tools)), Call: make([]string, len(tools))}
	sg := newSchemaGen(g, opts)
	sg.ctx = ctx
	ws := sg.ws()
	calls := make([]string, len(tools))
	for i, t := range tools {
		base := sanitizeName(cutName(t.Name))
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		args, warns, err := sg.add(base+"-args", params)
		for _, w := range warns {
			tg.Warnings = append(tg.Warnings, t.Name+": "+w)
		}
		if err != nil {
			return nil, &ToolError{Tool: t.Name, Err: err}
		}
		call := g.alloc(base + "-call")
		sg.scratch = appendJSONString(sg.scratch[:0], t.Name)
		g.Rule(call, callRule(sg.text[:0], ws, sg.scratch, args))
		tg.Args[i], tg.Call[i], calls[i] = args, call, call
	}
	g.Rule(root, strings.Join(calls, " | "))
	tg.Text = g.String()
	return tg, nil
}

// Cache keeps the grammars of recently seen tool sets: an agent sends the same tools with every request,
// so the grammar is built once per tool set. The key is the tools' names and schema bytes and the
// options; a hit compares them in full, so two tool sets never share an entry. Safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	max     int
	seed    maphash.Seed
	entries map[uint64][]*cacheEntry
	order   []uint64 // insertion order, for eviction
	n       int
}

type cacheEntry struct {
	tools []Tool
	opts  Options
	tg    *ToolGrammar
}

// NewCache returns a cache holding the grammars of up to max tool sets (the oldest is dropped first).
func NewCache(max int) *Cache {
	if max < 1 {
		max = 1
	}
	return &Cache{max: max, seed: maphash.MakeSeed(), entries: make(map[uint64][]*cacheEntry)}
}

// Tools returns the grammar for the tools, built by Tools on the first request for this tool set.
// Errors are not cached.
func (c *Cache) Tools(tools []Tool, opts Options) (*ToolGrammar, error) {
	return c.tools(nil, tools, opts)
}

// ToolsContext is Tools building under ctx (ToolsContext): a build stopped by it is not cached.
func (c *Cache) ToolsContext(ctx context.Context, tools []Tool, opts Options) (*ToolGrammar, error) {
	return c.tools(ctx, tools, opts)
}

func (c *Cache) tools(ctx context.Context, tools []Tool, opts Options) (*ToolGrammar, error) {
	var h maphash.Hash
	h.SetSeed(c.seed)
	for _, t := range tools {
		h.WriteString(t.Name)
		h.WriteByte(0)
		h.Write(t.Parameters)
		h.WriteByte(0)
	}
	h.WriteByte(byte(opts.Whitespace))
	key := h.Sum64()
	c.mu.Lock()
	for _, e := range c.entries[key] {
		if e.opts == opts && sameTools(e.tools, tools) {
			c.mu.Unlock()
			return e.tg, nil
		}
	}
	c.mu.Unlock()
	tg, err := buildTools(ctx, tools, opts)
	if err != nil {
		return nil, err
	}
	kept := make([]Tool, len(tools))
	for i, t := range tools {
		kept[i] = Tool{Name: t.Name, Parameters: append(json.RawMessage(nil), t.Parameters...)}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries[key] {
		if e.opts == opts && sameTools(e.tools, tools) {
			return e.tg, nil // built meanwhile by another caller
		}
	}
	for c.n >= c.max && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		if es := c.entries[old]; len(es) > 0 {
			c.entries[old] = es[1:]
			if len(es) == 1 {
				delete(c.entries, old)
			}
			c.n--
		}
	}
	c.entries[key] = append(c.entries[key], &cacheEntry{tools: kept, opts: opts, tg: tg})
	c.order = append(c.order, key)
	c.n++
	return tg, nil
}

// callRule is the expression for {"name": <name>, "arguments": <args>}, with ws between the tokens,
// written in b.
func callRule(b []byte, ws string, nameJSON []byte, args string) string {
	next := func(b []byte) []byte {
		b = append(b, ' ')
		if ws != "" {
			b = append(append(b, ws...), ' ')
		}
		return b
	}
	b = append(b, `"{"`...)
	b = append(next(b), `"\"name\""`...)
	b = append(next(b), `":"`...)
	b = append(next(b), '"')
	b = append(appendLiteralBody(b, nameJSON), '"')
	b = append(next(b), `","`...)
	b = append(next(b), `"\"arguments\""`...)
	b = append(next(b), `":"`...)
	b = append(next(b), args...)
	b = append(next(b), `"}"`...)
	return string(b)
}

func sameTools(a, b []Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || string(a[i].Parameters) != string(b[i].Parameters) {
			return false
		}
	}
	return true
}
