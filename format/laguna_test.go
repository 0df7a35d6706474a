package format

import "testing"

func TestLaguna(t *testing.T) {
	rawCheck(t, "laguna", []rawCase{
		{name: "turn end then text", out: "Answer</assistant>\nmore", content: "Answer\nmore"},
		{name: "turn end after a call", out: "<tool_call>get_time</tool_call></assistant>", tools: rawTools, calls: []string{`get_time {}`}},
		{name: "a split turn end", out: "Answer</assi", content: "Answer</assi"},
		{name: "malformed call", out: "<tool_call>get_time<arg_value>x</arg_value></tool_call>", kept: true, codes: []string{"malformed-call"}},
	})
}
