package jinja

import (
	"strconv"
	"strings"
	"testing"
)

// Values are bounded before they are made (bounds.go), whatever makes them.
func TestValueBounds(t *testing.T) {
	deep := func(n int, wrap string) string {
		start := "[]"
		if wrap[0] == '(' {
			start = "()"
		}
		return `{% set ns = namespace(a=` + start + `, b=` + start + `) %}{% for i in range(` + strconv.Itoa(n) + `) %}{% set ns.a = ` + wrap +
			` %}{% set ns.b = ` + strings.ReplaceAll(wrap, "ns.a", "ns.b") + ` %}{% endfor %}`
	}
	cases := []struct{ src, msg string }{
		{`{{ x * 2**40 }}`, "string repetition of 1 × 1099511627776 bytes"},
		{`{{ [0] * 2**40 }}`, "a sequence of 1 × 1099511627776 items"},
		{`{{ (x * 40000000) + (x * 40000000) }}`, "a string of"},
		{`{{ (x * 40000000) ~ (x * 40000000) }}`, "a concatenation of"},
		{`{{ x + (x * 40000000) + (x * 40000000) }}`, "a string of"},
		{`{{ [x * 40000000, x * 40000000]|join }}`, "a join of"},
		{`{{ [x * 40000000, x * 40000000]|sum(start='') }}`, "sum() can't sum strings"},
		{`{{ ([0] * 3000000) + ([0] * 3000000) }}`, "a list of 6000000 items"},
		{`{{ [[0] * 3000000, [0] * 3000000]|sum(start=[]) }}`, "a list of 6000000 items"},
		{`{% set s = x * 30000000 %}{{ [s, s, s, s] }}`, "a repr of"},
		{`{{ [x * 40000000, x * 40000000]|tojson }}`, "tojson's output"},
		{`{% set s = x * 30000000 %}{{ [s, s, s, s]|pprint }}`, "a repr of"},
		{`{{ ((x * 1000)|replace('x', x * 100000)) }}`, "string replace too large"},
		{`{{ ((x * 1000).replace('x', x * 100000)) }}`, "string replace too large"},
		{`{{ ('\n' * 1000)|indent(100000, blank=true) }}`, "an indented string of"},
		{`{% for c in x * 5000000 %}{% break %}{% endfor %}`, "characters of a string exceed"},
		{deep(1200, "[ns.a]") + `{{ ns.a }}`, "repr: the value nests deeper than 1000"},
		{deep(1200, "[ns.a]") + `{{ ns.a|tojson }}`, "tojson: the value nests deeper than 1000"},
		{deep(1200, "[ns.a]") + `{{ ns.a|pprint }}`, "the value nests deeper than 1000"},
		{deep(1200, "[ns.a]") + `{{ ns.a == ns.b }}`, "comparison: the values nest deeper than 1000"},
		{deep(1200, "(ns.a,)") + `{{ {ns.a: 1} }}`, "a tuple key nests deeper than 1000"},
		// Values that share their parts: exponential when unfolded.
		{deep(40, "(ns.a, ns.a)") + `{{ {ns.a: 1} }}`, "a tuple key of"},
		{deep(40, "[ns.a, ns.a]") + `{{ ns.a|pprint }}`, "a repr of"},
		{deep(400, "[ns.a, x * 20000]") + `{{ ns.a|pprint }}`, "pprint: the reprs of the value's levels exceed"},
		// Each item of a deep value's innermost list on a line indented by the depth.
		{`{% set ns = namespace(a=[0] * 100000) %}{% for i in range(800) %}{% set ns.a = [ns.a] %}{% endfor %}` +
			`{{ ns.a|pprint }}`, "pprint's output of"},
	}
	for _, c := range cases {
		_, err := render(t, c.src, nil)
		kind := "LimitError"
		if strings.HasPrefix(c.msg, "sum()") {
			kind = "TypeError"
		}
		wantErr(t, c.src, err, kind, c.msg)
	}
}

// str + str is bounded where the operator makes it, though a template's +
// chains are joined by sumCode, which checks on its own.
func TestAddBound(t *testing.T) {
	half := strings.Repeat("x", maxValueBytes/2+1)
	_, err := binary("+", half, half)
	wantErr(t, "str + str", err, "LimitError", "a string of")
}

// Without a MaxDepth, macro calls nest up to the engine's ceiling, not
// without end: each takes Go stack, which a Go program cannot recover from
// running out of.
func TestRecursionCeiling(t *testing.T) {
	src := `{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}`
	_, err := render(t, src, &Options{Limits: Limits{MaxOutputBytes: 1 << 20}})
	wantErr(t, src, err, "LimitError", "template recursion exceeds depth 10000")
}

// Comparing two separately built values that share their parts takes time
// linear in their depth, not exponential; and a value is equal to itself
// without being looked into, as in Python.
func TestEqualityOfSharedParts(t *testing.T) {
	src := `{% set ns = namespace(a=[1], b=[1]) %}{% for i in range(60) %}{% set ns.a = [ns.a, ns.a] %}` +
		`{% set ns.b = [ns.b, ns.b] %}{% endfor %}{{ ns.a == ns.b }} {{ ns.a == ns.a }} {{ [ns.a] in [[ns.b]] }}`
	if out, err := render(t, src, nil); out != "True True True" || err != nil {
		t.Errorf("got %q, %v", out, err)
	}
	// Python's own answers, which only the identity shortcut gives: NaN is
	// not equal to itself, a list holding it is.
	src = `{% set n = 'nan' %}{% set l = [n|float] %}{{ l == l }} {{ [l] == [l] }} {{ l == [n|float] }} {{ l in [l] }}` +
		` {% set d = {'a': n|float} %}{{ d == d }}`
	if out, err := render(t, src, nil); out != "True True False True True" || err != nil {
		t.Errorf("got %q, %v", out, err)
	}
}
