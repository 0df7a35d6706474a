package format

import "testing"

func TestMiniMaxM3(t *testing.T) {
	const ns = m3NS
	block := func(body string) string {
		return ns + "<tool_call>\n" + body + ns + "</tool_call>"
	}
	rawCheck(t, "minimax-m3", []rawCase{
		{name: "text mixed with elements", out: block(ns + `<invoke name="count">` + ns + "<opts>x" + ns + "<a>1" + ns + "</a>" + ns + "</opts>" + ns + "</invoke>\n"), kept: true, codes: []string{"malformed-call"}},
		{name: "mismatched close", out: block(ns + `<invoke name="count">` + ns + "<n>1" + ns + "</m>" + ns + "</invoke>\n"), kept: true, codes: []string{"malformed-call"}},
		{name: "a closing tag where an element is expected", out: block(ns + `<invoke name="count">` + ns + "</n>" + ns + "</invoke>\n"), kept: true, codes: []string{"malformed-call"}},
		{name: "empty elements follow the schema", out: block(ns + `<invoke name="count">` + ns + "<tags>" + ns + "</tags>" + ns + "<opts>" + ns + "</opts>" + ns + "<x>" + ns + "</x>" + ns + "</invoke>\n"),
			tools: rawTools, calls: []string{`count {"tags": [], "opts": {}, "x": ""}`}},
		{name: "an object whose key is item", out: block(ns + `<invoke name="count">` + ns + "<opts>" + ns + "<item>1" + ns + "</item>" + ns + "</opts>" + ns + "</invoke>\n"),
			tools: rawTools, calls: []string{`count {"opts": {"item": "1"}}`}},
		{name: "layout whitespace between nested elements", out: block(ns + `<invoke name="count">` + ns + "<tags>\n  " + ns + "<item>a" + ns + "</item>\n  " + ns + "<item>b" + ns + "</item>\n" + ns + "</tags>" + ns + "</invoke>\n"),
			tools: rawTools, calls: []string{`count {"tags": ["a", "b"]}`}},
		{name: "un-namespaced tags are text", out: "<tool_call><invoke name=\"count\"></invoke></tool_call>", kept: true},
		{name: "missing close at the end", out: ns + "<tool_call>\n" + ns + `<invoke name="get_time">` + ns + "<zone>UTC" + ns + "</zone>" + ns + "</invoke>\n", tools: rawTools, calls: []string{`get_time {"zone": "UTC"}`}},
		{name: "reasoning opened by the output", out: "<mm:think>plan</mm:think>\nAnswer", content: "Answer"},
	})
}
