package format

import "testing"

func TestMiniMaxM2(t *testing.T) {
	rawCheck(t, "minimax-m2", []rawCase{
		{name: "missing </invoke>", out: "<minimax:tool_call>\n<invoke name=\"get_time\">\n<parameter name=\"zone\">UTC</parameter>\n</minimax:tool_call>", kept: true, codes: []string{"malformed-call"}},
		{name: "unquoted name", out: "<minimax:tool_call><invoke name=get_time><parameter name=zone>UTC</parameter></invoke></minimax:tool_call>", tools: rawTools, calls: []string{`get_time {"zone": "UTC"}`}},
		{name: "empty block", out: "<minimax:tool_call>\n</minimax:tool_call>after", content: "after"},
		{name: "prose after the opener", out: "The <minimax:tool_call> tag wraps calls", kept: true, codes: []string{"malformed-call"}, early: "The <minimax:tool_call> tag"},
		{name: "text after an invoke ends the section", out: "<minimax:tool_call><invoke name=\"get_time\"></invoke> then", tools: rawTools, calls: []string{`get_time {}`}, content: "then"},
		{name: "values kept verbatim", out: "<minimax:tool_call><invoke name=\"get_time\"><parameter name=\"zone\">\n<UTC>\n</parameter></invoke></minimax:tool_call>", tools: rawTools, calls: []string{`get_time {"zone": "\n<UTC>\n"}`}},
	})
}
