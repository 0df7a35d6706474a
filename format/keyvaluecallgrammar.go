package format

import (
	"strings"

	"github.com/dragoman-dev/dragoman/grammar"
)

// The grammar of Gemma's key:value calls (gemma4, functiongemma):
// open call:NAME{key:value,...} close, strings between special quotes,
// keys bare; sorted: the templates sort the keys.
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
