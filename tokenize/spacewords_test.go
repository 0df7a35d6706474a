package tokenize

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The places spaceWords cuts: before a "▁" that follows another character,
// not inside a run of "▁", not where a crossing token spans the place.
func TestSpaceWordsCut(t *testing.T) {
	p := spaceWords{crossing: []crossingToken{{">▁</", []int{1}}}}
	for in, want := range map[string][]string{
		"▁a▁b":        {"▁a", "▁b"},
		"a▁▁b▁c":      {"a", "▁▁b", "▁c"},
		"▁▁▁x":        {"▁▁▁x"},
		"x>▁</y▁z":    {"x>▁</y", "▁z"},
		"x>▁<y":       {"x>", "▁<y"},
		"":            nil,
		"word":        {"word"},
		"é▁ü▁":        {"é", "▁ü", "▁"},
		">▁</>▁</▁a>": {">▁</>▁</", "▁a>"},
	} {
		var got []string
		p.cut(in, func(w string) { got = append(got, w) })
		if !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// Cutting changes no result: a character-BPE vocabulary whose merges join
// "▁" runs, words and two crossing tokens (">▁", ">▁</"), on random texts,
// encodes the same with the text cut at spaces as whole (and would not if
// the crossing tokens were not looked for).
func TestSpaceWordsExact(t *testing.T) {
	vocab := map[string]int{"<unk>": 0}
	add := func(s string) {
		if _, ok := vocab[s]; !ok {
			vocab[s] = len(vocab)
		}
	}
	for _, c := range []string{"▁", "a", "b", ">", "<", "/", "é"} {
		add(c)
	}
	var merges [][2]string
	merge := func(a, b string) {
		add(a + b)
		merges = append(merges, [2]string{a, b})
	}
	merge("▁", "▁")
	merge("▁", "a")
	merge("<", "/")
	merge(">", "▁")
	merge(">▁", "</")
	merge("▁a", "b")
	merge("a", "b")
	merge("▁▁", "▁")
	merge("b", ">")
	merge("▁", "<")
	merge("▁▁", "a")
	file := map[string]any{
		"normalizer":    map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"},
		"pre_tokenizer": nil,
		"model":         map[string]any{"type": "BPE", "vocab": vocab, "merges": merges, "unk_token": "<unk>"},
	}
	data, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	cut, err := ParseTokenizerJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	sw, ok := cut.pre.(spaceWords)
	if !ok || len(sw.crossing) != 2 || sw.crossing[0].text != ">▁" || sw.crossing[1].text != ">▁</" {
		t.Fatalf("pre-tokenizer %#v", cut.pre)
	}
	whole, _ := ParseTokenizerJSON(data)
	whole.pre = sw.inner
	alphabet := []string{" ", " ", "a", "b", ">", "<", "/", "é", "x"}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 3000; trial++ {
		var b strings.Builder
		for n := rng.IntN(24); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := cut.Encode(s), whole.Encode(s); !slices.Equal(got, want) {
			t.Fatalf("%q: cut %v, whole %v", s, got, want)
		}
	}
}

// A vocabulary without "▁" is not cut: "▁" is then an unknown character,
// which the model fuses with unknown characters before it, across the place
// a cut would make.
func TestSpaceWordsNeedTheSpacePiece(t *testing.T) {
	file := map[string]any{
		"normalizer":    map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"},
		"pre_tokenizer": nil,
		"model":         map[string]any{"type": "BPE", "vocab": map[string]int{"<unk>": 0, "a": 1, "b": 2}, "merges": [][2]string{}, "unk_token": "<unk>", "fuse_unk": true},
	}
	data, _ := json.Marshal(file)
	tk, err := ParseTokenizerJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, cut := tk.pre.(spaceWords); cut {
		t.Fatal("a vocabulary without ▁ is cut")
	}
	if got := tk.Encode("aé b"); !slices.Equal(got, []int{1, 0, 2}) {
		t.Errorf("ids %v, want [1 0 2]: a, one unknown for \"é▁\", b", got)
	}
	tk.pre = spaceWords{inner: tk.pre}
	tk.cache = wordCache{}
	if got := tk.Encode("aé b"); slices.Equal(got, []int{1, 0, 2}) {
		t.Errorf("cut anyway, the ids are still %v: the test shows nothing", got)
	}
}
