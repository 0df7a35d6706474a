package jinja

import (
	"errors"
	"testing"
)

// A renderer keeps the strings and namespaces of one render for the next
// (renderer.joinText, renderer.newNamespace). What a render returns must not
// change when later renders reuse them.
func TestRendererReuse(t *testing.T) {
	failing, err := Compile(`{% set ns = namespace(a=x ~ '!') %}{{ raise_exception('bad ' ~ ns.a ~ ' ' + x) }}`)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Compile(`{% set ns = namespace(a=1, b=2) %}{% set ns.a = 'z' ~ y %}{% set s = ns.a + y %}` +
		`{% macro m(v) %}<{{ v }}>{% endmacro %}{% set c = m(s) %}{{ c }}{{ ns.b }}`)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // a renderer's first render gives it its buffers
		_, err = failing.Render(map[string]Value{"x": "first"}, nil)
	}
	var first *Error
	if !errors.As(err, &first) {
		t.Fatalf("got %v, want an *Error", err)
	}
	const want = "bad first! first"
	if first.Message != want {
		t.Fatalf("message %q, want %q", first.Message, want)
	}
	for i := 0; i < 100; i++ {
		out, err := other.Render(map[string]Value{"y": "0123456789abcdef"}, nil)
		if err != nil || out != "<z0123456789abcdef0123456789abcdef>2" {
			t.Fatalf("render %d: %q, %v", i, out, err)
		}
		if _, err := failing.Render(map[string]Value{"x": "second"}, nil); err == nil {
			t.Fatal("no error")
		}
	}
	if first.Message != want {
		t.Errorf("message became %q after later renders, want %q", first.Message, want)
	}
}
