package format

import (
	"errors"
	"strings"
)

// internlm2: InternLM2 / 2.5 chat and Intern-S1. One action per turn:
//
//	<|action_start|><|plugin|>
//	{"name": "get_weather", "parameters": {"location": "Paris"}}<|action_end|>
//
// An <|action_start|><|interpreter|> action (code for the code interpreter)
// is not a function call and stays content. Reasoning (Intern-S1) is
// <think>…</think>.
func init() {
	register(&Family{
		ID:        "internlm2",
		Calls:     internlmCalls(),
		Aliases:   []string{"internlm", "interns1"},
		ThinkOpen: thinkTag,
		// The action's end marker is optional; text after the JSON without
		// it makes the call malformed. The arguments are "parameters" (an
		// "arguments" member, which the parser also takes, is not read). An
		// interpreter action stays content.
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(chatMLAssistant).withReasoning(thinkTag, thinkEndTag, internlmOpen).withCalls(&ResponseField{
				Open: []string{internlmOpen}, ClosePattern: `\s*` + patternOf(internlmClose),
				Content: "json", Transform: map[string]any{"type": "function", "function": map[string]any{"name": "{content.name}", "arguments": "{content.parameters}"}},
			})
		},
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{internlmOpen},
				callEndsThinking: true,
				section:          internlmSection,
			}, o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, "<|action_start|>") && strings.Contains(t, "<|plugin|>")
		},
	})
}

const (
	internlmOpen  = "<|action_start|><|plugin|>"
	internlmClose = "<|action_end|>"
)

func internlmSection(buf string, final bool) (int, []call, bool, error) {
	body := buf[len(internlmOpen):]
	end, complete := jsonValueEnd(body)
	if !complete {
		if !final {
			return 0, nil, true, nil
		}
		return 0, nil, false, errors.New("the <|plugin|> action's JSON body is incomplete")
	}
	c, err := nameAndArguments(body[:end])
	if err != nil {
		return 0, nil, false, err
	}
	n := len(internlmOpen) + end
	after := buf[n:]
	trimmed := trimLayout(after)
	switch {
	case strings.HasPrefix(trimmed, internlmClose):
		n += len(after) - len(trimmed) + len(internlmClose)
	case strings.HasPrefix(internlmClose, trimmed) && !final:
		return 0, nil, true, nil // <|action_end|> may still come
	}
	return n, []call{c}, false, nil
}

// internlmCalls: one JSON object in an action.
func internlmCalls() *CallSyntax {
	return withThinking(CallSyntax{
		Triggers: []string{internlmOpen},
		Open:     seqOf(lit(internlmOpen), opt("\n")),
		Close:    lit(internlmClose),
		Call:     nameParameters,
		Single:   true,
		Tag: jsonTag(func(n string) string {
			return internlmOpen + "\n{\"name\": " + jsonName(n) + ", \"parameters\": "
		}, "}"+internlmClose),
	}, thinkTag, thinkEndTag)
}
