package format

import (
	"encoding/json"
	"errors"
	"strings"
)

// xlam: Salesforce xLAM. The calls are a JSON array of {"name", "arguments"}
// objects, written bare at the start of the output, or after [TOOL_CALLS], in
// a ```json fence or in <tool_call>…</tool_call>:
//
//	[{"name": "get_weather", "arguments": {"location": "Paris"}}]
//	I'll check the weather for you.[TOOL_CALLS][{"name": "get_weather", …}]
//
// A bare array counts as calls only when every element is an object with a
// "name"; other JSON is content.
func init() {
	register(&Family{
		ID:                 "xlam",
		Calls:              xlamCalls(),
		NoResponseTemplate: "the calls are most often a bare JSON array at the start of the output, calls only when every element has a name: no delimiter can say where the JSON ends, nor check its elements",
		New: func(o Options) Parser {
			e := newEngine(&markup{callOpen: []string{xlamToolCalls, xlamFence, xlamTag}, section: xlamSection}, o)
			return &leadEngine{engine: e, lead: xlamLead}
		},
		Detect: func(t string) bool {
			return strings.Contains(t, "[BEGIN OF TASK INSTRUCTION]") || strings.Contains(t, "xLAM")
		},
	})
}

const (
	xlamToolCalls = mistralCalls
	xlamFence     = "```json"
	xlamFenceEnd  = "```"
	xlamTag       = toolCallTag
	xlamTagEnd    = toolCallEndTag
)

// xlamLead recognises a bare array at the start of the output.
func xlamLead(buf string, final bool) (int, []call, bool, error) {
	trimmed := trimLayout(buf)
	lead := len(buf) - len(trimmed)
	switch {
	case trimmed == "" && !final:
		return 0, nil, true, nil
	case !strings.HasPrefix(trimmed, "["):
		return 0, nil, false, nil
	case strings.HasPrefix(trimmed, xlamToolCalls):
		return 0, nil, false, nil
	case strings.HasPrefix(xlamToolCalls, trimmed) && !final:
		return 0, nil, true, nil
	}
	end, complete := jsonValueEnd(trimmed)
	if !complete {
		if !final {
			return 0, nil, true, nil
		}
		if xlamLooksLikeCalls(trimmed) {
			return 0, nil, false, errors.New("the call list is incomplete")
		}
		return 0, nil, false, nil
	}
	if !xlamNamed(trimmed[:end]) {
		return 0, nil, false, nil // JSON output, not calls
	}
	calls, err := jsonCallList(trimmed[:end])
	if err != nil {
		return 0, nil, false, err
	}
	return lead + end, calls, false, nil
}

// xlamLooksLikeCalls says whether an incomplete array starts like a call list.
func xlamLooksLikeCalls(s string) bool {
	s = strings.TrimLeft(s[1:], " \t\r\n")
	if !strings.HasPrefix(s, "{") {
		return false
	}
	s = strings.TrimLeft(s[1:], " \t\r\n")
	return strings.HasPrefix(s, `"name"`)
}

// xlamNamed says whether s is a JSON array of objects that all have a name.
func xlamNamed(s string) bool {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &items); err != nil || len(items) == 0 {
		return false
	}
	for _, it := range items {
		if _, ok := it["name"]; !ok {
			return false
		}
	}
	return true
}

// xlamSection parses the call list after one of the wrappers: an array, or a
// single call object.
func xlamSection(buf string, final bool) (int, []call, bool, error) {
	_, opener := indexAny(buf, []string{xlamToolCalls, xlamFence, xlamTag})
	i := len(opener)
	end, complete := jsonValueEnd(buf[i:])
	if !complete {
		if !final {
			return 0, nil, true, nil
		}
		return 0, nil, false, errors.New("the call list after " + opener + " is incomplete")
	}
	body := strings.TrimSpace(buf[i : i+end])
	var calls []call
	var err error
	if strings.HasPrefix(body, "{") {
		var c call
		c, err = nameAndArguments(body)
		calls = []call{c}
	} else {
		calls, err = jsonCallList(body)
	}
	if err != nil {
		return 0, nil, false, err
	}
	n := i + end
	closer := map[string]string{xlamFence: xlamFenceEnd, xlamTag: xlamTagEnd}[opener]
	if closer != "" {
		after := buf[n:]
		trimmed := trimLayout(after)
		switch {
		case strings.HasPrefix(trimmed, closer):
			n += len(after) - len(trimmed) + len(closer)
		case strings.HasPrefix(closer, trimmed) && !final:
			return 0, nil, true, nil
		}
	}
	return n, calls, false, nil
}

// xlamCalls: a bare JSON array.
func xlamCalls() *CallSyntax {
	cs := jsonArray(`[{"`, "", "", nameArguments)
	return &cs
}
