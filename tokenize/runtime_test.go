package tokenize

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/dragoman-dev/dragoman/template"
)

// The tiny model's vocabulary (real Qwen3) writes "</s>" as an ordinary
// token: Ollama reads it as text (four tokens), llama.cpp makes it a control
// token when it loads the file and matches it whole (e2e/llamatokenize_test.go
// checks this against a real llama-server).
func TestLlamaCppReadsControlLookingTokens(t *testing.T) {
	qwen3(t) // skips or fails as the other tests do when the model is missing
	path := filepath.Join(sharedDir(), "models", "tiny-qwen3-random.gguf")
	ollama, err := FromGGUFFor(path, Ollama)
	if err != nil {
		t.Fatal(err)
	}
	llama, err := FromGGUFFor(path, LlamaCpp)
	if err != nil {
		t.Fatal(err)
	}
	id, ok := ollama.Lookup("</s>")
	if !ok {
		t.Fatal(`the vocabulary has no "</s>"`)
	}
	if got := ollama.Type(id); got != TypeNormal {
		t.Fatalf(`"</s>" in the file is %v, want normal (the case this test is about)`, got)
	}
	if got := llama.Type(id); got != TypeControl {
		t.Errorf(`llama.cpp's reading: "</s>" is %v, want control`, got)
	}
	text := "<|im_start|>user\nend</s>here<|im_end|>"
	a, b := ollama.Encode(text), llama.Encode(text)
	if slices.Contains(a, id) {
		t.Errorf("Ollama's reading matched </s> as one token: %v", a)
	}
	if !slices.Contains(b, id) {
		t.Errorf("llama.cpp's reading did not match </s> as one token: %v", b)
	}
	if len(b) >= len(a) {
		t.Errorf("llama.cpp's reading: %d tokens, Ollama's %d; want fewer", len(b), len(a))
	}
	// Nothing else changes for this vocabulary.
	plain := "<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n<tool_call>\n{}\n</tool_call>"
	if x, y := ollama.Encode(plain), llama.Encode(plain); !slices.Equal(x, y) {
		t.Errorf("a prompt without </s>: %v and %v", x, y)
	}
	if ollama.Decode(b) != text || llama.Decode(b) != text {
		t.Errorf("decoding llama.cpp's ids does not give the text back")
	}
}

// Each of llama.cpp's load-time rules on a vocabulary written for the test.
func TestLlamaCppTypeRules(t *testing.T) {
	vocab := []string{
		"a", "b", // 0, 1
		"<|im_end|>",     // 2: an end-of-generation marker, normal in the file
		"<|fim_prefix|>", // 3: FIM, its metadata key absent
		"<|fim_suffix|>", // 4: FIM, its metadata key present
		"<|channel|>",    // 5: Harmony marker, control in the file
		"<|endoftext|>",  // 6: already control
		"<unused0>",      // 7: not a marker
		"<|im_start|>",   // 8: not a marker llama.cpp knows, normal
	}
	types := []int32{1, 1, 1, 1, 1, 3, 3, 1, 1}
	meta := func(extra map[string]any) *template.GGUF {
		v := map[string]any{
			"tokenizer.ggml.model":            "gpt2",
			"tokenizer.ggml.pre":              "qwen2",
			"tokenizer.ggml.tokens":           vocab,
			"tokenizer.ggml.token_type":       types,
			"tokenizer.ggml.merges":           []string{},
			"tokenizer.ggml.fim_suf_token_id": uint32(4),
		}
		for k, x := range extra {
			v[k] = x
		}
		return &template.GGUF{Values: v}
	}
	want := map[int]TokenType{
		2: TypeControl, 3: TypeControl, 4: TypeNormal, 5: TypeUserDefined,
		6: TypeControl, 7: TypeNormal, 8: TypeNormal,
	}
	tk, err := FromGGUFMetadataFor(meta(nil), LlamaCpp)
	if err != nil {
		t.Fatal(err)
	}
	for id, tt := range want {
		if got := tk.Type(id); got != tt {
			t.Errorf("%q: %v, want %v", vocab[id], got, tt)
		}
	}
	asFile, err := FromGGUFMetadataFor(meta(nil), Ollama)
	if err != nil {
		t.Fatal(err)
	}
	for id := range vocab {
		if got := asFile.Type(id); got != TokenType(types[id]) {
			t.Errorf("Ollama's reading changed %q: %v", vocab[id], got)
		}
	}

	// Gemma 4: with "<|tool_response>" in the vocabulary, "</s>" is normal
	// even where the file says control.
	vocab = append(vocab, "<|tool_response>", "</s>")
	types = append(types, 1, 3)
	tk, err = FromGGUFMetadataFor(meta(nil), LlamaCpp)
	if err != nil {
		t.Fatal(err)
	}
	if got := tk.Type(10); got != TypeNormal {
		t.Errorf(`Gemma 4's "</s>": %v, want normal`, got)
	}
	if got := tk.Type(9); got != TypeControl {
		t.Errorf(`"<|tool_response>": %v, want control`, got)
	}
}

func TestParseRuntime(t *testing.T) {
	for in, want := range map[string]Runtime{"": Ollama, "ollama": Ollama, "llamacpp": LlamaCpp, "llama-server": LlamaCpp, "embedded": LlamaCpp} {
		got, err := ParseRuntime(in)
		if err != nil || got != want {
			t.Errorf("%q: %v, %v", in, got, err)
		}
	}
	if _, err := ParseRuntime("vllm"); err == nil {
		t.Error("an unknown runtime was accepted")
	}
	for _, r := range []Runtime{Ollama, LlamaCpp} {
		if back, err := ParseRuntime(r.String()); err != nil || back != r {
			t.Errorf("%v does not read back: %v, %v", r, back, err)
		}
	}
}
