package format

import (
	"encoding/json"
	"errors"
	"strings"
)

// jsonValueEnd returns the length of the JSON value at the start of s (after
// leading whitespace), counting brackets outside strings and honouring escapes.
// complete is false when s ends before the value does.
func jsonValueEnd(s string) (n int, complete bool) {
	i := 0
	for i < len(s) && isJSONSpace(s[i]) {
		i++
	}
	if i == len(s) {
		return 0, false
	}
	switch s[i] {
	case '{', '[':
	case '"':
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '"':
				return j + 1, true
			}
		}
		return 0, false
	default:
		// A scalar ends at a delimiter.
		j := i
		for j < len(s) && !strings.ContainsRune(",]}: \t\r\n", rune(s[j])) {
			j++
		}
		return j, j < len(s)
	}
	depth := 0
	inString := false
	for j := i; j < len(s); j++ {
		c := s[j]
		if inString {
			switch c {
			case '\\':
				j++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// jsonObject checks that s is one JSON object and returns it trimmed, as the
// model wrote it: formats that write JSON keep the JSON the model wrote.
func jsonObject(s string) (string, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !json.Valid([]byte(s)) {
		return "", errors.New("the arguments are not a JSON object")
	}
	return s, nil
}

// nameAndArguments decodes the {"name": ..., "arguments": {...}} object most
// JSON families write; "parameters" is accepted for "arguments", and arguments
// given as a string holding a JSON object are accepted too.
func nameAndArguments(body string) (call, error) {
	var obj struct {
		Name       *string         `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
		ID         string          `json:"id"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(body)), &obj); err != nil {
		return call{}, errors.New("the call is not valid JSON: " + err.Error())
	}
	if obj.Name == nil || *obj.Name == "" {
		return call{}, errors.New(`the call has no "name"`)
	}
	raw := obj.Arguments
	if raw == nil {
		raw = obj.Parameters
	}
	args, err := argumentsText(raw)
	if err != nil {
		return call{}, err
	}
	return call{id: obj.ID, name: *obj.Name, args: args}, nil
}

// argumentsText returns arguments as JSON object text: an object as written,
// a string that holds an object decoded, nothing as {}.
func argumentsText(raw json.RawMessage) (string, error) {
	text := strings.TrimSpace(string(raw))
	switch {
	case text == "" || text == "null":
		return "{}", nil
	case strings.HasPrefix(text, "{"):
		return text, nil
	case strings.HasPrefix(text, `"`):
		var inner string
		if err := json.Unmarshal(raw, &inner); err == nil {
			if obj, err := jsonObject(inner); err == nil {
				return obj, nil
			}
		}
	}
	return "", errors.New("the arguments are not a JSON object")
}
