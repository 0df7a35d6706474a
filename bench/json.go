package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"
)

// ParseValue decodes one JSON document (RFC 8259) into a Value, taking
// also the NaN, Infinity and -Infinity that Python's json.loads takes (a
// model's arguments that upstream decodes must decode here). It is a
// parser of its own because encoding/json's any loses what the checker
// needs (int against float, member order) and its token API is several
// times slower; strings with escapes are still unquoted by encoding/json.
func ParseValue(data []byte) (Value, error) {
	p := parser{data: data}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	if p.space(); p.pos != len(p.data) {
		return Value{}, p.errorf("data after the value")
	}
	return v, nil
}

// maxDepth bounds nesting, so that a hostile document cannot exhaust the stack.
const maxDepth = 256

type parser struct {
	data []byte
	pos  int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if p.pos >= len(p.data) {
		return Value{}, p.errorf("unexpected end")
	}
	switch c := p.data[p.pos]; {
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return Value{}, p.errorf("nested deeper than %d", maxDepth)
		}
		if c == '{' {
			return p.object(depth)
		}
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		return String(s), err
	case c == 't':
		return Bool(true), p.literal("true")
	case c == 'f':
		return Bool(false), p.literal("false")
	case c == 'n':
		return Null(), p.literal("null")
	case c == 'N':
		return Value{kind: KindFloat, f: math.NaN(), s: "NaN"}, p.literal("NaN")
	case c == 'I':
		return Value{kind: KindFloat, f: math.Inf(1), s: "Infinity"}, p.literal("Infinity")
	case c == '-' && p.pos+1 < len(p.data) && p.data[p.pos+1] == 'I':
		return Value{kind: KindFloat, f: math.Inf(-1), s: "-Infinity"}, p.literal("-Infinity")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return Value{}, p.errorf("unexpected %q", p.data[p.pos])
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.errorf("expected %s", word)
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int) (Value, error) {
	v := Value{kind: KindMap, mems: []Member{}}
	p.pos++ // {
	if p.space(); p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	for {
		if p.space(); p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Value{}, p.errorf("expected a member name")
		}
		key, err := p.string()
		if err != nil {
			return Value{}, err
		}
		if p.space(); p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return Value{}, p.errorf("expected ':'")
		}
		p.pos++
		p.space()
		item, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		// A repeated key keeps its first place and its last value, as a
		// Python dict built by json.loads does.
		if i := v.index(key); i >= 0 {
			v.mems[i].Value = item
		} else {
			v.mems = append(v.mems, Member{key, item})
		}
		if done, err := p.next('}'); done || err != nil {
			return v, err
		}
	}
}

func (p *parser) array(depth int) (Value, error) {
	v := Value{kind: KindList, items: []Value{}}
	p.pos++ // [
	if p.space(); p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		p.space()
		item, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		v.items = append(v.items, item)
		if done, err := p.next(']'); done || err != nil {
			return v, err
		}
	}
}

// next reads the ',' before another element or the closing bracket.
func (p *parser) next(closing byte) (bool, error) {
	p.space()
	if p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ',':
			p.pos++
			return false, nil
		case closing:
			p.pos++
			return true, nil
		}
	}
	return false, p.errorf("expected ',' or %q", closing)
}

// string reads a string: sliced from the input when it has no escapes and
// is valid UTF-8, else unquoted by encoding/json.
func (p *parser) string() (string, error) {
	start := p.pos
	plain := true
	for i := start + 1; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			p.pos = i + 1
			if body := p.data[start+1 : i]; plain && utf8.Valid(body) {
				return string(body), nil
			}
			var s string
			if err := json.Unmarshal(p.data[start:i+1], &s); err != nil {
				p.pos = start
				return "", p.errorf("%v", err)
			}
			return s, nil
		case c == '\\':
			plain = false
			i++
		case c < 0x20:
			p.pos = i
			return "", p.errorf("control character in a string")
		}
	}
	p.pos = len(p.data)
	return "", p.errorf("unterminated string")
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *parser) number() (Value, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case !p.digits():
		return Value{}, p.errorf("bad number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if !p.digits() {
			return Value{}, p.errorf("bad number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if !p.digits() {
			return Value{}, p.errorf("bad number")
		}
	}
	return numberValue(string(p.data[start:p.pos]))
}

func (p *parser) digits() bool {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}
