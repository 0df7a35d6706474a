package format

import "testing"

func init() {
	// No nemotron-toolcall-json peer vector contradicts a decision;
	// llamacpp-021 renders the template, whose prompt ends with <think>.
}

func TestNemotronToolcallJSON(t *testing.T) {
	runFamilyCases(t, "nemotron-toolcall-json", []familyCase{
		{name: "no_think prefill", opts: Options{ReasoningDisabled: true}, input: "Hi</think>", content: "Hi</think>"},
		{name: "explicit open under forced open", opts: Options{ReasoningOpen: true}, input: "<think>t</think>ok", thinking: "t", content: "ok"},
		{name: "undeclared tool", opts: Options{Tools: weatherTools}, input: `<TOOLCALL>[{"name": "f", "arguments": {}}]</TOOLCALL>`,
			calls: []string{`f {}`}, diagCodes: []string{"unknown-tool"}},
		{name: "string arguments not an object", input: `<TOOLCALL>[{"name": "f", "arguments": "tool_args1"}]</TOOLCALL>`,
			content: `<TOOLCALL>[{"name": "f", "arguments": "tool_args1"}]</TOOLCALL>`, diagCodes: []string{"malformed-call"}},
		{name: "text after the list before the end marker", input: `<TOOLCALL>[]x</TOOLCALL>`, content: `<TOOLCALL>[]x</TOOLCALL>`, diagCodes: []string{"malformed-call"}},
		{name: "truncated", input: `<TOOLCALL>[{"name": "f", "arguments": {`, content: `<TOOLCALL>[{"name": "f", "arguments": {`, diagCodes: []string{"malformed-call"}},
	})
}

func TestNemotronEndMarkerInString(t *testing.T) {
	in := `<TOOLCALL>[{"name": "f", "arguments": {"s": "</TOOLCALL>"}}]</TOOLCALL>`
	fam, _ := Lookup("nemotron-toolcall-json")
	for cut := 0; cut <= len(in); cut++ {
		r := Run(fam.New(Options{}), in[:cut], in[cut:])
		if len(r.ToolCalls) != 1 || r.Content != "" || len(r.Diagnostics) != 0 {
			t.Fatalf("split at %d: %+v", cut, r)
		}
	}
}
