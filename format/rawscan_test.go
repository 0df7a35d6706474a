package format

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

// rawCase is one output of a raw-text family, checked for its calls,
// content and diagnostics, whole and byte by byte.
type rawCase struct {
	name, out string
	tools     []chat.Tool
	opts      Options
	// calls are the expected calls as name + arguments JSON (nil: none).
	calls []string
	// content is the expected content; kept means the output itself.
	content string
	kept    bool
	codes   []string
	// early is content that must be released before the output ends: text
	// that cannot be markup is not held back.
	early string
}

var rawTools = func() []chat.Tool {
	var t []chat.Tool
	if err := json.Unmarshal([]byte(`[
	 {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}},
	 {"type": "function", "function": {"name": "count", "parameters": {"type": "object", "properties": {
	   "n": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}, "opts": {"type": "object"}}}}}]`), &t); err != nil {
		panic(err)
	}
	return t
}()

func rawCheck(t *testing.T, family string, cases []rawCase) {
	t.Helper()
	fam, ok := Lookup(family)
	if !ok {
		t.Fatalf("%s not registered", family)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Tools = tc.tools
			o.NewID = func() string { return "id" }
			r := Run(fam.New(o), tc.out)
			var calls, codes []string
			for _, c := range r.ToolCalls {
				calls = append(calls, c.Function.Name+" "+c.Function.Arguments)
			}
			for _, d := range r.Diagnostics {
				codes = append(codes, d.Code)
			}
			if !reflect.DeepEqual(calls, tc.calls) {
				t.Errorf("calls %q, want %q", calls, tc.calls)
			}
			if !reflect.DeepEqual(codes, tc.codes) {
				t.Errorf("diagnostics %v, want %v (%+v)", codes, tc.codes, r.Diagnostics)
			}
			want := tc.content
			if tc.kept {
				want = tc.out
			}
			if r.Content != want {
				t.Errorf("content %q, want %q", r.Content, want)
			}
			var bytes []string
			for i := range len(tc.out) {
				bytes = append(bytes, tc.out[i:i+1])
			}
			if got := Run(fam.New(o), bytes...); !reflect.DeepEqual(got, r) {
				t.Errorf("byte by byte differs:\n got %+v\nwant %+v", got, r)
			}
			if tc.early != "" {
				p := fam.New(o)
				var early strings.Builder
				for _, e := range p.Feed(tc.out) {
					if e.Kind == Content {
						early.WriteString(e.Text)
					}
				}
				if !strings.HasPrefix(early.String(), tc.early) {
					t.Errorf("before the end, content %q, want it to start with %q", early.String(), tc.early)
				}
			}
		})
	}
}

// TestLeadingClose: when the request leaves the reasoning state unknown, an
// output that starts with the close marker had no reasoning; when reasoning
// was turned off, the marker is content.
func TestLeadingClose(t *testing.T) {
	for _, family := range []string{"glm-4.5-4.7", "laguna"} {
		rawCheck(t, family, []rawCase{
			{name: "bare close", out: " \n</think>\n\nAnswer", content: "Answer"},
			{name: "close then call", out: "</think><tool_call>get_time<arg_key>zone</arg_key><arg_value>UTC</arg_value></tool_call>",
				tools: rawTools, calls: []string{`get_time {"zone": "UTC"}`}},
			{name: "close after text is content", out: "Answer</think>", content: "Answer</think>"},
			{name: "reasoning off", out: "</think>Answer", opts: Options{ReasoningDisabled: true}, content: "</think>Answer"},
			{name: "only a partial close", out: "</thi", content: "</thi"},
			{name: "diagnostic offset counts the dropped marker", out: "</think><tool_call>get_time<arg_key>zone</arg_key></tool_call>",
				content: "<tool_call>get_time<arg_key>zone</arg_key></tool_call>", codes: []string{"malformed-call"}},
		})
	}
	fam, _ := Lookup("glm-4.5-4.7")
	p := fam.New(Options{})
	Run(p, "</think><tool_call>f<arg_key>a</arg_key></tool_call>")
	if d := p.Diagnostics(); len(d) != 1 || d[0].Offset != len("</think>") {
		t.Errorf("diagnostics %+v, want one at offset %d", d, len("</think>"))
	}
}
