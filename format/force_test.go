package format

import (
	"encoding/json"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

var forceTools = []chat.Tool{
	{Type: "function", Function: chat.ToolFunction{Name: "get_weather", Parameters: json.RawMessage(
		`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`)}},
	{Type: "function", Function: chat.ToolFunction{Name: "add", Parameters: json.RawMessage(
		`{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}`)}},
}

// A forced call: the body schema admits exactly the calls it should, and the
// parser reads the prefilled opener, the constrained body and the closer as
// one call.
func TestForcedCall(t *testing.T) {
	for _, f := range Families() {
		if f.Force == nil {
			continue
		}
		t.Run(f.ID, func(t *testing.T) {
			schema, err := f.Force.Body(forceTools, "")
			if err != nil {
				t.Fatal(err)
			}
			g, _, err := grammar.FromJSONSchema(schema, grammar.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for body, want := range map[string]bool{
				`{"name": "get_weather", "arguments": {"city": "Paris"}}`: true,
				`{"name": "add", "arguments": {"a": 1, "b": 2}}`:          true,
				`{"name": "add", "arguments": {"a": "1", "b": 2}}`:        false, // wrong type
				`{"name": "get_weather", "arguments": {}}`:                false, // missing required
				`{"name": "nope", "arguments": {}}`:                       false, // unknown tool
			} {
				if got := g.Match(body); got != want {
					t.Errorf("schema admits %s: %v, want %v", body, got, want)
				}
			}
			named, err := f.Force.Body(forceTools, "add")
			if err != nil {
				t.Fatal(err)
			}
			gn, _, _ := grammar.FromJSONSchema(named, grammar.Options{})
			if gn.Match(`{"name": "get_weather", "arguments": {"city": "Paris"}}`) || !gn.Match(`{"name": "add", "arguments": {"a": 1, "b": 2}}`) {
				t.Error("a named function's schema admits other functions, or not its own")
			}
			if _, err := f.Force.Body(forceTools, "missing"); err == nil {
				t.Error("a name not among the tools: no error")
			}

			r := Run(f.New(Options{Tools: forceTools}), f.Force.Open, `{"name": "add", "arguments": {"a": 1, "b": 2}}`, f.Force.Close)
			if len(r.ToolCalls) != 1 || r.ToolCalls[0].Function.Name != "add" || r.Content != "" || len(r.Diagnostics) > 0 {
				t.Errorf("parsed %+v", r)
			}
		})
	}
}

// With no tools offered, call markup is content; reasoning is still split.
func TestNoCalls(t *testing.T) {
	f, _ := Lookup("hermes")
	out := "<think>hm</think>\n\nSure. <tool_call>\n{\"name\": \"add\", \"arguments\": {}}\n</tool_call>"
	r := Run(f.New(Options{NoCalls: true}), out)
	if len(r.ToolCalls) != 0 || r.Reasoning != "hm" || r.Content != "Sure. <tool_call>\n{\"name\": \"add\", \"arguments\": {}}\n</tool_call>" {
		t.Errorf("got %+v", r)
	}
}
