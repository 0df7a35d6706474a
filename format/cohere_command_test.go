package format

import "testing"

func init() {
	// Ollama's cohere parser starts in the tool plan: Cohere2MoE's prompt ends
	// with <|START_THINKING|>.
	peerStartsInReasoning["cohere"] = true
}

func TestCohereCommand(t *testing.T) {
	runFamilyCases(t, "cohere-command", []familyCase{
		{name: "ids", withIDs: true, input: `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "a", "parameters": {}}, {"tool_call_id": 5, "tool_name": "b", "parameters": {}}, {"tool_name": "c", "parameters": {}}]<|END_ACTION|>`,
			calls: []string{`a {} #0`, `b {} #5`, `c {} #gen`}},
		{name: "answer after plan and tool results", input: "<|START_THINKING|>plan<|END_THINKING|><|START_RESPONSE|>The answer <co>is 4</co: 0:[1]>.<|END_RESPONSE|>",
			thinking: "plan", content: "The answer <co>is 4</co: 0:[1]>."},
		{name: "action ends forced-open reasoning", opts: Options{ReasoningOpen: true}, input: `plan<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {}}]<|END_ACTION|>`,
			thinking: "plan", calls: []string{`f {}`}},
		{name: "end marker consumed", input: `<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": 1}}]`, calls: []string{`f {"a":1}`}},
		{name: "undeclared tool", opts: Options{Tools: weatherTools}, input: `<|START_ACTION|>[{"tool_name": "f", "parameters": {}}]<|END_ACTION|>`,
			calls: []string{`f {}`}, diagCodes: []string{"unknown-tool"}},
		{name: "invalid JSON", input: `<|START_ACTION|>[{tool_name: f}]<|END_ACTION|>`, content: `<|START_ACTION|>[{tool_name: f}]<|END_ACTION|>`, diagCodes: []string{"malformed-call"}},
		{name: "unbalanced before end marker", input: `<|START_ACTION|>[{"tool_name": "f"<|END_ACTION|>ok`, content: `<|START_ACTION|>[{"tool_name": "f"<|END_ACTION|>ok`, diagCodes: []string{"malformed-call"}},
		{name: "truncated", input: `<|START_ACTION|>[{"tool_name": "f"`, content: `<|START_ACTION|>[{"tool_name": "f"`, diagCodes: []string{"malformed-call"}},
	})
}
