package format

import (
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

func init() {
	// No peer vector of functionary-v3.2 contradicts a decision, and the
	// llama.cpp template does not open reasoning.
}

// diagCase is a unit case of the diagnostics a family reports: vectors
// cannot assert them.
type diagCase struct {
	name  string
	input string
	tools []chat.Tool
	calls int
	codes []string // diagnostic codes, in order
}

// testTools offers get_weather and get_time.
var testTools = []chat.Tool{
	{Type: "function", Function: chat.ToolFunction{Name: "get_weather", Parameters: []byte(`{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"}}}`)}},
	{Type: "function", Function: chat.ToolFunction{Name: "get_time", Parameters: []byte(`{"type":"object","properties":{"zone":{"type":"string"}}}`)}},
}

// runDiagCases runs each case whole and byte by byte; both must give the
// expected call count and diagnostic codes, and no byte may be lost.
func runDiagCases(t *testing.T, family string, cases []diagCase) {
	t.Helper()
	fam, ok := Lookup(family)
	if !ok {
		t.Fatalf("%s not registered", family)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{Tools: c.tools, NewID: func() string { return "id" }}
			p := fam.New(opts)
			r := Run(p, c.input)
			var bytes []string
			for i := 0; i < len(c.input); i++ {
				bytes = append(bytes, c.input[i:i+1])
			}
			if b := Run(fam.New(opts), bytes...); !equalResults(b, r) {
				t.Errorf("byte by byte differs:\n got %+v\nwant %+v", b, r)
			}
			if len(r.ToolCalls) != c.calls {
				t.Errorf("%d calls, want %d: %+v", len(r.ToolCalls), c.calls, r)
			}
			var codes []string
			for _, d := range r.Diagnostics {
				codes = append(codes, d.Code)
			}
			if len(codes) != len(c.codes) {
				t.Errorf("diagnostics %v, want %v", r.Diagnostics, c.codes)
			} else {
				for i := range codes {
					if codes[i] != c.codes[i] {
						t.Errorf("diagnostics %v, want %v", r.Diagnostics, c.codes)
						break
					}
				}
			}
			if a, ok := p.(accounter); ok {
				if n := len(r.Content) + len(r.Reasoning) + a.markupLen(); n != len(c.input) {
					t.Errorf("%d of %d bytes accounted for", n, len(c.input))
				}
			}
		})
	}
}

func TestFunctionaryV32Diagnostics(t *testing.T) {
	runDiagCases(t, "functionary-v3.2", []diagCase{
		{name: "undeclared tool", input: "get_stock\n{\"symbol\": \"X\"}", tools: testTools, calls: 1, codes: []string{"unknown-tool"}},
		{name: "arguments not an object", input: "all\nok>>>get_time\n\"UTC\"", calls: 0, codes: []string{"malformed-call"}},
		{name: "truncated arguments", input: "get_time\n{\"zone\": ", calls: 0, codes: []string{"malformed-call"}},
		{name: "truncated after a marker", input: "all\nok>>>get_time\n{\"zone\": ", calls: 0, codes: []string{"malformed-call"}},
		{name: "not a recipient line", input: "Hello there", calls: 0},
		{name: "prompt marker in content", input: "all\n>>> 1+1", calls: 0, codes: []string{"malformed-call"}},
		{name: "partial marker at the end", input: "all\nok>>", calls: 0},
	})
}
