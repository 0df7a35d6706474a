package llamacpp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/template"
)

// Tests of the context's and threads' sizing (size.go), the engine's
// llama.cpp options, the default seed and the slot reported.

// A token's KV cache from the header: the tiny models (2 layers, 4 KV
// heads of 16) take 2·4·(16+16) elements, 512 bytes in f16 and 272 in
// q8_0; per-layer KV heads and explicit key and value sizes are read as
// such.
func TestKVBytesPerToken(t *testing.T) {
	g, err := template.ReadGGUFFile(modelPath(t, "tiny-qwen3-random.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string]int64{"f16": 512, "q8_0": 272} {
		if got, err := kvBytesPerToken(g, typ); err != nil || got != want {
			t.Errorf("%s: %d, %v; want %d", typ, got, err, want)
		}
	}
	if _, err := kvBytesPerToken(g, "q4_1"); err == nil {
		t.Error("q4_1 accepted")
	}
	// Qwen3-8B's shape, with one layer's KV heads different (an array).
	h := &template.GGUF{Values: map[string]any{"general.architecture": "qwen3", "qwen3.block_count": uint32(3),
		"qwen3.attention.head_count": uint32(32), "qwen3.attention.head_count_kv": []int32{8, 8, 4},
		"qwen3.embedding_length": uint32(4096), "qwen3.attention.key_length": uint32(128), "qwen3.attention.value_length": uint32(64)}}
	if got, err := kvBytesPerToken(h, "f16"); err != nil || got != (8+8+4)*(128+64)*2 {
		t.Errorf("per-layer heads: %d, %v; want %d", got, err, (8+8+4)*(128+64)*2)
	}
	// Without key and value sizes they are the embedding over the heads.
	delete(h.Values, "qwen3.attention.key_length")
	delete(h.Values, "qwen3.attention.value_length")
	if got, err := kvBytesPerToken(h, "f16"); err != nil || got != (8+8+4)*(128+128)*2 {
		t.Errorf("head size from the embedding: %d, %v", got, err)
	}
	if _, err := kvBytesPerToken(&template.GGUF{Values: map[string]any{"general.architecture": "x"}}, "f16"); err == nil {
		t.Error("a header without layers sized")
	}
}

// The rule: the trained context where its KV cache fits the budget, else
// what the budget holds, in multiples of 256.
func TestAutoContext(t *testing.T) {
	for _, c := range []struct {
		train           int
		perToken, bytes int64
		want            int
		why             string
	}{
		{40960, 147456, 8 << 30, 40960, "trained context"},
		{40960, 147456, 4 << 30, 28928, "budget of 4.0 GiB holds 29127 tokens"},
		{2048, 512, 512 * 700, 512, "trained for"},
		{2048, 512, 100, 256, "holds 0 tokens"},
	} {
		n, why := autoContext(c.train, c.perToken, c.bytes)
		if n != c.want || !strings.Contains(why, c.why) {
			t.Errorf("%+v: %d (%s)", c, n, why)
		}
	}
}

// The engine sizes the context so: the tiny model's 2048 where the budget
// holds it, 512 tokens under a budget of 700 tokens' KV cache, and says
// why; the batch sizes reach llama.cpp (llama_n_batch and llama_n_ubatch
// say what it made).
func TestContextSizedToBudget(t *testing.T) {
	random := modelPath(t, "tiny-qwen3-random.gguf")
	for _, c := range []struct {
		opts Options
		ctx  int
		why  string
	}{
		{Options{}, 2048, "the model's trained context"},
		{Options{KVBudget: 512 * 700}, 512, "budget of 350.0 KiB holds 700 tokens"},
		{Options{ContextSize: 1024}, 1024, "-ctx"},
		{Options{ContextSize: 1024, Batch: 256, Ubatch: 128, FlashAttention: "on"}, 1024, "-ctx"},
	} {
		o := c.opts
		o.LibDir, o.Models, o.Threads = libDir(t), []string{random}, 1
		e, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		z := e.Sizings()[0]
		if z.Context != c.ctx || !strings.Contains(z.ContextWhy, c.why) {
			t.Errorf("%+v: context %d (%s), want %d (%s)", c.opts, z.Context, z.ContextWhy, c.ctx, c.why)
		}
		wantBatch, wantUbatch := min(2048, c.ctx), 512
		if o.Batch > 0 {
			wantBatch, wantUbatch = o.Batch, o.Ubatch
		}
		m := e.byID["tiny-qwen3-random"]
		if z.Batch != wantBatch || z.Ubatch != wantUbatch || m.nBatch != wantBatch || m.nUbatch != wantUbatch {
			t.Errorf("%+v: n_batch %d, n_ubatch %d; want %d and %d", c.opts, m.nBatch, m.nUbatch, wantBatch, wantUbatch)
		}
		// It answers with these parameters (flash attention too).
		s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: weatherPrompt, MaxTokens: 4, Temperature: f64(0)})
		if err != nil {
			t.Fatal(err)
		}
		if _, last := collect(t, s); last.Usage == nil || last.Usage.CompletionTokens == 0 {
			t.Errorf("%+v: no answer", c.opts)
		}
		e.Close()
	}
	// The cache type reaches llama.cpp: q8_0's blocks of 32 do not divide
	// the tiny model's heads of 16, and llama.cpp says so, when the model
	// loads: at start with Preload, else to the first request (a 500 the
	// gateway passes on in the client's dialect).
	_, err := New(Options{LibDir: libDir(t), Models: []string{random}, CacheType: "q8_0", Preload: true})
	if err == nil || !strings.Contains(err.Error(), "cache type q8_0") {
		t.Errorf("q8_0 on heads of 16, preloaded: %v", err)
	}
	e, err := New(Options{LibDir: libDir(t), Models: []string{random}, CacheType: "q8_0"})
	if err != nil {
		t.Fatalf("q8_0 on heads of 16, loaded on first use: New failed before any load: %v", err)
	}
	_, err = e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: weatherPrompt, MaxTokens: 4})
	var be *backend.Error
	if !errors.As(err, &be) || be.Status != 500 || !strings.Contains(be.Message, "cache type q8_0") {
		t.Errorf("q8_0 on heads of 16, the first request: %v", err)
	}
	e.Close()
	// A quantized V cache without flash attention is refused before
	// llama.cpp is asked; an unknown cache type or flash attention too.
	for _, c := range []struct {
		o    Options
		want string
	}{{Options{CacheType: "q8_0", FlashAttention: "off"}, "needs flash attention"},
		{Options{CacheType: "q5"}, `KV cache type "q5"`}, {Options{FlashAttention: "yes"}, `flash attention "yes"`}} {
		o := c.o
		o.LibDir, o.Threads, o.Models = libDir(t), 1, []string{random}
		if e, err := New(o); err == nil || !strings.Contains(err.Error(), c.want) {
			if e != nil {
				e.Close()
			}
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// A max_tokens beyond what the context leaves after the prompt (agents ask
// for 32,000 on every turn) is answered, cut where the context ends and
// reported as cut by the limit; a prompt that fills the context is a 400.
func TestPromptPlusMaxTokens(t *testing.T) {
	e, m := slotEngine(t, 256, 1)
	prompt := conversation(strings.Repeat("weather ", 40))
	n, err := m.tokenize(prompt)
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: prompt, MaxTokens: 250})
	if err != nil {
		t.Fatal(err)
	}
	_, last := collect(t, s)
	if last.FinishReason != chat.FinishLength || last.Usage == nil || last.Usage.CompletionTokens > 256-len(n) || last.Usage.CompletionTokens < 256-len(n)-1 {
		t.Errorf("finish %q, usage %+v: want the answer cut at the context's end (%d tokens of room)", last.FinishReason, last.Usage, 256-len(n))
	}
	_, err = e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: conversation(strings.Repeat("weather ", 300)), MaxTokens: 8})
	var be *backend.Error
	if !errors.As(err, &be) || be.Status != 400 || !strings.Contains(be.Message, "context holds 256") {
		t.Fatalf("a prompt past the context: %v", err)
	}
}

// Requests that set no seed draw with the engine's seed when one is set:
// the same prompt twice gives the same answer, the one a request with that
// seed gets from an engine without it.
func TestDefaultSeed(t *testing.T) {
	random := modelPath(t, "tiny-qwen3-random.gguf")
	answer := func(e *Engine, seed *int64) string {
		s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: weatherPrompt, MaxTokens: 24,
			Temperature: f64(1.5), TopK: intp(0), TopP: f64(1), MinP: f64(0), Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		text, _ := collect(t, s)
		return text
	}
	// No prompt reuse: a reused prefix may change a draw's last bits.
	e, err := New(Options{LibDir: libDir(t), Models: []string{random}, ContextSize: 512, Threads: 1, NoPromptReuse: true, Seed: i64(7)})
	if err != nil {
		t.Fatal(err)
	}
	a, b := answer(e, nil), answer(e, nil)
	e.Close()
	if a != b {
		t.Errorf("the engine's seed: %q, then %q", a, b)
	}
	e, err = New(Options{LibDir: libDir(t), Models: []string{random}, ContextSize: 512, Threads: 1, NoPromptReuse: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if c := answer(e, i64(7)); c != a {
		t.Errorf("seed 7 in the request: %q; the engine's seed 7: %q", c, a)
	}
}

func intp(v int) *int { return &v }

// The last chunk names the slot that served the request: two
// conversations take two slots, and each one's next turn comes back to its
// own, its prefix cached.
func TestSlotReported(t *testing.T) {
	e, _ := slotEngine(t, 2048, 4)
	slotOf := func(prompt string) (int, int, string) {
		s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: prompt, MaxTokens: 2, Temperature: f64(0)})
		if err != nil {
			t.Fatal(err)
		}
		text, last := collect(t, s)
		if last.Timings == nil || last.Timings.Slot == nil {
			t.Fatalf("no slot in %+v", last.Timings)
		}
		return *last.Timings.Slot, last.Timings.CachedTokens, text
	}
	a := strings.Repeat("Paris and Lyon. ", 10)
	b := strings.Repeat("Rome and Milan. ", 10)
	sa, _, ta := slotOf(conversation(a))
	sb, _, tb := slotOf(conversation(b))
	if sa == sb {
		t.Errorf("two conversations in slot %d", sa)
	}
	for _, c := range []struct {
		prompt string
		want   int
	}{{conversation(b, tb, "more"), sb}, {conversation(a, ta, "more"), sa}} {
		if got, cached, _ := slotOf(c.prompt); got != c.want || cached == 0 {
			t.Errorf("next turn in slot %d with %d cached, want slot %d", got, cached, c.want)
		}
	}
}

// Physical cores: distinct (package, core) pairs of the online CPUs; a
// topology that cannot be read is 0 (the caller falls back).
func TestPhysicalCores(t *testing.T) {
	dir := t.TempDir()
	cpu := func(n, pkg, core string, online string) {
		d := filepath.Join(dir, "cpu"+n)
		must(t, os.MkdirAll(filepath.Join(d, "topology"), 0o755))
		must(t, os.WriteFile(filepath.Join(d, "topology", "physical_package_id"), []byte(pkg+"\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(d, "topology", "core_id"), []byte(core+"\n"), 0o644))
		if online != "" {
			must(t, os.WriteFile(filepath.Join(d, "online"), []byte(online+"\n"), 0o644))
		}
	}
	cpu("0", "0", "0", "")
	cpu("1", "0", "1", "1")
	cpu("2", "0", "0", "1") // cpu0's hyper-thread
	cpu("3", "1", "0", "1") // another package's core 0
	cpu("4", "1", "1", "0") // offline
	must(t, os.MkdirAll(filepath.Join(dir, "cpufreq"), 0o755))
	if n := physicalCores(dir); n != 3 {
		t.Errorf("%d cores, want 3", n)
	}
	must(t, os.MkdirAll(filepath.Join(dir, "cpu5"), 0o755)) // no topology
	if n := physicalCores(dir); n != 0 {
		t.Errorf("unreadable topology: %d cores, want 0", n)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"8GiB": 8 << 30, "512 MiB": 512 << 20, "1.5G": 3 << 29, "4096": 4096, "2KB": 2000} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1GiB"} {
		if _, err := ParseBytes(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
