package bench

import (
	"fmt"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

// oneParamItem is a simple item whose function f has the parameter x with
// the given BFCL schema, required or not, and the answer accepting the given
// list for x.
func oneParamItem(t *testing.T, schema string, required bool, acceptable string) *Item {
	t.Helper()
	req := "[]"
	if required {
		req = `["x"]`
	}
	doc := mustParse(t, fmt.Sprintf(`{"name": "f", "description": "d", "parameters": {"type": "dict", "properties": {"x": %s}, "required": %s}}`, schema, req))
	tool, fn, err := convertDoc(doc, true)
	if err != nil {
		t.Fatal(err)
	}
	want, err := expectedCall("f", mustParse(t, `{"x": `+acceptable+`}`))
	if err != nil {
		t.Fatal(err)
	}
	return &Item{ID: "t", Category: "simple_python", Tools: []chat.Tool{tool}, Functions: []Function{fn},
		Expected: Expected{Mode: ModeSimple, Calls: []ExpectedCall{want}}}
}

func mustParse(t *testing.T, s string) Value {
	t.Helper()
	v, err := ParseValue([]byte(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

// callWith is a call of f with x set to the JSON value (none when "").
func callWith(value string) []chat.ToolCall {
	args := "{}"
	if value != "" {
		args = `{"x": ` + value + `}`
	}
	return []chat.ToolCall{{Type: "function", Function: chat.FunctionCall{Name: "f", Arguments: args}}}
}

// TestBehaviourTable is FORMAT.md §7.7, row by row, each with upstream's
// verdict (the kind says which rule decided a failure).
func TestBehaviourTable(t *testing.T) {
	const (
		str     = `{"type": "string"}`
		integer = `{"type": "integer"}`
		float   = `{"type": "float"}`
		dict    = `{"type": "dict", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}`
		strs    = `{"type": "array", "items": {"type": "string"}}`
		floats  = `{"type": "array", "items": {"type": "float"}}`
		ints    = `{"type": "array", "items": {"type": "integer"}}`
		dicts   = `{"type": "array", "items": {"type": "dict", "properties": {"a": {"type": "string"}}}}`
		anyType = `{"type": "any"}`
	)
	rows := []struct {
		declared, acceptable, value string    // value "" = omitted
		want                        ErrorKind // "" = pass
	}{
		{float, `[5.0]`, `5`, ""}, // promotion
		{integer, `[5]`, `5.0`, ErrType},
		{integer, `[1]`, `true`, ErrType},
		{str, `["New York, NY"]`, `"new york ny"`, ""},
		{str, `["09:00"]`, `"0900"`, ErrString}, // ':' is kept
		{str, `["", "metric"]`, ``, ""},
		{str, `["metric"]`, ``, ErrMissingOptional},
		{str, `["", null]`, `null`, ""},
		{integer, `["", "dontcare"]`, `"DontCare"`, ErrValue}, // variable mode is exact
		{strs, `[["a","b"]]`, `["b","a"]`, ErrList},           // order
		{strs, `[["New York","b"]]`, `["newyork","B"]`, ""},
		{floats, `[[1.0,2.0]]`, `[1,2]`, ErrNestedType},
		{floats, `["", [1.0,2.0]]`, `[1,2]`, ""},
		{ints, `["", [1,0]]`, `[true,false]`, ""},  // Python's bool == int
		{strs, `["data['s']"]`, `"data['s']"`, ""}, // variable mode
		{dict, `[{"a":["Hello World"],"b":[1]}]`, `{"a":"helloworld","b":1}`, ""},
		{dict, `[{"a":["h"],"b":["",1]}]`, `{"a":"h"}`, ""},
		{dict, `[{"a":["h"]}]`, `{"a":"h","c":1}`, ErrDictKey},
		{dict, `[{"k":[["A b"]]}]`, `{"k":["ab"]}`, ErrDictValue},                     // no normalisation inside a nested list
		{dicts, `[[{"a":["p"]},{"a":["q"]}]]`, `[{"a":"q"},{"a":"p"}]`, ErrDictValue}, // position
		{anyType, `["5"]`, `5`, ErrType},
	}
	for _, r := range rows {
		t.Run(r.declared+" "+r.acceptable+" "+r.value, func(t *testing.T) {
			it := oneParamItem(t, r.declared, false, r.acceptable)
			res := Check(it, callWith(r.value), Options{})
			if res.Pass != (r.want == "") || res.Kind != r.want {
				t.Errorf("got %+v, want %q", res, r.want)
			}
		})
	}
	// The last row: the schema has an optional y the answer lacks; sending it
	// fails.
	it := oneParamItem(t, `{"type": "integer"}`, false, `[1]`)
	it.Functions[0].Params = append(it.Functions[0].Params, Param{Name: "y", Type: TypeInteger})
	res := Check(it, []chat.ToolCall{{Function: chat.FunctionCall{Name: "f", Arguments: `{"x": 1, "y": 2}`}}}, Options{})
	if res.Kind != ErrUnexpectedParam {
		t.Errorf("optional y the answer lacks, supplied: %+v", res)
	}
}

// TestMoreRules pins the other verified statements of FORMAT.md §7.6.
func TestMoreRules(t *testing.T) {
	rows := []struct {
		declared, acceptable, value string
		want                        ErrorKind
	}{
		{`{"type": "boolean"}`, `[true]`, `1`, ErrType},
		{`{"type": "string"}`, `["", null]`, `"None"`, ErrValue},               // a string, but variable mode (null) is exact
		{`{"type": "string"}`, `["say 'hi'"]`, `"Say \"hi\""`, ""},             // ' becomes "
		{`{"type": "string"}`, `["2022-01-01"]`, `"20220101"`, ""},             // - deleted
		{`{"type": "string"}`, `["a b"]`, `"a\tb"`, ErrString},                 // a tab is kept
		{`{"type": "string"}`, `["", "x"]`, `" - "`, ""},                       // normalises to empty: the marker
		{`{"type": "string"}`, `[""]`, `"metric"`, ErrString},                  // only "": must be omitted
		{`{"type": "integer"}`, `[5]`, `5`, ""},                                //
		{`{"type": "float"}`, `[0]`, `0.0`, ""},                                // by value across int and float
		{`{"type": "float"}`, `[0]`, `0`, ""},                                  //
		{`{"type": "dict", "properties": {}}`, `[{"a":[1.0]}]`, `{"a":1}`, ""}, // no type test inside a map
		{`{"type": "dict", "properties": {}}`, `[{"a":[1]}]`, `{"a":"1"}`, ErrDictValue},
		{`{"type": "dict", "properties": {}}`, `[{"a":["x"],"b":["y"]}]`, `{"a":"x"}`, ErrDictMissing},
		{`{"type": "dict", "properties": {}}`, `[""]`, `{"a":"x"}`, ErrDictValue},   // no map alternative
		{`{"type": "array", "items": {"type": "string"}}`, `["", ["a"]]`, `[]`, ""}, // [] matches the marker
		{`{"type": "array", "items": {"type": "dict"}}`, `["", [{"a":["x"]}]]`, `[]`, ""},
		{`{"type": "array", "items": {"type": "dict"}}`, `[[{"a":["x"]}]]`, `[{"a":"x"},{"a":"x"}]`, ErrListDictCount},
		{`{"type": "array", "items": {"type": "string"}}`, `[[["A b"]]]`, `[["ab"]]`, ErrList}, // nested lists literal
		{`{"type": "tuple", "items": {"type": "integer"}}`, `[[1,2]]`, `[1,2]`, ""},
		{`{"type": "integer"}`, `[]`, `1`, ErrValue}, // an empty list is never satisfied
		{`{"type": "integer"}`, `[]`, ``, ErrMissingOptional},
	}
	for _, r := range rows {
		t.Run(r.declared+" "+r.acceptable+" "+r.value, func(t *testing.T) {
			res := Check(oneParamItem(t, r.declared, false, r.acceptable), callWith(r.value), Options{})
			if res.Pass != (r.want == "") || res.Kind != r.want {
				t.Errorf("got %+v, want %q", res, r.want)
			}
		})
	}
}

// TestNormalize: exactly the eight characters go, case folds, ' becomes ".
func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"a b": "ab", "a,b": "ab", "a.b": "ab", "a/b": "ab", "a-b": "ab", "a_b": "ab", "a*b": "ab", "a^b": "ab",
		"A'B'": `a"b"`, "ÀÉ": "àé", "a:b;c!d?e(f)g\th\nk\"": "a:b;c!d?e(f)g\th\nk\"", " - ": "",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCheckOrder: the per-call check's steps come in upstream's order, so the
// first failing one names the failure (FORMAT.md §7.5).
func TestCheckOrder(t *testing.T) {
	it := oneParamItem(t, `{"type": "integer"}`, true, `[1]`)
	for _, c := range []struct {
		name, args string
		want       ErrorKind
	}{
		{"g", `{"z": "x"}`, ErrWrongName},               // name before everything
		{"f", `{"z": "x"}`, ErrMissingRequired},         // required before unexpected
		{"f", `{"z": "x", "x": 1}`, ErrUnexpectedParam}, // arguments in the model's order
		{"f", `{"x": "1", "z": "x"}`, ErrType},          //
		{"f", `{"x": 2, "z": "x"}`, ErrValue},           //
		{"f", `{"x": 1}`, ""},                           //
	} {
		res := Check(it, []chat.ToolCall{{Function: chat.FunctionCall{Name: c.name, Arguments: c.args}}}, Options{})
		if res.Kind != c.want {
			t.Errorf("%s(%s): %+v, want %q", c.name, c.args, res, c.want)
		}
	}
	// A required parameter the answer marks optional must still be sent.
	it = oneParamItem(t, `{"type": "integer"}`, true, `["", 1]`)
	if res := Check(it, callWith(""), Options{}); res.Kind != ErrMissingRequired {
		t.Errorf("required but optional in the answer, omitted: %+v", res)
	}
}

// TestDecoding: what does not decode to calls (FORMAT.md §6, §8).
func TestDecoding(t *testing.T) {
	it := oneParamItem(t, `{"type": "integer"}`, false, `[1]`)
	for _, c := range []struct {
		args string
		want ErrorKind
	}{
		{`{"x": 1`, ErrDecode},
		{``, ErrDecode},
		{`null`, ErrOutputFormat},
		{`[1]`, ErrOutputFormat},
		{`{"x": 1} {}`, ErrDecode},
		{`{"x": 2, "x": 1}`, ""}, // the last of a repeated key, as json.loads keeps
	} {
		res := Check(it, []chat.ToolCall{{Function: chat.FunctionCall{Name: "f", Arguments: c.args}}}, Options{})
		if res.Kind != c.want {
			t.Errorf("arguments %q: %+v, want %q", c.args, res, c.want)
		}
	}
	if res := Check(it, nil, Options{}); res.Kind != ErrDecode {
		t.Errorf("no call: %+v", res)
	}
	two := append(callWith("1"), callWith("1")...)
	if res := Check(it, two, Options{}); res.Kind != ErrSimpleCount {
		t.Errorf("two calls for simple: %+v", res)
	}
	// Irrelevance: a call whose arguments do not decode is no call.
	it.Expected = Expected{Mode: ModeNoCall}
	if res := Check(it, []chat.ToolCall{{Function: chat.FunctionCall{Name: "f", Arguments: `{`}}}, Options{}); !res.Pass {
		t.Errorf("irrelevance, undecodable call: %+v", res)
	}
	if res := Check(it, callWith(""), Options{}); res.Kind != ErrCallMade {
		t.Errorf("irrelevance, a call without arguments: %+v", res)
	}
}
