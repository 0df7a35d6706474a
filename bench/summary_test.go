package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// summaryRun is a hand-made run: category x has 20 items, A passes all, B
// the first 10 (of the 10 B fails, 8 are attributed to the parser, 2 to the
// model); category y has 10 items, both pass the first 5 (A's failures are
// the model's, B's transport errors). B has no answer for one more item,
// y10, which A passed.
func summaryRun() ([]Item, []Side, []Record) {
	var items []Item
	var recs []Record
	for i := range 20 {
		id := fmt.Sprintf("x%d", i)
		items = append(items, Item{ID: id, Category: "x"})
		rb := Record{Side: "B", Item: id, Pass: i < 10}
		switch {
		case i >= 18:
			rb.Attribution = CauseModel
		case i >= 10:
			rb.Attribution = CauseParser
		}
		recs = append(recs, Record{Side: "A", Item: id, Pass: true}, rb)
	}
	for i := range 10 {
		id := fmt.Sprintf("y%d", i)
		items = append(items, Item{ID: id, Category: "y"})
		ra, rb := Record{Side: "A", Item: id, Pass: i < 5}, Record{Side: "B", Item: id, Pass: i < 5, Error: "boom"}
		if i >= 5 {
			ra.Attribution, rb.Attribution = CauseModel, CauseTransport
		}
		recs = append(recs, ra, rb)
	}
	items = append(items, Item{ID: "y10", Category: "y"})
	recs = append(recs, Record{Side: "A", Item: "y10", Pass: true})
	return items, []Side{{Spec: "A"}, {Spec: "B"}}, recs
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSummarize(t *testing.T) {
	items, sides, recs := summaryRun()
	s := Summarize(items, sides, recs, 1)
	a, b := s.Sides[0], s.Sides[1]
	if a.Overall.N != 31 || a.Overall.Pass != 26 || b.Overall.N != 30 || b.Overall.Pass != 15 || b.Errors != 10 || a.Errors != 0 {
		t.Errorf("overall: A %+v, B %+v (errors %d)", a.Overall, b.Overall, b.Errors)
	}
	// Wilson for 26 of 31 (z = 1.96): computed with python3's math module, 0.67366 to 0.92907.
	if math.Abs(a.Overall.Low-0.67366) > 1e-4 || math.Abs(a.Overall.High-0.92906) > 1e-4 || !near(a.Overall.Accuracy, 26.0/31) {
		t.Errorf("A's Wilson interval %+v", a.Overall)
	}
	if len(a.Categories) != 2 || a.Categories[0].Category != "x" || a.Categories[0].Pass != 20 || a.Categories[1].N != 11 || b.Categories[1].N != 10 {
		t.Errorf("categories: A %+v, B %+v", a.Categories, b.Categories)
	}
	if len(s.Pairs) != 1 {
		t.Fatalf("%d pairs", len(s.Pairs))
	}
	p := s.Pairs[0]
	// Overall: 30 items both answered; b = 10, c = 0; McNemar 2·2⁻¹⁰.
	if o := p.Overall; o.N != 30 || o.OnlyA != 10 || o.OnlyB != 0 || o.Both != 15 || o.Neither != 5 || !near(o.P, 2.0/1024) || !near(o.Difference, 10.0/30) {
		t.Errorf("overall pair %+v", o)
	}
	if o := p.Overall; !(o.Low > 0.1 && o.Low < o.Difference && o.High > o.Difference && o.High <= 0.6) {
		t.Errorf("bootstrap interval [%v, %v] around %v", o.Low, o.High, o.Difference)
	}
	if x, y := p.Categories[0], p.Categories[1]; x.N != 20 || x.OnlyA != 10 || !near(x.P, 2.0/1024) || !near(x.Difference, 0.5) ||
		y.N != 10 || y.OnlyA+y.OnlyB != 0 || y.P != 1 || y.Difference != 0 || y.Low != 0 || y.High != 0 {
		t.Errorf("per category: %+v, %+v", x, y)
	}
	if c := b.Overall.Causes; len(c) != 3 || c[CauseParser] != 8 || c[CauseModel] != 2 || c[CauseTransport] != 5 || b.Categories[0].Causes[CauseTransport] != 0 || a.Categories[1].Causes[CauseModel] != 5 {
		t.Errorf("causes: B %v, B's x %v, A's y %v", c, b.Categories[0].Causes, a.Categories[1].Causes)
	}
	if o := p.Overall; len(o.OnlyACauses) != 2 || o.OnlyACauses[CauseParser] != 8 || o.OnlyACauses[CauseModel] != 2 || o.OnlyBCauses != nil {
		t.Errorf("the causes of the items A wins: %v, B wins: %v", o.OnlyACauses, o.OnlyBCauses)
	}
	want := fmt.Sprintf("A beats B by 33.3 points [%.1f, %.1f], p = 0.002; 8 of the 10 items it wins were parser failures on B (2 model)", 100*p.Overall.Low, 100*p.Overall.High)
	if p.Verdict != want {
		t.Errorf("verdict %q, want %q", p.Verdict, want)
	}
	// The better side is named first whatever the order.
	r := Summarize(items, []Side{sides[1], sides[0]}, recs, 1).Pairs[0]
	if r.A != "B" || !strings.HasPrefix(r.Verdict, "A beats B by 33.3 points [") || r.Overall.Difference >= 0 {
		t.Errorf("reversed: %q, difference %v", r.Verdict, r.Overall.Difference)
	}
	// Same seed, same interval.
	if again := Summarize(items, sides, recs, 1).Pairs[0].Overall; again.Low != p.Overall.Low || again.High != p.Overall.High {
		t.Errorf("not reproducible: %+v, %+v", again, p.Overall)
	}
}

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		st   PairStats
		want string
	}{
		{PairStats{N: 100, OnlyA: 3, OnlyB: 2, P: 1, Difference: 0.01, Low: -0.03, High: 0.05},
			"A and B do not differ significantly: 1.0 points [-3.0, 5.0], p = 1 (5 discordant of 100)"},
		{PairStats{N: 500, OnlyA: 40, OnlyB: 9, P: 0.00001, Difference: 0.061, Low: 0.032, High: 0.09},
			"A beats B by 6.1 points [3.2, 9.0], p < 0.001"},
		{PairStats{N: 500, OnlyA: 1, OnlyB: 12, P: 0.0034, Difference: -0.022, Low: -0.034, High: -0.01},
			"B beats A by 2.2 points [1.0, 3.4], p = 0.003"},
		// The causes are the loser's on the items the winner won.
		{PairStats{N: 500, OnlyA: 1, OnlyB: 12, P: 0.0034, Difference: -0.022, Low: -0.034, High: -0.01,
			OnlyACauses: map[string]int{CauseTemplate: 1}, OnlyBCauses: map[string]int{CauseModel: 3, CauseParser: 7, CauseTruncation: 2}},
			"B beats A by 2.2 points [1.0, 3.4], p = 0.003; 7 of the 12 items it wins were parser failures on A (2 truncation, 3 model)"},
		{PairStats{N: 500, OnlyA: 10, OnlyB: 3, P: 0.0923, Difference: 0.014, Low: -0.001, High: 0.03},
			"A and B do not differ significantly: 1.4 points [-0.1, 3.0], p = 0.09 (13 discordant of 500)"},
		{PairStats{}, "A and B have no item answered by both"},
	} {
		if got := Verdict("A", "B", c.st); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

func TestWriteSummary(t *testing.T) {
	items, sides, recs := summaryRun()
	dir := t.TempDir()
	s := Summarize(items, sides, recs, 1)
	if err := WriteSummary(dir, s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	var back struct {
		Pairs []struct {
			Verdict string
			Overall struct {
				B, C int
				P    float64
			}
		}
	}
	if err := json.Unmarshal(data, &back); err != nil || len(back.Pairs) != 1 || back.Pairs[0].Verdict != s.Pairs[0].Verdict || back.Pairs[0].Overall.B != 10 || back.Pairs[0].Overall.C != 0 {
		t.Errorf("summary.json: %v %s", err, data)
	}
	md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
	for _, want := range []string{"- " + s.Pairs[0].Verdict, "| all | 26/31 83.9% [67.4%, 92.9%] | 15/30 50.0% [33.2%, 66.8%] |", "| x | 20 | 10 | 0 | 50.0 [", "B: 10 transport errors",
		"| side | category | failed | template | parser | constraint | truncation | transport | model |", "| B | all | 15 | 0 | 8 | 0 | 0 | 5 | 2 |", "| A | y | 5 | 0 | 0 | 0 | 0 | 0 | 5 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
}
