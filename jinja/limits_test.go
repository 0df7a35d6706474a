package jinja

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// Every render is bounded in time from its first instruction: with a
// deadline already past, each of these fails at the first look at the
// clock, which the work it does brings about. None loops enough for the
// clock reads of loops and calls alone, which is all the engine had.
func TestTimeoutFromTheFirstInstruction(t *testing.T) {
	for _, src := range []string{
		`{{ big }}`,                                  // output
		`{{ big|tojson }}`,                           // output written in place
		`{% set s = x * 100000 %}`,                   // an operator's result
		`{% set s = x|center(100000) %}`,             // a filter's
		`{% set s = big|upper %}`,                    // one's without arguments
		`{% set s = biglist|select('none') %}`,       // one's that keeps its arguments
		`{% set s = x.center(100000) %}`,             // a method's
		`{% set s = bigdict.get('a') %}`,             // a dict method's
		`{% set s = big.upper %}{% set s = s() %}`,   // a built-in function's
		`{% set s = [big]|map('upper')|list %}`,      // a filter run by name
		`{% set s = [big]|select('string')|list %}`,  // a test run by name
		`{% if big is string %}{% endif %}`,          // a test's value
		`{% if big is sameas big2 %}{% endif %}`,     // one's with an argument
		`{% set b = big == big2 %}`,                  // a comparison
		`{% set b = big == big2 == big %}`,           // a chain of them
		`{% set s = x ~ big %}`,                      // a concatenation
		`{% set s = x + big %}`,                      // a sum
		`{% set c = big[99999] %}`,                   // a subscript of a str
		`{% set s = big[1:] %}`,                      // a slice
		`{% set s = ([[0]] * 2000)|sum(start=[]) %}`, // each + of a sum
		`{% for i in range(300) %}{% endfor %}`,      // loop iterations
		`{% macro m() %}{% endmacro %}{% for i in range(20) %}{{ m() }}{% endfor %}`,         // macro calls
		`{% for i in range(3) %}` + strings.Repeat(`{% set a = 1 %}`, 1000) + `{% endfor %}`, // a long body
	} {
		_, err := render(t, src, &Options{Limits: Limits{Timeout: time.Nanosecond}})
		wantErr(t, src, err, "LimitError", "template render exceeds 1ns")
		if _, err := render(t, src, nil); err != nil {
			t.Errorf("%.80s: with the default limits: %v", src, err)
		}
	}
}

// The render looks at its context where it looks at the clock.
func TestContextStopsTheRender(t *testing.T) {
	loop := `{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}`
	opts := func(ctx context.Context) *Options {
		return &Options{Context: ctx, Limits: Limits{MaxIterations: 1 << 40, Timeout: 5 * time.Second}}
	}

	done, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := render(t, `hello`, opts(done))
	wantErr(t, "already cancelled", err, "Canceled", "context canceled")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("an already cancelled render: %v is not context.Canceled", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = render(t, loop, opts(ctx))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a render cancelled while it loops: %v is not context.Canceled", err)
	}

	ctx, stop := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer stop()
	_, err = render(t, loop, opts(ctx))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a render past its context's deadline: %v is not context.DeadlineExceeded", err)
	}

	if out, err := render(t, `{{ x }}`, opts(context.Background())); out != "x" || err != nil {
		t.Errorf("a live context: %q, %v", out, err)
	}
}

func TestRenderLimits(t *testing.T) {
	recursive := `{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}`
	recursiveLoop := `{% set ns = namespace(v=[]) %}{% for i in range(1200) %}{% set ns.v = [ns.v] %}{% endfor %}` +
		`{% for x in [ns.v] recursive %}{{ loop(x) }}{% endfor %}`
	cases := []struct {
		src    string
		limits Limits
		msg    string
	}{
		{recursive, Limits{MaxDepth: 50}, "template recursion exceeds depth 50"},
		{recursiveLoop, Limits{MaxDepth: 50}, "template recursion exceeds depth 50"},
		{`{% for i in range(1000) %}{% endfor %}`, Limits{MaxIterations: 999}, "template loops exceed 999 iterations"},
		{`{% for i in range(10) %}{% for j in range(100) %}{% endfor %}{% endfor %}`, Limits{MaxIterations: 1009}, "loops exceed 1009"},
		{`{{ big }}`, Limits{MaxOutputBytes: 99_999}, "template output exceeds 99999 bytes"},
		{`{% set s %}{{ big }}{% endset %}`, Limits{MaxOutputBytes: 99_999}, "template output exceeds"},
		{`{{ big ~ x }}`, Limits{MaxOutputBytes: 100_000}, "template output exceeds"},
		{`{{ big|tojson }}`, Limits{MaxOutputBytes: 100_001}, "template output exceeds"},
		{`{{ n }}`, Limits{MaxOutputBytes: 18}, "template output exceeds 18 bytes"},
		{`{% macro m() %}{{ big }}{% endmacro %}{{ m() }}{{ m() }}`, Limits{MaxOutputBytes: 150_000}, "template output exceeds"},
	}
	for _, c := range cases {
		_, err := render(t, c.src, &Options{Limits: c.limits})
		wantErr(t, c.src, err, "LimitError", c.msg)
	}
	// At the limits themselves, the renders pass.
	for _, c := range []struct {
		src    string
		limits Limits
	}{
		{`{% for i in range(1000) %}{% endfor %}`, Limits{MaxIterations: 1000}},
		{`{{ big }}`, Limits{MaxOutputBytes: 100_000}},
		{`{% macro m(n) %}{% if n < 50 %}{{ m(n + 1) }}{% endif %}{% endmacro %}{{ m(1) }}`, Limits{MaxDepth: 50}},
	} {
		if _, err := render(t, c.src, &Options{Limits: c.limits}); err != nil {
			t.Errorf("%s with %+v: %v", c.src, c.limits, err)
		}
	}
}
