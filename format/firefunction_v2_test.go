package format

import "testing"

func init() {
	// No peer vector of firefunction-v2 contradicts a decision; none assumes a
	// forced-open prompt.
}

func TestFireFunctionV2Diagnostics(t *testing.T) {
	runDiagCases(t, "firefunction-v2", []diagCase{
		{name: "undeclared tool", input: " functools[{\"name\": \"get_stock\", \"arguments\": {}}]", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "element without a name", input: " functools[{\"arguments\": {}}]", calls: 0, codes: []string{"malformed-call"}},
		{name: "not an array", input: " functools[1, 2", calls: 0, codes: []string{"malformed-call"}},
		{name: "arguments not an object", input: " functools[{\"name\": \"f\", \"arguments\": 3}]", calls: 0, codes: []string{"malformed-call"}},
		{name: "empty list", input: " functools[]", calls: 0},
	})
}
