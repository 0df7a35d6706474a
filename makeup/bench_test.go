package makeup

import (
	"testing"

	"github.com/dragoman-dev/dragoman/template"
)

// BenchmarkAnalyze is the cost of one request's make-up on the request path:
// 20 tools and 10 messages (a system prompt, user turns, calls and tool
// results) with the real Qwen3 template and tokenizer, the tokenizer's word
// cache warm as in a running gateway, the full prompt already rendered (as the
// gateway has it). go test ./makeup -run '^$' -bench Analyze
func BenchmarkAnalyze(b *testing.B) {
	tpl, tok := qwen3(b)
	req := agentRequest(b, 20, 10)
	full, err := template.Render(tpl, req, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("render", func(b *testing.B) {
		b.SetBytes(int64(len(full)))
		for b.Loop() {
			_, _ = template.Render(tpl, req, nil)
		}
	})
	b.Run("count", func(b *testing.B) {
		tok.Count(full)
		b.SetBytes(int64(len(full)))
		for b.Loop() {
			tok.Count(full)
		}
	})
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"windowed", Options{Prompt: full}},
		{"exact", Options{Prompt: full, Exact: true}},
		{"windowed-max16", Options{Prompt: full, MaxRenders: 16}},
	} {
		b.Run(c.name, func(b *testing.B) {
			m, err := Analyze(tpl, req, tok, c.opts)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				_, _ = Analyze(tpl, req, tok, c.opts)
			}
			b.ReportMetric(float64(m.Renders), "renders")
			b.ReportMetric(float64(m.Total), "tokens")
		})
	}
}
