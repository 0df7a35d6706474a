package format

import (
	"bytes"
	"encoding/json"

	"github.com/dragoman-dev/dragoman/grammar"
)

// The pieces the families' call grammars (CallSyntax) are built from. Each
// family builds its own in its own file, from its marker constants;
// TestCallSyntaxMatchesTemplates checks every one against the corpus
// templates of its family.

// lit is a GBNF literal; opt an optional one.
func lit(s string) string { return grammar.Literal(s) }
func opt(s string) string {
	switch s { // the optional newline and space are in most calls' every parameter
	case "\n":
		return optNewline
	case " ":
		return optSpace
	}
	return grammar.Literal(s) + "?"
}

// litOf is lit of the parts joined (a parameter's tag around its name), in one allocation.
func litOf(parts ...string) string { return grammar.LiteralOf(parts...) }

// seqs joins sequences (seqOf's) into one, as seqOf would have written
// their parts side by side.
func seqs(sequences ...string) string { return grammar.Seq(sequences...) }

// The quotes of Python's string literals, as GBNF literals.
var litSingleQuote, litDoubleQuote = lit("'"), lit(`"`)

var (
	optNewline, optSpace = grammar.Literal("\n") + "?", grammar.Literal(" ") + "?"
	litCloseParameter    = grammar.Literal("</parameter>")
)

// gap is the layout between two blocks: up to two spaces or newlines.
var gap = grammar.Repeat(grammar.Class(false, grammar.Range{Lo: ' ', Hi: ' '}, grammar.Range{Lo: '\n', Hi: '\n'}), 0, 2)

// jsonName is a name as a JSON string literal, unquoted text for Tag.
func jsonName(name string) string {
	if plainName(name) {
		return `"` + name + `"`
	}
	j, _ := json.Marshal(name)
	return string(j)
}

// plainName reports whether a name is written in JSON as it is, between
// quotes: letters, digits, '_', '-', '.', ':' and '/' (what function names
// hold), nothing encoding/json would escape.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == ':' || c == '/') {
			return false
		}
	}
	return true
}

// blockLayout is the whitespace admitted inside a call's block, after its
// opener and before its closer: the templates render one newline there, and
// models trained on them write none, blank lines, or a space or tab beside
// it. Up to four of them: a layout the grammar refused would be resampled
// token by token (measured over llama-server: 194-273 tokens/s fell to
// 86-114 when a model's extra newlines after <tool_call> were refused), and
// a bound keeps a constrained model from padding for ever.
var blockLayout = grammar.Repeat(grammar.Class(false, grammar.Range{Lo: '\t', Hi: '\t'}, grammar.Range{Lo: '\n', Hi: '\n'}, grammar.Range{Lo: ' ', Hi: ' '}), 0, 4)

// blocks is the syntax of families that wrap each call in open/close
// markers of its own, with blockLayout inside the block.
func blocks(open, close string, call func(b *Builder, i int) (string, error)) CallSyntax {
	return CallSyntax{
		Triggers: []string{open},
		Open:     seqOf(lit(open), blockLayout),
		Sep:      seqOf(blockLayout, lit(close), gap, lit(open), blockLayout),
		Close:    seqOf(blockLayout, lit(close)),
		Call:     call,
	}
}

// jsonArray is the syntax of families that write all calls as one JSON
// array after open and before close.
func jsonArray(trigger, open, close string, call func(b *Builder, i int) (string, error)) CallSyntax {
	ws := wsPlaceholder
	return CallSyntax{
		Triggers: []string{trigger},
		Open:     seqOf(open, lit("["), ws),
		Sep:      seqOf(ws, lit(","), ws),
		Close:    seqOf(ws, lit("]"), close),
		Call:     call,
	}
}

func nameArguments(b *Builder, i int) (string, error) {
	return b.JSONCall(i, "name", "arguments", "")
}

func nameParameters(b *Builder, i int) (string, error) {
	return b.JSONCall(i, "name", "parameters", "")
}

// nameArgumentsID also takes the "id" member the Mistral and Apriel
// templates write after the arguments.
func nameArgumentsID(b *Builder, i int) (string, error) {
	if b.idMember == "" {
		ws := b.WS()
		b.idMember = seqOf("(", litComma, ws, litIDKey, ws, litColon, ws, b.JSONString(), ws, ")?")
	}
	return b.JSONCall(i, "name", "arguments", b.idMember)
}

// Literals the calls and values of several families share.
var (
	litComma, litIDKey, litColon = lit(","), lit(`"id"`), lit(":")
	litBrace, litBraceClose      = lit("{"), lit("}")
	litBracket, litBracketClose  = lit("["), lit("]")
	pyItemSep                    = seqOf(litComma, optSpace) // between a Python list's items or a dict's members
)

// taggedParams writes one call as head, the parameters and tail, each
// parameter in the markup tags describe.
func taggedParams(head, tail func(b *Builder, i int) string, tags paramTags, v Value) func(b *Builder, i int) (string, error) {
	return func(b *Builder, i int) (string, error) {
		return b.paramsBetween(i, seqOf(head(b, i)), seqOf(tail(b, i)), v, paramOf{write: tags.write})
	}
}

// paramTags is a tagged parameter's markup: its name between KeyOpen and
// KeyClose (one literal, where an attribute of the member may follow the
// name: Attr, then AttrValue(m)), then the GBNF parts Before, its value,
// After.
type paramTags struct {
	KeyOpen, KeyClose string
	Before, After     []string
	Attr              string
	AttrValue         func(m grammar.Member) string
}

// write appends seqOf(litOf(KeyOpen, name, [Attr, AttrValue(m)], KeyClose), Before…, value, After…).
func (t paramTags) write(dst []byte, m grammar.Member, value string) []byte {
	start := len(dst)
	if t.AttrValue != nil {
		dst = grammar.AppendLiteralOf(dst, t.KeyOpen, m.Name, t.Attr, t.AttrValue(m), t.KeyClose)
	} else {
		dst = grammar.AppendLiteralOf(dst, t.KeyOpen, m.Name, t.KeyClose)
	}
	if bytes.IndexByte(dst[start:], '|') >= 0 { // seqPart's parentheses
		dst = wrapFrom(dst, start, "(", ")")
	}
	for _, p := range t.Before {
		dst = appendSeqPart(dst, start, p)
	}
	dst = appendSeqPart(dst, start, value)
	for _, p := range t.After {
		dst = appendSeqPart(dst, start, p)
	}
	return dst
}

// withThinking is cs with the family's reasoning markers.
func withThinking(cs CallSyntax, open, close string) *CallSyntax {
	cs.ThinkOpen, cs.ThinkClose = open, close
	return &cs
}

// jsonTag is a CallSyntax.Tag whose begin depends on the name and whose end
// does not.
func jsonTag(begin func(string) string, end string) func(string) (string, string) {
	return func(name string) (string, string) { return begin(name), end }
}

// namedCall is cs with calls written by call, given the JSON arguments: the
// syntax of families that write the name outside the arguments.
func namedCall(cs CallSyntax, call func(b *Builder, i int, args string) string) CallSyntax {
	cs.Call = func(b *Builder, i int) (string, error) {
		args, err := b.Args(i)
		if err != nil {
			return "", err
		}
		return call(b, i, args), nil
	}
	return cs
}

// plainNumber is a number written bare in a value syntax of a family's own:
// a sign, up to 20 digits, an optional fraction.
func plainNumber() string {
	digits := grammar.Repeat(grammar.Class(false, grammar.Range{Lo: '0', Hi: '9'}), 1, 20)
	return seqOf(opt("-"), digits, "("+seqOf(lit("."), digits)+")?")
}
