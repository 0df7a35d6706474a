package llamacpp

import (
	"context"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// An idle model's context is freed (the idle time stood in for by the
// test's hook, not waited for) and made again by the next request, which
// answers as before from an empty cache.
func TestIdleRelease(t *testing.T) {
	e, err := New(Options{LibDir: libDir(t), Models: []string{modelPath(t, "tiny-qwen3-random.gguf")}, ContextSize: 512, Threads: 1,
		IdleRelease: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	m := e.byID["tiny-qwen3-random"]
	req := backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: weatherPrompt, MaxTokens: 8, Temperature: f64(0)}
	answer := func() (string, int) {
		s, err := e.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		text, last := collect(t, s)
		return text, last.Timings.CachedTokens
	}
	first, _ := answer()
	if _, cached := answer(); cached == 0 {
		t.Fatal("the second request kept nothing: the test's premise fails")
	}
	if !e.Resident(req.Model) {
		t.Fatal("not resident after a request")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, not a measure
	defer cancel()
	done := make(chan struct{})
	select {
	case m.idleNow <- done:
	case <-ctx.Done():
		t.Fatal("the scheduler never went idle")
	}
	<-done
	if e.Resident(req.Model) || m.releases.Load() != 1 {
		t.Errorf("after the idle release: resident %v, %d releases", e.Resident(req.Model), m.releases.Load())
	}
	// Its status: loaded, without its KV cache, holding the weights only.
	if st := e.ModelStatus()[0]; !st.Loaded || st.KVResident || st.Size != m.fileSize {
		t.Errorf("status after the idle release: %+v (file %d bytes)", st, m.fileSize)
	}
	// Every slot forgot its tokens with the context (held: nothing runs).
	if err := m.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	for _, sl := range m.slots {
		if len(sl.cached) != 0 {
			t.Errorf("slot %d still records %d tokens", sl.seq, len(sl.cached))
		}
	}
	m.release()
	again, cached := answer()
	if again != first || cached != 0 {
		t.Errorf("after the release: %q with %d cached; before: %q", again, cached, first)
	}
	if !e.Resident(req.Model) {
		t.Error("not resident after the next request")
	}
}
