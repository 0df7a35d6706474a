package llamacpp

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// events collects a lifecycle's LoadEvents on a channel (OnLoad must not
// block: the channel is large).
type events chan LoadEvent

func (ev events) hook(e LoadEvent) { ev <- e }

// next waits for the next event of kind k, skipping others; a guard, not a
// measure.
func (ev events) next(t *testing.T, k LoadEventKind) LoadEvent {
	t.Helper()
	guard := time.After(time.Minute)
	for {
		select {
		case e := <-ev:
			if e.Kind == k {
				return e
			}
		case <-guard:
			t.Fatalf("no event %d within a minute", k)
		}
	}
}

func greedy(model string) backend.CompleteRequest {
	return backend.CompleteRequest{Model: model, Prompt: weatherPrompt, MaxTokens: 8, Temperature: f64(0)}
}

func answerOf(t *testing.T, e *Engine, req backend.CompleteRequest) string {
	t.Helper()
	s, err := e.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := collect(t, s)
	return text
}

func statusOf(t *testing.T, e *Engine, id string) backend.ModelStatus {
	t.Helper()
	for _, st := range e.ModelStatus() {
		if st.ID == id {
			return st
		}
	}
	t.Fatalf("no status for %s", id)
	return backend.ModelStatus{}
}

// New reads the models without their weights: everything the gateway asks
// before a request is known, nothing is loaded; concurrent first requests
// load the model once, and all of them are answered.
func TestLoadOnFirstUse(t *testing.T) {
	ev := make(events, 1024)
	release := make(chan struct{})
	var once sync.Once
	hook := func(e LoadEvent) {
		ev.hook(e)
		if e.Kind == LoadStart {
			once.Do(func() { <-release }) // the first load waits for the test
		}
	}
	e, err := New(Options{LibDir: libDir(t), Models: []string{modelPath(t, "tiny-qwen3-toolcall.gguf"), modelPath(t, "tiny-qwen3-random.gguf")},
		ContextSize: 512, Threads: 1, OnLoad: hook})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	info, err := e.ModelInfo(context.Background(), "tiny-qwen3-toolcall")
	if err != nil || info.BOSToken != "<|endoftext|>" || info.EOSToken != "<|im_end|>" || info.ContextLength != 512 || !strings.Contains(info.Template, "<tool_call>") {
		t.Fatalf("before any load: %+v, %v", info, err)
	}
	for _, m := range e.models {
		if m.m != 0 || m.lctx != 0 || m.loads.Load() != 0 {
			t.Fatalf("%s is loaded before its first request", m.id)
		}
		if st := statusOf(t, e, m.id); st.Loaded || st.Loading || st.KVResident || st.Size <= m.fileSize || st.ContextLength != 512 || st.Slots != DefaultSlots || !st.ExpiresAt.IsZero() {
			t.Errorf("%s's status before any load: %+v", m.id, st)
		}
	}
	m := e.byID["tiny-qwen3-toolcall"]
	const n = 4
	queued := make(chan struct{}, n)
	m.queued.Store(&queued)
	type result struct {
		text string
		err  error
	}
	results := make(chan result, n)
	for range n {
		go func() {
			s, err := e.Complete(context.Background(), greedy(m.id))
			if err != nil {
				results <- result{err: err}
				return
			}
			text, _ := collect(t, s)
			results <- result{text: text}
		}()
	}
	// All four wait: the first loading (held in its LoadStart), the rest
	// behind it.
	ev.next(t, LoadStart)
	for range n {
		<-queued
	}
	if st := statusOf(t, e, m.id); !st.Loading || st.Loaded {
		t.Errorf("status while loading: %+v", st)
	}
	close(release)
	for range n {
		r := <-results
		if r.err != nil || r.text != weatherCall[:len(r.text)] || r.text == "" {
			t.Errorf("a first request: %q, %v", r.text, r.err)
		}
	}
	if got := m.loads.Load(); got != 1 {
		t.Errorf("%d concurrent first requests made %d loads, want 1", n, got)
	}
	if o := e.byID["tiny-qwen3-random"]; o.m != 0 || o.loads.Load() != 0 {
		t.Error("the other model was loaded by requests that did not ask for it")
	}
	st := statusOf(t, e, m.id)
	if !st.Loaded || st.Loading || !st.KVResident || st.Size != m.fileSize+512*m.sizing.KVPerToken+m.buffers.Load() || st.Running != 0 || !st.ExpiresAt.IsZero() {
		t.Errorf("status once loaded (no keep-alive): %+v; file %d, KV %d a token", st, m.fileSize, m.sizing.KVPerToken)
	}
}

// The load is reported: its start, llama.cpp's progress up to 1, its end
// with the time it took and the memory it holds.
func TestLoadProgress(t *testing.T) {
	ev := make(events, 4096)
	e, err := New(Options{LibDir: libDir(t), Models: []string{modelPath(t, "tiny-qwen3-random.gguf")}, ContextSize: 256, Threads: 1, OnLoad: ev.hook})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	answerOf(t, e, greedy("tiny-qwen3-random"))
	m := e.byID["tiny-qwen3-random"]
	start := ev.next(t, LoadStart)
	if start.Model != "tiny-qwen3-random" || start.Size != m.fileSize+m.kvHeld()+m.bufferEstimate() {
		t.Errorf("start %+v: want the size with the buffers' estimate", start)
	}
	var progress []float64
	var done LoadEvent
	for done.Kind != Loaded {
		select {
		case x := <-ev:
			switch x.Kind {
			case LoadProgress:
				progress = append(progress, x.Progress)
			case Loaded, LoadFailed:
				done = x
				if x.Kind == LoadFailed {
					t.Fatal(x.Err)
				}
			}
		default:
			t.Fatal("the load ended without a Loaded event")
		}
	}
	if len(progress) == 0 || progress[len(progress)-1] != 1 {
		t.Fatalf("progress %v: want steps ending at 1", progress)
	}
	for i := 1; i < len(progress); i++ {
		if progress[i] < progress[i-1] {
			t.Errorf("progress went back: %v", progress)
		}
	}
	if done.Took <= 0 || done.Size != m.fileSize+m.kvHeld()+m.buffers.Load() || m.buffers.Load() == 0 {
		t.Errorf("loaded %+v after start %+v: want the size with the buffers measured", done, start)
	}
}

// After the keep-alive without a request, a model unloads itself (the real
// timer: a millisecond, waited for by its event, not by a sleep); expires_at
// says when; the next request loads it again and answers as before.
func TestKeepAlive(t *testing.T) {
	ev := make(events, 4096)
	e, err := New(Options{LibDir: libDir(t), Models: []string{modelPath(t, "tiny-qwen3-random.gguf")}, ContextSize: 256, Threads: 1,
		KeepAlive: time.Hour, OnLoad: ev.hook})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	m := e.byID["tiny-qwen3-random"]
	first := answerOf(t, e, greedy(m.id))
	// The expiry counts from the end of the last request (this second one,
	// not the load).
	before := time.Now()
	answerOf(t, e, greedy(m.id))
	// The engine's bookkeeping of the request may still be running when its
	// stream has ended (Running 1): its expiry is then counted from the
	// status read, so the window closes after it.
	st := statusOf(t, e, m.id)
	after := time.Now()
	if !st.Loaded || st.ExpiresAt.Before(before.Add(time.Hour)) || st.ExpiresAt.After(after.Add(time.Hour)) {
		t.Errorf("status after a request with an hour's keep-alive: %+v (request between %v and %v)", st, before, after)
	}
	// The test's hook stands in for the hour.
	done := make(chan struct{})
	m.unloadNow <- done
	<-done
	if u := ev.next(t, Unloaded); !strings.Contains(u.Why, "asked") {
		t.Errorf("unloaded: %+v", u)
	}
	if st := statusOf(t, e, m.id); st.Loaded || st.KVResident || !st.ExpiresAt.IsZero() || used(e) != 0 {
		t.Errorf("after the unload: %+v, pool %d bytes", st, used(e))
	}
	if again := answerOf(t, e, greedy(m.id)); again != first || m.loads.Load() != 2 {
		t.Errorf("after the unload: %q (%d loads), before %q", again, m.loads.Load(), first)
	}
}

// The keep-alive's own timer: a millisecond's unloads the model after its
// request (waited for by its event, not by a sleep).
func TestKeepAliveTimer(t *testing.T) {
	ev := make(events, 4096)
	e, err := New(Options{LibDir: libDir(t), Models: []string{modelPath(t, "tiny-qwen3-random.gguf")}, ContextSize: 256, Threads: 1,
		KeepAlive: time.Millisecond, OnLoad: ev.hook})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	m := e.byID["tiny-qwen3-random"]
	answerOf(t, e, greedy(m.id))
	if u := ev.next(t, Unloaded); !strings.Contains(u.Why, "without a request") {
		t.Errorf("unloaded by the keep-alive: %+v", u)
	}
	if m.unloads.Load() != 1 || e.Resident(m.id) || statusOf(t, e, m.id).Loaded {
		t.Errorf("%d unloads, resident %v", m.unloads.Load(), e.Resident(m.id))
	}
}

// used is what the pool counts as held.
func used(e *Engine) int64 {
	e.pool.mu.Lock()
	defer e.pool.mu.Unlock()
	return e.pool.used
}

// copyModel copies the tiny model under another name, a third model for
// the LRU test.
func copyModel(t *testing.T, from, name string) string {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name+".gguf")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Under a memory budget of two models, loading a third unloads the least
// recently used idle one; a model running a request is never unloaded: the
// load waits for it to end.
func TestMemoryBudget(t *testing.T) {
	random := modelPath(t, "tiny-qwen3-random.gguf")
	ev := make(events, 8192)
	// a and b run the random model, whose greedy answer to the prompt is
	// 200 tokens long: a request whose reader reads nothing stays running
	// (its stream holds 15 chunks).
	e, err := New(Options{LibDir: libDir(t), Models: []string{random, copyModel(t, random, "second"), modelPath(t, "tiny-qwen3-toolcall.gguf")},
		ContextSize: 256, Threads: 1, Slots: 1, OnLoad: ev.hook})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a, b, c := e.models[0], e.models[1], e.models[2]
	need := statusOf(t, e, a.id).Size
	e.pool.mu.Lock()
	e.pool.budget = 2*need + need/2 // two fit, three do not
	e.pool.mu.Unlock()
	loaded := func() (ids []string) {
		for _, st := range e.ModelStatus() {
			if st.Loaded {
				ids = append(ids, st.ID)
			}
		}
		return ids
	}
	answerOf(t, e, greedy(a.id))
	answerOf(t, e, greedy(b.id))
	answerOf(t, e, greedy(a.id)) // a is now the more recently used
	if got := loaded(); len(got) != 2 {
		t.Fatalf("loaded %v, want a and b", got)
	}
	answerOf(t, e, greedy(c.id))
	u := ev.next(t, Unloaded)
	if u.Model != b.id || !strings.Contains(u.Why, "to make room for "+c.id) {
		t.Errorf("loading the third unloaded %s (%s), want the least recently used, %s", u.Model, u.Why, b.id)
	}
	if got := loaded(); strings.Join(got, ",") != a.id+","+c.id || used(e) > 2*need+need/2 {
		t.Errorf("loaded %v using %d of %d bytes", got, used(e), 2*need+need/2)
	}

	// Now a (least recently used) runs a request that its reader does not
	// read, and c runs nothing: loading b unloads c, not a.
	busy, err := e.Complete(context.Background(), backend.CompleteRequest{Model: a.id, Prompt: weatherPrompt, MaxTokens: 200, Temperature: f64(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close() // before e.Close, which waits for running requests, should the test fail first
	answerOf(t, e, greedy(b.id))
	if u := ev.next(t, Unloaded); u.Model != c.id {
		t.Errorf("with a busy, loading b unloaded %s, want %s", u.Model, c.id)
	}
	// Both loaded models busy (a unread, b unread): c's load waits, and
	// unloads neither under its request.
	busyB, err := e.Complete(context.Background(), backend.CompleteRequest{Model: b.id, Prompt: weatherPrompt, MaxTokens: 200, Temperature: f64(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer busyB.Close()
	waiting := make(chan *model, 16)
	e.pool.waiting.Store(&waiting)
	got := make(chan string, 1)
	go func() {
		s, err := e.Complete(context.Background(), greedy(c.id))
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		text, _ := collect(t, s)
		got <- text
	}()
	select {
	case w := <-waiting:
		if w != c {
			t.Fatalf("%s waited, want %s", w.id, c.id)
		}
	case text := <-got:
		t.Fatalf("c was answered (%q) while a and b ran requests: one of them was unloaded under its request", text)
	case <-time.After(time.Minute): // a guard, not a measure
		t.Fatal("c's load neither waited nor ended within a minute")
	}
	if ids := loaded(); strings.Join(ids, ",") != a.id+","+b.id || a.unloads.Load() != 0 || b.unloads.Load() != 1 {
		t.Fatalf("while c waits: loaded %v", ids)
	}
	busy.Close() // a ends its request: c may take its place
	if text := <-got; strings.HasPrefix(text, "error") {
		t.Fatal(text)
	}
	if u := ev.next(t, Unloaded); u.Model != a.id {
		t.Errorf("c's load unloaded %s once a was idle, want %s", u.Model, a.id)
	}
	// b kept its request all along: it still reads on.
	if _, err := busyB.Next(); err != nil && !errors.Is(err, io.EOF) {
		t.Errorf("b's request after c's load: %v", err)
	}
	busyB.Close()
}

// A model alone is loaded whatever the budget: the budget bounds models
// together, it does not refuse the only one.
func TestMemoryBudgetSmallerThanOneModel(t *testing.T) {
	e, err := New(Options{LibDir: libDir(t), Models: []string{modelPath(t, "tiny-qwen3-random.gguf")}, ContextSize: 256, Threads: 1, MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if answerOf(t, e, greedy("tiny-qwen3-random")) == "" {
		t.Error("no answer")
	}
}

// Preload loads every model in New, as before; models that do not fit the
// budget together are refused at start.
func TestPreload(t *testing.T) {
	paths := []string{modelPath(t, "tiny-qwen3-toolcall.gguf"), modelPath(t, "tiny-qwen3-random.gguf")}
	e, err := New(Options{LibDir: libDir(t), Models: paths, ContextSize: 256, Threads: 1, Preload: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range e.ModelStatus() {
		if !st.Loaded || !st.KVResident {
			t.Errorf("preloaded: %+v", st)
		}
	}
	e.Close()
	_, err = New(Options{LibDir: libDir(t), Models: paths, ContextSize: 256, Threads: 1, Preload: true, MemoryBudget: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "more than the memory budget") {
		t.Errorf("preloading over the budget: %v", err)
	}
}

func dur(d time.Duration) *time.Duration { return &d }

// A request's keep-alive (Ollama's keep_alive) overrides the model's for
// the idle time after it, and the last request admitted decides: 0 unloads
// the model once it is idle, an hour sets expires_at an hour after the
// request, none goes back to the model's (here: never), a negative value
// keeps it for ever.
func TestRequestKeepAlive(t *testing.T) {
	ev := make(events, 4096)
	e, err := New(Options{LibDir: libDir(t), Models: []string{modelPath(t, "tiny-qwen3-random.gguf")}, ContextSize: 256, Threads: 1, OnLoad: ev.hook})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	m := e.byID["tiny-qwen3-random"]
	withKeep := func(d *time.Duration) backend.CompleteRequest {
		r := greedy(m.id)
		r.KeepAlive = d
		return r
	}
	first := answerOf(t, e, withKeep(dur(0)))
	if u := ev.next(t, Unloaded); !strings.Contains(u.Why, "keep_alive 0") {
		t.Errorf("unloaded: %+v", u)
	}
	if st := statusOf(t, e, m.id); st.Loaded || m.unloads.Load() != 1 {
		t.Errorf("after keep_alive 0: %+v, %d unloads", st, m.unloads.Load())
	}

	before := time.Now()
	if again := answerOf(t, e, withKeep(dur(time.Hour))); again != first {
		t.Errorf("loaded again: %q, before %q", again, first)
	}
	st := statusOf(t, e, m.id)
	if !st.Loaded || st.ExpiresAt.Before(before.Add(time.Hour)) || st.ExpiresAt.After(time.Now().Add(time.Hour)) {
		t.Errorf("after keep_alive 1h: %+v", st)
	}
	for _, keep := range []*time.Duration{nil, dur(-1)} {
		answerOf(t, e, withKeep(keep))
		if st := statusOf(t, e, m.id); !st.Loaded || !st.ExpiresAt.IsZero() {
			t.Errorf("after keep_alive %v: %+v, want loaded for ever", keep, st)
		}
	}
	if m.unloads.Load() != 1 {
		t.Errorf("%d unloads, want the one", m.unloads.Load())
	}
}

// Unload frees an idle model at once; a busy one once its request ends,
// never under it; Load loads it again without a request, with the
// keep-alive it is given.
func TestUnloadAndLoad(t *testing.T) {
	ev := make(events, 4096)
	e, err := New(Options{LibDir: libDir(t), Models: []string{modelPath(t, "tiny-qwen3-random.gguf")}, ContextSize: 512, Threads: 1, OnLoad: ev.hook})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	m := e.byID["tiny-qwen3-random"]
	if err := e.Unload(context.Background(), m.id); err != nil || m.unloads.Load() != 0 {
		t.Fatalf("unloading a model never loaded: %v, %d unloads", err, m.unloads.Load())
	}
	answerOf(t, e, greedy(m.id))
	if err := e.Unload(context.Background(), m.id); err != nil {
		t.Fatal(err)
	}
	if u := ev.next(t, Unloaded); !strings.Contains(u.Why, "unload") {
		t.Errorf("unloaded: %+v", u)
	}

	// Busy: a long answer whose stream is not read holds its sequence.
	long := greedy(m.id)
	long.MaxTokens = 200
	s, err := e.Complete(context.Background(), long)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if err := e.Unload(context.Background(), m.id); err != nil {
		t.Fatal(err)
	}
	asleep := make(chan struct{}, 1)
	m.asleep.Store(&asleep)
	m.wake()
	<-asleep // the scheduler has looked at the unload with the request running
	m.asleep.Store(nil)
	if st := statusOf(t, e, m.id); !st.Loaded || m.unloads.Load() != 1 {
		t.Errorf("unloaded under a running request: %+v, %d unloads", st, m.unloads.Load())
	}
	s.Close()
	if u := ev.next(t, Unloaded); !strings.Contains(u.Why, "unload") || m.unloads.Load() != 2 {
		t.Errorf("after the request: %+v, %d unloads", u, m.unloads.Load())
	}

	if err := e.Load(context.Background(), m.id, dur(time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if m.loads.Load() != 3 {
		t.Errorf("%d loads, want 3", m.loads.Load())
	}
	if u := ev.next(t, Unloaded); !strings.Contains(u.Why, "1ms") {
		t.Errorf("unloaded after Load's keep-alive: %+v", u)
	}
	if err := e.Load(context.Background(), "nope", nil); err == nil {
		t.Error("loading a model not served: no error")
	}
}
