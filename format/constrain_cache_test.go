package format

import (
	"encoding/json"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

// The constraint cache: the same family, tools and choice get the same
// constraint back; a change in any of them (a schema's bytes, the choice,
// whether reasoning is open, the family) builds another; the oldest entry
// goes first when the cache is full.
func TestConstraintCache(t *testing.T) {
	hermes, qwen := mustFamily(t, "hermes"), mustFamily(t, "qwen3-coder-xml")
	cc := NewConstraintCache(3)
	auto := ToolChoice{Mode: "auto"}
	get := func(f *Family, tools []chat.Tool, choice ToolChoice, open bool) *Constraint {
		t.Helper()
		c, err := cc.Constrain(f, tools, choice, open)
		if err != nil || c == nil {
			t.Fatalf("%v %v", c, err)
		}
		return c
	}
	first := get(hermes, constrainTools, auto, false)
	if get(hermes, constrainTools, auto, false) != first {
		t.Error("the same request built its constraint again")
	}
	changed := append([]chat.Tool(nil), constrainTools...)
	changed[0].Function.Parameters = json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}}`)
	// Each of these differs from every other in one thing: each must be a
	// constraint of its own.
	built := []struct {
		what string
		c    *Constraint
	}{
		{"the first", first},
		{"another schema", get(hermes, changed, auto, false)},
		{"another choice", get(hermes, constrainTools, ToolChoice{Mode: "required"}, false)},
		{"reasoning open", get(hermes, constrainTools, ToolChoice{Mode: "required"}, true)},
		{"another family", get(qwen, constrainTools, auto, false)},
		{"a named function", get(hermes, constrainTools, ToolChoice{Mode: "required", Name: "book_table"}, false)},
		{"one call at a time", get(hermes, constrainTools, ToolChoice{Mode: "auto", Single: true}, false)},
	}
	for a := range built {
		for b := a + 1; b < len(built); b++ {
			if built[a].c == built[b].c {
				t.Errorf("%s and %s share one constraint", built[a].what, built[b].what)
			}
		}
	}
	// Six entries went in after the first, in a cache of three: it is gone.
	if get(hermes, constrainTools, auto, false) == first {
		t.Error("the oldest entry was not evicted")
	}
	if c, err := cc.Constrain(hermes, constrainTools, ToolChoice{Mode: "required", Name: "nope"}, false); err == nil || c != nil {
		t.Errorf("a name not among the tools: %v, %v", c, err)
	}
}
