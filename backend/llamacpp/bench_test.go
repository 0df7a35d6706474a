package llamacpp

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// Benchmarks of the embedded engine on the tiny models (one thread; see
// scripts/perf-embedded.sh and docs/PERFORMANCE.md). Each reports the time
// to the first text chunk (prompt tokenized and decoded, first token
// sampled) and the generation rate after it.
func benchComplete(b *testing.B, req backend.CompleteRequest) {
	e := tiny(b)
	var ttft, gen time.Duration
	tokens := 0
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
		ttft += first.Sub(start)
		gen += time.Since(first)
	}
	b.ReportMetric(float64(ttft.Microseconds())/1000/float64(b.N), "ttft-ms")
	b.ReportMetric(float64(tokens)/gen.Seconds(), "tokens/s")
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

// The grammar of TestGrammar: every token checked against the grammar over
// the whole vocabulary.
func BenchmarkGrammar(b *testing.B) {
	gbnf := `root ::= "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"" [a-z]{1,8} "\"}}\n</tool_call>"`
	benchComplete(b, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: weatherPrompt, MaxTokens: 200, Seed: i64(1), Grammar: gbnf})
}
