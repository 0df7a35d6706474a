package format

import (
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

func TestDSMLDiagnostics(t *testing.T) {
	const open, inv = "<｜DSML｜function_calls>\n", "<｜DSML｜invoke name=\"f\">\n"
	dskCheckDiagnostics(t, "deepseek-v3.2-dsml", []dskDiagCase{
		{name: "truncated value", out: open + inv + "<｜DSML｜parameter name=\"a\" string=\"true\">Par", codes: []string{"malformed-call"}, kept: true},
		{name: "no invoke", out: open + "hello</｜DSML｜function_calls>", codes: []string{"malformed-call"}, kept: true},
		{name: "invoke without name", out: open + "<｜DSML｜invoke>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", codes: []string{"malformed-call"}, kept: true},
		{name: "unquoted attribute", out: open + "<｜DSML｜invoke name=f>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", codes: []string{"malformed-call"}, kept: true},
		{name: "attribute across lines", out: open + "<｜DSML｜invoke name=\"f\ng\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", codes: []string{"malformed-call"}, kept: true},
		{name: "stray text in invoke", out: open + inv + "oops</｜DSML｜invoke>\n</｜DSML｜function_calls>", codes: []string{"malformed-call"}, kept: true},
		{name: "invalid JSON body", out: open + inv + "{\"a\" 1}\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", codes: []string{"malformed-call"}, kept: true},
		{name: "ends before parameters", out: open + inv, codes: []string{"malformed-call"}, kept: true},
		{name: "unknown tool", out: open + inv + "</｜DSML｜invoke>\n</｜DSML｜function_calls>", tools: []chat.Tool{dskTool("g")}, codes: []string{"unknown-tool"}},
	})
}

func TestDSMLTyping(t *testing.T) {
	fam, _ := Lookup("deepseek-v3.2-dsml")
	tools := []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "f", Parameters: []byte(
		`{"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}, "b": {"type": "boolean"}, "o": {"type": "object"}}}`)}}}
	out := "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n" +
		"<｜DSML｜parameter name=\"n\"> 5 </｜DSML｜parameter>\n" +
		"<｜DSML｜parameter name=\"s\">007</｜DSML｜parameter>\n" +
		"<｜DSML｜parameter name=\"b\">True</｜DSML｜parameter>\n" +
		"<｜DSML｜parameter name=\"o\" string=\"false\">{\"k\": [1, 2]}</｜DSML｜parameter>\n" +
		"<｜DSML｜parameter name=\"raw\" string=\"true\">{\"k\": 1}</｜DSML｜parameter>\n" +
		"</｜DSML｜invoke>\n</｜DSML｜function_calls>"
	r := Run(fam.New(Options{Tools: tools}), out)
	if len(r.ToolCalls) != 1 {
		t.Fatalf("got %+v", r)
	}
	want := `{"n": 5, "s": "007", "b": true, "o": {"k": [1, 2]}, "raw": "{\"k\": 1}"}`
	if msg := compareArgs(r.ToolCalls[0].Function.Arguments, []byte(want), false); msg != "" {
		t.Error(msg)
	}
}
