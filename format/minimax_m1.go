package format

import (
	"encoding/json"
	"errors"
	"strings"
)

// minimax-m1: MiniMax-M1. One block holds the calls, one JSON object per line:
//
//	<tool_calls>
//	{"name": "get_weather", "arguments": {"location": "Paris"}}
//	{"name": "get_time", "arguments": {"zone": "Europe/Paris"}}
//	</tool_calls>
//
// Arguments are the JSON object the model wrote (a string holding an object is
// accepted: the template writes past arguments with tojson). A body that is a
// JSON list is apriel markup, not this family, and stays content. The
// template has no reasoning markup and never leaves reasoning open; a
// <think>…</think> the model writes at the start of its output is still
// recognised as reasoning (Decision 6). The end marker may be missing at the
// end of the output (the runtime consumed it with <end_of_sentence>).
func init() {
	register(&Family{
		ID:                 "minimax-m1",
		Calls:              m1Calls(),
		NoResponseTemplate: "one block holds several calls, one JSON object per line, with no marker between them: a region gives one value, and an opener for the next call (a newline before {) would fire anywhere in the content",
		Aliases:            []string{"minimax"},
		ThinkOpen:          thinkTag,
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen: []string{m1Open},
				section:  m1Section,
			}, o)
		},
		// The template renders the probe call as a JSON line in the block.
		Detect: func(t string) bool {
			return strings.Contains(t, m1Open+"\n{\"name\": \""+probeName+"\"")
		},
	})
}

const (
	m1Open  = toolCallsTag
	m1Close = toolCallsEndTag
)

// m1Section parses one <tool_calls> block:
//
//	<tool_calls> ({"name": NAME, "arguments": {…}})* </tool_calls>
//
// Whitespace between the objects is layout. Text after a complete call object
// that neither starts another object nor closes the block ends the section
// there and stays content (as minimax-m2 does after an invoke).
func m1Section(buf string, final bool) (int, []call, bool, error) {
	i := len(m1Open)
	end := i // just after the last call object
	var calls []call
	for {
		for i < len(buf) && isJSONSpace(buf[i]) {
			i++
		}
		rest := buf[i:]
		switch {
		case strings.HasPrefix(rest, m1Close):
			return i + len(m1Close), calls, false, nil
		case !final && strings.HasPrefix(m1Close, rest):
			return 0, nil, true, nil // rest is empty or could become the close marker
		case rest == "" && len(calls) > 0:
			return len(buf), calls, false, nil // the close marker was consumed as a stop token
		case rest == "":
			return 0, nil, false, errors.New(m1Open + " is not closed and holds no call")
		case rest[0] == '{':
			m, complete := jsonValueEnd(rest)
			if !complete {
				if jlCloseOutsideStrings(rest, m1Close) {
					// Whatever follows, the object cannot become valid JSON.
					return 0, nil, false, errM1Invalid
				}
				if !final {
					return 0, nil, true, nil
				}
				return 0, nil, false, errors.New("the call object after " + m1Open + " is incomplete at the end of the output")
			}
			c, err := m1Call(rest[:m])
			if err != nil {
				return 0, nil, false, err
			}
			calls = append(calls, c)
			i += m
			end = i
		case len(calls) > 0:
			return end, calls, false, nil
		case rest[0] == '[':
			return 0, nil, false, errors.New("a JSON list after " + m1Open + " is apriel markup; minimax-m1 writes one call object per line")
		default:
			return 0, nil, false, errors.New(m1Open + " is not followed by a JSON call object")
		}
	}
}

// errM1Invalid is the one message for a call object that is not valid JSON,
// whether that shows before the object is complete (the close marker outside
// its strings) or after: the diagnostic must not depend on the chunking.
var errM1Invalid = errors.New("the call object after " + m1Open + " is not valid JSON")

// m1Call decodes one {"name", "arguments"} line.
func m1Call(obj string) (call, error) {
	if !json.Valid([]byte(obj)) {
		return call{}, errM1Invalid
	}
	return nameAndArguments(obj)
}

// m1Calls: one JSON object a line in one block.
func m1Calls() *CallSyntax {
	return &CallSyntax{
		Triggers: []string{m1Open},
		Open:     seqOf(lit(m1Open), opt("\n")),
		Sep:      lit("\n"),
		Close:    seqOf(opt("\n"), lit(m1Close)),
		Call:     nameArguments,
		Tag:      jsonTag(func(n string) string { return m1Open + "\n{\"name\": " + jsonName(n) + ", \"arguments\": " }, "}\n"+m1Close),
	}
}
