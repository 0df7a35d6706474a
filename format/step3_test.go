package format

import "testing"

func init() {
	// No peer vector of step3 contradicts a decision; none assumes a
	// forced-open prompt.
}

func TestStep3Diagnostics(t *testing.T) {
	runDiagCases(t, "step3", []diagCase{
		{name: "undeclared tool", input: "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_stock\"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "no separator", input: "<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name=\"f\"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>", calls: 0, codes: []string{"malformed-call"}},
		{name: "no invoke", input: "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>f<｜tool_call_end｜><｜tool_calls_end｜>", calls: 0, codes: []string{"malformed-call"}},
		{name: "unclosed invoke", input: "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><｜tool_call_end｜><｜tool_calls_end｜>", calls: 0, codes: []string{"malformed-call"}},
		{name: "empty section", input: "<｜tool_calls_begin｜><｜tool_calls_end｜>", calls: 0, codes: []string{"malformed-call"}},
	})
}
