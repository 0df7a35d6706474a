package format

import (
	"strings"
	"testing"
)

// The whitespace next to a call is the call's layout (docs/DECISIONS.md,
// 2026-12-04), in the engine and in the parsers of their own; whitespace
// with no call after it stays content, and so does a run longer than
// maxSpaceRun. Each case is checked whole and byte by byte.
func TestCallSpaceIsLayout(t *testing.T) {
	long := strings.Repeat(" ", maxSpaceRun+1)
	hermesCall := "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"
	mistralCall := "[TOOL_CALLS]f[ARGS]{}"
	llamaCall := `{"name": "f", "parameters": {}}`
	for _, c := range []struct {
		family, in, content string
		calls               int
	}{
		{"hermes", "a \t\n\u00a0" + hermesCall + " \n b", "ab", 1},
		{"hermes", "a  ", "a  ", 0},                                               // no call after it
		{"hermes", "a <b>", "a <b>", 0},                                           // not an opener
		{"hermes", "a <tool_call>x</tool_call>", "a <tool_call>x</tool_call>", 0}, // malformed: content, space kept
		{"hermes", "a" + long + hermesCall, "a" + long, 1},                        // too long to be layout
		{"hermes", "a" + long[1:] + hermesCall, "a", 1},                           // just within the bound
		{"hermes", hermesCall + "\n", "", 1},                                      // after the last call
		{"mistral-v11-args", "a \n " + mistralCall + " \n b", "ab", 1},
		{"mistral-v11-args", "a" + long + mistralCall, "a" + long, 1},
		{"mistral-v11-args", "a \n", "a \n", 0},
		{"llama3-json", llamaCall + " \u00a0\n b", "b", 1},
	} {
		fam := mustFamily(t, c.family)
		opts := Options{NewID: func() string { return "id" }}
		if c.family == "llama3-json" {
			opts.Tools = lmstudioTools // a call needs tools offered
		}
		var bytes []string
		for i := 0; i < len(c.in); i++ {
			bytes = append(bytes, c.in[i:i+1])
		}
		for name, chunks := range map[string][]string{"whole": {c.in}, "bytes": bytes} {
			r := Run(fam.New(opts), chunks...)
			if r.Content != c.content || len(r.ToolCalls) != c.calls {
				t.Errorf("%s %q fed %s: content %q and %d calls, want %q and %d", c.family, shorten(c.in), name, shorten(r.Content), len(r.ToolCalls), shorten(c.content), c.calls)
			}
		}
	}
}

// Streaming holds back only the whitespace at the end of the content: the
// next byte that is not a call opener releases it, and a run longer than
// maxSpaceRun is released before it ends.
func TestCallSpaceHeldUntilDecided(t *testing.T) {
	for _, id := range []string{"hermes", "mistral-v11-args"} {
		p := mustFamily(t, id).New(Options{})
		if got := contentOf(p.Feed("hello \n")); got != "hello" {
			t.Errorf("%s: %q released, want the text without its trailing whitespace", id, got)
		}
		if got := contentOf(p.Feed("world")); got != " \nworld" {
			t.Errorf("%s: %q released after more text, want the held whitespace and the text", id, got)
		}
		held := 0
		for range maxSpaceRun/64 + 1 {
			held += len(contentOf(p.Feed(strings.Repeat(" ", 64))))
		}
		if held == 0 {
			t.Errorf("%s: a whitespace run past %d bytes is still held", id, maxSpaceRun)
		}
		if got := contentOf(p.Close()); held+len(got) != 64*(maxSpaceRun/64+1) {
			t.Errorf("%s: %d bytes of whitespace released, want %d", id, held+len(got), 64*(maxSpaceRun/64+1))
		}
	}
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:20] + "…(" + itoa(len(s)) + " bytes)…" + s[len(s)-10:]
	}
	return s
}
