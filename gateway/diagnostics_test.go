package gateway

import (
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
	"github.com/dragoman-dev/dragoman/trace"
)

// A call to a tool the request did not offer is reported once, whether the
// family's parser checks names itself (llama3-json does) or not (hermes):
// the parser's report, which knows where the call is, is the one kept.
func TestUnknownToolReportedOnce(t *testing.T) {
	tools := []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "get_weather", Parameters: []byte(`{"type":"object"}`)}}}
	for _, c := range []struct{ family, output string }{
		{"llama3-json", `{"name": "launch_rocket", "parameters": {}}`},
		{"hermes", "<tool_call>\n{\"name\": \"launch_rocket\", \"arguments\": {}}\n</tool_call>"},
	} {
		t.Run(c.family, func(t *testing.T) {
			f, ok := format.Lookup(c.family)
			if !ok {
				t.Fatalf("no family %s", c.family)
			}
			x := &exchange{req: &chat.Request{Tools: tools}, rec: &trace.Record{}, out: &openAICollector{},
				pending: map[int]*chat.ToolCall{}, parser: f.New(format.Options{Tools: tools})}
			if err := x.events(x.parser.Feed(c.output)); err != nil {
				t.Fatal(err)
			}
			if err := x.closeParser(); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, d := range x.rec.Diagnostics {
				if d.Code == "unknown-tool" {
					n++
				}
			}
			if len(x.rec.Calls) != 1 || n != 1 {
				t.Errorf("calls %v, diagnostics %+v: want one call and one unknown-tool", x.rec.Calls, x.rec.Diagnostics)
			}
		})
	}
}
