package format

import "testing"

func TestQwen3CoderXML(t *testing.T) {
	rawCheck(t, "qwen3-coder-xml", []rawCase{
		// Malformed calls stay content, with a diagnostic.
		{name: "missing </function>", out: "<tool_call>\n<function=get_time>\n<parameter=zone>\nUTC\n</parameter>\n</tool_call>",
			kept: true, codes: []string{"malformed-call"}},
		{name: "unclosed parameter", out: "<tool_call>\n<function=get_time>\n<parameter=zone>\nUTC\n</function>\n</tool_call>",
			kept: true, codes: []string{"malformed-call"}},
		{name: "prose after the opener is released at once", out: "Use <tool_call> to call a tool, then wait.",
			kept: true, codes: []string{"malformed-call"}, early: "Use <tool_call> to call"},
		{name: "a name that does not end", out: "<tool_call>\n<function=get time\nnow", kept: true, codes: []string{"malformed-call"}},
		// Structure.
		{name: "two functions in one block", out: "<tool_call>\n<function=get_time>\n</function>\n<function=count>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>",
			tools: rawTools, calls: []string{`get_time {}`, `count {"n": 3}`}},
		{name: "text after </function> without </tool_call>", out: "<tool_call>\n<function=get_time>\n</function>\nThen text",
			tools: rawTools, calls: []string{`get_time {}`}, content: "Then text"},
		{name: "JSON body", out: "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"UTC\"}}\n</tool_call>",
			tools: rawTools, calls: []string{`get_time {"zone": "UTC"}`}},
		{name: "only one layout newline is removed", out: "<tool_call><function=get_time><parameter=zone>\n\n UTC \n\n</parameter></function></tool_call>",
			calls: []string{`get_time {"zone": "\n UTC \n"}`}},
		{name: "a repeated parameter keeps its first place and last value", out: "<tool_call><function=count><parameter=n>1</parameter><parameter=tags>[]</parameter><parameter=n>2</parameter></function></tool_call>",
			tools: rawTools, calls: []string{`count {"n": 2, "tags": []}`}},
		// Typing.
		{name: "a value that does not fit its schema stays a string", out: "<tool_call><function=count><parameter=n>many</parameter><parameter=opts>[1]</parameter></function></tool_call>",
			tools: rawTools, calls: []string{`count {"n": "many", "opts": "[1]"}`}},
		{name: "unknown tool: returned, untyped, with a diagnostic", out: "<tool_call><function=other><parameter=n>1</parameter></function></tool_call>",
			tools: rawTools, calls: []string{`other {"n": "1"}`}, codes: []string{"unknown-tool"}},
	})
}
