package response

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// seqPatterns are the shared templates' patterns (delimiters and xml-inline
// tags) that the sequence matcher takes, and sequences that stress its
// choices: greedy and lazy runs side by side, bounds, runs that share
// characters with what follows, groups, several-byte characters.
func seqPatterns(tb testing.TB) []*rx {
	srcs := []string{
		`<parameter=(?P<key>\w+)>\s*(?P<value>.*?)\s*</parameter>`,
		`<tool_call>\s*<function=(?P<name>\w+)>`,
		`a*?b`, `a+a`, `x{2,4}y`, `x{2,4}?x`, `(a*)(a*)b`, `(?P<k>\w+)\s*=\s*(?P<v>.*?);`, `a?a?aa`, `.*`, `.*?`,
		`(é+)x`, `[^<]*<`, `a{0,2}?a`, `(x)`, ``, `a*`, `\s*(.*?)\s*</t>`, `(a+?)(a*?)b`, `<(\w+)>(.*)</(\w+)>`,
		`x{3,}y`, `[ab]{1,3}?b`, `[ab]*[ab]+?b`,
	}
	var out []*rx
	for _, s := range srcs {
		r, err := compileRx(s, false)
		if err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
		if r.seq == nil {
			tb.Fatalf("%s: not taken by the sequence matcher", s)
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
			for _, r := range []*rx{f.tag, delimRx(f.open), delimRx(f.close)} {
				if r != nil && r.seq != nil {
					out = append(out, r)
				}
			}
		}
	}
	return out
}

func delimRx(d *delim) *rx {
	if d == nil {
		return nil
	}
	return d.rx
}

var seqFragments = []string{"a", "b", "x", "y", "é", "<", ">", "/", "=", ";", " ", "\n", "\t", "aa", "xxx", "<parameter=",
	"</parameter>", "key", "<tool_call>", "<function=", "f", "</t>", "<|channel|>", "commentary to=functions.", "<|message|>", "\xff", "_", "1"}

func checkSeq(t *testing.T, r *rx, text string, from int) bool {
	t.Helper()
	got, ok := r.seq.find(text, from)
	if !ok {
		return false
	}
	want := r.re.FindStringSubmatchIndex(text[from:])
	for i := range want {
		if want[i] >= 0 {
			want[i] += from
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pattern %q on %q from %d: sequence matcher %v, Go's regexp %v", r.src, text, from, got, want)
	}
	return got != nil
}

// TestSeqMatch: the sequence matcher finds what Go's regexp finds, with the
// same captures, on texts chosen for its choices and on random texts.
func TestSeqMatch(t *testing.T) {
	for _, c := range []struct{ pat, text string }{
		{`[ab]{1,3}?b`, "aaaab"},       // a lazy run stops at its bound
		{`[ab]*[ab]+?b`, "aab"},        // a lazy run with a minimum, reached again from an earlier start
		{`x{2,4}y`, "xxxxxy"},          // a greedy run stops at its bound
		{`(a*)(a*)b`, "aab"},           // the first greedy run takes all
		{`\s*(.*?)\s*</t>`, " a </t>"}, // lazy then greedy around the value
	} {
		r, err := compileRx(c.pat, false)
		if err != nil || r.seq == nil {
			t.Fatalf("%s: %v", c.pat, err)
		}
		if !checkSeq(t, r, c.text, 0) {
			t.Errorf("%s on %q: no match", c.pat, c.text)
		}
	}
	rng := rand.New(rand.NewSource(3))
	matched := 0
	for _, r := range seqPatterns(t) {
		for i := 0; i < 400; i++ {
			var b []byte
			for n := rng.Intn(16); n >= 0; n-- {
				b = append(b, seqFragments[rng.Intn(len(seqFragments))]...)
			}
			text := string(b)
			from := 0
			if rng.Intn(4) == 0 {
				from = rng.Intn(len(text) + 1)
			}
			if checkSeq(t, r, text, from) {
				matched++
			}
		}
	}
	if matched < 2000 {
		t.Fatalf("only %d matches: the texts do not exercise the patterns", matched)
	}
}

// FuzzSeqMatch is TestSeqMatch on any text.
func FuzzSeqMatch(f *testing.F) {
	f.Add(uint8(0), "<parameter=city>\n Paris \n</parameter>")
	f.Add(uint8(4), "xxxxy")
	pats := seqPatterns(f)
	f.Fuzz(func(t *testing.T, which uint8, text string) {
		if len(text) > 1024 {
			text = text[:1024]
		}
		checkSeq(t, pats[int(which)%len(pats)], text, 0)
	})
}
