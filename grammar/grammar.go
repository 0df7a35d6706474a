// Package grammar builds GBNF grammars (llama.cpp's grammar format), turns JSON Schemas into GBNF, and
// recognises strings against a grammar.
//
// A Grammar is an ordered list of rules, each a name and an expression in GBNF syntax; String renders the
// grammar as GBNF text with the rule "root" first. Rules are added with Rule (the expression text is the
// caller's, built with the helpers Literal, Class and Repeat, which escape correctly), parsed from text with
// Parse, or generated from JSON Schemas with AddSchema, FromJSONSchema and Tools.
//
// The recogniser (Match, Prefix) works on Unicode code points, as llama.cpp does, so tests can check a
// grammar without a runtime and a completion can be checked against the constraint that was sent. Check
// reports what llama.cpp's parser would refuse: an undefined rule, a missing root, left recursion (which
// includes an open repetition of something that may be empty).
package grammar

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Grammar is an ordered set of GBNF rules. The zero value is not ready for use; call New or Parse.
//
// A Grammar may be read (String, Match, Prefix, Check) from many goroutines at once; adding rules while
// it is read is not safe.
type Grammar struct {
	rules  []ruleDef
	index  map[string]int
	shared map[string]string // the shared JSON rules AddSchema added: key → rule name
	// textWithout are TextWithout's rules, by stop text.
	textWithout map[string]string
	// suffix is, for each base name alloc has had to number, the number it tries next: every smaller
	// one from 2 is taken (names are never freed), so many rules of one base cost no search over the
	// ones before.
	suffix map[string]int

	mu       sync.Mutex
	compiled *program
	cerr     error
}

type ruleDef struct {
	name string
	expr string
	ast  *node // set when the rule came from Parse; nil for rules added as text
}

// Rule is one rule of a grammar: its name and its expression in GBNF syntax.
type Rule struct {
	Name string
	Expr string
}

// New returns an empty grammar.
func New() *Grammar {
	return newSized(0)
}

// NewSized returns an empty grammar with room for about rules rules, for
// builders that know roughly how many they will add.
func NewSized(rules int) *Grammar {
	return newSized(rules)
}

func newSized(rules int) *Grammar {
	return &Grammar{index: make(map[string]int, rules), rules: make([]ruleDef, 0, rules)}
}

// Reset empties the grammar, keeping the memory it has grown, for a builder
// that makes one grammar after another and keeps only each one's text.
// Nothing read from the grammar before (String's text, Lookup's
// expressions) is changed by it.
func (g *Grammar) Reset() {
	clear(g.rules) // the expressions are not kept alive by the spare capacity
	g.rules = g.rules[:0]
	clear(g.index)
	clear(g.shared)
	clear(g.textWithout)
	clear(g.suffix)
	g.compiled, g.cerr = nil, nil
}

// ValidName reports whether s can name a GBNF rule: one or more of [a-zA-Z0-9-].
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

func isNameByte(c byte) bool { return nameBytes[c] }

// nameBytes marks the bytes a rule name may hold: [a-zA-Z0-9-].
var nameBytes = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
	}
	return t
}()

// Rule adds the rule name ::= expr, or replaces the expression of an existing rule of that name (the rule
// keeps its place). The expression is not checked here; Check, Match and Prefix parse it. Rule panics if
// name is not a valid rule name.
func (g *Grammar) Rule(name, expr string) {
	// Rules are not added while the grammar is read, so only a grammar already compiled needs the lock.
	if g.compiled != nil || g.cerr != nil {
		g.mu.Lock()
		g.compiled, g.cerr = nil, nil
		g.mu.Unlock()
	}
	if i, ok := g.index[name]; ok { // a name in the index was checked when it was added
		g.rules[i] = ruleDef{name: name, expr: expr}
		return
	}
	if !ValidName(name) {
		panic(fmt.Sprintf("grammar: invalid rule name %q", name))
	}
	g.index[name] = len(g.rules)
	g.rules = append(g.rules, ruleDef{name: name, expr: expr})
}

// Has reports whether the grammar has a rule of that name.
func (g *Grammar) Has(name string) bool {
	_, ok := g.index[name]
	return ok
}

// Lookup returns the expression of the named rule.
func (g *Grammar) Lookup(name string) (string, bool) {
	i, ok := g.index[name]
	if !ok {
		return "", false
	}
	return g.rules[i].expr, true
}

// Rules returns the rules in the order String writes them: root first, then the others in the order they
// were added.
func (g *Grammar) Rules() []Rule {
	out := make([]Rule, 0, len(g.rules))
	if i, ok := g.index["root"]; ok {
		out = append(out, Rule{g.rules[i].name, g.rules[i].expr})
	}
	for _, r := range g.rules {
		if r.name != "root" {
			out = append(out, Rule{r.name, r.expr})
		}
	}
	return out
}

// String renders the grammar as GBNF text, one rule a line, root first.
func (g *Grammar) String() string {
	n := 0
	for _, r := range g.rules {
		n += len(r.name) + len(r.expr) + 6
	}
	var b strings.Builder
	b.Grow(n)
	write := func(r ruleDef) {
		b.WriteString(r.name)
		b.WriteString(" ::= ")
		b.WriteString(r.expr)
		b.WriteByte('\n')
	}
	root, hasRoot := g.index["root"]
	if hasRoot {
		write(g.rules[root])
	}
	for i, r := range g.rules {
		if !hasRoot || i != root {
			write(r)
		}
	}
	return b.String()
}

// alloc returns a rule name based on base (made valid) that the grammar does not use yet, and reserves it
// with an empty expression; the caller sets the expression with Rule.
func (g *Grammar) alloc(base string) string {
	base = sanitizeName(cutName(base))
	name := base
	if g.Has(name) {
		i := max(g.suffix[base], 2)
		for name = base + "-" + strconv.Itoa(i); g.Has(name); {
			i++
			name = base + "-" + strconv.Itoa(i)
		}
		if g.suffix == nil {
			g.suffix = make(map[string]int)
		}
		g.suffix[base] = i + 1
	}
	g.index[name] = len(g.rules)
	g.rules = append(g.rules, ruleDef{name: name})
	return name
}

// cutName is s cut to maxRuleName bytes, the most of a rule name's base.
func cutName(s string) string { return s[:min(len(s), maxRuleName)] }

// sanitizeName replaces every character a rule name may not hold by '-'.
func sanitizeName(s string) string {
	if ValidName(s) {
		return s
	}
	if s == "" {
		return "r"
	}
	b := []byte(s)
	for i, c := range b {
		if !isNameByte(c) {
			b[i] = '-'
		}
	}
	return string(b)
}

// Literal returns s as a GBNF string literal: quotes, backslashes and control characters escaped,
// characters that are not printable written as \xHH, \uHHHH or \UHHHHHHHH, the rest as UTF-8.
func Literal(s string) string {
	if plainLiteral(s) {
		switch s { // the schema converter's punctuation, without an allocation
		case "{":
			return `"{"`
		case "}":
			return `"}"`
		case "[":
			return `"["`
		case "]":
			return `"]"`
		case ":":
			return `":"`
		case ",":
			return `","`
		}
		return `"` + s + `"`
	}
	if printableASCII(s) { // quotes and backslashes to escape: one allocation
		var b strings.Builder
		b.Grow(len(s) + 2 + strings.Count(s, `"`) + strings.Count(s, `\`))
		b.WriteByte('"')
		for i := 0; i < len(s); i++ {
			if s[i] == '"' || s[i] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		}
		b.WriteByte('"')
		return b.String()
	}
	b := make([]byte, 0, len(s)+8)
	b = append(b, '"')
	b = appendLiteralBody(b, s)
	return string(append(b, '"'))
}

// Alternatives is the group of the values' literals as alternatives:
// ("a" | "b").
func Alternatives(values []string) string {
	n := 2
	for _, v := range values {
		n += len(v) + 5
	}
	b := make([]byte, 0, n)
	b = append(b, '(')
	for k, v := range values {
		if k > 0 {
			b = append(b, " | "...)
		}
		b = append(b, '"')
		b = appendLiteralBody(b, v)
		b = append(b, '"')
	}
	return string(append(b, ')'))
}

// AppendLiteralOf appends LiteralOf(parts...) to dst.
func AppendLiteralOf(dst []byte, parts ...string) []byte {
	for _, p := range parts {
		if !plainLiteral(p) && !utf8.ValidString(p) { // a character may be split between parts
			return append(dst, Literal(strings.Join(parts, ""))...)
		}
	}
	dst = append(dst, '"')
	for _, p := range parts {
		switch {
		case plainLiteral(p):
			dst = append(dst, p...)
		case printableASCII(p): // quotes and backslashes to escape, as Literal does
			for i := 0; i < len(p); i++ {
				if p[i] == '"' || p[i] == '\\' {
					dst = append(dst, '\\')
				}
				dst = append(dst, p[i])
			}
		default:
			dst = appendLiteralBody(dst, p)
		}
	}
	return append(dst, '"')
}

// LiteralOf is Literal of the parts joined, in one allocation when none
// needs escaping.
func LiteralOf(parts ...string) string {
	n := 2
	for _, p := range parts {
		n += len(p)
	}
	b := AppendLiteralOf(make([]byte, 0, n), parts...)
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// plainLiteral reports whether s is printable ASCII with nothing to escape in a literal.
func plainLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendLiteralBody writes s as the inside of a GBNF literal (for a string or the bytes of one).
func appendLiteralBody[T string | []byte](b []byte, s T) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = appendEscape(b, rune(c))
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := decodeRune(s[i:])
		b = appendRune(b, r, false)
		i += size
	}
	return b
}

func decodeRune[T string | []byte](s T) (rune, int) {
	switch v := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(v)
	case []byte:
		return utf8.DecodeRune(v)
	}
	panic("unreachable")
}

// appendRune writes r as it appears inside a literal (inClass false) or a character class.
func appendRune(b []byte, r rune, inClass bool) []byte {
	switch {
	case r == '\\':
		return append(b, '\\', '\\')
	case r == '\n':
		return append(b, '\\', 'n')
	case r == '\r':
		return append(b, '\\', 'r')
	case r == '\t':
		return append(b, '\\', 't')
	case !inClass && r == '"':
		return append(b, '\\', '"')
	case inClass && (r == ']' || r == '['):
		return append(b, '\\', byte(r))
	case inClass && (r == '-' || r == '^'):
		return appendEscape(b, r)
	case r < 0x20 || r == 0x7f:
		return appendEscape(b, r)
	case r < utf8.RuneSelf:
		return append(b, byte(r))
	case r == utf8.RuneError || !unicode.IsPrint(r) || r > unicode.MaxRune:
		return appendEscape(b, r)
	}
	return utf8.AppendRune(b, r)
}

const hexDigits = "0123456789ABCDEF"

func appendEscape(b []byte, r rune) []byte {
	switch {
	case r < 0x100:
		return append(b, '\\', 'x', hexDigits[r>>4], hexDigits[r&15])
	case r < 0x10000:
		return append(b, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
	}
	b = append(b, '\\', 'U')
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[r>>uint(shift)&15])
	}
	return b
}

// Range is an inclusive range of code points in a character class; a single character has Lo == Hi.
type Range struct{ Lo, Hi rune }

// Class returns a GBNF character class over the ranges ([...], or [^...] when negated), with ], [, \,
// - and ^ and control characters escaped.
func Class(negated bool, ranges ...Range) string {
	return string(appendClass(nil, negated, ranges))
}

func appendClass(b []byte, negated bool, ranges []Range) []byte {
	b = append(b, '[')
	if negated {
		b = append(b, '^')
	}
	for _, r := range ranges {
		b = appendRune(b, r.Lo, true)
		if r.Hi != r.Lo {
			b = append(b, '-')
			b = appendRune(b, r.Hi, true)
		}
	}
	return append(b, ']')
}

// Repeat returns atom followed by the shortest GBNF repetition operator for min..max repetitions (max < 0:
// no maximum): ?, *, +, {m}, {m,} or {m,n}. atom must be a single element: a rule name, a literal, a class,
// "." or a parenthesised group. Repeat(atom, 1, 1) is atom itself.
func Repeat(atom string, min, max int) string {
	return string(appendRepeatOp(append([]byte(nil), atom...), min, max))
}

func appendRepeatOp(b []byte, min, max int) []byte {
	switch {
	case min == 1 && max == 1:
		return b
	case min == 0 && max == 1:
		return append(b, '?')
	case min == 0 && max < 0:
		return append(b, '*')
	case min == 1 && max < 0:
		return append(b, '+')
	case min == max:
		b = append(b, '{')
		b = strconv.AppendInt(b, int64(min), 10)
		return append(b, '}')
	}
	b = append(b, '{')
	b = strconv.AppendInt(b, int64(min), 10)
	b = append(b, ',')
	if max >= 0 {
		b = strconv.AppendInt(b, int64(max), 10)
	}
	return append(b, '}')
}
