package format

import "testing"

func init() {
	// No peer vector of muse-glimmer contradicts a decision; none assumes a
	// forced-open prompt.
}

func TestMuseGlimmerDiagnostics(t *testing.T) {
	runDiagCases(t, "muse-glimmer", []diagCase{
		{name: "undeclared tool", input: " to=get_stock<|message|><atem:function_calls><atem:invoke name=\"get_stock\"></atem:invoke></atem:function_calls><|eot|>", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "empty block", input: " to=f<|message|><atem:function_calls></atem:function_calls><|eot|>", calls: 0, codes: []string{"malformed-call"}},
		{name: "unclosed parameter", input: " to=f<|message|><atem:function_calls><atem:invoke name=\"f\"><atem:parameter name=\"a\">1</atem:function_calls><|eot|>", calls: 0, codes: []string{"malformed-call"}},
		{name: "stray start", input: " to=user<|message|>a<|eom|><|start|>user<|message|>b", calls: 0, codes: []string{"stray-markup"}},
		{name: "bad header", input: " to=user<|message|>a<|eom|><|start|>assistant<|channel|>x<|message|>b", calls: 0, codes: []string{"stray-markup"}},
		{name: "close tag consumed at the end", input: " to=get_time<|message|><atem:function_calls><atem:invoke name=\"get_time\"><atem:parameter name=\"zone\">UTC</atem:parameter></atem:invoke>", tools: testTools, calls: 1},
	})
}
