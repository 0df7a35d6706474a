package jinja

import (
	"strings"
	"testing"
)

// Deep nesting ends in a syntax error, not in a Go stack overflow (which
// nothing can recover from); 100k levels would take the parser some
// hundred MB of stack.
func TestParserNesting(t *testing.T) {
	const n = 100_000
	for _, src := range []string{
		"{{ " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + " }}",
		"{{ " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + " }}",
		"{{ " + strings.Repeat("{1: ", n) + "1" + strings.Repeat("}", n) + " }}",
		"{{ " + strings.Repeat("not ", n) + "1 }}",
		"{{ " + strings.Repeat("- ", n) + "1 }}",
		"{{ " + strings.Repeat("1 if x else ", n) + "1 }}",
		"{{ x(" + strings.Repeat("x(", n) + strings.Repeat(")", n) + ") }}",
		strings.Repeat("{% if x %}", n) + strings.Repeat("{% endif %}", n),
		strings.Repeat("{% for x in y %}", n) + strings.Repeat("{% endfor %}", n),
	} {
		_, err := Compile(src)
		wantErr(t, src[:20], err, "TemplateSyntaxError", "nests deeper than 256 levels")
	}
}

// chain is x followed by n links of a postfix or operator chain.
func chain(kind string, n int) string {
	link := map[string]string{"attr": ".a", "item": "[0]", "filter": "|trim", "test": " is defined and x",
		"call": "()", "minus": " - 1", "concat": " ~ 1", "pow": " ** 1", "and": " and x"}[kind]
	return "{{ x" + strings.Repeat(link, n) + " }}"
}

var chainKinds = []string{"attr", "item", "filter", "call", "minus", "concat", "pow", "and"}

// Chains parse in a loop but make trees as deep as they are long, which
// later passes walk recursively: one past maxExprDepth is refused. Before
// the bound, compiling 50k links was quadratic (40 s and more).
func TestLongChains(t *testing.T) {
	for _, kind := range chainKinds {
		_, err := Compile(chain(kind, 50_000))
		wantErr(t, kind, err, "TemplateSyntaxError", "expression nests deeper than 1000 levels")
		if _, err := Compile(chain(kind, maxExprDepth-1)); err != nil {
			t.Errorf("%s: %d links: %v", kind, maxExprDepth-1, err)
		}
	}
	// A constant chain is folded as it compiles, and prints its value.
	if out, err := render(t, "{{ ' a '"+strings.Repeat("|trim", 900)+" }}", nil); out != "a" || err != nil {
		t.Errorf("a folded chain of trim: %q, %v", out, err)
	}
	// An elif chain is no nesting: Python reads any length of it.
	src := "{% if x == 0 %}0" + strings.Repeat("{% elif x == 1 %}1", 50_000) + "{% else %}e{% endif %}"
	if out, err := render(t, src, nil); out != "e" || err != nil {
		t.Errorf("50000 elifs: %q, %v", out, err)
	}
}

// Compiling a chain costs work linear in its length: the constant folding
// looks at and evaluates each node a bounded number of times. Doubling the
// chain about doubles the work (quadratic would quadruple it).
func TestCompileWorkLinear(t *testing.T) {
	work := func(src string) int {
		toks, err := tokenize(src)
		if err != nil {
			t.Fatal(err)
		}
		p := &parser{toks: toks}
		body, err := p.parseTemplate()
		if err != nil {
			t.Fatal(err)
		}
		_, n := compileCounting(body)
		return n
	}
	for _, kind := range append(chainKinds, "const-filter", "const-list") {
		src := func(n int) string { return chain(kind, n) }
		switch kind {
		case "const-filter": // not a constant as a whole: the random at the top
			src = func(n int) string { return "{{ ' a '" + strings.Repeat("|trim", n) + "|random }}" }
		case "const-list": // lists are never folded: each level evaluates again
			src = func(n int) string { return "{{ [1]" + strings.Repeat("|list", n) + "|random }}" }
		}
		small, large := work(src(400)), work(src(800))
		if large > 2*small+small/4 {
			t.Errorf("%s: compiling 400 links does %d units of work, 800 links %d", kind, small, large)
		}
	}
}
