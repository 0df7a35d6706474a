package bench

import (
	"strings"
	"testing"
)

// TestConvertDoc: BFCL's types become JSON Schema's on the walk upstream
// takes, BFCL's notes are added, and everything else passes untouched, odd
// enums and defaults included (FORMAT.md §4).
func TestConvertDoc(t *testing.T) {
	doc := mustParse(t, `{"name": "a.b", "description": "Does.", "parameters": {"type": "dict", "properties": {
		"f": {"type": "float", "description": "F.", "default": "0.5"},
		"b": {"type": "boolean", "enum": ["True", "False", "dontcare"], "optional": "true"},
		"t": {"type": "tuple", "items": {"type": "float"}},
		"aa": {"type": "array", "items": {"type": "tuple", "items": {"type": "float"}}},
		"ad": {"type": "array", "items": {"type": "dict", "properties": {"n": {"type": "any"}}}},
		"d": {"type": "dict", "properties": {"inner": {"type": "dict", "properties": {"z": {"type": "float", "description": "Z."}}}}},
		"free": {"type": "dict"}
	}, "required": ["f"], "optional": ["b"]}}`)
	tool, fn, err := convertDoc(doc, true)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{` +
		`"f":{"type":"number","description":"F. This is a float type value.","default":"0.5","format":"float"},` +
		`"b":{"type":"boolean","enum":["True","False","dontcare"],"optional":"true"},` +
		`"t":{"type":"array","items":{"type":"number"}},` +
		`"aa":{"type":"array","items":{"type":"array","items":{"type":"number"}}},` +
		`"ad":{"type":"array","items":{"type":"object","properties":{"n":{"type":"string"}}}},` +
		`"d":{"type":"object","properties":{"inner":{"type":"object","properties":{"z":{"type":"number","description":"Z. This is a float type value.","format":"float"}}}}},` +
		`"free":{"type":"object"}` +
		`},"required":["f"],"optional":["b"]}`
	if got := string(tool.Function.Parameters); got != want {
		t.Errorf("parameters\n got %s\nwant %s", got, want)
	}
	if tool.Function.Name != "a.b" || tool.Function.Description != "Does."+pythonNote || tool.Type != "function" {
		t.Errorf("tool %+v", tool)
	}
	wantParams := []Param{{"f", TypeFloat, ""}, {"b", TypeBoolean, ""}, {"t", TypeTuple, TypeFloat},
		{"aa", TypeArray, TypeTuple}, {"ad", TypeArray, TypeDict}, {"d", TypeDict, ""}, {"free", TypeDict, ""}}
	if len(fn.Params) != len(wantParams) {
		t.Fatalf("params %+v", fn.Params)
	}
	for i, p := range wantParams {
		if fn.Params[i] != p {
			t.Errorf("param %d: %+v, want %+v", i, fn.Params[i], p)
		}
	}
	if len(fn.Required) != 1 || fn.Required[0] != "f" {
		t.Errorf("required %v", fn.Required)
	}
}

// TestConvertJSONSchema: a user suite's JSON Schema comes through unchanged
// (its names are the walk's fixed points), without BFCL's notes.
func TestConvertJSONSchema(t *testing.T) {
	params := `{"type":"object","properties":{"n":{"type":"number","description":"N."},"o":{"type":"object","properties":{"s":{"type":["string","null"]}}},"l":{"type":"array","items":{"type":"integer"}},"u":{"description":"no type"}},"required":["n"]}`
	tool, fn, err := convertDoc(mustParse(t, `{"name": "f", "description": "D.", "parameters": `+params+`}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if string(tool.Function.Parameters) != params || tool.Function.Description != "D." {
		t.Errorf("got %s %q", tool.Function.Parameters, tool.Function.Description)
	}
	want := []Param{{"n", TypeFloat, ""}, {"o", TypeDict, ""}, {"l", TypeArray, TypeInteger}, {"u", TypeUntyped, ""}}
	for i, p := range want {
		if fn.Params[i] != p {
			t.Errorf("param %d: %+v, want %+v", i, fn.Params[i], p)
		}
	}
}

// TestUnknownType: a type name outside the known set is refused at load, as
// upstream's checker would crash on it.
func TestUnknownType(t *testing.T) {
	_, _, err := convertDoc(mustParse(t, `{"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "HashMap"}}, "required": []}}`), true)
	if err == nil || !strings.Contains(err.Error(), "HashMap") {
		t.Errorf("error %v", err)
	}
}
