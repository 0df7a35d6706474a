package template

// The JSON path the gateway took before FromChat, kept as the reference
// FromChat is checked against: the Chat encoded as the request document
// render.py reads (encoding/json, with the gateway's message adaptations)
// and read back by ParseRequest.

import (
	"encoding/json"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

// jsonPathRequest is the request the old JSON path built for c.
func jsonPathRequest(c Chat) (Request, error) {
	body := map[string]any{
		"messages":              refMessages(c.Messages),
		"add_generation_prompt": c.AddGenerationPrompt,
	}
	if len(c.Tools) > 0 {
		body["tools"] = c.Tools
	}
	if c.BOSToken != "" {
		body["bos_token"] = c.BOSToken
	}
	if c.EOSToken != "" {
		body["eos_token"] = c.EOSToken
	}
	kwargs := map[string]any{}
	if e := c.Reasoning.Enabled; e != nil {
		kwargs["enable_thinking"] = *e
	}
	if c.Reasoning.Effort != "" {
		kwargs["reasoning_effort"] = c.Reasoning.Effort
	}
	for k, v := range c.Kwargs {
		kwargs[k] = v
	}
	if len(kwargs) > 0 {
		body["kwargs"] = kwargs
	}
	data, err := json.Marshal(body)
	if err != nil {
		return Request{}, err
	}
	return ParseRequest(data)
}

// refMessage is a message as the gateway encoded it for templates: call
// arguments as an object where they are one, the text otherwise; an
// assistant turn's null content with calls as "".
type refMessage struct {
	chat.Message
}

func refMessages(msgs []chat.Message) []refMessage {
	out := make([]refMessage, len(msgs))
	for i, m := range msgs {
		out[i] = refMessage{m}
	}
	return out
}

func (m refMessage) MarshalJSON() ([]byte, error) {
	data, err := m.Message.MarshalJSON()
	if err != nil || len(m.ToolCalls) == 0 {
		return data, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	type fn struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id,omitempty"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	calls := make([]call, len(m.ToolCalls))
	for i, c := range m.ToolCalls {
		args := json.RawMessage(strings.TrimSpace(c.Function.Arguments))
		if len(args) == 0 || args[0] != '{' || !json.Valid(args) {
			args, _ = json.Marshal(c.Function.Arguments)
		}
		typ := c.Type
		if typ == "" {
			typ = "function"
		}
		calls[i] = call{ID: c.ID, Type: typ, Function: fn{Name: c.Function.Name, Arguments: args}}
	}
	if obj["tool_calls"], err = json.Marshal(calls); err != nil {
		return nil, err
	}
	if string(obj["content"]) == "null" {
		obj["content"] = json.RawMessage(`""`)
	}
	return refMarshalOrdered(data, obj)
}

// refMarshalOrdered re-encodes obj with the keys in the order they have in data.
func refMarshalOrdered(data []byte, obj map[string]json.RawMessage) ([]byte, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(obj[key])
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}
