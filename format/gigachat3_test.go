package format

import "testing"

func init() {
	// No gigachat3 peer vector contradicts a decision; sglang-078 (invalid
	// JSON) passes: the text stays content, with a diagnostic (Decision 9).
}

func TestGigaChat3(t *testing.T) {
	runFamilyCases(t, "gigachat3", []familyCase{
		{name: "separator ends the turn", input: "Hello.<|message_sep|>", content: "Hello."},
		{name: "separator before other text", input: "a<|message_sep|>\n\nb", content: "a\n\nb"},
		{name: "call role without separator", input: "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {}}", calls: []string{`f {}`}},
		{name: "undeclared tool", opts: Options{Tools: weatherTools}, input: `<|function_call|>{"name": "f", "arguments": {}}`,
			calls: []string{`f {}`}, diagCodes: []string{"unknown-tool"}},
		{name: "invalid JSON", input: "<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {invalid json}}",
			content: "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {invalid json}}", diagCodes: []string{"malformed-call"}},
		{name: "not JSON", input: "<|function_call|>get_weather(Paris)", content: "<|function_call|>get_weather(Paris)", diagCodes: []string{"malformed-call"}},
		{name: "truncated", input: `<|function_call|>{"name": "f", "argu`, content: `<|function_call|>{"name": "f", "argu`, diagCodes: []string{"malformed-call"}},
		{name: "prose mentioning function call", input: "A function call is useful.", content: "A function call is useful."},
	})
}
