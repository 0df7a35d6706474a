package grammar

import (
	"errors"
	"strings"
	"testing"
)

// GBNF text: parsing, canonical printing, escaping, and what llama.cpp's parser refuses.

var handWritten = []string{
	// A JSON grammar in the style of llama.cpp's json.gbnf, with comments and groups spread over lines.
	`# any JSON value
root   ::= object
value  ::= object | array | string | number | ("true" | "false" | "null") ws

object ::=
  "{" ws (
            string ":" ws value
    ("," ws string ":" ws value)*
  )? "}" ws

array  ::=
  "[" ws (
            value
    ("," ws value)*
  )? "]" ws

string ::=
  "\"" (
    [^"\\\x7F\x00-\x1F] |
    "\\" (["\\bfnrt] | "u" [0-9a-fA-F]{4}) # escapes
  )* "\"" ws

number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [1-9]{0,15})? ws

# Optional space: at most 20 characters
ws ::= | " " | "\n" [ \t]{0,20}
`,
	// A chess-move grammar: nested groups and bounded repetitions.
	`root ::= (
    "1. " move " " move "\n"
    ([1-9] [0-9]? ". " move " " move "\n")+
)
move ::= (pawn | nonpawn | castle) [+#]?
pawn ::= [a-h] [1-8]
nonpawn ::= [NBKQR] [a-h]? [1-8]? "x"? [a-h] [1-8]
castle ::= "O-O" "-O"?
`,
	`root ::= "a"{2} "b"{1,} "c"{0,3} . [^x-z] ""`,
	`root ::= ("x" | "y")* | (("p" "q") | "r")+ x
x ::= "\u00e9\U0001F600\t"`,
}

func TestRoundTrip(t *testing.T) {
	for i, src := range handWritten {
		g, err := Parse(src)
		if err != nil {
			t.Fatalf("grammar %d: %v", i, err)
		}
		if err := g.Check(); err != nil {
			t.Errorf("grammar %d: Check: %v", i, err)
		}
		once := g.String()
		g2, err := Parse(once)
		if err != nil {
			t.Fatalf("grammar %d: reparse: %v\n%s", i, err, once)
		}
		if twice := g2.String(); twice != once {
			t.Errorf("grammar %d: printing is not stable:\n%s\n---\n%s", i, once, twice)
		}
	}
	// Generated grammars are written in the canonical form already.
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"type":"string","minLength":1,"maxLength":8},"b":{"type":["integer","null"]},"c":{"type":"array","items":{"enum":["x","y\n",2.5,{"k":[1]}]},"minItems":1,"maxItems":3}},"required":["c"],"additionalProperties":{"type":"boolean"}}`,
		`{"$defs":{"node":{"type":"object","properties":{"v":{"type":"number"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}`,
		`{"anyOf":[{"type":"string"},{"anyOf":[{"const":1},{"type":"object"}]}]}`,
	} {
		for _, ws := range []Whitespace{WhitespaceBounded, WhitespaceCompact} {
			g, _, err := FromJSONSchema([]byte(schema), Options{Whitespace: ws})
			if err != nil {
				t.Fatal(err)
			}
			text := g.String()
			p, err := Parse(text)
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			if p.String() != text {
				t.Errorf("generated grammar is not canonical:\n%s\n---\n%s", text, p.String())
			}
		}
	}
}

func TestEscaping(t *testing.T) {
	for _, s := range []string{
		`plain`, `"quoted"`, `back\slash`, "tab\there", "new\nline\r", "\x00\x01\x1f\x7f",
		"é ü ß", "emoji 😀", "\u200b zero width", "\U0010FFFF", `\x41 is not an escape here`, `[]^-`, "#comment?",
	} {
		lit := Literal(s)
		if strings.ContainsAny(lit, "\n\r\x00\x7f\u200b") {
			t.Errorf("Literal(%q) = %s holds a raw control or invisible character", s, lit)
		}
		g, err := Parse("root ::= " + lit)
		if err != nil {
			t.Fatalf("Literal(%q) = %s: %v", s, lit, err)
		}
		if !g.Match(s) {
			t.Errorf("Literal(%q) = %s does not match its string", s, lit)
		}
		if g.Match(s+"x") || (len(s) > 1 && g.Match(s[:len(s)-1])) {
			t.Errorf("Literal(%q) matches more than its string", s)
		}
	}
	special := []rune{']', '[', '\\', '-', '^', '"', '\n', 0, 0x7f, 'é', 0x1F600}
	var ranges []Range
	for _, r := range special {
		ranges = append(ranges, Range{r, r})
	}
	for _, neg := range []bool{false, true} {
		cls := Class(neg, ranges...)
		g, err := Parse("root ::= " + cls)
		if err != nil {
			t.Fatalf("Class = %s: %v", cls, err)
		}
		for _, r := range special {
			if g.Match(string(r)) == neg {
				t.Errorf("%s on %q: got %v", cls, r, !neg)
			}
		}
		for _, r := range "aZ0 ~" {
			if g.Match(string(r)) != neg {
				t.Errorf("%s on %q: got %v", cls, r, neg)
			}
		}
	}
	// Ranges, escapes written by hand, and a hyphen that ends a class.
	g, err := Parse(`root ::= [\x41-\x43\u00e0-\u00e2\-] [a-]`)
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[string]bool{"Aa": true, "C-": true, "àa": true, "--": true, "Da": false, "ãa": false, "Ab": false} {
		if g.Match(s) != want {
			t.Errorf("%q: got %v", s, !want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{
		`root ::= undefined`,
		"root ::= \"a\"\nroot ::= \"b\"",
		`root ::= "\q"`,
		`root ::= "open`,
		`root ::= [abc`,
		`root = "a"`,
		`root ::= * "a"`,
		`root ::= "a"{3,2}`,
		`root ::= "a"{x}`,
		`root ::= ("a"`,
		`root ::= "a" )`,
		`root ::= "\x4"`,
		`r_x ::= "a"`,
		`root ::= <think>`,
	} {
		if _, err := Parse(src); err == nil {
			t.Errorf("Parse(%q) succeeded", src)
		}
	}
	_, err := Parse("root ::= \"a\"\n  bad ::= oops\n")
	var se *SyntaxError
	if !errors.As(err, &se) && err == nil {
		t.Errorf("no error")
	} else if errors.As(err, &se) && se.Line != 2 {
		t.Errorf("error %v: want line 2", err)
	}
}

func TestCheck(t *testing.T) {
	for src, bad := range map[string]bool{
		`root ::= root "x" | "y"`:                   true,
		"root ::= a\na ::= b \"x\"\nb ::= a | \"\"": true,
		"root ::= e \"x\"\ne ::= \"\" | \"y\" root": false, // root is reached after "y", not before any character
		"root ::= e root | \"x\"\ne ::= \"y\"?":     true,  // e may be empty
		`root ::= ("a"?)*`:                          true,
		`root ::= ("a" | "")+`:                      true,
		`root ::= ("a"?){0,5}`:                      false, // bounded: llama.cpp's expansion does not recurse
		`root ::= ("a"?){2,}`:                       true,
		`root ::= "a" root | "b"`:                   false,
		`other ::= "a"`:                             true, // no root
	} {
		g, err := Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if err := g.Check(); (err != nil) != bad {
			t.Errorf("%s: Check() = %v", src, err)
		}
		if bad && (g.Match("a") || g.Prefix("")) {
			t.Errorf("%s: a grammar failing Check matches", src)
		}
	}
	g := New()
	g.Rule("root", `"a" missing`)
	if err := g.Check(); err == nil {
		t.Error("undefined rule added as text not reported")
	}
	g.Rule("missing", `"b"`)
	if err := g.Check(); err != nil || !g.Match("ab") {
		t.Errorf("after defining the rule: %v", err)
	}
	g.Rule("root", `"a" (`)
	if g.Check() == nil {
		t.Error("syntax error in a rule added as text not reported")
	}
}

func TestBuilder(t *testing.T) {
	g := New()
	g.Rule("word", Repeat(Class(false, Range{'a', 'z'}), 1, 8))
	g.Rule("root", "word "+Repeat("("+Literal(", ")+" word)", 0, 2))
	if got, want := g.String(), "root ::= word (\", \" word){0,2}\nword ::= [a-z]{1,8}\n"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	for s, want := range map[string]bool{"abc": true, "a, b, c": true, "a, b, c, d": false, "abcdefghi": false, "": false} {
		if g.Match(s) != want {
			t.Errorf("%q: got %v", s, !want)
		}
	}
	for _, c := range []struct {
		min, max int
		want     string
	}{{0, 1, "x?"}, {0, -1, "x*"}, {1, -1, "x+"}, {1, 1, "x"}, {3, 3, "x{3}"}, {2, -1, "x{2,}"}, {2, 5, "x{2,5}"}} {
		if got := Repeat("x", c.min, c.max); got != c.want {
			t.Errorf("Repeat(x, %d, %d) = %q, want %q", c.min, c.max, got, c.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Rule with an invalid name did not panic")
		}
	}()
	g.Rule("bad_name", `"x"`)
}
