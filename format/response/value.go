package response

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// A parsed value is one of: nil, bool, string, Number, *Object, []any.
// Objects keep the order their keys were first written in, so arguments come
// out in the model's order; numbers keep their text, so large integers stay
// exact and 1.0 stays a float, as Python's json module reads them.

// Number is a JSON number as written (or as produced by a cast).
type Number struct {
	// Lit is the number's text: a JSON number, or NaN, Infinity, -Infinity.
	Lit string
	// Float is true when Python would give a float (a fraction, an exponent,
	// or a non-finite literal), false for an integer.
	Float bool
}

// IntNumber makes an integer Number from an exact integer.
func IntNumber(i *big.Int) Number { return Number{Lit: i.String()} }

// Finite reports whether the number can be written as strict JSON.
func (n Number) Finite() bool {
	if !n.Float {
		return true
	}
	f, err := strconv.ParseFloat(n.Lit, 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// MarshalJSON writes the literal; a non-finite number, which strict JSON
// cannot carry, is written as null (the parser reports it with a diagnostic).
func (n Number) MarshalJSON() ([]byte, error) {
	if !n.Finite() {
		return []byte("null"), nil
	}
	return []byte(n.Lit), nil
}

// Object is a JSON object that keeps its keys' order. A repeated key keeps
// its first position and its last value, as a Python dict does. Small
// objects (all of a tool call's) are searched in place; a map indexes large
// ones.
type Object struct {
	Keys  []string
	vals  []any
	index map[string]int
	// the first keys and values live in the object (one allocation)
	kbuf [objectInline]string
	vbuf [objectInline]any
}

const objectInline = 4

const objectIndexAt = 12

// NewObject returns an empty object.
func NewObject() *Object { return &Object{} }

func (o *Object) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.Keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Set stores key → v.
func (o *Object) Set(key string, v any) {
	if i := o.find(key); i >= 0 {
		o.vals[i] = v
		return
	}
	if o.Keys == nil {
		o.Keys, o.vals = o.kbuf[:0], o.vbuf[:0]
	}
	o.Keys = append(o.Keys, key)
	o.vals = append(o.vals, v)
	if o.index != nil {
		o.index[key] = len(o.Keys) - 1
	} else if len(o.Keys) > objectIndexAt {
		o.index = make(map[string]int, len(o.Keys))
		for i, k := range o.Keys {
			o.index[k] = i
		}
	}
}

// Get returns the value of key.
func (o *Object) Get(key string) (any, bool) {
	if i := o.find(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Val returns the value of key, nil when absent.
func (o *Object) Val(key string) any {
	v, _ := o.Get(key)
	return v
}

// Delete removes key. It never writes into the old arrays: a transform's
// output shares its keys with the template.
func (o *Object) Delete(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.Keys = append(o.Keys[:i:i], o.Keys[i+1:]...)
	o.vals = append(o.vals[:i:i], o.vals[i+1:]...)
	if o.index != nil {
		o.index = make(map[string]int, len(o.Keys))
		for j, k := range o.Keys {
			o.index[k] = j
		}
	}
}

// Len is the number of keys.
func (o *Object) Len() int { return len(o.Keys) }

// MarshalJSON writes the object in key order.
func (o *Object) MarshalJSON() ([]byte, error) { return appendValue(nil, o), nil }

// typeName names a value's type as Python would (for error messages).
func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case Number:
		if v.Float {
			return "float"
		}
		return "int"
	case *Object:
		return "dict"
	case []any:
		return "list"
	}
	return fmt.Sprintf("%T", v)
}

// ParseJSON reads text as Python's json.loads does: JSON whitespace around the
// value, nothing after it, the literals NaN, Infinity and -Infinity accepted,
// duplicate keys keeping the last value, control characters refused in strings.
func ParseJSON(text string) (any, error) {
	p := jsonParser{s: text}
	p.ws()
	if p.i >= len(p.s) {
		return nil, &jsonError{"Expecting value", 0}
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, &jsonError{"Extra data", p.i}
	}
	return v, nil
}

type jsonParser struct {
	s string
	i int
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// jsonError is formatted only when read: allow_non_json fails often.
type jsonError struct {
	what string
	at   int
}

func (e *jsonError) Error() string { return fmt.Sprintf("%s at char %d", e.what, e.at) }

func (p *jsonParser) errf(what string) error { return &jsonError{what, p.i} }

const maxDepth = 1000

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, p.errf("nesting too deep")
	}
	if p.i >= len(p.s) {
		return nil, p.errf("Expecting value")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		obj := NewObject()
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return obj, nil
		}
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return nil, p.errf("Expecting property name enclosed in double quotes")
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.errf("Expecting ':' delimiter")
			}
			p.i++
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			obj.Set(k, v)
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return obj, nil
			}
			return nil, p.errf("Expecting ',' delimiter")
		}
	case c == '[':
		p.i++
		arr := []any{}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return arr, nil
		}
		for {
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				return arr, nil
			}
			return nil, p.errf("Expecting ',' delimiter")
		}
	case c == '"':
		return p.str()
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return false, nil
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return nil, nil
	case strings.HasPrefix(p.s[p.i:], "NaN"):
		p.i += 3
		return Number{Lit: "NaN", Float: true}, nil
	case strings.HasPrefix(p.s[p.i:], "Infinity"):
		p.i += 8
		return Number{Lit: "Infinity", Float: true}, nil
	case strings.HasPrefix(p.s[p.i:], "-Infinity"):
		p.i += 9
		return Number{Lit: "-Infinity", Float: true}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.errf("Expecting value")
}

// number reads JSON's number grammar (Python's NUMBER_RE).
func (p *jsonParser) number() (any, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		p.i = start
		return nil, p.errf("Expecting value")
	}
	isFloat := false
	if p.i+1 < len(p.s) && p.s[p.i] == '.' && p.s[p.i+1] >= '0' && p.s[p.i+1] <= '9' {
		p.i++
		digits()
		isFloat = true
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		save := p.i
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.i = save
		} else {
			isFloat = true
		}
	}
	return Number{Lit: p.s[start:p.i], Float: isFloat}, nil
}

func (p *jsonParser) str() (string, error) {
	p.i++ // opening quote
	// the common case: no escape, no control character — a view of the text
	for j := p.i; j < len(p.s); j++ {
		c := p.s[j]
		if c == '"' {
			s := p.s[p.i:j]
			if utf8.ValidString(s) {
				p.i = j + 1
				return s, nil
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", p.errf("Unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errf("Unterminated string")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.errf("Invalid \\uXXXX escape")
				}
				if r >= 0xD800 && r < 0xDC00 && strings.HasPrefix(p.s[p.i:], `\u`) {
					save := p.i
					p.i += 2
					if r2, ok := p.hex4(); ok && r2 >= 0xDC00 && r2 < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
					} else {
						p.i = save
					}
				}
				// A lone surrogate cannot be held in Go's UTF-8 strings; it
				// becomes U+FFFD.
				b.WriteRune(r)
			default:
				return "", p.errf("Invalid \\escape")
			}
		case c < 0x20:
			return "", p.errf("Invalid control character")
		default:
			r, w := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r)
			p.i += w
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// encodeValue serialises a parsed value as JSON text (keys in order, no
// HTML escaping, non-finite numbers as null).
func encodeValue(v any) string {
	b := appendValue(make([]byte, 0, 64), v)
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
}

// marshal is encodeValue for the parsed value types, json.Marshal otherwise.
func marshal(v any) ([]byte, error) { return appendValue(nil, v), nil }

func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case string:
		return appendString(b, v)
	case Number:
		if !v.Finite() {
			return append(b, "null"...)
		}
		return append(b, v.Lit...)
	case *Object:
		b = append(b, '{')
		for i, k := range v.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendValue(b, v.vals[i])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, enc...)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string; invalid UTF-8 becomes U+FFFD, as
// encoding/json does.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += w
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// hasNonFinite reports whether v holds NaN or an infinity.
func hasNonFinite(v any) bool {
	switch v := v.(type) {
	case Number:
		return !v.Finite()
	case *Object:
		for _, e := range v.vals {
			if hasNonFinite(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasNonFinite(e) {
				return true
			}
		}
	}
	return false
}

func decodeRune(s string) (rune, int) { return utf8.DecodeRuneInString(s) }
