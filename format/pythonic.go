package format

import (
	"errors"
	"strings"
)

// pythonic: Llama 3.2 / Llama 4 pythonic mode and other models prompted for
// Python-style calls. A call list is a bracketed list of keyword calls with
// Python literal values, anywhere in the content; Llama 4 wraps it in
// <|python_start|>…<|python_end|>:
//
//	[get_weather(location='Paris', unit='celsius'), get_time(zone='Europe/Paris')]
//	<|python_start|>[get_weather(location='Paris')]<|python_end|>
//
// A bracket that does not open `[name(` is text ([1, 2], prose) and gets no
// diagnostic; one that does but does not parse is a malformed call. There is
// no reasoning.
func init() {
	register(&Family{
		ID:                 "pythonic",
		Calls:              pythonicCalls(),
		NoResponseTemplate: "calls are a bracketed Python call list anywhere in the content, without markers: no delimiter can tell [name( that parses from prose, and no content parser reads Python calls",
		Aliases:            []string{"llama4_pythonic"},
		New: func(o Options) Parser {
			return quietParser{newEngine(&markup{
				callOpen: []string{"[", llamaPythonStart},
				// SGLang's pythonic tests keep the whitespace around a call.
				callSpaceKept: true,
				section:       pythonicSection,
			}, o)}
		},
		Detect: func(t string) bool {
			// The pythonic prompt of Llama 3.2 / 4 tool-calling guides.
			return strings.Contains(t, "[func_name1(params_name1=params_value1") ||
				strings.Contains(t, "[func_name1(param1=value1")
		},
	})
}

// errNotCall is a section error for text that never looked like a call: it
// stays content without a diagnostic (quietParser drops it).
var errNotCall = errors.New("not a call: the text stays content")

// quietParser is the engine without the diagnostics of errNotCall.
type quietParser struct{ *engine }

func (p quietParser) Diagnostics() []Diagnostic {
	var out []Diagnostic
	for _, d := range p.engine.Diagnostics() {
		if d.Message != errNotCall.Error() {
			out = append(out, d)
		}
	}
	return out
}

// pythonicSection parses a call list opened by '[' or <|python_start|>.
func pythonicSection(buf string, final bool) (int, []call, bool, error) {
	start := 0
	wrapped := strings.HasPrefix(buf, llamaPythonStart)
	if wrapped {
		start = len(llamaPythonStart)
		for start < len(buf) && isJSONSpace(buf[start]) {
			start++
		}
	} else if looks, decided := pyCallStart(buf); !decided {
		if final {
			return 0, nil, false, errNotCall
		}
		return 0, nil, true, nil
	} else if !looks {
		return 0, nil, false, errNotCall
	}
	pcs, n, err := parsePyCalls(buf[start:], false)
	if !final && (err == errPyIncomplete || (err == nil && wrapped && !pyCallsSettled(buf[start:], n))) {
		return 0, nil, true, nil // bare calls after <|python_start|>: another may follow
	}
	if err == errPyIncomplete && pcs != nil {
		err = nil // bare calls after <|python_start|>, then text
	}
	if err != nil {
		if err == errPyIncomplete {
			err = errors.New("the call list is incomplete")
		}
		return 0, nil, false, errors.New("the call list is not valid Python: " + err.Error())
	}
	n += start
	if wrapped {
		// The closing marker, after optional whitespace.
		k := n
		for k < len(buf) && isJSONSpace(buf[k]) {
			k++
		}
		rest := buf[k:]
		switch {
		case strings.HasPrefix(rest, llamaPythonEnd):
			n = k + len(llamaPythonEnd)
		case strings.HasPrefix(llamaPythonEnd, rest) && !final:
			return 0, nil, true, nil
		}
	}
	calls := make([]call, len(pcs))
	for i, pc := range pcs {
		calls[i] = call{name: pc.Name, args: pc.Args}
	}
	return n, calls, false, nil
}

// pyCallStart reports whether buf ("[…") opens a call: '[', whitespace, a
// name, whitespace, '('. decided is false while buf is too short to tell.
func pyCallStart(buf string) (looks, decided bool) {
	i := 1
	for i < len(buf) && isJSONSpace(buf[i]) {
		i++
	}
	if i == len(buf) {
		return false, false
	}
	if !isPyNameStart(buf[i]) {
		return false, true
	}
	for i < len(buf) && (isPyNameChar(buf[i]) || buf[i] == '.' || buf[i] == '-') {
		i++
	}
	for i < len(buf) && isJSONSpace(buf[i]) {
		i++
	}
	if i == len(buf) {
		return false, false
	}
	return buf[i] == '(', true
}

// pythonicCalls: a Python list of calls, optionally in python tags.
func pythonicCalls() *CallSyntax {
	return &CallSyntax{
		Triggers: []string{llamaPythonStart}, TriggersFor: pythonListTriggers,
		Open: seqOf(opt(llamaPythonStart), lit("[")), Sep: lit(", "), Close: seqOf(lit("]"), opt(llamaPythonEnd)),
		Call: pythonCall(false),
	}
}
