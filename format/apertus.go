package format

import (
	"encoding/json"
	"errors"
	"strings"
)

// apertus: Swiss AI Apertus. The calls are a JSON array of one-key objects,
// the key naming the function:
//
//	<|tools_prefix|>[{"get_weather": {"location": "Paris"}}]<|tools_suffix|>
//
// Reasoning is <|inner_prefix|>…<|inner_suffix|>.
func init() {
	register(&Family{
		ID:                 "apertus",
		Calls:              apertusCalls(),
		NoResponseTemplate: "each call is an object whose only key is the function's name: a transform can name a key's value, never the key",
		Aliases:            []string{"apertus2509"},
		ThinkOpen:          apertusThinkOpen,
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: apertusThinkOpen, thinkClose: apertusThinkClose,
				callOpen:         []string{apertusOpen},
				callEndsThinking: true,
				section:          apertusSection,
			}, o)
		},
		Detect: func(t string) bool { return strings.Contains(t, apertusOpen) },
	})
}

const (
	apertusThinkOpen  = "<|inner_prefix|>"
	apertusThinkClose = "<|inner_suffix|>"
	apertusOpen       = "<|tools_prefix|>"
	apertusClose      = "<|tools_suffix|>"
)

func apertusSection(buf string, final bool) (int, []call, bool, error) {
	body := buf[len(apertusOpen):]
	end, complete := jsonValueEnd(body)
	if !complete {
		if !final {
			return 0, nil, true, nil
		}
		return 0, nil, false, errors.New("the <|tools_prefix|> list is incomplete")
	}
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(body[:end]), &items); err != nil {
		return 0, nil, false, errors.New("the <|tools_prefix|> list is not a JSON array")
	}
	calls := make([]call, 0, len(items))
	for _, it := range items {
		c, err := apertusCall(it)
		if err != nil {
			return 0, nil, false, err
		}
		calls = append(calls, c)
	}
	n := len(apertusOpen) + end
	after := buf[n:]
	trimmed := strings.TrimLeft(after, " \t\r\n")
	switch {
	case strings.HasPrefix(trimmed, apertusClose):
		n += len(after) - len(trimmed) + len(apertusClose)
	case strings.HasPrefix(apertusClose, trimmed) && !final:
		return 0, nil, true, nil
	}
	return n, calls, false, nil
}

// apertusCall decodes {"name": {arguments}}, keeping the arguments as written.
func apertusCall(raw json.RawMessage) (call, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return call{}, errors.New("a call in the <|tools_prefix|> list is not a JSON object")
	}
	var name string
	var args json.RawMessage
	keys := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return call{}, errors.New("a call in the <|tools_prefix|> list is not valid JSON")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return call{}, errors.New("a call in the <|tools_prefix|> list is not valid JSON")
		}
		name, args = tok.(string), v
		keys++
	}
	if keys != 1 || name == "" {
		return call{}, errors.New("a call in the <|tools_prefix|> list must be an object with exactly one key, the function name")
	}
	text, err := argumentsText(args)
	if err != nil {
		return call{}, errors.New("the arguments of " + quote(name) + " are not a JSON object")
	}
	return call{name: name, args: text}, nil
}

// apertusCalls: a JSON array of {NAME: arguments} objects.
func apertusCalls() *CallSyntax {
	cs := jsonArray(apertusOpen, lit(apertusOpen), lit(apertusClose), func(b *Builder, i int) (string, error) {
		ws := b.WS()
		args, err := b.Args(i)
		if err != nil {
			return "", err
		}
		return seqOf(litBrace, ws, b.JSONName(i), ws, litColon, ws, args, ws, litBraceClose), nil
	})
	cs.Tag = jsonTag(func(n string) string { return apertusOpen + `[{` + jsonName(n) + `: ` }, "}]"+apertusClose)
	return withThinking(cs, apertusThinkOpen, apertusThinkClose)
}
