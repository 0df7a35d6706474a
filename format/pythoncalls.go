package format

import (
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// Calls written as Python calls, NAME(key=value, ...), their values Python
// literals (pythonic, lfm2, olmo3): their grammar, and the parser of a block
// holding a list of them (lfm2, olmo3).

var litParen, litParenClose, litCommaSpace = lit("("), lit(")"), lit(", ")

// pythonCall is one call as NAME(key=value, ...). unescapedQuotes: the
// family's template leaves quotes in strings unescaped
// (Value.UnescapedQuotes).
func pythonCall(unescapedQuotes bool) func(b *Builder, i int) (string, error) {
	return func(b *Builder, i int) (string, error) {
		v := Value{Sep: litCommaSpace, Nested: true, UnescapedQuotes: unescapedQuotes}
		v.Encode = func(m grammar.Member) string { return pythonValue(b, m, v) }
		return b.paramsBetween(i, seqOf(b.Name(i), litParen), litParenClose, v, keyValue("="))
	}
}

// pythonListTriggers are the triggers of a Python list of calls: "[NAME(".
func pythonListTriggers(tools []chat.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, "["+t.Function.Name+"(")
	}
	return out
}

// pythonValue is one argument as a Python literal: strings single- or
// double-quoted, True/False/None (and JSON's spellings, which the LFM2.5
// and OLMo 3 templates write inside dicts), lists and dicts of literals,
// typed where the schema declares a dict's properties (keys quoted either
// way, in the schema's order) or a list's items (v says how the arguments
// are written).
func pythonValue(b *Builder, m grammar.Member, v Value) string {
	key := "py-string"
	if v.UnescapedQuotes {
		key = "py-string-unescaped"
	}
	str := b.Rule(key, func() string {
		// Raw newlines are allowed inside the quotes: templates write the
		// text as it is (LFM2.5), though Python would not.
		quoteInside := ""
		if v.UnescapedQuotes {
			// A quote followed, after spaces, by anything but a delimiter,
			// a space, a quote or a backslash: the parser reads it as text.
			space := grammar.Class(false, grammar.Range{Lo: ' ', Hi: ' '}, grammar.Range{Lo: '\t', Hi: '\t'})
			notDelimiter := grammar.Class(true, grammar.Range{Lo: ',', Hi: ','}, grammar.Range{Lo: ')', Hi: ')'}, grammar.Range{Lo: ']', Hi: ']'},
				grammar.Range{Lo: '}', Hi: '}'}, grammar.Range{Lo: ':', Hi: ':'}, grammar.Range{Lo: ' ', Hi: ' '}, grammar.Range{Lo: '\t', Hi: '\t'},
				grammar.Range{Lo: '\'', Hi: '\''}, grammar.Range{Lo: '\\', Hi: '\\'})
			quoteInside = " | " + seqOf(lit("'"), grammar.Repeat(space, 0, -1), notDelimiter)
		}
		single := seqOf(lit("'"), "("+grammar.Class(true, grammar.Range{Lo: '\'', Hi: '\''}, grammar.Range{Lo: '\\', Hi: '\\'})+" | "+seqOf(lit("\\"), ".")+quoteInside+")*", lit("'"))
		double := seqOf(lit(`"`), "("+grammar.Class(true, grammar.Range{Lo: '"', Hi: '"'}, grammar.Range{Lo: '\\', Hi: '\\'})+" | "+seqOf(lit("\\"), ".")+")*", lit(`"`))
		return single + " | " + double
	})
	if len(m.Enum) > 0 {
		// seqOf(lit("'"), values, lit("'")) | the same in double quotes, in one piece.
		values := grammar.Alternatives(m.Enum)
		return "(" + litSingleQuote + " " + values + " " + litSingleQuote + " | " + litDoubleQuote + " " + values + " " + litDoubleQuote + ")"
	}
	switch m.Type {
	case "string", "":
		return str
	case "integer", "number":
		return m.Value
	case "boolean":
		return `("True" | "False" | "true" | "false")`
	case "null":
		return `("None" | "null")`
	case "object":
		if len(m.Properties) > 0 {
			body := b.Arguments(func() string { return "py-rest" }, m.Properties, Value{Sep: pyItemSep, Encode: v.Encode},
				func(p grammar.Member, value string) string {
					key := "(" + seqOf(lit("'"+p.Name+"'")) + " | " + lit(`"`+p.Name+`"`) + ")"
					return seqOf(key, litColon, optSpace, value)
				})
			return seqOf(litBrace, body, litBraceClose)
		}
	case "array":
		if m.Items != nil {
			item := pythonValue(b, *m.Items, v)
			return seqOf(litBracket, "("+seqOf(item, "("+seqOf(pyItemSep, item)+")*")+")?", litBracketClose)
		}
	}
	return b.Rule("py-value", func() string {
		self := b.rules["py-value"]
		num := plainNumber()
		item := seqOf(str, lit(":"), opt(" "), self)
		return strings.Join([]string{str, "(" + num + ")", `"True"`, `"False"`, `"None"`, `"true"`, `"false"`, `"null"`,
			seqOf(lit("["), "("+seqOf(self, "("+seqOf(lit(","), opt(" "), self)+")*")+")?", lit("]")),
			seqOf(lit("{"), "("+seqOf(item, "("+seqOf(lit(","), opt(" "), item)+")*")+")?", lit("}"))}, " | ")
	})
}

// pyBlock says what a family's block of Python-style calls may hold beyond
// Python.
type pyBlock struct {
	// json: a JSON array or object of {"name", "arguments"} instead (LFM2,
	// FORMATS.md Decision 4).
	json bool
	// unescapedQuotes: the template writes strings between quotes it does
	// not escape ('what's on'), so a model writes them so too. When the
	// block is not valid Python, it is read again with a quote ending its
	// string only where a delimiter (, ) ] } :) or the end follows it.
	unescapedQuotes bool
}

// pyBlockSection parses a block of Python-style calls between open and close
// (bracketed or bare, one per line), and what opts allow beyond that. The
// close marker may be missing at the end of the output (a stop token the
// runtime consumed): then complete calls at the start of the rest are
// accepted, and what follows them stays content.
func pyBlockSection(open, close string, opts pyBlock) sectionFunc {
	return func(buf string, final bool) (int, []call, bool, error) {
		body := buf[len(open):]
		end := strings.Index(body, close)
		if end < 0 && !final {
			return 0, nil, true, nil
		}
		text := body
		if end >= 0 {
			text = body[:end]
		}
		calls, n, err := pyBlockCalls(text, opts)
		if err != nil {
			if end < 0 {
				return 0, nil, false, errors.New("the " + open + " block is not closed and its calls are incomplete: " + err.Error())
			}
			return 0, nil, false, err
		}
		if end < 0 {
			return len(open) + n, calls, false, nil
		}
		if rest := strings.TrimSpace(text[n:]); rest != "" {
			return 0, nil, false, errors.New("unexpected text after the calls in the " + open + " block: " + quote(clip(rest, 20)))
		}
		return len(open) + end + len(close), calls, false, nil
	}
}

// pyBlockCalls parses the calls at the start of text; n is the length they
// take.
func pyBlockCalls(text string, opts pyBlock) ([]call, int, error) {
	trimmed := strings.TrimLeft(text, " \t\r\n")
	lead := len(text) - len(trimmed)
	if opts.json && (strings.HasPrefix(trimmed, "{") || strings.HasPrefix(strings.TrimLeft(strings.TrimPrefix(trimmed, "["), " \t\r\n"), "{")) {
		n, complete := jsonValueEnd(trimmed)
		if !complete {
			return nil, 0, errors.New("the JSON calls are incomplete")
		}
		calls, err := mistralJSONCalls(trimmed[:n])
		if err != nil {
			return nil, 0, err
		}
		return calls, lead + n, nil
	}
	pcs, n, err := parsePyCalls(text, false)
	if err != nil && err != errPyIncomplete && opts.unescapedQuotes {
		if lpcs, ln, lerr := parsePyCalls(text, true); lerr == nil || lerr == errPyIncomplete && lpcs != nil {
			pcs, n, err = lpcs, ln, lerr
		}
	}
	if err == errPyIncomplete && pcs != nil {
		err = nil
	}
	if err != nil {
		if err == errPyIncomplete {
			return nil, 0, errors.New("the call list is incomplete")
		}
		return nil, 0, errors.New("the calls are not valid Python: " + err.Error())
	}
	calls := make([]call, len(pcs))
	for i, pc := range pcs {
		calls[i] = call{name: pc.Name, args: pc.Args}
	}
	return calls, n, nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
