package tokenize

import "strings"

// SentencePiece models (Gemma, Llama 2, Mistral v1–v3, T5) have no
// pre-tokenizer: the model runs over each whole stretch of text between
// special tokens, which is too long for the word cache, so every request
// pays for every character. But a merge (or, for Unigram, a piece) can only
// join characters into a token the vocabulary holds, so where no token of the
// vocabulary could span a place in the text, the model's result is the same
// whether the text is cut there or not: BPE never merges across it, and the
// Unigram lattice's best path goes through it.
//
// spaceWords cuts at the places that are such, cheaply found: before a "▁"
// (a space) that follows some other character, unless one of the few tokens
// that hold a character other than "▁" followed by "▁" ("crossing" tokens;
// Gemma 3 has one, ">▁</", Gemma 2 and Llama 2 none) occurs in the text
// across that place. The words are then cached like a byte-level model's.

// maxCrossing is the most crossing tokens a vocabulary may have for its text
// to be cut; beyond, checking them at every place would cost more than it
// saves, and the stretch stays whole.
const maxCrossing = 64

type spaceWords struct {
	inner    preTokenizer
	crossing []crossingToken
}

// crossingToken is a token and the offsets in it of a "▁" that follows some
// other character.
type crossingToken struct {
	text string
	at   []int
}

// cutAtSpaces wraps t's pre-tokenizer so that its words are cut at the
// places no token can span; it leaves the pre-tokenizer as it is when the
// vocabulary has too many crossing tokens.
func (t *Tokenizer) cutAtSpaces() {
	// A "▁" the vocabulary lacks is an unknown character, which a model may
	// fuse with the unknown characters before it: then no place is safe.
	if _, ok := t.vocab[spaceMark]; !ok {
		return
	}
	var crossing []crossingToken
	for _, s := range t.texts {
		if _, isByte := byteToken(s); isByte {
			continue
		}
		var at []int
		for i := 1; i < len(s); {
			j := strings.Index(s[i:], spaceMark)
			if j < 0 {
				break
			}
			j += i
			if !strings.HasSuffix(s[:j], spaceMark) {
				at = append(at, j)
			}
			i = j + len(spaceMark)
		}
		if at != nil {
			crossing = append(crossing, crossingToken{s, at})
			if len(crossing) > maxCrossing {
				return
			}
		}
	}
	t.pre = spaceWords{inner: t.pre, crossing: crossing}
}

func (p spaceWords) split(s string, emit func(string)) {
	p.inner.split(s, func(w string) { p.cut(w, emit) })
}

// cut emits w in pieces, cut before each "▁" that follows another character
// where no crossing token spans the place.
func (p spaceWords) cut(w string, emit func(string)) {
	if w == "" {
		return
	}
	start := 0
	for i := 1; i < len(w); {
		j := strings.Index(w[i:], spaceMark)
		if j < 0 {
			break
		}
		j += i
		i = j + len(spaceMark)
		if strings.HasSuffix(w[:j], spaceMark) || p.spanned(w, j) {
			continue
		}
		emit(w[start:j])
		start = j
	}
	emit(w[start:])
}

// spanned reports whether a crossing token occurs in w across offset j.
func (p spaceWords) spanned(w string, j int) bool {
	for _, c := range p.crossing {
		for _, k := range c.at {
			if j-k >= 0 && j-k+len(c.text) <= len(w) && w[j-k:j-k+len(c.text)] == c.text {
				return true
			}
		}
	}
	return false
}
