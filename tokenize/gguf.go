package tokenize

import (
	"fmt"
	"strings"

	"github.com/dragoman-dev/dragoman/template"
)

// FromGGUF loads the tokenizer in the GGUF file at path (its metadata only;
// tensor data is never read), with the token types as the file writes them
// (as Ollama reads it; FromGGUFFor reads it as another runtime).
func FromGGUF(path string) (*Tokenizer, error) { return FromGGUFFor(path, Ollama) }

// ggufPre maps tokenizer.ggml.pre to the pre-tokenizer llama.cpp uses for it
// (llama-vocab.cpp) and whether it sets ignore_merges. Only the pre-tokenizers
// written here are listed; any other value is an error rather than a guess.
func ggufPre(name string) (pre preTokenizer, ignoreMerges, addBOS bool, ok bool) {
	switch name {
	case "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2":
		return llama3Split{maxDigits: 3}, true, true, true
	case "dbrx", "smaug-bpe":
		return llama3Split{maxDigits: 3}, false, false, true
	case "qwen2", "deepseek-r1-qwen", "kormo", "stablelm2", "hunyuan", "grok-2":
		return llama3Split{maxDigits: 1}, false, false, true
	case "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
		"mpt", "olmo", "jais", "trillion", "granite-docling":
		return gpt2Split{}, false, false, true
	case "default":
		return llamaCppDefault, false, false, true
	}
	return nil, false, false, false
}

// FromGGUFMetadata builds the tokenizer that GGUF metadata describes, as
// Ollama reads it.
func FromGGUFMetadata(g *template.GGUF) (*Tokenizer, error) { return FromGGUFMetadataFor(g, Ollama) }

// FromGGUFMetadataFor builds the tokenizer that GGUF metadata describes, as
// rt reads it.
func FromGGUFMetadataFor(g *template.GGUF, rt Runtime) (*Tokenizer, error) {
	model, _ := g.String("tokenizer.ggml.model")
	switch model {
	case "gpt2":
	case "llama":
		return fromGGUFSPM(g, rt)
	case "":
		return nil, fmt.Errorf("no tokenizer in the GGUF metadata (tokenizer.ggml.model missing)")
	default:
		return nil, fmt.Errorf("tokenizer.ggml.model %q is not supported yet (only \"gpt2\", byte-level BPE, and \"llama\", SentencePiece BPE)", model)
	}
	preName, _ := g.String("tokenizer.ggml.pre")
	if preName == "" {
		preName = "default"
	}
	pre, ignoreMerges, addBOS, ok := ggufPre(preName)
	if !ok {
		return nil, fmt.Errorf("tokenizer.ggml.pre %q is not supported yet", preName)
	}
	tokens, types, err := ggufVocab(g, rt)
	if err != nil {
		return nil, err
	}
	merges, _ := g.Strings("tokenizer.ggml.merges")
	pairs := make([][2]string, 0, len(merges))
	for _, m := range merges {
		// llama.cpp splits at the first space after the first byte
		k := strings.IndexByte(m[min(1, len(m)):], ' ')
		if k < 0 {
			continue
		}
		k += min(1, len(m))
		pairs = append(pairs, [2]string{m[:k], m[k+1:]})
	}
	t := newTokenizer(tokens, types, pairs)
	t.pre, t.preName, t.ignoreMerge = pre, preName, ignoreMerges
	t.ggufAffixes(g, addBOS)
	return t, nil
}

// ggufVocab reads the tokens and their types, as rt reads them.
func ggufVocab(g *template.GGUF, rt Runtime) ([]string, []TokenType, error) {
	tokens, ok := g.Strings("tokenizer.ggml.tokens")
	if !ok || len(tokens) == 0 {
		return nil, nil, fmt.Errorf("tokenizer.ggml.tokens missing")
	}
	types := make([]TokenType, len(tokens))
	for i := range types {
		types[i] = TypeNormal
	}
	if v, ok := g.Values["tokenizer.ggml.token_type"]; ok {
		tt, ok := intSlice(v)
		if !ok || len(tt) != len(tokens) {
			return nil, nil, fmt.Errorf("tokenizer.ggml.token_type: want %d integers", len(tokens))
		}
		for i, x := range tt {
			types[i] = TokenType(x)
		}
	}
	if rt == LlamaCpp {
		applyLlamaCppTypes(g, tokens, types)
	}
	return tokens, types, nil
}

// fromGGUFSPM builds llama.cpp's SentencePiece tokenizer (tokenizer.ggml.model
// "llama": Llama 2, Mistral v1–v3, Gemma GGUFs): no pre-tokenizer, a space
// put before every stretch of text between special tokens (unless
// tokenizer.ggml.add_space_prefix is false), spaces written as "▁", merges
// by the merged token's score, bytes' tokens for unknown characters, BOS
// added unless tokenizer.ggml.add_bos_token is false.
func fromGGUFSPM(g *template.GGUF, rt Runtime) (*Tokenizer, error) {
	tokens, types, err := ggufVocab(g, rt)
	if err != nil {
		return nil, err
	}
	t := newTokenizer(tokens, types, nil)
	t.kind, t.pre, t.preName = modelSPM, wholeText{}, "spm"
	t.scores = make([]float32, len(tokens))
	if v, ok := g.Values["tokenizer.ggml.scores"]; ok {
		sc, ok := v.([]float32)
		if !ok || len(sc) != len(tokens) {
			return nil, fmt.Errorf("tokenizer.ggml.scores: want %d float32 values", len(tokens))
		}
		copy(t.scores, sc)
	}
	addSpace := true
	if b, ok := g.Values["tokenizer.ggml.add_space_prefix"].(bool); ok {
		addSpace = b
	}
	t.meta = &metaspace{replacement: spaceMark, prefixSpace: addSpace}
	t.unk = -1
	if id, ok := g.Int("tokenizer.ggml.unknown_token_id"); ok && id >= 0 && id < int64(len(tokens)) {
		t.unk = int32(id)
	}
	t.finishChars()
	t.ggufAffixes(g, true)
	return t, nil
}

// ggufAffixes sets BOS, EOS, what the runtime adds around a prompt, and the
// special-token matcher.
func (t *Tokenizer) ggufAffixes(g *template.GGUF, addBOS bool) {
	tokens, types := t.texts, t.types
	t.bos, t.eos = -1, -1
	if id, ok := g.Int("tokenizer.ggml.bos_token_id"); ok && id >= 0 && id < int64(len(tokens)) {
		t.bos = int32(id)
	}
	if id, ok := g.Int("tokenizer.ggml.eos_token_id"); ok && id >= 0 && id < int64(len(tokens)) {
		t.eos = int32(id)
	}
	addEOS := false
	if b, ok := g.Values["tokenizer.ggml.add_bos_token"].(bool); ok {
		addBOS = b
	}
	if b, ok := g.Values["tokenizer.ggml.add_eos_token"].(bool); ok {
		addEOS = b
	}
	if addBOS && t.bos >= 0 {
		t.prefix = []int32{t.bos}
	}
	if addEOS && t.eos >= 0 {
		t.suffix = []int32{t.eos}
	}
	var ids []int32
	var texts []string
	for id, tt := range types {
		if isSpecialType(tt) {
			ids = append(ids, int32(id))
			texts = append(texts, tokens[id])
		}
	}
	t.special = newSpecialMatcher(ids, texts, false)
}

// newTokenizer builds the vocabulary, pieces and merge table.
func newTokenizer(tokens []string, types []TokenType, merges [][2]string) *Tokenizer {
	t := &Tokenizer{
		texts:  tokens,
		types:  types,
		pieces: make([]string, len(tokens)),
		vocab:  make(map[string]int32, len(tokens)),
		unk:    -1,
	}
	for id, s := range tokens {
		if _, dup := t.vocab[s]; !dup && s != "" {
			t.vocab[s] = int32(id)
		}
		if types[id] == TypeNormal || types[id] == TypeUndefined || types[id] == TypeByte {
			t.pieces[id] = decodeByteLevel(s)
		} else {
			t.pieces[id] = s
		}
	}
	var buf [4]byte
	for b := 0; b < 256; b++ {
		t.byteID[b] = -1
		enc := appendByteLevel(buf[:0], string([]byte{byte(b)}))
		if id, ok := t.vocab[string(enc)]; ok {
			t.byteID[b] = id
		}
	}
	t.merges = make(map[uint64]uint64, len(merges))
	for rank, m := range merges {
		l, okl := t.vocab[m[0]]
		r, okr := t.vocab[m[1]]
		res, okm := t.vocab[m[0]+m[1]]
		if !okl || !okr || !okm {
			continue
		}
		key := uint64(uint32(l))<<32 | uint64(uint32(r))
		if _, dup := t.merges[key]; !dup {
			t.merges[key] = uint64(rank)<<32 | uint64(uint32(res))
		}
	}
	return t
}

// intSlice converts a GGUF integer array of any width.
func intSlice(v any) ([]int64, bool) {
	conv := func(n int, at func(int) int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = at(i)
		}
		return out
	}
	switch a := v.(type) {
	case []int32:
		return conv(len(a), func(i int) int64 { return int64(a[i]) }), true
	case []uint32:
		return conv(len(a), func(i int) int64 { return int64(a[i]) }), true
	case []int8:
		return conv(len(a), func(i int) int64 { return int64(a[i]) }), true
	case []uint8:
		return conv(len(a), func(i int) int64 { return int64(a[i]) }), true
	case []int16:
		return conv(len(a), func(i int) int64 { return int64(a[i]) }), true
	case []uint16:
		return conv(len(a), func(i int) int64 { return int64(a[i]) }), true
	case []int64:
		return a, true
	case []uint64:
		return conv(len(a), func(i int) int64 { return int64(a[i]) }), true
	}
	return nil, false
}
