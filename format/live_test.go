package format

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/chat"
)

// liveFamily reports whether the family's parser announces calls before
// their sections end.
func liveFamily(f *Family) bool {
	p := f.New(Options{})
	if l, ok := p.(*leadingClose); ok {
		p = l.inner
	}
	e, ok := p.(*engine)
	return ok && e.m.hasLive()
}

// randomSplit cuts s at random places, into pieces of 1 to 12 bytes.
func randomSplit(rng *rand.Rand, s string) []string {
	var out []string
	for s != "" {
		n := min(1+rng.Intn(12), len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// streamedCall is what the events said of one call, fragment by fragment.
type streamedCall struct {
	name, args        string
	fragments         int
	ended, withdrawn  bool
	announcedEarly    bool // its CallStart came in an earlier Feed than its end
	startFeed, endFed int
}

// feedEvents feeds chunks to p and follows every call through its events,
// checking their order; it returns the calls in order of announcement.
func feedEvents(t *testing.T, id string, p Parser, chunks []string) []*streamedCall {
	t.Helper()
	var calls []*streamedCall
	byIndex := map[int]*streamedCall{}
	apply := func(feed int, evs []Event) {
		for _, e := range evs {
			c := byIndex[e.Index]
			switch e.Kind {
			case CallStart:
				if c != nil {
					t.Fatalf("%s: index %d announced twice", id, e.Index)
				}
				c = &streamedCall{name: e.Name, startFeed: feed}
				byIndex[e.Index] = c
				calls = append(calls, c)
			case CallArgs, CallEnd, CallWithdrawn:
				if c == nil || c.ended || c.withdrawn {
					t.Fatalf("%s: %v for index %d outside an open call", id, e.Kind, e.Index)
				}
				switch e.Kind {
				case CallArgs:
					if !utf8.ValidString(e.Text) {
						t.Fatalf("%s: fragment %q splits a character", id, e.Text)
					}
					c.args += e.Text
					c.fragments++
				case CallEnd:
					c.ended, c.endFed = true, feed
					c.announcedEarly = feed > c.startFeed
				default:
					c.withdrawn = true
				}
			}
		}
	}
	for i, ch := range chunks {
		apply(i, p.Feed(ch))
	}
	apply(len(chunks), p.Close())
	for _, c := range calls {
		if !c.ended && !c.withdrawn {
			t.Errorf("%s: call %q never ended", id, c.name)
		}
	}
	return calls
}

// TestLiveCallVectors: over every vector of the families with live calls, in
// random splits, the arguments' fragments of each call add up to the
// arguments of the whole parse, and the result is the one of the output fed
// whole. Some calls must actually be announced before their section ends.
func TestLiveCallVectors(t *testing.T) {
	rng := rand.New(rand.NewSource(19))
	splits, early := 0, 0
	earlyBy, withdrawnBy := map[string]int{}, map[string]int{} // per family
	for _, v := range loadVectors(t) {
		fam, ok := Lookup(v.Family)
		if !ok || v.Scope != "full_output" || !liveFamily(fam) {
			continue
		}
		whole := Run(fam.New(vectorOptions(v)), v.Input)
		for k := 0; k < 30; k++ {
			chunks := randomSplit(rng, v.Input)
			splits++
			if got := Run(fam.New(vectorOptions(v)), chunks...); !reflect.DeepEqual(got, whole) {
				t.Fatalf("%s split %q differs from whole:\n got %+v\nwant %+v", v.ID, chunks, got, whole)
			}
			var kept []*streamedCall
			for _, c := range feedEvents(t, v.ID, fam.New(vectorOptions(v)), chunks) {
				if c.ended {
					kept = append(kept, c)
				}
				if c.announcedEarly {
					early++
					earlyBy[v.Family]++
				}
				if c.withdrawn {
					withdrawnBy[v.Family]++
				}
			}
			if len(kept) != len(whole.ToolCalls) {
				t.Fatalf("%s: %d calls ended, the whole parse has %d", v.ID, len(kept), len(whole.ToolCalls))
			}
			for i, c := range kept {
				if want := whole.ToolCalls[i].Function; c.name != want.Name || c.args != want.Arguments {
					t.Fatalf("%s split %q: call %d streamed %s(%s), want %s(%s)", v.ID, chunks, i, c.name, c.args, want.Name, want.Arguments)
				}
			}
		}
	}
	if splits == 0 || early == 0 {
		t.Fatalf("%d splits, %d calls announced before their section ended: the live path was not exercised", splits, early)
	}
	// Every live family streams some of its vectors' calls to their end.
	for _, f := range Families() {
		if liveFamily(f) && earlyBy[f.ID] == 0 {
			t.Errorf("%s: no call streamed and ended over its vectors", f.ID)
		}
		if liveFamily(f) {
			t.Logf("%s: %d calls streamed and ended, %d withdrawn", f.ID, earlyBy[f.ID], withdrawnBy[f.ID])
		}
	}
	t.Logf("%d splits, %d calls announced early", splits, early)
}

// TestLiveCallStreamsLongArguments: a long argument written a few bytes at a
// time is announced at once and arrives in many fragments, the last one
// ending the object.
func TestLiveCallStreamsLongArguments(t *testing.T) {
	fam, _ := Lookup("hermes")
	body := strings.Repeat(`héllo wörld, say \"}\" `, 300)
	out := "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"text\": \"" + body + "\"}}\n</tool_call>"
	chunks := randomSplit(rand.New(rand.NewSource(1)), out)
	calls := feedEvents(t, "long", fam.New(Options{NewID: func() string { return "id" }}), chunks)
	if len(calls) != 1 || !calls[0].ended {
		t.Fatalf("calls %+v", calls)
	}
	c := calls[0]
	if c.startFeed > 8 {
		t.Errorf("announced at chunk %d, want as soon as the name and arguments show", c.startFeed)
	}
	if c.fragments < 100 {
		t.Errorf("%d fragments, want the arguments streamed chunk by chunk", c.fragments)
	}
	if want := `{"path": "a.txt", "text": "` + body + `"}`; c.args != want {
		t.Errorf("arguments %q…, want %q…", c.args[:40], want[:40])
	}
}

// TestLiveCallWithdrawn: an announced call whose section turns out not to be
// a call is withdrawn, and its text is content; one whose section parses to
// another call than was streamed is withdrawn and follows whole.
func TestLiveCallWithdrawn(t *testing.T) {
	fam, _ := Lookup("hermes")
	cases := []struct {
		name, out string
		calls     int
		content   string
	}{
		{"cut", "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"unfinish", 0,
			"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"unfinish"},
		{"broken", "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1} oops\n</tool_call>", 0,
			"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1} oops\n</tool_call>"},
		{"own id", "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}, \"id\": \"x\"}\n</tool_call>", 1, ""},
	}
	for _, tc := range cases {
		chunks := randomSplit(rand.New(rand.NewSource(2)), tc.out)
		calls := feedEvents(t, tc.name, fam.New(Options{}), chunks)
		if len(calls) == 0 || !calls[0].withdrawn || calls[0].fragments == 0 {
			t.Errorf("%s: want the call announced, streamed and withdrawn, got %+v", tc.name, calls)
		}
		r := Run(fam.New(Options{}), chunks...)
		if len(r.ToolCalls) != tc.calls || r.Content != tc.content {
			t.Errorf("%s: result %+v, want %d calls and content %q", tc.name, r, tc.calls, tc.content)
		}
		if tc.calls == 1 && r.ToolCalls[0].ID != "x" {
			t.Errorf("%s: the whole call keeps its own id, got %q", tc.name, r.ToolCalls[0].ID)
		}
	}
}

// A chain around a live family (LM Studio's protocol in front of Hermes)
// renumbers a withdrawn call as it numbered its start.
func TestLiveCallWithdrawnThroughLMStudioChain(t *testing.T) {
	hermes, _ := Lookup("hermes")
	out := "[TOOL_REQUEST]{\"name\": \"a\", \"arguments\": {}}[END_TOOL_REQUEST]\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": \"cut"
	p := WithLMStudioCalls(hermes.New(lmstudioOptions()), lmstudioOptions())
	calls := feedEvents(t, "chain", p, randomSplit(rand.New(rand.NewSource(3)), out))
	if len(calls) != 2 || !calls[0].ended || !calls[1].withdrawn || calls[1].name != "f" {
		t.Fatalf("calls %+v, want a ended and f withdrawn", calls)
	}
}

// writeFileTool has a string parameter and an integer one.
var writeFileTool = []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "write_file",
	Parameters: json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}, "text": {"type": "string"}, "mode": {"type": "integer"}}}`)}}}

// TestLiveTaggedStreamsStringBeforeClose: a long string parameter of a
// tagged family arrives in fragments before its close tag, escaped as the
// whole parse escapes it; a typed parameter is sent whole at its close tag.
func TestLiveTaggedStreamsStringBeforeClose(t *testing.T) {
	body := strings.Repeat("héllo \"wörld\"\t<b>\n", 300)
	cases := []struct{ family, out string }{
		{"qwen3-coder-xml", "<tool_call>\n<function=write_file>\n<parameter=mode>\n 420 \n</parameter>\n<parameter=text>\n" + body + "\n</parameter>\n</function>\n</tool_call>"},
		{"glm-4.5-4.7", "<tool_call>write_file\n<arg_key>mode</arg_key>\n<arg_value>420</arg_value>\n<arg_key>text</arg_key>\n<arg_value>" + body + "</arg_value>\n</tool_call>"},
		{"minimax-m2", "<minimax:tool_call>\n<invoke name=\"write_file\">\n<parameter name=\"mode\">420</parameter>\n<parameter name=\"text\">" + body + "</parameter>\n</invoke>\n</minimax:tool_call>"},
		{"deepseek-v3.2-dsml", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write_file\">\n<｜DSML｜parameter name=\"mode\" string=\"false\">420</｜DSML｜parameter>\n<｜DSML｜parameter name=\"text\" string=\"true\">" + body + "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"},
	}
	var escaped strings.Builder
	enc := json.NewEncoder(&escaped)
	enc.SetEscapeHTML(false)
	enc.Encode(body)
	want := `{"mode": 420, "text": ` + strings.TrimSpace(escaped.String()) + `}`
	for _, tc := range cases {
		fam, _ := Lookup(tc.family)
		opts := Options{Tools: writeFileTool, NewID: func() string { return "id" }}
		p := fam.New(opts)
		closeAt := strings.LastIndex(tc.out, body) + len(body)
		var got strings.Builder
		sentBeforeClose, typedWhole := 0, false
		for i := 0; i < len(tc.out); i += 5 {
			for _, e := range p.Feed(tc.out[i:min(i+5, len(tc.out))]) {
				if e.Kind == CallArgs {
					got.WriteString(e.Text)
					if strings.Contains(e.Text, "420") {
						typedWhole = e.Text == `{"mode": 420`
					}
				}
			}
			if i+5 < closeAt {
				sentBeforeClose = got.Len()
			}
		}
		for _, e := range p.Close() {
			if e.Kind == CallArgs {
				got.WriteString(e.Text)
			}
		}
		if got.String() != want {
			t.Errorf("%s: fragments join to %.80q…, want %.80q…", tc.family, got.String(), want)
		}
		if sentBeforeClose < len(want)-20 {
			t.Errorf("%s: %d bytes sent before the value's close tag, want nearly all of %d", tc.family, sentBeforeClose, len(want))
		}
		if !typedWhole {
			t.Errorf("%s: the integer parameter was not sent whole as {\"mode\": 420", tc.family)
		}
		if r := Run(fam.New(opts), tc.out); len(r.ToolCalls) != 1 || r.ToolCalls[0].Function.Arguments != want {
			t.Errorf("%s: the whole parse gives %d calls, not the streamed arguments", tc.family, len(r.ToolCalls))
		}
	}
}

// TestLiveTaggedSplitParameter: every split of a tagged call, down to one
// byte at a time, streams the same arguments, which are the whole parse's;
// the call is announced before its section ends.
func TestLiveTaggedSplitParameter(t *testing.T) {
	fam, _ := Lookup("qwen3-coder-xml")
	out := "<tool_call>\n<function=write_file>\n<parameter=path>\na\n\nb.txt\n\n</parameter>\n<parameter=text>\nx</parameter\n>é\n</parameter>\n<parameter=mode>7</parameter>\n</function>\n</tool_call>"
	opts := Options{Tools: writeFileTool}
	want := Run(fam.New(opts), out).ToolCalls[0].Function.Arguments
	if want != `{"path": "a\n\nb.txt\n", "text": "x</parameter\n>é", "mode": 7}` {
		t.Fatalf("whole parse %s", want)
	}
	for cut := 1; cut < len(out); cut++ {
		for _, chunks := range [][]string{{out[:cut], out[cut:]}, bytesOf(out)} {
			calls := feedEvents(t, "split", fam.New(opts), chunks)
			if len(calls) != 1 || !calls[0].ended || calls[0].args != want {
				if len(calls) == 0 {
					t.Fatalf("cut at %d: no call", cut)
				}
				t.Fatalf("cut at %d: %d calls, the first %+v, want one call streaming %s", cut, len(calls), *calls[0], want)
			}
			if len(chunks) > 2 && !calls[0].announcedEarly {
				t.Fatalf("byte by byte: the call was not announced before its section ended")
			}
		}
	}
}

func bytesOf(s string) []string {
	out := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = s[i : i+1]
	}
	return out
}

// TestLiveTaggedWithdrawn: a tagged call announced and then found malformed
// (or cut, or reading otherwise whole) is withdrawn, and the result is the
// one without live calls.
func TestLiveTaggedWithdrawn(t *testing.T) {
	cases := []struct {
		name, family, out string
		calls             int
	}{
		{"stray text", "qwen3-coder-xml", "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\noops\n</function>\n</tool_call>", 0},
		{"cut", "minimax-m2", "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">unfinish", 0},
		{"key twice", "glm-4.5-4.7", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>a</arg_key>\n<arg_value>2</arg_value>\n</tool_call>", 1},
		{"unpaired", "glm-4.5-4.7", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_value>2</arg_value>\n</tool_call>", 0},
	}
	for _, tc := range cases {
		fam, _ := Lookup(tc.family)
		chunks := randomSplit(rand.New(rand.NewSource(4)), tc.out)
		opts := Options{NewID: func() string { return "id" }}
		calls := feedEvents(t, tc.name, fam.New(opts), chunks)
		if len(calls) == 0 || !calls[0].withdrawn || calls[0].fragments == 0 {
			t.Errorf("%s: want the call announced, streamed and withdrawn, got %+v", tc.name, calls)
		}
		r := Run(fam.New(opts), chunks...)
		whole := Run(fam.New(opts), tc.out)
		if !reflect.DeepEqual(r, whole) || len(r.ToolCalls) != tc.calls {
			t.Errorf("%s: result %+v, want the whole parse's %+v with %d calls", tc.name, r, whole, tc.calls)
		}
		if tc.calls == 0 && (r.Content != tc.out || len(r.Diagnostics) == 0) {
			t.Errorf("%s: want the text as content with a diagnostic, got %+v", tc.name, r)
		}
	}
}

// TestLiveTaggedEnds: well-formed tagged calls fed a byte at a time stream
// to their end and are never withdrawn: a call without parameters, GLM's
// block whose close marker the runtime consumed (the end of the output ends
// the call), a Hermes body in Qwen3-Coder's block, Seed-OSS's elements.
func TestLiveTaggedEnds(t *testing.T) {
	cases := []struct{ family, out, args string }{
		{"qwen3-coder-xml", "<tool_call>\n<function=now>\n</function>\n</tool_call>", `{}`},
		{"qwen3-coder-xml", "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>", `{"a": 1}`},
		{"glm-4.5-4.7", "<tool_call>now\n</tool_call>", `{}`},
		{"glm-4.5-4.7", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>x y</arg_value>\n", `{"a": "x y"}`},
		{"minimax-m2", "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n<parameter name=\"b\">two</parameter>\n</invoke>\n</minimax:tool_call>", `{"a": "1", "b": "two"}`},
		{"seed-oss", "<seed:tool_call>\n<function=f>\n<parameter=a>\nx\n</parameter>\n</function>\n</seed:tool_call>", `{"a": "\nx\n"}`},
		{"laguna", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call></assistant>", `{"a": "1"}`},
		{"deepseek-v3.2-dsml", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"false\">[1, 2]</｜DSML｜parameter>\n<｜DSML｜parameter name=\"b\" string=\"true\">3</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", `{"a": [1, 2], "b": "3"}`},
		{"step3", "</think><｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\">x\n</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>", `{"a": "x\n"}`},
		{"kimi-k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:3<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_calls_section_end|>", `{"a": 1}`},
	}
	for _, tc := range cases {
		fam, _ := Lookup(tc.family)
		calls := feedEvents(t, tc.family, fam.New(Options{}), bytesOf(tc.out))
		if len(calls) != 1 || !calls[0].ended || !calls[0].announcedEarly || calls[0].args != tc.args {
			t.Errorf("%s %q: want one call streamed to its end with %s, got %d calls", tc.family, tc.out, tc.args, len(calls))
			for _, c := range calls {
				t.Logf("  %+v", *c)
			}
		}
	}
	// Kimi's call is announced with the id the model wrote.
	fam, _ := Lookup("kimi-k2")
	p := fam.New(Options{})
	out := "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:3<|tool_call_argument_begin|>{\"a\": "
	announced := false
	for _, e := range p.Feed(out) {
		if e.Kind == CallStart {
			announced = e.ID == "functions.f:3" && e.Name == "f"
		}
	}
	if !announced {
		t.Errorf("kimi-k2: the call was not announced with the id the model wrote")
	}
}

// TestLiveTaggedLeavesJSONBodies: a tagged family's call written with a
// JSON body is not announced as tags (which would withdraw it); it comes
// whole, or streams as JSON where the family streams JSON bodies.
func TestLiveTaggedLeavesJSONBodies(t *testing.T) {
	cases := []struct{ family, out, args string }{
		{"deepseek-v3.2-dsml", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n{\"a\": 1}\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", `{"a": 1}`},
		{"glm-4.5-4.7", "<tool_call>f\n{\"a\": 1}\n</tool_call>", `{"a": 1}`},
		{"glm-4.5-4.7", "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>", `{"a": 1}`},
	}
	for _, tc := range cases {
		fam, _ := Lookup(tc.family)
		calls := feedEvents(t, tc.family, fam.New(Options{}), bytesOf(tc.out))
		if len(calls) != 1 || !calls[0].ended || calls[0].args != tc.args {
			t.Errorf("%s %q: want one call with %s, never withdrawn; got %d calls", tc.family, tc.out, tc.args, len(calls))
			for _, c := range calls {
				t.Logf("  %+v", *c)
			}
		}
	}
	// The next block streams again.
	fam, _ := Lookup("glm-4.5-4.7")
	out := "<tool_call>f{\"a\": 1}</tool_call>\n<tool_call>g\n<arg_key>b</arg_key>\n<arg_value>2</arg_value>\n</tool_call>"
	calls := feedEvents(t, "next", fam.New(Options{}), bytesOf(out))
	if len(calls) != 2 || !calls[1].ended || !calls[1].announcedEarly || calls[1].args != `{"b": "2"}` {
		t.Errorf("the block after a JSON one: want its call streamed, got %d calls", len(calls))
	}
}

// FuzzLiveCalls: arbitrary output to every live family in random splits:
// the result is the whole parse's, and every call that ends streamed the
// whole parse's arguments.
//
//	go test ./format -run '^$' -fuzz FuzzLiveCalls -fuzztime 60s
func FuzzLiveCalls(f *testing.F) {
	var fams []*Family
	for _, fam := range Families() {
		if liveFamily(fam) {
			fams = append(fams, fam)
		}
	}
	for _, v := range loadVectors(f) {
		if fam, ok := Lookup(v.Family); ok && liveFamily(fam) && v.Scope == "full_output" {
			f.Add(v.Input, int64(len(v.Input)))
		}
	}
	f.Fuzz(func(t *testing.T, out string, seed int64) {
		if !utf8.ValidString(out) {
			return // a whole call keeps invalid bytes as written; feedEvents wants none in a fragment
		}
		chunks := randomSplit(rand.New(rand.NewSource(seed)), out)
		for _, fam := range fams {
			opts := Options{Tools: fuzzTools, NewID: func() string { return "id" }}
			if seed%2 == 0 {
				opts.Tools = writeFileTool
			}
			whole := Run(fam.New(opts), out)
			if got := Run(fam.New(opts), chunks...); !reflect.DeepEqual(got, whole) {
				t.Fatalf("%s: split result differs from whole:\n got %+v\nwant %+v", fam.ID, got, whole)
			}
			var ended []*streamedCall
			for _, c := range feedEvents(t, fam.ID, fam.New(opts), chunks) {
				if c.ended {
					ended = append(ended, c)
				}
			}
			if len(ended) != len(whole.ToolCalls) {
				t.Fatalf("%s: %d calls ended, the whole parse has %d", fam.ID, len(ended), len(whole.ToolCalls))
			}
			for i, c := range ended {
				if w := whole.ToolCalls[i].Function; c.name != w.Name || c.args != w.Arguments {
					t.Fatalf("%s: call %d streamed %s(%s), want %s(%s)", fam.ID, i, c.name, c.args, w.Name, w.Arguments)
				}
			}
		}
	})
}
