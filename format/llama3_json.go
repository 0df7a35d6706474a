package format

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/chat"
)

// llama3-json: Llama 3.1 / 3.2 / 3.3 JSON tool calling, and the JSON the Llama
// 4 template renders. There is no wrapper: the output is a call when tools
// were offered and it starts (after whitespace) with a JSON object that has a
// "name" and "parameters" (or "arguments"):
//
//	{"name": "get_weather", "parameters": {"location": "Paris"}}
//	<|python_tag|>{"name": "get_weather", "parameters": {"location": "Paris"}}
//	{"name": "get_weather", "parameters": {…}}; {"name": "get_time", "parameters": {…}}
//	<|python_start|><|python_end|>{"name": "get_weather", "parameters": {…}}{"name": "get_time", "parameters": {…}}
//	<|python_tag|>brave_search.call(query="Paris weather")
//
// The last is a Llama 3.1 built-in tool call. Anything else, including JSON
// that is not a call, is content; text after the calls is content.
func init() {
	register(&Family{
		ID:                 "llama3-json",
		Calls:              llamaCalls(),
		NoResponseTemplate: "a call is a bare JSON object, a call only at the start of the output and only when tools were offered: no delimiter can say where a JSON object ends, and a template cannot depend on the request's tools",
		Aliases:            []string{"llama3", "llama3_json", "llama4_json"},
		New:                func(o Options) Parser { return &llamaParser{opts: o} },
		Detect: func(t string) bool {
			return strings.Contains(t, `{"name": "`+probeName+`", "parameters": `) ||
				(strings.Contains(t, `'"parameters": '`) && strings.Contains(t, `'{"name": "' + `))
		},
	})
}

const (
	// llamaAssistant starts an assistant turn in Llama 3's prompts.
	llamaAssistant   = "<|start_header_id|>assistant<|end_header_id|>\n\n"
	llamaPythonTag   = "<|python_tag|>"
	llamaPythonStart = "<|python_start|>"
	llamaPythonEnd   = "<|python_end|>"
)

// llamaSkip are the markers and stop tokens that may surround the calls.
var llamaSkip = []string{llamaPythonTag, llamaPythonStart, llamaPythonEnd, "<|eom_id|>", "<|eot_id|>", "<|eot|>"}

// llamaParser holds the output while it can still be a call sequence; once
// it cannot, the rest streams as content.
type llamaParser struct {
	scanBuffer // the unconsumed output, its offset, markup count and diagnostics
	eventBuf   // its events without an allocation per chunk
	opts       Options
	closed     bool
	content    bool // the rest is content
	afterCall  bool // and starts after a call: its leading whitespace is dropped
	calls      int
}

func (p *llamaParser) Feed(chunk string) []Event {
	if !p.gate.feed(&p.buf, chunk) {
		return nil
	}
	return p.run()
}

func (p *llamaParser) Close() []Event {
	p.closed = true
	p.closing()
	return p.run()
}

func (p *llamaParser) run() []Event {
	if len(p.opts.Tools) == 0 {
		p.content = true
	}
	out := p.events()
	for !p.content {
		events, progressed := p.step()
		out = append(out, events...)
		if !progressed {
			return out
		}
	}
	if p.afterCall {
		p.consume(len(p.buf) - len(strings.TrimLeftFunc(p.buf, unicode.IsSpace)))
		if (p.buf == "" || !utf8.FullRuneInString(p.buf)) && !p.closed {
			return out // the next character may be more whitespace
		}
		p.afterCall = false
	}
	n := len(p.buf)
	if !p.closed {
		n = safePrefix(p.buf, nil)
	}
	if n > 0 {
		out = append(out, Event{Kind: Content, Text: p.buf[:n]})
		p.buf = p.buf[n:]
		p.offset += n
	}
	return out
}

// step parses the next call of the sequence: separators, markers, then a
// JSON call object (or, after <|python_tag|>, a built-in tool call).
func (p *llamaParser) step() ([]Event, bool) {
	i, tagged := 0, false
	for i < len(p.buf) {
		c := p.buf[i]
		if (c == ';' && p.calls > 0) || (c < 0x80 && unicode.IsSpace(rune(c))) {
			i++
			continue
		}
		if c != '<' {
			break
		}
		rest, found := p.buf[i:], false
		if strings.HasPrefix(rest, llamaPythonStart) {
			if events, handled, progressed := p.wrapped(i); handled {
				return events, progressed
			}
		}
		for _, m := range llamaSkip {
			if strings.HasPrefix(rest, m) {
				i += len(m)
				tagged = tagged || m == llamaPythonTag
				found = true
				break
			}
			if strings.HasPrefix(m, rest) && !p.closed {
				return nil, false // may become a marker
			}
		}
		if !found {
			break
		}
	}
	if i == len(p.buf) {
		if !p.closed {
			return nil, false
		}
		if p.calls > 0 {
			p.markupBytes += len(p.buf)
			p.offset += len(p.buf)
			p.buf = ""
			return nil, false
		}
		return p.fail(errors.New("the output ends after the call markers"), tagged && i > 0), true
	}
	body := p.buf[i:]
	var calls []call
	var n int
	switch {
	case body[0] == '{':
		end, complete := jsonValueEnd(body)
		if !complete {
			if !p.closed {
				return nil, false
			}
			return p.fail(errors.New("the JSON call is incomplete"), tagged || llamaLooksLikeCall(body)), true
		}
		c, err := llamaCall(body[:end])
		if err != nil {
			// Valid JSON that is not a call is an answer; broken JSON that
			// starts like a call was meant as one.
			valid := json.Valid([]byte(body[:end]))
			return p.fail(err, tagged || (!valid && llamaLooksLikeCall(body))), true
		}
		calls, n = []call{c}, end
	case tagged && isPyNameStart(body[0]):
		// A built-in tool: brave_search.call(query="…").
		pcs, end, err := parsePyCalls(body, false)
		if !p.closed && (err == errPyIncomplete || (err == nil && !pyCallsSettled(body, end))) {
			return nil, false // another call may follow
		}
		if err == errPyIncomplete && pcs != nil {
			err = nil
		}
		if err != nil {
			return p.fail(errors.New("the built-in tool call is not valid: "+err.Error()), true), true
		}
		for _, pc := range pcs {
			calls = append(calls, call{name: strings.TrimSuffix(pc.Name, ".call"), args: pc.Args})
		}
		n = end
	default:
		return p.fail(errors.New("the text after the call markers is not a call"), tagged), true
	}
	offset := p.offset + i
	p.markupBytes += i + n
	p.buf = p.buf[i+n:]
	p.offset += i + n
	events := make([]Event, 0, 3*len(calls))
	for _, c := range calls {
		if _, ok := toolSchema(p.opts.Tools, c.name); !ok {
			p.diagnostics = append(p.diagnostics, Diagnostic{Code: "unknown-tool", Message: "the model called " + quote(c.name) + ", which the request did not offer", Offset: offset})
		}
		if c.id == "" {
			if p.opts.NewID != nil {
				c.id = p.opts.NewID()
			} else {
				c.id = chat.NewCallID()
			}
		}
		events = appendCallEvents(events, p.calls, c.id, c.name, c.args)
		p.calls++
	}
	return events, true
}

// wrapped handles the Llama 4 shape <|python_start|>content<|python_end|>
// before the calls, at p.buf[i:]: the text between the markers is content.
// handled is false when the markers are transparent (the text between them
// is empty or starts a JSON call).
func (p *llamaParser) wrapped(i int) (events []Event, handled, progressed bool) {
	innerStart := i + len(llamaPythonStart)
	end := strings.Index(p.buf[innerStart:], llamaPythonEnd)
	inner := p.buf[innerStart:]
	if end >= 0 {
		inner = inner[:end]
	}
	if t := strings.TrimLeft(inner, " \t\r\n"); t == "" || t[0] == '{' {
		return nil, false, false
	}
	if end < 0 {
		if p.closed {
			return p.fail(errors.New("<|python_start|> is not closed"), false), true, true
		}
		return nil, true, false // wait for the end marker
	}
	n := innerStart + end + len(llamaPythonEnd)
	p.markupBytes += n - len(inner)
	p.buf = p.buf[n:]
	p.offset += n
	return p.single(Content, inner), true, true
}

// fail ends the call sequence: the held text is content, with a diagnostic
// when it was meant as a call.
func (p *llamaParser) fail(err error, meant bool) []Event {
	if meant {
		p.diagnostics = append(p.diagnostics, Diagnostic{Code: "malformed-call", Message: err.Error(), Offset: p.offset})
	}
	p.content = true
	// The whitespace after a call is its layout (docs/DECISIONS.md,
	// 2026-12-04).
	p.afterCall = p.calls > 0
	return nil
}

// llamaLooksLikeCall reports whether a JSON text starts as a call object.
func llamaLooksLikeCall(body string) bool {
	t := strings.TrimLeft(body[1:], " \t\r\n")
	return strings.HasPrefix(t, `"name"`)
}

// llamaCall decodes a call object: it must have a "name" and "parameters" or
// "arguments".
func llamaCall(text string) (call, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &obj); err != nil {
		return call{}, errors.New("the call is not valid JSON: " + err.Error())
	}
	_, hasParams := obj["parameters"]
	_, hasArgs := obj["arguments"]
	if _, ok := obj["name"]; !ok || (!hasParams && !hasArgs) {
		return call{}, errors.New(`the JSON object has no "name" and "parameters"`)
	}
	return nameAndArguments(text)
}

// llamaCalls: one JSON object, after an optional python tag.
func llamaCalls() *CallSyntax {
	return &CallSyntax{
		Triggers: []string{llamaPythonTag, `{"`},
		Open:     opt(llamaPythonTag),
		Call:     nameParameters,
		Single:   true, // the Llama 3.x templates raise on a second call
		Tag:      jsonTag(func(n string) string { return `{"name": ` + jsonName(n) + `, "parameters": ` }, "}"),
	}
}
