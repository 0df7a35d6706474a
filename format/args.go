package format

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
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
	if !strings.HasPrefix(s, "{") || !validJSON(s) {
		return "", errors.New("the arguments are not a JSON object")
	}
	return s, nil
}

// nameAndArguments decodes the {"name": ..., "arguments": {...}} object most
// JSON families write; "parameters" is accepted for "arguments", and arguments
// given as a string holding a JSON object are accepted too.
func nameAndArguments(body string) (call, error) {
	if c, err, ok := nameAndArgumentsFast(strings.TrimSpace(body)); ok {
		return c, err
	}
	return nameAndArgumentsDecoded(body)
}

// nameAndArgumentsFast is nameAndArguments for the bodies models write: a
// valid JSON object whose "name" and "id" are strings without escapes, its
// members found by scanning, without decoding (jsonscan.go). It does not
// decide (ok false) where decoding could differ from slicing (see
// objectFields), for a value of the wrong type, or for arguments given as a
// string with escapes.
func nameAndArgumentsFast(body string) (c call, err error, ok bool) {
	var v [4]string // name, arguments, parameters, id
	if !objectFields(body, callFields[:], 1<<3, v[:]) {
		return call{}, nil, false
	}
	name, hasName := v[0], false
	if name != "" && name != "null" {
		if name, ok = plainJSONString(name, strings.IndexByte(name, '\\') >= 0); !ok {
			return call{}, nil, false
		}
		hasName = true
	}
	if v[3] != "" {
		if c.id, ok = plainJSONString(v[3], strings.IndexByte(v[3], '\\') >= 0); !ok {
			return call{}, nil, false
		}
	}
	if !hasName || name == "" {
		return call{}, errors.New(`the call has no "name"`), true
	}
	raw := v[1]
	if raw == "" {
		raw = v[2]
	}
	c.name = name
	if c.args, err, ok = argumentsTextFast(raw); !ok {
		return call{}, nil, false
	}
	if err != nil {
		return call{}, err, true
	}
	return c, nil, true
}

var callFields = [...]string{"name", "arguments", "parameters", "id"}

// objectFields finds the members of the JSON object body (trimmed) named by
// fields, as encoding/json finds the fields of a struct with those tags:
// values[k] is the text of the last member named fields[k] ("" when there is
// none), where a null is skipped for the fields in the bit set keepOnNull
// (non-pointer strings, which a null leaves as they are). It reports false when body is not a valid JSON object, or when
// decoding could find other members than slicing does: a field given twice,
// an escape in a key, a
// key that is not plain ASCII, or one that names a field in another case
// (encoding/json matches keys regardless of case).
func objectFields(body string, fields []string, keepOnNull uint, values []string) bool {
	if body == "" || body[0] != '{' || !validJSON(body) {
		return false
	}
	simple := true
	var seen uint
	eachJSONMember(body, func(m jsonMember) bool {
		if m.keyEscaped {
			simple = false
			return false
		}
		for k, f := range fields {
			if m.key == f {
				if seen&(1<<k) != 0 {
					// Decoding checks the type of every value given.
					simple = false
					return false
				}
				seen |= 1 << k
				if m.value != "null" || keepOnNull&(1<<k) == 0 {
					values[k] = m.value
				}
				return true
			}
		}
		simple = !foldsToField(m.key, fields)
		return simple
	})
	return simple
}

// foldsToField reports whether encoding/json could match key to one of
// fields: a key that is not plain ASCII, or one equal to a field regardless
// of case.
func foldsToField(key string, fields []string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return true
		}
	}
	for _, f := range fields {
		if strings.EqualFold(key, f) {
			return true
		}
	}
	return false
}

// argumentsTextFast is argumentsText on the text of a member's value (""
// when absent), where it can decide without decoding (ok).
func argumentsTextFast(raw string) (args string, err error, ok bool) {
	switch {
	case raw == "" || raw == "null":
		return "{}", nil, true
	case raw[0] == '{':
		return raw, nil, true
	case raw[0] == '"':
		if strings.IndexByte(raw, '\\') >= 0 || !utf8.ValidString(raw) {
			return "", nil, false
		}
		if args, err = jsonObject(raw[1 : len(raw)-1]); err != nil {
			return "", err, true
		}
		return args, nil, true
	}
	return "", errors.New("the arguments are not a JSON object"), true
}

// nameAndArgumentsDecoded is nameAndArguments by encoding/json, for the
// bodies nameAndArgumentsFast leaves undecided.
func nameAndArgumentsDecoded(body string) (call, error) {
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

func jsonMarshalString(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}
