package gateway

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/template"
	"github.com/dragoman-dev/dragoman/trace"
)

// templateCaps is what a chat template does with the message shapes clients
// send that templates disagree on. It is found once per model, when the
// model is prepared, by rendering small probe conversations.
type templateCaps struct {
	// partsByRole says, per role, whether the template renders content given
	// as a list of text parts as it renders the text itself. Where it does
	// not (it expects a string: it raises, prints the list's repr, or drops
	// it), the gateway joins the text parts into one string first.
	partsByRole map[string]bool
	// developer says whether the template has a branch of its own for the
	// "developer" role; where it has none the role is rendered as "system".
	developer bool
	// shapedIDs says the template refuses call ids of other shapes than
	// chat.NewCallID's nine alphanumerics (Mistral's raise "Tool call IDs
	// should be alphanumeric strings with length 9!"), so the ids of
	// clients (Anthropic's toolu_…, OpenAI's call_…) are reshaped for it.
	shapedIDs bool
}

// probeSentinel is text no template holds, so that finding it in a render
// means the probe's message reached the prompt.
const probeSentinel = "dragoman-probe-7f3a"

// probeTemplateCaps renders probe conversations through tpl. A probe that
// fails leaves the safe answer: text parts joined, developer as system.
func probeTemplateCaps(tpl *jinja.Template, src, bos, eos string) templateCaps {
	caps := templateCaps{partsByRole: map[string]bool{}}
	render := func(msgs []map[string]any) (string, bool) {
		body := map[string]any{"messages": msgs, "add_generation_prompt": true}
		if bos != "" {
			body["bos_token"] = bos
		}
		if eos != "" {
			body["eos_token"] = eos
		}
		data, err := json.Marshal(body)
		if err != nil {
			return "", false
		}
		req, err := template.ParseRequest(data)
		if err != nil {
			return "", false
		}
		out, err := template.Render(tpl, req, &jinja.Options{})
		return out, err == nil
	}
	parts := []map[string]any{{"type": "text", "text": probeSentinel}}
	for _, role := range []string{chat.RoleSystem, chat.RoleUser, chat.RoleAssistant, chat.RoleTool} {
		msgs := probeConversation(role, probeCallID)
		for _, m := range msgs {
			if m["content"] == probeSentinel {
				m["content"] = parts
			}
		}
		out, ok := render(msgs)
		caps.partsByRole[role] = ok && strings.Contains(out, probeSentinel) && !showsPartRepr(out)
	}
	// A template that names the role has a branch for it; one that only
	// prints message.role generically was not written for it either.
	caps.developer = strings.Contains(src, "developer")
	// A template that renders the tool round with a nine-character id but
	// not with a client's longer one checks the id's shape.
	if _, ok := render(probeConversation(chat.RoleTool, probeCallID)); ok {
		_, longOK := render(probeConversation(chat.RoleTool, probeClientCallID))
		caps.shapedIDs = !longOK
	}
	return caps
}

// The probes' call ids: one of chat.NewCallID's shape, and one as OpenAI's
// API makes them.
const (
	probeCallID       = "call00001"
	probeClientCallID = "call_dragomanProbe7f3aXyZ0123"
)

// probeConversation is a short conversation in which the message of the
// given role holds the sentinel. Tool results follow a call with the given
// id, as templates require.
func probeConversation(role, callID string) []map[string]any {
	text := func(r, c string) map[string]any { return map[string]any{"role": r, "content": c} }
	switch role {
	case chat.RoleSystem:
		return []map[string]any{text("system", probeSentinel), text("user", "Hi")}
	case chat.RoleAssistant:
		return []map[string]any{text("user", "Hi"), text("assistant", probeSentinel), text("user", "Thanks")}
	case chat.RoleTool:
		call := map[string]any{"id": callID, "type": "function", "function": map[string]any{"name": "probe", "arguments": map[string]any{}}}
		return []map[string]any{text("user", "Hi"),
			{"role": "assistant", "content": "", "tool_calls": []any{call}},
			{"role": "tool", "tool_call_id": callID, "name": "probe", "content": probeSentinel}}
	}
	return []map[string]any{text("user", probeSentinel)}
}

// showsPartRepr reports whether a render printed a content part as Python or
// JSON text instead of reading it.
func showsPartRepr(out string) bool {
	return strings.Contains(out, "'type': 'text'") || strings.Contains(out, `"type": "text"`) || strings.Contains(out, `"type":"text"`)
}

// templateMessagesFor adapts the request's messages to the template: the
// developer role where the template has no branch for it, text parts where
// the template reads a string, and call ids where it takes only one shape.
// It notes each change in the trace and refuses images, which a rendered
// prompt cannot carry. The client's own messages are not changed.
func (x *exchange) templateMessagesFor(caps templateCaps) ([]chat.Message, error) {
	msgs := make([]chat.Message, len(x.req.Messages))
	var developers, joined, reshaped int
	for i, m := range x.req.Messages {
		if caps.shapedIDs {
			reshaped += reshapeCallIDs(&m)
		}
		if m.Role == chat.RoleDeveloper && !caps.developer {
			m.Role = chat.RoleSystem
			developers++
		}
		if m.Parts != nil {
			for _, p := range m.Parts {
				if p.Type != "text" {
					return nil, &requestError{msg: fmt.Sprintf("messages[%d]: a %s part cannot be rendered into this model's prompt: the model takes text only here (send text parts, or use a vision model through a runtime that takes images)", i, p.Type), param: "messages"}
				}
			}
			if !caps.partsByRole[m.Role] {
				m.Content, m.Parts = m.Text(), nil
				joined++
			}
		}
		msgs[i] = m
	}
	if developers > 0 {
		x.rec.Decide(fmt.Sprintf("the template has no branch for the developer role: %d developer message(s) rendered as system", developers))
	}
	if joined > 0 {
		x.rec.Decide(fmt.Sprintf("the template reads content as a string: the text parts of %d message(s) joined with newlines", joined))
	}
	if reshaped > 0 {
		x.rec.Decide(fmt.Sprintf("the template takes call ids of nine letters and digits only: %d id(s) rendered as nine derived from each (the same id gives the same nine)", reshaped))
	}
	return msgs, nil
}

// reshapeCallIDs gives m's call ids, and the id of the call a tool result
// answers, chat.NewCallID's shape, each derived from the id it replaces so
// that a call and its result still match. The tool calls are copied: the
// slice is the client's request's. It returns how many ids it changed.
func reshapeCallIDs(m *chat.Message) int {
	n := 0
	if m.ToolCallID != "" && !chat.IsCallIDShaped(m.ToolCallID) {
		m.ToolCallID = chat.ShapedCallID(m.ToolCallID)
		n++
	}
	var calls []chat.ToolCall
	for j, c := range m.ToolCalls {
		if chat.IsCallIDShaped(c.ID) {
			continue
		}
		if calls == nil {
			calls = slices.Clone(m.ToolCalls)
		}
		calls[j].ID = chat.ShapedCallID(c.ID)
		n++
	}
	if calls != nil {
		m.ToolCalls = calls
	}
	return n
}

// checkRendered gives a diagnostic for every message whose text the template
// left out of the prompt, so that nothing the client sent disappears without
// a word. Text counts as present as it is, trimmed, or JSON-escaped (some
// templates write tool results with tojson); of an assistant turn with
// reasoning markup only the answer after it is looked for, since templates
// drop earlier turns' reasoning on purpose.
func (x *exchange) checkRendered(msgs []chat.Message, prompt string) {
	// Messages are mostly rendered in order: each is looked for after the
	// last one found first, so that a long conversation costs about one pass
	// over the prompt; the whole prompt is searched only when that fails (a
	// template that moves the system prompt into the last user turn).
	pos := 0
	for i, m := range msgs {
		text := strings.TrimSpace(m.Text())
		if m.Role == chat.RoleAssistant {
			if _, after, ok := strings.Cut(text, "</think>"); ok {
				text = strings.TrimSpace(after)
			}
		}
		if text == "" {
			continue
		}
		if at := strings.Index(prompt[pos:], text); at >= 0 {
			pos += at + len(text)
			continue
		}
		if strings.Contains(prompt, text) {
			continue
		}
		if esc, err := json.Marshal(text); err == nil && strings.Contains(prompt, string(esc[1:len(esc)-1])) {
			continue
		}
		x.rec.Diagnostics = append(x.rec.Diagnostics, diagnostic("message-not-in-prompt",
			fmt.Sprintf("messages[%d] (%s): its text does not appear in the rendered prompt; the model's template left it out", i, x.req.Messages[i].Role)))
	}
}

func diagnostic(code, msg string) trace.Diagnostic { return trace.Diagnostic{Code: code, Message: msg} }
