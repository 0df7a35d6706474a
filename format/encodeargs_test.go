package format

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
)

// encodeArgsReference is encodeArgs as it was written before the direct
// encoder: a map for the last values, encoding/json for every token, then
// the json.dumps layout over the whole text. encodeArgs must agree.
func encodeArgsReference(keys []string, values []any) (string, error) {
	order := make([]string, 0, len(keys))
	vals := make(map[string]any, len(keys))
	for i, k := range keys {
		if _, seen := vals[k]; !seen {
			order = append(order, k)
		}
		vals[k] = values[i]
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeJSON(&b, k); err != nil {
			return "", err
		}
		b.WriteByte(':')
		if err := writeJSON(&b, vals[k]); err != nil {
			return "", err
		}
	}
	b.WriteByte('}')
	return string(appendSpaced(nil, b.Bytes())), nil
}

var encodeArgsValues = []any{
	"Paris", "", "a \"quoted\" word", `back\slash`, "tab\tand\nnewline", "<b>&amp;</b>", "é日本", "\u2028\u2029",
	"\x00\x1f\x7f", "bad \xff utf-8", "a, b: c", true, false, nil, json.Number("42"), json.Number("-1.5e3"),
	json.Number("01"), json.Number("nope"), json.RawMessage(`{"a":[1,2,{"b":"c, d: e"}]}`),
	json.RawMessage(`{"a": 1}`), json.RawMessage(`["<x>","\u00e9","é"]`), json.RawMessage(`[]`),
	json.RawMessage(`{"s":"q\"u,o:t"}`), pyDict{{"k", "v"}, {"n", json.Number("1")}}, []any{"x", 1.5, nil},
	map[string]any{"z": 1, "a": 2}, 3.25, 7,
}

func TestEncodeArgsAgrees(t *testing.T) {
	for i, v := range encodeArgsValues {
		for _, w := range encodeArgsValues {
			keys := []string{"k" + strconv.Itoa(i), "odd \"key\" é", "k" + strconv.Itoa(i)}
			vals := []any{v, w, w}
			if i%3 == 0 {
				keys, vals = keys[:2], vals[:2]
			}
			checkEncodeArgs(t, keys, vals)
		}
	}
	// Many keys (the map path), repeated.
	var keys []string
	var vals []any
	for i := range 40 {
		keys = append(keys, "k"+strconv.Itoa(i%23))
		vals = append(vals, encodeArgsValues[i%len(encodeArgsValues)])
	}
	checkEncodeArgs(t, keys, vals)
	checkEncodeArgs(t, nil, nil)
}

func checkEncodeArgs(t *testing.T, keys []string, vals []any) {
	t.Helper()
	got, gotErr := encodeArgs(keys, vals)
	want, wantErr := encodeArgsReference(keys, vals)
	if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Errorf("encodeArgs(%q, %#v) = %q, %v; want %q, %v", keys, vals, got, gotErr, want, wantErr)
	}
}

// FuzzEncodeArgs compares encodeArgs with the reference on string values
// and on values typed from raw text.
func FuzzEncodeArgs(f *testing.F) {
	f.Add("location", "Paris", "unit", "celsius")
	f.Add("a", `{"x": [1, 2]}`, "a", "3.5")
	f.Add("é\"", "\u2028<&>", "n", "None")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		keys := []string{k1, k2}
		checkEncodeArgs(t, keys, []any{v1, v2})
		var typed []any
		for _, v := range []string{v1, v2} {
			for _, schema := range []string{`{"type":"integer"}`, `{"type":"number"}`, `{"type":["object","array"]}`, `{"type":"boolean"}`} {
				x, _ := typeValue(v, json.RawMessage(schema))
				typed = append(typed, x)
			}
		}
		checkEncodeArgs(t, []string{k1, k2, k1, k2, k2, k1, k1, k2}, typed)
	})
}

var pyJSONCases = []string{
	`{'location': 'Paris', 'n': 3, 'f': -1.5e3, 'ok': True, 'none': None}`,
	`[1, 'two', [3, {'four': 4}], (5, 6), {7}]`,
	`{'q': 'say "hi"', 'b': 'back\\slash', 'u': 'é', 'h': '<&>', 'nl': 'a\nb'}`,
	`{'big': 123456789012345678901234567890, 'hex': 0x1F, 'e': 1e400, 'inf': float('inf')}`,
	`{}`, `[]`, `()`, `''`, `{'a': {'b': {'c': []}}}`, `{1: 2, 'k': 'v', 'k': 'w'}`,
}

func TestPyJSONAgrees(t *testing.T) {
	for _, s := range pyJSONCases {
		checkPyJSON(t, s)
	}
}

func checkPyJSON(t *testing.T, s string) {
	t.Helper()
	if q, g := string(appendQuotedJSON(nil, s)), kvQuoteJSON(s); q != g {
		t.Errorf("appendQuotedJSON(%q) = %s; json.Marshal gives %s", s, q, g)
	}
	v, err := parsePyLiteral(s)
	if err != nil {
		return
	}
	got, gotErr := pyJSON(v)
	want, wantErr := pyJSONEncoded(v)
	if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Errorf("pyJSON(%s) = %q, %v; encoding/json gives %q, %v", s, got, gotErr, want, wantErr)
	}
}

// FuzzPyJSON compares pyJSON with encoding/json on parsed Python literals,
// and appendQuotedJSON with json.Marshal.
func FuzzPyJSON(f *testing.F) {
	for _, s := range pyJSONCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkPyJSON(t, s) })
}

// TestPyStringLiterals: the string literals the scan without a builder
// returns as they are, and those it leaves to the decoding loop.
func TestPyStringLiterals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`'Paris'`, "Paris"},
		{`"Paris"`, "Paris"},
		{`''`, ""},
		{`'a"b'`, `a"b`},
		{`"it's"`, "it's"},
		{`'é日本'`, "é日本"},
		{"'bad \xff byte'", "bad \xff byte"},
		{`'a\'b'`, "a'b"},
		{`'tab\there'`, "tab\there"},
		{`r'C:\dir'`, `C:\dir`},
		{`r'plain'`, "plain"},
		{"'line\nbreak'", "line\nbreak"},
		{`'con' "cat" 'enated'`, "concatenated"},
		{`'one' r'\two'`, `one\two`},
		{`'''triple 'quoted' '''`, "triple 'quoted' "},
		{`"""x"""`, "x"},
	} {
		v, err := parsePyLiteral(c.in)
		if err != nil || v != c.want {
			t.Errorf("parsePyLiteral(%q) = %#v, %v; want %q", c.in, v, err, c.want)
		}
	}
}
