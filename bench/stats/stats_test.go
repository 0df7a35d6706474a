package stats

import (
	"math"
	"slices"
	"testing"
)

// TestWilson against independently computed values. The first four are
// Newcombe (1998), "Two-sided confidence intervals for the single
// proportion", Statistics in Medicine 17:857–872, Table I, method 3 (to four
// decimals); all six were also computed with python3's math module from the
// closed form, to the digits written here.
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n      int
		low, high float64
	}{
		{81, 263, 0.2552885198782742, 0.36620957698280004}, // Newcombe: 0.2553–0.3662
		{15, 148, 0.0623863995307363, 0.16048724172330803}, // 0.0624–0.1605
		{0, 20, 0, 0.16112515805281938},                    // 0–0.1611
		{1, 29, 0.006113214292762653, 0.17175521879320288}, // 0.0061–0.1718
		{20, 20, 0.8388748419471806, 1},
		{2904, 3491, 0.8190837725653234, 0.8438933688303417},
	} {
		p, got := Accuracy(c.k, c.n)
		if math.Abs(got.Low-c.low) > 1e-12 || math.Abs(got.High-c.high) > 1e-12 || p != float64(c.k)/float64(c.n) {
			t.Errorf("%d/%d: %v %+v, want [%v, %v]", c.k, c.n, p, got, c.low, c.high)
		}
	}
	if p, iv := Accuracy(0, 0); p != 0 || iv != (Interval{0, 1}) {
		t.Errorf("0/0: %v %+v", p, iv)
	}
}

// TestMcNemar against exact binomial p-values computed with python3's
// standard library: min(1, 2·Σ_{i≤min(b,c)} math.comb(b+c, i) / 2**(b+c)),
// summed as fractions.Fraction and converted to float at the end.
func TestMcNemar(t *testing.T) {
	for _, c := range []struct {
		b, c int
		p    float64
	}{
		{0, 0, 1},
		{1, 0, 1},
		{5, 0, 0.0625},
		{10, 2, 0.03857421875},
		{41, 6, 1.7716986633331544e-07},
		{6, 41, 1.7716986633331544e-07},
		{100, 130, 0.055613577781392386},
		{1500, 1400, 0.06598734966518381},
		{20, 20, 1},
		{7, 8, 1},
	} {
		got := McNemar(c.b, c.c)
		if math.Abs(got-c.p) > 1e-12*math.Max(c.p, 1e-300) && got != c.p {
			t.Errorf("McNemar(%d, %d) = %v, want %v", c.b, c.c, got, c.p)
		}
	}
}

func TestPair(t *testing.T) {
	a := []bool{true, true, false, false, true}
	b := []bool{true, false, true, false, false}
	p := Pair(a, b)
	if p != (Pairs{Both: 1, OnlyA: 2, OnlyB: 1, Neither: 1}) || p.N() != 5 || p.Difference() != 0.2 {
		t.Errorf("%+v %v", p, p.Difference())
	}
	if p.McNemar() != McNemar(2, 1) {
		t.Errorf("McNemar of pairs")
	}
}

// TestBootstrap: seeded and deterministic; degenerate tables give a point;
// and on a fixed table the interval is the ideal bootstrap's. The ideal
// (infinitely many resamples) 2.5% and 97.5% quantiles of the difference
// for n = 400 pairs, 40 A-only and 20 B-only, were computed exactly with
// python3's math.comb and fractions: the distribution of (#A − #B)/n for
// (#A, #B, rest) ~ Multinomial(400; 40/400, 20/400, 340/400) has its
// quantiles at 0.0125 and 0.0875. 20,000 resamples land within one step
// (1/400) of them.
func TestBootstrap(t *testing.T) {
	p := Pairs{Both: 300, OnlyA: 40, OnlyB: 20, Neither: 40}
	iv := p.Bootstrap(20000, 1)
	if math.Abs(iv.Low-0.0125) > 0.0025 || math.Abs(iv.High-0.0875) > 0.0025 {
		t.Errorf("interval %+v, want about [0.0125, 0.0875]", iv)
	}
	// Two small, skewed tables, computed the same way: n = 50 with 10 A-only
	// and 2 B-only has its ideal quantiles at 0.04 and 0.30; n = 60 with 3
	// A-only and 12 B-only at −0.2667 and −0.0333 (−16/60, −2/60).
	for _, c := range []struct {
		p         Pairs
		low, high float64
	}{
		{Pairs{Both: 30, OnlyA: 10, OnlyB: 2, Neither: 8}, 0.04, 0.30},
		{Pairs{Both: 40, OnlyA: 3, OnlyB: 12, Neither: 5}, -16.0 / 60, -2.0 / 60},
	} {
		got := c.p.Bootstrap(20000, 3)
		step := 1 / float64(c.p.N())
		if math.Abs(got.Low-c.low) > step || math.Abs(got.High-c.high) > step {
			t.Errorf("%+v: %+v, want about [%v, %v]", c.p, got, c.low, c.high)
		}
	}
	if again := p.Bootstrap(20000, 1); again != iv {
		t.Errorf("same seed, %+v then %+v", iv, again)
	}
	one, again, other := p.resample(500, 1), p.resample(500, 1), p.resample(500, 2)
	if !slices.Equal(one, again) || slices.Equal(one, other) {
		t.Errorf("resamples not fixed by the seed alone")
	}
	for _, c := range []struct {
		p    Pairs
		want Interval
	}{
		{Pairs{Both: 10, Neither: 5}, Interval{0, 0}}, // no discordant pair: no difference
		{Pairs{OnlyA: 7}, Interval{1, 1}},
		{Pairs{OnlyB: 3}, Interval{-1, -1}},
		{Pairs{}, Interval{}},
	} {
		if got := c.p.Bootstrap(1000, 7); got != c.want {
			t.Errorf("%+v: %+v, want %+v", c.p, got, c.want)
		}
	}
}

func TestPercentile(t *testing.T) {
	s := []float64{1, 2, 3, 4, 5}
	for q, want := range map[float64]float64{0: 1, 1: 5, 0.5: 3, 0.25: 2, 0.1: 1.4, 0.975: 4.9} {
		if got := percentile(s, q); math.Abs(got-want) > 1e-12 {
			t.Errorf("q %v: %v, want %v", q, got, want)
		}
	}
}

// BenchmarkBootstrap: 10,000 resamples of the whole BFCL suite's size.
func BenchmarkBootstrap(b *testing.B) {
	p := Pairs{Both: 2800, OnlyA: 250, OnlyB: 180, Neither: 261}
	for b.Loop() {
		p.Bootstrap(10000, 1)
	}
}
