package format

import "testing"

func init() {
	// No granite peer vector contradicts a decision; Granite 3.x templates do
	// not force reasoning open.
}

func TestGranite(t *testing.T) {
	runFamilyCases(t, "granite", []familyCase{
		{name: "single object", input: `<|tool_call|>{"name": "f", "arguments": {"a": 1}}`, calls: []string{`f {"a":1}`}},
		{name: "vLLM tool_call list", input: `<tool_call>[{"name": "f", "arguments": {}}]</tool_call>ok`, content: "ok", calls: []string{`f {}`}},
		{name: "empty list", input: `<|tool_call|>[]`},
		{name: "arguments as a JSON string", input: `<|tool_call|>[{"name": "f", "arguments": "{\"a\": 1}"}]`, calls: []string{`f {"a":1}`}},
		{name: "undeclared tool", opts: Options{Tools: weatherTools}, input: `<|tool_call|>[{"name": "f", "arguments": {}}]`,
			calls: []string{`f {}`}, diagCodes: []string{"unknown-tool"}},
		{name: "no name", input: `<|tool_call|>[{"arguments": {}}]`, content: `<|tool_call|>[{"arguments": {}}]`, diagCodes: []string{"malformed-call"}},
		{name: "not JSON", input: `<|tool_call|> get_weather`, content: `<|tool_call|> get_weather`, diagCodes: []string{"malformed-call"}},
		{name: "truncated", input: `<|tool_call|>[{"name": "f"`, content: `<|tool_call|>[{"name": "f"`, diagCodes: []string{"malformed-call"}},
		{name: "reasoning with a call", input: "<think>plan</think><|tool_call|>[{\"name\": \"f\", \"arguments\": {}}]", thinking: "plan", calls: []string{`f {}`}},
	})
}
