// Package tokenize turns text into a model's token ids the way the model's
// runtime does, so that Dragoman can count a rendered prompt's tokens exactly
// (for Ollama's num_ctx, for the prompt's make-up, for traces).
//
// A Tokenizer is loaded from a GGUF file's tokenizer.ggml.* metadata
// (FromGGUF) or from a Hugging Face tokenizer.json (FromTokenizerJSON). The
// text is first cut at the special and user-defined tokens it contains (as
// llama.cpp does with parse_special=true and Hugging Face tokenizers do for
// added tokens); each remaining stretch is normalised, split into words by
// the model's pre-tokenizer, and each word given to the model: byte-level BPE
// (GGUF "gpt2"; Qwen, Llama 3, Mistral's Tekken, gpt-oss), BPE over
// characters with byte fallback (SentencePiece conversions: Llama 2, Mistral
// v1–v3, Gemma), llama.cpp's SentencePiece merge by score (GGUF "llama"), or
// Unigram.
//
// The GGUF path follows llama.cpp, which is what Ollama (for most
// architectures) and llama-server run: no Unicode normalisation, special
// tokens matched longest first. The tokenizer.json path follows Hugging Face
// tokenizers: the file's normalizer and leftmost-longest matching of added
// tokens.
//
// A Tokenizer is safe for concurrent use. It keeps a bounded per-word cache.
package tokenize

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// TokenType is a token's type as GGUF records it (llama.cpp's llama_token_type).
type TokenType int32

// Token types.
const (
	TypeUndefined   TokenType = 0
	TypeNormal      TokenType = 1
	TypeUnknown     TokenType = 2
	TypeControl     TokenType = 3
	TypeUserDefined TokenType = 4
	TypeUnused      TokenType = 5
	TypeByte        TokenType = 6
)

func (t TokenType) String() string {
	switch t {
	case TypeNormal:
		return "normal"
	case TypeUnknown:
		return "unknown"
	case TypeControl:
		return "control"
	case TypeUserDefined:
		return "user-defined"
	case TypeUnused:
		return "unused"
	case TypeByte:
		return "byte"
	}
	return fmt.Sprintf("type(%d)", int32(t))
}

// Tokenizer is a loaded tokenizer. Create one with FromGGUF or
// FromTokenizerJSON.
type Tokenizer struct {
	texts  []string         // id → token text as the vocabulary stores it (byte-level encoded for normal tokens)
	types  []TokenType      // id → type
	pieces []string         // id → the text the token stands for (decoded bytes)
	vocab  map[string]int32 // token text → id (first id wins, as llama.cpp)

	merges      map[uint64]uint64 // left<<32|right → rank<<32|merged
	byteID      [256]int32        // the token of each single byte, -1 if the vocabulary lacks it
	ignoreMerge bool              // a word that is a token as a whole is that token (Llama 3, tokenizer.json ignore_merges)

	kind         modelKind
	byteTok      [256]int32 // the "<0xXX>" token of each byte (SentencePiece models), -1 if none
	byteFallback bool       // a character the vocabulary lacks becomes its bytes' tokens
	unk          int32      // the unknown token, -1 if none
	fuseUnk      bool       // a run of unknown characters is one unknown token
	scores       []float32  // id → score (SPM)
	scores64     []float64  // id → score (Unigram)
	unkScore     float64    // Unigram: the score of an unknown character
	trie         pieceTrie  // Unigram: the vocabulary as a byte trie

	pre       preTokenizer
	preName   string
	normalize func(string) string // nil: none
	meta      *metaspace          // spaces → "▁" and the prefix, per segment; nil: none

	special specialMatcher

	bos, eos       int32   // -1 when unknown
	prefix, suffix []int32 // what the runtime adds around a prompt (BOS, EOS)

	cache wordCache
}

// Encode returns the token ids of text: special and user-defined tokens
// written in the text become their ids, everything else is pre-tokenized and
// merged. No BOS or EOS is added (as llama-server's /tokenize and
// add_special_tokens=False); Count adds them where the runtime would.
func (t *Tokenizer) Encode(text string) []int {
	e := encoder{t: t, ids: make([]int, 0, len(text)/3+4)}
	t.encode(text, &e)
	return e.ids
}

// EncodePrompt returns the tokens the runtime evaluates for text as a raw
// prompt: Encode(text) with the BOS and EOS tokens the model adds around it
// (GGUF tokenizer.ggml.add_bos_token / add_eos_token, a tokenizer.json's
// TemplateProcessing; Qwen adds none, Llama 3 adds BOS).
func (t *Tokenizer) EncodePrompt(text string) []int {
	e := encoder{t: t, ids: make([]int, 0, len(text)/3+4+len(t.prefix)+len(t.suffix))}
	for _, id := range t.prefix {
		e.add(id)
	}
	t.encode(text, &e)
	for _, id := range t.suffix {
		e.add(id)
	}
	return e.ids
}

// Count returns len(EncodePrompt(text)) without building the slice: the
// number Ollama reports as prompt_eval_count for text sent as a raw prompt.
func (t *Tokenizer) Count(text string) int {
	e := encoder{t: t, countOnly: true}
	t.encode(text, &e)
	return e.n + len(t.prefix) + len(t.suffix)
}

// Decode returns the text that ids stand for: the concatenation of their
// pieces. Decode(Encode(s)) == s for every valid UTF-8 s (without
// normalisation; a tokenizer.json with NFC gives back the NFC form).
func (t *Tokenizer) Decode(ids []int) string {
	var sb strings.Builder
	for _, id := range ids {
		sb.WriteString(t.Piece(id))
	}
	return sb.String()
}

// Piece returns the text token id stands for: the decoded bytes of a normal
// token (which may be part of a UTF-8 character), the literal text of a
// special or user-defined token, "" for an id outside the vocabulary.
func (t *Tokenizer) Piece(id int) string {
	if id < 0 || id >= len(t.pieces) {
		return ""
	}
	return t.pieces[id]
}

// Text returns token id's text as the vocabulary stores it (byte-level
// encoded for normal tokens, e.g. "Ġhello").
func (t *Tokenizer) Text(id int) string {
	if id < 0 || id >= len(t.texts) {
		return ""
	}
	return t.texts[id]
}

// Type returns token id's type.
func (t *Tokenizer) Type(id int) TokenType {
	if id < 0 || id >= len(t.types) {
		return TypeUndefined
	}
	return t.types[id]
}

// Lookup returns the id of the token whose vocabulary text is text.
func (t *Tokenizer) Lookup(text string) (int, bool) {
	id, ok := t.vocab[text]
	return int(id), ok
}

// Special returns the id of the special or user-defined token written as
// text (e.g. "<|im_end|>").
func (t *Tokenizer) Special(text string) (int, bool) {
	id, ok := t.vocab[text]
	if !ok || !isSpecialType(t.types[id]) {
		return 0, false
	}
	return int(id), true
}

// VocabSize returns the number of tokens.
func (t *Tokenizer) VocabSize() int { return len(t.texts) }

// BOS returns the beginning-of-sequence token, if the vocabulary names one.
func (t *Tokenizer) BOS() (int, bool) { return int(t.bos), t.bos >= 0 }

// EOS returns the end-of-sequence token, if the vocabulary names one.
func (t *Tokenizer) EOS() (int, bool) { return int(t.eos), t.eos >= 0 }

// Affixes returns the tokens the runtime puts before and after a prompt
// (usually BOS, or nothing).
func (t *Tokenizer) Affixes() (prefix, suffix []int) {
	for _, id := range t.prefix {
		prefix = append(prefix, int(id))
	}
	for _, id := range t.suffix {
		suffix = append(suffix, int(id))
	}
	return prefix, suffix
}

// PreTokenizer names the pre-tokenizer in use (the GGUF tokenizer.ggml.pre
// value, or the one a tokenizer.json's pre_tokenizer was recognised as).
func (t *Tokenizer) PreTokenizer() string { return t.preName }

func isSpecialType(tt TokenType) bool {
	return tt == TypeControl || tt == TypeUserDefined || tt == TypeUnknown
}

// encoder collects ids, or only counts them.
type encoder struct {
	t         *Tokenizer
	ids       []int
	n         int
	countOnly bool
}

func (e *encoder) add(id int32) {
	e.n++
	if !e.countOnly {
		e.ids = append(e.ids, int(id))
	}
}

// word encodes one pre-tokenized word (raw bytes, not yet byte-level encoded).
func (e *encoder) word(w string) {
	t := e.t
	if t.kind != modelByteBPE {
		e.cached(w)
		return
	}
	if len(w) == 1 {
		// A single byte has no pair to merge.
		if id := t.byteID[w[0]]; id >= 0 {
			e.add(id)
		}
		return
	}
	if len(w) == 2 && !t.ignoreMerge {
		// Two bytes: one possible merge, cheaper to look up than the cache.
		a, b := t.byteID[w[0]], t.byteID[w[1]]
		if a >= 0 && b >= 0 {
			if _, merged, ok := t.mergeOf(a, b); ok {
				e.add(merged)
			} else {
				e.add(a)
				e.add(b)
			}
			return
		}
	}
	e.cached(w)
}

// cached encodes a word through the word cache.
func (e *encoder) cached(w string) {
	t := e.t
	ids, ok := t.cache.get(w)
	if !ok {
		ids = t.bpe(w)
		t.cache.put(w, ids)
	}
	if e.countOnly {
		e.n += len(ids)
		return
	}
	for _, id := range ids {
		e.ids = append(e.ids, int(id))
	}
	e.n += len(ids)
}

func (t *Tokenizer) encode(text string, e *encoder) {
	if t.special.empty() {
		if text != "" {
			t.encodeText(text, true, e)
		}
		return
	}
	st := specialScratchPool.Get().(*specialScratch)
	matches := t.special.partition(text, st)
	pos := 0
	for _, m := range matches {
		if m.start > pos {
			t.encodeText(text[pos:m.start], pos == 0, e)
		}
		e.add(m.id)
		pos = m.end
	}
	if pos < len(text) {
		t.encodeText(text[pos:], pos == 0, e)
	}
	specialScratchPool.Put(st)
}

// encodeText encodes a stretch of text that holds no special token; first
// tells whether it starts the text.
func (t *Tokenizer) encodeText(s string, first bool, e *encoder) {
	if t.normalize != nil {
		s = t.normalize(s)
	}
	if t.meta != nil {
		s = t.meta.apply(s, first)
	}
	t.pre.split(s, e.word)
}

// bpe runs the model on one word and returns its ids.
func (t *Tokenizer) bpe(w string) []int32 {
	if w == "" {
		return nil
	}
	if t.ignoreMerge {
		if t.kind == modelByteBPE {
			var buf [64]byte
			enc := appendByteLevel(buf[:0], w)
			if id, ok := t.vocab[string(enc)]; ok {
				return []int32{id}
			}
		} else if id, ok := t.vocab[w]; ok {
			return []int32{id}
		}
	}
	sc := bpeScratchPool.Get().(*bpeScratch)
	var ids []int32
	switch t.kind {
	case modelCharBPE:
		ids = t.charBPE(w, sc)
	case modelSPM:
		ss := spmScratchPool.Get().(*spmScratch)
		ids = t.spm(w, sc, ss)
		spmScratchPool.Put(ss)
	case modelUnigram:
		ids = t.unigram(w, sc)
	default:
		ids = sc.merge(t, w)
	}
	out := slices.Clone(ids)
	bpeScratchPool.Put(sc)
	return out
}

// byteToRune is GPT-2's map from bytes to printable characters (bytes_to_unicode).
var byteToRune [256]rune

// runeToByte inverts byteToRune for runes below 324.
var runeToByte [324]int16

func init() {
	for i := range runeToByte {
		runeToByte[i] = -1
	}
	n := rune(0)
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			byteToRune[b] = rune(b)
		} else {
			byteToRune[b] = 256 + n
			n++
		}
		runeToByte[byteToRune[b]] = int16(b)
	}
}

// appendByteLevel appends the byte-level encoding of s.
func appendByteLevel(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = utf8.AppendRune(dst, byteToRune[s[i]])
	}
	return dst
}

// decodeByteLevel decodes a byte-level encoded token text; runes outside the
// alphabet are kept as they are.
func decodeByteLevel(s string) string {
	var b []byte
	for _, r := range s {
		if r >= 0 && int(r) < len(runeToByte) && runeToByte[r] >= 0 {
			b = append(b, byte(runeToByte[r]))
		} else {
			b = utf8.AppendRune(b, r)
		}
	}
	return string(b)
}

// wordCache is a bounded, sharded map from a word to its ids. A full shard is
// emptied and starts again: cheap, and prompts repeat their words within a
// request far more than across the whole cache.
type wordCache struct {
	shards [cacheShards]cacheShard
}

const (
	cacheShards     = 32
	cacheShardLimit = 4096 // words per shard
	cacheMaxWordLen = 256  // longer words are not cached
)

type cacheShard struct {
	mu sync.RWMutex
	m  map[string][]int32
}

func shardOf(w string) int {
	// FNV-1a over at most 16 bytes: enough to spread words.
	h := uint32(2166136261)
	for i := 0; i < len(w) && i < 16; i++ {
		h ^= uint32(w[i])
		h *= 16777619
	}
	h ^= uint32(len(w))
	return int(h % cacheShards)
}

func (c *wordCache) get(w string) ([]int32, bool) {
	if len(w) > cacheMaxWordLen {
		return nil, false
	}
	s := &c.shards[shardOf(w)]
	s.mu.RLock()
	ids, ok := s.m[w]
	s.mu.RUnlock()
	return ids, ok
}

func (c *wordCache) put(w string, ids []int32) {
	if len(w) > cacheMaxWordLen {
		return
	}
	s := &c.shards[shardOf(w)]
	s.mu.Lock()
	if s.m == nil || len(s.m) >= cacheShardLimit {
		s.m = make(map[string][]int32, 256)
	}
	s.m[strings.Clone(w)] = ids
	s.mu.Unlock()
}
