package grammar

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The syntax tree of a GBNF expression. Parse builds it; compile resolves rule names to indices and
// computes what the recogniser needs.
type opKind uint8

const (
	opLit   opKind = iota // a string literal: runes
	opClass               // a character class: ranges, neg
	opAny                 // "."
	opRef                 // a rule name: name, then ref
	opSeq                 // kids in order
	opAlt                 // one of kids
	opRep                 // kid repeated min..max times (max < 0: no maximum)
)

type node struct {
	op     opKind
	runes  []rune
	ranges []Range
	neg    bool
	name   string
	ref    int
	kids   []*node
	min    int
	max    int

	nullable   bool  // matches the empty string
	productive bool  // matches some string
	height     int32 // levels of the tree from this node down (Parse's bound)
	// setFlags' working state: the node this one is an item of (nil at a rule's root), and for a
	// sequence the items not yet nullable and not yet productive.
	up   *node
	wait [2]int32
}

// SyntaxError is a GBNF syntax error: what was expected and where (1-based line and column, in bytes).
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("gbnf: line %d col %d: %s", e.Line, e.Col, e.Msg)
}

// Parse reads GBNF text: rules "name ::= alternatives", one a line (a rule continues on the next line only
// inside parentheses or after "|"), # comments, literals "..." and character classes [...] with the escapes
// \n \r \t \\ \" \[ \] \- \xHH \uHHHH \UHHHHHHHH, ".", groups, alternation and the repetitions ? * + {m}
// {m,} {m,n}. A rule defined twice or a reference to an undefined rule is an error, as in llama.cpp; a
// missing root or left recursion is reported by Check.
func Parse(text string) (*Grammar, error) {
	p := &parser{src: text}
	g := New()
	for {
		p.space(true)
		if p.pos >= len(p.src) {
			break
		}
		start := p.pos
		name := p.name()
		if name == "" {
			return nil, p.errf("expected a rule name")
		}
		p.space(false)
		if !p.consume("::=") {
			return nil, p.errf("expected ::= after %q", name)
		}
		p.space(true)
		ast, err := p.alternates(false)
		if err != nil {
			return nil, err
		}
		p.space(false)
		if p.pos < len(p.src) && p.src[p.pos] != '\n' && p.src[p.pos] != '\r' {
			return nil, p.errf("expected the end of the line")
		}
		if g.Has(name) {
			p.pos = start
			return nil, p.errf("rule %q defined twice", name)
		}
		g.index[name] = len(g.rules)
		g.rules = append(g.rules, ruleDef{name: name, expr: string(appendExpr(nil, ast, false)), ast: ast})
	}
	for _, r := range g.rules {
		if n := undefinedRef(g, r.ast); n != "" {
			return nil, fmt.Errorf("gbnf: rule %q refers to undefined rule %q", r.name, n)
		}
	}
	return g, nil
}

func undefinedRef(g *Grammar, n *node) string {
	if n.op == opRef && !g.Has(n.name) {
		return n.name
	}
	for _, k := range n.kids {
		if s := undefinedRef(g, k); s != "" {
			return s
		}
	}
	return ""
}

// parseExpr parses one rule's expression text (as Rule stores it).
func parseExpr(text string) (*node, error) {
	p := &parser{src: text}
	p.space(true)
	n, err := p.alternates(true)
	if err != nil {
		return nil, err
	}
	p.space(true)
	if p.pos < len(p.src) {
		return nil, p.errf("unexpected %q", p.src[p.pos:min(len(p.src), p.pos+10)])
	}
	return n, nil
}

type parser struct {
	src  string
	pos  int
	nest int // groups open around pos
}

// maxNesting bounds how deeply an expression nests, in groups and in syntax-tree levels (a repetition
// of a repetition is one level more): Parse and the passes over its trees recurse that deep, and
// llama.cpp's parser as well. Generated grammars nest a few levels.
const maxNesting = 1000

// nested returns n with its height set from its items', or an error past maxNesting.
func (p *parser) nested(n *node) (*node, error) {
	var h int32
	for _, k := range n.kids {
		h = max(h, k.height)
	}
	n.height = h + 1
	if n.height > maxNesting {
		return nil, p.errf("nested more than %d deep", maxNesting)
	}
	return n, nil
}

func (p *parser) errf(format string, args ...any) error {
	line, col := 1, 1
	for i := 0; i < p.pos && i < len(p.src); i++ {
		if p.src[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// space skips blanks and comments, and newlines when newlines is set.
func (p *parser) space(newlines bool) {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t':
			p.pos++
		case c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' && p.src[p.pos] != '\r' {
				p.pos++
			}
		case (c == '\n' || c == '\r') && newlines:
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) consume(s string) bool {
	if len(p.src)-p.pos >= len(s) && p.src[p.pos:p.pos+len(s)] == s {
		p.pos += len(s)
		return true
	}
	return false
}

func (p *parser) name() string {
	start := p.pos
	for p.pos < len(p.src) && isNameByte(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *parser) alternates(nested bool) (*node, error) {
	var alts []*node
	for {
		seq, err := p.sequence(nested)
		if err != nil {
			return nil, err
		}
		alts = appendAlt(alts, seq)
		if p.pos < len(p.src) && p.src[p.pos] == '|' {
			p.pos++
			p.space(true)
			continue
		}
		break
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return p.nested(&node{op: opAlt, kids: alts})
}

// appendAlt adds an alternative, flattening a nested alternation (same language, canonical printing).
func appendAlt(alts []*node, n *node) []*node {
	if n.op == opAlt {
		return append(alts, n.kids...)
	}
	return append(alts, n)
}

func (p *parser) sequence(nested bool) (*node, error) {
	var items []*node
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		var item *node
		switch {
		case c == '"':
			p.pos++
			var rs []rune
			for {
				if p.pos >= len(p.src) {
					return nil, p.errf("unterminated literal")
				}
				if p.src[p.pos] == '"' {
					p.pos++
					break
				}
				r, err := p.char()
				if err != nil {
					return nil, err
				}
				rs = append(rs, r)
			}
			item = &node{op: opLit, runes: rs, height: 1}
		case c == '[':
			p.pos++
			item = &node{op: opClass, height: 1}
			if p.pos < len(p.src) && p.src[p.pos] == '^' {
				item.neg = true
				p.pos++
			}
			for {
				if p.pos >= len(p.src) {
					return nil, p.errf("unterminated character class")
				}
				if p.src[p.pos] == ']' {
					p.pos++
					break
				}
				lo, err := p.char()
				if err != nil {
					return nil, err
				}
				hi := lo
				if p.pos+1 < len(p.src) && p.src[p.pos] == '-' && p.src[p.pos+1] != ']' {
					p.pos++
					if hi, err = p.char(); err != nil {
						return nil, err
					}
				}
				item.ranges = append(item.ranges, Range{lo, hi})
			}
		case c == '.':
			p.pos++
			item = &node{op: opAny, height: 1}
		case c == '(':
			if p.nest++; p.nest > maxNesting {
				return nil, p.errf("groups nested more than %d deep", maxNesting)
			}
			p.pos++
			p.space(true)
			inner, err := p.alternates(true)
			p.nest--
			if err != nil {
				return nil, err
			}
			if p.pos >= len(p.src) || p.src[p.pos] != ')' {
				return nil, p.errf("expected )")
			}
			p.pos++
			item = inner
		case isNameByte(c):
			item = &node{op: opRef, name: p.name(), height: 1}
		case c == '*' || c == '+' || c == '?' || c == '{':
			if len(items) == 0 {
				return nil, p.errf("repetition operator %q with nothing before it", c)
			}
			last := items[len(items)-1]
			min, max := 0, -1
			p.pos++
			switch c {
			case '+':
				min = 1
			case '?':
				max = 1
			case '{':
				var err error
				if min, max, err = p.braces(); err != nil {
					return nil, err
				}
			}
			rep, err := p.nested(&node{op: opRep, kids: []*node{last}, min: min, max: max})
			if err != nil {
				return nil, err
			}
			items[len(items)-1] = rep
			p.space(nested)
			continue
		default:
			goto done
		}
		items = append(items, item)
		p.space(nested)
	}
done:
	if len(items) == 1 {
		return items[0], nil
	}
	return p.nested(&node{op: opSeq, kids: items})
}

func (p *parser) braces() (min, max int, err error) {
	p.space(true)
	min, ok := p.int()
	if !ok {
		return 0, 0, p.errf("expected a number after {")
	}
	p.space(true)
	max = min
	if p.pos < len(p.src) && p.src[p.pos] == ',' {
		p.pos++
		p.space(true)
		if m, ok := p.int(); ok {
			max = m
			if max < min {
				return 0, 0, p.errf("repetition maximum %d below minimum %d", max, min)
			}
		} else {
			max = -1
		}
		p.space(true)
	}
	if p.pos >= len(p.src) || p.src[p.pos] != '}' {
		return 0, 0, p.errf("expected }")
	}
	p.pos++
	return min, max, nil
}

func (p *parser) int() (int, bool) {
	start := p.pos
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == start || p.pos-start > 9 {
		return 0, false
	}
	n, _ := strconv.Atoi(p.src[start:p.pos])
	return n, true
}

// char reads one character of a literal or class: an escape or one UTF-8 encoded code point.
func (p *parser) char() (rune, error) {
	c := p.src[p.pos]
	if c != '\\' {
		r, size := utf8.DecodeRuneInString(p.src[p.pos:])
		p.pos += size
		return r, nil
	}
	if p.pos+1 >= len(p.src) {
		return 0, p.errf("unterminated escape")
	}
	e := p.src[p.pos+1]
	p.pos += 2
	switch e {
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case '\\', '"', '[', ']', '-':
		return rune(e), nil
	case 'x', 'u', 'U':
		n := 2
		if e == 'u' {
			n = 4
		} else if e == 'U' {
			n = 8
		}
		if p.pos+n > len(p.src) {
			return 0, p.errf("short \\%c escape", e)
		}
		v, err := strconv.ParseUint(p.src[p.pos:p.pos+n], 16, 32)
		if err != nil {
			return 0, p.errf("bad \\%c escape", e)
		}
		p.pos += n
		return rune(v), nil
	}
	p.pos -= 2
	return 0, p.errf("unknown escape \\%c", e)
}

// appendExpr prints n in canonical GBNF: alternatives separated by " | ", sequence items by one space, a
// group in parentheses only where needed (an alternation inside a sequence, a sequence or alternation
// under a repetition), the shortest repetition operator, the empty sequence as "".
func appendExpr(b []byte, n *node, inSeq bool) []byte {
	switch n.op {
	case opLit:
		b = append(b, '"')
		for _, r := range n.runes {
			b = appendRune(b, r, false)
		}
		return append(b, '"')
	case opClass:
		return appendClass(b, n.neg, n.ranges)
	case opAny:
		return append(b, '.')
	case opRef:
		return append(b, n.name...)
	case opSeq:
		if len(n.kids) == 0 {
			return append(b, '"', '"')
		}
		for i, k := range n.kids {
			if i > 0 {
				b = append(b, ' ')
			}
			b = appendExpr(b, k, true)
		}
		return b
	case opAlt:
		if inSeq {
			b = append(b, '(')
		}
		for i, k := range n.kids {
			if i > 0 {
				b = append(b, " | "...)
			}
			b = appendExpr(b, k, false)
		}
		if inSeq {
			b = append(b, ')')
		}
		return b
	case opRep:
		k := n.kids[0]
		if k.op == opSeq && len(k.kids) > 0 || k.op == opAlt || k.op == opRep {
			b = append(b, '(')
			b = appendExpr(b, k, false)
			b = append(b, ')')
		} else {
			b = appendExpr(b, k, true)
		}
		return appendRepeatOp(b, n.min, n.max)
	}
	return b
}
