package bench

import (
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

// twoFunctionItem offers f(x integer) and g(x integer), expecting the calls
// given as {name: {param: acceptable}} maps.
func twoFunctionItem(t *testing.T, mode Mode, calls ...string) *Item {
	t.Helper()
	it := &Item{ID: "t", Expected: Expected{Mode: mode}}
	for _, name := range []string{"f", "g"} {
		doc := mustParse(t, `{"name": "`+name+`", "description": "", "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}`)
		tool, fn, err := convertDoc(doc, false)
		if err != nil {
			t.Fatal(err)
		}
		it.Tools, it.Functions = append(it.Tools, tool), append(it.Functions, fn)
	}
	for _, c := range calls {
		want, err := readExpectedCall(mustParse(t, c))
		if err != nil {
			t.Fatal(err)
		}
		it.Expected.Calls = append(it.Expected.Calls, want)
	}
	if err := it.validate(); err != nil {
		t.Fatal(err)
	}
	return it
}

func calls(pairs ...string) []chat.ToolCall {
	var out []chat.ToolCall
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: pairs[i], Arguments: pairs[i+1]}})
	}
	return out
}

// TestParallelGreedy: expected calls are matched in the answer's order to the
// first free output call that passes; a loose first call can take the one
// the second needed (FORMAT.md §7.4), which a best matching would not do.
func TestParallelGreedy(t *testing.T) {
	it := twoFunctionItem(t, ModeParallel, `{"f": {"x": [1, 2]}}`, `{"f": {"x": [1]}}`)
	for _, c := range []struct {
		out  []chat.ToolCall
		want ErrorKind
	}{
		{calls("f", `{"x": 2}`, "f", `{"x": 1}`), ""},
		{calls("f", `{"x": 1}`, "f", `{"x": 2}`), ErrNoMatch}, // the first expected call took x=1
		{calls("f", `{"x": 1}`), ErrParallelCount},
		{calls("f", `{"x": 2}`, "f", `{"x": 1}`, "f", `{"x": 1}`), ErrParallelCount},
		{calls("f", `{"x": 2}`, "g", `{"x": 1}`), ErrNoMatch},
	} {
		if res := Check(it, c.out, Options{}); res.Kind != c.want {
			t.Errorf("%v: %+v, want %q", c.out, res, c.want)
		}
	}
	mixed := twoFunctionItem(t, ModeParallel, `{"f": {"x": [1]}}`, `{"g": {"x": [2]}}`)
	if res := Check(mixed, calls("g", `{"x": 2}`, "f", `{"x": 1}`), Options{}); !res.Pass {
		t.Errorf("calls of two functions in the other order: %+v", res)
	}
}

// TestMultiple: one call, of the function the answer names.
func TestMultiple(t *testing.T) {
	it := twoFunctionItem(t, ModeMultiple, `{"g": {"x": [1]}}`)
	for _, c := range []struct {
		out  []chat.ToolCall
		want ErrorKind
	}{
		{calls("g", `{"x": 1}`), ""},
		{calls("f", `{"x": 1}`), ErrWrongName},
		{calls("g", `{"x": 1}`, "g", `{"x": 1}`), ErrMultipleCount},
		{nil, ErrDecode},
	} {
		if res := Check(it, c.out, Options{}); res.Kind != c.want {
			t.Errorf("%v: %+v, want %q", c.out, res, c.want)
		}
	}
}

// TestSimpleNameFromFunction: a simple item's expected name is the offered
// function's; the answer's key is not looked at (FORMAT.md §7.2).
func TestSimpleNameFromFunction(t *testing.T) {
	it := oneParamItem(t, `{"type": "integer"}`, false, `[1]`)
	it.Expected.Calls[0].Name = "something_else"
	if res := Check(it, callWith("1"), Options{}); !res.Pass {
		t.Errorf("%+v", res)
	}
}
