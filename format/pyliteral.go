package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Python literals and call lists, for the families that write tool calls in
// Python syntax (pythonic, lfm2, olmo3, Llama built-in tools) and for typing
// values that templates wrote with Python str() (Decision 7).
//
// Values decode to JSON-compatible Go values: string, json.Number, bool, nil,
// []any, and pyDict (an ordered object that encodes its keys in the order the
// model wrote them).

// pyDict is a Python dict (or JSON object) with its key order kept.
type pyDict []pyItem

// pyItem is one key and value of a pyDict.
type pyItem struct {
	Key   string
	Value any
}

// set adds or replaces a key, keeping its first position.
func (d *pyDict) set(key string, v any) {
	for i := range *d {
		if (*d)[i].Key == key {
			(*d)[i].Value = v
			return
		}
	}
	*d = append(*d, pyItem{key, v})
}

// MarshalJSON encodes the dict as a JSON object in key order.
func (d pyDict) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, it := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := pyJSON(it.Key)
		if err != nil {
			return nil, err
		}
		b.WriteString(k)
		b.WriteByte(':')
		v, err := pyJSON(it.Value)
		if err != nil {
			return nil, err
		}
		b.WriteString(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// pyJSON encodes a decoded value as JSON text, without HTML escaping (the
// model's '<' and '&' stay as written).
func pyJSON(v any) (string, error) {
	if b, ok := appendPyJSON(make([]byte, 0, 64), v, 0); ok {
		return unsafe.String(unsafe.SliceData(b), len(b)), nil // b is not written again
	}
	return pyJSONEncoded(v)
}

// pyJSONEncoded is pyJSON by encoding/json.
func pyJSONEncoded(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// appendPyJSON appends v as pyJSON encodes it, for the values it can write
// directly (ok): strings of printable ASCII without quote or backslash,
// valid numbers, booleans, null, and lists and dicts of those. Anything else
// (an escape to write, an error to report) is left to encoding/json.
func appendPyJSON(b []byte, v any, depth int) ([]byte, bool) {
	if depth > pyMaxDepth+1 {
		return b, false
	}
	switch v := v.(type) {
	case string:
		if !plainASCII(v) {
			return b, false
		}
		b = append(b, '"')
		b = append(b, v...)
		return append(b, '"'), true
	case json.Number:
		if end, ok := scanJSONNumber(string(v), 0); !ok || end != len(v) {
			return b, false
		}
		return append(b, v...), true
	case bool:
		if v {
			return append(b, "true"...), true
		}
		return append(b, "false"...), true
	case nil:
		return append(b, "null"...), true
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendPyJSON(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case pyDict:
		b = append(b, '{')
		for i, it := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendPyJSON(b, it.Key, depth+1); !ok {
				return b, false
			}
			b = append(b, ':')
			if b, ok = appendPyJSON(b, it.Value, depth+1); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// pyCall is one call of a Python-style call list.
type pyCall struct {
	Name string
	Args string // a JSON object, in keyword order
}

// errPyIncomplete says the text ended before the literal or call list did: a
// streaming caller waits for more.
var errPyIncomplete = errors.New("the Python text ends before the literal or call list is complete")

// parsePyLiteral decodes one Python literal (surrounding whitespace allowed):
// 'str' or "str" with escapes (also triple-quoted, r-prefixed and adjacent
// strings), ints, floats, True/False/None, true/false/null, lists, tuples,
// sets, and dicts. A text that ends early returns errPyIncomplete.
func parsePyLiteral(s string) (any, error) {
	p := &pyParser{s: s, final: true}
	p.space()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if !p.eof() {
		return nil, p.errorf("unexpected %s after the literal", p.found())
	}
	return v, nil
}

// parsePyCalls parses the call list at the start of s (after whitespace): a
// bracketed list `[f(a=1), g()]`, or bare calls `f(a=1)` separated by commas,
// semicolons or line breaks. It returns the calls and the length of s they
// take (up to the closing bracket, or the last call's closing parenthesis).
// Arguments must be keywords. A text that is a valid beginning of a call list
// but ends early returns errPyIncomplete; any other text returns an error.
// Bare calls followed by the start of what may be another call return the
// complete calls, their length and errPyIncomplete: at the end of the output
// the caller takes those calls and keeps the rest as text. Bare calls at the
// very end of s return no error, but a streaming caller without an end marker
// should wait while pyCallsSettled is false.
//
// With unescapedQuotes, a quote inside a one-line string ends it only where
// a delimiter or the end of s follows (pyBlock.unescapedQuotes).
func parsePyCalls(s string, unescapedQuotes bool) ([]pyCall, int, error) {
	p := &pyParser{s: s, unescapedQuotes: unescapedQuotes}
	p.space()
	if p.eof() {
		return nil, 0, errPyIncomplete
	}
	var calls []pyCall
	if p.peek() == '[' {
		p.i++
		for {
			p.space()
			if p.eof() {
				return nil, 0, errPyIncomplete
			}
			if p.peek() == ']' && len(calls) > 0 {
				p.i++
				return calls, p.i, nil
			}
			c, err := p.call()
			if err != nil {
				return nil, 0, err
			}
			calls = append(calls, c)
			p.space()
			if p.eof() {
				return nil, 0, errPyIncomplete
			}
			switch p.peek() {
			case ',':
				p.i++
			case ']':
				p.i++
				return calls, p.i, nil
			default:
				return nil, 0, p.errorf("expected ',' or ']' after a call, found %s", p.found())
			}
		}
	}
	for {
		c, err := p.call()
		if err != nil {
			return nil, 0, err
		}
		calls = append(calls, c)
		end := p.i
		// Another call may follow after a separator.
		for !p.eof() && strings.IndexByte(" \t\r\n,;", p.peek()) >= 0 {
			p.i++
		}
		if p.eof() || !isPyNameStart(p.peek()) {
			return calls, end, nil
		}
		save := p.i
		if _, err := p.call(); err != nil && err != errPyIncomplete {
			return calls, end, nil // what follows the last call is not a call
		} else if err == errPyIncomplete {
			return calls, end, err
		}
		p.i = save
	}
}

// pyParser is a recursive-descent parser over s.
type pyParser struct {
	s     string
	i     int
	depth int
	final bool // s is the whole text: a word or number at its end is complete
	// unescapedQuotes: a string's quote that no delimiter follows is text
	// (parsePyCalls).
	unescapedQuotes bool
}

// closesString reports whether the quote before s[j] ends its string when
// quotes may be left unescaped: what follows it, after spaces, is the end
// of s or a delimiter.
func (p *pyParser) closesString(j int) bool {
	for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t') {
		j++
	}
	return j == len(p.s) || strings.IndexByte(",)]}:", p.s[j]) >= 0
}

const pyMaxDepth = 200

func (p *pyParser) eof() bool  { return p.i >= len(p.s) }
func (p *pyParser) peek() byte { return p.s[p.i] }

// found describes the byte at p.i for an error message (only that byte: what
// follows may not have arrived yet, and messages must not depend on it).
func (p *pyParser) found() string {
	if p.eof() {
		return "the end"
	}
	if c := p.peek(); c < 0x80 {
		return strconv.QuoteRune(rune(c))
	}
	return "a non-ASCII character"
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("Python syntax at byte %d: "+format, append([]any{p.i}, args...)...)
}

// space skips whitespace.
func (p *pyParser) space() {
	for !p.eof() {
		switch c := p.peek(); {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			p.i++
		default:
			return
		}
	}
}

func isPyNameStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || c >= 0x80
}

func isPyNameChar(c byte) bool {
	return isPyNameStart(c) || ('0' <= c && c <= '9')
}

// name reads an identifier (any non-ASCII byte counts as a letter).
func (p *pyParser) name() string {
	start := p.i
	if p.eof() || !isPyNameStart(p.peek()) {
		return ""
	}
	for !p.eof() && isPyNameChar(p.peek()) {
		p.i++
	}
	return p.s[start:p.i]
}

// call parses `name(k=v, ...)`. The name may be dotted or contain '-'
// (tool names that are not Python identifiers).
func (p *pyParser) call() (pyCall, error) {
	p.space()
	if p.eof() {
		return pyCall{}, errPyIncomplete
	}
	start := p.i
	if !isPyNameStart(p.peek()) {
		return pyCall{}, p.errorf("expected a function name, found %s", p.found())
	}
	for !p.eof() && (isPyNameChar(p.peek()) || p.peek() == '.' || p.peek() == '-') {
		p.i++
	}
	name := p.s[start:p.i]
	p.space()
	if p.eof() {
		return pyCall{}, errPyIncomplete
	}
	if p.peek() != '(' {
		return pyCall{}, p.errorf("expected '(' after the function name %q", name)
	}
	p.i++
	var args pyDict
	for {
		p.space()
		if p.eof() {
			return pyCall{}, errPyIncomplete
		}
		if p.peek() == ')' {
			p.i++
			break
		}
		kw := p.name()
		if kw == "" {
			return pyCall{}, p.errorf("expected a keyword argument in the call to %q, found %s", name, p.found())
		}
		p.space()
		if p.eof() {
			return pyCall{}, errPyIncomplete
		}
		if p.peek() != '=' {
			return pyCall{}, p.errorf("expected '=' after the keyword %q in the call to %q", kw, name)
		}
		p.i++
		p.space()
		v, err := p.value()
		if err != nil {
			return pyCall{}, err
		}
		args.set(kw, v)
		p.space()
		if p.eof() {
			return pyCall{}, errPyIncomplete
		}
		switch p.peek() {
		case ',':
			p.i++
		case ')':
		default:
			return pyCall{}, p.errorf("expected ',' or ')' in the call to %q, found %s", name, p.found())
		}
	}
	if args == nil {
		return pyCall{Name: name, Args: "{}"}, nil
	}
	text, err := pyJSON(args)
	if err != nil {
		return pyCall{}, p.errorf("arguments of %q: %v", name, err)
	}
	return pyCall{Name: name, Args: text}, nil
}

// value parses one literal at p.i (no leading whitespace).
func (p *pyParser) value() (any, error) {
	if p.eof() {
		return nil, errPyIncomplete
	}
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > pyMaxDepth {
		return nil, p.errorf("literal nested too deeply")
	}
	c := p.peek()
	switch {
	case c == '\'' || c == '"':
		return p.strings()
	case c == '[':
		return p.sequence('[', ']')
	case c == '(':
		return p.sequence('(', ')')
	case c == '{':
		return p.dict()
	case c == '-' || c == '+' || c == '.' || ('0' <= c && c <= '9'):
		return p.number()
	case isPyNameStart(c):
		start := p.i
		word := p.name()
		if !p.eof() && (p.peek() == '\'' || p.peek() == '"') && isStringPrefix(word) {
			p.i = start
			return p.strings()
		}
		switch word {
		case "True", "true":
			return true, nil
		case "False", "false":
			return false, nil
		case "None", "null":
			return nil, nil
		}
		if p.eof() && (!p.final || (len(word) < 5 && (strings.HasPrefix("True", word) || strings.HasPrefix("true", word) ||
			strings.HasPrefix("False", word) || strings.HasPrefix("false", word) ||
			strings.HasPrefix("None", word) || strings.HasPrefix("null", word)))) {
			return nil, errPyIncomplete
		}
		p.i = start
		return nil, p.errorf("%q is not a literal", word)
	}
	return nil, p.errorf("unexpected %s where a value should be", p.found())
}

func isStringPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "br", "rb":
		return true
	}
	return false
}

// strings parses one string literal, or several adjacent ones (concatenated).
func (p *pyParser) strings() (any, error) {
	var b strings.Builder
	first, parts := "", 0 // a single literal is returned as it is
	joined := func() string {
		if parts == 1 {
			return first
		}
		return b.String()
	}
	for {
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		switch parts {
		case 0:
			first = s
		case 1:
			b.WriteString(first)
			fallthrough
		default:
			b.WriteString(s)
		}
		parts++
		save := p.i
		p.space()
		if p.eof() {
			p.i = save
			return joined(), nil
		}
		c := p.peek()
		if c == '\'' || c == '"' {
			continue
		}
		if isPyNameStart(c) {
			w := p.name()
			if isStringPrefix(w) && p.eof() && !p.final {
				return nil, errPyIncomplete // may be a prefixed string
			}
			if isStringPrefix(w) && !p.eof() && (p.peek() == '\'' || p.peek() == '"') {
				p.i -= len(w)
				continue
			}
		}
		p.i = save
		return joined(), nil
	}
}

// str parses one string literal with an optional r/u/b prefix.
func (p *pyParser) str() (string, error) {
	raw := false
	for !p.eof() && p.peek() != '\'' && p.peek() != '"' {
		if c := p.peek() | 0x20; c == 'r' {
			raw = true
		}
		p.i++
	}
	if p.eof() {
		return "", errPyIncomplete
	}
	q := p.peek()
	qqq := string([]byte{q, q, q})
	if !p.final && len(p.s)-p.i < 3 && strings.HasPrefix(qqq, p.s[p.i:]) {
		return "", errPyIncomplete // '' or a triple quote
	}
	triple := strings.HasPrefix(p.s[p.i:], qqq)
	if triple {
		p.i += 3
	} else {
		p.i++
		// Without an escape or a line break, the literal is the text up to
		// its quote, as the loop below would copy it.
		for j := p.i; j < len(p.s) && !p.unescapedQuotes; j++ {
			if c := p.s[j]; c == q {
				text := p.s[p.i:j]
				p.i = j + 1
				return text, nil
			} else if c == '\\' || c == '\n' || c == '\r' {
				break
			}
		}
	}
	var b strings.Builder
	for {
		if p.eof() {
			return "", errPyIncomplete
		}
		c := p.peek()
		switch {
		case c == q && !triple && p.unescapedQuotes && !p.closesString(p.i+1):
			b.WriteByte(c) // an apostrophe the template did not escape
			p.i++
		case c == q && !triple:
			p.i++
			return b.String(), nil
		case c == q && triple:
			if strings.HasPrefix(p.s[p.i:], string([]byte{q, q, q})) {
				p.i += 3
				return b.String(), nil
			}
			if len(p.s)-p.i < 3 && strings.HasPrefix(string([]byte{q, q, q}), p.s[p.i:]) {
				return "", errPyIncomplete
			}
			b.WriteByte(c)
			p.i++
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", errPyIncomplete
			}
			if raw {
				// A raw string keeps the backslash, and the quote after it.
				b.WriteString(p.s[p.i : p.i+2])
				p.i += 2
				continue
			}
			if err := p.escape(&b); err != nil {
				return "", err
			}
		case (c == '\n' || c == '\r') && !triple:
			// A string the model broke over lines: keep the line break.
			b.WriteByte(c)
			p.i++
		default:
			_, size := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteString(p.s[p.i : p.i+size])
			p.i += size
		}
	}
}

// escape decodes the escape sequence at p.i (a backslash) into b.
func (p *pyParser) escape(b *strings.Builder) error {
	e := p.s[p.i+1]
	p.i += 2
	simple := map[byte]string{
		'n': "\n", 't': "\t", 'r': "\r", '\\': "\\", '\'': "'", '"': "\"",
		'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '/': "/",
	}
	if s, ok := simple[e]; ok {
		b.WriteString(s)
		return nil
	}
	hexDigits := 0
	switch e {
	case '\n':
		return nil // line continuation
	case '\r':
		if !p.eof() && p.peek() == '\n' {
			p.i++
		}
		return nil
	case 'x':
		hexDigits = 2
	case 'u':
		hexDigits = 4
	case 'U':
		hexDigits = 8
	case '0', '1', '2', '3', '4', '5', '6', '7':
		start := p.i - 1
		for p.i < len(p.s) && p.i-start < 3 && '0' <= p.peek() && p.peek() <= '7' {
			p.i++
		}
		n, _ := strconv.ParseUint(p.s[start:p.i], 8, 32)
		b.WriteRune(rune(n))
		return nil
	default:
		// Python keeps an unknown escape as written.
		b.WriteByte('\\')
		p.i--
		return nil
	}
	if len(p.s)-p.i < hexDigits {
		if isHex(p.s[p.i:]) {
			return errPyIncomplete
		}
		return p.errorf("bad \\%c escape", e)
	}
	digits := p.s[p.i : p.i+hexDigits]
	if !isHex(digits) {
		return p.errorf("bad \\%c escape", e)
	}
	n, _ := strconv.ParseUint(digits, 16, 32)
	p.i += hexDigits
	r := rune(n)
	// A JSON-style surrogate pair (\ud83d\ude00) joins into one character.
	if e == 'u' && 0xD800 <= r && r < 0xDC00 && strings.HasPrefix(p.s[p.i:], `\u`) && len(p.s)-p.i >= 6 && isHex(p.s[p.i+2:p.i+6]) {
		lo, _ := strconv.ParseUint(p.s[p.i+2:p.i+6], 16, 32)
		if 0xDC00 <= lo && lo < 0xE000 {
			r = 0x10000 + (r-0xD800)<<10 + (rune(lo) - 0xDC00)
			p.i += 6
		}
	}
	if !utf8.ValidRune(r) {
		r = utf8.RuneError
	}
	b.WriteRune(r)
	return nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !('0' <= s[i] && s[i] <= '9') && !('a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// sequence parses a list, tuple or set body ending with close.
func (p *pyParser) sequence(open, close byte) (any, error) {
	p.i++ // open
	out := []any{}
	for {
		p.space()
		if p.eof() {
			return nil, errPyIncomplete
		}
		if p.peek() == close {
			p.i++
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.space()
		if p.eof() {
			return nil, errPyIncomplete
		}
		switch p.peek() {
		case ',':
			p.i++
		case close:
		default:
			return nil, p.errorf("expected ',' or %q, found %s", close, p.found())
		}
	}
}

// dict parses a dict (or a set, which becomes a list).
func (p *pyParser) dict() (any, error) {
	start := p.i
	p.i++ // {
	d := pyDict{}
	for {
		p.space()
		if p.eof() {
			return nil, errPyIncomplete
		}
		if p.peek() == '}' {
			p.i++
			return d, nil
		}
		k, err := p.value()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.eof() {
			return nil, errPyIncomplete
		}
		if p.peek() != ':' {
			if len(d) == 0 && (p.peek() == ',' || p.peek() == '}') {
				p.i = start
				return p.sequence('{', '}') // a set
			}
			return nil, p.errorf("expected ':' after a dict key, found %s", p.found())
		}
		p.i++
		p.space()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		key, err := pyKey(k)
		if err != nil {
			return nil, p.errorf("%v", err)
		}
		d.set(key, v)
		p.space()
		if p.eof() {
			return nil, errPyIncomplete
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
		default:
			return nil, p.errorf("expected ',' or '}' in a dict, found %s", p.found())
		}
	}
}

// pyKey turns a dict key into an object key as Python's json.dumps does.
func pyKey(k any) (string, error) {
	switch k := k.(type) {
	case string:
		return k, nil
	case json.Number:
		return string(k), nil
	case bool:
		return strconv.FormatBool(k), nil
	case nil:
		return "null", nil
	}
	return "", errors.New("a dict key must be a string, number, boolean or None")
}

// number parses an int or float (with sign, underscores, hex/octal/binary, or
// a leading or trailing '.') as a JSON number.
func (p *pyParser) number() (any, error) {
	start := p.i
	for !p.eof() {
		c := p.peek()
		if isPyNameChar(c) || c == '.' || ((c == '-' || c == '+') && (p.i == start || p.s[p.i-1]|0x20 == 'e')) {
			p.i++
			continue
		}
		break
	}
	text := p.s[start:p.i]
	if p.eof() && !p.final {
		return nil, errPyIncomplete
	}
	if p.eof() && (text == "-" || text == "+" || strings.HasSuffix(text, "e") || strings.HasSuffix(text, "E")) {
		return nil, errPyIncomplete
	}
	sign := ""
	body := text
	if body != "" && (body[0] == '-' || body[0] == '+') {
		if body[0] == '-' {
			sign = "-"
		}
		body = body[1:]
	}
	clean := strings.ReplaceAll(body, "_", "")
	if clean == "" {
		p.i = start
		return nil, p.errorf("unexpected %s where a value should be", p.found())
	}
	if pyDigits(clean) {
		digits := strings.TrimLeft(clean, "0")
		if digits == "" {
			return json.Number("0"), nil
		}
		return json.Number(sign + digits), nil // exact, also beyond int64
	}
	if len(clean) > 2 && clean[0] == '0' && strings.IndexByte("xXoObB", clean[1]) >= 0 {
		if n, err := strconv.ParseInt(sign+clean, 0, 64); err == nil {
			return json.Number(strconv.FormatInt(n, 10)), nil
		}
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || strings.ContainsAny(clean, "xXpP") {
		p.i = start
		return nil, p.errorf("%q is not a number", text)
	}
	if sign == "-" {
		f = -f
	}
	if json.Valid([]byte(sign + clean)) {
		return json.Number(sign + clean), nil
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

func pyDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// pyCallsSettled reports whether bare calls that parsePyCalls found ending at
// n in s are all there are: something other than a separator follows them.
// While only separators follow, a streaming caller waits (another call may
// come).
func pyCallsSettled(s string, n int) bool {
	return strings.TrimLeft(s[n:], " \t\r\n,;") != ""
}
