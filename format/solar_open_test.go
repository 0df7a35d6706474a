package format

import "testing"

func init() {
	// No peer vector of solar-open contradicts a decision; none assumes a
	// forced-open prompt.
}

func TestSolarOpenDiagnostics(t *testing.T) {
	runDiagCases(t, "solar-open", []diagCase{
		{name: "undeclared tool", input: "<|tool_calls|><|tool_call:begin|>abcdefghij<|tool_call:name|>get_stock<|tool_call:args|>{}<|tool_call:end|><|calls|>", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "no name marker", input: "<|tool_calls|><|tool_call:begin|>abcdefghij<|tool_call:args|>{}<|tool_call:end|><|calls|>", calls: 0, codes: []string{"malformed-call"}},
		{name: "empty name", input: "<|tool_calls|><|tool_call:begin|>abcdefghij<|tool_call:name|><|tool_call:args|>{}<|tool_call:end|><|calls|>", calls: 0, codes: []string{"malformed-call"}},
		{name: "arguments not an object", input: "<|tool_calls|><|tool_call:begin|>abcdefghij<|tool_call:name|>f<|tool_call:args|>[]<|tool_call:end|><|calls|>", calls: 0, codes: []string{"malformed-call"}},
		{name: "no call", input: "<|tool_calls|>hello", calls: 0, codes: []string{"malformed-call"}},
		{name: "stray begin", input: "<|content|>a<|end|><|begin|>user<|content|>b", calls: 0, codes: []string{"malformed-call"}},
	})
}
