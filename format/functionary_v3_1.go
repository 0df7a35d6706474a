package format

import (
	"errors"
	"strings"
)

// functionary-v3.1: MeetKai Functionary v3.1 (Llama 3.1 based). A call is
//
//	<function=get_weather>{"location": "Paris"}</function>
//
// and <|python_tag|> followed by code calls the built-in code interpreter
// "python", returned as {"code": …}.
func init() {
	register(&Family{
		ID:      "functionary-v3.1",
		Calls:   fv31Calls(),
		Aliases: []string{"functionary-v3-1", "functionary_v3_1_llama_3_1"},
		New: func(o Options) Parser {
			return newEngine(&markup{callOpen: []string{fv31Open, fv31Python}, section: fv31Section}, o)
		},
		// Not expressed: <|python_tag|> code, a call to the built-in "python"
		// (a field cannot give tool_calls a second shape).
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(llamaAssistant).withCalls(&ResponseField{
				OpenPattern: patternOf(fv31Open) + "(?P<name>[^>]+)>", Close: []string{fv31Close},
				Content: "json", Transform: callTransform(),
			})
		},
		Detect: func(t string) bool {
			return strings.Contains(t, "'<function=' + tool_call") || strings.Contains(t, "start with <function= and end with </function>")
		},
	})
}

const (
	fv31Open   = xmlFunctionOpen
	fv31Close  = xmlFunctionClose
	fv31Python = llamaPythonTag
)

// fv31Ends are the tokens that end a code-interpreter call, when the runtime
// did not consume them.
var fv31Ends = []string{"<|eom_id|>", "<|eot_id|>"}

var errFv31Name = errors.New("<function= is not followed by a function name and '>'")

func fv31Section(buf string, final bool) (int, []call, bool, error) {
	if strings.HasPrefix(buf, fv31Python) {
		body := buf[len(fv31Python):]
		end, marker := indexAny(body, fv31Ends)
		if end < 0 {
			if !final {
				return 0, nil, true, nil
			}
			end = len(body)
		}
		code := strings.TrimSpace(body[:end])
		if code == "" {
			return 0, nil, false, errors.New("<|python_tag|> is followed by no code")
		}
		args, _ := jsonMarshalString(code)
		return len(fv31Python) + end + len(marker), []call{{name: "python", args: `{"code": ` + args + `}`}}, false, nil
	}
	body := buf[len(fv31Open):]
	gt := strings.IndexByte(body, '>')
	if gt < 0 {
		if !final && !strings.ContainsAny(body, "<{\n") {
			return 0, nil, true, nil
		}
		return 0, nil, false, errFv31Name
	}
	name := strings.TrimSpace(body[:gt])
	if name == "" || strings.ContainsAny(name, "<{\n\"") {
		return 0, nil, false, errFv31Name
	}
	head := len(fv31Open) + gt + 1
	rest := buf[head:]
	end, complete := jsonValueEnd(rest)
	if !complete {
		if !final {
			return 0, nil, true, nil
		}
		return 0, nil, false, errors.New("the arguments of " + quote(name) + " are incomplete")
	}
	args, err := jsonObject(rest[:end])
	if err != nil {
		return 0, nil, false, errors.New("the arguments of " + quote(name) + " are not a JSON object")
	}
	n := head + end
	after := buf[n:]
	trimmed := strings.TrimLeft(after, " \t\r\n")
	switch {
	case strings.HasPrefix(trimmed, fv31Close):
		n += len(after) - len(trimmed) + len(fv31Close)
	case strings.HasPrefix(fv31Close, trimmed) && !final:
		return 0, nil, true, nil // the end marker may still come
	}
	return n, []call{{name: name, args: args}}, false, nil
}

// fv31Calls: <function=NAME> and the JSON arguments.
func fv31Calls() *CallSyntax {
	open, gt, close := lit(fv31Open), lit(">"), lit(fv31Close)
	cs := namedCall(CallSyntax{Triggers: []string{fv31Open}}, func(b *Builder, i int, args string) string {
		return seqOf(open, b.Name(i), gt, args, close)
	})
	cs.Tag = jsonTag(func(n string) string { return fv31Open + n + ">" }, fv31Close)
	return &cs
}
