package response

import (
	"errors"
	"fmt"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
)

// reasoningKeys are the names templates give the reasoning field.
var reasoningKeys = []string{"reasoning_content", "thinking", "reasoning"}

// Result maps a parsed message onto format.Result, the shape every family
// parser returns: content, reasoning (reasoning_content, thinking or
// reasoning), the tool calls with their arguments as JSON text. A message
// key with no place there is reported in a diagnostic with its value, so
// nothing the template extracted is lost.
func Result(msg *Object, diags []format.Diagnostic, newID func() string) format.Result {
	if newID == nil {
		newID = chat.NewCallID
	}
	r := format.Result{ToolCalls: []chat.ToolCall{}, Diagnostics: append([]format.Diagnostic{}, diags...)}
	reasoningDone := false
	for _, k := range msg.Keys {
		v := msg.Val(k)
		switch {
		case k == "role":
		case k == "content":
			r.Content = textOf(v)
		case contains(reasoningKeys, k) && !reasoningDone:
			r.Reasoning, reasoningDone = textOf(v), true
		case k == "tool_calls":
			calls, ok := v.([]any)
			if !ok {
				calls = []any{v}
			}
			for _, c := range calls {
				tc, ok := toolCall(c, newID)
				if !ok {
					r.Diagnostics = append(r.Diagnostics, format.Diagnostic{Code: "unmapped-field", Message: fmt.Sprintf("tool_calls element %s is not a call {\"function\": {\"name\", \"arguments\"}}", encodeValue(c))})
					continue
				}
				r.ToolCalls = append(r.ToolCalls, tc)
			}
		default:
			r.Diagnostics = append(r.Diagnostics, format.Diagnostic{Code: "unmapped-field", Message: fmt.Sprintf("field %q (%s) has no place in the result", k, encodeValue(v))})
		}
	}
	return r
}

func textOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return encodeValue(v)
}

func toolCall(v any, newID func() string) (chat.ToolCall, bool) {
	o, _ := v.(*Object)
	if o == nil {
		return chat.ToolCall{}, false
	}
	fn, _ := o.Val("function").(*Object)
	if fn == nil {
		return chat.ToolCall{}, false
	}
	name, ok := fn.Val("name").(string)
	if !ok {
		return chat.ToolCall{}, false
	}
	tc := chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: name, Arguments: "{}"}}
	switch a := fn.Val("arguments").(type) {
	case nil:
	case string:
		tc.Function.Arguments = a
	default:
		tc.Function.Arguments = encodeValue(a)
	}
	if id, ok := o.Val("id").(string); ok && id != "" {
		tc.ID = id
	} else {
		tc.ID = newID()
	}
	return tc, true
}

// LoadFile reads a template from a file's bytes: the template object itself,
// or a tokenizer_config.json (or any object) holding it under
// "response_template".
func LoadFile(data []byte) (*Template, error) {
	v, err := ParseJSON(string(data))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if o, ok := v.(*Object); ok {
		if inner, ok := o.Get("response_template"); ok {
			return FromValue(inner)
		}
		if _, hasFields := o.Get("fields"); !hasFields {
			return nil, errors.New("neither a response template nor an object holding \"response_template\"")
		}
	}
	return FromValue(v)
}

// Run parses chunks as a streaming client would feed them (one chunk is a
// one-shot Parse) and returns the result in format's shape. A template error or, in reference mode, a parse
// error is returned as an error.
func Run(t *Template, opts Options, chunks ...string) (format.Result, error) {
	if len(chunks) == 1 {
		msg, diags, err := Parse(t, chunks[0], opts)
		if err != nil {
			return format.Result{}, err
		}
		return Result(msg, diags, nil), nil
	}
	p, _, err := NewParser(t, opts)
	if err != nil {
		return format.Result{}, err
	}
	for _, c := range chunks {
		if _, err := p.Feed(c); err != nil {
			return format.Result{}, err
		}
	}
	if _, err := p.Finish(); err != nil {
		return format.Result{}, err
	}
	return Result(p.Message(), p.Diagnostics(), nil), nil
}
