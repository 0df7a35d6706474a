package format

import "testing"

func init() {
	// No peer vector of functionary-v3.1 contradicts a decision; none assumes a
	// forced-open prompt.
}

func TestFunctionaryV31Diagnostics(t *testing.T) {
	runDiagCases(t, "functionary-v3.1", []diagCase{
		{name: "undeclared tool", input: "<function=get_stock>{\"symbol\": \"X\"}</function>", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "arguments not an object", input: "<function=get_time>[1]</function>", calls: 0, codes: []string{"malformed-call"}},
		{name: "no name", input: "<function=>{}</function>", calls: 0, codes: []string{"malformed-call"}},
		{name: "truncated", input: "<function=get_time>{\"zone\"", calls: 0, codes: []string{"malformed-call"}},
		{name: "text after the JSON instead of the end tag", input: "<function=get_time>{} and more", calls: 1},
		{name: "empty python tag", input: "<|python_tag|>  ", calls: 0, codes: []string{"malformed-call"}},
	})
}
