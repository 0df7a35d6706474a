package format

import (
	"encoding/json"
	"strings"
	"testing"
)

// jsonScanCases are valid and invalid JSON texts by failure class; the
// scanner must agree with json.Valid on each.
var jsonScanCases = []string{
	// Scalars and whitespace.
	`0`, `-0`, `1`, `-1`, `12`, `01`, `-`, `+1`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-5`, `1e`, `1e+`, `-01`,
	`1.5e3`, `0.0`, `00`, `1x`, `2]`, "\t 1 \r\n", ` `, ``, `true`, `false`, `null`, `tru`, `nul`, `nulls`,
	`True`, `None`, `truefalse`,
	// Strings, escapes and unicode.
	`""`, `"a"`, `"a`, `"\"`, `"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\a"`, `"\u00e9"`, `"\u00E9"`, `"\u00g9"`,
	`"\u12"`, `"\u"`, `"\ud83d\ude00"`, `"\ud83d"`, `"é"`, "\"\xff\"", "\"a\nb\"", "\"\x1f\"", "\"\x7f\"",
	`"日本語"`, "\"\u2028\"",
	// Objects and arrays, nesting.
	`{}`, `[]`, `{ }`, `[ ]`, `{"a":1}`, `{"a" : 1 , "b" : [1, 2, {"c": null}]}`, `{"a":1,}`, `[1,]`, `[,1]`,
	`{,}`, `{"a"}`, `{"a":}`, `{a:1}`, `{'a':1}`, `{"a":1 "b":2}`, `[1 2]`, `[[[]]]`, `[[[]]`, `[]]`, `{}}`,
	`{"a":{"b":{"c":[true,false,null,"x",-1.5e-3]}}}`, `{"a":1}{"b":2}`, `[1] [2]`, `{"a":[}`, `{"a":{]}`,
	`{"location": "Paris", "unit": "celsius"}`, `{"":""}`, `{"a":"\u005C"}`,
}

func TestJSONScanAgreesWithValid(t *testing.T) {
	for _, s := range jsonScanCases {
		if got, want := validJSON(s), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

func TestJSONScanDepth(t *testing.T) {
	for _, d := range []int{31, 32, 33, 100, jsonMaxDepth - 1, jsonMaxDepth, jsonMaxDepth + 1} {
		for _, s := range []string{strings.Repeat("[", d) + strings.Repeat("]", d),
			strings.Repeat(`{"a":`, d) + "1" + strings.Repeat("}", d),
			strings.Repeat(`{"a":`, d-1) + "{}" + strings.Repeat("}", d-1)} {
			if got, want := validJSON(s), json.Valid([]byte(s)); got != want {
				t.Errorf("depth %d %.10q…: validJSON = %v, json.Valid says %v", d, s, got, want)
			}
		}
	}
}

func TestJSONScanValueEnd(t *testing.T) {
	for _, c := range []struct {
		s   string
		end int
	}{
		{`{"a": [1, "]"]} tail`, 15},
		{`"x\"y" z`, 6},
		{`-1.5e3,`, 6},
		{`null]`, 4},
		{`[ {} , [ ] ]x`, 12},
	} {
		if end, ok := scanJSONValue(c.s, 0); !ok || end != c.end {
			t.Errorf("scanJSONValue(%q) = %d, %v; want %d", c.s, end, ok, c.end)
		}
	}
}

func TestEachJSONMember(t *testing.T) {
	var got []string
	eachJSONMember(`{ "a" : 1 , "b\n":{"x":[1,2]},"c":"v\"w" ,"":null}`, func(m jsonMember) bool {
		got = append(got, m.key+"="+m.value)
		return true
	})
	want := []string{`a=1`, `b\n={"x":[1,2]}`, `c="v\"w"`, `=null`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("members %q, want %q", got, want)
	}
	eachJSONMember(`{ }`, func(jsonMember) bool { t.Error("member in an empty object"); return true })
}

// nameAndArgumentsCases cover the decisions nameAndArgumentsFast takes and
// those it leaves to encoding/json.
var nameAndArgumentsCases = []string{
	`{"name": "get_weather", "arguments": {"location": "Paris"}}`,
	` {"name":"f","arguments":{}} `,
	`{"arguments": {"a": 1}, "name": "f"}`,
	`{"name": "f", "parameters": {"a": [1, {"b": null}]}}`,
	`{"name": "f", "arguments": null, "parameters": {"a": 1}}`,
	`{"name": "f", "parameters": {"a": 1}, "arguments": {"b": 2}}`,
	`{"name": "f"}`,
	`{"name": "f", "arguments": "{\"a\": 1}"}`,
	`{"name": "f", "arguments": "{}"}`,
	`{"name": "f", "arguments": " {\"a\": 1} "}`,
	`{"name": "f", "arguments": "not json"}`,
	`{"name": "f", "arguments": [1]}`,
	`{"name": "f", "arguments": 1}`,
	`{"name": "f", "arguments": true}`,
	`{"name": "", "arguments": {}}`,
	`{"name": null, "arguments": {}}`,
	`{"name": "f", "name": null}`,
	`{"name": null, "name": "g"}`,
	`{"name": 1, "arguments": {}}`,
	`{"name": "f\u00e9", "arguments": {}}`,
	`{"name": "fé", "arguments": {"é": "\u00e9"}}`,
	"{\"name\": \"f\xff\", \"arguments\": {}}",
	`{"Name": "f", "arguments": {}}`,
	`{"NAME": "f", "ARGUMENTS": {"a": 1}}`,
	`{"name": "f", "Arguments": {"a": 1}, "arguments": {"b": 1}}`,
	`{"na\u006de": "f", "arguments": {}}`,
	`{"name": "f", "arguments": {}, "id": "call_1"}`,
	`{"name": "f", "arguments": {}, "id": null}`,
	`{"name": "f", "arguments": {}, "id": 7}`,
	`{"name": "f", "arguments": {}, "id": "a", "id": null}`,
	`{"name": "f", "arguments": {}, "extra": [1, 2, {"name": "g"}]}`,
	`{"name": "f", "arguments": {}, "ſ": 1, "K": 2}`,
	`{"name": "f", "arguments": {"a": 1}`,
	`{"name": "f", "arguments": {"a": 1}}}`,
	`[{"name": "f", "arguments": {}}]`,
	`"name"`,
	``,
	`{}`,
	`{"name": "f", "arguments": {"a": "x\ny"}}`,
	"{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": \\\"\xff\\\"}\"}",
}

func TestNameAndArgumentsFastAgrees(t *testing.T) {
	for _, body := range nameAndArgumentsCases {
		checkNameAndArguments(t, body)
	}
}

func checkNameAndArguments(t *testing.T, body string) {
	t.Helper()
	got, gotErr := nameAndArguments(body)
	want, wantErr := nameAndArgumentsDecoded(body)
	if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Errorf("nameAndArguments(%q) = %+v, %v; encoding/json gives %+v, %v", body, got, gotErr, want, wantErr)
	}
}

// FuzzJSONScan checks the scanner against encoding/json: the same validity,
// and for an object the same members.
//
//	go test ./format -run '^$' -fuzz FuzzJSONScan -fuzztime 30s
func FuzzJSONScan(f *testing.F) {
	for _, s := range jsonScanCases {
		f.Add(s)
	}
	for _, s := range nameAndArgumentsCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		valid := validJSON(s)
		if valid != json.Valid([]byte(s)) {
			t.Fatalf("validJSON(%q) = %v, json.Valid disagrees", s, valid)
		}
		t.Run("", func(t *testing.T) { checkNameAndArguments(t, s) })
		trimmed := strings.TrimLeft(s, " \t\r\n")
		if !valid || trimmed[0] != '{' {
			return
		}
		var want map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &want) != nil {
			t.Fatalf("valid object %q does not decode", s)
		}
		got := map[string]json.RawMessage{}
		eachJSONMember(strings.TrimRight(trimmed, " \t\r\n"), func(m jsonMember) bool {
			var key string
			if err := json.Unmarshal([]byte(`"`+m.key+`"`), &key); err != nil {
				t.Fatalf("key %q of %q: %v", m.key, s, err)
			}
			if !json.Valid([]byte(m.value)) {
				t.Fatalf("value %q of %q is not JSON", m.value, s)
			}
			got[key] = json.RawMessage(m.value)
			return true
		})
		if len(got) != len(want) {
			t.Fatalf("members of %q: %d, encoding/json finds %d", s, len(got), len(want))
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Fatalf("member %q of %q: %q, encoding/json gives %q", k, s, got[k], v)
			}
		}
	})
}

// cohereCallCases: the cohere call object, by the same failure classes.
var cohereCallCases = []string{
	`{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"location": "Paris"}}`,
	`{"tool_name": "f", "parameters": {}}`,
	`{"tool_name": "f"}`,
	`{"tool_call_id": 3, "tool_name": "f", "parameters": {}}`,
	`{"tool_call_id": null, "tool_name": "f", "parameters": null}`,
	`{"tool_call_id": "a\"b", "tool_name": "f", "parameters": {}}`,
	`{"tool_call_id": {"x": 1}, "tool_name": "f", "parameters": "{\"a\": 1}"}`,
	`{"tool_name": "", "parameters": {}}`,
	`{"tool_name": null}`,
	`{"tool_name": 5}`,
	`{"Tool_Name": "f", "parameters": {}}`,
	`{"tool_name": "f", "parameters": [1]}`,
	`{"tool_name": "f", "parameters": "{}"}`,
	`{"tool_name": "f\u00e9", "parameters": {}}`,
	`{"tool_name": "f", "parameters": {}, "tool_name": "g"}`,
	`{"tool_name": "f", "parameters": {}`,
	`[1]`,
}

func TestCohereCallFastAgrees(t *testing.T) {
	for _, body := range cohereCallCases {
		checkCohereCall(t, body)
	}
}

func checkCohereCall(t *testing.T, body string) {
	t.Helper()
	got, gotErr := cohereCall(body)
	want, wantErr := cohereCallDecoded(body)
	if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Errorf("cohereCall(%q) = %+v, %v; encoding/json gives %+v, %v", body, got, gotErr, want, wantErr)
	}
}

// FuzzJSONArrayItems checks jsonArrayItems, cohereCall and plain string
// decoding against encoding/json.
func FuzzJSONArrayItems(f *testing.F) {
	for _, s := range cohereCallCases {
		f.Add(s)
	}
	f.Add(`[{"a": 1}, 2, "x", [3, 4], null]`)
	f.Add(`"plain"`)
	f.Add(`"esc\u00e9"`)
	f.Fuzz(func(t *testing.T, s string) {
		t.Run("", func(t *testing.T) { checkCohereCall(t, strings.TrimSpace(s)) })
		if end, escaped, ok := scanJSONString(s, 0); ok && len(s) > 0 && s[0] == '"' {
			if v, plain := plainJSONString(s[:end], escaped); plain {
				var want string
				if err := json.Unmarshal([]byte(s[:end]), &want); err != nil || want != v {
					t.Fatalf("plainJSONString(%q) = %q; encoding/json gives %q, %v", s[:end], v, want, err)
				}
			}
		}
		items, ok := jsonArrayItems(s)
		var want []json.RawMessage
		err := json.Unmarshal([]byte(s), &want)
		if ok != (err == nil && len(s) > 0 && s[0] == '[') {
			if ok || (len(s) > 0 && s[0] == '[' && !strings.ContainsAny(s[len(s)-1:], " \t\r\n")) {
				t.Fatalf("jsonArrayItems(%q) ok = %v; encoding/json: %v", s, ok, err)
			}
		}
		if !ok {
			return
		}
		if len(items) != len(want) {
			t.Fatalf("jsonArrayItems(%q) = %q; encoding/json gives %q", s, items, want)
		}
		for i := range items {
			if items[i] != string(want[i]) {
				t.Fatalf("jsonArrayItems(%q) = %q; encoding/json gives %q", s, items, want)
			}
		}
	})
}

// BenchmarkCallBody: a call body as models write it, by the scanner and by
// encoding/json (the numbers in docs/DECISIONS.md).
//
//	go test ./format -run '^$' -bench CallBody -benchmem
func BenchmarkCallBody(b *testing.B) {
	const body = `{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius", "days": [1, 2, 3]}}`
	b.Run("valid/scanner", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			validJSON(body)
		}
	})
	b.Run("valid/encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			json.Valid([]byte(body))
		}
	})
	b.Run("call/scanner", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			nameAndArguments(body)
		}
	})
	b.Run("call/encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			nameAndArgumentsDecoded(body)
		}
	})
}
