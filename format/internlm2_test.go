package format

import "testing"

func init() {
	// No peer vector of internlm2 contradicts a decision; none assumes a
	// forced-open prompt.
}

func TestInternLM2Diagnostics(t *testing.T) {
	runDiagCases(t, "internlm2", []diagCase{
		{name: "undeclared tool", input: "<|action_start|><|plugin|>{\"name\": \"get_stock\", \"parameters\": {}}<|action_end|>", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "no name", input: "<|action_start|><|plugin|>{\"parameters\": {}}<|action_end|>", calls: 0, codes: []string{"malformed-call"}},
		{name: "not JSON", input: "<|action_start|><|plugin|>get_time()<|action_end|>", calls: 0, codes: []string{"malformed-call"}},
		{name: "truncated", input: "<|action_start|><|plugin|>{\"name\": ", calls: 0, codes: []string{"malformed-call"}},
		{name: "interpreter", input: "<|action_start|><|interpreter|>print(1)<|action_end|>", calls: 0},
	})
}
