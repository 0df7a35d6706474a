package format

import "testing"

func TestSeedOSS(t *testing.T) {
	rawCheck(t, "seed-oss", []rawCase{
		{name: "missing </function>", out: "<seed:tool_call>\n<function=get_time>\n</seed:tool_call>", kept: true, codes: []string{"malformed-call"}},
		{name: "the qwen3 opener is content", out: "<tool_call>\n<function=get_time>\n</function>\n</tool_call>", kept: true},
		{name: "a JSON body is not seed markup", out: "<seed:tool_call>{\"name\": \"get_time\"}</seed:tool_call>", kept: true, codes: []string{"malformed-call"}},
		{name: "Python literals in a nested list", out: "<seed:tool_call><function=count><parameter=tags>['a', \"b\"]</parameter><parameter=opts>{'deep': {'x': None, 'y': (1, 2)}}</parameter></function></seed:tool_call>",
			tools: rawTools, calls: []string{`count {"tags": ["a", "b"], "opts": {"deep": {"x": null, "y": [1, 2]}}}`}},
		{name: "reasoning markers inside content are text", out: "Answer <seed:cot_budget_reflect>x</seed:cot_budget_reflect>", content: "Answer <seed:cot_budget_reflect>x</seed:cot_budget_reflect>"},
	})
}
