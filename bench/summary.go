package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dragoman-dev/dragoman/bench/stats"
)

// Summary files a run writes in its folder.
const (
	SummaryFile   = "summary.json"
	MarkdownFile  = "summary.md"
	allCategories = "all"
	// BootstrapResamples is how many resamples each bootstrap interval draws.
	BootstrapResamples = 10000
)

// Summary is summary.json: each side's accuracy per category and overall,
// and each pair of sides compared on the items both answered.
type Summary struct {
	Items int           `json:"items"`
	Seed  int64         `json:"seed"`
	Sides []SideSummary `json:"sides"`
	Pairs []PairSummary `json:"pairs"`
}

// SideSummary is one side's scores: Overall, and per category in the
// items' order.
type SideSummary struct {
	Side       string  `json:"side"`
	Overall    Score   `json:"overall"`
	Categories []Score `json:"categories"`
	// Errors counts transport failures (Record.Error).
	Errors int `json:"errors"`
	// BFCL holds upstream's aggregates when the items are BFCL's.
	BFCL []Aggregate `json:"bfcl,omitempty"`
}

// Score is an accuracy with its 95% Wilson interval.
type Score struct {
	Category string  `json:"category"`
	N        int     `json:"n"`
	Pass     int     `json:"pass"`
	Accuracy float64 `json:"accuracy"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	// Causes counts the failures by attributed cause (Attribute).
	Causes map[string]int `json:"causes,omitempty"`
}

// PairSummary compares sides A and B on the items both answered.
type PairSummary struct {
	A          string      `json:"a"`
	B          string      `json:"b"`
	Overall    PairStats   `json:"overall"`
	Categories []PairStats `json:"categories"`
	// Verdict says it in words: "A beats B by 6.1 points [3.2, 9.0], p < 0.001".
	Verdict string `json:"verdict"`
}

// PairStats are the paired statistics over one category (or all): the
// counts, b (only A passed) and c (only B passed), McNemar's exact p, the
// difference A − B and its paired bootstrap 95% interval.
type PairStats struct {
	Category   string  `json:"category"`
	N          int     `json:"n"`
	Both       int     `json:"both"`
	OnlyA      int     `json:"b"`
	OnlyB      int     `json:"c"`
	Neither    int     `json:"neither"`
	P          float64 `json:"p"`
	Difference float64 `json:"difference"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	// OnlyACauses counts B's failures on the items only A passed by their
	// cause, OnlyBCauses A's on the items only B passed: why the winner won.
	OnlyACauses map[string]int `json:"b_causes,omitempty"`
	OnlyBCauses map[string]int `json:"c_causes,omitempty"`
}

// Summarize scores the records of a run (Run's answer) over its items and
// sides; the bootstrap is seeded with seed.
func Summarize(items []Item, sides []Side, recs []Record, seed int64) *Summary {
	byKey := make(map[string]*Record, len(recs))
	for i := range recs {
		byKey[key(recs[i].Side, recs[i].Item)] = &recs[i]
	}
	cats := (&Suite{Items: items}).Categories()
	sum := &Summary{Items: len(items), Seed: seed}
	bfcl := true
	for _, it := range items {
		if !slices.Contains(BFCLCategories, it.Category) {
			bfcl = false
		}
	}
	for _, s := range sides {
		ss := SideSummary{Side: s.Spec}
		tally := map[string]*Score{}
		for _, c := range append([]string{allCategories}, cats...) {
			tally[c] = &Score{Category: c}
		}
		var answered []Item
		var passed []bool
		for _, it := range items {
			r := byKey[key(s.Spec, it.ID)]
			if r == nil {
				continue
			}
			answered, passed = append(answered, it), append(passed, r.Pass)
			if r.Error != "" {
				ss.Errors++
			}
			for _, c := range []string{allCategories, it.Category} {
				tally[c].N++
				if r.Pass {
					tally[c].Pass++
				} else if r.Attribution != "" {
					if tally[c].Causes == nil {
						tally[c].Causes = map[string]int{}
					}
					tally[c].Causes[r.Attribution]++
				}
			}
		}
		ss.Overall = tally[allCategories].finish()
		for _, c := range cats {
			ss.Categories = append(ss.Categories, tally[c].finish())
		}
		if bfcl && len(answered) > 0 {
			ss.BFCL = BFCLAggregates(ScoreCategories(answered, passed))
		}
		sum.Sides = append(sum.Sides, ss)
	}
	for i := range sides {
		for j := i + 1; j < len(sides); j++ {
			sum.Pairs = append(sum.Pairs, comparePair(items, cats, sides[i].Spec, sides[j].Spec, byKey, seed))
		}
	}
	return sum
}

func (s *Score) finish() Score {
	acc, iv := stats.Accuracy(s.Pass, s.N)
	s.Accuracy, s.Low, s.High = acc, iv.Low, iv.High
	return *s
}

func comparePair(items []Item, cats []string, a, b string, byKey map[string]*Record, seed int64) PairSummary {
	ps := PairSummary{A: a, B: b}
	outcomes := map[string]*[2][]bool{}
	wins := map[string]*[2]map[string]int{} // per category: B's causes where only A passed, A's where only B did
	for _, c := range append([]string{allCategories}, cats...) {
		outcomes[c] = &[2][]bool{}
		wins[c] = &[2]map[string]int{}
	}
	for _, it := range items {
		ra, rb := byKey[key(a, it.ID)], byKey[key(b, it.ID)]
		if ra == nil || rb == nil {
			continue
		}
		for _, c := range []string{allCategories, it.Category} {
			o := outcomes[c]
			o[0], o[1] = append(o[0], ra.Pass), append(o[1], rb.Pass)
			switch w := wins[c]; {
			case ra.Pass && !rb.Pass && rb.Attribution != "":
				w[0] = count(w[0], rb.Attribution)
			case rb.Pass && !ra.Pass && ra.Attribution != "":
				w[1] = count(w[1], ra.Attribution)
			}
		}
	}
	pairStats := func(c string) PairStats {
		o := outcomes[c]
		p := stats.Pair(o[0], o[1])
		st := PairStats{Category: c, N: p.N(), Both: p.Both, OnlyA: p.OnlyA, OnlyB: p.OnlyB, Neither: p.Neither, P: p.McNemar(),
			OnlyACauses: wins[c][0], OnlyBCauses: wins[c][1]}
		if st.N > 0 {
			iv := p.Bootstrap(BootstrapResamples, uint64(seed))
			st.Difference, st.Low, st.High = p.Difference(), iv.Low, iv.High
		}
		return st
	}
	ps.Overall = pairStats(allCategories)
	for _, c := range cats {
		ps.Categories = append(ps.Categories, pairStats(c))
	}
	ps.Verdict = Verdict(a, b, ps.Overall)
	return ps
}

func count(m map[string]int, k string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[k]++
	return m
}

// Verdict says a pair's result in a sentence: "A beats B by 6.1 points
// [3.2, 9.0], p < 0.001; 41 of the 47 items it wins were parser failures
// on B (6 model)" when McNemar's p is below 0.05 (the side named first is
// the better one; the causes are the loser's, attributed), else "A and B
// do not differ significantly: …".
func Verdict(a, b string, st PairStats) string {
	if st.N == 0 {
		return fmt.Sprintf("%s and %s have no item answered by both", a, b)
	}
	d, lo, hi := st.Difference, st.Low, st.High
	if st.P < 0.05 && d != 0 {
		won, causes := st.OnlyA, st.OnlyACauses
		if d < 0 {
			a, b, d, lo, hi = b, a, -d, -hi, -lo
			won, causes = st.OnlyB, st.OnlyBCauses
		}
		return fmt.Sprintf("%s beats %s by %s points [%s, %s], %s", a, b, points(d), points(lo), points(hi), pValue(st.P)) +
			winCauses(won, causes, b)
	}
	return fmt.Sprintf("%s and %s do not differ significantly: %s points [%s, %s], %s (%d discordant of %d)",
		a, b, points(d), points(lo), points(hi), pValue(st.P), st.OnlyA+st.OnlyB, st.N)
}

// winCauses is the verdict's account of the loser's failures on the items
// the winner won: the commonest cause first, the others in brackets, in
// report order; "" when none was attributed.
func winCauses(won int, causes map[string]int, loser string) string {
	top := ""
	for _, c := range Causes {
		if causes[c] > causes[top] {
			top = c
		}
	}
	if top == "" {
		return ""
	}
	s := fmt.Sprintf("; %d of the %d items it wins were %s failures on %s", causes[top], won, top, loser)
	var rest []string
	for _, c := range Causes {
		if c != top && causes[c] > 0 {
			rest = append(rest, fmt.Sprintf("%d %s", causes[c], c))
		}
	}
	if len(rest) > 0 {
		s += " (" + strings.Join(rest, ", ") + ")"
	}
	return s
}

// points is a difference of proportions in percentage points, one decimal.
func points(d float64) string {
	s := fmt.Sprintf("%.1f", 100*d)
	if s == "-0.0" {
		s = "0.0"
	}
	return s
}

func pValue(p float64) string {
	switch {
	case p < 0.001:
		return "p < 0.001"
	case p >= 0.995:
		return "p = 1"
	case p < 0.01:
		return fmt.Sprintf("p = %.3f", p)
	default:
		return fmt.Sprintf("p = %.2f", p)
	}
}

// WriteSummary writes summary.json and summary.md in dir.
func WriteSummary(dir string, s *Summary) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, MarkdownFile), []byte(s.Markdown()), 0o644)
}

// Markdown is the summary as a short Markdown report: the verdicts, each
// side's accuracy per category, and each pair's per-category statistics.
func (s *Summary) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# dragoman bench\n\n%d items, seed %d.\n\n", s.Items, s.Seed)
	if len(s.Pairs) > 0 {
		b.WriteString("## Verdicts\n\n")
		for _, p := range s.Pairs {
			fmt.Fprintf(&b, "- %s\n", mdEscape(p.Verdict))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Accuracy (passed/asked, 95% Wilson interval)\n\n| category |")
	for _, sd := range s.Sides {
		fmt.Fprintf(&b, " %s |", mdEscape(sd.Side))
	}
	b.WriteString("\n|---|")
	for range s.Sides {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	if len(s.Sides) > 0 {
		rows := append([]Score{s.Sides[0].Overall}, s.Sides[0].Categories...)
		for ri, row := range rows {
			fmt.Fprintf(&b, "| %s |", row.Category)
			for _, sd := range s.Sides {
				sc := sd.Overall
				if ri > 0 {
					sc = sd.Categories[ri-1]
				}
				fmt.Fprintf(&b, " %d/%d %s [%s, %s] |", sc.Pass, sc.N, pct(sc.Accuracy), pct(sc.Low), pct(sc.High))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n## Failures by cause (docs/BENCH.md, \"Failure attribution\")\n\n| side | category | failed |")
	for _, c := range Causes {
		fmt.Fprintf(&b, " %s |", c)
	}
	b.WriteString("\n|---|---|---:|" + strings.Repeat("---:|", len(Causes)) + "\n")
	for _, sd := range s.Sides {
		for _, sc := range append([]Score{sd.Overall}, sd.Categories...) {
			fmt.Fprintf(&b, "| %s | %s | %d |", mdEscape(sd.Side), sc.Category, sc.N-sc.Pass)
			for _, c := range Causes {
				fmt.Fprintf(&b, " %d |", sc.Causes[c])
			}
			b.WriteString("\n")
		}
	}
	for _, sd := range s.Sides {
		if sd.Errors > 0 {
			fmt.Fprintf(&b, "\n%s: %d transport errors (scored as no answer).\n", mdEscape(sd.Side), sd.Errors)
		}
	}
	for _, p := range s.Pairs {
		fmt.Fprintf(&b, "\n## %s vs %s\n\n| category | n | only A (b) | only B (c) | A − B, points [95%% bootstrap] | McNemar p |\n|---|---:|---:|---:|---:|---:|\n",
			mdEscape(p.A), mdEscape(p.B))
		for _, st := range append([]PairStats{p.Overall}, p.Categories...) {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %s [%s, %s] | %s |\n", st.Category, st.N, st.OnlyA, st.OnlyB,
				points(st.Difference), points(st.Low), points(st.High), strings.TrimPrefix(strings.TrimPrefix(pValue(st.P), "p = "), "p "))
		}
	}
	return b.String()
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
