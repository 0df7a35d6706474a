package response

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// resumePatterns are the shared templates' delimiter patterns and some that
// exercise what resuming must get right: lazy and greedy loops, alternatives
// of different lengths, assertions at the end, lookaheads, captures,
// characters of several bytes.
func resumePatterns(tb testing.TB) []*rx {
	srcs := []string{
		`<tool_call>\s*<function=(?P<name>\w+)>`,
		`<\|channel\|>commentary to=functions\.(?P<name>\w+).*?<\|message\|>`,
		`a+?b`, `(a|ab)(c|bcd)`, `\bfoo\b`, `x$`, `x(?=y)`, `\n\n(?=<)`, `^<a>`,
		`[ab]*c`, `(?:<think>|<reason>)`, `é+`, `\d+\.`, `</?t>\s*`, `a*`,
		`(?P<k>\w+)=(?P<v>[^;]*);`, `<(x|xy|xyz)>`, `\s*</t>\s*`, `y\B`,
		// a match found while a preferred alternative still runs
		`x*y|x`, `a+b|a`, `<t>.*</t>|<t>`,
	}
	var out []*rx
	for _, s := range srcs {
		r, err := compileRx(s, false)
		if err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
		out = append(out, r)
	}
	files, _ := filepath.Glob(filepath.Join(templatesDir(tb), "*.json"))
	sort.Strings(files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		tpl, err := Load(data)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range tpl.fields {
			for _, d := range []*delim{f.open, f.close} {
				if d != nil && d.rx != nil {
					out = append(out, d.rx)
				}
			}
		}
	}
	return out
}

var resumeFragments = []string{
	"<tool_call>", "<function=", "get_weather", ">", "<", "\n", " ", "a", "b", "c", "d", "x", "y", "z",
	"foo", "é", "名", "=", ";", "1", ".", "<t>", "</t>", "<|channel|>", "commentary to=functions.",
	"<|message|>", "<|end|>", "<think>", "</think>", "<reason>", "_", "\t", "<x", "xy>", "bcd", "ab",
	"[TOOL_CALLS]", "<|tool_call>", "call:", "{", "}", "<|\"|>",
}

func resumeText(rng *rand.Rand) string {
	var b []byte
	for n := rng.Intn(14); n >= 0; n-- {
		b = append(b, resumeFragments[rng.Intn(len(resumeFragments))]...)
	}
	return string(b)
}

// checkResume feeds text to one kept search in the pieces cuts gives, from a
// fixed start as the parser does, and compares every answer with a search
// from scratch on the same text: matched, captures and the alive position,
// then the ended answer. It returns how many searches were resumed.
func checkResume(t *testing.T, r *rx, text string, from int, cuts []int) int {
	t.Helper()
	var st vmState
	resumed := 0
	same := func(a, b vmResult) bool {
		if a.matched != b.matched || a.alive != b.alive {
			return false
		}
		return !a.matched || slices.Equal(a.caps, b.caps)
	}
	for _, n := range append(cuts, len(text), -1) {
		ended := n < 0
		if ended {
			n = len(text)
		}
		if from > n {
			continue
		}
		s := text[:n]
		end := n
		if !ended {
			end -= partialRuneTail(s)
		}
		if from > end {
			continue
		}
		if st.kind != 0 && st.from == from && end >= st.end {
			resumed++
		}
		got := r.searchState(s, from, end, ended, &st)
		got.caps = slices.Clone(got.caps)
		want := r.search(s, from, end, ended)
		if !same(got, want) {
			t.Fatalf("pattern %q on %q from %d, end %d, ended %v (cuts %v):\nresumed %+v\nscratch %+v", r.src, s, from, end, ended, cuts, got, want)
		}
	}
	return resumed
}

func randomCuts(rng *rand.Rand, n int) []int {
	var cuts []int
	for at := 0; at < n; {
		at += 1 + rng.Intn(6)
		if at < n {
			cuts = append(cuts, at)
		}
	}
	return cuts
}

// TestResumedSearch: a search resumed as the text grows answers exactly as
// a search from scratch on the longer text, on random texts and splits.
func TestResumedSearch(t *testing.T) {
	rng := rand.New(rand.NewSource(19))
	resumed := 0
	for _, r := range resumePatterns(t) {
		for i := 0; i < 150; i++ {
			text := resumeText(rng)
			from := 0
			if len(text) > 0 && rng.Intn(3) == 0 {
				from = rng.Intn(len(text))
				for from > 0 && !isRuneStart(text, from) {
					from--
				}
			}
			resumed += checkResume(t, r, text, from, randomCuts(rng, len(text)))
		}
	}
	t.Logf("%d searches resumed", resumed)
	if resumed < 1000 {
		t.Fatalf("only %d searches were resumed: the test does not exercise resuming", resumed)
	}
}

func isRuneStart(s string, i int) bool { return i >= len(s) || s[i] < 0x80 || s[i] >= 0xC0 }

// FuzzResumedSearch is TestResumedSearch on any text and splits.
func FuzzResumedSearch(f *testing.F) {
	f.Add(uint8(0), "<tool_call>\n<function=get_weather>\n", uint64(12345))
	f.Add(uint8(1), "<|channel|>commentary to=functions.f <|message|>{}", uint64(7))
	pats := resumePatterns(f)
	f.Fuzz(func(t *testing.T, which uint8, text string, seed uint64) {
		if len(text) > 512 {
			text = text[:512]
		}
		rng := rand.New(rand.NewSource(int64(seed)))
		checkResume(t, pats[int(which)%len(pats)], text, 0, randomCuts(rng, len(text)))
	})
}

// TestGroupsRepeatedName: a name given to two groups (Go allows it, Python
// does not) keeps the last group that took part, as a map of the groups did.
func TestGroupsRepeatedName(t *testing.T) {
	r, err := compileRx(`(?P<n>a)(?P<n>b)(?P<m>c)?`, false)
	if err != nil {
		t.Fatal(err)
	}
	res := r.search("ab", 0, 2, true)
	if got := r.groupsInto(nil, "ab", res.caps); !slices.Equal(got, []string{"n", "b"}) {
		t.Fatalf("groups %q, want [n b]", got)
	}
}

// TestHoldBackLiterals: of a delimiter's literals, the one that could begin
// earliest at the end of the text holds text back.
func TestHoldBackLiterals(t *testing.T) {
	tpl := mustLoad(t, `{"start_anchor": "a", "fields": {"content": {}, "t": {"open": ["<tool>", "ol!"], "close": "</t>"}}}`)
	p, _, _ := NewParser(tpl, Options{})
	evs, _ := p.Feed("hi <tool")
	if len(evs) != 2 || evs[1].Text != "hi " {
		t.Fatalf("events %+v: want only \"hi \" released (\"<tool\" may begin <tool>)", evs)
	}
	evs, _ = p.Feed(">x</t>")
	if len(evs) < 2 || evs[0].Type != "region_close" || evs[1].Type != "region_open" || evs[1].Field != "t" {
		t.Fatalf("events %+v: want content closed and t opened", evs)
	}
}
