package format

import (
	"errors"
	"strings"
)

// firefunction-v2: Fireworks FireFunction v2 (and what vLLM's phi4_mini_json
// expects from Phi-4-mini). The calls are a JSON array after "functools":
//
//	functools[{"name": "get_weather", "arguments": {"location": "Paris"}}]
//
// The template joins content and calls with a space, which belongs to the
// marker.
func init() {
	register(&Family{
		ID:      "firefunction-v2",
		Calls:   ffCalls(),
		Aliases: []string{"firefunction_v2", "phi4_mini_json"},
		New: func(o Options) Parser {
			return newEngine(&markup{callOpen: []string{" " + ffOpen, ffOpen}, section: ffSection}, o)
		},
		// The list runs to the end of the output: text after it makes it
		// malformed.
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(ffAssistant).withCallListField(&ResponseField{
				OpenPattern: " ?" + patternOf(strings.TrimSuffix(ffOpen, "[")) + `(?=\[)`,
			}, "name", "arguments", "")
		},
		Detect: func(t string) bool {
			return strings.Contains(t, "functools[") || strings.Contains(t, "<|tool|>") && strings.Contains(t, "<|/tool|>")
		},
	})
}

const (
	ffAssistant = assistantToken // starts an assistant turn in FireFunction's prompts
	ffOpen      = "functools["
)

func ffSection(buf string, final bool) (int, []call, bool, error) {
	at := strings.Index(buf, ffOpen) + len(ffOpen) - 1 // the '['
	end, complete := jsonValueEnd(buf[at:])
	if !complete {
		if !final {
			return 0, nil, true, nil
		}
		return 0, nil, false, errors.New("the functools[…] list is incomplete")
	}
	calls, err := jsonCallList(buf[at : at+end])
	if err != nil {
		return 0, nil, false, err
	}
	return at + end, calls, false, nil
}

// ffCalls: a JSON array after functools.
func ffCalls() *CallSyntax {
	cs := jsonArray(ffOpen, lit(strings.TrimSuffix(ffOpen, "[")), "", nameArguments)
	cs.Tag = jsonTag(func(n string) string { return ffOpen + `{"name": ` + jsonName(n) + `, "arguments": ` }, "}]")
	return &cs
}
