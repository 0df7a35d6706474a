package bench

import (
	"math"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

// TestScoreGold: the gold outputs' scores, worked out by hand from the counts
// (FORMAT.md §1) and the four unwinnable items (two live_simple, two
// live_multiple).
func TestScoreGold(t *testing.T) {
	s := loadBFCL(t)
	passed := make([]bool, len(s.Items))
	for i := range s.Items {
		it := &s.Items[i]
		passed[i] = Check(it, goldCallsOrNone(it), Options{}).Pass
	}
	scores := ScoreCategories(s.Items, passed)
	if len(scores) != 11 || scores[0].Category != "simple_python" {
		t.Fatalf("%+v", scores)
	}
	for _, c := range scores {
		want := c.Total
		switch c.Category {
		case "live_simple", "live_multiple":
			want -= 2
		}
		if c.Passed != want {
			t.Errorf("%s: %d of %d, want %d", c.Category, c.Passed, c.Total, want)
		}
	}
	aggregates := BFCLAggregates(scores)
	want := map[string]float64{
		AggregateNonLive:     1,
		AggregateLive:        1347.0 / 1351,
		AggregateIrrelevance: 1,
		AggregateRelevance:   1,
		AggregateOverall:     0.1 + 0.1*1347.0/1351 + 0.1,
	}
	for _, a := range aggregates {
		if math.Abs(a.Value-want[a.Name]) > 1e-12 || a.Complete != (a.Name != AggregateOverall) {
			t.Errorf("%s: %v complete %v, want %v", a.Name, a.Value, a.Complete, want[a.Name])
		}
	}
}

// goldCallsOrNone is the gold output, no call for irrelevance, any call for
// relevance: the best answer to each item.
func goldCallsOrNone(it *Item) []chat.ToolCall {
	switch it.Expected.Mode {
	case ModeNoCall:
		return nil
	case ModeAnyCall:
		return []chat.ToolCall{toolCall(it.Functions[0].Name, Map())}
	}
	return goldCalls(it, false)
}

// TestAggregates: means are unweighted, live is pooled, a missing category
// counts as 0 and marks its aggregate incomplete.
func TestAggregates(t *testing.T) {
	scores := []CategoryScore{
		{"simple_python", 300, 400}, {"multiple", 100, 200}, {"parallel", 200, 200}, {"parallel_multiple", 0, 200},
		{"live_simple", 100, 258}, {"live_multiple", 1000, 1053}, {"live_parallel", 8, 16}, {"live_parallel_multiple", 12, 24},
		{"irrelevance", 120, 240},
	}
	got := map[string]Aggregate{}
	for _, a := range BFCLAggregates(scores) {
		got[a.Name] = a
	}
	check := func(name string, value float64, complete bool) {
		t.Helper()
		if a := got[name]; math.Abs(a.Value-value) > 1e-12 || a.Complete != complete {
			t.Errorf("%s: %+v, want %v complete %v", name, a, value, complete)
		}
	}
	check(AggregateNonLive, (0.75+0.5+1+0)/4, true)
	check(AggregateLive, 1120.0/1351, true)
	check(AggregateIrrelevance, 0.25, false) // live_irrelevance missing: 0
	check(AggregateRelevance, 0, false)
	check(AggregateOverall, 0.1*(0.5625+1120.0/1351+0.25), false)
}
