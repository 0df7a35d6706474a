package bench

import "testing"

// TestEqual is Python's == on json.loads values (FORMAT.md §6.3).
func TestEqual(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true}, {`true`, `1`, true}, {`true`, `1.0`, true}, {`false`, `0`, true},
		{`true`, `2`, false}, {`null`, `null`, true}, {`null`, `0`, false}, {`null`, `""`, false},
		{`"a"`, `"a"`, true}, {`"a"`, `"A"`, false}, {`"1"`, `1`, false},
		{`[1, 2]`, `[1.0, 2]`, true}, {`[1, 2]`, `[2, 1]`, false}, {`[1]`, `[1, 1]`, false},
		{`{"a": 1, "b": 2}`, `{"b": 2, "a": 1.0}`, true}, {`{"a": 1}`, `{"a": 1, "b": 2}`, false},
		{`12345678901234567890123`, `12345678901234567890123`, true},
		{`12345678901234567890123`, `12345678901234567890124`, false},
		{`9007199254740993`, `9007199254740992.0`, false}, // exact, as Python compares int with float
		{`9007199254740992`, `9007199254740992.0`, true},
		{`1e400`, `1e400`, true},
	} {
		if got := Equal(mustParse(t, c.a), mustParse(t, c.b)); got != c.want {
			t.Errorf("%s == %s: %v", c.a, c.b, got)
		}
	}
}

// TestValueKinds: the lexical form decides int against float.
func TestValueKinds(t *testing.T) {
	for lit, k := range map[string]Kind{`5`: KindInt, `-5`: KindInt, `5.0`: KindFloat, `5e0`: KindFloat, `5E2`: KindFloat,
		`true`: KindBool, `null`: KindNull, `"5"`: KindString, `[]`: KindList, `{}`: KindMap, `123456789012345678901234567890`: KindInt} {
		if got := mustParse(t, lit).Kind(); got != k {
			t.Errorf("%s: %s, want %s", lit, got, k)
		}
	}
}

// TestValueRoundTrip: members in order, numbers as written, a repeated key's
// last value in its first place, strings escaped as JSON (no HTML escapes).
func TestValueRoundTrip(t *testing.T) {
	in := `{"b": 1.50, "a": [1, 2e3, -0.0], "b": "x<y>&\"\\\n\u0001é"}`
	want := `{"b":"x<y>&\"\\\n\u0001é","a":[1,2e3,-0.0]}`
	if got := mustParse(t, in).String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := Float(5).String(); got != "5.0" {
		t.Errorf("Float(5) is %s", got)
	}
	for _, bad := range []string{`{`, `[1,]`, `{"a" 1}`, `1 2`, ``, `nul`} {
		if _, err := ParseValue([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
