package tokenize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// FromTokenizerJSON loads a Hugging Face tokenizer.json. Supported: model BPE
// (byte-level, no dropout, no byte fallback, no subword affixes), normalizer
// none or NFC, pre-tokenizers ByteLevel, Digits, Split with the regexes of
// the GPT-2, Llama 3 and Qwen2 families, and Sequences of them, post-processor
// ByteLevel or TemplateProcessing. Anything else is an error naming it, not a
// guess.
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
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
		ByteFallback            bool            `json:"byte_fallback"`
		IgnoreMerges            bool            `json:"ignore_merges"`
		Vocab                   map[string]int  `json:"vocab"`
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
	if m.Type != "BPE" && !(m.Type == "" && m.Vocab != nil && m.Merges != nil) {
		return nil, fmt.Errorf("model type %q is not supported yet (only BPE)", m.Type)
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return nil, fmt.Errorf("BPE dropout is not supported")
	}
	if m.ByteFallback {
		return nil, fmt.Errorf("BPE byte_fallback is not supported yet")
	}
	if (m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "") || (m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "") {
		return nil, fmt.Errorf("BPE continuing_subword_prefix/end_of_word_suffix are not supported")
	}

	size := 0
	for _, id := range m.Vocab {
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
	for s, id := range m.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("negative token id %d", id)
		}
		tokens[id], types[id] = s, TypeNormal
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
	t.bos, t.eos = -1, -1
	t.special = newSpecialMatcher(specialIDs, specialTexts, true)

	if t.normalize, err = hfNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	pre, name, err := hfPreTokenizer(f.PreTokenizer)
	if err != nil {
		return nil, err
	}
	if pre == nil {
		pre = wholeText{}
	}
	t.pre, t.preName = pre, name
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
)

// hfPreTokenizer returns the splitter for a pre_tokenizer, nil for one that
// does not split (ByteLevel without its regex), and a name for it.
func hfPreTokenizer(raw json.RawMessage) (preTokenizer, string, error) {
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
		for _, sub := range n.Pretokenizers {
			p, nm, err := hfPreTokenizer(sub)
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
		if n.AddPrefixSpace {
			return nil, "", fmt.Errorf("ByteLevel add_prefix_space is not supported yet")
		}
		if n.UseRegex == nil || *n.UseRegex {
			return gpt2Split{}, "gpt-2", nil
		}
		return nil, "", nil
	case "Split":
		if n.Pattern.Regex == nil || n.Behavior != "Isolated" || n.Invert {
			return nil, "", fmt.Errorf("Split pre-tokenizer (behavior %q, invert %v) is not supported yet", n.Behavior, n.Invert)
		}
		switch *n.Pattern.Regex {
		case patternQwen2:
			return llama3Split{maxDigits: 1}, "qwen2", nil
		case patternLlama3:
			return llama3Split{maxDigits: 3}, "llama-bpe", nil
		case patternGPT2:
			return gpt2Split{}, "gpt-2", nil
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
