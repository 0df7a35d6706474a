package bench

import (
	"slices"
	"strings"
	"testing"
)

// schemaConflicts are the answered BFCL items no schema-admitted output can
// pass, with what stands in the way (found by SchemaOutput; each reason read
// against its line: the schema and the acceptable list).
var schemaConflicts = map[string]string{
	"parallel_multiple_21":         "x: array of numbers, the answer the string data['sales']",
	"parallel_multiple_94":         "elements: array of integers, the answer strings",
	"live_simple_71-35-0":          "metrics: an array with an enum of strings at the array level",
	"live_simple_106-63-0":         "unwinnable: acceptable list []",
	"live_simple_112-68-0":         "unwinnable: acceptable list []",
	"live_multiple_87-38-4":        "type: openai, not in the enum",
	"live_multiple_152-58-6":       "metrics: an enum at the array level",
	"live_multiple_189-83-0":       "data: keys the object's properties lack",
	"live_multiple_552-153-1":      "is_unisex: string enum, the answer a boolean",
	"live_multiple_595-158-1":      "number_of_rooms: string enum, the answer an integer",
	"live_multiple_596-158-2":      "number_of_rooms: string enum, the answer an integer",
	"live_multiple_731-167-2":      "in_unit_laundry: string enum, the answer a boolean",
	"live_multiple_733-167-4":      "in_unit_laundry: string enum, the answer a boolean",
	"live_multiple_735-167-6":      "in_unit_laundry: string enum, the answer a boolean",
	"live_multiple_750-169-5":      "genre: Any, not in the enum",
	"live_multiple_835-178-10":     "genre: Reggaeton, not in the enum",
	"live_multiple_862-181-3":      "unwinnable: journey_start_time not in the schema",
	"live_multiple_871-182-8":      "genre: Play, not in the enum",
	"live_multiple_947-197-0":      "duration: 5 minutes, not in the enum",
	"live_multiple_964-207-0":      "unwinnable: question not in the schema",
	"live_multiple_1038-265-0":     "start_date: a string, the answer null",
	"live_parallel_multiple_2-2-0": "command: a bedroom air purifier, not in the enum",
}

// TestSchemaOutputBFCL: every answered item has a schema-admitted answer the
// checker passes, except the ones listed, which include the four unwinnable.
func TestSchemaOutputBFCL(t *testing.T) {
	s := loadBFCL(t)
	var found []string
	for i := range s.Items {
		it := &s.Items[i]
		out, why := SchemaOutput(it)
		switch {
		case why != "":
			found = append(found, it.ID)
			if schemaConflicts[it.ID] == "" {
				t.Errorf("%s: unexpected conflict: %s", it.ID, why)
			}
		case len(it.Expected.Calls) > 0 && !Check(it, out, Options{}).Pass:
			t.Errorf("%s: a schema output that fails", it.ID)
		}
	}
	for id := range schemaConflicts {
		if !slices.Contains(found, id) {
			t.Errorf("%s: no conflict found", id)
		}
	}
	for id := range unwinnable {
		if !slices.Contains(found, id) {
			t.Errorf("unwinnable %s has a schema output", id)
		}
	}
}

// TestSchemaOutput on made-up tools: §4.3's quirks, and what must not count
// as one.
func TestSchemaOutput(t *testing.T) {
	for _, c := range []struct {
		name, schema, acceptable string
		required                 bool
		conflict                 string // a piece of the reason; "" for none
	}{
		{"boolean with a string enum", `{"type": "boolean", "enum": ["True", "False", "dontcare"]}`, `[true]`, true, "fits its schema"},
		{"the same, optional", `{"type": "boolean", "enum": ["True", "False", "dontcare"]}`, `["", true]`, false, ""},
		{"an enum at the array level", `{"type": "array", "items": {"type": "string"}, "enum": ["a", "b"]}`, `[["a"]]`, true, "fits its schema"},
		{"integer that must be dontcare", `{"type": "integer"}`, `["dontcare"]`, true, "fits its schema"},
		{"a later alternative fits", `{"type": "integer"}`, `["dontcare", 3]`, true, ""},
		{"an enum value the answer matches normalised", `{"type": "string", "enum": ["Horror", "Drama"]}`, `["horror"]`, true, ""},
		{"an integer for a float", `{"type": "float"}`, `[2]`, true, ""},
		{"required, only the marker", `{"type": "string"}`, `[""]`, true, ""},
		{"object members in the schema's order", `{"type": "dict", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}`, `[{"b": [1], "a": ["x"]}]`, true, ""},
		{"object keys the schema lacks", `{"type": "dict", "properties": {"a": {"type": "string"}}}`, `[{"z": ["x"]}]`, true, "fits its schema"},
	} {
		it := oneParamItem(t, c.schema, c.required, c.acceptable)
		out, why := SchemaOutput(it)
		if c.conflict == "" && (why != "" || !Check(it, out, Options{}).Pass) || c.conflict != "" && !strings.Contains(why, c.conflict) {
			t.Errorf("%s: %v %q, want conflict %q", c.name, out, why, c.conflict)
		}
	}
	// Every member fits, the whole does not: a required name the properties
	// lack, which the grammar requires after them.
	it := oneParamItem(t, `{"type": "integer"}`, true, `[1]`)
	it.Tools[0].Function.Parameters = []byte(`{"type":"object","properties":{"x":{"type":"integer"}},"required":["x","z"]}`)
	if _, why := SchemaOutput(it); !strings.Contains(why, "do not fit the parameters' schema") {
		t.Errorf("a required name without a property: %q", why)
	}
	it = oneParamItem(t, `{"type": "integer"}`, false, `[1]`)
	it.Expected = Expected{Mode: ModeNoCall}
	if out, why := SchemaOutput(it); out != nil || why != "" {
		t.Errorf("no call expected: %v %q", out, why)
	}
}
