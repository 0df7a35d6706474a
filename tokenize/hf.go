package tokenize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// FromTokenizerJSON loads a Hugging Face tokenizer.json. Supported: model BPE
// (byte-level behind a ByteLevel pre-tokenizer, or over characters with byte
// fallback as SentencePiece conversions have it; no dropout, no subword
// affixes) and Unigram; normalizers NFC, NFKC, NFD, NFKD, Replace (of a
// string), Prepend and Sequences of them; pre-tokenizers ByteLevel, Digits,
// Metaspace, Split on a string or on the regexes of the GPT-2, Llama 3,
// Qwen2, Tekken and o200k families, and Sequences of them; post-processor
// ByteLevel or TemplateProcessing. Anything else is an error naming it, not
// a guess.
func FromTokenizerJSON(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := ParseTokenizerJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

type hfFile struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Model         struct {
		Type                    string          `json:"type"`
		Dropout                 *float64        `json:"dropout"`
		UnkToken                *string         `json:"unk_token"`
		UnkID                   *int            `json:"unk_id"`
		FuseUnk                 bool            `json:"fuse_unk"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
		ByteFallback            bool            `json:"byte_fallback"`
		IgnoreMerges            bool            `json:"ignore_merges"`
		Vocab                   json.RawMessage `json:"vocab"`
		Merges                  json.RawMessage `json:"merges"`
	} `json:"model"`
}

// ParseTokenizerJSON builds a tokenizer from the contents of a tokenizer.json.
func ParseTokenizerJSON(data []byte) (*Tokenizer, error) {
	var f hfFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	m := f.Model
	unigram := m.Type == "Unigram"
	if m.Type != "BPE" && !unigram && !(m.Type == "" && m.Vocab != nil && m.Merges != nil) {
		return nil, fmt.Errorf("model type %q is not supported yet (only BPE and Unigram)", m.Type)
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return nil, fmt.Errorf("BPE dropout is not supported")
	}
	if (m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "") || (m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "") {
		return nil, fmt.Errorf("BPE continuing_subword_prefix/end_of_word_suffix are not supported")
	}

	var vocab map[string]int
	var pieces []struct {
		text  string
		score float64
	}
	if unigram {
		var raw [][2]json.RawMessage
		if err := json.Unmarshal(m.Vocab, &raw); err != nil {
			return nil, fmt.Errorf("Unigram vocab: %w", err)
		}
		pieces = make([]struct {
			text  string
			score float64
		}, len(raw))
		vocab = make(map[string]int, len(raw))
		for i, p := range raw {
			if err := json.Unmarshal(p[0], &pieces[i].text); err != nil {
				return nil, fmt.Errorf("Unigram vocab: %w", err)
			}
			if err := json.Unmarshal(p[1], &pieces[i].score); err != nil {
				return nil, fmt.Errorf("Unigram vocab: %w", err)
			}
			if _, dup := vocab[pieces[i].text]; !dup {
				vocab[pieces[i].text] = i
			}
		}
	} else if err := json.Unmarshal(m.Vocab, &vocab); err != nil {
		return nil, fmt.Errorf("vocab: %w", err)
	}

	size := 0
	for _, id := range vocab {
		size = max(size, id+1)
	}
	for _, a := range f.AddedTokens {
		size = max(size, a.ID+1)
	}
	tokens := make([]string, size)
	types := make([]TokenType, size)
	for i := range types {
		types[i] = TypeUnused
	}
	if unigram {
		for id, p := range pieces {
			tokens[id], types[id] = p.text, TypeNormal
		}
	} else {
		for s, id := range vocab {
			if id < 0 {
				return nil, fmt.Errorf("negative token id %d", id)
			}
			tokens[id], types[id] = s, TypeNormal
		}
	}
	var specialIDs []int32
	var specialTexts []string
	for _, a := range f.AddedTokens {
		if a.ID < 0 {
			return nil, fmt.Errorf("negative token id %d", a.ID)
		}
		tokens[a.ID] = a.Content
		if a.Special {
			types[a.ID] = TypeControl
		} else {
			types[a.ID] = TypeUserDefined
		}
		specialIDs = append(specialIDs, int32(a.ID))
		specialTexts = append(specialTexts, a.Content)
	}

	merges, err := parseMerges(m.Merges)
	if err != nil {
		return nil, err
	}
	t := newTokenizer(tokens, types, merges)
	t.ignoreMerge = m.IgnoreMerges
	t.bos, t.eos, t.unk = -1, -1, -1
	t.special = newSpecialMatcher(specialIDs, specialTexts, true)

	if t.normalize, err = hfNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	var ctx hfPreContext
	pre, name, err := hfPreTokenizer(f.PreTokenizer, &ctx, 0)
	if err != nil {
		return nil, err
	}
	if pre == nil {
		pre = wholeText{}
	}
	t.pre, t.preName, t.meta = pre, name, ctx.meta

	t.byteFallback = m.ByteFallback
	switch {
	case unigram:
		t.kind = modelUnigram
		t.fuseUnk = true
		if m.UnkID != nil && *m.UnkID >= 0 && *m.UnkID < len(tokens) {
			t.unk = int32(*m.UnkID)
		}
		minScore := math.Inf(1)
		for _, p := range pieces {
			minScore = min(minScore, p.score)
		}
		t.unkScore = minScore - 10
		// The Unigram lattice sums scores in float64, as the reference does.
		t.scores64 = make([]float64, len(tokens))
		for id, p := range pieces {
			t.scores64[id] = p.score
		}
		if t.unk >= 0 {
			t.scores64[t.unk] = t.unkScore
		}
		t.trie = newPieceTrie(tokens[:len(pieces)], types[:len(pieces)])
		t.finishChars()
	case !ctx.byteLevel:
		t.kind = modelCharBPE
		t.fuseUnk = m.FuseUnk
		if m.UnkToken != nil {
			if id, ok := vocab[*m.UnkToken]; ok {
				t.unk = int32(id)
			}
		}
		t.finishChars()
	default:
		if m.ByteFallback {
			return nil, fmt.Errorf("BPE byte_fallback behind a ByteLevel pre-tokenizer is not supported")
		}
	}
	if err := t.hfPostProcessor(f.PostProcessor); err != nil {
		return nil, err
	}
	if len(t.prefix) == 1 {
		t.bos = t.prefix[0]
	}
	if len(t.suffix) == 1 {
		t.eos = t.suffix[0]
	}
	return t, nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// parseMerges reads merges in either form: ["a b", ...] or [["a", "b"], ...].
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err == nil {
		return pairs, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return nil, fmt.Errorf("merges: %w", err)
	}
	pairs = make([][2]string, 0, len(lines))
	for _, l := range lines {
		for k := 1; k < len(l); k++ {
			if l[k] == ' ' {
				pairs = append(pairs, [2]string{l[:k], l[k+1:]})
				break
			}
		}
	}
	return pairs, nil
}

type hfNode struct {
	Type          string            `json:"type"`
	Normalizers   []json.RawMessage `json:"normalizers"`
	Pretokenizers []json.RawMessage `json:"pretokenizers"`
	Processors    []json.RawMessage `json:"processors"`
	Pattern       struct {
		Regex  *string `json:"Regex"`
		String *string `json:"String"`
	} `json:"pattern"`
	Behavior         string `json:"behavior"`
	Content          string `json:"content"`
	Prepend          string `json:"prepend"`
	Replacement      string `json:"replacement"`
	PrependScheme    string `json:"prepend_scheme"`
	Split            *bool  `json:"split"`
	Invert           bool   `json:"invert"`
	AddPrefixSpace   bool   `json:"add_prefix_space"`
	UseRegex         *bool  `json:"use_regex"`
	IndividualDigits bool   `json:"individual_digits"`
	Single           []struct {
		SpecialToken *struct {
			ID string `json:"id"`
		} `json:"SpecialToken"`
		Sequence *struct {
			ID string `json:"id"`
		} `json:"Sequence"`
	} `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int `json:"ids"`
	} `json:"special_tokens"`
}

func hfNormalizer(raw json.RawMessage) (func(string) string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var n hfNode
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	switch n.Type {
	case "NFC":
		return norm.NFC.String, nil
	case "NFKC":
		return norm.NFKC.String, nil
	case "NFD":
		return norm.NFD.String, nil
	case "NFKD":
		return norm.NFKD.String, nil
	case "Replace":
		if n.Pattern.String == nil {
			return nil, fmt.Errorf("normalizer Replace with a regex is not supported yet")
		}
		from, to := *n.Pattern.String, n.Content
		if from == "" {
			return nil, fmt.Errorf("normalizer Replace of an empty string")
		}
		return func(s string) string { return strings.ReplaceAll(s, from, to) }, nil
	case "Prepend":
		prefix := n.Prepend
		return func(s string) string {
			if s == "" {
				return s
			}
			return prefix + s
		}, nil
	case "Sequence":
		var fs []func(string) string
		for _, sub := range n.Normalizers {
			f, err := hfNormalizer(sub)
			if err != nil {
				return nil, err
			}
			if f != nil {
				fs = append(fs, f)
			}
		}
		switch len(fs) {
		case 0:
			return nil, nil
		case 1:
			return fs[0], nil
		}
		return func(s string) string {
			for _, f := range fs {
				s = f(s)
			}
			return s
		}, nil
	}
	return nil, fmt.Errorf("normalizer %q is not supported yet", n.Type)
}

// The Split patterns of the real files, by the splitter written for them.
const (
	patternQwen2  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patternLlama3 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patternGPT2   = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	patternTekken = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patternO200k  = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// hfPreContext collects what a pre_tokenizer says beyond its splitting.
type hfPreContext struct {
	byteLevel bool       // a ByteLevel step: the model works on bytes
	meta      *metaspace // a Metaspace step
}

// hfPreTokenizer returns the splitter for a pre_tokenizer, nil for one that
// does not split (ByteLevel without its regex), and a name for it. pos is
// the step's place in a Sequence (Metaspace must come first).
func hfPreTokenizer(raw json.RawMessage, ctx *hfPreContext, pos int) (preTokenizer, string, error) {
	if isNull(raw) {
		return nil, "none", nil
	}
	var n hfNode
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, "", fmt.Errorf("pre_tokenizer: %w", err)
	}
	switch n.Type {
	case "Sequence":
		var chain chainSplit
		name := ""
		for k, sub := range n.Pretokenizers {
			p, nm, err := hfPreTokenizer(sub, ctx, pos+k)
			if err != nil {
				return nil, "", err
			}
			if p != nil {
				chain = append(chain, p)
				if name != "" {
					name += "+"
				}
				name += nm
			}
		}
		switch len(chain) {
		case 0:
			return nil, "none", nil
		case 1:
			return chain[0], name, nil
		}
		return chain, name, nil
	case "ByteLevel":
		ctx.byteLevel = true
		if n.AddPrefixSpace {
			return nil, "", fmt.Errorf("ByteLevel add_prefix_space is not supported yet")
		}
		if n.UseRegex == nil || *n.UseRegex {
			return gpt2Split{}, "gpt-2", nil
		}
		return nil, "", nil
	case "Metaspace":
		if pos != 0 {
			return nil, "", fmt.Errorf("Metaspace after another pre-tokenizer is not supported")
		}
		m := &metaspace{replacement: n.Replacement, unlessPresent: true}
		if m.replacement == "" {
			m.replacement = spaceMark
		}
		switch n.PrependScheme {
		case "always":
			m.prepend = true
		case "first":
			m.prepend, m.firstOnly = true, true
		case "never":
		case "":
			m.prepend = n.AddPrefixSpace // the older form
		default:
			return nil, "", fmt.Errorf("Metaspace prepend_scheme %q is not supported", n.PrependScheme)
		}
		ctx.meta = m
		if n.Split == nil || *n.Split {
			return stringSplit{sep: m.replacement, behavior: "MergedWithNext"}, "metaspace", nil
		}
		return nil, "metaspace", nil
	case "Split":
		if n.Invert {
			return nil, "", fmt.Errorf("Split pre-tokenizer with invert is not supported yet")
		}
		if n.Pattern.String != nil {
			switch n.Behavior {
			case "Isolated", "Removed", "MergedWithPrevious", "MergedWithNext":
			default:
				return nil, "", fmt.Errorf("Split pre-tokenizer behavior %q is not supported yet", n.Behavior)
			}
			if *n.Pattern.String == "" {
				return nil, "", fmt.Errorf("Split pre-tokenizer on an empty string")
			}
			return stringSplit{sep: *n.Pattern.String, behavior: n.Behavior}, "split-string", nil
		}
		if n.Pattern.Regex == nil || n.Behavior != "Isolated" {
			return nil, "", fmt.Errorf("Split pre-tokenizer (behavior %q) is not supported yet", n.Behavior)
		}
		switch *n.Pattern.Regex {
		case patternQwen2:
			return llama3Split{maxDigits: 1}, "qwen2", nil
		case patternLlama3:
			return llama3Split{maxDigits: 3}, "llama-bpe", nil
		case patternGPT2:
			return gpt2Split{}, "gpt-2", nil
		case patternTekken:
			return casedSplit{maxDigits: 1}, "tekken", nil
		case patternO200k:
			return casedSplit{maxDigits: 3, contractions: true}, "o200k", nil
		}
		return nil, "", fmt.Errorf("Split regex %q is not supported yet", *n.Pattern.Regex)
	case "Digits":
		if n.IndividualDigits {
			return runEach(unicode.IsNumber), "digits", nil
		}
		return runIsolated(unicode.IsNumber), "digit-runs", nil
	}
	return nil, "", fmt.Errorf("pre_tokenizer %q is not supported yet", n.Type)
}

// stringSplit cuts at every occurrence of a string, which is kept as a
// piece of its own (Isolated), dropped (Removed), or joined to the piece
// before or after it.
type stringSplit struct {
	sep      string
	behavior string
}

func (p stringSplit) split(s string, emit func(string)) {
	start := 0 // start of the pending piece
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], p.sep)
		if k < 0 {
			break
		}
		at, end := i+k, i+k+len(p.sep)
		switch p.behavior {
		case "Isolated":
			if at > start {
				emit(s[start:at])
			}
			emit(s[at:end])
			start = end
		case "Removed":
			if at > start {
				emit(s[start:at])
			}
			start = end
		case "MergedWithPrevious":
			emit(s[start:end])
			start = end
		case "MergedWithNext":
			if at > start {
				emit(s[start:at])
			}
			start = at
		}
		i = end
	}
	if start < len(s) {
		emit(s[start:])
	}
}

// runEach isolates every character in the set; the text between is a piece.
type runEach func(rune) bool

func (in runEach) split(s string, emit func(string)) {
	start := 0
	for i, r := range s {
		if in(r) {
			if i > start {
				emit(s[start:i])
			}
			n := len(string(r))
			emit(s[i : i+n])
			start = i + n
		}
	}
	if start < len(s) {
		emit(s[start:])
	}
}

// runIsolated isolates runs of characters in the set; the text between is a piece.
type runIsolated func(rune) bool

func (in runIsolated) split(s string, emit func(string)) { runSplit(in).split(s, emit) }

// wholeText is the absent pre-tokenizer: the whole stretch is one word.
type wholeText struct{}

func (wholeText) split(s string, emit func(string)) {
	if s != "" {
		emit(s)
	}
}

func (t *Tokenizer) hfPostProcessor(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	var n hfNode
	if err := json.Unmarshal(raw, &n); err != nil {
		return fmt.Errorf("post_processor: %w", err)
	}
	switch n.Type {
	case "ByteLevel":
		return nil
	case "Sequence":
		for _, sub := range n.Processors {
			if err := t.hfPostProcessor(sub); err != nil {
				return err
			}
		}
		return nil
	case "TemplateProcessing":
		seen := false
		for _, item := range n.Single {
			switch {
			case item.Sequence != nil:
				seen = true
			case item.SpecialToken != nil:
				st, ok := n.SpecialTokens[item.SpecialToken.ID]
				if !ok {
					return fmt.Errorf("post_processor: special token %q not listed", item.SpecialToken.ID)
				}
				for _, id := range st.IDs {
					if seen {
						t.suffix = append(t.suffix, int32(id))
					} else {
						t.prefix = append(t.prefix, int32(id))
					}
				}
			}
		}
		return nil
	}
	return fmt.Errorf("post_processor %q is not supported yet", n.Type)
}
