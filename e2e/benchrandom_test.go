package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend/llamacpp"
	"github.com/dragoman-dev/dragoman/bench"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// benchRandomMin is the fewest questions the test asks: McNemar's exact p
// is 2·2⁻ᵇ at best, below 0.05 from b = 6 discordant items on; 8 leaves
// room for two forced calls the length limit cuts.
const benchRandomMin = 8

// dragoman bench over the random-weights model on the embedded engine, one
// engine and one model for both sides: with tool_choice "required" (the
// family's call grammar, eager) against the same model unconstrained. On
// questions that want any call (relevance), the constrained side writes a
// call and passes; the unconstrained side writes random text, which never
// opens a call, until the length limit. The pair must show a significant
// difference in the required side's favour (McNemar p < 0.05), and the
// unconstrained side's failures are attributed to the length limit
// (truncation): the model never stops, nothing else went wrong. A sampling
// test (scripts/test.sh): 8 questions by default, 40 with
// DRAGOMAN_SAMPLES=full.
func TestBenchRandomRequired(t *testing.T) {
	requireLlamaLib(t)
	model := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-random.gguf")
	n := max(sampleCount(t, 40), benchRandomMin)
	// Tools whose arguments are bounded (a 12-character city, integers), so
	// that a random model's constrained call fits in the limit.
	const tools = `[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 12}}, "required": ["city"]}}},
		{"type": "function", "function": {"name": "add", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"], "additionalProperties": false}}}]`
	var suite strings.Builder
	for i := range n {
		fmt.Fprintf(&suite, `{"id": "use-%d", "category": "relevance", "messages": [{"role": "user", "content": "Use a tool (%d)."}], "tools": %s, "expected": {"mode": "any_call"}}`+"\n",
			i, i, strings.ReplaceAll(tools, "\n", ""))
	}
	s, err := bench.ReadSuite(strings.NewReader(suite.String()), "random")
	if err != nil {
		t.Fatal(err)
	}
	free, required := "gguf="+model, "gguf="+model+"?tool_choice=required"
	var sides []bench.Side
	for _, spec := range []string{free, required} {
		sd, err := bench.ParseSide(spec)
		if err != nil {
			t.Fatal(err)
		}
		sides = append(sides, sd)
	}
	start := time.Now()
	recs, err := bench.Run(context.Background(), bench.RunConfig{Sides: sides, Items: s.Items, Dir: t.TempDir(), Seed: 1, MaxTokens: 64,
		Engine: llamacpp.Options{ContextSize: 1024, Threads: 2}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d questions × 2 sides in %s", n, time.Since(start).Round(time.Millisecond))
	sum := bench.Summarize(s.Items, sides, recs, 1)
	p := sum.Pairs[0].Overall
	t.Logf("free %d/%d, required %d/%d; b %d, c %d, p %.4g; %s", sum.Sides[0].Overall.Pass, n, sum.Sides[1].Overall.Pass, n, p.OnlyA, p.OnlyB, p.P, sum.Pairs[0].Verdict)
	if p.N != n || p.OnlyB <= p.OnlyA || p.P >= 0.05 || !strings.HasPrefix(sum.Pairs[0].Verdict, required+" beats "+free) {
		t.Errorf("the required side should win significantly: %+v; %s", p, sum.Pairs[0].Verdict)
	}
	ms := map[string]float64{}
	for _, r := range recs {
		ms[r.Side] += r.MS / float64(n)
	}
	t.Logf("mean time per question: %.0f ms unconstrained, %.0f ms required", ms[free], ms[required])
	for _, r := range recs {
		if r.Side == free && (r.Pass || r.Attribution != bench.CauseTruncation) {
			t.Errorf("%s unconstrained: pass %v, %q (%s), completion %.80q", r.Item, r.Pass, r.Attribution, r.Why, r.Completion)
		}
		if r.Side == required && !r.Pass {
			t.Logf("%s required: %q (%s), completion %.120q", r.Item, r.Attribution, r.Why, r.Completion)
		}
	}
}
