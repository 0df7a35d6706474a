package format

import "testing"

func init() {
	// Ollama's olmo3-think parser assumes the OLMo 3 Think prompt left
	// reasoning open.
	peerStartsInReasoning["olmo3-think"] = true
}

func TestOLMo3Diagnostics(t *testing.T) {
	w := []string{"get_weather"}
	pyfCheck(t, "olmo3", []pyfCase{
		// Malformed calls stay content (Decision 9).
		{name: "unterminated", in: `<function_calls>get_weather(a="`, tools: w, content: `<function_calls>get_weather(a="`, diags: []string{"malformed-call"}},
		{name: "prose in block", in: "<function_calls>I will call</function_calls>", tools: w,
			content: "<function_calls>I will call</function_calls>", diags: []string{"malformed-call"}},
		{name: "positional", in: `<function_calls>get_weather("Paris")</function_calls>`, tools: w,
			content: `<function_calls>get_weather("Paris")</function_calls>`, diags: []string{"malformed-call"}},
		// Undeclared tools are returned (Decision 1).
		{name: "unknown tool", in: "<function_calls>other()</function_calls>", tools: w, calls: []string{"other {}"}, diags: []string{"unknown-tool"}},
		// Bodies.
		{name: "bracketed list", in: "<function_calls>[get_weather(a=1), get_weather(b=2)]</function_calls>", tools: w,
			calls: []string{`get_weather {"a":1}`, `get_weather {"b":2}`}},
		{name: "lines with blank lines", in: "<function_calls>\nget_weather(a=1)\n\nget_weather(b=true)\n</function_calls>", tools: w,
			calls: []string{`get_weather {"a":1}`, `get_weather {"b":true}`}},
		{name: "no end marker", in: "<function_calls>get_weather(a=1)", tools: w, calls: []string{`get_weather {"a":1}`}},
		// Reasoning (OLMo 3 Think is forced open).
		{name: "only the first close", in: "a</think>b</think>c", open: true, thinking: "a", content: "b</think>c"},
		{name: "empty thinking", in: "</think>Just content.", open: true, content: "Just content."},
		{name: "open marker at start", in: "<think>x</think>y", open: true, thinking: "x", content: "y"},
	})
}
