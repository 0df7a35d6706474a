package format

import "testing"

func init() {
	// No peer vector of xlam contradicts a decision; none assumes a
	// forced-open prompt.
}

func TestXLAMDiagnostics(t *testing.T) {
	runDiagCases(t, "xlam", []diagCase{
		{name: "undeclared tool", input: "[{\"name\": \"get_stock\", \"arguments\": {}}]", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "JSON that is not calls", input: "[1, 2, 3]", calls: 0},
		{name: "named elements with bad arguments", input: "[{\"name\": \"f\", \"arguments\": 1}]", calls: 0, codes: []string{"malformed-call"}},
		{name: "truncated bare list", input: "[{\"name\": \"f\", \"argu", calls: 0, codes: []string{"malformed-call"}},
		{name: "truncated JSON that is not calls", input: "[1, 2", calls: 0},
		{name: "wrapper without a list", input: "[TOOL_CALLS] hello", calls: 0, codes: []string{"malformed-call"}},
		{name: "array later in the text", input: "Here: [{\"name\": \"f\", \"arguments\": {}}]", calls: 0},
	})
}
