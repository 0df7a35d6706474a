package gateway

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// deltaTexts are texts with everything JSON escapes, and plain ones.
var deltaTexts = []string{
	"", "Hello", " world", "é", "日本語", "emoji 🙂", `"quoted"`, `back\slash`, "line\nbreak", "tab\t", "cr\r",
	"\x00\x01\x08\x0c\x1f", "<tag>&amp;", "a<b", "a>b", "a&b", "\u2028\u2029", "bad \xff utf8", "\xed\xa0\x80",
	"mixed é \"x\" \n <b>", "\x7f", strings.Repeat("x", 5000),
}

// tokenTexts are deltaTexts and random short byte strings.
func tokenTexts() []string {
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
	return texts
}

// A tokenCheck writes one token event of a front's stream both ways: fast,
// through the front's content or reasoning, and the way the front wrote it
// before, through encoding/json, in the same state.
type tokenCheck func(text string, reasoning bool) (fast, slow string)

// recorded writes with the stream's writer set to a fresh recorder and returns what was
// written.
func recorded(set func(*httptest.ResponseRecorder), write func() error) string {
	rec := httptest.NewRecorder()
	set(rec)
	if err := write(); err != nil {
		panic(err)
	}
	return rec.Body.String()
}

func openAICheck(id, model string) tokenCheck {
	s := &openAIStream{sse: sse{w: httptest.NewRecorder()}}
	s.id, s.model, s.created = id, model, 1764750000
	s.delta = newDeltaEvent(s.id, s.created, s.model)
	set := func(r *httptest.ResponseRecorder) { s.sse.w = r }
	return func(text string, reasoning bool) (string, string) {
		d, write := openAIDelta{Content: &text}, s.content
		if reasoning {
			d, write = openAIDelta{Reasoning: &text}, s.reasoning
		}
		return recorded(set, func() error { return write(text) }),
			recorded(set, func() error { return s.send(d, nil, nil, nil) })
	}
}

// lastEvent is the last of a stream's events (JSON escapes every newline in
// a value, so a blank line only ends an event).
func lastEvent(body string) string {
	if i := strings.LastIndex(strings.TrimSuffix(body, "\n\n"), "\n\n"); i >= 0 {
		return body[i+2:]
	}
	return body
}

// anthropicCheck: each change between text and thinking opens a block, so
// the index moves on.
func anthropicCheck() tokenCheck {
	s := newAnthropicStream(httptest.NewRecorder())
	set := func(r *httptest.ResponseRecorder) { s.sse.w = r }
	return func(text string, reasoning bool) (string, string) {
		var d any = anthropicTextDelta{"text_delta", text}
		write := s.content
		if reasoning {
			d, write = anthropicThinkingDelta{"thinking_delta", text}, s.reasoning
		}
		if text == "" { // no event either way
			return recorded(set, func() error { return write(text) }), ""
		}
		return lastEvent(recorded(set, func() error { return write(text) })),
			recorded(set, func() error { return s.delta(d) })
	}
}

// responsesCheck: the item receiving text is opened first where it is not
// (content's leading whitespace waits for text until a message is open); a
// change between content and reasoning opens a new item, at the next output
// index. The sequence number after each event is compared too.
func responsesCheck() tokenCheck {
	b := &responsesBuilder{state: &responsesState{}, req: &chat.Request{}, stream: &sse{w: httptest.NewRecorder()}}
	if err := b.begin("resp_1", "qwen", 0); err != nil {
		panic(err)
	}
	set := func(r *httptest.ResponseRecorder) { b.stream.w = r }
	return func(text string, reasoning bool) (string, string) {
		typ, write := "message", b.content
		if reasoning {
			typ, write = "reasoning", b.reasoning
		}
		if b.open == nil || b.open["type"] != typ {
			recorded(set, func() error { return write("open ") })
		}
		seq := b.seq
		fast := recorded(set, func() error { return write(text) }) + fmt.Sprint(" seq after ", b.seq)
		b.seq = seq
		m := map[string]any{"item_id": b.open["id"], "output_index": len(b.output) - 1, "content_index": 0, "delta": text}
		name := "response.reasoning_text.delta"
		if !reasoning {
			m["logprobs"], name = []any{}, "response.output_text.delta"
		}
		return fast, recorded(set, func() error { return b.event(name, m) }) + fmt.Sprint(" seq after ", b.seq)
	}
}

// ollamaCheck: the line's created_at, read back, is the time the slow line
// is made at.
func ollamaCheck(model string, generate bool) tokenCheck {
	a := &ollamaAnswer{generate: generate, w: httptest.NewRecorder()}
	if err := a.begin("", model, 0); err != nil {
		panic(err)
	}
	set := func(r *httptest.ResponseRecorder) { a.w = r }
	return func(text string, reasoning bool) (string, string) {
		content, thinking, write := text, "", a.content
		if reasoning {
			content, thinking, write = "", text, a.reasoning
		}
		fast := recorded(set, func() error { return write(text) })
		var line struct {
			CreatedAt string `json:"created_at"`
		}
		if err := json.Unmarshal([]byte(fast), &line); err != nil {
			return fast, err.Error()
		}
		at, err := time.Parse(time.RFC3339Nano, line.CreatedAt)
		if err != nil {
			return fast, err.Error()
		}
		b, _ := json.Marshal(a.lineAt(at, content, thinking, nil, false))
		return fast, string(b) + "\n"
	}
}

// tokenChecks are every front's, with ids and model names that need
// escaping where the event carries them.
func tokenChecks() map[string]tokenCheck {
	return map[string]tokenCheck{
		"chat":             openAICheck("chatcmpl-abc123", "qwen3:0.6b"),
		"chat escaped ids": openAICheck(`id"<x>`, "mödel\u2028"),
		"messages":         anthropicCheck(),
		"responses":        responsesCheck(),
		"ollama chat":      ollamaCheck("qwen3:0.6b", false),
		"ollama chat <&>":  ollamaCheck(`mödel<&>"`+"\u2028", false),
		"ollama generate":  ollamaCheck(`qwen<&>`, true),
		"chat call args":   openAICallArgsCheck("chatcmpl-abc123", "qwen3:0.6b"),
	}
}

// openAICallArgsCheck: a streamed call's argument fragment, the text as the
// fragment (the index moving with reasoning, to write one and two digits).
func openAICallArgsCheck(id, model string) tokenCheck {
	s := &openAIStream{sse: sse{w: httptest.NewRecorder()}}
	s.id, s.model, s.created = id, model, 1764750000
	s.delta = newDeltaEvent(s.id, s.created, s.model)
	set := func(r *httptest.ResponseRecorder) { s.sse.w = r }
	return func(text string, reasoning bool) (string, string) {
		i := 0
		if reasoning {
			i = 12
		}
		d := openAIToolCall{Index: &i}
		d.Function.Arguments = text
		return recorded(set, func() error { return s.callArgs(i, text) }),
			recorded(set, func() error { return s.send(openAIDelta{ToolCalls: []openAIToolCall{d}}, nil, nil, nil) })
	}
}

// The fast token events are byte for byte the events each front wrote
// through encoding/json, for content and reasoning, for every kind of text:
// Chat Completions' and the SSE fronts' with HTML escaping off, Ollama's
// (json.Marshal) with it on.
func TestFastTokenEventsMatchEncoder(t *testing.T) {
	texts := tokenTexts()
	for name, check := range tokenChecks() {
		t.Run(name, func(t *testing.T) {
			for i, text := range texts {
				for _, reasoning := range []bool{i%2 == 0, i%2 == 1} { // alternating: new blocks and items
					if fast, slow := check(text, reasoning); fast != slow {
						t.Fatalf("%q reasoning %v (valid UTF-8 %v):\n fast %q\n json %q", text, reasoning, utf8.ValidString(text), fast, slow)
					}
				}
			}
		})
	}
}

// FuzzFastDelta: any text gives encoding/json's bytes in every front.
func FuzzFastDelta(f *testing.F) {
	for _, s := range deltaTexts {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, text string, reasoning bool) {
		for name, check := range tokenChecks() {
			if fast, slow := check(text, reasoning); fast != slow {
				t.Fatalf("%s %q reasoning %v: fast %q, json %q", name, text, reasoning, fast, slow)
			}
		}
	})
}

// Through the fronts, the fast token events carry what belongs to them: a
// Responses delta names the item last added (its id and output index, part
// 0, a message's empty logprobs) and its texts make that item's done text;
// an Ollama token line is not done, names the model and the assistant, and
// its created_at is a time that does not go back.
func TestTokenEventsFitTheirStream(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "<think>Paris"}, backend.Chunk{Text: " is <in> \"France\".</think>\n\nLet me"},
		backend.Chunk{Text: " check & see."}, backend.Chunk{FinishReason: chat.FinishStop})
	ts := newFakeGateway(t, Config{}, rt)
	t.Run("responses", func(t *testing.T) {
		resp := post(t, ts.URL+"/v1/responses", `{"model":"qwen","stream":true,"input":"Hi"}`)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var item map[string]any
		var index any
		texts := map[string]string{}
		deltas := 0
		for _, ev := range readSSE(t, body) {
			d := ev.data
			switch typ := ev.name; {
			case typ == "response.output_item.added":
				item, index = d["item"].(map[string]any), d["output_index"]
			case strings.HasSuffix(typ, "_text.delta"):
				deltas++
				fields := 6 // content_index, delta, item_id, output_index, sequence_number, type
				if typ == "response.output_text.delta" {
					fields++ // logprobs
				}
				if d["item_id"] != item["id"] || d["output_index"] != index || d["content_index"] != 0.0 ||
					len(d) != fields || fields == 7 && fmt.Sprint(d["logprobs"]) != "[]" {
					t.Errorf("%s %v: item %v at %v", typ, d, item["id"], index)
				}
				texts[item["id"].(string)] += d["delta"].(string)
			case strings.HasSuffix(typ, "_text.done"):
				if d["text"] != texts[d["item_id"].(string)] {
					t.Errorf("%s %q, the deltas %q", typ, d["text"], texts[d["item_id"].(string)])
				}
			}
		}
		if deltas < 3 || len(texts) != 2 {
			t.Errorf("%d deltas in %d items:\n%s", deltas, len(texts), body)
		}
	})
	for _, p := range []string{"/api/chat", "/api/generate"} {
		t.Run(p, func(t *testing.T) {
			_, _, body := readAll(t, ts.URL+p, `{"model":"qwen","think":true,"prompt":"Hi","messages":[{"role":"user","content":"Hi"}]}`)
			lines := ndjson(t, body)
			var last time.Time
			for _, l := range lines[:len(lines)-1] {
				at, err := time.Parse(time.RFC3339Nano, str(l["created_at"]))
				if err != nil || at.Before(last) || l["done"] != false || l["model"] != "qwen" || l["done_reason"] != nil {
					t.Errorf("line %v (time %v)", l, err)
				}
				last = at
				if p == "/api/chat" && (path(l, "message", "role") != "assistant" || len(l) != 4) {
					t.Errorf("line %v", l)
				}
			}
			if len(lines) < 4 || lines[len(lines)-1]["done"] != true {
				t.Errorf("lines:\n%s", body)
			}
		})
	}
}
