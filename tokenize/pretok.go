package tokenize

import (
	"unicode"
	"unicode/utf8"
)

// Pre-tokenizers split a stretch of text (no special tokens in it) into the
// words BPE merges within. The patterns the real tokenizers use need
// look-ahead (`\s+(?!\S)`), which Go's regexp lacks, so each is written out by
// hand, alternative by alternative, with the regex engines' leftmost-first
// semantics. Unicode classes: \p{L} is unicode.IsLetter, \p{N} unicode.IsNumber,
// \s unicode.IsSpace (the White_Space property, which is also llama.cpp's set).
// The text is cut at every match; the patterns cover every character, so there
// are no gaps.

type preTokenizer interface {
	split(s string, emit func(string))
}

type class uint8

const (
	clsNone   class = iota // past the end of the text
	clsOther               // neither letter, number nor whitespace
	clsLetter              // \p{L}
	clsNumber              // \p{N}
	clsSpace               // \s
)

var asciiClass [128]class

func init() {
	for c := 0; c < 128; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			asciiClass[c] = clsLetter
		case c >= '0' && c <= '9':
			asciiClass[c] = clsNumber
		case c == ' ', c >= '\t' && c <= '\r':
			asciiClass[c] = clsSpace
		default:
			asciiClass[c] = clsOther
		}
	}
}

// classAt returns the class of the character at byte i and its size in bytes.
// An invalid UTF-8 byte is a character of its own, of class other.
func classAt(s string, i int) (class, int) {
	if i >= len(s) {
		return clsNone, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return runeClass(r), n
}

func runeClass(r rune) class {
	switch {
	case r < utf8.RuneSelf:
		return asciiClass[r]
	case unicode.IsLetter(r):
		return clsLetter
	case unicode.IsNumber(r):
		return clsNumber
	case unicode.IsSpace(r):
		return clsSpace
	}
	return clsOther
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// contraction returns the length of a contraction at s[i:] ('s 't 're 've 'm
// 'll 'd), or 0. fold makes it case-insensitive (ASCII only, as llama.cpp).
func contraction(s string, i int, fold bool) int {
	if s[i] != '\'' || i+1 >= len(s) {
		return 0
	}
	c1 := s[i+1]
	if fold {
		c1 = lowerASCII(c1)
	}
	switch c1 {
	case 's', 't', 'm', 'd':
		return 2
	}
	if i+2 >= len(s) {
		return 0
	}
	c2 := s[i+2]
	if fold {
		c2 = lowerASCII(c2)
	}
	if (c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l') {
		return 3
	}
	return 0
}

// lastRuneStart returns the start of the character that ends at byte j.
func lastRuneStart(s string, j int) int {
	_, n := utf8.DecodeLastRuneInString(s[:j])
	return j - n
}

// whitespace matches, at a whitespace character s[i:], the pattern's tail
// alternatives: `\s*[\r\n]+` (when newlines is set), `\s+(?!\S)`, `\s+`.
func whitespace(s string, i int, newlines bool) int {
	j, lastNL := i, -1
	runs := 0
	for {
		c, n := classAt(s, j)
		if c != clsSpace {
			break
		}
		if s[j] == '\r' || s[j] == '\n' {
			lastNL = j + 1
		}
		j += n
		runs++
	}
	if newlines && lastNL > 0 {
		return lastNL // \s*[\r\n]+ backtracks to the last newline of the run
	}
	if runs > 1 && j < len(s) {
		return lastRuneStart(s, j) // \s+(?!\S) leaves the last one for the word that follows
	}
	return j
}

// llama3Split is the pattern of Llama 3 (digits in threes) and, with
// maxDigits 1, of Qwen2:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
type llama3Split struct {
	maxDigits int
}

func (p llama3Split) split(s string, emit func(string)) {
	i := 0
	for i < len(s) {
		start := i
		if n := contraction(s, i, true); n > 0 {
			i += n
			emit(s[start:i])
			continue
		}
		c, n := classAt(s, i)
		// [^\r\n\p{L}\p{N}]?\p{L}+
		if c == clsLetter {
			i += n
			i = skipClass(s, i, clsLetter)
			emit(s[start:i])
			continue
		}
		if c != clsNumber && s[i] != '\r' && s[i] != '\n' {
			if c2, n2 := classAt(s, i+n); c2 == clsLetter {
				i += n + n2
				i = skipClass(s, i, clsLetter)
				emit(s[start:i])
				continue
			}
		}
		// \p{N}{1,maxDigits}
		if c == clsNumber {
			i += n
			for k := 1; k < p.maxDigits; k++ {
				c2, n2 := classAt(s, i)
				if c2 != clsNumber {
					break
				}
				i += n2
			}
			emit(s[start:i])
			continue
		}
		// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
		j := i
		if s[i] == ' ' {
			j++
		}
		if c2, _ := classAt(s, j); c2 == clsOther {
			i = skipClass(s, j, clsOther)
			for i < len(s) && (s[i] == '\r' || s[i] == '\n') {
				i++
			}
			emit(s[start:i])
			continue
		}
		// whitespace: c is clsSpace here
		i = whitespace(s, i, true)
		emit(s[start:i])
	}
}

func skipClass(s string, i int, want class) int {
	for {
		c, n := classAt(s, i)
		if c != want {
			return i
		}
		i += n
	}
}

// gpt2Split is GPT-2's pattern, also Hugging Face's ByteLevel(use_regex=true):
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
type gpt2Split struct{}

func (gpt2Split) split(s string, emit func(string)) {
	i := 0
	for i < len(s) {
		start := i
		if n := contraction(s, i, false); n > 0 {
			i += n
			emit(s[start:i])
			continue
		}
		j := i
		if s[i] == ' ' {
			j++
		}
		c, _ := classAt(s, j)
		switch c {
		case clsLetter, clsNumber, clsOther:
			i = skipClass(s, j, c)
		default:
			i = whitespace(s, i, false)
		}
		emit(s[start:i])
	}
}

// chainSplit applies splitters one after the other, each to every piece the
// previous one made; with a regex stage, text between matches is a piece too
// (llama.cpp's unicode_regex_split with several expressions).
type chainSplit []preTokenizer

func (c chainSplit) split(s string, emit func(string)) {
	c.run(0, s, emit)
}

func (c chainSplit) run(k int, s string, emit func(string)) {
	if k == len(c) {
		emit(s)
		return
	}
	c[k].split(s, func(piece string) { c.run(k+1, piece, emit) })
}

// runSplit cuts the text into maximal runs of characters in a set and the
// stretches between them: the regex `[set]+`.
type runSplit func(r rune) bool

func (in runSplit) split(s string, emit func(string)) {
	i := 0
	for i < len(s) {
		start := i
		r, n := utf8.DecodeRuneInString(s[i:])
		want := in(r)
		i += n
		for i < len(s) {
			r, n = utf8.DecodeRuneInString(s[i:])
			if in(r) != want {
				break
			}
			i += n
		}
		emit(s[start:i])
	}
}

// asciiDigitTriples is the regex `[0-9][0-9][0-9]`: each run of ASCII digits
// gives threes from its left and the rest as a piece.
type asciiDigitTriples struct{}

func (asciiDigitTriples) split(s string, emit func(string)) {
	i := 0
	for i < len(s) {
		k := i
		for k+3 <= len(s) && !(isDigit(s[k]) && isDigit(s[k+1]) && isDigit(s[k+2])) {
			k++
		}
		if k+3 > len(s) {
			emit(s[i:])
			return
		}
		if k > i {
			emit(s[i:k])
		}
		emit(s[k : k+3])
		i = k + 3
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isDefaultPunct is llama.cpp's `[\p{P}\$\+<=>\^~\|]`.
func isDefaultPunct(r rune) bool {
	if r < utf8.RuneSelf {
		switch r {
		case '$', '+', '<', '=', '>', '^', '~', '|':
			return true
		}
		return unicode.IsPunct(r)
	}
	if unicode.IsSpace(r) {
		return false
	}
	return unicode.IsPunct(r)
}

// llamaCppDefault is llama.cpp's pre-tokenizer for tokenizer.ggml.pre
// "default": four expressions applied in turn.
var llamaCppDefault = chainSplit{
	runSplit(isDefaultPunct),
	gpt2Split{},
	runSplit(unicode.IsNumber),
	asciiDigitTriples{},
}

// casedSplit is the pattern of Mistral's Tekken (digits one by one, no
// contractions) and, with maxDigits 3 and contractions, of OpenAI's o200k
// (gpt-oss):
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// A word is an upper-case run then a lower-case run, so "camelCase" splits
// before the "C"; Lm, Lo and marks count as both cases.
type casedSplit struct {
	maxDigits    int
	contractions bool
}

const (
	caseUpper  uint8 = 1 << iota // \p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}
	caseLower                    // \p{Ll}\p{Lm}\p{Lo}\p{M}
	casePrefix                   // [^\r\n\p{L}\p{N}]
)

// caseAt returns the case bits of the character at byte i and its size; 0, 0 at the end.
func caseAt(s string, i int) (uint8, int) {
	if i >= len(s) {
		return 0, 0
	}
	c := s[i]
	if c < utf8.RuneSelf {
		switch {
		case c >= 'a' && c <= 'z':
			return caseLower, 1
		case c >= 'A' && c <= 'Z':
			return caseUpper, 1
		case c >= '0' && c <= '9', c == '\r', c == '\n':
			return 0, 1
		}
		return casePrefix, 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case unicode.Is(unicode.Ll, r):
		return caseLower, n
	case unicode.Is(unicode.Lu, r), unicode.Is(unicode.Lt, r):
		return caseUpper, n
	case unicode.Is(unicode.Lm, r), unicode.Is(unicode.Lo, r):
		return caseUpper | caseLower, n
	case unicode.Is(unicode.M, r):
		return caseUpper | caseLower | casePrefix, n
	case unicode.IsLetter(r), unicode.IsNumber(r):
		return 0, n
	}
	return casePrefix, n
}

// upperLower matches [U]*[L]+ at j (backtracking as a regex engine does: the
// longest upper run, then, if no lower character follows it, its last
// character that is also lower case) and returns the end, or -1.
func upperLower(s string, j int) int {
	p := j
	lastLower := -1
	for {
		c, n := caseAt(s, p)
		if c&caseUpper == 0 {
			break
		}
		if c&caseLower != 0 {
			lastLower = p
		}
		p += n
	}
	if c, _ := caseAt(s, p); c&caseLower == 0 {
		if lastLower < 0 {
			return -1
		}
		_, n := caseAt(s, lastLower)
		return lastLower + n
	}
	return skipCase(s, p, caseLower)
}

// upperThenLower matches [U]+[L]* at j and returns the end, or -1.
func upperThenLower(s string, j int) int {
	if c, _ := caseAt(s, j); c&caseUpper == 0 {
		return -1
	}
	return skipCase(s, skipCase(s, j, caseUpper), caseLower)
}

func skipCase(s string, i int, want uint8) int {
	for {
		c, n := caseAt(s, i)
		if c&want == 0 {
			return i
		}
		i += n
	}
}

func (p casedSplit) split(s string, emit func(string)) {
	i := 0
	for i < len(s) {
		start := i
		if end := p.word(s, i); end > i {
			i = end
			emit(s[start:i])
			continue
		}
		c, n := classAt(s, i)
		// \p{N}{1,maxDigits}
		if c == clsNumber {
			i += n
			for k := 1; k < p.maxDigits; k++ {
				c2, n2 := classAt(s, i)
				if c2 != clsNumber {
					break
				}
				i += n2
			}
			emit(s[start:i])
			continue
		}
		// ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
		j := i
		if s[i] == ' ' {
			j++
		}
		if c2, _ := classAt(s, j); c2 == clsOther {
			i = skipClass(s, j, clsOther)
			for i < len(s) && (s[i] == '\r' || s[i] == '\n' || s[i] == '/') {
				i++
			}
			emit(s[start:i])
			continue
		}
		i = whitespace(s, i, true)
		emit(s[start:i])
	}
}

// word matches the two letter alternatives at i (each first with the
// optional prefix character, then without) and returns the end, or i.
func (p casedSplit) word(s string, i int) int {
	c0, n0 := caseAt(s, i)
	end := -1
	for _, f := range [2]func(string, int) int{upperLower, upperThenLower} {
		if c0&casePrefix != 0 {
			if end = f(s, i+n0); end >= 0 {
				break
			}
		}
		if end = f(s, i); end >= 0 {
			break
		}
	}
	if end < 0 {
		return i
	}
	if p.contractions && end < len(s) {
		end += contraction(s, end, true)
	}
	return end
}
