package format

import "testing"

func init() {
	// No command-r-plus-markdown peer vectors in the sample.
}

func TestCommandRPlusMarkdown(t *testing.T) {
	runFamilyCases(t, "command-r-plus-markdown", []familyCase{
		{name: "fence on the next line", input: "Action:\n```json\n[{\"tool_name\": \"f\", \"parameters\": {}}]\n```", calls: []string{`f {}`}},
		{name: "fence missing at end", input: "Action:\n```json\n[{\"tool_name\": \"f\", \"parameters\": {}}]", calls: []string{`f {}`}},
		{name: "undeclared tool", opts: Options{Tools: weatherTools}, input: "Action:\n```json\n[{\"tool_name\": \"f\", \"parameters\": {}}]```",
			calls: []string{`f {}`}, diagCodes: []string{"unknown-tool"}},
		{name: "python fence is prose", input: "Action:\n```python\nprint(1)\n```", content: "Action:\n```python\nprint(1)\n```"},
		{name: "no tool_name", input: "Action:\n```json\n[{\"name\": \"f\"}]```", content: "Action:\n```json\n[{\"name\": \"f\"}]```", diagCodes: []string{"malformed-call"}},
		{name: "text instead of fence close", input: "Action:\n```json\n[]\nmore", content: "Action:\n```json\n[]\nmore", diagCodes: []string{"malformed-call"}},
		{name: "truncated", input: "Action:\n```json\n[{", content: "Action:\n```json\n[{", diagCodes: []string{"malformed-call"}},
	})
}
