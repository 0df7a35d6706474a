package tokenize

import (
	"fmt"

	"github.com/dragoman-dev/dragoman/template"
)

// Runtime names whose reading of a GGUF vocabulary to follow where the
// runtimes disagree. The same file can tokenize differently: llama.cpp
// decides some token types by the token's text when it loads a vocabulary,
// Ollama takes the types the file writes.
type Runtime uint8

const (
	// Ollama takes tokenizer.ggml.token_type as written (Ollama v0.17.4's
	// runner). The default.
	Ollama Runtime = iota
	// LlamaCpp applies llama.cpp's load-time overrides (llama-vocab.cpp,
	// checked against llama-server v0.5.0 and the embedded engine's library):
	// a token whose text is one of the known end-of-generation or
	// fill-in-the-middle markers becomes a control token, so it is matched as
	// one special token in a prompt even where the file calls it normal.
	// This Qwen3 vocabulary's "</s>" is such a token: "</s>" in a prompt is
	// one token to llama-server and four to Ollama.
	LlamaCpp
)

func (r Runtime) String() string {
	switch r {
	case Ollama:
		return "ollama"
	case LlamaCpp:
		return "llamacpp"
	}
	return fmt.Sprintf("Runtime(%d)", r)
}

// ParseRuntime reads a runtime's name as String writes it ("llama.cpp",
// "llama-server" and "embedded" are read as LlamaCpp).
func ParseRuntime(s string) (Runtime, error) {
	switch s {
	case "ollama", "":
		return Ollama, nil
	case "llamacpp", "llama.cpp", "llama-server", "embedded":
		return LlamaCpp, nil
	}
	return 0, fmt.Errorf("unknown runtime %q (want ollama or llamacpp)", s)
}

// FromGGUFFor loads the tokenizer in the GGUF file at path as rt reads it.
func FromGGUFFor(path string, rt Runtime) (*Tokenizer, error) {
	g, err := template.ReadGGUFFile(path)
	if err != nil {
		return nil, err
	}
	t, err := FromGGUFMetadataFor(g, rt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// llamaCppEOG are the texts llama.cpp takes for end-of-generation tokens;
// each present in a vocabulary becomes a control token.
var llamaCppEOG = []string{
	"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
	"<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
	"<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
	"<｜end▁of▁sentence｜>", "[e~[",
}

// llamaCppFIM are the fill-in-the-middle markers llama.cpp looks for, by
// the metadata key that names the token when the converter wrote it. Where
// the key is absent, the first of the texts found becomes a control token.
// (llama.cpp walks a hash map, so with two candidates in one vocabulary its
// choice is not defined; no known vocabulary has two.)
var llamaCppFIM = []struct {
	keys  []string
	texts []string
}{
	{[]string{"tokenizer.ggml.fim_pre_token_id", "tokenizer.ggml.prefix_token_id"},
		[]string{"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>", "<|code_prefix|>", "<|prefix|>"}},
	{[]string{"tokenizer.ggml.fim_suf_token_id", "tokenizer.ggml.suffix_token_id"},
		[]string{"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>", "<|code_suffix|>", "<|suffix|>"}},
	{[]string{"tokenizer.ggml.fim_mid_token_id", "tokenizer.ggml.middle_token_id"},
		[]string{"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>", "<|code_middle|>", "<|middle|>"}},
	{[]string{"tokenizer.ggml.fim_pad_token_id"},
		[]string{"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}},
	{[]string{"tokenizer.ggml.fim_rep_token_id"},
		[]string{"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}},
	{[]string{"tokenizer.ggml.fim_sep_token_id"},
		[]string{"<|file_sep|>"}},
}

// llamaCppUserDefined are gpt-oss's Harmony markers, which llama.cpp makes
// user-defined tokens (still matched as special in a prompt).
var llamaCppUserDefined = []string{"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"}

// applyLlamaCppTypes rewrites types the way llama.cpp does when it loads the
// vocabulary. Only whether a token is special (control, user-defined or
// unknown) matters to tokenizing; the order of the steps is llama.cpp's.
func applyLlamaCppTypes(g *template.GGUF, tokens []string, types []TokenType) {
	ids := make(map[string]int, 64)
	want := func(list []string) {
		for _, s := range list {
			ids[s] = -1
		}
	}
	want(llamaCppEOG)
	want(llamaCppUserDefined)
	for _, f := range llamaCppFIM {
		want(f.texts)
	}
	for id, s := range tokens {
		if v, ok := ids[s]; ok && v < 0 {
			ids[s] = id
		}
	}
	control := func(s string) {
		if id := ids[s]; id >= 0 && !isSpecialType(types[id]) {
			types[id] = TypeControl
		}
	}
	for _, f := range llamaCppFIM {
		if hasAnyKey(g, f.keys) {
			continue
		}
		for _, s := range f.texts {
			if ids[s] >= 0 {
				control(s)
				break
			}
		}
	}
	for _, s := range llamaCppEOG {
		control(s)
	}
	for _, s := range llamaCppUserDefined {
		if id := ids[s]; id >= 0 {
			types[id] = TypeUserDefined
		}
	}
	// Gemma 4 writes "</s>" as an ordinary token beside "<|tool_response>";
	// llama.cpp takes the EOG override back there and makes it normal.
	if ids["<|tool_response>"] >= 0 && ids["</s>"] >= 0 {
		types[ids["</s>"]] = TypeNormal
	}
}

func hasAnyKey(g *template.GGUF, keys []string) bool {
	for _, k := range keys {
		if _, ok := g.Values[k]; ok {
			return true
		}
	}
	return false
}
