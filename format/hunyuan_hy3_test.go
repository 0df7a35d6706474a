package format

import "testing"

func init() {
	// No peer vector of hunyuan-hy3 contradicts a decision; none assumes a
	// forced-open prompt.
}

func TestHunyuanHy3Diagnostics(t *testing.T) {
	runDiagCases(t, "hunyuan-hy3", []diagCase{
		{name: "undeclared tool", input: "<tool_calls:opensource><tool_call:opensource>get_stock<tool_sep:opensource></tool_call:opensource></tool_calls:opensource>", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "key without value", input: "<tool_calls:opensource><tool_call:opensource>f<tool_sep:opensource><arg_key:opensource>a</arg_key:opensource></tool_call:opensource></tool_calls:opensource>", calls: 0, codes: []string{"malformed-call"}},
		{name: "value without key", input: "<tool_calls:opensource><tool_call:opensource>f<tool_sep:opensource><arg_value:opensource>a</arg_value:opensource></tool_call:opensource></tool_calls:opensource>", calls: 0, codes: []string{"malformed-call"}},
		{name: "no name", input: "<tool_calls:opensource><tool_call:opensource><tool_sep:opensource></tool_call:opensource></tool_calls:opensource>", calls: 0, codes: []string{"malformed-call"}},
		{name: "empty wrapper", input: "<tool_calls:opensource></tool_calls:opensource>", calls: 0, codes: []string{"malformed-call"}},
		{name: "no arguments", input: "<tool_calls:opensource><tool_call:opensource>get_time<tool_sep:opensource></tool_call:opensource></tool_calls:opensource>", tools: testTools, calls: 1},
	})
}
