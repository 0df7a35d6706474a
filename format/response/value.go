package response

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
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
// its first position and its last value, as a Python dict does.
type Object struct {
	Keys []string
	Vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{Vals: map[string]any{}} }

// Set stores key → v.
func (o *Object) Set(key string, v any) {
	if _, ok := o.Vals[key]; !ok {
		o.Keys = append(o.Keys, key)
	}
	o.Vals[key] = v
}

// Get returns the value of key.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.Vals[key]
	return v, ok
}

// Delete removes key.
func (o *Object) Delete(key string) {
	if _, ok := o.Vals[key]; !ok {
		return
	}
	delete(o.Vals, key)
	for i, k := range o.Keys {
		if k == key {
			o.Keys = append(o.Keys[:i:i], o.Keys[i+1:]...)
			break
		}
	}
}

// Len is the number of keys.
func (o *Object) Len() int { return len(o.Keys) }

// MarshalJSON writes the object in key order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshal(o.Vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

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
		return nil, errors.New("Expecting value: line 1 column 1 (char 0)")
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("Extra data at char %d", p.i)
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

func (p *jsonParser) errf(what string) error {
	return fmt.Errorf("%s at char %d", what, p.i)
}

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

// encodeValue serialises a parsed value as JSON text (keys in order).
func encodeValue(v any) string {
	b, err := marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// marshal is json.Marshal without HTML escaping: markup stays readable.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// hasNonFinite reports whether v holds NaN or an infinity.
func hasNonFinite(v any) bool {
	switch v := v.(type) {
	case Number:
		return !v.Finite()
	case *Object:
		for _, k := range v.Keys {
			if hasNonFinite(v.Vals[k]) {
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
