package format

import (
	"encoding/json"
	"errors"
	"strings"
)

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
	graniteAltOpen       = "<tool_call>"
	graniteAltClose      = "</tool_call>"
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

// jlSection parses open, a JSON list of call objects (or one object), and
// close. An empty close means the section ends with the JSON; closeOptional
// accepts a missing close marker. At the end of the output the close marker
// may be missing when the JSON is complete (a runtime consumed it as a stop
// token).
func jlSection(buf string, final bool, open, close string, closeOptional bool, decode func(string) (call, error)) (int, []call, bool, error) {
	body := buf[len(open):]
	trimmed := strings.TrimLeft(body, " \t\r\n")
	if trimmed == "" {
		if !final {
			return 0, nil, true, nil
		}
		return 0, nil, false, errors.New(open + " is not followed by a JSON list of calls")
	}
	if trimmed[0] != '[' && trimmed[0] != '{' {
		return 0, nil, false, errors.New(open + " is not followed by a JSON list of calls")
	}
	m, complete := jsonValueEnd(body)
	if !complete {
		if close != "" && !closeOptional && jlCloseOutsideStrings(body, close) {
			return 0, nil, false, errors.New("the JSON list of calls after " + open + " is incomplete before " + close)
		}
		if !final {
			return 0, nil, true, nil
		}
		return 0, nil, false, errors.New("the JSON list of calls after " + open + " is incomplete")
	}
	calls, err := jlDecode(body[:m], decode)
	if err != nil {
		return 0, nil, false, err
	}
	n := len(open) + m
	if close == "" {
		return n, calls, false, nil
	}
	rest := strings.TrimLeft(body[m:], " \t\r\n")
	switch {
	case strings.HasPrefix(rest, close):
		n = len(buf) - len(rest) + len(close)
	case !final && strings.HasPrefix(close, rest):
		return 0, nil, true, nil
	case final && rest == "":
		n = len(buf) // the close marker was consumed as a stop token
	case closeOptional:
	default:
		return 0, nil, false, errors.New("the JSON list of calls after " + open + " is not followed by " + close)
	}
	return n, calls, false, nil
}

// jlDecode decodes a JSON list of call objects, or a single call object.
func jlDecode(raw string, decode func(string) (call, error)) ([]call, error) {
	text := strings.TrimSpace(raw)
	if strings.HasPrefix(text, "{") {
		c, err := decode(text)
		if err != nil {
			return nil, err
		}
		return []call{c}, nil
	}
	items, ok := jsonArrayItems(text)
	if !ok {
		var raws []json.RawMessage
		if err := json.Unmarshal([]byte(text), &raws); err != nil {
			return nil, errors.New("the list of calls is not valid JSON: " + err.Error())
		}
		for _, r := range raws {
			items = append(items, string(r))
		}
	}
	calls := make([]call, 0, len(items))
	for _, item := range items {
		c, err := decode(item)
		if err != nil {
			return nil, err
		}
		calls = append(calls, c)
	}
	return calls, nil
}

// jlCloseOutsideStrings reports whether close occurs in s outside JSON
// strings: an unfinished list followed by its end marker is malformed. (Inside
// a string it may be text, and the list may still complete.)
func jlCloseOutsideStrings(s, close string) bool {
	inString := false
	for j := 0; j < len(s); j++ {
		switch c := s[j]; {
		case inString && c == '\\':
			j++
		case c == '"':
			inString = !inString
		case !inString && strings.HasPrefix(s[j:], close):
			return true
		}
	}
	return false
}

// graniteCalls: a JSON array after <|tool_call|>.
func graniteCalls() *CallSyntax {
	cs := jsonArray(graniteOpen, seqOf(lit(graniteOpen), opt(" ")), "", nameArguments)
	cs.Tag = jsonTag(func(n string) string { return graniteOpen + `[{"name": ` + jsonName(n) + `, "arguments": ` }, "}]")
	return withThinking(cs, thinkTag, thinkEndTag)
}
