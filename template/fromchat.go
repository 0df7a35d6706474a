package template

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/jinja"
)

// Chat is a conversation in the canonical model, as FromChat turns it into a
// render request: what the gateway has once it has adapted the client's
// messages to the template.
type Chat struct {
	Messages []chat.Message
	// Tools are passed as a list when there are any, else as None.
	Tools               []chat.Tool
	AddGenerationPrompt bool
	// BOSToken and EOSToken are the model's tokens; "" leaves the variable
	// undefined.
	BOSToken, EOSToken string
	// Reasoning gives the kwargs enable_thinking (when Enabled is set) and
	// reasoning_effort (when Effort is not "").
	Reasoning chat.Reasoning
	// Kwargs are the client's chat_template_kwargs, JSON values; they
	// override the two above.
	Kwargs map[string]json.RawMessage
}

// builtValues are a Request's values as FromChat made them.
type builtValues struct {
	messages, tools jinja.Value // tools nil: None
	tokens          []contextEntry
	kwargs          []contextEntry // sorted by name
}

// The depths at which the JSON texts a Chat holds sat in the request
// document the gateway used to encode and ParseRequest read: the nesting
// bound counts them (jinja.FromJSONAt).
const (
	argumentsDepth  = 6 // {"messages": [{"tool_calls": [{"function": {"arguments": …
	parametersDepth = 4 // {"tools": [{"function": {"parameters": …
	kwargDepth      = 2 // {"kwargs": {"name": …
)

// FromChat builds the render request of c without going through JSON: the
// template's values are made from c's fields directly. The result is the
// request that encoding c as JSON (as render.py reads requests) and reading it
// with ParseRequest gives, value for value: the same dict keys in the same
// order, a call's arguments an object (keys in their order, numbers int or
// float as json.loads reads them) where they are one and their text where
// not, an assistant turn's missing content "" rather than None, a tool's
// parameters as its JSON Schema, text as encoding/json writes it (each byte
// that is not UTF-8 becomes U+FFFD). Only the JSON texts c holds (arguments,
// parameters, kwargs) are decoded, each once. Invalid JSON where JSON is
// required (parameters, kwargs) is an error.
//
// The request's Messages and Tools fields are nil: setting them replaces
// what FromChat built, as setting BOSToken, EOSToken or Kwargs does.
func FromChat(c Chat) (Request, error) {
	b := &builtValues{}
	var err error
	if b.messages, err = chatMessages(c.Messages); err != nil {
		return Request{}, err
	}
	if len(c.Tools) > 0 {
		if b.tools, err = chatTools(c.Tools); err != nil {
			return Request{}, err
		}
	}
	for _, t := range [...]struct{ name, text string }{{"bos_token", c.BOSToken}, {"eos_token", c.EOSToken}} {
		if t.text != "" {
			b.tokens = append(b.tokens, contextEntry{name: t.name, val: jsonText(t.text)})
		}
	}
	if b.kwargs, err = chatKwargs(c); err != nil {
		return Request{}, err
	}
	return Request{AddGenerationPrompt: c.AddGenerationPrompt, built: b}, nil
}

// chatMessages is the messages list: each message a dict with the keys of
// chat.Message's JSON, in its order.
func chatMessages(msgs []chat.Message) (jinja.Value, error) {
	items := make([]jinja.Value, len(msgs))
	for i, m := range msgs {
		d := jinja.NewDict(6)
		d.SetStr("role", jsonText(m.Role))
		d.SetStr("content", chatContent(m))
		if m.Reasoning != "" {
			d.SetStr("reasoning_content", jsonText(m.Reasoning))
		}
		if len(m.ToolCalls) > 0 {
			calls, err := chatCalls(m.ToolCalls)
			if err != nil {
				return nil, fmt.Errorf("request: messages[%d]: %w", i, err)
			}
			d.SetStr("tool_calls", calls)
		}
		if m.ToolCallID != "" {
			d.SetStr("tool_call_id", jsonText(m.ToolCallID))
		}
		if m.Name != "" {
			d.SetStr("name", jsonText(m.Name))
		}
		items[i] = d
	}
	return jinja.NewList(items), nil
}

// chatContent is a message's content: its parts as a list of dicts where it
// has parts, else its text (also where a turn with calls has none: "", as
// llama.cpp and Ollama pass it, since many templates test
// `'</think>' in message.content`).
func chatContent(m chat.Message) jinja.Value {
	if m.Parts == nil {
		return jsonText(m.Content)
	}
	parts := make([]jinja.Value, len(m.Parts))
	for i, p := range m.Parts {
		d := jinja.NewDict(3)
		d.SetStr("type", jsonText(p.Type))
		if p.Text != "" {
			d.SetStr("text", jsonText(p.Text))
		}
		if p.Type == "image_url" {
			url := jinja.NewDict(1)
			url.SetStr("url", jsonText(p.ImageURL))
			d.SetStr("image_url", url)
		}
		parts[i] = d
	}
	return jinja.NewList(parts)
}

// chatCalls is an assistant turn's tool_calls: id (when there is one), type
// ("function" when empty) and function, whose arguments are an object where
// their text is one, as transformers documents them and the runtimes pass
// them, and the text otherwise.
func chatCalls(calls []chat.ToolCall) (jinja.Value, error) {
	items := make([]jinja.Value, len(calls))
	for i, c := range calls {
		args, err := callArguments(c.Function.Arguments)
		if err != nil {
			return nil, fmt.Errorf("tool_calls[%d].function.arguments: %w", i, err)
		}
		fn := jinja.NewDict(2)
		fn.SetStr("name", jsonText(c.Function.Name))
		fn.SetStr("arguments", args)
		typ := c.Type
		if typ == "" {
			typ = "function"
		}
		d := jinja.NewDict(3)
		if c.ID != "" {
			d.SetStr("id", jsonText(c.ID))
		}
		d.SetStr("type", jsonText(typ))
		d.SetStr("function", fn)
		items[i] = d
	}
	return jinja.NewList(items), nil
}

// callArguments is the value of a call's arguments text: the object it holds
// (space around it, Unicode space too, aside) or, when it holds no object,
// the text itself.
func callArguments(text string) (jinja.Value, error) {
	obj := strings.TrimSpace(text)
	if obj == "" || obj[0] != '{' {
		return jsonText(text), nil
	}
	v, isJSON, err := decodeJSON([]byte(obj), argumentsDepth)
	if !isJSON {
		return jsonText(text), nil
	}
	return v, err
}

// chatTools is the tools list in the OpenAI shape: type, and function with
// name, description (when not "") and parameters (when given).
func chatTools(tools []chat.Tool) (jinja.Value, error) {
	items := make([]jinja.Value, len(tools))
	for i, t := range tools {
		fn := jinja.NewDict(3)
		fn.SetStr("name", jsonText(t.Function.Name))
		if t.Function.Description != "" {
			fn.SetStr("description", jsonText(t.Function.Description))
		}
		if len(t.Function.Parameters) > 0 {
			params, err := toolParameters(t.Function.Parameters)
			if err != nil {
				return nil, fmt.Errorf("request: tools[%d].function.parameters: %w", i, err)
			}
			fn.SetStr("parameters", params)
		}
		d := jinja.NewDict(2)
		d.SetStr("type", jsonText(t.Type))
		d.SetStr("function", fn)
		items[i] = d
	}
	return jinja.NewList(items), nil
}

// toolParameters is a tool's parameter schema as a template value, from
// paramsCache when the same schema was read before: an agent sends the same
// tools with every request, and their schemas are most of what a request's
// values take to build. A value is never written once built — the immutable
// sandbox refuses templates' mutating methods, and nothing else writes into
// a value a render was given — so renders share one, also at the same time.
func toolParameters(raw json.RawMessage) (jinja.Value, error) {
	c := &paramsCache
	c.mu.Lock()
	v, ok := c.m[string(raw)]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := jsonValue(raw, parametersDepth)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.bytes+len(raw) > paramsCacheBytes || c.m == nil {
		c.m, c.bytes = map[string]jinja.Value{}, 0 // full: start again
	}
	c.m[string(raw)], c.bytes = v, c.bytes+len(raw)
	c.mu.Unlock()
	return v, nil
}

// paramsCache holds parameter schemas' values by their JSON text, up to
// paramsCacheBytes of text (then it is emptied and fills again).
var paramsCache struct {
	mu    sync.Mutex
	m     map[string]jinja.Value
	bytes int
}

const paramsCacheBytes = 4 << 20

// chatKwargs are the extra template variables, sorted by name (as
// encoding/json writes a map): enable_thinking and reasoning_effort from
// c.Reasoning, and c.Kwargs over them. A nil value is None.
func chatKwargs(c Chat) ([]contextEntry, error) {
	var kw []contextEntry
	put := func(name string, v jinja.Value) {
		for i := range kw {
			if kw[i].name == name { // names that differed only in bytes that are not UTF-8
				kw[i].val = v
				return
			}
		}
		kw = append(kw, contextEntry{name: name, val: v})
	}
	names := slices.Collect(maps.Keys(c.Kwargs))
	for _, name := range [...]string{"enable_thinking", "reasoning_effort"} {
		if _, given := c.Kwargs[name]; !given && c.reasoningKwarg(name) != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		raw, given := c.Kwargs[name]
		if !given {
			put(jsonText(name), c.reasoningKwarg(name))
			continue
		}
		v, err := kwargValue(raw)
		if err != nil {
			return nil, fmt.Errorf("request: kwargs[%q]: %w", name, err)
		}
		put(jsonText(name), v)
	}
	return kw, nil
}

// reasoningKwarg is the value c.Reasoning gives the kwarg name, or nil.
func (c Chat) reasoningKwarg(name string) jinja.Value {
	switch {
	case name == "enable_thinking" && c.Reasoning.Enabled != nil:
		return *c.Reasoning.Enabled
	case name == "reasoning_effort" && c.Reasoning.Effort != "":
		return jsonText(c.Reasoning.Effort)
	}
	return nil
}

// kwargValue is a kwarg's value: nil JSON is None, as encoding/json writes it.
func kwargValue(raw json.RawMessage) (jinja.Value, error) {
	if raw == nil {
		return nil, nil
	}
	return jsonValue(raw, kwargDepth)
}

// jsonValue decodes raw, which must be JSON as encoding/json checks it.
func jsonValue(raw json.RawMessage, depth int) (jinja.Value, error) {
	v, isJSON, err := decodeJSON(raw, depth)
	if !isJSON {
		return nil, fmt.Errorf("invalid JSON %.40q", raw)
	}
	return v, err
}

// decodeJSON decodes text found depth levels down in the request document;
// isJSON says whether encoding/json takes text as JSON, as the JSON path
// asked it. jinja.FromJSON reads all JSON and, as Python does, NaN and
// Infinity besides, so json.Valid need be asked only when text does not
// decode or names one of those: the common case reads text once.
func decodeJSON(text []byte, depth int) (v jinja.Value, isJSON bool, err error) {
	v, err = jinja.FromJSONAt(text, depth)
	if err == nil && !bytes.Contains(text, []byte("NaN")) && !bytes.Contains(text, []byte("Infinity")) {
		return v, true, nil
	}
	if !json.Valid(text) {
		return nil, false, nil
	}
	return v, true, err // JSON that is nested past the bound fails, as it did
}

// jsonText is s as encoding/json writes it and a JSON reader reads it back:
// each byte that is not part of valid UTF-8 becomes U+FFFD.
func jsonText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
