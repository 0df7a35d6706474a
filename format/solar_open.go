package format

import (
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/grammar"
)

// solar-open: Upstage Solar Open. The prompt ends "<|begin|>assistant"; the
// output continues with <|think|> (reasoning, ended by <|end|>, after which
// "<|begin|>assistant" starts the next message), <|content|> (content, ended by
// <|end|>) or <|tool_calls|>:
//
//	<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>get_weather<|tool_call:args|>{"location": "Paris"}<|tool_call:end|><|calls|>
//
// The text after <|tool_call:begin|> is the call id.
func init() {
	register(&Family{
		ID:               "solar-open",
		Calls:            solarCallSyntax(),
		Aliases:          []string{"solar_open"},
		ThinkOpen:        solarThink,
		ResponseTemplate: solarResponseTemplate,
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: solarThink, thinkClose: solarEnd,
				callOpen: []string{solarCalls, solarBegin, solarContent, solarEnd},
				section:  solarSection,
			}, o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, "<|tool_call:begin|>") && strings.Contains(t, solarCalls)
		},
	})
}

const (
	solarThink     = "<|think|>"
	solarEnd       = endToken
	solarBegin     = "<|begin|>"
	solarAssistant = "<|begin|>assistant"
	solarContent   = "<|content|>"
	solarCalls     = "<|tool_calls|>"
	solarCallBegin = "<|tool_call:begin|>"
	solarCallName  = "<|tool_call:name|>"
	solarCallArgs  = "<|tool_call:args|>"
	solarCallEnd   = "<|tool_call:end|>"
	solarCallsEnd  = "<|calls|>"
)

// solarSection consumes the message markers (<|begin|>assistant, <|content|>,
// <|end|>) and parses a <|tool_calls|> message.
// solarResponseTemplate reads <|think|> as reasoning up to <|end|>, drops
// the content and message markers (<|content|>, <|end|>, <|begin|>assistant)
// and reads one call per <|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{…}<|tool_call:end|>,
// the section's markers belonging to its first and last call.
func solarResponseTemplate() *ResponseTemplate {
	t := newResponseTemplate(solarAssistant).withReasoning(solarThink, solarEnd)
	t.Fields["content"].ClosePattern = patternOf(solarContent) + "|" + patternOf(solarEnd) + "|" + patternOf(solarAssistant)
	callEnd := patternOf(solarCallEnd)
	return t.withCalls(&ResponseField{
		OpenPattern: "(?:" + patternOf(solarCalls) + `\s*)?` + patternOf(solarCallBegin) + `\s*(?P<id>[^<]*?)\s*` +
			patternOf(solarCallName) + `\s*(?P<name>[^<]*?)\s*` + patternOf(solarCallArgs),
		ClosePattern: blockCallClose(callEnd, patternOf(solarCallsEnd), patternOf(solarCallBegin)),
		Content:      "json",
		Transform:    withID(callTransform()),
	})
}

func solarSection(buf string, final bool) (int, []call, bool, error) {
	switch {
	case strings.HasPrefix(buf, solarContent):
		return len(solarContent), nil, false, nil
	case strings.HasPrefix(buf, solarEnd):
		return len(solarEnd), nil, false, nil
	case strings.HasPrefix(buf, solarBegin):
		switch {
		case strings.HasPrefix(buf, solarAssistant):
			return len(solarAssistant), nil, false, nil
		case strings.HasPrefix(solarAssistant, buf) && !final:
			return 0, nil, true, nil
		}
		return 0, nil, false, errors.New("<|begin|> does not start an assistant message")
	}
	i := len(solarCalls)
	var calls []call
	for {
		rest := buf[i:]
		trimmed := strings.TrimLeft(rest, " \t\r\n")
		i += len(rest) - len(trimmed)
		switch {
		case strings.HasPrefix(trimmed, solarCallsEnd):
			return i + len(solarCallsEnd), calls, false, nil
		case strings.HasPrefix(trimmed, solarCallBegin):
			n, c, needMore, err := solarCall(trimmed, final)
			if needMore || err != nil {
				return 0, nil, needMore, err
			}
			calls = append(calls, c)
			i += n
			continue
		case !final && (strings.HasPrefix(solarCallsEnd, trimmed) || strings.HasPrefix(solarCallBegin, trimmed)):
			return 0, nil, true, nil
		case len(calls) > 0:
			return i, calls, false, nil // <|calls|> consumed by the runtime, or text after the calls
		}
		return 0, nil, false, errors.New("<|tool_calls|> is not followed by <|tool_call:begin|>")
	}
}

// solarField returns the text from i up to marker, which must be the next
// special token.
func solarField(buf string, i int, marker string, final bool) (string, int, bool, error) {
	at := strings.Index(buf[i:], "<|")
	if at < 0 {
		if !final {
			return "", 0, true, nil
		}
		return "", 0, false, errors.New("a <|tool_call:begin|> element is incomplete")
	}
	rest := buf[i+at:]
	switch {
	case strings.HasPrefix(rest, marker):
		return strings.TrimSpace(buf[i : i+at]), i + at + len(marker), false, nil
	case strings.HasPrefix(marker, rest) && !final:
		return "", 0, true, nil
	}
	return "", 0, false, errors.New("a <|tool_call:begin|> element lacks " + marker)
}

// solarCall parses <|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{…}<|tool_call:end|>.
func solarCall(buf string, final bool) (int, call, bool, error) {
	id, i, needMore, err := solarField(buf, len(solarCallBegin), solarCallName, final)
	if needMore || err != nil {
		return 0, call{}, needMore, err
	}
	name, i, needMore, err := solarField(buf, i, solarCallArgs, final)
	if needMore || err != nil {
		return 0, call{}, needMore, err
	}
	if name == "" {
		return 0, call{}, false, errors.New("a <|tool_call:begin|> element has no function name")
	}
	end, complete := jsonValueEnd(buf[i:])
	if !complete {
		if !final {
			return 0, call{}, true, nil
		}
		return 0, call{}, false, errors.New("the arguments of " + quote(name) + " are incomplete")
	}
	args, err := jsonObject(buf[i : i+end])
	if err != nil {
		return 0, call{}, false, errors.New("the arguments of " + quote(name) + " are not a JSON object")
	}
	i += end
	rest := buf[i:]
	trimmed := strings.TrimLeft(rest, " \t\r\n")
	switch {
	case strings.HasPrefix(trimmed, solarCallEnd):
		i += len(rest) - len(trimmed) + len(solarCallEnd)
	case strings.HasPrefix(solarCallEnd, trimmed) && !final:
		return 0, call{}, true, nil
	}
	return i, call{id: id, name: name, args: args}, false, nil
}

// solarCallSyntax: each call's id, name and JSON arguments in one message.
func solarCallSyntax() *CallSyntax {
	id := grammar.Repeat(grammar.Class(false, grammar.Range{Lo: 'a', Hi: 'z'}, grammar.Range{Lo: '0', Hi: '9'}), 9, 10) // ten in the template's examples; nine-character ids from clients (Mistral's) pass through
	begin, name, args, end := lit(solarCallBegin), lit(solarCallName), lit(solarCallArgs), lit(solarCallEnd)
	cs := namedCall(CallSyntax{
		Triggers: []string{solarCalls},
		Open:     seqOf(opt(solarAssistant), lit(solarCalls)),
		Close:    lit(solarCallsEnd),
	}, func(b *Builder, i int, a string) string {
		return seqOf(begin, id, name, b.Name(i), args, a, end)
	})
	return withThinking(cs, solarThink, solarEnd)
}
