package format

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// Benchmarks: a family's call constraint for 1, 20 and 100 of BFCL's tools
// (../shared/bench/bfcl), built uncached (Family.Constrain) and through a
// ConstraintCache, for a JSON family (hermes) and a tagged-argument family
// (qwen3-coder-xml). Without the shared data they skip.

func bfclChatTools(tb testing.TB, n int) []chat.Tool {
	var tools []chat.Tool
	for _, fn := range fixtures.BFCLFunctions(tb, n) {
		tools = append(tools, chat.Tool{Type: "function", Function: chat.ToolFunction{Name: fn.Name, Parameters: fn.Parameters}})
	}
	return tools
}

// Every family's grammar for 100 BFCL tools is one llama.cpp would load.
func TestConstrainBFCLTools(t *testing.T) {
	tools := bfclChatTools(t, 100)
	for _, f := range Families() {
		if f.Calls == nil {
			continue
		}
		for _, mode := range []string{"auto", "required"} {
			c, err := f.Constrain(tools, ToolChoice{Mode: mode}, false)
			if err != nil {
				t.Fatalf("%s %s: %v", f.ID, mode, err)
			}
			g, err := grammar.Parse(c.Grammar)
			if err != nil {
				t.Fatalf("%s %s: %v", f.ID, mode, err)
			}
			if err := g.Check(); err != nil {
				t.Errorf("%s %s: %v", f.ID, mode, err)
			}
		}
	}
}

func BenchmarkConstrain(b *testing.B) {
	for _, id := range []string{"hermes", "qwen3-coder-xml"} {
		f := mustFamily(b, id)
		for _, n := range []int{1, 20, 100} {
			tools := bfclChatTools(b, n)
			b.Run(id+"/"+strconv.Itoa(n)+"/uncached", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := f.Constrain(tools, ToolChoice{Mode: "auto"}, false); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(id+"/"+strconv.Itoa(n)+"/cached", func(b *testing.B) {
				cc := NewConstraintCache(16)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := cc.Constrain(f, tools, ToolChoice{Mode: "auto"}, false); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkConstrainFamilies: every family's constraint for 20 tools,
// uncached (scripts/perf-grammar.sh reports the same, best of five runs).
func BenchmarkConstrainFamilies(b *testing.B) {
	tools := bfclChatTools(b, 20)
	for _, f := range Families() {
		if f.Calls == nil {
			continue
		}
		b.Run(f.ID, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.Constrain(tools, ToolChoice{Mode: "auto"}, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Constrain's builders are pooled (newBuilder, release): a constraint must
// not depend on what the builder made before it. Every family's constraints
// for two tool sets and three tool choices are built in one order, then
// again in the reverse order from two goroutines at once; each must come out
// the same. (Run under -race, this also checks that no builder is shared.)
func TestConstrainUnchangedByReusedBuilders(t *testing.T) {
	sets := [][]chat.Tool{bfclChatTools(t, 20), bfclChatTools(t, 3)}
	type job struct {
		f      *Family
		tools  []chat.Tool
		choice ToolChoice
	}
	var jobs []job
	for _, f := range Families() {
		if f.Calls == nil {
			continue
		}
		for _, tools := range sets {
			for _, choice := range []ToolChoice{{Mode: "auto"}, {Mode: "required", Single: true}, {Name: tools[1].Function.Name}} {
				jobs = append(jobs, job{f, tools, choice})
			}
		}
	}
	build := func(j job) string {
		c, err := j.f.Constrain(j.tools, j.choice, false)
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("%s\n%v %q %q", c.Grammar, c.Lazy, c.Triggers, c.Warnings)
	}
	want := make([]string, len(jobs))
	for i, j := range jobs {
		want[i] = build(j)
	}
	got := make([]string, len(jobs))
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := len(jobs) - 1 - w; i >= 0; i -= 2 {
				got[i] = build(jobs[i])
			}
		})
	}
	wg.Wait()
	for i, j := range jobs {
		if got[i] != want[i] {
			t.Errorf("%s %+v with %d tools: built again after other constraints, it differs:\n%s\nfirst:\n%s", j.f.ID, j.choice, len(j.tools), got[i], want[i])
		}
	}
}
