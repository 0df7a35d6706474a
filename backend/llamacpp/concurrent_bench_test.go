package llamacpp

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// The measure of concurrent streaming requests (BenchmarkConcurrent). This
// file uses only what the engine had before the scheduler, so that
// scripts/perf-concurrent.sh can run it on an older commit's engine too.

// benchStreams sends n requests at once to e's random model, again and
// again (the random model, 16 tokens each with the default sampler chain,
// every prompt different; the caller makes them start from an empty cache).
// It reports the completion tokens per second of wall time, and the medians
// over the requests of the time to the first text chunk and to the last.
func benchStreams(b *testing.B, e *Engine, n int) {
	var ttft, total []time.Duration
	tokens := 0
	var wall time.Duration
	for b.Loop() {
		start := time.Now()
		f, t, k := wave(b, e, n)
		wall += time.Since(start)
		ttft, total, tokens = append(ttft, f...), append(total, t...), tokens+k
	}
	b.ReportMetric(float64(tokens)/wall.Seconds(), "tokens/s")
	b.ReportMetric(ms(median(ttft)), "ttft-p50-ms")
	b.ReportMetric(ms(median(total)), "total-p50-ms")
}

// wave sends n requests at once and returns each one's time to its first
// text chunk and to its end, and the tokens generated.
func wave(b *testing.B, e *Engine, n int) (ttft, total []time.Duration, tokens int) {
	ttft, total = make([]time.Duration, n), make([]time.Duration, n)
	counts := make([]int, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			req := backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: conversation(fmt.Sprintf("Question %d?", i)), MaxTokens: 16, Seed: i64(int64(i))}
			s, err := e.Complete(context.Background(), req)
			if err != nil {
				b.Error(err)
				return
			}
			defer s.Close()
			for {
				c, err := s.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Error(err)
					return
				}
				if ttft[i] == 0 && c.Text != "" {
					ttft[i] = time.Since(start)
				}
				if c.Usage != nil {
					counts[i] = c.Usage.CompletionTokens
				}
			}
			total[i] = time.Since(start)
		})
	}
	wg.Wait()
	for _, c := range counts {
		tokens += c
	}
	return ttft, total, tokens
}

// median is the middle of ds (the upper one of the two middles).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
