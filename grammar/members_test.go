package grammar

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TextWithout: any text without the stop markup, including the markup's
// first character repeated or followed by something else; never the stop
// itself, nor a text ending in part of it.
func TestTextWithout(t *testing.T) {
	g := New()
	g.Rule("root", g.TextWithout("</p>"))
	for s, want := range map[string]bool{
		"":                true,
		"plain":           true,
		"a < b":           true,
		"std::cout << x;": true,
		"<<p":             true,
		"</x> and </pre>": true,
		"line\nbreak":     true,
		"x</p>":           false,
		"</p>":            false,
		"x </p> y":        false,
		"ends in </":      true, // the start of the stop at the end: the value ends where the stop first occurs
		"ends in <":       true,
		"ends in <</":     true,
		"ends in </p":     true,
		"</p>x</p":        false,
		"a </<b> c":       true, // a partial stop, then the first character again
		"<<</</":          true,
	} {
		if got := g.Match(s); got != want {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
	if g.TextWithout("</p>") != g.TextWithout("</p>") {
		t.Error("the rule is not shared per stop")
	}
	// Followed by its stop, a text that ends with the start of it reads back
	// as the text; one that contains it cannot be written.
	v := New()
	v.Rule("root", v.TextWithout("</p>")+` "</p>"`)
	for s, want := range map[string]bool{"a<</p>": true, "a</</p>": true, "a</p</p>": true, "a</p>": true, "a</p>b</p>": false} {
		if got := v.Match(s); got != want {
			t.Errorf("text then stop %q: %v, want %v", s, got, want)
		}
	}
}

// TextWithout is never looser than "does not contain the stop" (and exact
// where the stop's first character occurs once), and a text it accepts,
// followed by the stop, reads back as itself: random texts over the stop's
// own characters.
func TestTextWithoutNeverLooser(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	// Exact (every text without the stop accepted) where the first character occurs once.
	exact := map[string]bool{"</p>": true, "</parameter>": true, "<|close|>": true, "</｜DSML｜parameter>": true, `<|"|>`: true}
	for _, stop := range []string{"</p>", "</parameter>", "<|close|>", "</｜DSML｜parameter>", `<|"|>`, "]]>", "]<]minimax[>["} {
		alphabet := append([]rune(stop), 'x', ' ')
		text, then := New(), New()
		text.Rule("root", text.TextWithout(stop))
		then.Rule("root", then.TextWithout(stop)+" "+Literal(stop))
		accepted := 0
		for range 3000 {
			var b strings.Builder
			for n := rng.IntN(12); n > 0; n-- {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
			s := b.String()
			if !text.Match(s) {
				if exact[stop] && !strings.Contains(s, stop) {
					t.Fatalf("%q refused as text without %q", s, stop)
				}
				continue
			}
			accepted++
			if strings.Contains(s, stop) {
				t.Fatalf("%q accepted as text without %q", s, stop)
			}
			if !then.Match(s + stop) {
				t.Fatalf("%q then %q refused", s, stop)
			}
		}
		if accepted < 300 {
			t.Errorf("%q: only %d of 3000 texts accepted", stop, accepted)
		}
	}
	w := New()
	w.Rule("root", w.TextWithout("]]>"))
	if w.Match("x]]>") || !w.Match("a] b") {
		t.Errorf("]]>: %s", w)
	}
}

// TextWithout's expressions are kept by stop for every grammar, a bounded
// number of them.
func TestTextWithoutKept(t *testing.T) {
	a, b := New(), New()
	a.Rule("root", a.TextWithout("</p>"))
	b.Rule("root", b.TextWithout("</p>"))
	if a.String() != b.String() || !b.Match("x<y") || b.Match("x</p>") {
		t.Errorf("grammars differ, or the second is wrong:\n%s\n%s", a, b)
	}
	for i := range 2 * maxTextWithoutExprs {
		New().TextWithout(fmt.Sprintf("</stop%d>", i))
	}
	textWithoutExprs.Lock()
	n := len(textWithoutExprs.m)
	textWithoutExprs.Unlock()
	if n > maxTextWithoutExprs {
		t.Errorf("%d expressions kept, at most %d wanted", n, maxTextWithoutExprs)
	}
}

// AddMembers: declared properties in order, required flags, types, string
// enums (values only: no JSON rule), $ref followed, and a value rule per
// other property.
func TestAddMembers(t *testing.T) {
	g := New()
	ms, _, err := AddMembers(g, "a", json.RawMessage(`{"$ref": "#/$defs/args", "$defs": {
		"args": {"type": "object", "properties": {
			"city": {"type": "string"}, "n": {"type": ["integer", "null"]}, "unit": {"enum": ["c", "f"]},
			"loc": {"$ref": "#/$defs/loc"}, "any": {}},
			"required": ["n", "city"]},
		"loc": {"type": "object", "properties": {"lat": {"type": "number"}}}}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Member{{Name: "city", Required: true, Type: "string"}, {Name: "n", Required: true, Type: "integer"},
		{Name: "unit", Type: "string", Enum: []string{"c", "f"}}, {Name: "loc", Type: "object"}, {Name: "any"}}
	if len(ms) != len(want) {
		t.Fatalf("got %+v", ms)
	}
	for i, m := range ms {
		w := want[i]
		if m.Name != w.Name || m.Required != w.Required || m.Type != w.Type || len(m.Enum) != len(w.Enum) || (m.Value == "") != (w.Enum != nil) {
			t.Errorf("member %d: %+v, want %+v", i, m, w)
		}
	}
	g.Rule("root", ms[3].Value)
	if !g.Match(`{"lat": 1.5}`) || g.Match(`{"lat": "x"}`) {
		t.Error("the $ref member's value rule does not follow its schema")
	}
}

// NestedMembers describes nested objects (their declared properties, $ref
// followed) and arrays' items, down to maxMemberDepth for a recursive schema:
// such a member has no JSON value rule, its nested members have theirs;
// warnings are given once. Members leaves them out and gives every member a
// value rule.
func TestNestedMembers(t *testing.T) {
	schema := json.RawMessage(`{"type": "object", "properties": {
		"filters": {"type": "object", "properties": {
			"vegan": {"type": "boolean"}, "max_price": {"type": "number", "minimum": 0},
			"area": {"$ref": "#/$defs/area"}}, "required": ["vegan"]},
		"tags": {"type": "array", "items": {"type": "string", "enum": ["quiet", "view"]}},
		"stops": {"type": "array", "items": {"type": "object", "properties": {"at": {"type": "string"}}}},
		"tree": {"$ref": "#/$defs/node"},
		"free": {"type": "object"}},
		"$defs": {
			"area": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}, "required": ["lat", "lon"]},
			"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}`)
	g := New()
	c := NewConverter(g, Options{})
	ms, warns, err := c.NestedMembers("t", schema)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 {
		t.Errorf("warnings %q, want the one for minimum, once", warns)
	}
	byName := map[string]Member{}
	for _, m := range ms {
		byName[m.Name] = m
	}
	f := byName["filters"]
	if len(f.Properties) != 3 || f.Properties[0].Name != "vegan" || !f.Properties[0].Required || f.Properties[1].Required ||
		f.Properties[1].Type != "number" || f.Properties[1].Value == "" {
		t.Fatalf("filters: %+v", f.Properties)
	}
	if area := f.Properties[2]; area.Type != "object" || len(area.Properties) != 2 || !area.Properties[1].Required {
		t.Errorf("filters.area ($ref): %+v", area)
	}
	if it := byName["tags"].Items; it == nil || it.Type != "string" || len(it.Enum) != 2 || it.Name != "" || !it.Required {
		t.Errorf("tags items: %+v", byName["tags"].Items)
	}
	if it := byName["stops"].Items; it == nil || it.Type != "object" || len(it.Properties) != 1 || it.Properties[0].Name != "at" {
		t.Errorf("stops items: %+v", byName["stops"].Items)
	}
	if byName["free"].Properties != nil {
		t.Errorf("free-form object: %+v", byName["free"].Properties)
	}
	depth := 0
	for m := byName["tree"]; ; depth++ {
		if len(m.Properties) == 0 || m.Properties[0].Items == nil {
			break
		}
		m = *m.Properties[0].Items
	}
	if depth == 0 || depth > maxMemberDepth {
		t.Errorf("recursive schema described %d levels deep", depth)
	}
	// A described object has no value rule; a nested scalar's follows its schema.
	if f.Value != "" || f.Properties[2].Value != "" || byName["stops"].Value != "" {
		t.Errorf("described members with value rules: %q, %q, %q", f.Value, f.Properties[2].Value, byName["stops"].Value)
	}
	g.Rule("root", f.Properties[1].Value)
	if !g.Match(`2.5`) || g.Match(`"x"`) {
		t.Error("filters.max_price's value rule does not follow its schema")
	}
	// Members: no nesting, and a value rule for each.
	plain, _, err := c.Members("u", schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range plain {
		if m.Properties != nil || m.Items != nil {
			t.Errorf("Members described %s's nested values", m.Name)
		}
		if m.Value == "" && m.Enum == nil {
			t.Errorf("Members gave %s no value rule", m.Name)
		}
	}
	g.Rule("root", plain[0].Value)
	if !g.Match(`{"vegan": true, "area": {"lat": 1, "lon": 2}}`) || g.Match(`{"vegan": true, "area": {"lat": 1}}`) {
		t.Error("filters' value rule does not follow its schema")
	}
}

// A nested description warns about the keywords the formats writing it
// member by member cannot enforce.
func TestNestedMembersWarnings(t *testing.T) {
	c := NewConverter(New(), Options{})
	_, warns, err := c.NestedMembers("t", json.RawMessage(`{"type": "object", "properties": {
		"list": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
		"open": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true},
		"closed": {"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}, "additionalProperties": false}}}`))
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(warns, "\n")
	for _, want := range []string{`/properties/list: keyword "maxItems" not enforced`, `/properties/open: additionalProperties not enforced`,
		`/properties/closed/properties/a: keyword "pattern" not enforced`} {
		if !strings.Contains(joined, want) {
			t.Errorf("no warning %q in:\n%s", want, joined)
		}
	}
	if len(warns) != 3 {
		t.Errorf("%d warnings, want 3:\n%s", len(warns), joined)
	}
}

// Schemas are read in place (readSchema): whatever a conversion returns
// must not share memory with the schema's bytes, which the caller may reuse.
// Each schema is converted, its bytes overwritten, and everything returned
// compared with what it was before.
func TestConversionKeepsNothingOfTheSchemaBytes(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"unit":{"enum":["celsius","fahrenheit"]},"mode":{"const":"fast"},
			"city":{"type":"string","pattern":"^[A-Z]","format":"date"},"n":{"type":"int"},"x":{"type":"xyzzy"},
			"tags":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}},
			"loc":{"$ref":"#/$defs/loc"},"self":{"$ref":"#"}},"required":["city","missing"],
			"$defs":{"loc":{"type":"object","properties":{"lat":{"type":"number","minimum":0}}}}}`,
		`{"type":"object","properties":{"a":{"enum":[]}}}`, // an error with a path
	}
	for _, tool := range bfclTools(t, 20) {
		schemas = append(schemas, string(tool.Parameters))
	}
	for _, s := range schemas {
		b := []byte(s)
		c := NewConverter(New(), Options{})
		rule, warns, err := c.Add("a", b)
		ms, mwarns, merr := c.NestedMembers("m", b)
		results := func() string {
			return fmt.Sprintf("%s %q %v\n%+v %q %v\n%s", rule, warns, err, ms, mwarns, merr, c.sg.g.String())
		}
		before := results()
		for i := range b {
			b[i] = 'X'
		}
		if after := results(); after != before {
			t.Errorf("a result changed with the schema's bytes:\n%s\n%s", before, after)
		}
	}
}

// A converter reset for new options builds what a new converter would: the
// grammar emptied (shared rules too), the options those of the reset.
func TestConverterReset(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"a":{"type":"string","maxLength":3},"b":{"type":"array","items":{"type":"integer"}}},"required":["a"]}`,
		`{"type":"object","properties":{"c":{"enum":["x","y"]},"d":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"number"}}}`,
	}
	build := func(c *Converter, g *Grammar) string {
		for i, s := range schemas {
			rule, _, err := c.Add("tool"+strconv.Itoa(i), json.RawMessage(s))
			if err != nil {
				t.Fatal(err)
			}
			g.Rule("root"+strconv.Itoa(i), rule)
		}
		if _, _, err := c.Members("m", json.RawMessage(schemas[0])); err != nil {
			t.Fatal(err)
		}
		return g.String()
	}
	used := New()
	c := NewConverter(used, Options{Whitespace: WhitespaceSpace})
	build(c, used)
	for _, opts := range []Options{{}, {Whitespace: WhitespaceSpace}, {MaxRepetition: 2}} {
		fresh := New()
		want := build(NewConverter(fresh, opts), fresh)
		c.Reset(opts)
		if got := build(c, used); got != want {
			t.Errorf("%+v: after Reset\n%s\nwant\n%s", opts, got, want)
		}
	}
}
