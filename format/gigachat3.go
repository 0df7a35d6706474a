package format

import "strings"

// gigachat3: Sber GigaChat 3 / 3.1. One call per message, a JSON object after
// the "function call" role (GigaChat 3) or the <|function_call|> token
// (GigaChat 3.1):
//
//	<|message_sep|>
//
//	function call<|role_sep|>
//	{"name": "get_weather", "arguments": {"location": "Paris"}}
//
// <|message_sep|> separates messages (and ends the turn): it is markup, with
// the blank lines before a "function call" role.
func init() {
	register(&Family{
		ID:      "gigachat3",
		Calls:   gigachatCalls(),
		Aliases: []string{"gigachat35", "gigachat-v3"},
		New: func(o Options) Parser {
			return newEngine(&markup{
				callOpen: []string{gigachatSep, gigachatRole, gigachatToken},
				section:  gigachatSection,
			}, o)
		},
		// A call's JSON has no end marker: it runs to the next message or call, or
		// the end of the output (text after it makes it malformed). The message
		// separator, with the layout before a call's role, is dropped.
		ResponseTemplate: func() *ResponseTemplate {
			t := newResponseTemplate(gigachatAssistant)
			t.Fields["content"].Close = []string{gigachatSep}
			return t.withCalls(&ResponseField{
				OpenPattern:  "(?:" + patternOf(gigachatSep) + `\s*)?(?:` + alternatives(gigachatRole, gigachatToken) + ")",
				ClosePattern: "(?=" + alternatives(gigachatSep, gigachatRole, gigachatToken) + ")",
				Content:      "json", Transform: objectCallTransform(),
			})
		},
		Detect: func(t string) bool {
			return strings.Contains(t, "<|role_sep|>") && (strings.Contains(t, "function call") || strings.Contains(t, gigachatToken))
		},
	})
}

const (
	gigachatAssistant = "assistant<|role_sep|>\n" // starts an assistant turn in GigaChat's prompts
	gigachatSep       = "<|message_sep|>"
	gigachatRole      = "function call<|role_sep|>"
	gigachatToken     = "<|function_call|>"
)

func gigachatSection(buf string, final bool) (int, []call, bool, error) {
	if strings.HasPrefix(buf, gigachatSep) {
		rest := buf[len(gigachatSep):]
		trimmed := strings.TrimLeft(rest, " \t\r\n")
		switch {
		case strings.HasPrefix(trimmed, gigachatRole):
			// The separator and the layout before the role.
			return len(buf) - len(trimmed), nil, false, nil
		case !final && strings.HasPrefix(gigachatRole, trimmed):
			return 0, nil, true, nil
		}
		return len(gigachatSep), nil, false, nil
	}
	open := gigachatRole
	if strings.HasPrefix(buf, gigachatToken) {
		open = gigachatToken
	}
	return jlSection(buf, final, open, "", false, nameAndArguments)
}

// gigachatCalls: one JSON object after the function-call token or role.
func gigachatCalls() *CallSyntax {
	return &CallSyntax{
		Triggers: []string{gigachatToken, gigachatRole},
		Open:     "(" + lit(gigachatToken) + " | " + seqOf("(", lit(gigachatSep), lit("\n\n"), ")?", lit(gigachatRole), opt("\n")) + ")",
		Call:     nameArguments,
		Single:   true,
	}
}
