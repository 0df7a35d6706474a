package format

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/chat"
)

// No event splits a character: output fed one byte at a time, every family's
// content and reasoning events are whole UTF-8 (a client would otherwise get
// a broken character at the end of one event and another at the start of
// the next), and together they are the text fed. Markers' first bytes in the
// text ("<", "[", "|") make parsers hold text back, where a split is likeliest.
func TestNoEventSplitsACharacter(t *testing.T) {
	text := "Grüße aus Köln 🌍 — 日本語 <b>é</b> [é] |é| ½"
	tools := []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "get_weather", Parameters: []byte(`{"type":"object"}`)}}}
	for _, f := range Families() {
		for _, reasoning := range []bool{false, true} {
			p := f.New(Options{Tools: tools, ReasoningOpen: reasoning && f.ThinkOpen != ""})
			var got strings.Builder
			check := func(evs []Event) {
				for _, e := range evs {
					if e.Kind != Content && e.Kind != Reasoning {
						continue
					}
					if !utf8.ValidString(e.Text) {
						t.Errorf("%s (reasoning open %v): event %q splits a character", f.ID, reasoning, e.Text)
					}
					got.WriteString(e.Text)
				}
			}
			for i := 0; i < len(text); i++ {
				check(p.Feed(text[i : i+1]))
			}
			check(p.Close())
			if !strings.Contains(got.String(), "日本語") {
				t.Errorf("%s: the text came out as %q", f.ID, got.String())
			}
		}
	}
}
