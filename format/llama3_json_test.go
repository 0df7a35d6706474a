package format

import (
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

func TestLlama3JSONDiagnostics(t *testing.T) {
	w := []string{"get_weather"}
	pyfCheck(t, "llama3-json", []pyfCase{
		// Malformed calls stay content (Decision 9).
		{name: "truncated", in: `{"name": "get_weather", "parameters": {`, tools: w,
			content: `{"name": "get_weather", "parameters": {`, diags: []string{"malformed-call"}},
		{name: "tag then prose", in: `<|python_tag|>hello`, tools: w, content: `<|python_tag|>hello`, diags: []string{"malformed-call"}},
		{name: "tag alone", in: `<|python_tag|>`, tools: w, content: `<|python_tag|>`, diags: []string{"malformed-call"}},
		{name: "invalid JSON call", in: `{"name": "get_weather", "parameters": {'a': 1}}`, tools: w,
			content: `{"name": "get_weather", "parameters": {'a': 1}}`, diags: []string{"malformed-call"}},
		// Not a call: content without a diagnostic.
		{name: "JSON answer", in: ` {"answer": 42}`, tools: w, content: ` {"answer": 42}`},
		{name: "name without parameters", in: `{"name": "Bob"}`, tools: w, content: `{"name": "Bob"}`},
		{name: "prose", in: "Sure {x}", tools: w, content: "Sure {x}"},
		{name: "whitespace only", in: "  \n", tools: w, content: "  \n"},
		{name: "no tools", in: `{"name": "get_weather", "parameters": {}}`, content: `{"name": "get_weather", "parameters": {}}`},
		// Undeclared tools are returned (Decision 1).
		{name: "unknown tool", in: `{"name": "other", "parameters": {}}`, tools: w, calls: []string{"other {}"}, diags: []string{"unknown-tool"}},
		// Several calls, and what follows them.
		{name: "second object is not a call", in: `{"name": "get_weather", "parameters": {}} {"x": 1}`, tools: w,
			content: `{"x": 1}`, calls: []string{"get_weather {}"}},
		{name: "trailing stop token", in: `{"name": "get_weather", "parameters": {}}<|eot_id|>`, tools: w, calls: []string{"get_weather {}"}},
		{name: "arguments as a string", in: `{"name": "get_weather", "arguments": "{\"a\": 1}"}`, tools: w, calls: []string{`get_weather {"a": 1}`}},
		{name: "builtin", in: `<|python_tag|>brave_search.call(query="x")`, tools: []string{"brave_search"},
			calls: []string{`brave_search {"query":"x"}`}},
	})
}

// FuzzLlama3JSONTools fuzzes llama3-json with tools offered (FuzzFamilies
// offers none, so it only sees the content path): no panic, split and whole
// agree, and every byte is accounted for.
func FuzzLlama3JSONTools(f *testing.F) {
	f.Add(`{"name": "get_weather", "parameters": {"a": 1}}; {"name": "x", "arguments": {}} tail`, uint(10))
	f.Add(`<|python_start|><|python_end|>{"name": "a", "parameters": {}}{"name": "b", "parameters": {}}`, uint(20))
	f.Add(`<|python_tag|>brave_search.call(query="x")<|eom_id|>`, uint(5))
	f.Fuzz(func(t *testing.T, out string, split uint) {
		fam, _ := Lookup("llama3-json")
		opts := Options{Tools: []chat.Tool{pyfTool("get_weather")}, NewID: func() string { return "id" }}
		cut := int(split % uint(len(out)+1))
		p := fam.New(opts)
		r := Run(p, out)
		if got := Run(fam.New(opts), out[:cut], out[cut:]); !equalResults(got, r) {
			t.Fatalf("split at %d differs:\n got %+v\nwant %+v", cut, got, r)
		}
		if n := len(r.Content) + len(r.Reasoning) + p.(accounter).markupLen(); n != len(out) {
			t.Fatalf("%d of %d bytes accounted for", n, len(out))
		}
	})
}
