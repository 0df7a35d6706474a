// Package template finds a model's chat template (a Hugging Face folder, a GGUF
// file, a plain file), reports conflicts between its copies, and renders a request
// the way transformers' apply_chat_template(..., tokenize=False) does.
package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dragoman-dev/dragoman/jinja"
)

// Request is one render request, in the shape ../shared/tools/oracle/render.py
// reads:
//
//	{"template", "messages", "tools", "documents", "add_generation_prompt",
//	 "bos_token", "eos_token", "special_tokens", "kwargs"}
//
// JSON values are kept raw and converted with jinja.FromJSON at render time, so
// key order and the int/float distinction survive as Python's json.loads keeps them.
// A nil RawMessage means the field was absent. A Request from FromChat holds the
// values it built instead, its messages and tools, tokens and kwargs, beneath
// these fields: one that is set wins.
type Request struct {
	// Template is the request's own template text ("template"), if any; callers
	// that take the template from elsewhere ignore it.
	Template *string
	Messages json.RawMessage
	// Tools and Documents are passed to the template as None when absent or null.
	Tools     json.RawMessage
	Documents json.RawMessage
	// AddGenerationPrompt is bool(req["add_generation_prompt"]) in Python terms.
	AddGenerationPrompt bool
	// BOSToken and EOSToken override SpecialTokens' entries when not null.
	BOSToken json.RawMessage
	EOSToken json.RawMessage
	// SpecialTokens is the tokenizer's special_tokens_map; entries whose value is
	// null are left out (the variable stays undefined).
	SpecialTokens map[string]json.RawMessage
	// Kwargs are extra template variables (enable_thinking, ...); they override
	// special tokens of the same name.
	Kwargs map[string]json.RawMessage

	// Key order of SpecialTokens and Kwargs as parsed; it decides which name a
	// collision error names, as Python's dict order does.
	specialOrder, kwargsOrder []string

	// decoded holds the values ParseRequest decoded, each with the raw JSON it
	// came from; Vars uses a value while its field still holds that very text
	// (the same bytes, not an equal copy), and decodes anything else itself.
	// Values are shared by every render of the request, which never change
	// them (the sandbox refuses mutating methods).
	decoded []decodedJSON

	// built holds the values FromChat made without JSON; a raw field that is
	// set wins over them.
	built *builtValues
}

// decodedJSON is one value ParseRequest decoded, and the raw JSON it came from.
type decodedJSON struct {
	raw json.RawMessage
	val jinja.Value
}

// ParseRequest reads a request object. Keys are matched exactly (case-sensitive),
// and a key given twice keeps its last value, as json.loads does. The JSON is
// read once, by jinja.FromJSONMembers: the raw fields are slices of a copy of
// data, and the values decoded on the way are kept for Vars.
func ParseRequest(data []byte) (Request, error) {
	var req Request
	data = bytes.Clone(data) // the raw fields alias it; the caller keeps data
	members, err := jinja.FromJSONMembers(data)
	if err != nil {
		return req, fmt.Errorf("request: %w", err)
	}
	top := make(map[string]jinja.JSONMember, len(members))
	for _, m := range members {
		top[m.Key] = m
	}
	if m, ok := top["template"]; ok && m.Value != nil {
		s, isStr := m.Value.(string)
		if !isStr {
			return req, errors.New(`request: "template" must be a string`)
		}
		req.Template = &s
	}
	req.Messages = req.keep(top["messages"])
	req.Tools = req.keep(top["tools"])
	req.Documents = req.keep(top["documents"])
	req.BOSToken = req.keep(top["bos_token"])
	req.EOSToken = req.keep(top["eos_token"])
	if m, ok := top["add_generation_prompt"]; ok {
		req.AddGenerationPrompt = pyTruthy(m.Value)
	}
	// render.py: dict(req.get("special_tokens") or {}) and req.get("kwargs") or {}:
	// null or any falsy value means none; anything else must be an object.
	for _, f := range []struct {
		name  string
		m     *map[string]json.RawMessage
		order *[]string
	}{{"special_tokens", &req.SpecialTokens, &req.specialOrder}, {"kwargs", &req.Kwargs, &req.kwargsOrder}} {
		m, ok := top[f.name]
		if !ok || !pyTruthy(m.Value) {
			continue
		}
		if _, isObj := m.Value.(*jinja.Dict); !isObj {
			return req, fmt.Errorf("request: %q must be an object", f.name)
		}
		// Decoding the (small) object again gives each entry's raw text.
		entries, err := jinja.FromJSONMembers(m.Raw)
		if err != nil {
			return req, fmt.Errorf("request: %s: %w", f.name, err)
		}
		*f.m = make(map[string]json.RawMessage, len(entries))
		for _, e := range entries {
			if _, seen := (*f.m)[e.Key]; !seen {
				*f.order = append(*f.order, e.Key)
			}
			(*f.m)[e.Key] = req.keep(e)
		}
	}
	return req, nil
}

// keep returns m's raw JSON (nil when m is the zero member, for an absent key)
// and remembers its decoded value for Vars.
func (r *Request) keep(m jinja.JSONMember) json.RawMessage {
	if m.Raw == nil {
		return nil
	}
	if m.Value != nil {
		r.decoded = append(r.decoded, decodedJSON{raw: m.Raw, val: m.Value})
	}
	return m.Raw
}

// WithTokens returns a copy of r whose bos_token and eos_token are the JSON
// values bos and eos (nil leaves that field as it is), decoded here once
// rather than at every render, as ParseRequest decodes the fields it reads.
func (r Request) WithTokens(bos, eos json.RawMessage) (Request, error) {
	r.decoded = slices.Clip(r.decoded) // appends must not reach the original's array
	for _, t := range []struct {
		field *json.RawMessage
		raw   json.RawMessage
	}{{&r.BOSToken, bos}, {&r.EOSToken, eos}} {
		if t.raw == nil {
			continue
		}
		v, err := jinja.FromJSON(t.raw)
		if err != nil {
			return r, fmt.Errorf("request: token: %w", err)
		}
		*t.field = t.raw
		if v != nil {
			r.decoded = append(r.decoded, decodedJSON{raw: t.raw, val: v})
		}
	}
	return r, nil
}

// HasTools reports whether the request's tools are not None (an empty list counts).
func (r Request) HasTools() bool {
	if r.Tools == nil && r.built != nil {
		return r.built.tools != nil
	}
	return len(r.Tools) > 0 && !isNull(r.Tools)
}

// WithSpecialTokens returns a copy of r whose SpecialTokens also hold the model's
// tokens (a Source's SpecialTokens) beneath the request's own: an entry the
// request sets, even to null, wins; bos_token/eos_token and kwargs still override.
func (r Request) WithSpecialTokens(model map[string]any) (Request, error) {
	if len(model) == 0 {
		return r, nil
	}
	merged := make(map[string]json.RawMessage, len(model)+len(r.SpecialTokens))
	var order []string
	for _, k := range sortedTokenNames(model) {
		b, err := json.Marshal(model[k])
		if err != nil {
			return r, fmt.Errorf("special token %s: %w", k, err)
		}
		merged[k] = b
		order = append(order, k)
	}
	for _, k := range r.specialKeys() {
		if _, ok := merged[k]; !ok {
			order = append(order, k)
		}
		merged[k] = r.SpecialTokens[k]
	}
	r.SpecialTokens, r.specialOrder = merged, order
	return r, nil
}

// sortedTokenNames orders token names as transformers' SPECIAL_TOKENS_ATTRIBUTES,
// then any others alphabetically.
func sortedTokenNames(m map[string]any) []string {
	var out []string
	for _, a := range specialTokenAttrs {
		if _, ok := m[a]; ok {
			out = append(out, a)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(specialTokenAttrs, k) {
			out = append(out, k)
		}
	}
	return out
}

func (r *Request) specialKeys() []string { return orderedKeys(r.SpecialTokens, r.specialOrder) }

// orderedKeys lists m's keys: first those in order (as parsed), then the rest
// sorted. When order lists exactly m's keys, as after ParseRequest, it is
// returned as is: callers must not modify the result.
func orderedKeys(m map[string]json.RawMessage, order []string) []string {
	if len(order) == len(m) {
		all := true
		for _, k := range order {
			if _, ok := m[k]; !ok {
				all = false
				break
			}
		}
		if all { // order holds no key twice, so it is all of m
			return order
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, k := range order {
		if _, ok := m[k]; ok && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !seen[k] {
			out = append(out, k)
		}
	}
	return out
}

// Vars builds the template variables exactly as render.py (and transformers'
// apply_chat_template) does:
//
//	render(messages=..., tools=<list or None>, documents=<list or None>,
//	       add_generation_prompt=bool(...), **{**special_tokens_map, **kwargs})
//
// where special_tokens_map is special_tokens with non-null bos_token/eos_token
// laid over it and null entries dropped. A special token or kwarg named like one
// of the four fixed arguments fails with Python's TypeError.
func (r Request) Vars() (map[string]jinja.Value, error) {
	var c renderContext
	if err := r.fill(&c); err != nil {
		return nil, err
	}
	vars := make(map[string]jinja.Value, len(fixedArgs)+len(c.extra))
	for i, name := range fixedArgs {
		vars[name] = c.fixed[i]
	}
	for _, e := range c.extra {
		vars[e.name] = e.val
	}
	return vars, nil
}

// fixedArgs are the four keyword arguments render.py always passes.
var fixedArgs = [...]string{"messages", "tools", "documents", "add_generation_prompt"}

// renderContext is the jinja.Context of one render of a Request: the values
// Vars would put in its map, without the map. Render keeps them in a pool.
type renderContext struct {
	fixed [len(fixedArgs)]jinja.Value
	extra []contextEntry // the ** entries in Python's insertion order
}

type contextEntry struct {
	name string
	raw  json.RawMessage // while filling, when the value comes from JSON; val once decoded
	val  jinja.Value
}

// Lookup implements jinja.Context.
func (c *renderContext) Lookup(name string) (jinja.Value, bool) {
	for i, fixed := range fixedArgs {
		if name == fixed {
			return c.fixed[i], true
		}
	}
	for i := range c.extra {
		if c.extra[i].name == name {
			return c.extra[i].val, true
		}
	}
	return nil, false
}

// fill sets c to r's variables, as Vars describes them.
func (r *Request) fill(c *renderContext) error {
	if r.Messages == nil && r.built == nil {
		return &jinja.Error{Kind: "KeyError", Message: "'messages'"}
	}
	var err error
	for i, raw := range [...]json.RawMessage{r.Messages, r.Tools, r.Documents} {
		if raw == nil && r.built != nil && i < 2 {
			c.fixed[i] = [...]jinja.Value{r.built.messages, r.built.tools}[i]
			continue
		}
		if c.fixed[i], err = r.value(fixedArgs[i], raw); err != nil {
			return err
		}
	}
	c.fixed[3] = r.AddGenerationPrompt

	// The ** dict, in Python's insertion order: the special tokens with
	// bos_token and eos_token laid over them (new ones at the end), nulls
	// dropped, then the kwargs (a repeated name keeps its place).
	// FromChat's tokens count as the request's bos_token and eos_token where
	// those are not set, and its kwargs come before the Kwargs field's.
	c.extra = c.extra[:0]
	forEachOrdered(r.SpecialTokens, r.specialOrder, func(k string, raw json.RawMessage) {
		if !r.putToken(c, k) && !isNull(raw) {
			c.put(k, raw)
		}
	})
	for _, k := range [...]string{"bos_token", "eos_token"} {
		if _, ok := r.SpecialTokens[k]; !ok {
			r.putToken(c, k)
		}
	}
	if r.built != nil {
		for _, e := range r.built.kwargs {
			c.putValue(e.name, e.val)
		}
	}
	forEachOrdered(r.Kwargs, r.kwargsOrder, c.put)
	for _, e := range c.extra {
		for _, fixed := range fixedArgs {
			if e.name == fixed {
				return &jinja.Error{Kind: "TypeError",
					Message: fmt.Sprintf("jinja2.environment.Template.render() got multiple values for keyword argument '%s'", e.name)}
			}
		}
	}
	for i := range c.extra {
		e := &c.extra[i]
		if e.raw == nil {
			continue // a value FromChat built
		}
		if e.val, err = r.value(e.name, e.raw); err != nil {
			return err
		}
		e.raw = nil
	}
	return nil
}

// put sets the ** entry name to raw: in its place when it is there already,
// else at the end.
func (c *renderContext) put(name string, raw json.RawMessage) {
	c.set(contextEntry{name: name, raw: raw})
}

// putValue sets the ** entry name to v, as put does.
func (c *renderContext) putValue(name string, v jinja.Value) {
	c.set(contextEntry{name: name, val: v})
}

func (c *renderContext) set(e contextEntry) {
	for i := range c.extra {
		if c.extra[i].name == e.name {
			c.extra[i] = e
			return
		}
	}
	c.extra = append(c.extra, e)
}

// putToken sets the ** entry of the special token name from the request's
// bos_token or eos_token when it gives one (not null): the raw field, else
// what FromChat built. It reports whether it did.
func (r *Request) putToken(c *renderContext, name string) bool {
	if o := r.tokenOverride(name); o != nil && !isNull(o) {
		c.put(name, o)
		return true
	}
	if r.built == nil {
		return false
	}
	for _, t := range r.built.tokens {
		if t.name == name {
			c.putValue(name, t.val)
			return true
		}
	}
	return false
}

// forEachOrdered calls fn with m's entries in the order orderedKeys gives
// their keys, looking each up once: the keys in order first (order holds no
// key twice), then, if some are not in it, the others sorted.
func forEachOrdered(m map[string]json.RawMessage, order []string, fn func(string, json.RawMessage)) {
	n := 0
	for _, k := range order {
		if raw, ok := m[k]; ok {
			fn(k, raw)
			n++
		}
	}
	if n == len(m) {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(order, k) {
			fn(k, m[k])
		}
	}
}

// tokenOverride is the request's bos_token or eos_token for those names.
func (r *Request) tokenOverride(name string) json.RawMessage {
	switch name {
	case "bos_token":
		return r.BOSToken
	case "eos_token":
		return r.EOSToken
	}
	return nil
}

// value is the template value of the raw JSON of field name: None for an
// absent or null field, the value ParseRequest decoded when raw is still its
// text, else raw decoded now.
func (r *Request) value(name string, raw json.RawMessage) (jinja.Value, error) {
	if raw == nil || isNull(raw) {
		return nil, nil
	}
	for _, d := range r.decoded {
		if len(d.raw) == len(raw) && &d.raw[0] == &raw[0] {
			return d.val, nil
		}
	}
	v, err := jinja.FromJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("request: %s: %w", name, err)
	}
	return v, nil
}

// Render renders req with t as render.py does. opts may be nil.
func Render(t *jinja.Template, req Request, opts *jinja.Options) (string, error) {
	c := contextPool.Get().(*renderContext)
	defer func() {
		// Drop the values so that the pool does not keep a request alive.
		c.fixed = [len(fixedArgs)]jinja.Value{}
		clear(c.extra)
		c.extra = c.extra[:0]
		contextPool.Put(c)
	}()
	if err := req.fill(c); err != nil {
		return "", err
	}
	return t.RenderContext(c, opts)
}

var contextPool = sync.Pool{New: func() any { return new(renderContext) }}

// pyTruthy is Python's bool() of a decoded JSON value: None, False, 0, 0.0,
// "", [] and {} are false; everything else (NaN too) is true.
func pyTruthy(v jinja.Value) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int:
		return x != 0
	case float64:
		return x != 0
	case string:
		return x != ""
	case *jinja.List:
		return len(x.Items) > 0
	case *jinja.Dict:
		return x.Len() > 0
	}
	return true
}

// ParseNow reads a pinned clock such as DRAGOMAN_NOW: ISO-8601 as Python's
// datetime.fromisoformat takes it ("2026-01-15T12:00:00", a space instead of
// "T", optional fractional seconds, optional "Z" or ±hh:mm offset, or a bare
// date). A time without an offset is naive, as in Python: it comes back in a
// zone with an empty name and offset 0, so that its fields print as written.
func ParseNow(s string) (time.Time, error) {
	naive := time.FixedZone("", 0)
	v := strings.Replace(strings.TrimSpace(s), " ", "T", 1)
	for _, layout := range []string{
		"2006-01-02T15:04:05.999999999Z07:00",
		"2006-01-02T15:04:05.999999999",
		"2006-01-02T15:04Z07:00",
		"2006-01-02T15:04",
		"2006-01-02T15Z07:00",
		"2006-01-02T15",
		"2006-01-02",
	} {
		if t, err := time.ParseInLocation(layout, v, naive); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read %q as an ISO-8601 time such as 2026-01-15T12:00:00", s)
}

// NowFunc returns a clock pinned to the ISO-8601 time s, or nil (the real clock)
// when s is empty or "real" (as ORACLE_NOW=real); suitable for jinja.Options.Now.
func NowFunc(s string) (func() time.Time, error) {
	if s = strings.TrimSpace(s); s == "" || s == "real" {
		return nil, nil
	}
	t, err := ParseNow(s)
	if err != nil {
		return nil, err
	}
	return func() time.Time { return t }, nil
}

// Compiled caches compiled templates by their text; safe for concurrent use.
type Compiled struct {
	mu sync.Mutex
	m  map[string]*jinja.Template
}

// Compile returns the compiled template for text, compiling it once.
func (c *Compiled) Compile(text string) (*jinja.Template, error) {
	c.mu.Lock()
	t, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	t, err := jinja.Compile(text)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*jinja.Template{}
	}
	c.m[text] = t
	c.mu.Unlock()
	return t, nil
}

// RenderSource renders req with the model's template: it selects the template as
// transformers does (name, or "tool_use" when the request has tools, or
// "default"), lays the model's special tokens beneath the request's, and renders.
// cache may be nil. It returns the copy used as well as the output.
func RenderSource(src *Source, req Request, name string, cache *Compiled, opts *jinja.Options) (string, Copy, error) {
	c, err := src.Select(name, req.HasTools())
	if err != nil {
		return "", Copy{}, err
	}
	var t *jinja.Template
	if cache != nil {
		t, err = cache.Compile(c.Text)
	} else {
		t, err = jinja.Compile(c.Text)
	}
	if err != nil {
		return "", c, err
	}
	req, err = req.WithSpecialTokens(src.SpecialTokens)
	if err != nil {
		return "", c, err
	}
	out, err := Render(t, req, opts)
	return out, c, err
}
