package format

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// Every corpus template of a family with a forced call renders calls exactly
// as the forced call lays them out: the opener, a body the schema accepts,
// the closer. Otherwise the forced prompt would end in markup the model was
// never trained on.
func TestForcedCallMatchesTemplates(t *testing.T) {
	probeTools := []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: probeName, Parameters: json.RawMessage(
		`{"type": "object", "properties": {"` + probeArg + `": {"type": "string"}}, "required": ["` + probeArg + `"]}`)}}}
	checked := 0
	for name, id := range templateMap(t) {
		f, ok := Lookup(id)
		if !ok || f.Force == nil {
			continue
		}
		src, err := os.ReadFile(filepath.Join(sharedDir(t), "corpus", "templates", name))
		if err != nil {
			t.Fatal(err)
		}
		render := renderProbe(string(src))
		if render == "" {
			t.Errorf("%s: the probe conversation does not render", name)
			continue
		}
		// The assistant's call: the opener whose block holds the probe's
		// value (the system prompt may show the markup with placeholders).
		var body string
		ok, closed := false, false
		for rest := render; !ok; {
			var after string
			if _, after, ok = strings.Cut(rest, f.Force.Open); !ok {
				break
			}
			body, _, closed = strings.Cut(after, f.Force.Close)
			ok = ok && strings.Contains(body, probeValue)
			rest = after
		}
		if !ok || !closed {
			t.Errorf("%s: the rendered call is not laid out as %q … %q:\n%s", name, f.Force.Open, f.Force.Close, render)
			continue
		}
		schema, err := f.Force.Body(probeTools, "")
		if err != nil {
			t.Fatal(err)
		}
		g, _, err := grammar.FromJSONSchema(schema, grammar.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !g.Match(body) {
			t.Errorf("%s: the body the template renders is not one the forced call's schema accepts: %q", name, body)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no corpus template of a family with a forced call")
	}
	t.Logf("%d corpus templates render calls as the forced call lays them out", checked)
}
