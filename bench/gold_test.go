package bench

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

var bfcl struct {
	once  sync.Once
	suite *Suite
	err   error
}

// loadBFCL loads the staged data once per test binary.
func loadBFCL(tb testing.TB) *Suite {
	tb.Helper()
	dir := filepath.Join(fixtures.Require(tb), "bench", "bfcl")
	bfcl.once.Do(func() { bfcl.suite, bfcl.err = LoadBFCL(dir) })
	if bfcl.err != nil {
		tb.Fatal(bfcl.err)
	}
	return bfcl.suite
}

// goldCalls builds the gold output of FORMAT.md §11 for an item with
// expected calls: per parameter the first acceptable value that is not "";
// a parameter that may be omitted is omitted unless the schema requires it;
// a required one with only "" is sent as ""; dict values (and each object of
// a list of dicts) take each key's first value, keys with only "" left out.
func goldCalls(it *Item, sanitized bool) []chat.ToolCall {
	return toolCalls(goldOutput(it, sanitized))
}

// goldOutput is goldCalls in the checker's form.
func goldOutput(it *Item, sanitized bool) []Call {
	var out []Call
	for i := range it.Expected.Calls {
		want := &it.Expected.Calls[i]
		fn := it.function(want.Name)
		if it.Expected.Mode == ModeSimple {
			fn = &it.Functions[0]
		}
		var args []Member
		for _, p := range want.Params {
			v, ok := goldValue(fn, p)
			if ok {
				args = append(args, Member{p.Name, v})
			}
		}
		name := fn.Name
		if sanitized {
			name = SanitizeName(name)
		}
		out = append(out, Call{name, Map(args...)})
	}
	return out
}

func toolCalls(calls []Call) []chat.ToolCall {
	out := make([]chat.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = toolCall(c.Name, c.Args)
	}
	return out
}

func goldValue(fn *Function, p ExpectedParam) (Value, bool) {
	required := false
	for _, r := range fn.Required {
		required = required || r == p.Name
	}
	first, ok := firstAnswer(p.Acceptable)
	switch {
	case hasMarker(p.Acceptable) && !required:
		return Value{}, false
	case !ok && hasMarker(p.Acceptable):
		return String(""), true
	case !ok:
		return Value{}, false // an empty list: nothing can pass
	}
	decl := fn.param(p.Name)
	switch {
	case decl == nil:
	case decl.Type == TypeDict && first.Kind() == KindMap:
		return goldDict(first), true
	case decl.Type.isList() && decl.Items == TypeDict && first.Kind() == KindList:
		items := make([]Value, len(first.Items()))
		for i, x := range first.Items() {
			items[i] = goldDict(x)
		}
		return List(items...), true
	}
	return first, true
}

func goldDict(alt Value) Value {
	var mems []Member
	for _, m := range alt.Members() {
		if v, ok := firstAnswer(acceptableOf(m.Value)); ok {
			mems = append(mems, Member{m.Key, v})
		}
	}
	return Map(mems...)
}

func firstAnswer(acceptable []Value) (Value, bool) {
	for _, a := range acceptable {
		if !a.isEmptyMarker() {
			return a, true
		}
	}
	return Value{}, false
}

func toolCall(name string, args Value) chat.ToolCall {
	return chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args.String()}}
}

func reversed(calls []chat.ToolCall) []chat.ToolCall {
	out := make([]chat.ToolCall, len(calls))
	for i, c := range calls {
		out[len(calls)-1-i] = c
	}
	return out
}
