package jinja

import (
	"math"
	"testing"
)

// Expected outputs come from Python 3.11:
//
//	json.dumps(json.loads(src), indent=indent, separators=sep, sort_keys=sk, ensure_ascii=ea)
func TestToJSONRoundTrip(t *testing.T) {
	cases := []struct {
		src        string
		indent     Value
		separators Value
		sortKeys   bool
		ascii      bool
		want       string
	}{
		{"{\"b\": [1, 2.5, -0.0, 1e20, 1E-7, true, null], \"a\": {\"x\": \"y\"}, \"c\": {}, \"d\": []}", nil, nil, false, false, "{\"b\": [1, 2.5, -0.0, 1e+20, 1e-07, true, null], \"a\": {\"x\": \"y\"}, \"c\": {}, \"d\": []}"},
		{"{\"b\": [1, 2.5], \"a\": {\"x\": \"y\"}, \"c\": {}, \"d\": []}", 2, nil, false, false, "{\n  \"b\": [\n    1,\n    2.5\n  ],\n  \"a\": {\n    \"x\": \"y\"\n  },\n  \"c\": {},\n  \"d\": []\n}"},
		{"{\"b\": [1, 2.5], \"a\": {\"x\": \"y\"}, \"c\": {}, \"d\": []}", "\t", nil, true, false, "{\n\t\"a\": {\n\t\t\"x\": \"y\"\n\t},\n\t\"b\": [\n\t\t1,\n\t\t2.5\n\t],\n\t\"c\": {},\n\t\"d\": []\n}"},
		{"[1, [2, [3]]]", 0, nil, false, false, "[\n1,\n[\n2,\n[\n3\n]\n]\n]"},
		{"[1, [2, [3]]]", -3, nil, false, false, "[\n1,\n[\n2,\n[\n3\n]\n]\n]"},
		{"[1, [2]]", true, nil, false, false, "[\n 1,\n [\n  2\n ]\n]"},
		{"{\"a\": [1, 2]}", nil, NewList([]Value{",", ":"}), false, false, "{\"a\":[1,2]}"},
		{"{\"a\": [1, 2]}", 1, Tuple{", ", " = "}, false, false, "{\n \"a\" = [\n  1, \n  2\n ]\n}"},
		{"\"\\u2028\\u007f\\u0000\\u001f\\u00e9\\ud83d\\ude00\\\"\\\\/\\b\\f\\n\\r\\t\"", nil, nil, false, false, "\"\u2028\x7f\\u0000\\u001fé😀\\\"\\\\/\\b\\f\\n\\r\\t\""},
		{"\"\\u2028\\u007f\\u0000\\u001f\\u00e9\\ud83d\\ude00\\\"\\\\/\\b\\f\\n\\r\\t\"", nil, nil, false, true, "\"\\u2028\\u007f\\u0000\\u001f\\u00e9\\ud83d\\ude00\\\"\\\\/\\b\\f\\n\\r\\t\""},
		{"{\"é\": \"ü\", \"z\": 1, \"Z\": 2, \"a\": 3}", nil, nil, true, true, "{\"Z\": 2, \"a\": 3, \"z\": 1, \"\\u00e9\": \"\\u00fc\"}"},
		{"[12345678901234567, 0.1, 100.0, 1e16, 1.5e-5, 123456789.125, -1, 0]", nil, nil, false, false, "[12345678901234567, 0.1, 100.0, 1e+16, 1.5e-05, 123456789.125, -1, 0]"},
		{"[NaN, Infinity, -Infinity]", nil, nil, false, false, "[NaN, Infinity, -Infinity]"},
		{"{\"a\": 1, \"a\": 2, \"b\": 3}", nil, nil, false, false, "{\"a\": 2, \"b\": 3}"},
	}
	for _, c := range cases {
		v, err := FromJSON([]byte(c.src))
		if err != nil {
			t.Fatalf("FromJSON(%q): %v", c.src, err)
		}
		got, err := toJSON(v, c.indent, c.separators, c.sortKeys, c.ascii)
		if err != nil || got != c.want {
			t.Errorf("toJSON(%q, %v, %v, %v, %v) = %q, %v; want %q", c.src, c.indent, c.separators, c.sortKeys, c.ascii, got, err, c.want)
		}
	}
}

func TestFromJSONKinds(t *testing.T) {
	v, err := FromJSON([]byte(` {"i": -0, "f": 1.0, "e": 1e2, "big": 123456789012345678901234567890, "s": "\ud83d\ude00x", "n": null, "t": true, "l": []} `))
	if err != nil {
		t.Fatal(err)
	}
	d := v.(*Dict)
	want := map[string]Value{"i": 0, "f": 1.0, "e": 100.0, "s": "😀x", "n": nil, "t": true}
	for k, w := range want {
		got, _ := d.GetStr(k)
		if got != w {
			t.Errorf("%s: got %#v want %#v", k, got, w)
		}
	}
	if big, _ := d.GetStr("big"); big != 1.2345678901234568e29 {
		t.Errorf("big: got %#v", big)
	}
	if k := d.Keys(); len(k) != 8 || k[0] != "i" || k[7] != "l" {
		t.Errorf("key order: %v", k)
	}
	for _, bad := range []string{``, `[1,]`, `{"a" 1}`, `[1] x`, `"a`, `01`, `[tru]`, "\"\x01\""} {
		if _, err := FromJSON([]byte(bad)); err == nil {
			t.Errorf("FromJSON(%q): no error", bad)
		}
	}
}

func TestToJSONErrors(t *testing.T) {
	gen := &Generator{name: "sync_do_map"}
	cases := []struct {
		v          Value
		indent     Value
		separators Value
		sortKeys   bool
		kind, msg  string
	}{
		// json.dumps({(1,2): 3})
		{mkDict(Tuple{1, 2}, 3), nil, nil, false, "TypeError", "keys must be str, int, float, bool or None, not tuple"},
		{NewList([]Value{gen}), nil, nil, false, "TypeError", "Object of type generator is not JSON serializable"},
		{Undefined{}, nil, nil, false, "TypeError", "Object of type Undefined is not JSON serializable"},
		// json.dumps({1: 2, 'a': 3}, sort_keys=True)
		{mkDict(1, 2, "a", 3), nil, nil, true, "TypeError", "'<' not supported between instances of 'str' and 'int'"},
		{mkDict("a", 3, 1, 2), nil, nil, true, "TypeError", "'<' not supported between instances of 'int' and 'str'"},
		{1, 1.5, nil, false, "TypeError", "can't multiply sequence by non-int of type 'float'"},
		{1, nil, Tuple{","}, false, "ValueError", "not enough values to unpack (expected 2, got 1)"},
		{1, nil, "abc", false, "ValueError", "too many values to unpack (expected 2)"},
		{1, nil, Tuple{1, 2}, false, "TypeError", "make_encoder() argument 5 must be str, not int"},
		{1, nil, 5, false, "TypeError", "cannot unpack non-iterable int object"},
	}
	for _, c := range cases {
		_, err := toJSON(c.v, c.indent, c.separators, c.sortKeys, false)
		e, ok := err.(*Error)
		if !ok || e.Kind != c.kind || e.Message != c.msg {
			t.Errorf("toJSON(%s): got %v; want %s: %s", repr(c.v), err, c.kind, c.msg)
		}
	}
}

func TestToJSONKeysAndSort(t *testing.T) {
	// json.dumps({True: 1, None: 2, 1.5: 3, float('nan'): 4, 2: 5})
	d := mkDict(true, 1, nil, 2, 1.5, 3, math.NaN(), 4, 2, 5)
	got, err := toJSON(d, nil, nil, false, false)
	if want := `{"true": 1, "null": 2, "1.5": 3, "NaN": 4, "2": 5}`; err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	// json.dumps({2: 1, 1.5: 2, True: 3}, sort_keys=True)
	got, err = toJSON(mkDict(2, 1, 1.5, 2, true, 3), nil, nil, true, false)
	if want := `{"true": 3, "1.5": 2, "2": 1}`; err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	got, _ = toJSON(Tuple{Markup("<a>"), NewList(nil)}, nil, nil, false, false)
	if want := `["<a>", []]`; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}

func TestFromGo(t *testing.T) {
	v := FromGo(map[string]any{"b": []any{1, "x", nil}, "a": 2.5})
	got, _ := toJSON(v, nil, nil, false, false)
	if want := `{"a": 2.5, "b": [1, "x", null]}`; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}

// mkDict builds a dict from alternating keys and values.
func mkDict(kv ...Value) *Dict {
	d := NewDict(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		if err := d.Set(kv[i], kv[i+1]); err != nil {
			panic(err)
		}
	}
	return d
}

func TestToJSONLazySeparatorErrors(t *testing.T) {
	cases := []struct {
		v, indent, seps Value
		want, err       string
	}{
		// json.dumps('a', separators=(1, 2)), json.dumps('a', indent=1.5): a lone str skips the encoder.
		{"a", nil, Tuple{1, 2}, `"a"`, ""},
		{"a", 1.5, nil, `"a"`, ""},
		// json.dumps(1, indent=2, separators=(1, 2))
		{1, 2, Tuple{1, 2}, "1", ""},
		// json.dumps([1, 2], indent=2, separators=(1, ':'))
		{NewList([]Value{1, 2}), 2, Tuple{1, ":"}, "", "TypeError: unsupported operand type(s) for +: 'int' and 'str'"},
		// json.dumps({'a': 1}, indent=2, separators=(',', 1))
		{mkDict("a", 1), 2, Tuple{",", 1}, "", "TypeError: sequence item 2: expected str instance, int found"},
		// json.dumps(1, separators=(',', 2))
		{1, nil, Tuple{",", 2}, "", "TypeError: make_encoder() argument 5 must be str, not int"},
		{1, nil, Tuple{2, ","}, "", "TypeError: make_encoder() argument 6 must be str, not int"},
	}
	for _, c := range cases {
		got, err := toJSON(c.v, c.indent, c.seps, false, false)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != c.want || gotErr != c.err {
			t.Errorf("toJSON(%s, %v, %v) = %q, %q; want %q, %q", repr(c.v), c.indent, c.seps, got, gotErr, c.want, c.err)
		}
	}
}

// TestFromJSONNesting checks that containers nested in each other keep their
// own members (the decoder collects them on shared stacks), and that strings
// with and without escapes decode alike. Wants from Python's json.dumps(json.loads(src)).
func TestFromJSONNesting(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`[{"a": [1, {"b": 2, "c": [3, 4]}], "d": 5}, [6, [7, {"e": {}}]], 8, {}, []]`,
			`[{"a": [1, {"b": 2, "c": [3, 4]}], "d": 5}, [6, [7, {"e": {}}]], 8, {}, []]`},
		{`{"a": [1, {"b": [[], {}, [2, {"c": "x\ny"}]], "b": 3}], "d": {"e": {"f": [4]}, "e": 5}, "g": "pléin", "h": "esc\u00e9\"aped"}`,
			`{"a": [1, {"b": 3}], "d": {"e": 5}, "g": "pléin", "h": "escé\"aped"}`},
		{"[\"a\xffb\", \"\\u00e9\xfe\"]", `["a�b", "é�"]`},
	} {
		v, err := FromJSON([]byte(c.src))
		if err != nil {
			t.Fatalf("FromJSON(%q): %v", c.src, err)
		}
		if got, err := toJSON(v, nil, nil, false, false); err != nil || got != c.want {
			t.Errorf("FromJSON(%q) = %q, %v; want %q", c.src, got, err, c.want)
		}
	}
	for _, bad := range []string{`[1, {"a": [2}]`, `{"a": [1, 2}`, `{"a" 1}`, `["abc`, `["a\x"]`, `[1] 2`} {
		if _, err := FromJSON([]byte(bad)); err == nil {
			t.Errorf("FromJSON(%q): no error", bad)
		}
	}
}

func TestFromJSONMembers(t *testing.T) {
	src := []byte(` {"m": [1, {"x": "y"}] , "n" :null,"m": "s\"q", "o": {"p": 2.5}} `)
	ms, err := FromJSONMembers(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ key, raw, value string }{
		{"m", `[1, {"x": "y"}]`, `[1, {"x": "y"}]`},
		{"n", `null`, `null`},
		{"m", `"s\"q"`, `"s\"q"`},
		{"o", `{"p": 2.5}`, `{"p": 2.5}`},
	}
	if len(ms) != len(want) {
		t.Fatalf("got %d members, want %d", len(ms), len(want))
	}
	for i, w := range want {
		got, _ := toJSON(ms[i].Value, nil, nil, false, false)
		if ms[i].Key != w.key || string(ms[i].Raw) != w.raw || got != w.value {
			t.Errorf("member %d: got %q %q %s; want %q %q %s", i, ms[i].Key, ms[i].Raw, got, w.key, w.raw, w.value)
		}
	}
	if ms, err := FromJSONMembers([]byte(`{}`)); err != nil || len(ms) != 0 {
		t.Errorf("{}: %v, %v", ms, err)
	}
	for _, bad := range []string{`[]`, `null`, `"x"`, `{`, `{"a": 1} 2`, `{"a": [}`, ``} {
		if _, err := FromJSONMembers([]byte(bad)); err == nil {
			t.Errorf("FromJSONMembers(%q): no error", bad)
		}
	}
}

// TestAppendPyJSONString covers the runs copied whole and the characters
// escaped between them. Wants from Python's json.dumps(s, ensure_ascii=...).
func TestAppendPyJSONString(t *testing.T) {
	for _, c := range []struct {
		s     string
		ascii bool
		want  string
	}{
		{"", false, `""`},
		{"plain text", false, `"plain text"`},
		{"a\x7fb\x01c\u2028d\U0001F600", false, "\"a\x7fb\\u0001c\u2028d\U0001F600\""},
		{"a\x7fb\x01c\u2028d\U0001F600", true, `"a\u007fb\u0001c\u2028d\ud83d\ude00"`},
		{"tab\there \"q\" back\\slash\r\n", false, `"tab\there \"q\" back\\slash\r\n"`},
		{"bad \xff utf8 \xe2\x82", false, "\"bad \uFFFD utf8 \uFFFD\uFFFD\""},
		{"bad \xff utf8", true, `"bad \ufffd utf8"`},
		{"élan", true, `"\u00e9lan"`},
	} {
		if got := string(appendPyJSONString(nil, c.s, c.ascii)); got != c.want {
			t.Errorf("appendPyJSONString(%q, %v) = %s, want %s", c.s, c.ascii, got, c.want)
		}
	}
}
