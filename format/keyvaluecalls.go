package format

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/dragoman-dev/dragoman/grammar"
)

// Gemma's key:value calls (gemma4, functiongemma),
// open call:NAME{key:value,...} close, strings between special quotes, keys
// bare: their parser, their response-template field and their grammar.

// keyValueCalls is the grammar of the calls; sorted: the templates sort the
// keys.
func keyValueCalls(open, close, quote string, sorted bool) CallSyntax {
	litCall, litBrace, closeSeq := lit(open+"call:"), lit("{"), seqOf(lit("}"+close))
	return CallSyntax{
		Triggers: []string{open},
		Call: func(b *Builder, i int) (string, error) {
			v := Value{Sep: litComma, Sorted: sorted, Nested: true}
			v.Encode = func(m grammar.Member) string { return gemmaValue(b, m, quote, v) }
			return b.paramsBetween(i, seqOf(litCall, b.Name(i), litBrace), closeSeq, v,
				keyValue(":"))
		},
	}
}

// gemmaValue is one argument in Gemma's key:value syntax: strings between
// quote markers, numbers and booleans bare, objects ({key:value,...}, keys
// bare, sorted where the arguments are) and arrays ([a,b]) in the same
// syntax, typed by the schema where it declares their properties or items
// (v says how the arguments are written), any such value otherwise.
func gemmaValue(b *Builder, m grammar.Member, quote string, v Value) string {
	str := b.Rule("gemma-string", func() string { return seqOf(lit(quote), b.G.TextWithout(quote), lit(quote)) })
	if len(m.Enum) > 0 {
		q := seqOf(lit(quote))                                  // parenthesised when it holds a '|'
		return q + " " + grammar.Alternatives(m.Enum) + " " + q // seqOf's, in one piece
	}
	switch m.Type {
	case "string", "":
		return str
	case "integer", "number":
		return m.Value
	case "boolean":
		return `("true" | "false")`
	case "null":
		return `"null"`
	case "object":
		if len(m.Properties) > 0 {
			body := b.arguments("", "", func() string { return "gemma-rest" }, m.Properties, v, keyValue(":"))
			return seqOf(litBrace, body, litBraceClose)
		}
	case "array":
		if m.Items != nil {
			item := gemmaValue(b, *m.Items, quote, v)
			return seqOf(litBracket, "("+seqOf(item, "("+seqOf(litComma, item)+")*")+")?", litBracketClose)
		}
	}
	return b.Rule("gemma-value", func() string {
		key := grammar.Repeat(grammar.Class(false, grammar.Range{Lo: 'a', Hi: 'z'}, grammar.Range{Lo: 'A', Hi: 'Z'}, grammar.Range{Lo: '0', Hi: '9'}, grammar.Range{Lo: '_', Hi: '_'}), 1, 64)
		num := plainNumber()
		self := "gemma-value"
		if name, ok := b.rules["gemma-value"]; ok {
			self = name
		}
		member := seqOf(key, lit(":"), self)
		return strings.Join([]string{str, "(" + num + ")", `"true"`, `"false"`, `"null"`,
			seqOf(lit("{"), "("+seqOf(member, "("+seqOf(lit(","), member)+")*")+")?", lit("}")),
			seqOf(lit("["), "("+seqOf(self, "("+seqOf(lit(","), self)+")*")+")?", lit("]"))}, " | ")
	})
}

// keyValueCallField reads one call in Gemma's key:value syntax
// (call:NAME{key:value,…}) between open and close, as JSON with bare keys
// and quote around strings.
func keyValueCallField(open, close, quote string) *ResponseField {
	return &ResponseField{
		OpenPattern: patternOf(open) + `call:(?P<name>[^{\s]+)`,
		Close:       []string{close},
		Content:     "json",
		ContentArgs: map[string]any{"unquoted_keys": true, "string_delims": [][]string{{quote, quote}}},
		Transform:   callTransform(),
	}
}

// keyValueSection parses one open…close call in Gemma's key:value syntax
// (gemma4, functiongemma): call:NAME{key:value,…}. The end marker may be
// missing at the end of the output when the body is complete. after is a
// marker that may follow the end marker and belongs to the section. With
// several, the block may hold more than one call:NAME{…} before its end
// marker (Gemma 4 models write that; mlx-lm reads it), each a call.
func keyValueSection(buf string, final bool, open, close, quote, after string, several bool) (int, []call, bool, error) {
	const next = "call:"
	rest := buf[len(open):]
	var calls []call
	for {
		m, name, args, err := parseKeyValueCall(rest, quote)
		switch {
		case err == errNeedMore && !final:
			return 0, nil, true, nil
		case err == errNeedMore:
			return 0, nil, false, errors.New("the " + open + " call is not closed and its body is incomplete")
		case err != nil:
			return 0, nil, false, errors.New("the " + open + " call is not valid: " + err.Error())
		}
		calls = append(calls, call{name: name, args: args})
		rest = strings.TrimLeft(rest[m:], " \t\r\n")
		if !several || !strings.HasPrefix(rest, next) {
			break
		}
	}
	n := len(buf) - len(rest)
	switch {
	case strings.HasPrefix(rest, close):
		n += len(close)
	case !final && (strings.HasPrefix(close, rest) || several && strings.HasPrefix(next, rest)):
		return 0, nil, true, nil
	case final && rest == "":
		// The end marker was consumed as a stop token.
	default:
		return 0, nil, false, errors.New("the " + open + " call is not followed by " + close)
	}
	if after != "" {
		tail := buf[n:]
		switch {
		case strings.HasPrefix(tail, after):
			n += len(after)
		case !final && strings.HasPrefix(after, tail):
			return 0, nil, true, nil
		}
	}
	return n, calls, false, nil
}

// parseKeyValueCall parses call:NAME{…} at the start of s (after whitespace)
// and returns how many bytes it takes, the name, and the arguments as JSON.
func parseKeyValueCall(s, quote string) (int, string, string, error) {
	const prefix = "call:"
	p := &kvParser{s: s, quote: quote}
	p.space()
	rest := s[p.i:]
	if len(rest) < len(prefix) {
		if strings.HasPrefix(prefix, rest) {
			return 0, "", "", errNeedMore
		}
		return 0, "", "", errors.New(`it does not start with "call:"`)
	}
	if !strings.HasPrefix(rest, prefix) {
		return 0, "", "", errors.New(`it does not start with "call:"`)
	}
	p.i += len(prefix)
	// The name runs to '{'; the first character that cannot be in a name
	// makes the call invalid (reported with the name up to it, so that the
	// message does not depend on how much output has arrived).
	j := p.i
	for ; j < len(s) && s[j] != '{'; j++ {
		if strings.IndexByte(" \t\r\n<>}[],:\"", s[j]) >= 0 {
			return 0, "", "", errors.New("the function name " + kvQuoteJSON(s[p.i:j+1]) + " is not valid")
		}
	}
	if j == len(s) {
		return 0, "", "", errNeedMore
	}
	name := s[p.i:j]
	if name == "" {
		return 0, "", "", errors.New("the function name is empty")
	}
	p.i = j
	p.dry = true
	if err := p.object(0); err != nil {
		return 0, "", "", err
	}
	// Complete: write the JSON.
	end := p.i
	p.i, p.dry, p.b = j, false, make([]byte, 0, 2*(end-j)+16)
	if err := p.object(0); err != nil {
		return 0, "", "", err
	}
	return p.i, name, unsafe.String(unsafe.SliceData(p.b), len(p.b)), nil // p.b is not written again
}

func kvQuoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// appendQuotedJSON appends s as json.Marshal writes it.
func appendQuotedJSON(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&':
			return append(b, kvQuoteJSON(s)...) // escapes: encoding/json writes them
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// kvParser turns Gemma's key:value syntax into JSON text, in the order written.
type kvParser struct {
	s     string
	i     int
	quote string // string delimiter: <|"|> (Gemma 4) or <escape> (FunctionGemma)
	// dry: only check the syntax (a first pass, which is all an incomplete
	// call gets); else write the JSON to b.
	dry bool
	b   []byte
}

func (p *kvParser) writeByte(c byte) {
	if !p.dry {
		p.b = append(p.b, c)
	}
}

func (p *kvParser) writeString(s string) {
	if !p.dry {
		p.b = append(p.b, s...)
	}
}

func (p *kvParser) writeQuoted(s string) {
	if !p.dry {
		p.b = appendQuotedJSON(p.b, s)
	}
}

const kvMaxDepth = 64

func (p *kvParser) space() {
	for p.i < len(p.s) && isJSONSpace(p.s[p.i]) {
		p.i++
	}
}

// object parses {key:value,…} at p.i.
func (p *kvParser) object(depth int) error {
	if depth > kvMaxDepth {
		return errors.New("the arguments are nested too deeply")
	}
	p.i++ // {
	p.writeByte('{')
	for first := true; ; first = false {
		p.space()
		if p.i == len(p.s) {
			return errNeedMore
		}
		if p.s[p.i] == '}' {
			p.i++
			p.writeByte('}')
			return nil
		}
		if !first {
			if p.s[p.i] != ',' {
				return errors.New("expected ',' or '}' at " + kvQuoteJSON(p.near()))
			}
			p.i++
			p.space()
			if p.i == len(p.s) {
				return errNeedMore
			}
			if p.s[p.i] == '}' { // trailing comma
				p.i++
				p.writeByte('}')
				return nil
			}
			p.writeByte(',')
		}
		key, err := p.key()
		if err != nil {
			return err
		}
		p.writeQuoted(key)
		p.writeByte(':')
		if err := p.value(depth); err != nil {
			return err
		}
	}
}

// key parses a key and its colon: bare, quoted, or a JSON string.
func (p *kvParser) key() (string, error) {
	var key string
	switch {
	case strings.HasPrefix(p.s[p.i:], p.quote) || strings.HasPrefix(p.s[p.i:], `"`):
		v, err := p.stringValue()
		if err != nil {
			return "", err
		}
		key = v
		p.space()
	case strings.HasPrefix(p.quote, p.s[p.i:]):
		return "", errNeedMore
	default:
		j := p.i
		for j < len(p.s) && !strings.ContainsRune(":,{}[]<", rune(p.s[j])) {
			j++
		}
		if j == len(p.s) {
			return "", errNeedMore
		}
		key = strings.TrimSpace(p.s[p.i:j])
		if key == "" {
			return "", errors.New("a key is missing at " + kvQuoteJSON(p.near()))
		}
		p.i = j
	}
	if p.i == len(p.s) {
		return "", errNeedMore
	}
	if p.s[p.i] != ':' {
		return "", errors.New("expected ':' after key " + kvQuoteJSON(key))
	}
	p.i++
	return key, nil
}

// stringValue parses a quoted string (kept literally) or a JSON string
// (decoded) at p.i.
func (p *kvParser) stringValue() (string, error) {
	if strings.HasPrefix(p.s[p.i:], p.quote) {
		start := p.i + len(p.quote)
		end := strings.Index(p.s[start:], p.quote)
		if end < 0 {
			return "", errNeedMore
		}
		p.i = start + end + len(p.quote)
		return p.s[start : start+end], nil
	}
	n, complete := jsonValueEnd(p.s[p.i:])
	if !complete {
		return "", errNeedMore
	}
	if end, escaped, ok := scanJSONString(p.s, p.i); ok && end == p.i+n {
		if v, plain := plainJSONString(p.s[p.i:end], escaped); plain {
			p.i = end
			return v, nil // what decoding gives
		}
	}
	var v string
	if err := json.Unmarshal([]byte(p.s[p.i:p.i+n]), &v); err != nil {
		return "", errors.New("a string is not valid JSON: " + err.Error())
	}
	p.i += n
	return v, nil
}

// value parses one value at p.i (after whitespace) and writes it as JSON.
func (p *kvParser) value(depth int) error {
	p.space()
	if p.i == len(p.s) {
		return errNeedMore
	}
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, p.quote) || rest[0] == '"':
		v, err := p.stringValue()
		if err != nil {
			return err
		}
		p.writeQuoted(v)
		return nil
	case strings.HasPrefix(p.quote, rest):
		return errNeedMore
	case rest[0] == '{':
		return p.object(depth + 1)
	case rest[0] == '[':
		return p.array(depth + 1)
	}
	// A bare value: a number, true, false or null, or else text.
	j := p.i
	for j < len(p.s) && !strings.ContainsRune(",}]", rune(p.s[j])) && !strings.HasPrefix(p.s[j:], "<") {
		j++
	}
	if j == len(p.s) {
		return errNeedMore
	}
	raw := strings.TrimSpace(p.s[p.i:j])
	if raw == "" {
		return errors.New("a value is missing at " + kvQuoteJSON(p.near()))
	}
	p.i = j
	if kvIsScalar(raw) {
		p.writeString(raw)
	} else {
		p.writeQuoted(raw)
	}
	return nil
}

// array parses [value,…] at p.i.
func (p *kvParser) array(depth int) error {
	if depth > kvMaxDepth {
		return errors.New("the arguments are nested too deeply")
	}
	p.i++ // [
	p.writeByte('[')
	for first := true; ; first = false {
		p.space()
		if p.i == len(p.s) {
			return errNeedMore
		}
		if p.s[p.i] == ']' {
			p.i++
			p.writeByte(']')
			return nil
		}
		if !first {
			if p.s[p.i] != ',' {
				return errors.New("expected ',' or ']' at " + kvQuoteJSON(p.near()))
			}
			p.i++
			p.space()
			if p.i == len(p.s) {
				return errNeedMore
			}
			if p.s[p.i] == ']' {
				p.i++
				p.writeByte(']')
				return nil
			}
			p.writeByte(',')
		}
		if err := p.value(depth); err != nil {
			return err
		}
	}
}

// near is the character at p.i, for error messages (only what has arrived
// for certain, so that messages do not depend on chunking).
func (p *kvParser) near() string {
	_, n := utf8.DecodeRuneInString(p.s[p.i:])
	return p.s[p.i : p.i+n]
}

// kvIsScalar reports whether s is a JSON number, true, false or null.
func kvIsScalar(s string) bool {
	switch s {
	case "true", "false", "null":
		return true
	}
	if s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return false
	}
	return json.Valid([]byte(s))
}
