package llamacpp

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
)

// answer is one request's text and timings.
type answer struct {
	text   string
	cached int // prompt tokens kept from the previous request
	evald  int // prompt tokens decoded
}

func ask(t *testing.T, e *Engine, req backend.CompleteRequest, reuse bool) answer {
	t.Helper()
	m := e.byID[req.Model]
	m.noReuse = !reuse
	defer func() { m.noReuse = false }()
	s, err := e.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	text, last := collect(t, s)
	tm := last.Timings
	if tm == nil || tm.PromptTokens+tm.CachedTokens != last.Usage.PromptTokens {
		t.Fatalf("timings %+v, usage %+v", tm, last.Usage)
	}
	return answer{text, tm.CachedTokens, tm.PromptTokens}
}

// conversation is a chat-templated prompt of the given turns, ending with
// the assistant's header.
func conversation(turns ...string) string {
	var b strings.Builder
	for i, t := range turns {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		b.WriteString("<|im_start|>" + role + "\n" + t + "<|im_end|>\n")
	}
	return b.String() + "<|im_start|>assistant\n"
}

// Prompts that share a prefix with what the context holds keep the KV cache
// of that prefix and decode only the rest: the agent's resent conversation
// with one more message, a prompt that diverges after the first message, one
// changed in the middle, a strict prefix of the previous one, the same prompt
// again. The answers are the same as from an empty cache where the model's
// choice does not hang on the last bits of the logits (greedy, the scripted
// model); seeded draws from the random model's near-uniform distributions
// are not compared: llama.cpp's kernels give logits that differ in the last
// bits with the shape of the batch (a suffix decoded alone, a prompt decoded
// whole; with flash attention, more), so such draws part after a few tokens,
// as they do behind llama-server's cache_prompt.
func TestPromptReuse(t *testing.T) {
	e := tiny(t)
	long := strings.Repeat("Tell me about the weather in Paris, Lyon and Marseille this week. ", 12)
	middle := long[:len(long)/2] + strings.ReplaceAll(long[len(long)/2:], "Lyon", "Nice")
	for _, c := range []struct {
		name string
		req  backend.CompleteRequest
	}{
		{"greedy", backend.CompleteRequest{Model: "tiny-qwen3-toolcall", MaxTokens: 32, Temperature: f64(0)}},
		{"seeded", backend.CompleteRequest{Model: "tiny-qwen3-random", MaxTokens: 32, Seed: i64(7)}},
		{"seeded, hot", backend.CompleteRequest{Model: "tiny-qwen3-random", MaxTokens: 32, Temperature: f64(1.5), Seed: i64(3), RepeatPenalty: f64(1.1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			first := conversation(long + "What's the weather in Paris?")
			req := c.req
			req.Prompt = first
			a := ask(t, e, req, true)
			// The steps: a prompt, and the fewest tokens it must keep.
			steps := []struct {
				name   string
				prompt string
				least  int
			}{
				// The agent's next request: the answer and one more message.
				{"resent", conversation(long+"What's the weather in Paris?", a.text, "And in Lyon?"), 100},
				// The same first message, then another answer.
				{"diverges", conversation(long+"What's the weather in Paris?", "It is sunny.", "And in Lyon?"), 100},
				// A word changed in the middle of the first message.
				{"middle", conversation(middle + "What's the weather in Paris?"), 60},
				// A strict prefix of the previous prompt.
				{"prefix", conversation(middle), 100},
				// The same prompt again: all but its last token kept.
				{"again", conversation(middle), 100},
			}
			for _, st := range steps {
				req.Prompt = st.prompt
				got := ask(t, e, req, true)
				want := ask(t, e, req, false)
				if c.name == "greedy" && got.text != want.text {
					t.Errorf("%s: with reuse %q, without %q", st.name, got.text, want.text)
				}
				if got.cached < st.least || want.cached != 0 || got.evald < 1 {
					t.Errorf("%s: kept %d prompt tokens (want at least %d), decoded %d; without reuse kept %d", st.name, got.cached, st.least, got.evald, want.cached)
				}
				if st.name == "again" && got.evald != 1 {
					t.Errorf("again: decoded %d prompt tokens, want 1", got.evald)
				}
				// Bring the context back to the reuse run's state for the next step.
				ask(t, e, req, true)
			}
		})
	}
}

// A request cancelled while generating leaves in the cache exactly what it
// decoded: the next request keeps that. A failed decode leaves nothing
// trusted in its slot: the next request with that prompt starts afresh.
// (Answers are compared where an empty cache was used on both sides; see
// TestPromptReuse. The failing prompts start with a word, not a chat
// marker, so that no other slot, holding other tests' conversations, shares
// a prefix with them.)
func TestPromptReuseAfterCancelAndFailure(t *testing.T) {
	e := tiny(t)
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20)
	req := backend.CompleteRequest{Model: "tiny-qwen3-random", MaxTokens: 24, Seed: i64(11)}
	base := conversation(long)

	// Cancelled after a few chunks.
	ctx, cancel := context.WithCancel(context.Background())
	req.Prompt = base
	s, err := e.Complete(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var partial strings.Builder
	for range 5 {
		c, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		partial.WriteString(c.Text)
	}
	cancel()
	if _, err := s.Next(); !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
	s.Close()
	req.Prompt = conversation(long, partial.String()+" and more", "Go on.")
	if got := ask(t, e, req, true); got.cached < 100 {
		t.Errorf("after cancel: kept %d prompt tokens", got.cached)
	}

	// A decode that fails after the prompt: the next request keeps nothing.
	ask(t, e, req, true)
	req.Prompt = "Elsewhere. " + conversation(long, "Something else.", "Go on.")
	decodeFault = func() bool { return true }
	s, err = e.Complete(context.Background(), req)
	if err == nil { // the prompt's decode "failed" (the fault hits every decode)
		s.Close()
		t.Fatal("no error from a failing decode")
	}
	decodeFault = nil
	checkSlots(t, e.byID[req.Model])
	got := ask(t, e, req, true)
	want := ask(t, e, req, false)
	if got.text != want.text || got.cached != 0 {
		t.Errorf("after a failed prompt: kept %d; with reuse %q, without %q", got.cached, got.text, want.text)
	}

	// A decode that fails while generating, after the prompt and some tokens
	// (another prompt: the one before is in the slot of the request without
	// reuse, which this one would copy it from).
	req.Prompt = "Meanwhile. " + conversation(long, "Something else.", "Go on.")
	n := 0
	decodeFault = func() bool { n++; return n == 4 }
	s, err = e.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = s.Next()
	}
	s.Close()
	decodeFault = nil
	if err == nil || !strings.Contains(err.Error(), "llama_decode failed") {
		t.Fatalf("want the decode error, got %v", err)
	}
	checkSlots(t, e.byID[req.Model])
	got = ask(t, e, req, true)
	want = ask(t, e, req, false)
	if got.text != want.text || got.cached != 0 {
		t.Errorf("after a failed generation: kept %d; with reuse %q, without %q", got.cached, got.text, want.text)
	}

	// A request refused after taking the model (the sampler cannot be
	// made) leaves the cache as it was.
	bad := req
	bad.RepeatPenalty = f64(-1)
	if _, err := e.Complete(context.Background(), bad); err == nil {
		t.Fatal("negative repeat penalty: no error")
	}
	if got := ask(t, e, req, true); got.text != want.text || got.evald != 1 {
		t.Errorf("after a refused request: decoded %d; %q, want %q", got.evald, got.text, want.text)
	}
}

func TestCommonPrefix(t *testing.T) {
	for _, c := range []struct {
		a, b []llamaToken
		want int
	}{
		{nil, nil, 0}, {[]llamaToken{1}, nil, 0}, {[]llamaToken{1, 2, 3}, []llamaToken{1, 2}, 2},
		{[]llamaToken{1, 2, 3}, []llamaToken{1, 2, 3}, 3}, {[]llamaToken{1, 9, 3}, []llamaToken{1, 2, 3}, 1},
	} {
		if got := commonPrefix(c.a, c.b); got != c.want {
			t.Errorf("%v %v: %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// BenchmarkResend is an agent's turn: the previous conversation (870
// tokens) resent with one more message (about 70 tokens), answered with one
// token; the time to that token with the prefix kept, with the prefix kept
// and the prompt tokenized whole (tokcache.go off), and with an empty cache.
func BenchmarkResend(b *testing.B) {
	e := tiny(b)
	history := conversation(strings.Repeat("Tell me about the weather in Paris, Lyon and Marseille this week. ", 60), "It is sunny everywhere.")
	next := strings.Repeat("And what about tomorrow, and the day after? ", 6)
	for _, mode := range []struct {
		name               string
		reuse, wholeTokens bool
	}{{"reuse", true, false}, {"reuse,whole-tokenize", true, true}, {"empty-cache", false, false}} {
		b.Run(mode.name, func(b *testing.B) {
			m := e.byID["tiny-qwen3-random"]
			m.noReuse = !mode.reuse
			m.tokens.off.Store(mode.wholeTokens)
			defer func() { m.noReuse = false; m.tokens.off.Store(false) }()
			req := backend.CompleteRequest{Model: "tiny-qwen3-random", MaxTokens: 1, Seed: i64(1)}
			i := 0
			for b.Loop() {
				b.StopTimer()
				req.Prompt = history // the context holds the history, as after the previous turn
				s, err := e.Complete(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				collect(b, s)
				i++
				req.Prompt = history + "<|im_start|>user\nTurn " + strconv.Itoa(i) + ". " + next + "<|im_end|>\n<|im_start|>assistant\n"
				b.StartTimer()
				s, err = e.Complete(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Next(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				collect(b, s)
				b.StartTimer()
			}
		})
	}
}

// BenchmarkResendAfterSideRequest is an agent's turn after a side request
// (a title) to the same model: the conversation (859 tokens) was decoded,
// then a short prompt that shares only the chat marker with it was
// answered, then the conversation comes back with one more message (about
// 70 tokens) and is answered with one token. It reports the time to that
// token, the prompt's decode time and how many of its tokens came from the
// cache, with one slot (the side request evicts the conversation, as before
// the slots) and with four.
func BenchmarkResendAfterSideRequest(b *testing.B) {
	history := conversation(strings.Repeat(weatherText, 60), "It is sunny everywhere.")
	next := strings.Repeat("And what about tomorrow, and the day after? ", 6)
	side := conversation("Write a five-word title for a conversation about the weather in three French cities.")
	for _, slots := range []int{1, 4} {
		b.Run("slots="+strconv.Itoa(slots), func(b *testing.B) {
			e, _ := slotEngine(b, 2048, slots)
			req := backend.CompleteRequest{Model: "tiny-qwen3-random", MaxTokens: 1, Seed: i64(1)}
			var promptMS float64
			cached, i := 0, 0
			for b.Loop() {
				b.StopTimer()
				req.Prompt = history // the conversation's previous turn
				s, err := e.Complete(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				collect(b, s)
				sideReq := req
				sideReq.Prompt, sideReq.MaxTokens = side, 8
				s, err = e.Complete(context.Background(), sideReq)
				if err != nil {
					b.Fatal(err)
				}
				collect(b, s)
				i++
				req.Prompt = history + "<|im_start|>user\nTurn " + strconv.Itoa(i) + ". " + next + "<|im_end|>\n<|im_start|>assistant\n"
				b.StartTimer()
				s, err = e.Complete(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				first, err := s.Next()
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if _, last := collect(b, s); last.Timings != nil {
					first = last
				}
				last := first
				promptMS += last.Timings.PromptMS
				cached += last.Timings.CachedTokens
				b.StartTimer()
			}
			b.ReportMetric(promptMS/float64(b.N), "prompt-ms")
			b.ReportMetric(float64(cached)/float64(b.N), "cached-tokens")
		})
	}
}

// A JSON Schema's conversion stops with the request: a client that left
// gets its context's error, not a 400 about the schema.
func TestRequestGrammarCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := requestGrammar(ctx, backend.CompleteRequest{JSONSchema: []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if g, err := requestGrammar(context.Background(), backend.CompleteRequest{JSONSchema: []byte(`{"type":"object"}`)}); err != nil || g == "" {
		t.Errorf("a live request: %q, %v", g, err)
	}
}
