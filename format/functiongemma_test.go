package format

import "testing"

func init() {
	// No functiongemma peer vector contradicts a decision (Ollama's dropping
	// of text between calls when fed whole is not in the sample).
}

func TestFunctionGemma(t *testing.T) {
	runFamilyCases(t, "functiongemma", []familyCase{
		{name: "text between calls", input: "<start_function_call>call:a{}<end_function_call> then <start_function_call>call:b{s:<escape>x<escape>}<end_function_call>",
			content: " then ", calls: []string{`a {}`, `b {"s":"x"}`}},
		{name: "escape keeps quotes and braces", input: `<start_function_call>call:f{s:<escape>say "hi" {x}<escape>}<end_function_call>`,
			calls: []string{`f {"s":"say \"hi\" {x}"}`}},
		{name: "missing end marker at end", input: "<start_function_call>call:f{n:1}", calls: []string{`f {"n":1}`}},
		{name: "undeclared tool", opts: Options{Tools: weatherTools}, input: "<start_function_call>call:f{}<end_function_call>",
			calls: []string{`f {}`}, diagCodes: []string{"unknown-tool"}},
		{name: "unbalanced", input: "<start_function_call>call:f{a:1]<end_function_call>", content: "<start_function_call>call:f{a:1]<end_function_call>", diagCodes: []string{"malformed-call"}},
		{name: "truncated", input: "x<start_function_call>call:f{a:<escape>", content: "x<start_function_call>call:f{a:<escape>", diagCodes: []string{"malformed-call"}},
		{name: "fake marker", input: "<start of text", content: "<start of text"},
	})
}
