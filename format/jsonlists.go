package format

import (
	"encoding/json"
	"errors"
	"strings"
)

// Call sections written as JSON lists of calls, which several families share:
// jlSection (Granite, Apriel, Cohere, Command R+, GigaChat, Nemotron) and
// the decoders of a list of {"name", "arguments"} objects.

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

// jsonCallList decodes a JSON array of {"name", "arguments"} objects.
func jsonCallList(s string) ([]call, error) {
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(s), &items); err != nil {
		return nil, errors.New("the call list is not a JSON array: " + err.Error())
	}
	calls := make([]call, 0, len(items))
	for _, it := range items {
		c, err := nameAndArguments(string(it))
		if err != nil {
			return nil, err
		}
		calls = append(calls, c)
	}
	return calls, nil
}

// mistralJSONCalls decodes a JSON array of calls, or one call object.
func mistralJSONCalls(text string) ([]call, error) {
	text = strings.TrimSpace(text)
	var items []string
	if strings.HasPrefix(text, "[") {
		var ok bool
		if items, ok = jsonArrayItems(text); !ok {
			var raws []json.RawMessage
			if err := json.Unmarshal([]byte(text), &raws); err != nil {
				return nil, errors.New("the calls are not valid JSON: " + err.Error())
			}
			for _, r := range raws {
				items = append(items, string(r))
			}
		}
		if len(items) == 0 {
			return nil, errors.New("the call list is empty")
		}
	} else {
		items = []string{text}
	}
	calls := make([]call, 0, len(items))
	for _, it := range items {
		c, err := nameAndArguments(it)
		if err != nil {
			return nil, err
		}
		calls = append(calls, c)
	}
	return calls, nil
}
