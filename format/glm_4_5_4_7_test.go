package format

import "testing"

func init() {
	// Ollama's glm-4.7 parser assumes the template forced reasoning open.
	peerStartsInReasoning["glm-4.7"] = true
	contradicted["mlx-lm-025"] = `glm-4.5-4.7 edge cases: a schema type Dragoman does not know ("str") counts as no schema, so "London" keeps its quotes (mlx-lm JSON-decodes it)`
}

func TestGLM(t *testing.T) {
	rawCheck(t, "glm-4.5-4.7", []rawCase{
		{name: "key without value", out: "<tool_call>f<arg_key>a</arg_key></tool_call>", kept: true, codes: []string{"malformed-call"}},
		{name: "value without key", out: "<tool_call>f<arg_value>1</arg_value></tool_call>", kept: true, codes: []string{"malformed-call"}},
		{name: "two keys in a row", out: "<tool_call>f<arg_key>a</arg_key><arg_key>b</arg_key><arg_value>1</arg_value></tool_call>", kept: true, codes: []string{"malformed-call"}},
		{name: "prose after the opener is released at once", out: "I emit <tool_call> tags when calling", kept: true, codes: []string{"malformed-call"}, early: "I emit <tool_call> tags"},
		{name: "name only, truncated", out: "<tool_call>get_ti", kept: true, codes: []string{"malformed-call"}},
		{name: "name and newline at the end of the output", out: "<tool_call>get_time\n", tools: rawTools, calls: []string{`get_time {}`}},
		{name: "missing close after a complete pair", out: "<tool_call>get_time\n<arg_key>zone</arg_key>\n<arg_value>UTC</arg_value>\n", tools: rawTools, calls: []string{`get_time {"zone": "UTC"}`}},
		{name: "JSON arguments after the name", out: "<tool_call>get_time\n{\"zone\": \"UTC\"}\n</tool_call>", tools: rawTools, calls: []string{`get_time {"zone": "UTC"}`}},
		{name: "escaped JSON only for non-string parameters", out: `<tool_call>count\n<arg_key>tags</arg_key>\n<arg_value>[\"a\\\\b\"]</arg_value><arg_key>opts</arg_key><arg_value>{\"k\": \"v\\n\"}</arg_value></tool_call>` +
			`<tool_call>get_time<arg_key>zone</arg_key><arg_value>[\"UTC\"]</arg_value></tool_call>`,
			tools: rawTools, calls: []string{`count {"tags": ["a\\b"], "opts": {"k": "v\n"}}`, `get_time {"zone": "[\\\"UTC\\\"]"}`}},
		{name: "values are kept exactly", out: "<tool_call>get_time<arg_key> zone </arg_key><arg_value> UTC\n</arg_value></tool_call>", tools: rawTools, calls: []string{`get_time {"zone": " UTC\n"}`}},
		{name: "unknown tool", out: "<tool_call>other<arg_key>n</arg_key><arg_value>1</arg_value></tool_call>", tools: rawTools, calls: []string{`other {"n": "1"}`}, codes: []string{"unknown-tool"}},
	})
}
