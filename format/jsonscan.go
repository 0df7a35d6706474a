package format

import (
	"strings"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/internal/ascii"
)

// A JSON scanner that validates without decoding: it finds where values end
// so that a call body's members can be sliced out of the output as the model
// wrote them. It accepts exactly what encoding/json's Valid accepts
// (FuzzJSONScan checks), and on the short call bodies models write it is
// several times faster than json.Valid or json.Unmarshal, and allocates
// nothing (docs/DECISIONS.md).

// jsonMaxDepth is encoding/json's nesting limit.
const jsonMaxDepth = 10000

// jsonStringStop marks the bytes a JSON string scan must look at: the quote,
// the backslash and the control characters, which are invalid in a string.
var jsonStringStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// validJSON reports whether s is one JSON value, with optional whitespace
// around it (json.Valid).
func validJSON(s string) bool {
	end, ok := scanJSONValue(s, skipJSONSpace(s, 0))
	return ok && skipJSONSpace(s, end) == len(s)
}

func skipJSONSpace(s string, i int) int {
	for i < len(s) && isJSONSpace(s[i]) {
		i++
	}
	return i
}

// scanJSONString returns the end of the JSON string that starts at s[i] (a
// quote), and whether it holds an escape.
func scanJSONString(s string, i int) (end int, escaped, ok bool) {
	// Most strings hold no escape: the closing quote found at once (a
	// vector search), and the bytes before it checked eight at a time.
	if q := strings.IndexByte(s[i+1:], '"'); q >= 0 {
		body := s[i+1 : i+1+q]
		if strings.IndexByte(body, '\\') < 0 && !ascii.HasControl(body) {
			return i + 2 + q, false, true
		}
	}
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		if !jsonStringStop[c] {
			continue
		}
		switch c {
		case '"':
			return j + 1, escaped, true
		case '\\':
			escaped = true
			j++
			if j >= len(s) {
				return 0, false, false
			}
			switch s[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s) {
					return 0, false, false
				}
				for k := j + 1; k <= j+4; k++ {
					if !isHexDigit(s[k]) {
						return 0, false, false
					}
				}
				j += 4
			default:
				return 0, false, false
			}
		default:
			return 0, false, false // a control character
		}
	}
	return 0, false, false
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanJSONNumber returns the end of the JSON number that starts at s[i].
func scanJSONNumber(s string, i int) (int, bool) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i >= len(s):
		return 0, false
	case s[i] == '0':
		i++
	case '1' <= s[i] && s[i] <= '9':
		for i++; i < len(s) && isDigit(s[i]); i++ {
		}
	default:
		return 0, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return 0, false
		}
		for i++; i < len(s) && isDigit(s[i]); i++ {
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return 0, false
		}
		for i++; i < len(s) && isDigit(s[i]); i++ {
		}
	}
	return i, true
}

// scanJSONValue returns the end of the JSON value that starts at s[i] (no
// leading whitespace), validating it.
func scanJSONValue(s string, i int) (int, bool) {
	// The closers of the open containers, innermost last.
	var small [32]byte
	stack := small[:0]
	var ok bool
	for {
		// A value starts at i, after optional whitespace.
		i = skipJSONSpace(s, i)
		if i >= len(s) {
			return 0, false
		}
		switch c := s[i]; c {
		case '{', '[':
			if len(stack) >= jsonMaxDepth {
				return 0, false
			}
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			i = skipJSONSpace(s, i+1)
			if i < len(s) && s[i] == closer {
				i++
				break // empty
			}
			stack = append(stack, closer)
			if c == '[' {
				continue // the first element
			}
			if i, ok = scanJSONKey(s, i); !ok {
				return 0, false
			}
			continue // the first member's value
		case '"':
			if i, _, ok = scanJSONString(s, i); !ok {
				return 0, false
			}
		case 't':
			if !hasPrefixAt(s, i, "true") {
				return 0, false
			}
			i += 4
		case 'f':
			if !hasPrefixAt(s, i, "false") {
				return 0, false
			}
			i += 5
		case 'n':
			if !hasPrefixAt(s, i, "null") {
				return 0, false
			}
			i += 4
		default:
			if i, ok = scanJSONNumber(s, i); !ok {
				return 0, false
			}
		}
		// A value ended at i: close containers until another value is due.
		for {
			if len(stack) == 0 {
				return i, true
			}
			i = skipJSONSpace(s, i)
			if i >= len(s) {
				return 0, false
			}
			closer := stack[len(stack)-1]
			if s[i] == closer {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if s[i] != ',' {
				return 0, false
			}
			i++
			if closer == '}' {
				if i, ok = scanJSONKey(s, skipJSONSpace(s, i)); !ok {
					return 0, false
				}
			}
			break
		}
	}
}

// scanJSONKey scans an object member's key and its colon at s[i], returning
// where the value (or whitespace before it) starts.
func scanJSONKey(s string, i int) (int, bool) {
	if i >= len(s) || s[i] != '"' {
		return 0, false
	}
	i, _, ok := scanJSONString(s, i)
	if !ok {
		return 0, false
	}
	i = skipJSONSpace(s, i)
	if i >= len(s) || s[i] != ':' {
		return 0, false
	}
	return i + 1, true
}

func hasPrefixAt(s string, i int, p string) bool {
	return len(s)-i >= len(p) && s[i:i+len(p)] == p
}

// jsonMember is one member of a JSON object: its key as written (without
// the quotes, escapes undecoded) and its value's text.
type jsonMember struct {
	key, value   string
	keyEscaped   bool
	valueEscaped bool // the value is a string holding an escape
}

// eachJSONMember calls f with each member of the JSON object s (trimmed,
// already valid JSON), in order; it stops when f returns false.
func eachJSONMember(s string, f func(jsonMember) bool) {
	i := skipJSONSpace(s, 1)
	if i >= len(s) || s[i] == '}' {
		return
	}
	for {
		var m jsonMember
		kend, esc, _ := scanJSONString(s, i)
		m.key, m.keyEscaped = s[i+1:kend-1], esc
		i = skipJSONSpace(s, kend) + 1 // the colon
		i = skipJSONSpace(s, i)
		start := i
		if s[i] == '"' {
			i, m.valueEscaped, _ = scanJSONString(s, i)
		} else {
			i, _ = scanJSONValue(s, i)
		}
		m.value = s[start:i]
		if !f(m) {
			return
		}
		i = skipJSONSpace(s, i)
		if s[i] == '}' {
			return
		}
		i = skipJSONSpace(s, i+1) // after the comma
	}
}

// plainJSONString returns the text of a JSON string token that holds no
// escape and is valid UTF-8: what decoding it gives.
func plainJSONString(tok string, escaped bool) (string, bool) {
	if escaped || len(tok) < 2 || tok[0] != '"' {
		return "", false
	}
	text := tok[1 : len(tok)-1]
	if !utf8.ValidString(text) {
		return "", false // decoding would replace the invalid bytes
	}
	return text, true
}

// jsonArrayItems returns the texts of the elements of the JSON array s
// (trimmed), as json.Unmarshal into []json.RawMessage gives them; false
// when s is not a valid JSON array.
func jsonArrayItems(s string) ([]string, bool) {
	if s == "" || s[0] != '[' || !validJSON(s) {
		return nil, false
	}
	items := []string{}
	i := skipJSONSpace(s, 1)
	if s[i] == ']' {
		return items, true
	}
	for {
		end, _ := scanJSONValue(s, i)
		items = append(items, s[i:end])
		i = skipJSONSpace(s, end)
		if s[i] == ']' {
			return items, true
		}
		i = skipJSONSpace(s, i+1) // after the comma
	}
}
