package grammar

import (
	"encoding/json"
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
		"ends in </":      false, // a proper prefix of the stop at the end
	} {
		if got := g.Match(s); got != want {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
	if g.TextWithout("</p>") != g.TextWithout("</p>") {
		t.Error("the rule is not shared per stop")
	}
}

// AddMembers: declared properties in order, required flags, types, string
// enums, $ref followed, and a value rule per property.
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
		if m.Name != w.Name || m.Required != w.Required || m.Type != w.Type || len(m.Enum) != len(w.Enum) || m.Value == "" {
			t.Errorf("member %d: %+v, want %+v", i, m, w)
		}
	}
	g.Rule("root", ms[3].Value)
	if !g.Match(`{"lat": 1.5}`) || g.Match(`{"lat": "x"}`) {
		t.Error("the $ref member's value rule does not follow its schema")
	}
}
