package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
	"github.com/dragoman-dev/dragoman/tokenize"
)

// Token ids equal llama-server's /tokenize (special tokens parsed, none
// added) on the tiny model's vocabulary — the real Qwen3 tokenizer — for every
// third rendered prompt of the corpus.
func TestTokenizeEqualsLlamaServer(t *testing.T) {
	ls := startLlamaServer(t)
	model := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf")
	tk, err := tokenize.FromGGUF(model)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(fixtures.Dir(), "corpus", "golden", "*.txt"))
	sort.Strings(files)
	compared, tokens, known := 0, 0, 0
	for i, f := range files {
		if i%3 != 0 {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(map[string]any{"content": string(text), "add_special": false, "parse_special": true})
		status, answer := postJSON(t, ls.URL+"/tokenize", body)
		if status != 200 {
			t.Fatalf("%s: /tokenize answered %d: %s", f, status, answer)
		}
		var want struct {
			Tokens []int `json:"tokens"`
		}
		if err := json.Unmarshal(answer, &want); err != nil {
			t.Fatal(err)
		}
		got := tk.Encode(string(text))
		if !reflect.DeepEqual(got, want.Tokens) {
			if strings.Contains(string(text), "</s>") {
				// A known difference, kept visible: llama.cpp v0.5.0 turns this vocabulary's
				// "</s>" (an ordinary token in the GGUF) into a control token when it loads
				// it ("control-looking token … its type will be overridden"), so /tokenize
				// matches it as one token; Ollama v0.17.4's runner does not, and Count
				// follows Ollama (tokenize/live_test.go).
				known++
				continue
			}
			t.Errorf("%s: %d ids, llama-server %d", filepath.Base(f), len(got), len(want.Tokens))
		}
		compared++
		tokens += len(want.Tokens)
	}
	t.Logf("%d prompts, %d tokens: ids equal to llama-server %s's /tokenize but for %d with \"</s>\" (known: llama.cpp makes it a control token)",
		compared, tokens, ls.BuildInfo, known)
}
