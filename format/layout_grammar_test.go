package format

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// layoutTools is one tool with one string parameter.
var layoutTools = []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "get_weather",
	Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`)}}}

// layoutCases are the block families' calls with %[1]s where a model writes
// layout after the block's opener and %[2]s where it writes layout before the
// closer; the templates render one newline in each. (GLM's blocks have no
// such place: its newlines belong to each parameter.)
var layoutCases = []struct{ family, call string }{
	{"hermes", `<tool_call>%[1]s{"name": "get_weather", "arguments": {"city": "Paris"}}%[2]s</tool_call>`},
	{"qwen3-coder-xml", "<tool_call>%[1]s<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>%[2]s</tool_call>"},
}

// modelLayouts are the whitespace models trained on those templates write
// around a call: the template's one newline, none, blank lines, a space or
// a tab beside the newline.
var modelLayouts = []string{"\n", "", "\n\n", "\n\n\n", " \n", "\n ", "\t\n", "\n\n\n\n"}

// The call grammar of the block families admits the layout models write
// around a call inside its block (bounded: an endless run of newlines is
// still refused, so a constrained model cannot pad for ever). A layout the
// grammar refused would be resampled token by token: slower, and the
// model's own choice overruled.
func TestCallLayoutAdmitsModelWhitespace(t *testing.T) {
	for _, c := range layoutCases {
		f := mustFamily(t, c.family)
		cs, err := f.Constrain(layoutTools, ToolChoice{Mode: "required"}, false)
		if err != nil {
			t.Fatal(err)
		}
		g, err := grammar.Parse(cs.Grammar)
		if err != nil {
			t.Fatal(err)
		}
		admitted := 0
		for _, open := range modelLayouts {
			for _, close := range modelLayouts {
				text := fmt.Sprintf(c.call, open, close)
				if g.Match(text) {
					admitted++
				} else {
					t.Errorf("%s: refused %q", c.family, text)
				}
			}
		}
		t.Logf("%s: %d of %d layouts admitted", c.family, admitted, len(modelLayouts)*len(modelLayouts))
		if padded := fmt.Sprintf(c.call, strings.Repeat("\n", 12), "\n"); g.Match(padded) {
			t.Errorf("%s: twelve newlines after the opener admitted: the layout is not bounded", c.family)
		}
	}
}
