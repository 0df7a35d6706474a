package format

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

// The family's own cases are vectors (testdata/vectors/lmstudio.jsonl, from
// LM Studio's documented examples); these tests cover WithLMStudioCalls, the
// parser the gateway uses in relay mode against LM Studio.

var lmstudioTools = []chat.Tool{
	{Type: "function", Function: chat.ToolFunction{Name: "get_weather"}},
	{Type: "function", Function: chat.ToolFunction{Name: "get_time"}},
}

func lmstudioOptions() Options {
	n := 0
	return Options{Tools: lmstudioTools, NewID: func() string { n++; return "call" + itoa(n) }}
}

// Both protocols in one output: LM Studio's blocks and the family's own
// markup (hermes here) each give their calls, numbered in output order, and
// the text around them stays content.
func TestLMStudioChainReadsBothProtocols(t *testing.T) {
	hermes, _ := Lookup("hermes")
	out := "Checking both.\n" +
		"[TOOL_REQUEST]{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\"}}[END_TOOL_REQUEST]\n" +
		"<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"Europe/Paris\"}}\n</tool_call>"
	got := Run(WithLMStudioCalls(hermes.New(lmstudioOptions()), lmstudioOptions()), out)
	want := []chat.ToolCall{
		{ID: "call1", Type: "function", Function: chat.FunctionCall{Name: "get_weather", Arguments: `{"location": "Paris"}`}},
		{ID: "call1", Type: "function", Function: chat.FunctionCall{Name: "get_time", Arguments: `{"zone": "Europe/Paris"}`}},
	}
	if !reflect.DeepEqual(got.ToolCalls, want) {
		t.Fatalf("calls %+v\nwant %+v", got.ToolCalls, want)
	}
	if got.Content != "Checking both." || len(got.Diagnostics) != 0 {
		t.Errorf("content %q, diagnostics %+v", got.Content, got.Diagnostics)
	}
}

// The call indexes of the chained parsers never collide: each call's
// CallStart, CallArgs and CallEnd carry one index, and indexes run 0, 1, 2…
// in the order the calls were announced, whichever parser found them.
func TestLMStudioChainNumbersCalls(t *testing.T) {
	hermes, _ := Lookup("hermes")
	block := "[TOOL_REQUEST]{\"name\": \"get_weather\", \"arguments\": {}}[END_TOOL_REQUEST]\n"
	tag := "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>\n"
	p := WithLMStudioCalls(hermes.New(lmstudioOptions()), lmstudioOptions())
	var starts []int
	open := -1
	for _, chunk := range []string{tag, block, block, tag, block} {
		for _, e := range append(p.Feed(chunk), p.Feed("")...) {
			switch e.Kind {
			case CallStart:
				starts, open = append(starts, e.Index), e.Index
			case CallArgs, CallEnd:
				if e.Index != open {
					t.Fatalf("%v of call %d inside call %d", e.Kind, e.Index, open)
				}
			}
		}
	}
	for _, e := range p.Close() {
		if e.Kind == CallStart {
			starts = append(starts, e.Index)
		}
	}
	if !reflect.DeepEqual(starts, []int{0, 1, 2, 3, 4}) {
		t.Errorf("call indexes %v, want 0…4", starts)
	}
}

// Chunking never changes the chain's result: every two-way split and random
// splits give what the whole output gives, malformed blocks included.
func TestLMStudioChainChunking(t *testing.T) {
	hermes, _ := Lookup("hermes")
	outputs := []string{
		"[TOOL_REQUEST]{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\"}}[END_TOOL_REQUEST]\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>",
		"<think>\nWhich one? [TOOL_REQUEST] maybe.\n</think>\n\nAnswer [TOOL_REQUEST]{\"name\": \"get_weather\", \"arguments\": {\"location\": Paris}}[END_TOOL_REQUEST] and <tool_call>\n{\"name\": \"get_time\"",
		"[TOOL_REQUEST]{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Oslo\"}}",
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, out := range outputs {
		whole := Run(WithLMStudioCalls(hermes.New(lmstudioOptions()), lmstudioOptions()), out)
		var splits [][]string
		for i := 1; i < len(out); i++ {
			splits = append(splits, []string{out[:i], out[i:]})
		}
		for range 50 {
			var chunks []string
			for rest := out; rest != ""; {
				n := min(1+rng.IntN(8), len(rest))
				chunks, rest = append(chunks, rest[:n]), rest[n:]
			}
			splits = append(splits, chunks)
		}
		for _, chunks := range splits {
			got := Run(WithLMStudioCalls(hermes.New(lmstudioOptions()), lmstudioOptions()), chunks...)
			if !reflect.DeepEqual(got, whole) {
				t.Fatalf("%q fed as %q:\n got %+v\nwant %+v", out, chunks, got, whole)
			}
		}
	}
}

// Nothing is lost: a malformed block and a malformed family call both stay in
// the content, each with its diagnostic.
func TestLMStudioChainKeepsMalformedText(t *testing.T) {
	hermes, _ := Lookup("hermes")
	bad := "[TOOL_REQUEST]{\"name\": \"get_weather\", \"arguments\": {\"location\": Paris}}[END_TOOL_REQUEST]"
	badTag := "<tool_call>\n{\"name\": get_time}\n</tool_call>"
	got := Run(WithLMStudioCalls(hermes.New(lmstudioOptions()), lmstudioOptions()), bad+"\n"+badTag)
	if got.Content != bad+"\n"+badTag || len(got.ToolCalls) != 0 {
		t.Fatalf("content %q, calls %+v", got.Content, got.ToolCalls)
	}
	if len(got.Diagnostics) != 2 || got.Diagnostics[0].Code != "malformed-call" || got.Diagnostics[1].Code != "malformed-call" {
		t.Errorf("diagnostics %+v, want two malformed-call", got.Diagnostics)
	}
}

// Without a family parser, the chain is LM Studio's protocol alone.
func TestLMStudioWithoutFamily(t *testing.T) {
	got := Run(WithLMStudioCalls(nil, lmstudioOptions()), "[TOOL_REQUEST]{\"name\": \"get_time\", \"arguments\": {}}[END_TOOL_REQUEST]")
	if len(got.ToolCalls) != 1 || got.ToolCalls[0].Function.Name != "get_time" || got.Content != "" {
		t.Errorf("got %+v", got)
	}
}

// What the parsers hold at the end comes out at Close: the family's call
// whose end marker never came (a complete body); the whitespace after the
// last call is its layout, as it is within one family.
func TestLMStudioChainClose(t *testing.T) {
	hermes, _ := Lookup("hermes")
	block := "[TOOL_REQUEST]{\"name\": \"get_weather\", \"arguments\": {}}[END_TOOL_REQUEST]"
	got := Run(WithLMStudioCalls(hermes.New(lmstudioOptions()), lmstudioOptions()), block+"\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}")
	if len(got.ToolCalls) != 2 || got.ToolCalls[1].Function.Name != "get_time" || got.Content != "" {
		t.Errorf("unclosed family call: %+v", got)
	}
	got = Run(WithLMStudioCalls(hermes.New(lmstudioOptions()), lmstudioOptions()), block+"\n")
	if len(got.ToolCalls) != 1 || got.Content != "" {
		t.Errorf("trailing whitespace: content %q, %d calls", got.Content, len(got.ToolCalls))
	}
}
