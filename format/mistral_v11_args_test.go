package format

import "testing"

func init() {
	// Ollama's "ministral (thinking)" tests feed output that starts inside
	// the reasoning (the renderer ended the prompt with [THINK]).
	peerStartsInReasoning["ministral (thinking)"] = true
}

func TestMistralV11ArgsDiagnostics(t *testing.T) {
	w := []string{"get_weather"}
	pyfCheck(t, "mistral-v11-args", []pyfCase{
		// Malformed calls stay content (Decision 9).
		{name: "no ARGS", in: "[TOOL_CALLS]get_weather", tools: w, content: "[TOOL_CALLS]get_weather", diags: []string{"malformed-call"}},
		{name: "name with a newline", in: "[TOOL_CALLS]get\nweather[ARGS]{}", tools: w,
			content: "[TOOL_CALLS]get\nweather[ARGS]{}", diags: []string{"malformed-call"}},
		{name: "arguments not an object", in: `[TOOL_CALLS]get_weather[ARGS]"x"`, tools: w,
			content: `[TOOL_CALLS]get_weather[ARGS]"x"`, diags: []string{"malformed-call"}},
		{name: "truncated arguments", in: `[TOOL_CALLS]get_weather[ARGS]{"a": "b`, tools: w,
			content: `[TOOL_CALLS]get_weather[ARGS]{"a": "b`, diags: []string{"malformed-call"}},
		{name: "prose after the marker", in: "[TOOL_CALLS] is a token [ARGS]{}", tools: w,
			content: "[TOOL_CALLS] is a token [ARGS]{}", diags: []string{"malformed-call"}},
		{name: "space before ARGS", in: "[TOOL_CALLS] get_weather [ARGS] {}", tools: w, calls: []string{"get_weather {}"}},
		{name: "empty name", in: `[TOOL_CALLS][ARGS]{}`, tools: w, content: `[TOOL_CALLS][ARGS]{}`, diags: []string{"malformed-call"}},
		{name: "other bracket after name", in: `[TOOL_CALLS]get_weather[FOO]{}`, tools: w,
			content: `[TOOL_CALLS]get_weather[FOO]{}`, diags: []string{"malformed-call"}},
		// Undeclared tools are returned (Decision 1).
		{name: "unknown tool", in: `[TOOL_CALLS]other[ARGS]{}`, tools: w, calls: []string{"other {}"}, diags: []string{"unknown-tool"}},
		// Ids (Decision 3) and JSON boundaries.
		{name: "call id", in: `[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"s": "}{\"\\"}`, tools: w,
			calls: []string{`get_weather {"s": "}{\"\\"}`}, ids: []string{"a1b2c3d4e"}},
		{name: "text after the object", in: `[TOOL_CALLS]get_weather[ARGS]{} then text`, tools: w,
			content: "then text", calls: []string{"get_weather {}"}},
		// Reasoning.
		{name: "think mid-content", in: "a \n [THINK] x [/THINK] \n b", content: "ab", thinking: "x"},
		{name: "forced open", in: "[THINK]plan[/THINK]answer", open: true, content: "answer", thinking: "plan"},
		{name: "forced open, no close", in: "still thinking", open: true, thinking: "still thinking"},
		{name: "partial close is reasoning", in: "[THINK]a[/THI b", thinking: "a[/THI b"},
		{name: "call ends reasoning", in: "[THINK]plan[TOOL_CALLS]get_weather[ARGS]{}", tools: w,
			thinking: "plan", calls: []string{"get_weather {}"}},
		{name: "stray close is content", in: "x[/THINK]y", content: "x[/THINK]y"},
		{name: "empty think", in: "[THINK][/THINK]hi", content: "hi"},
	})
}

// A space after [/THINK] is dropped however the chunks split it: U+00A0 is
// two bytes, and a chunk ending after the first must not release it.
func TestMistralV11ArgsSpaceAfterThinkSplit(t *testing.T) {
	fam, _ := Lookup("mistral-v11-args")
	out := "[THINK]plan[/THINK]\u00a0answer"
	for cut := 1; cut < len(out); cut++ {
		r := Run(fam.New(Options{}), out[:cut], out[cut:])
		if r.Content != "answer" || r.Reasoning != "plan" {
			t.Errorf("split at %d: content %q, thinking %q; want \"answer\", \"plan\"", cut, r.Content, r.Reasoning)
		}
	}
}
