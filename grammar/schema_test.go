package grammar

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// JSON Schema → GBNF, keyword by keyword: valid instances accepted, invalid ones rejected.

type schemaCase struct {
	name    string
	schema  string
	valid   []string
	invalid []string
}

var schemaCases = []schemaCase{
	{"string", `{"type":"string"}`,
		[]string{`""`, `"abc"`, `"a\"b\\c\/"`, `"\u00e9\n\t"`, `"é😀"`, "\"\x7f\""},
		[]string{`abc`, `"abc`, "\"a\nb\"", `"\x"`, `"\u12"`, `1`, `null`}},
	{"string length", `{"type":"string","minLength":2,"maxLength":4}`,
		[]string{`"ab"`, `"abcd"`, `"\n\u00e9"`, `"éé"`, `"😀😀😀"`},
		[]string{`"a"`, `"abcde"`, `""`, `"\n"`}},
	{"number", `{"type":"number"}`,
		[]string{`0`, `-0`, `12`, `-3.25`, `1e10`, `1.5E-7`, `2e+308`, `100000000000000000000`, `0.000001234567890123456789`},
		[]string{`01`, `1.`, `.5`, `+1`, `1e`, `--1`, `"1"`, `NaN`, `1e1234`}},
	{"integer", `{"type":"integer"}`,
		[]string{`0`, `-7`, `9223372036854775807`, `18446744073709551615`},
		[]string{`1.0`, `1e3`, `01`, `true`, `"1"`, `123456789012345678901`}},
	{"boolean and null", `{"type":["boolean","null"]}`,
		[]string{`true`, `false`, `null`},
		[]string{`0`, `"true"`, `nul`, `True`}},
	{"enum of any JSON value", `{"enum":["red","a\"b",1.50,null,true,{"k":[1,"x"]},[]]}`,
		[]string{`"red"`, `"a\"b"`, `1.50`, `null`, `true`, `{"k":[1,"x"]}`, `[]`},
		[]string{`"blue"`, `1.5`, `false`, `{"k": [1, "x"]}`, `{"k":[1]}`, `[1]`}},
	{"const", `{"const":"fixed"}`, []string{`"fixed"`}, []string{`"other"`, `"fixed "`}},
	{"object required and optional in order", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"},"c":{"type":"boolean"}},"required":["b"]}`,
		[]string{`{"b":"x"}`, `{"a":1,"b":"x"}`, `{"b":"x","c":true}`, `{"a":1,"b":"x","c":false}`, `{ "a" : 1 , "b" : "x" }`, "{\n  \"a\": 1,\n  \"b\": \"x\"\n}"},
		[]string{`{}`, `{"a":1}`, `{"b":"x",}`, `{,"b":"x"}`, `{"b":"x","a":1}`, `{"a":1,,"b":"x"}`, `{"b":"x","d":1}`, `{"a":1 "b":"x"}`, `{"b":"x","b":"y"}`}},
	{"object all optional", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}}}`,
		[]string{`{}`, `{"a":1}`, `{"b":2}`, `{"c":3}`, `{"a":1,"c":3}`, `{"b":2,"c":3}`, `{"a":1,"b":2,"c":3}`},
		[]string{`{,}`, `{"a":1,}`, `{,"c":3}`, `{"c":3,"a":1}`, `{"d":4}`}},
	{"object all required", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`,
		[]string{`{"a":1,"b":2}`},
		[]string{`{"a":1}`, `{"b":2}`, `{}`, `{"b":2,"a":1}`}},
	{"additionalProperties false", `{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}`,
		[]string{`{}`, `{"a":1}`}, []string{`{"b":1}`, `{"a":1,"b":1}`}},
	{"additionalProperties absent with properties: none", `{"type":"object","properties":{"a":{"type":"integer"}}}`,
		[]string{`{"a":1}`}, []string{`{"a":1,"b":1}`}},
	{"additionalProperties true", `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":true}`,
		[]string{`{"a":1}`, `{"a":1,"x":[1,{"y":null}]}`, `{"a":1,"x":1,"y":"z"}`},
		[]string{`{"x":1}`, `{"x":1,"a":1}`, `{"a":1,"x":}`}},
	{"additionalProperties schema", `{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":{"type":"string"}}`,
		[]string{`{}`, `{"a":1}`, `{"x":"s"}`, `{"a":1,"x":"s","y":"t"}`},
		[]string{`{"x":1}`, `{"a":1,"x":true}`, `{"x":"s",}`}},
	{"free-form object", `{"type":"object"}`,
		[]string{`{}`, `{"a":1}`, `{"a":{"b":[1,2,{"c":null}]},"d":"e"}`},
		[]string{`[]`, `{"a"}`, `{"a":1,}`, `{a:1}`}},
	{"nested objects", `{"type":"object","properties":{"loc":{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}},"required":["lat","lon"]}},"required":["loc"]}`,
		[]string{`{"loc":{"lat":1.5,"lon":-2}}`},
		[]string{`{"loc":{"lat":1.5}}`, `{"loc":{}}`, `{"loc":"here"}`}},
	{"array items and bounds", `{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3}`,
		[]string{`[1]`, `[1,2,3]`, `[ 1 , 2 ]`},
		[]string{`[]`, `[1,2,3,4]`, `[1,]`, `["a"]`, `[1 2]`}},
	{"array without bounds", `{"type":"array","items":{"type":"string"}}`,
		[]string{`[]`, `["a"]`, `["a","b","c","d","e"]`}, []string{`[1]`, `["a",1]`, `[,]`}},
	{"array exact count", `{"type":"array","minItems":2,"maxItems":2}`,
		[]string{`[1,"x"]`, `[null,{}]`}, []string{`[1]`, `[1,2,3]`}},
	{"array maxItems 0", `{"type":"array","maxItems":0}`, []string{`[]`, `[ ]`}, []string{`[1]`}},
	{"anyOf", `{"anyOf":[{"type":"integer"},{"type":"string","maxLength":1},{"type":"object","properties":{"k":{"const":1}},"required":["k"]}]}`,
		[]string{`1`, `"a"`, `{"k":1}`}, []string{`1.5`, `"ab"`, `{}`, `null`}},
	{"oneOf", `{"oneOf":[{"type":"boolean"},{"type":"null"}]}`, []string{`true`, `null`}, []string{`0`}},
	{"type list", `{"type":["string","integer"],"maxLength":2}`, []string{`"ab"`, `12345`}, []string{`"abc"`, `1.5`}},
	{"nullable", `{"type":"string","nullable":true}`, []string{`"a"`, `null`}, []string{`1`}},
	{"$ref to $defs", `{"type":"object","properties":{"p":{"$ref":"#/$defs/point"},"q":{"$ref":"#/$defs/point"}},"required":["p"],"$defs":{"point":{"type":"array","items":{"type":"number"},"minItems":2,"maxItems":2}}}`,
		[]string{`{"p":[1,2]}`, `{"p":[1,2],"q":[3,4]}`}, []string{`{"p":[1]}`, `{"q":[1,2]}`}},
	{"$ref to definitions", `{"definitions":{"name":{"type":"string","minLength":1}},"$ref":"#/definitions/name"}`,
		[]string{`"x"`}, []string{`""`}},
	{"recursive $ref", `{"$defs":{"tree":{"type":"object","properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/tree"}}},"required":["v"]}},"$ref":"#/$defs/tree"}`,
		[]string{`{"v":1}`, `{"v":1,"kids":[{"v":2},{"v":3,"kids":[{"v":4,"kids":[]}]}]}`},
		[]string{`{"v":1,"kids":[{}]}`, `{"v":1,"kids":[{"v":"x"}]}`}},
	{"recursive $ref to the root", `{"type":"object","properties":{"next":{"$ref":"#"}}}`,
		[]string{`{}`, `{"next":{"next":{}}}`}, []string{`{"next":1}`}},
	{"allOf merges objects", `{"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"properties":{"b":{"type":"string"}}}]}`,
		[]string{`{"a":1}`, `{"a":1,"b":"x"}`}, []string{`{"b":"x"}`, `{"a":1,"c":2}`}},
	{"required not in properties", `{"type":"object","properties":{"a":{"type":"integer"}},"required":["z"]}`,
		[]string{`{"z":1}`, `{"a":1,"z":"any"}`}, []string{`{"a":1}`}},
	{"property schema false", `{"type":"object","properties":{"a":false,"b":{"type":"integer"}}}`,
		[]string{`{}`, `{"b":1}`}, []string{`{"a":1}`}},
	{"empty schema and true", `{}`, []string{`1`, `"x"`, `{"a":[]}`, `null`}, []string{`x`, `{`}},
	{"BFCL-style types", `{"type":"dict","properties":{"x":{"type":"float"},"t":{"type":"tuple","items":{"type":"integer"}},"any":{"type":"any"}},"required":["x"]}`,
		[]string{`{"x":1.5}`, `{"x":2,"t":[1,2],"any":"v"}`}, []string{`{"x":"1"}`, `{"x":1,"t":["a"]}`}},
	{"unicode property names", `{"type":"object","properties":{"名前":{"type":"string"},"a\"b":{"type":"integer"}},"required":["名前"]}`,
		[]string{`{"名前":"x"}`, `{"名前":"x","a\"b":1}`}, []string{`{"a\"b":1}`}},
}

func TestSchemaKeywords(t *testing.T) {
	for _, c := range schemaCases {
		for _, ws := range []Whitespace{WhitespaceBounded, WhitespaceCompact} {
			g, _, err := FromJSONSchema(json.RawMessage(c.schema), Options{Whitespace: ws})
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			if err := g.Check(); err != nil {
				t.Errorf("%s: Check: %v\n%s", c.name, err, g)
				continue
			}
			for _, v := range c.valid {
				if ws == WhitespaceCompact {
					v = compact(t, v)
				}
				if !g.Match(v) {
					t.Errorf("%s (whitespace %d): valid %s rejected\n%s", c.name, ws, v, g)
				}
				for i := range len(v) {
					if !g.Prefix(v[:i]) {
						t.Errorf("%s: prefix %q of valid %s rejected", c.name, v[:i], v)
						break
					}
				}
			}
			for _, v := range c.invalid {
				if g.Match(v) {
					t.Errorf("%s (whitespace %d): invalid %s accepted\n%s", c.name, ws, v, g)
				}
			}
		}
	}
}

func compact(t *testing.T, s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if in {
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				in = false
			}
			continue
		}
		switch c {
		case ' ', '\n', '\t':
			continue
		case '"':
			in = true
		}
		b.WriteByte(c)
	}
	return b.String()
}

func TestWhitespace(t *testing.T) {
	g, _, err := FromJSONSchema([]byte(`{"type":"object","properties":{"a":{"type":"array"}}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	deep := "{\n" + strings.Repeat(" ", MaxIndent) + "\"a\": []\n}"
	for s, want := range map[string]bool{
		`{"a":[]}`:                     true,
		`{ "a" : [ ] }`:                true,
		"{\n\t\"a\": [\n\t\t1\n\t]\n}": true,
		deep:                           true,
		"{\n" + strings.Repeat(" ", MaxIndent+1) + "\"a\": []\n}": false,
		"{\n\n\"a\":[]}": false, // no blank lines
		`{  "a":[]}`:     false, // two spaces without a newline
		"{\r\n\"a\":[]}": false,
		` {"a":[]}`:      false, // nothing around the value itself
		`{"a":[]} `:      false,
	} {
		if g.Match(s) != want {
			t.Errorf("%q: got %v", s, !want)
		}
	}
}

func TestSchemaWarnings(t *testing.T) {
	_, warns, err := FromJSONSchema([]byte(`{"type":"object","description":"d","title":"t","properties":{
		"s":{"type":"string","pattern":"^a","format":"date","default":"x"},
		"n":{"type":"number","minimum":0,"maximum":9},
		"l":{"type":"array","uniqueItems":true,"maxItems":5000}}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(warns, "\n")
	for _, want := range []string{`/properties/s: keyword "pattern"`, `/properties/s: keyword "format"`,
		`/properties/n: keyword "minimum"`, `/properties/n: keyword "maximum"`, `/properties/l: keyword "uniqueItems"`,
		`/properties/l: maxItems 5000 above 1000`} {
		if !strings.Contains(joined, want) {
			t.Errorf("no warning %q in:\n%s", want, joined)
		}
	}
	for _, quiet := range []string{"description", "title", "default"} {
		if strings.Contains(joined, quiet) {
			t.Errorf("annotation %q warned about:\n%s", quiet, joined)
		}
	}
}

func TestSchemaErrors(t *testing.T) {
	for _, s := range []string{
		`{"type":`, `false`, `{"enum":[]}`, `{"type":"array","minItems":3,"maxItems":2}`,
		`{"$ref":"#/$defs/missing"}`, `{"anyOf":[]}`, `{"type":"object","properties":{"a":false},"required":["a"]}`,
		`{"type":"string","minLength":5,"maxLength":1}`,
	} {
		_, _, err := FromJSONSchema([]byte(s), Options{})
		if err == nil {
			t.Errorf("%s: no error", s)
		}
	}
	_, _, err := FromJSONSchema([]byte(`{"properties":{"a":{"enum":[]}}}`), Options{})
	var se *SchemaError
	if !errors.As(err, &se) || se.Path != "/properties/a" {
		t.Errorf("error %v: want path /properties/a", err)
	}
}

// TestSeveralSchemas: schemas share one grammar under different prefixes, and their rule names never
// collide.
func TestSeveralSchemas(t *testing.T) {
	g := New()
	a, _, err := AddSchema(g, "a", []byte(`{"type":"object","properties":{"b-c":{"type":"object","properties":{"x":{"type":"integer"}}}}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ab, _, err := AddSchema(g, "a-b", []byte(`{"type":"object","properties":{"c":{"type":"object","properties":{"y":{"type":"string"}}}}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.Rule("root", a+" | "+ab)
	if err := g.Check(); err != nil {
		t.Fatalf("%v\n%s", err, g)
	}
	for s, want := range map[string]bool{`{"b-c":{"x":1}}`: true, `{"c":{"y":"s"}}`: true, `{"b-c":{"y":"s"}}`: false, `{"c":{"x":1}}`: false} {
		if g.Match(s) != want {
			t.Errorf("%s: got %v\n%s", s, !want, g)
		}
	}
}

func TestTools(t *testing.T) {
	tools := []Tool{
		{Name: "get_weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["c","f"]}},"required":["city"]}`)},
		{Name: "math.factorial", Parameters: json.RawMessage(`{"type":"dict","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		{Name: "ping"},
	}
	tg, err := Tools(tools, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := tg.Grammar
	if err := g.Check(); err != nil {
		t.Fatalf("%v\n%s", err, tg.Text)
	}
	if tg.Text != g.String() || !strings.HasPrefix(tg.Text, "root ::= ") {
		t.Error("Text is not the grammar, root first")
	}
	for s, want := range map[string]bool{
		`{"name":"get_weather","arguments":{"city":"Paris"}}`:                  true,
		`{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}`: true,
		`{"name":"math.factorial","arguments":{"n":5}}`:                        true,
		`{"name":"ping","arguments":{}}`:                                       true,
		`{"name":"get_weather","arguments":{"n":5}}`:                           false,
		`{"name":"math_factorial","arguments":{"n":5}}`:                        false,
		`{"name":"ping","arguments":{"x":1}}`:                                  false,
	} {
		if g.Match(s) != want {
			t.Errorf("%s: got %v", s, !want)
		}
	}
	if !g.MatchRule(tg.Args[0], `{"city":"Oslo","unit":"f"}`) || g.MatchRule(tg.Args[1], `{"city":"Oslo"}`) {
		t.Error("Args rules")
	}
	if len(tg.Warnings) != 1 || !strings.HasPrefix(tg.Warnings[0], "math.factorial: ") {
		t.Errorf("warnings %q", tg.Warnings)
	}
	if _, err := Tools(nil, Options{}); err == nil {
		t.Error("no tools: no error")
	}
	if _, err := Tools([]Tool{{Name: "bad", Parameters: json.RawMessage(`{"enum":[]}`)}}, Options{}); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Errorf("bad tool: %v", err)
	}
}

func TestCache(t *testing.T) {
	c := NewCache(2)
	set := func(desc string) []Tool {
		return []Tool{{Name: "f", Parameters: json.RawMessage(`{"type":"object","description":"` + desc + `"}`)}}
	}
	a1, err := c.Tools(set("a"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := c.Tools(set("a"), Options{})
	if a1 != a2 {
		t.Error("same tool set built twice")
	}
	if b, _ := c.Tools(set("a"), Options{Whitespace: WhitespaceCompact}); b == a1 {
		t.Error("options ignored by the cache")
	}
	if b, _ := c.Tools(set("b"), Options{}); b == a1 {
		t.Error("different schemas share an entry")
	}
	// Capacity 2: the first entry is gone.
	if a3, _ := c.Tools(set("a"), Options{}); a3 == a1 {
		t.Error("oldest entry not evicted")
	}
	if _, err := c.Tools(nil, Options{}); err == nil {
		t.Error("error not returned")
	}
}
