package bench

// CategoryScore is one category's passes and entries.
type CategoryScore struct {
	Category      string
	Passed, Total int
}

// Accuracy is passes ÷ entries: every entry counts, an undecodable answer as
// a fail (a pass on irrelevance), as upstream scores (FORMAT.md §9).
func (c CategoryScore) Accuracy() float64 {
	if c.Total == 0 {
		return 0
	}
	return float64(c.Passed) / float64(c.Total)
}

// ScoreCategories tallies results per category, in the items' first-seen
// order; passed[i] is item i's verdict.
func ScoreCategories(items []Item, passed []bool) []CategoryScore {
	var out []CategoryScore
	index := map[string]int{}
	for i := range items {
		c := items[i].Category
		j, ok := index[c]
		if !ok {
			j = len(out)
			index[c] = j
			out = append(out, CategoryScore{Category: c})
		}
		out[j].Total++
		if passed[i] {
			out[j].Passed++
		}
	}
	return out
}

// Aggregate is one of BFCL's summary figures. Complete is false when a
// category it is made of was not run; that category then counts as 0, as
// upstream counts a missing one (and shows N/A).
type Aggregate struct {
	Name     string
	Value    float64
	Complete bool
}

// BFCL's single-turn aggregates (FORMAT.md §9, leaderboard v4).
const (
	// AggregateNonLive is the non-live AST figure for Python only: the
	// unweighted mean of simple_python, multiple, parallel and
	// parallel_multiple. Upstream's "simple" is itself the mean of Python,
	// Java and JavaScript, which are not staged, so this is not the
	// leaderboard's number.
	AggregateNonLive = "non-live AST (Python only)"
	// AggregateLive pools live_simple, live_multiple, live_parallel and
	// live_parallel_multiple: passes ÷ entries.
	AggregateLive = "live AST"
	// AggregateIrrelevance is the unweighted mean of irrelevance and
	// live_irrelevance.
	AggregateIrrelevance = "irrelevance"
	// AggregateRelevance is live_relevance.
	AggregateRelevance = "relevance"
	// AggregateOverall is the single-turn part of BFCL's overall score: 10%
	// each of the non-live, live and irrelevance figures; multi-turn (30%)
	// and agentic (40%) are not run here and count as 0.
	AggregateOverall = "overall (single-turn part)"
)

// BFCLAggregates computes the aggregates from category scores.
func BFCLAggregates(scores []CategoryScore) []Aggregate {
	by := map[string]CategoryScore{}
	for _, s := range scores {
		by[s.Category] = s
	}
	mean := func(name string, cats ...string) Aggregate {
		a := Aggregate{Name: name, Complete: true}
		for _, c := range cats {
			s, ok := by[c]
			a.Complete = a.Complete && ok
			a.Value += s.Accuracy() / float64(len(cats))
		}
		return a
	}
	pooled := func(name string, cats ...string) Aggregate {
		a := Aggregate{Name: name, Complete: true}
		passed, total := 0, 0
		for _, c := range cats {
			s, ok := by[c]
			a.Complete = a.Complete && ok
			passed, total = passed+s.Passed, total+s.Total
		}
		a.Value = CategoryScore{Passed: passed, Total: total}.Accuracy()
		return a
	}
	nonLive := mean(AggregateNonLive, "simple_python", "multiple", "parallel", "parallel_multiple")
	live := pooled(AggregateLive, "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
	irrelevance := mean(AggregateIrrelevance, "irrelevance", "live_irrelevance")
	relevance := mean(AggregateRelevance, "live_relevance")
	overall := Aggregate{Name: AggregateOverall, Complete: false, // multi-turn and agentic are never run here
		Value: 0.1*nonLive.Value + 0.1*live.Value + 0.1*irrelevance.Value}
	return []Aggregate{nonLive, live, irrelevance, relevance, overall}
}
