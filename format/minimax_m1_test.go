package format

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func init() {
	// The peer sample has no minimax-m1 vector, so none contradicts a
	// decision, and no peer parser assumes a forced-open prompt.
}

const (
	m1Weather = `{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}`
	m1Time    = `{"name": "get_time", "arguments": {"zone": "Europe/Paris"}}`
)

func TestMiniMaxM1(t *testing.T) {
	runFamilyCases(t, "minimax-m1", []familyCase{
		{name: "two calls", input: "<tool_calls>\n" + m1Weather + "\n" + m1Time + "\n</tool_calls>",
			calls: []string{`get_weather {"location":"Paris","unit":"celsius"}`, `get_time {"zone":"Europe/Paris"}`}},
		{name: "objects on one line", input: "<tool_calls>" + m1Weather + m1Time + "</tool_calls>",
			calls: []string{`get_weather {"location":"Paris","unit":"celsius"}`, `get_time {"zone":"Europe/Paris"}`}},
		{name: "arguments written as a JSON string", input: "<tool_calls>\n" + `{"name": "get_time", "arguments": "{\"zone\": \"UTC\"}"}` + "\n</tool_calls>",
			calls: []string{`get_time {"zone":"UTC"}`}},
		{name: "no arguments", input: "<tool_calls>\n{\"name\": \"ping\"}\n</tool_calls>", calls: []string{`ping {}`}},
		{name: "generated ids", withIDs: true, input: "<tool_calls>\n" + m1Time + "\n</tool_calls>", calls: []string{`get_time {"zone":"Europe/Paris"} #gen`}},
		{name: "text after the block stays content", input: "<tool_calls>\n" + m1Time + "\n</tool_calls>\nDone.", content: "Done.",
			calls: []string{`get_time {"zone":"Europe/Paris"}`}},
		{name: "text after a call ends the section", input: "<tool_calls>\n" + m1Time + "\nthen more", content: "then more",
			calls: []string{`get_time {"zone":"Europe/Paris"}`}},
		{name: "empty block", input: "<tool_calls>\n</tool_calls>after", content: "after"},
		{name: "close marker inside a string", input: "<tool_calls>\n" + `{"name": "echo", "arguments": {"s": "</tool_calls>"}}` + "\n</tool_calls>",
			calls: []string{`echo {"s":"\u003c/tool_calls\u003e"}`}},

		// Reasoning: none in the template, but a <think> the output opens is
		// recognised; calls inside it are reasoning text.
		{name: "reasoning opened by the output", input: "<think>\nNeed the time.\n</think>\n\n<tool_calls>\n" + m1Time + "\n</tool_calls>",
			thinking: "Need the time.", calls: []string{`get_time {"zone":"Europe/Paris"}`}},
		{name: "call inside reasoning is reasoning", input: "<think><tool_calls>\n" + m1Time + "\n</tool_calls></think>ok",
			thinking: "<tool_calls>\n" + m1Time + "\n</tool_calls>", content: "ok"},
		{name: "think after text is content", input: "Hi <think>x</think>", content: "Hi <think>x</think>"},
		{name: "stray close marker is content", opts: Options{ReasoningDisabled: true}, input: "a</think>b", content: "a</think>b"},
	})
}

// Undeclared tools are returned with a diagnostic (Decision 1).
func TestMiniMaxM1UndeclaredTool(t *testing.T) {
	runFamilyCases(t, "minimax-m1", []familyCase{
		{name: "one undeclared", opts: Options{Tools: weatherTools}, input: "<tool_calls>\n" + m1Time + "\n</tool_calls>",
			calls: []string{`get_time {"zone":"Europe/Paris"}`}, diagCodes: []string{"unknown-tool"}},
		{name: "declared and undeclared", opts: Options{Tools: weatherTools}, input: "<tool_calls>\n" + m1Weather + "\n" + m1Time + "\n</tool_calls>",
			calls: []string{`get_weather {"location":"Paris","unit":"celsius"}`, `get_time {"zone":"Europe/Paris"}`}, diagCodes: []string{"unknown-tool"}},
		{name: "no tools offered: no diagnostic", input: "<tool_calls>\n" + m1Time + "\n</tool_calls>",
			calls: []string{`get_time {"zone":"Europe/Paris"}`}},
	})
}

// Malformed calls stay content with a diagnostic (Decision 9).
func TestMiniMaxM1Malformed(t *testing.T) {
	kept := func(name, input string) familyCase {
		return familyCase{name: name, input: input, content: input, diagCodes: []string{"malformed-call"}}
	}
	runFamilyCases(t, "minimax-m1", []familyCase{
		kept("invalid JSON", "<tool_calls>\n{\"name\": \"f\", \"arguments\": {a: 1}}\n</tool_calls>"),
		kept("no name", "<tool_calls>\n{\"arguments\": {}}\n</tool_calls>"),
		kept("arguments not an object", "<tool_calls>\n{\"name\": \"f\", \"arguments\": [1]}\n</tool_calls>"),
		kept("unbalanced object before the close marker", "<tool_calls>\n{\"name\": \"f\", \"arguments\": {}\n</tool_calls>"),
		kept("a JSON list is apriel markup", "<tool_calls>["+m1Time+"]</tool_calls>"),
		kept("prose after the opener", "The <tool_calls> tag wraps calls"),
		kept("bad second call drops the whole block", "<tool_calls>\n"+m1Time+"\n{\"name\": 1}\n</tool_calls>"),
		{name: "text after a malformed block is content", input: "<tool_calls>{}</tool_calls> ok", content: "<tool_calls>{}</tool_calls> ok", diagCodes: []string{"malformed-call"}},
	})
}

// Truncated output: a complete body without its end marker is a call; an
// incomplete one is a malformed call kept as content.
func TestMiniMaxM1Truncated(t *testing.T) {
	runFamilyCases(t, "minimax-m1", []familyCase{
		{name: "end marker consumed", input: "<tool_calls>\n" + m1Time, calls: []string{`get_time {"zone":"Europe/Paris"}`}},
		{name: "end marker consumed after a newline", input: "<tool_calls>\n" + m1Weather + "\n" + m1Time + "\n",
			calls: []string{`get_weather {"location":"Paris","unit":"celsius"}`, `get_time {"zone":"Europe/Paris"}`}},
		{name: "partial end marker", input: "<tool_calls>\n" + m1Time + "\n</tool_ca", content: "</tool_ca",
			calls: []string{`get_time {"zone":"Europe/Paris"}`}},
		{name: "inside the arguments", input: "<tool_calls>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Par",
			content: "<tool_calls>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Par", diagCodes: []string{"malformed-call"}},
		{name: "inside the second call", input: "<tool_calls>\n" + m1Weather + "\n{\"name\": \"get_ti",
			content: "<tool_calls>\n" + m1Weather + "\n{\"name\": \"get_ti", diagCodes: []string{"malformed-call"}},
		{name: "after the opener", input: "Sure.<tool_calls>\n", content: "Sure.<tool_calls>\n", diagCodes: []string{"malformed-call"}},
		{name: "partial opener", input: "Sure.<tool_ca", content: "Sure.<tool_ca"},
		{name: "inside reasoning", input: "<think>Need the", thinking: "Need the"},
	})
}

// Markers split across chunks: every split of the output gives the same
// result as the whole output (Decision 8), and text that cannot be a marker
// is released before the output ends.
func TestMiniMaxM1SplitMarkers(t *testing.T) {
	fam, ok := Lookup("minimax-m1")
	if !ok {
		t.Fatal("minimax-m1 not registered")
	}
	outputs := []string{
		"<think>Need it.</think>\nLet me check.\n<tool_calls>\n" + m1Weather + "\n" + m1Time + "\n</tool_calls>\nDone.",
		"Prévision 東京 🌧 <tool_calls>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"東京\"}}\n</tool_calls>",
		"<tool_calls fakeout> and <tool_calls>\n" + m1Time,
		"<thinking is fun",
	}
	for _, out := range outputs {
		whole := Run(fam.New(Options{NewID: func() string { return "id" }}), out)
		for cut := 0; cut <= len(out); cut++ {
			for cut2 := cut; cut2 <= len(out); cut2 += 7 {
				got := Run(fam.New(Options{NewID: func() string { return "id" }}), out[:cut], out[cut:cut2], out[cut2:])
				if !reflect.DeepEqual(got, whole) {
					t.Fatalf("%q split at %d, %d:\n got %+v\nwant %+v", out, cut, cut2, got, whole)
				}
			}
		}
	}

	// Prose is not held back once it cannot become a marker.
	p := fam.New(Options{})
	var content strings.Builder
	for _, c := range []string{"Use <tool_", "calls fakeout> here"} {
		for _, e := range p.Feed(c) {
			if e.Kind == Content {
				content.WriteString(e.Text)
			}
		}
	}
	if got := content.String(); !strings.HasPrefix(got, "Use <tool_calls fakeout>") {
		t.Errorf("released %q before the end of the output", got)
	}
}

// Outputs assembled from pieces of the markup, fed whole and in random
// pieces: the same result, and every byte in the content, the reasoning or
// recognised markup.
func TestMiniMaxM1Pieces(t *testing.T) {
	fam, _ := Lookup("minimax-m1")
	pieces := []string{"<tool_calls>", "</tool_calls>", "<think>", "</think>", "\n", " ", "{", "}", "[", "]", `"`, `\"`,
		`{"name": "f", "arguments": {}}`, `"name": "f"`, `"arguments": `, "<tool_", "</tool", "ok", "é", "東", "<end_of_sentence>"}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 3000; n++ {
		var b strings.Builder
		for k := rng.IntN(12); k >= 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		out := b.String()
		for _, open := range []bool{false, true} {
			opts := Options{ReasoningOpen: open, NewID: func() string { return "id" }}
			if n%2 == 1 {
				opts.Tools = weatherTools // undeclared-tool diagnostics too
			}
			p := fam.New(opts)
			whole := Run(p, out)
			if a, ok := p.(accounter); !ok || len(whole.Content)+len(whole.Reasoning)+a.markupLen() != len(out) {
				t.Fatalf("%q: bytes not accounted for: %+v", out, whole)
			}
			var chunks []string
			for rest := out; rest != ""; {
				k := 1 + rng.IntN(len(rest))
				chunks, rest = append(chunks, rest[:k]), rest[k:]
			}
			if got := Run(fam.New(opts), chunks...); !reflect.DeepEqual(got, whole) {
				t.Fatalf("%q fed as %q:\n got %+v\nwant %+v", out, chunks, got, whole)
			}
		}
	}
}

func TestMiniMaxM1Detect(t *testing.T) {
	fam, _ := Lookup("minimax-m1")
	aprielRender := `<tool_calls>[{"name": "` + probeName + `", "arguments": {"` + probeArg + `": "` + probeValue + `"}}]</tool_calls>`
	if fam.Detect(aprielRender) {
		t.Error("claims apriel's list markup")
	}
	m1Render := "<tool_calls>\n{\"name\": \"" + probeName + "\", \"arguments\": {\"" + probeArg + "\": \"" + probeValue + "\"}}\n</tool_calls>"
	if !fam.Detect(m1Render) {
		t.Error("misses its own markup")
	}
	if f, ok := Lookup("minimax"); !ok || f != fam {
		t.Error("alias minimax not registered")
	}
}
