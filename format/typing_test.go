package format

import (
	"encoding/json"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

func TestTypeValue(t *testing.T) {
	cases := []struct {
		raw, schema, want string
	}{
		// No schema, untyped, string: kept exactly.
		{"1", ``, `"1"`},
		{" 1 ", `{"description": "x"}`, `" 1 "`},
		{" Paris\n", `{"type": "string"}`, `" Paris\n"`},
		{"True", `{"type": "string"}`, `"True"`},
		{`{"a": 1}`, ``, `"{\"a\": 1}"`},
		{"x", `{"type": "str"}`, `"x"`},
		{"x", `{"type": "mystery"}`, `"x"`},
		// Scalars.
		{" 5 ", `{"type": "integer"}`, `5`},
		{"-007", `{"type": "int"}`, `-7`},
		{"5.0", `{"type": "integer"}`, `5`},
		{"123456789012345678901234567890", `{"type": "integer"}`, `123456789012345678901234567890`},
		{"5.5", `{"type": "integer"}`, `"5.5"`},
		{"abc", `{"type": "integer"}`, `"abc"`},
		{"2.50", `{"type": "number"}`, `2.50`},
		{"3", `{"type": "number"}`, `3`},
		{".5", `{"type": "number"}`, `0.5`},
		{"inf", `{"type": "number"}`, `"inf"`},
		{"0x10", `{"type": "number"}`, `"0x10"`},
		{"True", `{"type": "boolean"}`, `true`},
		{"false\n", `{"type": "boolean"}`, `false`},
		{"yes", `{"type": "boolean"}`, `"yes"`},
		{"None", `{"type": ["integer", "null"]}`, `null`},
		{"null", `{"type": "integer"}`, `null`},
		{"4", `{"anyOf": [{"type": "integer"}, {"type": "null"}]}`, `4`},
		{"4", `{"enum": [1, 2, 4]}`, `4`},
		{"4", `{"enum": ["4", "5"]}`, `"4"`},
		// Containers.
		{"[\n  1,\n  2\n]", `{"type": "array"}`, `[1,2]`},
		{`{"b": 1, "a": [true, null]}`, `{"type": "object"}`, `{"b":1,"a":[true,null]}`},
		{`{'category': 'books', 'in_stock': True}`, `{"type": "object"}`, `{"category": "books", "in_stock": true}`},
		{`['fiction', 'new']`, `{"type": "array"}`, `["fiction","new"]`},
		{`['fiction', 'new']`, `{"type": "object"}`, `"['fiction', 'new']"`},
		{`{'a': 1`, `{"type": "object"}`, `"{'a': 1"`},
		{`{"a": 1}`, `{"properties": {"a": {}}}`, `{"a":1}`},
		{`[1]`, `{"items": {"type": "integer"}}`, `[1]`},
		{`[1]`, `{"type": ["string", "array"]}`, `[1]`},
		{`hello`, `{"type": ["string", "array"]}`, `"hello"`},
		{` x `, `{"type": ["string", "array"]}`, `" x "`},
	}
	for _, c := range cases {
		v, err := typeValue(c.raw, json.RawMessage(c.schema))
		if err != nil {
			t.Errorf("typeValue(%q, %s): %v", c.raw, c.schema, err)
			continue
		}
		got, _ := json.Marshal(v)
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal([]byte(c.want), &w)
		gs, _ := json.Marshal(g)
		ws, _ := json.Marshal(w)
		if string(gs) != string(ws) {
			t.Errorf("typeValue(%q, %s) = %s, want %s", c.raw, c.schema, got, c.want)
		}
	}
}

func TestTypedArgs(t *testing.T) {
	tools := []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "f", Parameters: json.RawMessage(
		`{"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}, "o": {"type": "object"}}}`)}}}
	got, err := typedArgs(tools, "f",
		[]string{"z", "n", "s", "o", "n", "html"},
		[]string{"1", " 2 ", " 3 ", "{'k': None, 'a': 'b'}", "4", "<a&b>"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z": "1", "n": 4, "s": " 3 ", "o": {"k": null, "a": "b"}, "html": "<a&b>"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got, _ = typedArgs(nil, "f", []string{"n"}, []string{"1"})
	if got != `{"n": "1"}` {
		t.Errorf("no tools: %s", got)
	}
	got, _ = typedArgs(tools, "f", nil, nil)
	if got != `{}` {
		t.Errorf("no args: %s", got)
	}
}
