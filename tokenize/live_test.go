package tokenize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/internal/ollamatest"
)

// The live tests compare Count with the runtime's own count: Ollama's
// prompt_eval_count for a raw prompt of one token to predict. For the tiny
// models' architecture ("llama") Ollama v0.17.4 runs its llama.cpp runner,
// which tokenizes with parse_special=true, adds BOS only when the vocabulary
// asks (Qwen does not) and reports the whole prompt's length, cached prefix
// or not (numPromptInputs is taken before the cache is consulted). They skip
// without $DRAGOMAN_OLLAMA, as ollamatest does.

func TestMain(m *testing.M) { ollamatest.Main(m) }

// liveCorpus is the hand-picked strings, random strings and the corpus's
// rendered prompts: every twelfth of those, or all of them with
// DRAGOMAN_TOKENIZE_LIVE_ALL=1 (about 750 requests; minutes on a busy machine).
func liveCorpus(t *testing.T) (names, texts []string) {
	all := os.Getenv("DRAGOMAN_TOKENIZE_LIVE_ALL") == "1"
	nRandom, every := 30, 12
	if all {
		nRandom, every = 150, 1
	}
	for i, s := range handStrings {
		names, texts = append(names, fmt.Sprintf("hand[%d]", i)), append(texts, s)
	}
	for i, s := range randomStrings(7, nRandom) {
		names, texts = append(names, fmt.Sprintf("random[%d]", i)), append(texts, s)
	}
	golden := goldenPrompts(t)
	keys := make([]string, 0, len(golden))
	for k := range golden {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i%every == 0 {
			names, texts = append(names, k), append(texts, golden[k])
		}
	}
	return names, texts
}

func TestLiveOllamaCount(t *testing.T) {
	srv := ollamatest.Shared(t)
	tk := qwen3(t)
	names, texts := liveCorpus(t)
	client := &http.Client{Timeout: 30 * time.Second}
	compared, differ, failed := 0, 0, 0
	start := time.Now()
	for i, text := range texts {
		if text == "" {
			continue
		}
		got, err := ollamaPromptTokens(client, srv.URL, srv.NoTemplate, text)
		if err != nil {
			t.Errorf("%s: %v\ntext %q\n%s", names[i], err, text, srv.LogTail(20))
			if failed++; failed == 3 {
				t.FailNow()
			}
			continue
		}
		compared++
		if compared%50 == 0 {
			t.Logf("%d compared, %d differ, %s", compared, differ, time.Since(start).Round(time.Second))
		}
		if want := tk.Count(text); got != want {
			differ++
			t.Errorf("%s: Count = %d, Ollama prompt_eval_count = %d\ntext %q\nours %v", names[i], want, got, text, tk.Encode(text))
		}
	}
	t.Logf("compared %d texts with Ollama's prompt_eval_count, %d differ", compared, differ)
}

// TestLiveOllamaNoPrefixCache checks the premise of TestLiveOllamaCount: a
// prompt sent twice, and a prompt that extends an earlier one, are counted
// whole.
func TestLiveOllamaNoPrefixCache(t *testing.T) {
	srv := ollamatest.Shared(t)
	tk := qwen3(t)
	client := &http.Client{Timeout: 2 * time.Minute}
	base := "<|im_start|>user\nA prompt whose prefix the runtime has just seen, several times over.<|im_end|>\n"
	for _, text := range []string{base, base, base + "<|im_start|>assistant\n"} {
		got, err := ollamaPromptTokens(client, srv.URL, srv.NoTemplate, text)
		if err != nil {
			t.Fatal(err)
		}
		if want := tk.Count(text); got != want {
			t.Errorf("Count = %d, prompt_eval_count = %d for %q", want, got, text)
		}
	}
}

func ollamaPromptTokens(client *http.Client, url, model, prompt string) (int, error) {
	body, _ := json.Marshal(map[string]any{
		"model":  model,
		"prompt": prompt,
		"raw":    true,
		"stream": false,
		// num_ctx above every test prompt's length, so that nothing is truncated;
		// the same value on every request, so that the model loads once.
		"options": map[string]any{"num_predict": 1, "num_ctx": 16384, "temperature": 0},
	})
	resp, err := client.Post(url+"/api/generate", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw)
	}
	var out struct {
		PromptEvalCount *int `json:"prompt_eval_count"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return 0, fmt.Errorf("%v: %s", err, raw)
	}
	if out.PromptEvalCount == nil {
		return 0, fmt.Errorf("no prompt_eval_count in %s", raw)
	}
	return *out.PromptEvalCount, nil
}
