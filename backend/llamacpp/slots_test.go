package llamacpp

import (
	"context"
	"strings"
	"testing"
	"unsafe"

	"github.com/dragoman-dev/dragoman/backend"
)

// Tests of the prompt cache's slots (cache.go). Each makes its own engine
// with the random model, so that it knows what every slot holds.

// slotEngine is an engine with the random model alone, a context of
// ctxSize tokens and the given slots.
func slotEngine(t testing.TB, ctxSize, slots int) (*Engine, *model) {
	t.Helper()
	e, err := New(Options{LibDir: libDir(t), Models: []string{modelPath(t, "tiny-qwen3-random.gguf")}, ContextSize: ctxSize, Threads: 1, Slots: slots})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, e.byID["tiny-qwen3-random"]
}

// checkSlots checks that every slot's record is what llama.cpp holds in its
// sequence: positions 0 to len(cached)-1, or nothing. No request may hold
// the model.
func checkSlots(t *testing.T, m *model) {
	t.Helper()
	mem := llamaGetMemory(m.lctx)
	for _, sl := range m.slots {
		lo, hi := llamaMemorySeqPosMin(mem, sl.seq), llamaMemorySeqPosMax(mem, sl.seq)
		want := int32(len(sl.cached)) - 1
		if hi != want || (want >= 0 && lo != 0) || (want < 0 && lo != -1) {
			t.Errorf("slot %d records %d tokens; llama.cpp holds positions %d to %d", sl.seq, len(sl.cached), lo, hi)
		}
	}
}

// slotOf is the slot that holds prompt's tokens (all but its last at
// least), or -1.
func slotOf(t *testing.T, m *model, prompt string) int {
	t.Helper()
	toks, err := m.tokenize(prompt)
	if err != nil {
		t.Fatal(err)
	}
	for i, sl := range m.slots {
		if commonPrefix(sl.cached, toks) >= len(toks)-1 {
			return i
		}
	}
	return -1
}

const weatherText = "Tell me about the weather in Paris, Lyon and Marseille this week. "

// The measured problem: an agent's main conversation, then a side request
// (a title) that shares only the chat marker with it, then the main
// conversation again with one more message. With four slots the main
// conversation's prompt comes from the cache whole; with one slot, as
// before, the side request evicted it and only the chat marker is kept.
func TestSlotsSideRequest(t *testing.T) {
	first := strings.Repeat(weatherText, 20) + "What's the weather in Paris?"
	for _, c := range []struct {
		name  string
		slots int
	}{{"four slots", 4}, {"one slot", 1}} {
		t.Run(c.name, func(t *testing.T) {
			e, m := slotEngine(t, 2048, c.slots)
			req := backend.CompleteRequest{Model: "tiny-qwen3-random", MaxTokens: 16, Seed: i64(5)}
			req.Prompt = conversation(first)
			a := ask(t, e, req, true)
			mainTokens := a.cached + a.evald
			req.Prompt = conversation("Write a five-word title for this conversation.")
			side := ask(t, e, req, true)
			req.Prompt = conversation(first, a.text, "And in Lyon?")
			again := ask(t, e, req, true)
			t.Logf("main %d tokens; side request kept %d; main again kept %d of %d", mainTokens, side.cached, again.cached, again.cached+again.evald)
			if side.cached != 3 { // <|im_start|>user\n
				t.Errorf("the side request kept %d tokens, want the chat marker's 3", side.cached)
			}
			if c.slots > 1 && again.cached < mainTokens-1 {
				t.Errorf("main again kept %d tokens, want the previous prompt's %d at least", again.cached, mainTokens-1)
			}
			if c.slots == 1 && again.cached != 3 {
				t.Errorf("one slot: main again kept %d tokens, want 3 (the side request took the slot)", again.cached)
			}
			checkSlots(t, m)
		})
	}
}

// Two conversations alternating on one model both keep their prefixes,
// turn after turn; a third that shares the first one's long first message
// gets that message from the cache (copied into an empty slot) and leaves
// the first conversation whole.
func TestSlotsAlternatingAndShared(t *testing.T) {
	e, m := slotEngine(t, 2048, 4)
	req := backend.CompleteRequest{Model: "tiny-qwen3-random", MaxTokens: 8, Seed: i64(9)}
	convs := [][]string{
		{strings.Repeat(weatherText, 10) + "What's the weather in Paris?"},
		{strings.Repeat("The quick brown fox jumps over the lazy dog. ", 15) + "Why?"},
	}
	prev := []int{0, 0}
	for turn := range 3 {
		for i := range convs {
			req.Prompt = conversation(convs[i]...)
			a := ask(t, e, req, true)
			if turn > 0 && a.cached < prev[i]-1 {
				t.Errorf("turn %d, conversation %d: kept %d tokens, want the previous prompt's %d at least", turn, i, a.cached, prev[i]-1)
			}
			prev[i] = a.cached + a.evald
			convs[i] = append(convs[i], a.text, "And then?")
		}
	}
	checkSlots(t, m)
	firstMsg, err := m.tokenize(conversation(convs[0][0]))
	if err != nil {
		t.Fatal(err)
	}
	mainSlot := slotOf(t, m, conversation(convs[0][:len(convs[0])-2]...)) // its last prompt
	req.Prompt = conversation(convs[0][0], "A different answer.", "Something else?")
	shared := ask(t, e, req, true)
	if shared.cached < len(firstMsg)-1 {
		t.Errorf("sharing the first message: kept %d tokens, want %d at least", shared.cached, len(firstMsg)-1)
	}
	if got := slotOf(t, m, req.Prompt); got == mainSlot || got < 0 {
		t.Errorf("the shared-prefix request is in slot %d, the first conversation's is %d", got, mainSlot)
	}
	req.Prompt = conversation(convs[0]...)
	a := ask(t, e, req, true)
	if a.cached < prev[0]-1 {
		t.Errorf("the first conversation after the shared one: kept %d tokens, want %d at least", a.cached, prev[0]-1)
	}
	checkSlots(t, m)
}

// With every slot taken, a new conversation takes the least recently used
// slot: with two slots, A, B, A again, then C evict B, not A.
func TestSlotsLRU(t *testing.T) {
	e, m := slotEngine(t, 2048, 2)
	req := backend.CompleteRequest{Model: "tiny-qwen3-random", MaxTokens: 4, Seed: i64(2)}
	msg := func(s string) string { return strings.Repeat(s+" ", 30) }
	a, b, c := msg("Apples are red."), msg("Bananas are yellow."), msg("Cherries are dark.")
	req.Prompt = conversation(a)
	ra := ask(t, e, req, true)
	req.Prompt = conversation(b)
	rb := ask(t, e, req, true)
	req.Prompt = conversation(a, ra.text, "More?")
	if got := ask(t, e, req, true); got.cached < ra.cached+ra.evald-1 {
		t.Errorf("A again: kept %d", got.cached)
	}
	req.Prompt = conversation(c)
	if got := ask(t, e, req, true); got.cached != 3 {
		t.Errorf("C: kept %d, want the chat marker's 3", got.cached)
	}
	req.Prompt = conversation(a, ra.text, "More?", "", "Go on.")
	if got := ask(t, e, req, true); got.cached < 100 {
		t.Errorf("A after C: kept %d, want A's prompt", got.cached)
	}
	req.Prompt = conversation(b, rb.text, "More?")
	if got := ask(t, e, req, true); got.cached != 3 {
		t.Errorf("B after C: kept %d, want 3 (C took B's slot)", got.cached)
	}
	checkSlots(t, m)
}

// When the context is full because other slots hold its cells, the least
// recently used of them are cleared, before the prompt is decoded or while
// the answer is: the request does not fail. One conversation can still use
// the whole context (the KV cache is unified: n_ctx cells for all slots).
func TestSlotsContextFull(t *testing.T) {
	e, m := slotEngine(t, 512, 4)
	if m.nCtx != 512 {
		t.Fatalf("context %d, want 512 for each slot", m.nCtx)
	}
	req := backend.CompleteRequest{Model: "tiny-qwen3-random", MaxTokens: 4, Seed: i64(4)}
	p1 := conversation(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 28))
	p2 := conversation(strings.Repeat(weatherText, 20))
	req.Prompt = p1
	r1 := ask(t, e, req, true)
	req.Prompt = p2
	r2 := ask(t, e, req, true)
	if r1.evald+r2.evald < 512 {
		t.Fatalf("the prompts are %d and %d tokens: not more than the context together", r1.evald, r2.evald)
	}
	if slotOf(t, m, p1) >= 0 || slotOf(t, m, p2) < 0 {
		t.Errorf("after the second prompt: the first is in slot %d (want evicted), the second in %d", slotOf(t, m, p1), slotOf(t, m, p2))
	}
	checkSlots(t, m)

	// A short prompt whose answer needs the cells the second prompt holds.
	req.Prompt, req.MaxTokens = conversation("Count to a thousand."), 400
	s, err := e.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	_, last := collect(t, s)
	if last.Usage.CompletionTokens != 400 {
		t.Errorf("generated %d tokens (%s), want 400", last.Usage.CompletionTokens, last.FinishReason)
	}
	if slotOf(t, m, p2) >= 0 {
		t.Error("the second prompt is still cached: its cells were not needed?")
	}
	checkSlots(t, m)

	// One long prompt with the other slots holding tokens: they go, and the
	// answer runs to the context's end.
	req.Prompt = conversation("Go on. " + strings.Repeat("The quick brown fox jumps over the lazy dog. ", 45))
	req.MaxTokens = 0
	s, err = e.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	_, last = collect(t, s)
	if u := last.Usage; u.PromptTokens+u.CompletionTokens != 512 || last.FinishReason != "length" || u.PromptTokens < 400 {
		t.Errorf("usage %+v, finish %s: want the whole context of 512 used", u, last.FinishReason)
	}
	checkSlots(t, m)
}

// A prompt that does not fit beside an idle conversation clears it before
// its first token is decoded (makeRoom), so no decode is refused for want of
// cells and the prompt is decoded into the cells freed, not after the
// others'; a prompt that fits beside it, or one that shares its prefix (the
// copied cells counted once), keeps it.
func TestSlotsRoomMadeBeforeThePrompt(t *testing.T) {
	e, m := slotEngine(t, 512, 4)
	req := backend.CompleteRequest{Model: "tiny-qwen3-random", MaxTokens: 4, Seed: i64(4)}
	p1 := conversation(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 28))
	p2 := conversation(strings.Repeat(weatherText, 20))
	req.Prompt = p1
	r1 := ask(t, e, req, true)
	full := m.stats.full.Load()
	req.Prompt = p2
	r2 := ask(t, e, req, true)
	if r1.evald+r2.evald < 512 {
		t.Fatalf("the prompts are %d and %d tokens: not more than the context together", r1.evald, r2.evald)
	}
	if n := m.stats.full.Load() - full; n != 0 {
		t.Errorf("%d decodes found no room: the first conversation was not cleared before the prompt", n)
	}
	if slotOf(t, m, p1) >= 0 || slotOf(t, m, p2) < 0 {
		t.Errorf("after the second prompt: the first is in slot %d (want cleared), the second in %d", slotOf(t, m, p1), slotOf(t, m, p2))
	}
	req.Prompt = conversation("What's the weather in Lyon?")
	ask(t, e, req, true)
	shared := conversation(strings.Repeat(weatherText, 20), "Sunny.", "And tomorrow?")
	req.Prompt = shared
	if a := ask(t, e, req, true); a.cached < r2.evald-1 {
		t.Errorf("the prompt sharing the second's first message kept %d tokens, want %d", a.cached, r2.evald-1)
	}
	// The shared prompt holds the second whole (its first message and the
	// assistant's header): two slots hold it when the second was kept.
	toks, err := m.tokenize(p2)
	if err != nil {
		t.Fatal(err)
	}
	holding := 0
	for _, sl := range m.slots {
		if commonPrefix(sl.cached, toks) >= len(toks)-1 {
			holding++
		}
	}
	if holding != 2 {
		t.Errorf("%d slots hold the second prompt, want 2: it and the prompt sharing its prefix, kept apart", holding)
	}
	if n := m.stats.full.Load() - full; n != 0 {
		t.Errorf("%d decodes found no room", n)
	}
	checkSlots(t, m)
}

// A slot's answer does not depend on what the other slots hold: the logits
// of a prompt decoded into an empty context and into a slot beside two
// others holding other conversations are the same (the cells are in one
// unified cache, each sequence attends to its own).
func TestSlotsIsolated(t *testing.T) {
	_, m := slotEngine(t, 2048, 4)
	if err := m.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.release()
	logits := func(sl *slot, toks []llamaToken) []float32 {
		m.clear(sl)
		for i := 0; i < len(toks); i += m.nBatch {
			if rc := m.decode([]entry{{sl: sl, toks: toks[i:min(i+m.nBatch, len(toks))], logits: true}}); rc != 0 {
				t.Fatalf("decode: %d", rc)
			}
		}
		return append([]float32(nil), unsafe.Slice(llamaGetLogitsIth(m.lctx, -1), m.nVocab)...)
	}
	p, _ := m.tokenize(conversation(strings.Repeat("Something else entirely. ", 30)))
	other, _ := m.tokenize(conversation(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40)))
	m.clearAll()
	alone := logits(m.slots[0], p)
	m.clearAll()
	logits(m.slots[1], other)
	logits(m.slots[2], other[:300])
	beside := logits(m.slots[3], p)
	differ, most := 0, float32(0)
	for i := range alone {
		if d := max(alone[i]-beside[i], beside[i]-alone[i]); d != 0 {
			differ, most = differ+1, max(most, d)
		}
	}
	t.Logf("%d of %d logits differ, by at most %g", differ, len(alone), most)
	if most > 1e-3 {
		t.Errorf("the logits beside other slots differ by up to %g", most)
	}
}

func TestSlotsOption(t *testing.T) {
	dir := libDir(t)
	random := modelPath(t, "tiny-qwen3-random.gguf")
	for _, n := range []int{-1, 257} {
		if _, err := New(Options{LibDir: dir, Models: []string{random}, Slots: n}); err == nil {
			t.Errorf("%d slots: no error", n)
		}
	}
	if m := tiny(t).byID["tiny-qwen3-random"]; len(m.slots) != DefaultSlots {
		t.Errorf("%d slots by default, want %d", len(m.slots), DefaultSlots)
	}
}
