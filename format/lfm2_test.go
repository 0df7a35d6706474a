package format

import "testing"

func init() {
	// Ollama v0.17.4's LFM2 thinking parser took the prompt to have opened
	// <think> when thinking was on; its later versions expect the model to
	// write it (the corpus templates never do).
	peerStartsInReasoning["lfm2-thinking@v0.17.4"] = true
	contradicted["sglang-067"] = `Decision 1: "Calls to undeclared tools are returned, not dropped" (SGLang drops unknown_function)`
}

func TestLFM2Diagnostics(t *testing.T) {
	w := []string{"get_weather"}
	pyfCheck(t, "lfm2", []pyfCase{
		// Malformed calls stay content (Decision 9).
		{name: "unterminated", in: "<|tool_call_start|>[get_weather(a=", tools: w,
			content: "<|tool_call_start|>[get_weather(a=", diags: []string{"malformed-call"}},
		{name: "prose in block", in: "<|tool_call_start|>hello<|tool_call_end|>", tools: w,
			content: "<|tool_call_start|>hello<|tool_call_end|>", diags: []string{"malformed-call"}},
		{name: "text after calls in block", in: "<|tool_call_start|>[get_weather()] and<|tool_call_end|>", tools: w,
			content: "<|tool_call_start|>[get_weather()] and<|tool_call_end|>", diags: []string{"malformed-call"}},
		{name: "bad JSON", in: `<|tool_call_start|>[{"name": "get_weather", "arguments": }]<|tool_call_end|>`, tools: w,
			content: `<|tool_call_start|>[{"name": "get_weather", "arguments": }]<|tool_call_end|>`, diags: []string{"malformed-call"}},
		// Undeclared tools are returned (Decision 1).
		{name: "unknown tool", in: "<|tool_call_start|>[other()]<|tool_call_end|>", tools: w, calls: []string{"other {}"}, diags: []string{"unknown-tool"}},
		// Bodies (Decision 4).
		{name: "bare pythonic", in: "<|tool_call_start|>get_weather(a=1)<|tool_call_end|>", tools: w, calls: []string{`get_weather {"a":1}`}},
		{name: "JSON list of two", in: `<|tool_call_start|>[{"name": "get_weather", "arguments": {}}, {"name": "get_weather", "parameters": {"b": 2}}]<|tool_call_end|>`, tools: w,
			calls: []string{"get_weather {}", `get_weather {"b": 2}`}},
		{name: "no end marker, text after", in: "<|tool_call_start|>[get_weather()] bye", tools: w, content: "bye", calls: []string{"get_weather {}"}},
		// Reasoning.
		{name: "call ends reasoning", in: "<think>plan<|tool_call_start|>[get_weather()]<|tool_call_end|>", tools: w,
			thinking: "plan", calls: []string{"get_weather {}"}},
		// FORMATS.md, lfm2: "Leading whitespace before a direct answer is
		// dropped" (pyfCheck also feeds it byte by byte).
		{name: "leading whitespace", in: "  \n  Hello there", content: "Hello there"},
		{name: "only whitespace", in: "  \n ", content: ""},
	})
}
