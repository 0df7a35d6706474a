package format

import (
	"errors"
	"strings"
)

// hermes: Hermes 2 Pro / 3, Qwen2.5, QwQ, Qwen3, MiMo-VL, Granite 4.x, Bielik,
// Reka-Edge. Each call is a JSON object in its own block:
//
//	<tool_call>
//	{"name": "get_weather", "arguments": {"location": "Paris"}}
//	</tool_call>
//
// Reasoning is <think>…</think>; a call opener inside open reasoning ends it.
func init() {
	register(&Family{
		ID:        "hermes",
		Calls:     hermesCalls(),
		Aliases:   []string{"qwen3", "qwen25", "qwen3-thinking", "json_tools"},
		ThinkOpen: thinkTag,
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(chatMLAssistant, graniteAssistant, rekaAssistant).withReasoning(thinkTag, thinkEndTag, hermesOpen).withCalls(&ResponseField{
				Open: []string{hermesOpen}, ClosePattern: spacedClose(hermesClose, hermesOpen),
				Content: "json", Transform: objectCallTransform(),
			})
		},
		// The layout the templates render: the body on a line of its own.
		Force: &ForcedCall{Open: hermesOpen + "\n", Close: "\n" + hermesClose, Body: nameArgumentsBody},
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{hermesOpen},
				callEndsThinking: true,
				section:          hermesSection,
				liveCall:         liveNameArguments(hermesOpen),
			}, o)
		},
		// The template renders the probe call as a JSON object in the block.
		Detect: func(t string) bool {
			return strings.Contains(t, hermesOpen+"\n{\"name\": \""+probeName+"\"")
		},
	})
}

const (
	// rekaAssistant starts one in Reka-Edge's.
	rekaAssistant = "<sep>assistant:"
	hermesOpen    = toolCallTag
	hermesClose   = toolCallEndTag
)

// hermesSection parses one <tool_call>…</tool_call> block. Its end marker may
// be missing at the end of the output (a runtime can consume it as a stop
// token): then a complete JSON body is still a call.
func hermesSection(buf string, final bool) (int, []call, bool, error) {
	body := buf[len(hermesOpen):]
	end := strings.Index(body, hermesClose)
	n := len(hermesOpen) + end + len(hermesClose)
	if end < 0 {
		if !final {
			return 0, nil, true, nil
		}
		end, n = len(body), len(buf)
		if _, complete := jsonValueEnd(body); !complete {
			return 0, nil, false, errors.New("the <tool_call> block is not closed and its JSON body is incomplete")
		}
	}
	c, err := nameAndArguments(body[:end])
	if err != nil {
		return 0, nil, false, err
	}
	return n, []call{c}, false, nil
}

// hermesCalls: each call's JSON object in a block of its own.
func hermesCalls() *CallSyntax {
	cs := blocks(hermesOpen, hermesClose, nameArguments)
	cs.Tag = jsonTag(func(n string) string { return hermesOpen + "\n{\"name\": " + jsonName(n) + ", \"arguments\": " }, "}\n"+hermesClose)
	return withThinking(cs, thinkTag, thinkEndTag)
}
