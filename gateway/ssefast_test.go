package gateway

import (
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// deltaTexts are texts with everything JSON escapes, and plain ones.
var deltaTexts = []string{
	"", "Hello", " world", "é", "日本語", "emoji 🙂", `"quoted"`, `back\slash`, "line\nbreak", "tab\t", "cr\r",
	"\x00\x01\x08\x0c\x1f", "<tag>&amp;", "\u2028\u2029", "bad \xff utf8", "\xed\xa0\x80", "mixed é \"x\" \n <b>",
	strings.Repeat("x", 5000),
}

// The fast token events are byte for byte the chunks send writes through
// encoding/json, for content and reasoning, for every kind of text, and for
// ids and model names that need escaping.
func TestFastDeltaMatchesEncoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := append([]string(nil), deltaTexts...)
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(3) > 0 {
				b[i] = byte(0x20 + rng.IntN(0x60))
			}
		}
		texts = append(texts, string(b))
	}
	for _, ids := range [][2]string{{"chatcmpl-abc123", "qwen3:0.6b"}, {`id"<x>`, "mödel\u2028"}} {
		fast := &openAIStream{sse: sse{w: httptest.NewRecorder()}}
		slow := &openAIStream{sse: sse{w: httptest.NewRecorder()}}
		fast.id, fast.model, fast.created = ids[0], ids[1], 1764750000
		slow.id, slow.model, slow.created = ids[0], ids[1], 1764750000
		fast.delta = newDeltaEvent(fast.id, fast.created, fast.model)
		for _, text := range texts {
			for _, field := range []string{"content", "reasoning"} {
				var head []byte
				d := openAIDelta{Content: &text}
				if head = fast.delta.content; field == "reasoning" {
					head, d = fast.delta.reasoning, openAIDelta{Reasoning: &text}
				}
				got := string(fast.delta.event(head, text))
				rec := httptest.NewRecorder()
				slow.sse.w = rec
				if err := slow.send(d, nil, nil, nil); err != nil {
					t.Fatal(err)
				}
				if want := rec.Body.String(); got != want {
					t.Fatalf("%s %q (valid UTF-8 %v):\n fast %q\n json %q", field, text, utf8.ValidString(text), got, want)
				}
			}
		}
	}
}

// FuzzFastDelta: any text gives encoding/json's bytes.
func FuzzFastDelta(f *testing.F) {
	for _, s := range deltaTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d := newDeltaEvent("id", 1, "m")
		got := string(d.event(d.content, text))
		rec := httptest.NewRecorder()
		s := &openAIStream{sse: sse{w: rec}, id: "id", model: "m", created: 1}
		if err := s.send(openAIDelta{Content: &text}, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
		if got != rec.Body.String() {
			t.Fatalf("%q: fast %q, json %q", text, got, rec.Body.String())
		}
	})
}
