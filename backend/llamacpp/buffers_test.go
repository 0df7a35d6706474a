package llamacpp

import (
	"strings"
	"testing"
)

// The buffer lines of llama.cpp v0.5.0's INFO log, and the lines beside
// them that are not buffers of a context (the KV cache is size.go's).
func TestBufferLineBytes(t *testing.T) {
	for _, c := range []struct {
		line string
		want int64
		ok   bool
	}{
		{"llama_context:        CPU compute buffer size =   297.00 MiB\n", 297 << 20, true},
		{"llama_context:  CPU  output buffer size =     2.32 MiB\n", 2432696, true},
		{"llama_context: CUDA0 compute buffer size = 1.50 GiB\n", 3 << 29, true},
		{"llama_context: CPU compute buffer size = 512.00 KiB\n", 512 << 10, true},
		{"llama_kv_cache:        CPU KV buffer size =     1.00 MiB\n", 0, false},
		{"llama_context: n_ctx = 256\n", 0, false},
		{"llama_context: CPU compute buffer size = lots MiB\n", 0, false},
		{"llama_context: CPU compute buffer size = 3.00 parsecs\n", 0, false},
		{"llama_context: CPU compute buffer size =\n", 0, false},
	} {
		got, ok := bufferLineBytes(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %d, %v; want %d, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// A context's compute and output buffers are counted with the weights and
// the KV cache: estimated before the first load, measured from llama.cpp's
// log once the context is made, the account settled to the measure. Under
// a budget that the two models' weights and KV caches fit together but not
// with their buffers, loading the second unloads the first.
func TestContextBuffersCounted(t *testing.T) {
	random := modelPath(t, "tiny-qwen3-random.gguf")
	e, err := New(Options{LibDir: libDir(t), Models: []string{random, copyModel(t, random, "second")}, ContextSize: 256, Threads: 1, Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a, b := e.models[0], e.models[1]
	estimate := a.bufferEstimate()
	if st := statusOf(t, e, a.id); st.Size != a.fileSize+a.kvHeld()+estimate {
		t.Errorf("before the load, status size %d; want file %d + KV %d + buffers' estimate %d", st.Size, a.fileSize, a.kvHeld(), estimate)
	}
	withoutBuffers := a.fileSize + a.kvHeld()
	e.pool.mu.Lock()
	e.pool.budget = 2*withoutBuffers + estimate // both fit without their buffers, not with them
	e.pool.mu.Unlock()

	answerOf(t, e, greedy(a.id))
	measured := a.buffers.Load()
	// The bulk of the compute buffer is a micro-batch's logits, which the
	// estimate counts: the measure is near it.
	if measured < estimate*9/10 || measured > estimate*11/10 {
		t.Fatalf("buffers measured as %d, estimated %d", measured, estimate)
	}
	if st, want := statusOf(t, e, a.id), withoutBuffers+measured; st.Size != want || used(e) != want {
		t.Errorf("loaded: status size %d, pool %d; want file + KV + measured buffers = %d", st.Size, used(e), want)
	}

	answerOf(t, e, greedy(b.id))
	if st := statusOf(t, e, a.id); st.Loaded {
		t.Errorf("%s still loaded beside %s: the pool holds %d of a budget of %d", a.id, b.id, used(e), e.pool.budget)
	}
	if want := b.fileSize + b.kvHeld() + b.buffers.Load(); used(e) != want || !strings.Contains(b.id, "second") {
		t.Errorf("after the second load the pool holds %d; want %d", used(e), want)
	}
}
