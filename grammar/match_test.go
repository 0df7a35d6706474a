package grammar

import (
	"strings"
	"testing"
)

// Recogniser semantics: alternation, repetition bounds, classes and negation, ".", code points, prefixes.

func TestRecogniser(t *testing.T) {
	type probe struct {
		in            string
		match, prefix bool
	}
	cases := []struct {
		grammar string
		probes  []probe
	}{
		{`root ::= "ab" | "ac" | "b"`, []probe{
			{"ab", true, true}, {"ac", true, true}, {"b", true, true}, {"a", false, true}, {"", false, true},
			{"ad", false, false}, {"abc", false, false}, {"c", false, false},
		}},
		{`root ::= "x"{2,4}`, []probe{
			{"x", false, true}, {"xx", true, true}, {"xxxx", true, true}, {"xxxxx", false, false},
		}},
		{`root ::= "x"{3}`, []probe{{"xx", false, true}, {"xxx", true, true}, {"xxxx", false, false}}},
		{`root ::= "x"{2,} "y"`, []probe{
			{"xy", false, false}, {"xxy", true, true}, {"xxxxxxxy", true, true}, {"xxxxxxx", false, true},
		}},
		{`root ::= "x"? "y"* "z"+`, []probe{
			{"z", true, true}, {"xz", true, true}, {"xyyyzz", true, true}, {"xx", false, false}, {"xy", false, true},
			{"", false, true}, {"zy", false, false},
		}},
		{`root ::= ("ab" | "a"){2}`, []probe{ // ambiguity: every split is tried
			{"aa", true, true}, {"aba", true, true}, {"abab", true, true}, {"aab", true, true}, {"a", false, true},
			{"ababa", false, false},
		}},
		{`root ::= [a-c] [^a-c] .`, []probe{
			{"ad!", true, true}, {"aa!", false, false}, {"da!", false, false}, {"b\n\n", true, true},
			{"c😀é", true, true}, {"c😀", false, true},
		}},
		{`root ::= [^"]* "\""`, []probe{ // a negated class is any code point but these
			{`héllo"`, true, true}, {`"`, true, true}, {`ab"c`, false, false}, {"ab", false, true},
		}},
		{`root ::= "é" . "😀"`, []probe{ // code points, not bytes
			{"éx😀", true, true}, {"é😀😀", true, true}, {"é", false, true}, {"\xc3", false, true}, // cut inside a UTF-8 sequence
			{"éx\xf0\x9f", false, true}, {"éx😀\xf0", false, false},
		}},
		{"root ::= item (\",\" item)*\nitem ::= [0-9]+ | \"[\" root \"]\"", []probe{ // recursion
			{"1,2,3", true, true}, {"[1,[2,3]],4", true, true}, {"[1,[2,3]", false, true}, {"[1,]", false, false},
			{"1,", false, true},
		}},
		{`root ::= "a" | ""`, []probe{{"", true, true}, {"a", true, true}, {"b", false, false}}},
		{`root ::= "a" ("b" | "") "c"`, []probe{{"ac", true, true}, {"abc", true, true}, {"ab", false, true}}},
	}
	for _, c := range cases {
		g, err := Parse(c.grammar)
		if err != nil {
			t.Fatalf("%s: %v", c.grammar, err)
		}
		for _, p := range c.probes {
			if got := g.Match(p.in); got != p.match {
				t.Errorf("%s\n  Match(%q) = %v", c.grammar, p.in, got)
			}
			if got := g.Prefix(p.in); got != p.prefix {
				t.Errorf("%s\n  Prefix(%q) = %v", c.grammar, p.in, got)
			}
		}
	}
}

// TestPrefixUnproductive: a branch that can never finish does not make a prefix valid.
func TestPrefixUnproductive(t *testing.T) {
	g, err := Parse("root ::= \"a\" never | \"b\"\nnever ::= [^\\x00-\\U0010FFFF]")
	if err != nil {
		t.Fatal(err)
	}
	if g.Prefix("a") || !g.Prefix("") || !g.Prefix("b") {
		t.Errorf("Prefix(a)=%v Prefix()=%v Prefix(b)=%v", g.Prefix("a"), g.Prefix(""), g.Prefix("b"))
	}
}

func TestMatchRule(t *testing.T) {
	g, err := Parse("root ::= word \" \" word\nword ::= [a-z]+")
	if err != nil {
		t.Fatal(err)
	}
	if !g.MatchRule("word", "abc") || g.MatchRule("word", "a b") || g.MatchRule("nope", "a") {
		t.Error("MatchRule")
	}
}

// TestLongInput: a few kilobytes through a JSON grammar, in reasonable time.
func TestLongInput(t *testing.T) {
	g, _, err := FromJSONSchema([]byte(`{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id","name"]}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 150; i++ {
		if i > 0 {
			b.WriteString(",\n  ")
		}
		b.WriteString(`{"id": 12345, "name": "some name \" with \\u escapes \u00e9"}`)
	}
	b.WriteString("]")
	s := b.String()
	if len(s) < 4000 {
		t.Fatalf("input only %d bytes", len(s))
	}
	if !g.Match(s) || g.Match(s+"]") || !g.Prefix(s[:len(s)/2]) {
		t.Error("long input misjudged")
	}
}
