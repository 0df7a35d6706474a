package llamacpp

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// Benchmarks of the embedded engine on the tiny models (one thread; see
// scripts/perf-embedded.sh and docs/PERFORMANCE.md). Each reports the time
// to the first text chunk (prompt tokenized and decoded, first token
// sampled) and the generation rate after it. Every request starts from an
// empty KV cache, as a new prompt does (BenchmarkResend measures a prompt
// the cache holds most of).
func benchComplete(b *testing.B, req backend.CompleteRequest) {
	e := tiny(b)
	m := e.byID[req.Model]
	m.noReuse = true
	defer func() { m.noReuse = false }()
	var ttft, gen time.Duration
	tokens, checked, refused := 0, 0, 0
	for b.Loop() {
		start := time.Now()
		s, err := e.Complete(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		first := time.Time{}
		for {
			c, err := s.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if first.IsZero() && c.Text != "" {
				first = time.Now()
			}
			if c.Usage != nil {
				tokens += c.Usage.CompletionTokens - 1
			}
		}
		s.Close()
		checked, refused = checked+s.(*stream).checked, refused+s.(*stream).refused
		ttft += first.Sub(start)
		gen += time.Since(first)
	}
	b.ReportMetric(float64(ttft.Microseconds())/1000/float64(b.N), "ttft-ms")
	b.ReportMetric(float64(tokens)/gen.Seconds(), "tokens/s")
	if checked > 0 {
		// The share of tokens the grammar refused at the check, which
		// were drawn again from the candidates the grammar allows.
		b.ReportMetric(100*float64(refused)/float64(checked), "refused-%")
	}
}

// grammarWays runs bench twice: the grammar checked on the chain's token
// (the engine's way) and applied to the whole vocabulary first (its first
// way, for comparison).
func grammarWays(b *testing.B, bench func(b *testing.B)) {
	for _, w := range []struct {
		name  string
		first bool
	}{{"check", false}, {"all-first", true}} {
		b.Run(w.name, func(b *testing.B) {
			grammarFirst = w.first
			defer func() { grammarFirst = false }()
			bench(b)
		})
	}
}

// The scripted call: 15 prompt tokens, 16 generated, greedy.
func BenchmarkToolCall(b *testing.B) {
	benchComplete(b, backend.CompleteRequest{Model: "tiny-qwen3-toolcall", Prompt: weatherPrompt, MaxTokens: 64, Temperature: f64(0)})
}

// Free text: 128 tokens with the default sampler chain.
func BenchmarkFreeText(b *testing.B) {
	benchComplete(b, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: weatherPrompt, MaxTokens: 128, Seed: i64(1)})
}

// A 1,000-token prompt, 16 tokens generated.
func BenchmarkLongPrompt(b *testing.B) {
	prompt := weatherPrompt
	for len(prompt) < 5000 {
		prompt += "The quick brown fox jumps over the lazy dog. "
	}
	benchComplete(b, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: prompt, MaxTokens: 16, Seed: i64(1)})
}

// The grammar of TestGrammar with the random model, whose draws the grammar
// refuses nearly always: the worst case for checking the drawn token first.
func BenchmarkGrammar(b *testing.B) {
	gbnf := `root ::= "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"" [a-z]{1,8} "\"}}\n</tool_call>"`
	grammarWays(b, func(b *testing.B) {
		benchComplete(b, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: weatherPrompt, MaxTokens: 200, Seed: i64(1), Grammar: gbnf})
	})
}

// A grammar the scripted model's call follows, as a trained model's output
// mostly follows its call grammar: the best case.
func BenchmarkGrammarFollowed(b *testing.B) {
	gbnf := `root ::= "<tool_call>" [\n]+ "{\"name\":\"get_weather\",\"arguments\":{\"city\":\"" [A-Za-z]+ "\"}}\n</tool_call>"`
	grammarWays(b, func(b *testing.B) {
		benchComplete(b, backend.CompleteRequest{Model: "tiny-qwen3-toolcall", Prompt: weatherPrompt, MaxTokens: 64, Temperature: f64(0), Grammar: gbnf})
	})
}

// BenchmarkConcurrent measures n streaming requests sent at once to one
// model (concurrent_bench_test.go), for n of 1, 4, 16 and 64: decoded
// together with a slot for each (64 slots), with the default 4 slots (at
// most four together, the rest queued), and taking turns (one at a time,
// as before the scheduler); at 16 and 64 streams also together with each
// step's draws one after the other (serial-draws), as before sampleAll.
func BenchmarkConcurrent(b *testing.B) {
	threads, _ := strconv.Atoi(os.Getenv("DRAGOMAN_LLAMA_THREADS"))
	e, err := New(Options{LibDir: libDir(b), Models: []string{modelPath(b, "tiny-qwen3-random.gguf")}, ContextSize: 2048, Threads: max(threads, 1), Slots: 64})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	m := e.byID["tiny-qwen3-random"]
	m.noReuse = true
	for _, n := range []int{1, 4, 16, 64} {
		for _, mode := range []struct {
			name   string
			limit  int32
			serial bool
		}{{"together", 0, false}, {"serial-draws", 0, true}, {"slots=4", 4, false}, {"turns", 1, false}} {
			if n == 1 && mode.limit != 0 || n == 4 && mode.limit == 4 || n < 16 && mode.serial {
				continue // the same as together
			}
			b.Run(fmt.Sprintf("streams=%d/%s", n, mode.name), func(b *testing.B) {
				m.limit.Store(mode.limit)
				m.serialDraws.Store(mode.serial)
				defer m.limit.Store(0)
				defer m.serialDraws.Store(false)
				benchStreams(b, e, n)
			})
		}
	}
}

// BenchmarkDraws is sampleAll alone: one step's draws for 16 and 64
// sequences, each with the default sampler chain over its own row of
// random logits (151,936 candidates), one after the other (serial) and
// spread over the processors (spread). It reports the time of a step's
// draws.
func BenchmarkDraws(b *testing.B) {
	e := tiny(b)
	m := e.byID["tiny-qwen3-random"]
	for _, n := range []int{spreadMin, 64} {
		rows := make([][]float32, n)
		due := make([]draw, n)
		for i := range n {
			rows[i] = make([]float32, m.nVocab)
			for j := range rows[i] {
				rows[i][j] = float32((i*7919+j*104729)%1000) / 100
			}
			smpl, err := m.sampler(backend.CompleteRequest{Seed: i64(int64(i))}, "", nil)
			if err != nil {
				b.Fatal(err)
			}
			defer smpl.free()
			due[i] = draw{s: &seq{smpl: smpl}, at: -1, logits: &rows[i][0]} // no row of a context: the Go draw both ways
		}
		for _, serial := range []bool{true, false} {
			name := "spread"
			if serial {
				name = "serial"
			}
			b.Run(fmt.Sprintf("seqs=%d/%s", n, name), func(b *testing.B) {
				m.serialDraws.Store(serial)
				defer m.serialDraws.Store(false)
				for b.Loop() {
					m.sampleAll(due)
				}
			})
		}
	}
}
