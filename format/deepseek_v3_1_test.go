package format

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

func init() {
	contradicted["ollama-061"] = "Rules/End of stream: a partial marker held back at the end is released as text, no byte lost (Ollama drops the trailing </th)"
}

// dskTool declares a tool with the given string parameters.
func dskTool(name string, params ...string) chat.Tool {
	props := map[string]any{}
	for _, p := range params {
		props[p] = map[string]string{"type": "string"}
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	return chat.Tool{Type: "function", Function: chat.ToolFunction{Name: name, Parameters: schema}}
}

// dskDiagCase is one output whose diagnostics are checked.
type dskDiagCase struct {
	name, out string
	tools     []chat.Tool
	codes     []string
	// kept: a malformed output stays content verbatim.
	kept bool
}

// dskCheckDiagnostics runs the cases through a family, whole and byte by
// byte, and checks the diagnostic codes.
func dskCheckDiagnostics(t *testing.T, family string, cases []dskDiagCase) {
	t.Helper()
	fam, ok := Lookup(family)
	if !ok {
		t.Fatalf("%s not registered", family)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Tools: tc.tools, NewID: func() string { return "id" }}
			r := Run(fam.New(o), tc.out)
			var codes []string
			for _, d := range r.Diagnostics {
				codes = append(codes, d.Code)
			}
			if !reflect.DeepEqual(codes, tc.codes) {
				t.Errorf("diagnostics %v, want %v (result %+v)", codes, tc.codes, r)
			}
			if tc.kept && (r.Content != tc.out || len(r.ToolCalls) != 0) {
				t.Errorf("malformed output not kept as content: %+v", r)
			}
			var bytes []string
			for i := range len(tc.out) {
				bytes = append(bytes, tc.out[i:i+1])
			}
			if got := Run(fam.New(o), bytes...); !reflect.DeepEqual(got, r) {
				t.Errorf("byte by byte differs:\n got %+v\nwant %+v", got, r)
			}
		})
	}
}

func TestDeepSeek31Diagnostics(t *testing.T) {
	dskCheckDiagnostics(t, "deepseek-v3.1", []dskDiagCase{
		{name: "tool output markers", out: "a <｜tool▁output▁begin｜>b<｜tool▁output▁end｜> c", codes: []string{"stray-markup", "stray-markup"}},
		{name: "truncated arguments", out: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": ", codes: []string{"malformed-call"}, kept: true},
		{name: "invalid JSON", out: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\" 1}<｜tool▁call▁end｜>", codes: []string{"malformed-call"}, kept: true},
		{name: "no separator", out: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f\n{}<｜tool▁call▁end｜>", codes: []string{"malformed-call"}, kept: true},
		{name: "array arguments", out: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>[1]<｜tool▁call▁end｜>", codes: []string{"malformed-call"}, kept: true},
		{name: "text instead of end marker", out: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{} and more", codes: []string{"malformed-call"}, kept: true},
		{name: "unknown tool", out: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>", tools: []chat.Tool{dskTool("g")}, codes: []string{"unknown-tool"}},
		{name: "declared tool", out: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>g<｜tool▁sep｜>{}<｜tool▁call▁end｜>", tools: []chat.Tool{dskTool("g")}},
	})
}

// TestDeepSeekToolOutputMarkers: the markers are removed wherever they stand,
// and every diagnostic's offset is the marker's or the call's place in the
// output.
func TestDeepSeekToolOutputMarkers(t *testing.T) {
	out := "Thinking <｜tool▁output▁begin｜>x<｜tool▁output▁end｜> more</think>Answer<｜tool▁calls▁begin｜>bad"
	fam, _ := Lookup("deepseek-v3.1")
	var bytes []string
	for i := range len(out) {
		bytes = append(bytes, out[i:i+1])
	}
	for _, chunks := range [][]string{{out}, bytes} {
		r := Run(fam.New(Options{ReasoningOpen: true}), chunks...)
		if r.Reasoning != "Thinking x more" || r.Content != "Answer<｜tool▁calls▁begin｜>bad" {
			t.Errorf("reasoning %q, content %q", r.Reasoning, r.Content)
		}
		want := []Diagnostic{
			{Code: "stray-markup", Offset: strings.Index(out, dsOutputBegin)},
			{Code: "stray-markup", Offset: strings.Index(out, dsOutputEnd)},
			{Code: "malformed-call", Offset: strings.Index(out, dsCallsBegin)},
		}
		if len(r.Diagnostics) != len(want) {
			t.Fatalf("diagnostics %+v", r.Diagnostics)
		}
		for i, d := range r.Diagnostics {
			if d.Code != want[i].Code || d.Offset != want[i].Offset {
				t.Errorf("diagnostic %d: %s at %d, want %s at %d", i, d.Code, d.Offset, want[i].Code, want[i].Offset)
			}
		}
	}
}
