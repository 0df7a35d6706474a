package format

import "strings"

// granite: IBM Granite 3.x. The calls are a JSON list after <|tool_call|>,
// with no end marker:
//
//	<|tool_call|>[{"name": "get_weather", "arguments": {"location": "Paris"}}]
//
// vLLM also takes <tool_call>[…] (optionally closed by </tool_call>). With
// thinking on, Granite 3.2 / 3.3 write <think>…</think><response>…</response>;
// the <response> wrapper is markup.
func init() {
	register(&Family{
		ID:        "granite",
		Calls:     graniteCalls(),
		ThinkOpen: thinkTag,
		// A JSON list of calls after <|tool_call|> (to the end of the output:
		// text after it makes the list malformed) or in <tool_call>…</tool_call>;
		// the <response> wrapper is dropped.
		ResponseTemplate: func() *ResponseTemplate {
			t := newResponseTemplate(graniteAssistant).withReasoning(thinkTag, thinkEndTag, graniteOpen, graniteAltOpen)
			t.Fields["content"].ClosePattern = alternatives(graniteResponseOpen, graniteResponseClose)
			return t.withCallListField(&ResponseField{
				Open: []string{graniteOpen, graniteAltOpen}, ClosePattern: `\s*` + patternOf(graniteAltClose),
			}, "name", "arguments", "")
		},
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{graniteOpen, graniteAltOpen, graniteResponseOpen, graniteResponseClose},
				callEndsThinking: true,
				section:          graniteSection,
			}, o)
		},
		Detect: func(t string) bool { return strings.Contains(t, graniteOpen) },
	})
}

const (
	graniteAssistant     = "<|start_of_role|>assistant<|end_of_role|>" // starts an assistant turn in Granite's prompts
	graniteOpen          = "<|tool_call|>"
	graniteAltOpen       = toolCallTag
	graniteAltClose      = toolCallEndTag
	graniteResponseOpen  = "<response>"
	graniteResponseClose = "</response>"
)

func graniteSection(buf string, final bool) (int, []call, bool, error) {
	switch {
	case strings.HasPrefix(buf, graniteResponseOpen):
		return len(graniteResponseOpen), nil, false, nil
	case strings.HasPrefix(buf, graniteResponseClose):
		return len(graniteResponseClose), nil, false, nil
	case strings.HasPrefix(buf, graniteAltOpen):
		return jlSection(buf, final, graniteAltOpen, graniteAltClose, true, nameAndArguments)
	}
	return jlSection(buf, final, graniteOpen, "", true, nameAndArguments)
}

// graniteCalls: a JSON array after <|tool_call|>.
func graniteCalls() *CallSyntax {
	cs := jsonArray(graniteOpen, seqOf(lit(graniteOpen), opt(" ")), "", nameArguments)
	cs.Tag = jsonTag(func(n string) string { return graniteOpen + `[{"name": ` + jsonName(n) + `, "arguments": ` }, "}]")
	return withThinking(cs, thinkTag, thinkEndTag)
}
