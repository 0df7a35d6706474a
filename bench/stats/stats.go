// Package stats holds the statistics `dragoman bench` reports: accuracy with
// a 95% Wilson score interval, McNemar's exact test on paired outcomes, and
// a seeded paired bootstrap interval for the difference in accuracy. The
// choices are explained in docs/DECISIONS.md.
package stats

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
)

// z95 is the standard normal quantile for a two-sided 95% interval.
const z95 = 1.959963984540054

// Interval is a confidence interval, as proportions (or differences of
// proportions) between Low and High.
type Interval struct {
	Low, High float64
}

// Accuracy is k passes of n and its 95% Wilson score interval; n = 0 gives
// 0 and the whole range [0, 1].
func Accuracy(k, n int) (float64, Interval) {
	if n <= 0 {
		return 0, Interval{0, 1}
	}
	return float64(k) / float64(n), Wilson(k, n, z95)
}

// Wilson is the Wilson score interval for k successes of n at the normal
// quantile z: the proportions p whose score test |p̂−p| / √(p(1−p)/n) ≤ z.
// Unlike the Wald interval it stays inside [0, 1] and keeps its coverage
// near 0 and 1, where a good model's accuracy sits.
func Wilson(k, n int, z float64) Interval {
	if n <= 0 {
		return Interval{0, 1}
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return Interval{math.Max(0, center-half), math.Min(1, center+half)}
}

// Pairs counts paired outcomes: Both passed, OnlyA, OnlyB, Neither.
type Pairs struct {
	Both, OnlyA, OnlyB, Neither int
}

// Pair counts the outcomes of two sides on the same items; a and b must
// have the same length (item i of a is item i of b).
func Pair(a, b []bool) Pairs {
	if len(a) != len(b) {
		panic("stats.Pair: sides of different lengths")
	}
	var p Pairs
	for i := range a {
		switch {
		case a[i] && b[i]:
			p.Both++
		case a[i]:
			p.OnlyA++
		case b[i]:
			p.OnlyB++
		default:
			p.Neither++
		}
	}
	return p
}

// N is the number of pairs.
func (p Pairs) N() int { return p.Both + p.OnlyA + p.OnlyB + p.Neither }

// Difference is side A's accuracy less side B's.
func (p Pairs) Difference() float64 {
	if p.N() == 0 {
		return 0
	}
	return float64(p.OnlyA-p.OnlyB) / float64(p.N())
}

// McNemar is McNemar's exact test on the discordant pairs: under the null
// hypothesis that both sides are equally good, each of the b+c discordant
// items is won by either side with probability ½, so the two-sided p-value
// is 2·P(X ≤ min(b, c)) for X ~ Binomial(b+c, ½), capped at 1. It is
// computed exactly (big integers), so it holds for any count.
func McNemar(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	sum, term := new(big.Int), big.NewInt(1) // term = C(n, i)
	for i := 0; i <= k; i++ {
		sum.Add(sum, term)
		term.Mul(term, big.NewInt(int64(n-i)))
		term.Quo(term, big.NewInt(int64(i+1)))
	}
	sum.Lsh(sum, 1)
	p, _ := new(big.Rat).SetFrac(sum, new(big.Int).Lsh(big.NewInt(1), uint(n))).Float64()
	return math.Min(1, p)
}

// McNemar is the exact test on these pairs' discordant counts.
func (p Pairs) McNemar() float64 { return McNemar(p.OnlyA, p.OnlyB) }

// Bootstrap is the paired bootstrap percentile interval (95%) for the
// difference in accuracy, A less B: resamples times, n items are drawn with
// replacement from the n pairs (each draw keeps an item's two outcomes
// together) and the difference recomputed; the interval is the 2.5th and
// 97.5th percentiles of those differences (linear interpolation between
// order statistics). The draws come from a PCG generator seeded with seed,
// so the same pairs, resamples and seed give the same interval.
func (p Pairs) Bootstrap(resamples int, seed uint64) Interval {
	if p.N() == 0 || resamples <= 0 {
		return Interval{}
	}
	diffs := p.resample(resamples, seed)
	slices.Sort(diffs)
	return Interval{percentile(diffs, 0.025), percentile(diffs, 0.975)}
}

// resample is the bootstrap's differences, in the order drawn.
func (p Pairs) resample(resamples int, seed uint64) []float64 {
	n := p.N()
	// Only the discordant pairs move the difference: a draw lands on an
	// A-only pair, a B-only pair, or a concordant one, by their counts.
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	diffs := make([]float64, resamples)
	for r := range diffs {
		d := 0
		for range n {
			switch i := rng.IntN(n); {
			case i < p.OnlyA:
				d++
			case i < p.OnlyA+p.OnlyB:
				d--
			}
		}
		diffs[r] = float64(d) / float64(n)
	}
	return diffs
}

// percentile of sorted values at q in [0, 1]: the order statistics around
// position q·(len−1), linearly interpolated (numpy's default).
func percentile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}
