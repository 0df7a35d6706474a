package format

import "testing"

func init() {
	// No peer vector of apertus contradicts a decision; none assumes a
	// forced-open prompt.
}

func TestApertusDiagnostics(t *testing.T) {
	runDiagCases(t, "apertus", []diagCase{
		{name: "undeclared tool", input: "<|tools_prefix|>[{\"get_stock\": {}}]<|tools_suffix|>", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "two keys", input: "<|tools_prefix|>[{\"a\": {}, \"b\": {}}]<|tools_suffix|>", calls: 0, codes: []string{"malformed-call"}},
		{name: "zero keys", input: "<|tools_prefix|>[{}]<|tools_suffix|>", calls: 0, codes: []string{"malformed-call"}},
		{name: "arguments not an object", input: "<|tools_prefix|>[{\"a\": [1]}]<|tools_suffix|>", calls: 0, codes: []string{"malformed-call"}},
		{name: "truncated", input: "<|tools_prefix|>[{\"a\": {", calls: 0, codes: []string{"malformed-call"}},
	})
}
