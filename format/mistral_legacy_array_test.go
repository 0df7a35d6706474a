package format

import "testing"

func TestMistralLegacyArrayDiagnostics(t *testing.T) {
	w := []string{"get_weather"}
	pyfCheck(t, "mistral-legacy-array", []pyfCase{
		// Malformed calls stay content (Decision 9).
		{name: "truncated", in: `Hi [TOOL_CALLS][{"name": "get_weather", "arguments": {`, tools: w,
			content: `Hi [TOOL_CALLS][{"name": "get_weather", "arguments": {`, diags: []string{"malformed-call"}},
		{name: "no name", in: `[TOOL_CALLS][{"arguments": {}}]`, tools: w,
			content: `[TOOL_CALLS][{"arguments": {}}]`, diags: []string{"malformed-call"}},
		{name: "arguments not an object", in: `[TOOL_CALLS][{"name": "get_weather", "arguments": [1]}]`, tools: w,
			content: `[TOOL_CALLS][{"name": "get_weather", "arguments": [1]}]`, diags: []string{"malformed-call"}},
		{name: "empty list", in: `[TOOL_CALLS][]`, tools: w, content: `[TOOL_CALLS][]`, diags: []string{"malformed-call"}},
		{name: "marker alone", in: `[TOOL_CALLS]`, tools: w, content: `[TOOL_CALLS]`, diags: []string{"malformed-call"}},
		// Undeclared tools are returned (Decision 1).
		{name: "unknown tool", in: `[TOOL_CALLS][{"name": "other", "arguments": {}}]`, tools: w,
			calls: []string{"other {}"}, diags: []string{"unknown-tool"}},
		{name: "no tools offered", in: `[TOOL_CALLS][{"name": "other", "arguments": {}}]`, calls: []string{"other {}"}},
		// Ids, and the whitespace around a call (its layout).
		{name: "id", in: "Sure.\n\n[TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {\"a\": 1}, \"id\": \"abcDEF123\"}]\n", tools: w,
			content: "Sure.", calls: []string{`get_weather {"a": 1}`}, ids: []string{"abcDEF123"}},
		{name: "partial marker", in: "abc[TOOL", content: "abc[TOOL"},
		{name: "trailing whitespace without a call", in: "Hello  \n", content: "Hello  \n"},
		{name: "THINK is text here", in: "[THINK]x[/THINK]y", content: "[THINK]x[/THINK]y"},
	})
}
