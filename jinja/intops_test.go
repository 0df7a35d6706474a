package jinja

import (
	"testing"
)

// Python's ints are unbounded, this engine's 64-bit: a result that does
// not fit is an error, never a wrapped value.
func TestIntOverflow(t *testing.T) {
	for _, src := range []string{
		`{{ 2 ** 64 }}`, `{{ 2 ** 63 }}`, `{{ (-2) ** 65 }}`, `{{ 3 ** 10**18 }}`, `{{ n + 1 }}`, `{{ -n - 2 }}`,
		`{{ n * 2 }}`, `{{ x|length * n * 2 }}`, `{{ n - -1 }}`, `{{ -(-n - 1) }}`, `{{ (-n - 1) // -1 }}`,
		`{{ (-n - 1)|abs }}`, `{{ [n, 1]|sum }}`, `{{ 99999999999999999999 }}`, `{{ -99999999999999999999 }}`,
		`{{ x.99999999999999999999 }}`, `{{ '99999999999999999999'|int }}`, `{{ '-0x8000000000000001'|int(base=16) }}`,
		`{{ 1e19|int }}`, `{{ '1e19'|int }}`, `{{ 1e19|round|int }}`, `{{ n|round(-1) }}`, `{{ x * 2 ** 64 }}`,
		`{{ range(0, n, n)[::n] }}`, `{{ range(-n, n, n)[::4] }}`, `{{ range(0, n, 2**62)[0:2] }}`,
		`{{ -1e30|filesizeformat }}`,
	} {
		_, err := render(t, src, nil)
		wantErr(t, src, err, "LimitError", "integer too large for this engine")
	}
	// A range longer than an int can count is still too long for the sandbox.
	_, err := render(t, `{{ range(-n - 1, n)|length }}`, nil)
	wantErr(t, "range(-n - 1, n)", err, "OverflowError", "Range too big")
	for src, want := range map[string]string{
		`{{ 2 ** 62 }}`: "4611686018427387904", `{{ -2 ** 63 }}`: "-9223372036854775808", `{{ n }}`: "9223372036854775807",
		`{{ -9223372036854775808 }}`: "-9223372036854775808", `{{ -n - 1 }}`: "-9223372036854775808",
		`{{ 1 ** 10**18 }}`: "1", `{{ (-1) ** (10**18 + 1) }}`: "-1", `{{ 0 ** 10**18 }}`: "0", `{{ n // -1 }}`: "-9223372036854775807",
		`{{ '-9223372036854775808'|int }}`: "-9223372036854775808", `{{ 'abc'|int }}`: "0", `{{ 'nan'|float|int }}`: "0",
		`{{ range(-n, n, n)|list }}`: "[-9223372036854775807, 0]", `{{ '%d' % 1e30 }}`: "1000000000000000019884624838656",
		`{% if false %}{{ 99999999999999999999 }}{% endif %}ok`: "ok", `{{ 2 ** -1 }}`: "0.5",
	} {
		if out, err := render(t, src, nil); out != want || err != nil {
			t.Errorf("%s: got %q, %v; want %q", src, out, err, want)
		}
	}
}
