package format

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// apriel: ServiceNow Apriel 1.5 / 1.6 (and AI21 Jamba). The calls are a JSON
// list between <tool_calls> and </tool_calls>; an "id" member is the call id:
//
//	<tool_calls>[{"name": "get_weather", "arguments": {"location": "Paris"}}]</tool_calls>
//
// Reasoning has no tags: it runs from "Here are my reasoning steps:" (which the
// Apriel 1.6 prompt ends with, so the output starts in it) to
// [BEGIN FINAL RESPONSE]; [END FINAL RESPONSE] is markup. Apriel 1.5 may
// instead write its reasoning as <thinking>…</thinking> before calls.
func init() {
	register(&Family{
		ID:               "apriel",
		Calls:            aprielCalls(),
		Aliases:          []string{"jamba"},
		ThinkOpen:        aprielThinkOpen,
		ResponseTemplate: aprielResponseTemplate,
		New:              func(o Options) Parser { return &aprielParser{opts: o} },
		Detect: func(t string) bool {
			return strings.Contains(t, aprielCallOpen+"[") && strings.Contains(t, endToken)
		},
	})
}

const (
	aprielThinkOpen     = "Here are my reasoning steps:"
	aprielFinalOpen     = "[BEGIN FINAL RESPONSE]"
	aprielFinalClose    = "[END FINAL RESPONSE]"
	aprielThinkingOpen  = "<thinking>"
	aprielThinkingClose = "</thinking>"
	aprielCallOpen      = toolCallsTag
	aprielCallClose     = toolCallsEndTag
)

// aprielAssistant start an assistant turn in Apriel's prompts (1.6, 1.5).
var aprielAssistant = []string{"<|begin_assistant|>\n", "<|assistant|>\n"}

// aprielResponseTemplate reads either reasoning markup at the start of the
// output (one close ends both), the final-response markers as dropped
// markup, and the JSON list of calls (ids are generated).
func aprielResponseTemplate() *ResponseTemplate {
	t := newResponseTemplate(aprielAssistant...)
	t.Fields["reasoning_content"] = &ResponseField{
		OpenPattern:  `^\s*(?:` + alternatives(aprielThinkOpen, aprielThinkingOpen) + ")",
		ClosePattern: "(?:" + alternatives(aprielFinalOpen, aprielThinkingClose) + `)\s*|(?=` + patternOf(aprielCallOpen) + ")",
		Content:      "text",
	}
	t.Fields["content"].ClosePattern = patternOf(aprielFinalOpen) + `\s*|` + patternOf(aprielFinalClose)
	return t.withCallList(aprielCallOpen, aprielCallClose, "name", "arguments", "")
}

func aprielSection(buf string, final bool) (int, []call, bool, error) {
	if strings.HasPrefix(buf, aprielFinalClose) {
		return len(aprielFinalClose), nil, false, nil
	}
	if strings.HasPrefix(buf, aprielFinalOpen) {
		// After <thinking>…</thinking>: the marker and the whitespace after
		// it, as after the reasoning it usually closes.
		trimmed := strings.TrimLeft(buf[len(aprielFinalOpen):], " \t\r\n")
		if trimmed == "" && !final {
			return 0, nil, true, nil
		}
		return len(buf) - len(trimmed), nil, false, nil
	}
	return jlSection(buf, final, aprielCallOpen, aprielCallClose, false, nameAndArguments)
}

// aprielParser waits for the start of the output to tell which reasoning
// markup it uses, then hands everything to an engine for that markup.
type aprielParser struct {
	opts Options
	e    *engine
	buf  string
}

func (p *aprielParser) Feed(chunk string) []Event {
	if p.e != nil {
		return p.e.Feed(chunk)
	}
	p.buf += chunk
	return p.decide(false)
}

func (p *aprielParser) Close() []Event {
	var out []Event
	if p.e == nil {
		out = p.decide(true)
	}
	return append(out, p.e.Close()...)
}

func (p *aprielParser) Diagnostics() []Diagnostic {
	if p.e == nil {
		return nil
	}
	return p.e.Diagnostics()
}

func (p *aprielParser) markupLen() int {
	if p.e == nil {
		return 0
	}
	return p.e.markupLen()
}

// decide picks the markup once the output's start shows whether it opens
// <thinking>.
func (p *aprielParser) decide(final bool) []Event {
	m := &markup{
		thinkOpen: aprielThinkOpen, thinkClose: aprielFinalOpen,
		callOpen:         []string{aprielCallOpen, aprielFinalClose},
		callEndsThinking: true,
		section:          aprielSection,
	}
	if !p.opts.ReasoningOpen {
		trimmed := strings.TrimLeftFunc(p.buf, unicode.IsSpace)
		switch {
		case strings.HasPrefix(trimmed, aprielThinkingOpen):
			m.thinkOpen, m.thinkClose = aprielThinkingOpen, aprielThinkingClose
			m.callOpen = []string{aprielCallOpen, aprielFinalOpen, aprielFinalClose}
		case !final && (strings.HasPrefix(aprielThinkingOpen, trimmed) || !utf8.FullRuneInString(trimmed)):
			return nil // could still be <thinking>, after a space not yet whole
		}
	}
	p.e = newEngine(m, p.opts)
	buf := p.buf
	p.buf = ""
	return p.e.Feed(buf)
}

// aprielCalls: a JSON array in one block; the reasoning ends where the
// final response begins.
func aprielCalls() *CallSyntax {
	cs := jsonArray(aprielCallOpen, lit(aprielCallOpen), lit(aprielCallClose), nameArgumentsID)
	cs.Tag = jsonTag(func(n string) string { return aprielCallOpen + `[{"name": ` + jsonName(n) + `, "arguments": ` }, "}]"+aprielCallClose)
	return withThinking(cs, "", aprielFinalOpen)
}
