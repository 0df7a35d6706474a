package llamacpp

// Tokenizing a resent conversation from where it differs.
//
// An agent resends its whole conversation each turn, and the prompt's text
// grows by a message or two: on the tiny Qwen3 model a 1,500-token prompt
// takes llama_tokenize about 2–3 ms, a sixth of the resent turn's time to
// first token, spent again on text tokenized a turn ago. llama.cpp splits
// the text at special tokens first (with parse_special) and tokenizes each
// piece between them on its own, so the tokens before a special token do not
// depend on the text after it. The cache keeps the last prompts' texts with
// their tokens and where each token ends; a new prompt takes the tokens of
// the longest shared text up to the start of a special token inside it, and
// only the rest is tokenized.
//
// That holds exactly when the vocabulary's pieces are its bytes and no
// special token reaches across the cut, so the cache is used only where it
// is provable: a byte-level BPE vocabulary (the pieces of a prompt's tokens
// are the prompt's bytes, checked for every prompt kept) that appends no EOS;
// a cut at a special token that does not strip the whitespace before it;
// and the cut at least the longest special token's length before the end of
// the shared text, so that no special token could start in the shared text
// and end beyond it. Anything else tokenizes the whole prompt, as before.

import (
	"sync"
	"sync/atomic"
)

// enum llama_vocab_type and enum llama_token_attr (llama.h).
const (
	vocabBPE = 2

	attrUnknown     = 1 << 0
	attrControl     = 1 << 3
	attrUserDefined = 1 << 4
	attrLStrip      = 1 << 7
)

// tokenCacheSize is how many prompts a model keeps: one for each slot's
// conversation, and one more.
func tokenCacheSize(slots int) int { return slots + 1 }

// minReuse is the fewest tokens worth taking from the cache: below it the
// whole prompt is tokenized (a few microseconds).
const minReuse = 64

// tokenCache is a model's cache of tokenized prompts.
type tokenCache struct {
	once sync.Once
	// usable says the vocabulary allows reuse; cut marks the special
	// tokens a prompt may be cut before (by token id); maxSpecial is the
	// longest special token's text; bos is the token llama_tokenize puts
	// first, -1 for none.
	usable     bool
	cut        []bool
	maxSpecial int
	bos        llamaToken

	mu      sync.Mutex
	size    int
	entries []*tokenized // least recently used first
	// reused counts the tokens taken from the cache (tests); off,
	// set by benchmarks, tokenizes every prompt whole.
	reused atomic.Int64
	off    atomic.Bool
}

// tokenized is one prompt and its tokens; ends[i] is where token i's text
// ends in it (a BOS that llama_tokenize adds has no text: 0). ends is made
// when the prompt is first used as a base (nil before), ok false when its
// pieces turned out not to be its bytes.
type tokenized struct {
	text     string
	tokens   []llamaToken
	ends     []int32
	ok       bool
	measured bool // ends was tried
}

// prepare reads what the cache needs of the vocabulary, once.
func (c *tokenCache) prepare(m *model) {
	c.once.Do(func() {
		c.size = tokenCacheSize(len(m.slots))
		c.bos = -1
		if llamaVocabType(m.vocab) != vocabBPE || llamaVocabGetAddEOS(m.vocab) {
			return
		}
		if llamaVocabGetAddBOS(m.vocab) {
			c.bos = llamaVocabBOS(m.vocab)
		}
		c.cut = make([]bool, m.nVocab)
		for t := range m.nVocab {
			attr := llamaVocabGetAttr(m.vocab, t)
			if attr&(attrControl|attrUserDefined|attrUnknown) == 0 {
				continue
			}
			c.cut[t] = attr&attrLStrip == 0
			c.maxSpecial = max(c.maxSpecial, len(m.piece(t, nil)))
		}
		c.usable = true
	})
}

// tokenize is model.tokenize through the cache.
func (m *model) tokenize(text string) ([]llamaToken, error) {
	if text == "" {
		return nil, nil
	}
	c := &m.tokens
	c.prepare(m)
	if !c.usable || c.off.Load() {
		return m.tokenizeText(text, true)
	}
	base, at := c.base(m, text)
	if base == nil {
		tokens, err := m.tokenizeText(text, true)
		if err == nil {
			c.keep(&tokenized{text: text, tokens: tokens})
		}
		return tokens, err
	}
	start := base.ends[at-1]
	rest, err := m.tokenizeText(text[start:], false)
	if err != nil {
		return nil, err
	}
	e := &tokenized{text: text, tokens: append(append(make([]llamaToken, 0, at+len(rest)), base.tokens[:at]...), rest...)}
	restEnds, ok := m.tokenEnds(text[start:], rest, -1)
	if ok {
		e.ends, e.ok = append(append(make([]int32, 0, len(e.tokens)), base.ends[:at]...), restEnds...), true
		for i := range restEnds {
			e.ends[at+i] += start
		}
	}
	c.reused.Add(int64(at))
	c.keep(e)
	return e.tokens, nil
}

// base finds the kept prompt sharing the longest text with text and the
// number of its tokens that text can take: those before a special token
// that starts and ends in the shared text, at least maxSpecial bytes before
// its end. nil when none gives minReuse tokens.
func (c *tokenCache) base(m *model, text string) (*tokenized, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best *tokenized
	bestAt := 0
	for _, e := range c.entries {
		shared := commonTextPrefix(e.text, text)
		if shared-c.maxSpecial < minReuse {
			continue
		}
		if e.ends == nil && !e.measured {
			e.ends, e.ok = m.tokenEnds(e.text, e.tokens, c.bos)
			e.measured = true
		}
		if !e.ok {
			continue
		}
		if at := c.cutBefore(e, shared-c.maxSpecial); at > bestAt {
			best, bestAt = e, at
		}
	}
	if bestAt < minReuse {
		return nil, 0
	}
	return best, bestAt
}

// cutBefore is the index of the last special token of e that may be cut
// before and whose text ends by limit; 0 for none.
func (c *tokenCache) cutBefore(e *tokenized, limit int) int {
	for i := len(e.tokens) - 1; i > 0; i-- {
		if int(e.ends[i]) > limit {
			continue
		}
		if t := e.tokens[i]; t >= 0 && int(t) < len(c.cut) && c.cut[t] && t != c.bos {
			return i
		}
	}
	return 0
}

// keep adds e as the most recently used prompt, forgetting the oldest
// beyond the cache's size.
func (c *tokenCache) keep(e *tokenized) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.size {
		copy(c.entries, c.entries[1:])
		c.entries = c.entries[:len(c.entries)-1]
	}
	c.entries = append(c.entries, e)
}

// tokenEnds is where each token's text ends in text, and whether the
// tokens' pieces are exactly text's bytes (a leading bos has none).
func (m *model) tokenEnds(text string, tokens []llamaToken, bos llamaToken) ([]int32, bool) {
	ends := make([]int32, len(tokens))
	var buf []byte
	pos := 0
	for i, t := range tokens {
		if i == 0 && t == bos && bos >= 0 {
			continue
		}
		buf = m.piece(t, buf[:0])
		if len(buf) > len(text)-pos || text[pos:pos+len(buf)] != string(buf) {
			return nil, false
		}
		pos += len(buf)
		ends[i] = int32(pos)
	}
	return ends, pos == len(text)
}

// commonTextPrefix is the length of the text a and b begin with.
func commonTextPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
