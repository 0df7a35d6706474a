package llamacpp

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// Tests of the scheduler (sched.go, step.go): requests decoded together.
// None times anything: model.gather makes the scheduler wait until a test's
// requests all run before it decodes, and a stream nobody reads holds its
// sequence (and its slot) once its buffer is full, so a test knows what
// runs when.

// batchEngine is an engine with both tiny models and the given slots.
func batchEngine(t testing.TB, ctxSize, slots int) *Engine {
	t.Helper()
	e, err := New(Options{LibDir: libDir(t), Models: []string{modelPath(t, "tiny-qwen3-toolcall.gguf"), modelPath(t, "tiny-qwen3-random.gguf")},
		ContextSize: ctxSize, Threads: 1, Slots: slots})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// result is one request's answer, or its error.
type result struct {
	text       string
	last       backend.Chunk
	err        error
	promptStep int64 // stream.promptStep
}

// readAll reads s to its end and closes it.
func readAll(s backend.Stream) result {
	defer s.Close()
	var r result
	var b strings.Builder
	for {
		c, err := s.Next()
		if err != nil {
			r.text, r.promptStep = b.String(), s.(*stream).promptStep
			if err != io.EOF {
				r.err = err
			}
			return r
		}
		b.WriteString(c.Text)
		if c.FinishReason != "" {
			r.last = c
		}
	}
}

// run completes req and reads its stream to the end (on any goroutine).
func run(e *Engine, req backend.CompleteRequest) result {
	s, err := e.Complete(context.Background(), req)
	if err != nil {
		return result{err: err}
	}
	return readAll(s)
}

// together runs reqs at once, the scheduler told to decode only once all
// of them run (model.gather), and returns their results in order.
func together(e *Engine, reqs []backend.CompleteRequest) []result {
	e.byID[reqs[0].Model].gather.Store(int32(len(reqs)))
	out := make([]result, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Go(func() { out[i] = run(e, req) })
	}
	wg.Wait()
	return out
}

// scriptPrompts are n different prompts for the scripted model, of
// different lengths, each ending at another point of its call: the model
// goes on with the call from there, so each has its own greedy answer, by
// margins that the last bits of the logits cannot change. (The random
// model's greedy answers cannot be compared: its near-uniform logits differ
// in their last bits with the shape of the batch, as TestPromptReuse says,
// and its near-ties then part after a few tokens.)
func scriptPrompts(t *testing.T, m *model, n int) []string {
	t.Helper()
	call, err := m.tokenize(weatherCall)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range n {
		var prefix []byte
		for _, tok := range call[:2+i%(len(call)-4)] {
			prefix = m.piece(tok, prefix)
		}
		filler := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1+3*i)
		out = append(out, conversation(filler+"What's the weather in Paris?")+string(prefix))
	}
	return out
}

// Greedy requests decoded together give the text each gives alone, with
// four and with eight in the batch.
func TestBatchGreedySameAsAlone(t *testing.T) {
	e := batchEngine(t, 2048, 8)
	m := e.byID["tiny-qwen3-toolcall"]
	ps := scriptPrompts(t, m, 8)
	var reqs []backend.CompleteRequest
	alone := map[string]string{}
	for _, p := range ps {
		req := backend.CompleteRequest{Model: "tiny-qwen3-toolcall", Prompt: p, MaxTokens: 40, Temperature: f64(0)}
		reqs = append(reqs, req)
		r := run(e, req)
		if r.err != nil || r.last.FinishReason != chat.FinishStop {
			t.Fatalf("alone: %q %v %+v", r.text, r.err, r.last)
		}
		if _, dup := alone[r.text]; dup {
			t.Fatalf("two prompts give %q: the test needs different answers", r.text)
		}
		alone[p] = r.text
	}
	for _, n := range []int{4, 8} {
		for i, r := range together(e, reqs[:n]) {
			if r.err != nil || r.text != alone[reqs[i].Prompt] {
				t.Errorf("%d together, request %d: %q (%v), alone %q", n, i, r.text, r.err, alone[reqs[i].Prompt])
			}
		}
	}
	// Without the prompts' cache, every prompt decoded beside the others.
	m.noReuse = true
	defer func() { m.noReuse = false }()
	for i, r := range together(e, reqs) {
		if r.err != nil || r.text != alone[reqs[i].Prompt] || r.last.Timings.CachedTokens != 0 {
			t.Errorf("no reuse, request %d: %q (%v, %+v), alone %q", i, r.text, r.err, r.last.Timings, alone[reqs[i].Prompt])
		}
	}
}

// Requests decoded together share their decodes: eight requests of twelve
// tokens, gathered, take one decode for the eight prompts and one per token
// for all eight answers, 13 in all, where taking turns takes 8 × 13.
func TestBatchShared(t *testing.T) {
	e := batchEngine(t, 2048, 8)
	m := e.byID["tiny-qwen3-random"]
	var reqs []backend.CompleteRequest
	for i := range 8 {
		reqs = append(reqs, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: conversation(strings.Repeat("Hello there. ", i+1)), MaxTokens: 12, Seed: i64(int64(i))})
	}
	decodes, seqs := m.stats.decodes.Load(), m.stats.seqs.Load()
	for i, r := range together(e, reqs) {
		if r.err != nil || r.last.Usage == nil || r.last.Usage.CompletionTokens != 12 {
			t.Fatalf("request %d: %q %v %+v", i, r.text, r.err, r.last)
		}
	}
	decodes, seqs = m.stats.decodes.Load()-decodes, m.stats.seqs.Load()-seqs
	t.Logf("%d decodes for 8 requests, %d sequences in them, at most %d in one", decodes, seqs, m.stats.maxSeqs.Load())
	// Each answer's twelfth token is decoded too (cache.go keeps it).
	if decodes != 13 || seqs != 8*13 || m.stats.maxSeqs.Load() != 8 {
		t.Errorf("%d decodes holding %d sequences (at most %d in one); want 13 holding 104, 8 in each", decodes, seqs, m.stats.maxSeqs.Load())
	}
}

// A short prompt that comes with a long one is decoded beside it, in the
// first step, not after it: the long one's prompt takes several steps of
// n_ubatch tokens, and the step's room is shared.
func TestBatchPromptsShareSteps(t *testing.T) {
	e := batchEngine(t, 2048, 4)
	m := e.byID["tiny-qwen3-random"]
	long := conversation(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 150))
	short := conversation("Hi.")
	start := m.stats.decodes.Load()
	rs := together(e, []backend.CompleteRequest{
		{Model: "tiny-qwen3-random", Prompt: long, MaxTokens: 4, Seed: i64(1)},
		{Model: "tiny-qwen3-random", Prompt: short, MaxTokens: 4, Seed: i64(1)},
	})
	for _, r := range rs {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	longSteps, shortSteps := rs[0].promptStep-start, rs[1].promptStep-start
	n := rs[0].last.Usage.PromptTokens
	t.Logf("long prompt (%d tokens) in at decode %d, short in at %d (n_ubatch %d)", n, longSteps, shortSteps, m.nUbatch)
	if shortSteps != 1 || longSteps < int64((n+m.nUbatch-1)/m.nUbatch) {
		t.Errorf("short prompt in at decode %d, long (%d tokens) at %d: want 1, and %d or more", shortSteps, n, longSteps, (n+m.nUbatch-1)/m.nUbatch)
	}
}

func TestShares(t *testing.T) {
	for _, c := range []struct {
		rest       []int
		budget     int
		wantShares []int
	}{
		{[]int{1000, 10}, 512, []int{502, 10}},
		{[]int{1000, 1000}, 512, []int{256, 256}},
		{[]int{3, 1000, 1000}, 512, []int{3, 255, 254}},
		{[]int{5, 5}, 512, []int{5, 5}},
		{[]int{100, 100, 100}, 2, []int{1, 1, 0}},
		{[]int{}, 512, []int{}},
	} {
		got := shares(c.rest, c.budget)
		if len(got) != len(c.wantShares) {
			t.Fatalf("shares(%v, %d) = %v", c.rest, c.budget, got)
		}
		for i := range got {
			if got[i] != c.wantShares[i] {
				t.Errorf("shares(%v, %d) = %v, want %v", c.rest, c.budget, got, c.wantShares)
				break
			}
		}
	}
}

// Cancelling one of the running requests frees its sequence at once: with
// every slot running a request (the others unread, so they keep running),
// a new request gets the cancelled one's slot; then the others finish
// whole.
func TestBatchCancelFreesSequence(t *testing.T) {
	e := batchEngine(t, 2048, 4)
	m := e.byID["tiny-qwen3-random"]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.gather.Store(4)
	streams := make([]backend.Stream, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range 4 {
		c := context.Background()
		if i == 0 {
			c = ctx
		}
		wg.Go(func() {
			streams[i], errs[i] = e.Complete(c, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: conversation(strings.Repeat("Go on. ", i+1)), MaxTokens: 200, Seed: i64(int64(i))})
		})
	}
	wg.Wait()
	for i, s := range streams {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if _, err := s.Next(); err != nil {
			t.Fatal(err)
		}
	}
	// Once the others' buffers are full and the scheduler sleeps, the
	// request is cancelled; its stream is not read: the scheduler sees the
	// context end by itself.
	asleep := make(chan struct{}, 1)
	m.asleep.Store(&asleep)
	m.wake() // should it sleep already
	<-asleep
	m.asleep.Store(nil)
	cancel()
	// Every slot was taken: this one runs only if the cancelled request
	// left its slot (a hang here is the failure).
	r := run(e, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: conversation("A newcomer."), MaxTokens: 5, Seed: i64(9)})
	if r.err != nil || r.last.Usage.CompletionTokens != 5 {
		t.Fatalf("the request after the cancel: %v %+v", r.err, r.last)
	}
	if _, err := streams[0].Next(); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled stream: %v", err)
	}
	for i, s := range streams[1:] {
		if r := readAll(s); r.err != nil || r.last.Usage.CompletionTokens != 200 || r.last.FinishReason != chat.FinishLength {
			t.Errorf("request %d: %v %+v", i+1, r.err, r.last)
		}
	}
	if _, err := streams[0].Next(); err != io.EOF {
		t.Errorf("the cancelled stream after its error: %v", err)
	}
	checkSlots(t, m)
}

// Each sequence keeps its own grammar: 48 requests, eight at a time, with
// eight different grammars and JSON Schemas, on the random model (whose
// every draw a grammar refuses): every answer matches its own.
func TestBatchGrammarPerSequence(t *testing.T) {
	e := batchEngine(t, 2048, 8)
	type constraint struct {
		gbnf   string
		schema string
	}
	cs := []constraint{
		{gbnf: `root ::= "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"" [a-z]{1,8} "\"}}\n</tool_call>"`},
		{gbnf: `root ::= "yes" | "no"`},
		{gbnf: `root ::= [0-9]{3} "-" [0-9]{4}`},
		{schema: `{"type":"object","properties":{"city":{"type":"string","maxLength":12}},"required":["city"]}`},
		{schema: `{"type":"array","items":{"type":"integer","minimum":0,"maximum":999},"maxItems":4}`},
		{gbnf: `root ::= "<tool_call>\n{\"name\": \"lookup\", \"arguments\": {\"q\": \"" [A-Z]{2,5} "\"}}\n</tool_call>"`},
		{schema: `{"type":"string","enum":["red","green","blue"]}`},
		{gbnf: `root ::= ("ab" | "cd"){1,6} "."`},
	}
	gs := make([]*grammar.Grammar, len(cs))
	for i, c := range cs {
		var err error
		if c.gbnf != "" {
			gs[i], err = grammar.Parse(c.gbnf)
		} else {
			gs[i], _, err = grammar.FromJSONSchema([]byte(c.schema), grammar.Options{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	valid, n := 0, 0
	for round := range 6 {
		var reqs []backend.CompleteRequest
		for i, c := range cs {
			req := backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: weatherPrompt, MaxTokens: 200, Temperature: f64(1), Seed: i64(int64(10*round + i)), Grammar: c.gbnf}
			if c.schema != "" {
				req.JSONSchema = []byte(c.schema)
			}
			reqs = append(reqs, req)
		}
		for i, r := range together(e, reqs) {
			n++
			if r.err != nil || r.last.FinishReason != chat.FinishStop || !gs[i].Match(r.text) {
				t.Errorf("round %d, grammar %d: %q (%v, finish %q) does not match its grammar", round, i, r.text, r.err, r.last.FinishReason)
				continue
			}
			valid++
		}
	}
	t.Logf("%d of %d valid", valid, n)
}

// When the cells run out while requests run together, an idle slot's are
// taken first; then the newest running request gives way and the others go
// on: an answer under way ends as at the context's end (finish "length",
// its text delivered), a prompt not yet decoded is a 503 to retry.
func TestBatchContextFull(t *testing.T) {
	// A cached conversation idle, request A generating (unread: it keeps
	// its cells and is in no batch), request B, newer, running to the
	// context's end: B is cut when A's cells and its own fill the context,
	// and A then finishes whole.
	t.Run("newest", func(t *testing.T) {
		e := batchEngine(t, 512, 4)
		m := e.byID["tiny-qwen3-random"]
		idle := conversation(strings.Repeat("Cached and idle. ", 20))
		if r := run(e, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: idle, MaxTokens: 4, Seed: i64(1)}); r.err != nil {
			t.Fatal(r.err)
		}
		a, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: conversation(strings.Repeat("Apples. ", 60)), MaxTokens: 150, Seed: i64(2)})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b := run(e, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: conversation(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 25)), Seed: i64(3)})
		if b.err != nil || b.last.FinishReason != chat.FinishLength || b.text == "" ||
			b.last.Usage.PromptTokens+b.last.Usage.CompletionTokens >= 512 {
			t.Errorf("B: %v (%q, %+v), want its answer cut where A's cells and its own fill the context, its text delivered", b.err, b.text, b.last)
		}
		if slotOf(t, m, idle) >= 0 {
			t.Error("the idle conversation is still cached: its cells were not taken first")
		}
		if r := readAll(a); r.err != nil || r.last.Usage.CompletionTokens != 150 {
			t.Errorf("A: %v %+v", r.err, r.last)
		}
		checkSlots(t, m)
	})
	// Two requests in the same batches, whose prompts leave eight cells
	// free: four steps later they are gone, and at the fifth token one
	// request fails and the other finishes.
	t.Run("in one batch", func(t *testing.T) {
		e := batchEngine(t, 512, 4)
		m := e.byID["tiny-qwen3-random"]
		pa := conversation(strings.Repeat("Apples. ", 120))
		na, err := m.tokenize(pa)
		if err != nil {
			t.Fatal(err)
		}
		pb := conversation("Pears.")
		for k := 1; ; k++ { // B's prompt: 512-8-len(A) tokens
			nb, _ := m.tokenize(pb)
			if len(na)+len(nb) >= 512-8 {
				if len(na)+len(nb) != 512-8 {
					t.Fatalf("prompts of %d and %d tokens", len(na), len(nb))
				}
				break
			}
			pb = conversation(strings.Repeat("Pears. ", k))
		}
		rs := together(e, []backend.CompleteRequest{
			{Model: "tiny-qwen3-random", Prompt: pa, MaxTokens: 12, Seed: i64(1)},
			{Model: "tiny-qwen3-random", Prompt: pb, MaxTokens: 12, Seed: i64(2)},
		})
		cut, whole := 0, 0
		for _, r := range rs {
			switch {
			case r.err == nil && r.last.FinishReason == chat.FinishLength && r.last.Usage.CompletionTokens == 5 && r.text != "":
				cut++
			case r.err == nil && r.last.Usage.CompletionTokens == 12:
				whole++
			default:
				t.Errorf("%v %+v", r.err, r.last)
			}
		}
		if cut != 1 || whole != 1 {
			t.Errorf("%d cut, %d whole: want one of each", cut, whole)
		}
		checkSlots(t, m)
	})
	// A generating (unread) and holding its cells, B a prompt that fits the
	// context alone but not beside A: B is a 503 saying why, A whole.
	t.Run("prompt", func(t *testing.T) {
		e := batchEngine(t, 512, 4)
		m := e.byID["tiny-qwen3-random"]
		pa, pb := conversation(strings.Repeat("Apples. ", 60)), conversation(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 38))
		na, _ := m.tokenize(pa)
		nb, _ := m.tokenize(pb)
		if len(nb) >= 512 || len(na)+len(nb) < 512 {
			t.Fatalf("prompts of %d and %d tokens: want B alone to fit and not beside A", len(na), len(nb))
		}
		a, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: pa, MaxTokens: 40, Seed: i64(2)})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b := run(e, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: pb, MaxTokens: 8, Seed: i64(3)})
		var be *backend.Error
		if !errors.As(b.err, &be) || be.Status != 503 || !strings.Contains(be.Message, "held by 1 other running requests") {
			t.Errorf("B: %v (%+v), want a 503 naming the request holding the context", b.err, b.last)
		}
		if r := readAll(a); r.err != nil || r.last.Usage.CompletionTokens != 40 {
			t.Errorf("A: %v %+v", r.err, r.last)
		}
		checkSlots(t, m)
	})
}

// A slot a running request owns is not taken by another: with two slots,
// one holding an idle conversation and one a running request (unread), a
// second request with the same prompt gets the idle slot, the prompt's
// prefix copied from the running one's, rather than the running one's slot
// that holds it; both answers are whole.
func TestBatchBusySlotNotTaken(t *testing.T) {
	e := batchEngine(t, 2048, 2)
	m := e.byID["tiny-qwen3-random"]
	if r := run(e, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: conversation("Something else."), MaxTokens: 4, Seed: i64(1)}); r.err != nil {
		t.Fatal(r.err)
	}
	req := backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: conversation(strings.Repeat(weatherText, 10)), MaxTokens: 100, Seed: i64(2)}
	a, err := e.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := readAll(a), readAll(b)
	for i, r := range []result{ra, rb} {
		if r.err != nil || r.last.Usage.CompletionTokens != 100 {
			t.Fatalf("request %d: %v %+v", i, r.err, r.last)
		}
	}
	if n := rb.last.Usage.PromptTokens; rb.last.Timings.CachedTokens != n-1 {
		t.Errorf("the second request kept %d of %d prompt tokens, want all but the last (copied)", rb.last.Timings.CachedTokens, n)
	}
	checkSlots(t, m)
}

// The draws of a step spread over goroutines (sampleAll) give what they
// give one after the other: eight sequences at temperature 1, four of them
// constrained by a grammar, each its own seed, decoded in the same batches
// both times (no prompt reuse), so each sequence's logits are the same and
// only the draws differ: spread, in Go over the rows read first; one after
// the other, llama_sampler_sample for those without a grammar.
func TestBatchSpreadDrawsSameAsSerial(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	defer func(n int) { spreadMin = n }(spreadMin)
	spreadMin = 2
	e := batchEngine(t, 2048, 8)
	m := e.byID["tiny-qwen3-random"]
	m.noReuse = true
	grammars := []string{`root ::= ("ab" | "cd"){1,30} "."`, `root ::= [0-9]{3,40} "-" [a-z]{2,40}`, "", ""}
	var reqs []backend.CompleteRequest
	for i := range 8 {
		reqs = append(reqs, backend.CompleteRequest{Model: m.id, Prompt: weatherPrompt, MaxTokens: 24, Temperature: f64(1), Seed: i64(int64(100 + i)), Grammar: grammars[i%len(grammars)]})
	}
	m.serialDraws.Store(true)
	serial := together(e, reqs)
	m.serialDraws.Store(false)
	before := m.stats.spread.Load()
	spread := together(e, reqs)
	if m.stats.spread.Load() == before {
		t.Fatal("no step spread its draws over goroutines")
	}
	for i := range reqs {
		if serial[i].err != nil || spread[i].err != nil || serial[i].text != spread[i].text {
			t.Errorf("request %d: spread %q (%v), serial %q (%v)", i, spread[i].text, spread[i].err, serial[i].text, serial[i].err)
		}
	}
	if serial[0].text == serial[1].text || serial[2].text == serial[3].text {
		t.Errorf("the seeds gave the same answers (%q, %q): the test needs different ones", serial[0].text, serial[2].text)
	}
}
