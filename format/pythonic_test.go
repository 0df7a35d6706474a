package format

import "testing"

func TestPythonicDiagnostics(t *testing.T) {
	w := []string{"get_weather"}
	pyfCheck(t, "pythonic", []pyfCase{
		// Brackets that never looked like calls: content, no diagnostic.
		{name: "list", in: "[1, 2]", tools: w, content: "[1, 2]"},
		{name: "link", in: "[docs](http://x)", tools: w, content: "[docs](http://x)"},
		{name: "empty", in: "[] [ ]", tools: w, content: "[] [ ]"},
		{name: "bracket at end", in: "end [", tools: w, content: "end ["},
		{name: "word at end", in: "end [abc", tools: w, content: "end [abc"},
		// Malformed calls stay content (Decision 9).
		{name: "positional", in: "[get_weather('Paris')]", tools: w, content: "[get_weather('Paris')]", diags: []string{"malformed-call"}},
		{name: "truncated", in: "[get_weather(location='Pa", tools: w, content: "[get_weather(location='Pa", diags: []string{"malformed-call"}},
		{name: "name as value", in: "[get_weather(location=Paris)]", tools: w, content: "[get_weather(location=Paris)]", diags: []string{"malformed-call"}},
		{name: "wrapper without calls", in: "<|python_start|>hello<|python_end|>", tools: w,
			content: "<|python_start|>hello<|python_end|>", diags: []string{"malformed-call"}},
		// Undeclared tools are returned (Decision 1).
		{name: "unknown tool", in: "[other(a=1)]", tools: w, calls: []string{`other {"a":1}`}, diags: []string{"unknown-tool"}},
		// Values.
		{name: "literals", in: `[get_weather(a=True, b=None, c=-1.5e3, d=(1,), e='it\'s', f="\u00e9", g={1: 'x'})]`, tools: w,
			calls: []string{`get_weather {"a":true,"b":null,"c":-1.5e3,"d":[1],"e":"it's","f":"é","g":{"1":"x"}}`}},
		{name: "wrapper without end marker", in: "<|python_start|>[get_weather()]", tools: w, calls: []string{"get_weather {}"}},
	})
}
