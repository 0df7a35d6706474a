package format

import (
	"errors"
	"strings"
)

// functionary-v3.2: MeetKai Functionary v3.2. Every message starts with its
// recipient after ">>>": "all" is the user (content), any other name is a tool
// whose JSON arguments follow on the next line, "python" carries raw code:
//
//	>>>all
//	Let me check.>>>get_weather
//	{"location": "Paris"}
//
// The prompt ends with ">>>", so the output usually starts with the recipient
// alone; the leading ">>>" is accepted too.
func init() {
	register(&Family{
		ID:      "functionary-v3.2",
		Calls:   fv32Calls(),
		Aliases: []string{"functionary-v3-2", "functionary_v3_2"},
		New: func(o Options) Parser {
			e := newEngine(&markup{callOpen: []string{fv32Open}, section: fv32Section}, o)
			return &leadEngine{engine: e, lead: fv32Lead}
		},
		// Each message runs to the next ">>>" (the prompt's own ">>>" may
		// open the first); "all" is content. Its opener sorts before
		// tool_calls, so at the same length the tie goes to it. Not
		// expressed: raw python code.
		ResponseTemplate: func() *ResponseTemplate {
			recipient := "(?:" + patternOf(fv32Open) + `|^\s*)`
			return newResponseTemplate(llamaAssistant).
				withDroppedMarkup("recipient_all", recipient+patternOf(fv32All)+`\n?`).
				withCalls(&ResponseField{
					OpenPattern: recipient + `(?P<name>[\w.-]+)\n`, ClosePattern: "(?=" + patternOf(fv32Open) + ")",
					Content: "json", Transform: callTransform(),
				})
		},
		Detect: func(t string) bool {
			return strings.Contains(t, ">>>all") && strings.Contains(t, "'>>>' + tool_call")
		},
	})
}

const (
	fv32Open = ">>>"
	fv32All  = "all" // the recipient of a message to the user
)

func isRecipientChar(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// fv32Lead recognises the first message, whose ">>>" the prompt supplied: a
// recipient name alone on the first line.
func fv32Lead(buf string, final bool) (int, []call, bool, error) {
	if strings.HasPrefix(buf, fv32Open) {
		return 0, nil, false, nil
	}
	if strings.HasPrefix(fv32Open, buf) && !final {
		return 0, nil, true, nil
	}
	i := 0
	for i < len(buf) && isRecipientChar(buf[i]) {
		i++
	}
	switch {
	case i == len(buf) && !final:
		return 0, nil, true, nil
	case i == 0 || i == len(buf) || buf[i] != '\n':
		return 0, nil, false, nil // not a recipient line: plain content
	}
	n, calls, needMore, err := fv32Section(fv32Open+buf, final)
	if needMore || err != nil {
		return 0, nil, needMore, err
	}
	return n - len(fv32Open), calls, false, nil
}

// fv32Section parses one ">>>recipient\n…" message header and, for a tool, the
// arguments after it.
func fv32Section(buf string, final bool) (int, []call, bool, error) {
	i := len(fv32Open)
	for i < len(buf) && isRecipientChar(buf[i]) {
		i++
	}
	name := buf[len(fv32Open):i]
	if i == len(buf) {
		if !final {
			return 0, nil, true, nil
		}
		if name == "all" {
			return i, nil, false, nil
		}
		return 0, nil, false, errors.New("the message to " + quote(name) + " has no body")
	}
	if name == "" || buf[i] != '\n' {
		return 0, nil, false, errors.New(`">>>" is not followed by a recipient on its own line`)
	}
	head := i + 1
	body := buf[head:]
	switch name {
	case "all":
		return head, nil, false, nil
	case "python":
		end := strings.Index(body, fv32Open)
		if end < 0 {
			if !final {
				return 0, nil, true, nil
			}
			end = len(body)
		}
		code := body[:end]
		if strings.TrimSpace(code) == "" {
			return 0, nil, false, errors.New("the message to python has no code")
		}
		args, _ := jsonMarshalString(code)
		return head + end, []call{{name: "python", args: `{"code": ` + args + `}`}}, false, nil
	}
	end, complete := jsonValueEnd(body)
	if !complete {
		if !final {
			return 0, nil, true, nil
		}
		return 0, nil, false, errors.New("the arguments of " + quote(name) + " are incomplete")
	}
	args, err := jsonObject(body[:end])
	if err != nil {
		return 0, nil, false, errors.New("the arguments of " + quote(name) + " are not a JSON object")
	}
	return head + end, []call{{name: name, args: args}}, false, nil
}

// fv32Calls: >>>NAME, a newline and the JSON arguments. The prompt ends
// with ">>>", so the first recipient comes without it.
func fv32Calls() *CallSyntax {
	litNewline := lit("\n")
	cs := namedCall(CallSyntax{Triggers: []string{fv32Open}, Open: opt(fv32Open), Sep: lit(fv32Open)}, func(b *Builder, i int, args string) string {
		return seqOf(b.Name(i), litNewline, args)
	})
	return &cs
}
