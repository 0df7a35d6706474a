package format

import "testing"

func init() {
	// No apriel peer vector contradicts a decision; llamacpp-033 renders the
	// Apriel 1.5 template, which does not force reasoning open.
}

func TestApriel(t *testing.T) {
	runFamilyCases(t, "apriel", []familyCase{
		{name: "ids", withIDs: true, input: `<tool_calls>[{"name": "a", "arguments": {}, "id": "x1"}, {"name": "b", "arguments": {}}]</tool_calls>`,
			calls: []string{`a {} #x1`, `b {} #gen`}},
		{name: "call ends forced-open reasoning", opts: Options{ReasoningOpen: true}, input: `Step 1.<tool_calls>[{"name": "f", "arguments": {}}]</tool_calls>`,
			thinking: "Step 1.", calls: []string{`f {}`}},
		{name: "thinking then final response", input: "<thinking>t</thinking>[BEGIN FINAL RESPONSE]\nok[END FINAL RESPONSE]", thinking: "t", content: "ok"},
		{name: "whitespace before thinking", input: "  \n<thinking>t</thinking>ok", thinking: "t", content: "ok"},
		{name: "text that starts like thinking", input: "<thin ice", content: "<thin ice"},
		{name: "end marker consumed", input: `<tool_calls>[{"name": "f", "arguments": {"a": 1}}]`, calls: []string{`f {"a":1}`}},
		{name: "undeclared tool", opts: Options{Tools: weatherTools}, input: `<tool_calls>[{"name": "f", "arguments": {}}]</tool_calls>`,
			calls: []string{`f {}`}, diagCodes: []string{"unknown-tool"}},
		{name: "JSON lines are not this family", input: "<tool_calls>\n{\"name\": \"f\", \"arguments\": {}}\n{\"name\": \"g\", \"arguments\": {}}\n</tool_calls>",
			content: "<tool_calls>\n{\"name\": \"f\", \"arguments\": {}}\n{\"name\": \"g\", \"arguments\": {}}\n</tool_calls>", diagCodes: []string{"malformed-call"}},
		{name: "truncated", input: `<tool_calls>[{"name"`, content: `<tool_calls>[{"name"`, diagCodes: []string{"malformed-call"}},
		{name: "stray final marker without reasoning", opts: Options{ReasoningDisabled: true}, input: "a[BEGIN FINAL RESPONSE]b", content: "a[BEGIN FINAL RESPONSE]b"},
	})
}
