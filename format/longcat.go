package format

import (
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

// longcat: Meituan LongCat-Flash. GLM-style key/value calls, or a JSON body:
//
//	<longcat_tool_call>get_weather
//	<longcat_arg_key>location</longcat_arg_key>
//	<longcat_arg_value>Paris</longcat_arg_value>
//	</longcat_tool_call>
//	<longcat_tool_call>{"name": "get_weather", "arguments": {"location": "Paris"}}</longcat_tool_call>
//
// Values of the tag form are raw text typed by the tool's schema. Reasoning is
// <longcat_think>…</longcat_think>.
func init() {
	register(&Family{
		ID:        "longcat",
		Calls:     longcatCalls(),
		ThinkOpen: longcatThinkOpen,
		// The tag form only: a JSON body, which the parser also reads, is
		// not expressed.
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(longcatAssistant).withReasoning(longcatThinkOpen, longcatThinkClose, longcatTags.callOpen).
				withCalls(longcatTags.responseField())
		},
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: longcatThinkOpen, thinkClose: longcatThinkClose,
				callOpen:         []string{longcatTags.callOpen},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return longcatSection(o.Tools, buf, final)
				},
				liveCall: liveNameArguments(longcatTags.callOpen), // the JSON form; key/value tags parse whole
			}, o)
		},
		Detect: func(t string) bool { return strings.Contains(t, "<longcat_tool_call>") },
	})
}

const (
	longcatAssistant  = "ASSISTANT:" // starts an assistant turn in LongCat-Flash's prompts (no corpus template shows it)
	longcatThinkOpen  = "<longcat_think>"
	longcatThinkClose = "</longcat_think>"
)

var longcatTags = &kvTags{
	callOpen: "<longcat_tool_call>", callClose: "</longcat_tool_call>",
	keyOpen: "<longcat_arg_key>", keyClose: "</longcat_arg_key>",
	valOpen: "<longcat_arg_value>", valClose: "</longcat_arg_value>",
}

func longcatSection(tools []chat.Tool, buf string, final bool) (int, []call, bool, error) {
	body := buf[len(longcatTags.callOpen):]
	trimmed := trimLayout(body)
	if trimmed == "" && !final {
		return 0, nil, true, nil
	}
	if !strings.HasPrefix(trimmed, "{") {
		n, c, needMore, err := longcatTags.block(tools, buf, final)
		if needMore || err != nil {
			return 0, nil, needMore, err
		}
		if n, needMore = joinLayout(buf, n, longcatTags.callOpen, final); needMore {
			return 0, nil, true, nil
		}
		return n, []call{c}, false, nil
	}
	end := strings.Index(body, longcatTags.callClose)
	n := len(longcatTags.callOpen) + end + len(longcatTags.callClose)
	if end < 0 {
		if !final {
			return 0, nil, true, nil
		}
		end, n = len(body), len(buf)
		if _, complete := jsonValueEnd(body); !complete {
			return 0, nil, false, errors.New("the <longcat_tool_call> block is not closed and its JSON body is incomplete")
		}
	}
	c, err := nameAndArguments(body[:end])
	if err != nil {
		return 0, nil, false, err
	}
	n, needMore := joinLayout(buf, n, longcatTags.callOpen, final)
	if needMore {
		return 0, nil, true, nil
	}
	return n, []call{c}, false, nil
}

// longcatCalls: GLM's calls under LongCat's names.
func longcatCalls() *CallSyntax {
	return withThinking(longcatTags.blockCalls(), longcatThinkOpen, longcatThinkClose)
}
