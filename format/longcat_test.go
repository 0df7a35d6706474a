package format

import "testing"

func init() {
	// No peer vector of longcat contradicts a decision; none assumes a
	// forced-open prompt.
}

func TestLongCatDiagnostics(t *testing.T) {
	runDiagCases(t, "longcat", []diagCase{
		{name: "undeclared tool", input: "<longcat_tool_call>get_stock</longcat_tool_call>", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "unbalanced pairs", input: "<longcat_tool_call>f\n<longcat_arg_key>a</longcat_arg_key>\n</longcat_tool_call>", calls: 0, codes: []string{"malformed-call"}},
		{name: "bad JSON body", input: "<longcat_tool_call>{\"name\": \"f\", \"arguments\": 1}</longcat_tool_call>", calls: 0, codes: []string{"malformed-call"}},
		{name: "truncated JSON body", input: "<longcat_tool_call>{\"name\": \"f\"", calls: 0, codes: []string{"malformed-call"}},
		{name: "no arguments", input: "<longcat_tool_call>get_time</longcat_tool_call>", tools: testTools, calls: 1},
	})
}
