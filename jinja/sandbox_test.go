package jinja

import (
	"strconv"
	"strings"
	"testing"
)

// The sandbox's limits and bounds, each by a template that hits it
// (limits_test.go, bounds_test.go, nesting_test.go, intops_test.go). Each
// case is also what a mutation check removes one check against: some case
// must then fail.

// render compiles src and renders it with vars (x is "x", big and big2
// 100 KB of text, biglist and bigdict 10k items, n the largest int) and
// opts.
func render(t *testing.T, src string, opts *Options) (string, error) {
	t.Helper()
	tpl, err := Compile(src)
	if err != nil {
		return "", err
	}
	bigdict := NewDict(10_000)
	for i := range 10_000 {
		bigdict.SetStr(strconv.Itoa(i), i)
	}
	vars := map[string]Value{"x": "x", "big": strings.Repeat("b", 100_000), "big2": strings.Repeat("b", 100_000),
		"biglist": NewList(make([]Value, 10_000)), "bigdict": bigdict, "n": 9223372036854775807}
	return tpl.Render(vars, opts)
}

// wantErr checks that err is an *Error of kind whose message contains msg.
func wantErr(t *testing.T, src string, err error, kind, msg string) {
	t.Helper()
	e, ok := err.(*Error)
	if !ok || e.Kind != kind || !strings.Contains(e.Message, msg) {
		t.Errorf("%.80s: got %v, want %s containing %q", src, err, kind, msg)
	}
}
