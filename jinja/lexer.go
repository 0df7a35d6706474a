package jinja

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokenKind classifies a token.
type tokenKind int

const (
	tokEOF tokenKind = iota
	tokData
	tokVarBegin   // {{
	tokVarEnd     // }}
	tokBlockBegin // {%
	tokBlockEnd   // %}
	tokName
	tokString
	tokInt
	tokFloat
	tokOp
)

type token struct {
	kind tokenKind
	val  string // data text, name, decoded string, operator, number text
	line int
}

// lexer turns template source into tokens the way Jinja2's lexer does with
// transformers' settings: trim_blocks (drop the first newline after a block or
// comment tag), lstrip_blocks (drop spaces and tabs before a block or comment tag
// that starts a line), '-' and '+' whitespace control, and no trailing newline kept.
type lexer struct {
	src  string
	pos  int
	line int
	toks []token
}

// normalizeSource does what Jinja2 does to a template before lexing: it splits the
// source into lines as Python's str.splitlines does (which also breaks on \v, \f,
// \x1c-\x1e, \x85, U+2028 and U+2029) and joins them with "\n", dropping one
// trailing line break (keep_trailing_newline is off).
func normalizeSource(src string) string {
	var b strings.Builder
	b.Grow(len(src))
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRuneInString(src[i:])
		switch r {
		case '\r':
			b.WriteByte('\n')
			if i+1 < len(src) && src[i+1] == '\n' {
				size = 2
			}
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			b.WriteByte('\n')
		default:
			b.WriteString(src[i : i+size])
		}
		i += size
	}
	out := b.String()
	return strings.TrimSuffix(out, "\n")
}

// lexSpace is Python's str.isspace for one character, which \s and str.strip use.
func lexSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x1f, 0x85:
		return true
	}
	return r > 0x7f && unicode.IsSpace(r)
}

func tokenize(source string) ([]token, error) {
	lx := &lexer{src: normalizeSource(source), line: 1}
	if err := lx.run(); err != nil {
		return nil, err
	}
	return lx.toks, nil
}

func (lx *lexer) emit(kind tokenKind, val string, line int) {
	lx.toks = append(lx.toks, token{kind: kind, val: val, line: line})
}

// run lexes the whole source.
func (lx *lexer) run() error {
	lineStarting := true
	for lx.pos < len(lx.src) {
		start := lx.findTagStart(lx.pos)
		text := lx.src[lx.pos:start]
		if start >= len(lx.src) {
			lx.emitData(text)
			break
		}
		open := lx.src[start : start+2]
		sign := byte(0)
		if start+2 < len(lx.src) && (lx.src[start+2] == '-' || lx.src[start+2] == '+') {
			sign = lx.src[start+2]
		}
		switch {
		case sign == '-':
			text = strings.TrimRightFunc(text, lexSpace)
		case sign != '+' && open != "{{":
			// lstrip_blocks: a block or comment tag alone at the start of a line
			// takes the spaces before it.
			lpos := strings.LastIndexByte(text, '\n') + 1
			if lpos > 0 || lineStarting {
				rest := text[lpos:]
				if rest != "" && strings.TrimLeftFunc(rest, lexSpace) == "" {
					text = text[:lpos]
				}
			}
		}
		lx.emitData(text)
		lx.advance(start + 2)
		if sign != 0 {
			lx.pos++
		}
		var err error
		switch open {
		case "{#":
			err = lx.comment()
		case "{{":
			lx.emit(tokVarBegin, "", lx.line)
			err = lx.inside("}}")
		case "{%":
			if lx.rawBegins() {
				err = lx.raw()
			} else {
				lx.emit(tokBlockBegin, "", lx.line)
				err = lx.inside("%}")
			}
		}
		if err != nil {
			return err
		}
		lineStarting = lx.pos > 0 && lx.src[lx.pos-1] == '\n'
	}
	lx.emit(tokEOF, "", lx.line)
	return nil
}

// findTagStart returns the offset of the next "{{", "{%" or "{#" at or after
// from, or len(src).
func (lx *lexer) findTagStart(from int) int {
	for i := from; ; {
		j := strings.IndexByte(lx.src[i:], '{')
		if j < 0 || i+j+1 >= len(lx.src) {
			return len(lx.src)
		}
		i += j
		switch lx.src[i+1] {
		case '{', '%', '#':
			return i
		}
		i++
	}
}

func (lx *lexer) emitData(text string) {
	if text != "" {
		lx.emit(tokData, text, lx.line)
		lx.line += strings.Count(text, "\n")
	}
}

// advance moves to offset to, counting lines passed.
func (lx *lexer) advance(to int) {
	lx.line += strings.Count(lx.src[lx.pos:to], "\n")
	lx.pos = to
}

// tagEnd consumes the end of a block or comment tag at lx.pos ("%}" or "#}"
// with its sign), applying '-' (strip all following whitespace) or trim_blocks.
func (lx *lexer) tagEnd(minus bool, plus bool, endLen int) {
	lx.advance(lx.pos + endLen)
	switch {
	case minus:
		end := lx.pos
		for end < len(lx.src) {
			r, size := utf8.DecodeRuneInString(lx.src[end:])
			if !lexSpace(r) {
				break
			}
			end += size
		}
		lx.advance(end)
	case !plus && lx.pos < len(lx.src) && lx.src[lx.pos] == '\n':
		lx.advance(lx.pos + 1)
	}
}

func (lx *lexer) comment() error {
	line := lx.line
	i := strings.Index(lx.src[lx.pos:], "#}")
	if i < 0 {
		return syntaxError(line, "Missing end of comment tag")
	}
	end := lx.pos + i
	minus := end > lx.pos && lx.src[end-1] == '-'
	plus := end > lx.pos && lx.src[end-1] == '+'
	lx.advance(end)
	lx.tagEnd(minus, plus, 2)
	return nil
}

// rawBegins reports whether the block tag at lx.pos is {% raw %}.
func (lx *lexer) rawBegins() bool {
	rest := strings.TrimLeftFunc(lx.src[lx.pos:], lexSpace)
	if !strings.HasPrefix(rest, "raw") {
		return false
	}
	rest = strings.TrimLeftFunc(rest[3:], lexSpace)
	// Jinja2's raw_begin rule takes "-%}" and "%}" only; "{% raw +%}" is an
	// unknown tag named raw.
	return strings.HasPrefix(rest, "%}") || strings.HasPrefix(rest, "-%}")
}

// raw emits the body of {% raw %}...{% endraw %} as data.
func (lx *lexer) raw() error {
	line := lx.line
	i := strings.Index(lx.src[lx.pos:], "%}")
	minus := lx.src[lx.pos+i-1] == '-'
	lx.advance(lx.pos + i)
	// The raw opening tag takes '-' but not trim_blocks (Jinja2's raw_begin rule).
	lx.tagEnd(minus, true, 2)
	for search := lx.pos; ; {
		j := strings.Index(lx.src[search:], "{%")
		if j < 0 {
			return syntaxError(line, "Missing end of raw directive")
		}
		at := search + j
		k := at + 2
		sign := byte(0)
		if k < len(lx.src) && (lx.src[k] == '-' || lx.src[k] == '+') {
			sign = lx.src[k]
			k++
		}
		rest := strings.TrimLeftFunc(lx.src[k:], lexSpace)
		if !strings.HasPrefix(rest, "endraw") {
			search = at + 2
			continue
		}
		rest = strings.TrimLeftFunc(rest[6:], lexSpace)
		endMinus := strings.HasPrefix(rest, "-%}")
		endPlus := strings.HasPrefix(rest, "+%}")
		if !endMinus && !endPlus && !strings.HasPrefix(rest, "%}") {
			search = at + 2
			continue
		}
		body := lx.src[lx.pos:at]
		if sign == '-' {
			body = strings.TrimRightFunc(body, lexSpace)
		} else if sign != '+' {
			lpos := strings.LastIndexByte(body, '\n') + 1
			if rb := body[lpos:]; rb != "" && strings.TrimLeftFunc(rb, lexSpace) == "" {
				body = body[:lpos]
			}
		}
		lx.emitData(body)
		endAt := len(lx.src) - len(rest)
		if endMinus || endPlus {
			endAt++
		}
		lx.line += strings.Count(lx.src[lx.pos:endAt], "\n") - strings.Count(body, "\n")
		lx.pos = endAt
		lx.tagEnd(endMinus, endPlus, 2)
		return nil
	}
}

// operators, longest first so that "//" wins over "/".
var operators = []string{"//", "**", "==", "!=", "<=", ">=",
	"+", "-", "/", "*", "%", "~", "[", "]", "(", ")", "{", "}", "<", ">", "=", ".", ":", "|", ",", ";"}

// inside lexes the expression tokens of a {{ }} or {% %} tag up to its end.
func (lx *lexer) inside(end string) error {
	startLine := lx.line
	depth := 0 // open brackets: an end marker inside brackets is not the end
	for {
		// skip whitespace
		for lx.pos < len(lx.src) {
			r, size := utf8.DecodeRuneInString(lx.src[lx.pos:])
			if !lexSpace(r) {
				break
			}
			if r == '\n' {
				lx.line++
			}
			lx.pos += size
		}
		if lx.pos >= len(lx.src) {
			if end == "}}" {
				return syntaxError(startLine, "unexpected end of template, expected 'end of print statement'.")
			}
			return syntaxError(startLine, "unexpected end of template, expected 'end of statement block'.")
		}
		rest := lx.src[lx.pos:]
		if depth == 0 {
			signed := len(rest) > 2 && (rest[0] == '-' || (rest[0] == '+' && end == "%}")) && strings.HasPrefix(rest[1:], end)
			if signed || strings.HasPrefix(rest, end) {
				minus := signed && rest[0] == '-'
				plus := signed && rest[0] == '+'
				if minus || plus {
					lx.pos++
				}
				if end == "}}" {
					lx.emit(tokVarEnd, "", lx.line)
					// trim_blocks does not apply to variable tags; '-' does.
					lx.tagEnd(minus, true, 2)
				} else {
					lx.emit(tokBlockEnd, "", lx.line)
					lx.tagEnd(minus, plus, 2)
				}
				return nil
			}
		}
		c := rest[0]
		switch {
		case c == '\'' || c == '"':
			s, n, err := lexString(rest, lx.line)
			if err != nil {
				return err
			}
			lx.emit(tokString, s, lx.line)
			lx.advance(lx.pos + n)
		case c >= '0' && c <= '9':
			kind, n := lexNumber(rest)
			lx.emit(kind, strings.ReplaceAll(rest[:n], "_", ""), lx.line)
			lx.pos += n
		case isNameStart(rest):
			n := nameLen(rest)
			lx.emit(tokName, rest[:n], lx.line)
			lx.pos += n
		default:
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(rest, o) {
					op = o
					break
				}
			}
			if op == "" {
				r, _ := utf8.DecodeRuneInString(rest)
				return syntaxError(lx.line, "unexpected char %s at %d", repr(string(r)), lx.pos)
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					return syntaxError(lx.line, "unexpected '%s'", op)
				}
				depth--
			}
			lx.emit(tokOp, op, lx.line)
			lx.pos += len(op)
		}
	}
}

func isNameStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

func nameLen(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)) {
			break
		}
		n += size
	}
	return n
}

// lexNumber reads an integer or float literal as Jinja2 does (underscores allowed
// between digits, 0b/0o/0x prefixes, exponents).
func lexNumber(s string) (tokenKind, int) {
	if len(s) > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'o' || s[1] == 'x') {
		n := 2
		for n < len(s) && (isHexDigit(s[n]) || s[n] == '_') {
			n++
		}
		return tokInt, n
	}
	digits := func(i int) int {
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || (s[i] == '_' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9')) {
			i++
		}
		return i
	}
	n := digits(0)
	kind := tokInt
	if n+1 < len(s) && s[n] == '.' && s[n+1] >= '0' && s[n+1] <= '9' {
		n = digits(n + 1)
		kind = tokFloat
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if m < len(s) && s[m] >= '0' && s[m] <= '9' {
			n = digits(m)
			kind = tokFloat
		}
	}
	return kind, n
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// lexString reads a quoted string literal at the start of s and decodes its
// escapes as Python's "unicode-escape" codec does, which is what Jinja2 applies.
// It returns the decoded text and the number of source bytes consumed.
func lexString(s string, line int) (string, int, error) {
	q := s[0]
	i := 1
	for i < len(s) && s[i] != q {
		if s[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(s) {
		return "", 0, syntaxError(line, "unexpected char %s at 0", repr(string(q)))
	}
	body := s[1:i]
	if strings.IndexByte(body, '\\') < 0 {
		return body, i + 1, nil
	}
	return unescapePython(body), i + 1, nil
}

// unescapePython decodes backslash escapes as Python's unicode-escape codec:
// unknown escapes are kept as they are.
func unescapePython(body string) string {
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' || i+1 >= len(body) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := body[i]; e {
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'a':
			b.WriteByte('\a')
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
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+1+n <= len(body) {
				if v, err := strconv.ParseUint(body[i+1:i+1+n], 16, 32); err == nil {
					b.WriteRune(rune(v))
					i += n
					continue
				}
			}
			b.WriteByte('\\')
			b.WriteByte(e)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(body) && j < i+3 && body[j] >= '0' && body[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(body[i:j], 8, 32)
			b.WriteRune(rune(v))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}
