package format

import "testing"

func init() {
	// No peer vector of minicpm5 contradicts a decision; none assumes a
	// forced-open prompt.
}

func TestMiniCPM5Diagnostics(t *testing.T) {
	runDiagCases(t, "minicpm5", []diagCase{
		{name: "undeclared tool", input: "<function name=\"get_stock\"><param name=\"s\">X</param></function>", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "unquoted tag end", input: "<function name=\"f\" x><param name=\"a\">1</param></function>", calls: 0, codes: []string{"malformed-call"}},
		{name: "text between params", input: "<function name=\"f\">hello<param name=\"a\">1</param></function>", calls: 0, codes: []string{"malformed-call"}},
		{name: "truncated CDATA", input: "<function name=\"f\"><param name=\"a\"><![CDATA[x", calls: 0, codes: []string{"malformed-call"}},
		{name: "no parameters", input: "<function name=\"get_time\"></function>", tools: testTools, calls: 1},
	})
}
