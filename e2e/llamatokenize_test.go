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
// third rendered prompt of the corpus, read as llama.cpp reads it
// (tokenize.LlamaCpp). Read as Ollama reads it, the prompts with "</s>"
// differ, and only those: llama.cpp makes that ordinary token of this
// vocabulary a control token when it loads it.
func TestTokenizeEqualsLlamaServer(t *testing.T) {
	ls := startLlamaServer(t)
	model := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf")
	tk, err := tokenize.FromGGUFFor(model, tokenize.LlamaCpp)
	if err != nil {
		t.Fatal(err)
	}
	asOllama, err := tokenize.FromGGUF(model)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(fixtures.Dir(), "corpus", "golden", "*.txt"))
	sort.Strings(files)
	compared, tokens, withEndS := 0, 0, 0
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
			t.Errorf("%s: %d ids, llama-server %d", filepath.Base(f), len(got), len(want.Tokens))
		}
		hasEndS := strings.Contains(string(text), "</s>")
		if sameAsOllama := reflect.DeepEqual(asOllama.Encode(string(text)), want.Tokens); sameAsOllama == hasEndS {
			t.Errorf("%s: read as Ollama reads it, equal to llama-server: %v; the prompt has </s>: %v", filepath.Base(f), sameAsOllama, hasEndS)
		}
		if hasEndS {
			withEndS++
		}
		compared++
		tokens += len(want.Tokens)
	}
	t.Logf("%d prompts, %d tokens: ids equal to llama-server %s's /tokenize; %d prompts with \"</s>\" differ when read as Ollama reads the vocabulary",
		compared, tokens, ls.BuildInfo, withEndS)
}
