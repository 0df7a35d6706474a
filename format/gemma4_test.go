package format

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

func init() {
	// No gemma4 peer vector contradicts a decision, and the gemma4 peer
	// parsers do not assume a forced-open prompt.
}

// familyCase is one unit case: an output, what it parses to, and the codes of
// the diagnostics it raises.
type familyCase struct {
	name      string
	opts      Options
	input     string
	content   string
	thinking  string
	calls     []string // name + " " + compact JSON arguments (+ " #" + id when checked)
	withIDs   bool
	diagCodes []string
}

// runFamilyCases runs each case whole and byte by byte.
func runFamilyCases(t *testing.T, family string, cases []familyCase) {
	t.Helper()
	fam, ok := Lookup(family)
	if !ok {
		t.Fatalf("family %s not registered", family)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var bytes []string
			for i := 0; i < len(c.input); i++ {
				bytes = append(bytes, c.input[i:i+1])
			}
			for _, chunks := range [][]string{{c.input}, bytes} {
				opts := c.opts
				opts.NewID = func() string { return "gen" }
				r := Run(fam.New(opts), chunks...)
				if r.Content != c.content {
					t.Errorf("content %q, want %q", r.Content, c.content)
				}
				if r.Reasoning != c.thinking {
					t.Errorf("thinking %q, want %q", r.Reasoning, c.thinking)
				}
				var calls []string
				for _, tc := range r.ToolCalls {
					var v any
					if err := json.Unmarshal([]byte(tc.Function.Arguments), &v); err != nil {
						t.Errorf("arguments %q are not JSON", tc.Function.Arguments)
					}
					b, _ := json.Marshal(v)
					s := tc.Function.Name + " " + string(b)
					if c.withIDs {
						s += " #" + tc.ID
					}
					calls = append(calls, s)
				}
				if !reflect.DeepEqual(calls, c.calls) {
					t.Errorf("calls %q, want %q", calls, c.calls)
				}
				var codes []string
				for _, d := range r.Diagnostics {
					codes = append(codes, d.Code)
				}
				if !reflect.DeepEqual(codes, c.diagCodes) {
					t.Errorf("diagnostics %+v, want codes %q", r.Diagnostics, c.diagCodes)
				}
			}
		})
	}
}

// weatherTools offers get_weather only.
var weatherTools = []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "get_weather"}}}

func TestGemma4(t *testing.T) {
	q := func(s string) string { return `<|"|>` + s + `<|"|>` }
	runFamilyCases(t, "gemma4", []familyCase{
		// Calls.
		{name: "two calls and tool response", input: "<|tool_call>call:a{x:1}<tool_call|><|tool_call>call:b{}<tool_call|><|tool_response>Done.",
			content: "Done.", calls: []string{`a {"x":1}`, `b {}`}},
		{name: "key order kept", input: "<|tool_call>call:f{z:1,a:" + q("s") + "}<tool_call|>", calls: []string{`f {"a":"s","z":1}`}},
		{name: "whitespace and trailing comma", input: "<|tool_call>call:f{ a : 1 , b:[ 1 , 2 , ], }<tool_call|>", calls: []string{`f {"a":1,"b":[1,2]}`}},
		{name: "bare text value", input: "<|tool_call>call:f{unit:celsius,n:-3e2}<tool_call|>", calls: []string{`f {"n":-300,"unit":"celsius"}`}},
		{name: "multi-line quoted string", input: "<|tool_call>call:f{s:" + q("a\nb}") + "}<tool_call|>", calls: []string{`f {"s":"a\nb}"}`}},
		{name: "undeclared tool", opts: Options{Tools: weatherTools}, input: "<|tool_call>call:get_time{}<tool_call|>",
			calls: []string{`get_time {}`}, diagCodes: []string{"unknown-tool"}},
		// Reasoning.
		{name: "thought channel", input: "<|channel>thought\nplan<channel|>\n\nanswer", thinking: "plan", content: "answer"},
		{name: "thoughtful is not the channel name", input: "<|channel>thoughtful plan<channel|>x", thinking: "thoughtful plan", content: "x"},
		{name: "forced open", opts: Options{ReasoningOpen: true}, input: "thought\nplan<channel|>x", thinking: "plan", content: "x"},
		{name: "call ends forced-open reasoning", opts: Options{ReasoningOpen: true}, input: "plan<|tool_call>call:f{}<tool_call|>",
			thinking: "plan", calls: []string{`f {}`}},
		{name: "channel after text is content", input: "Hi <|channel>x<channel|>", content: "Hi <|channel>x<channel|>"},
		// Malformed calls stay content.
		{name: "not call:", input: "<|tool_call>get_weather{}<tool_call|>ok", content: "<|tool_call>get_weather{}<tool_call|>ok", diagCodes: []string{"malformed-call"}},
		{name: "missing colon", input: "<|tool_call>call:f{a 1}<tool_call|>", content: "<|tool_call>call:f{a 1}<tool_call|>", diagCodes: []string{"malformed-call"}},
		{name: "bad name", input: "<|tool_call>call:f g{}<tool_call|>", content: "<|tool_call>call:f g{}<tool_call|>", diagCodes: []string{"malformed-call"}},
		{name: "garbage after body", input: "<|tool_call>call:f{}x<tool_call|>", content: "<|tool_call>call:f{}x<tool_call|>", diagCodes: []string{"malformed-call"}},
		{name: "truncated", input: "<|tool_call>call:f{a:" + q("x"), content: "<|tool_call>call:f{a:" + q("x"), diagCodes: []string{"malformed-call"}},
		{name: "partial marker released", input: "a <|tool_ca", content: "a <|tool_ca"},
	})
}

func TestKeyValueDeepNesting(t *testing.T) {
	in := "<|tool_call>call:f{a:" + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}<tool_call|>"
	fam, _ := Lookup("gemma4")
	r := Run(fam.New(Options{}), in)
	if len(r.ToolCalls) != 0 || r.Content != in || len(r.Diagnostics) != 1 {
		t.Errorf("too deep nesting: %+v", r)
	}
}
