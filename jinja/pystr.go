package jinja

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Python's str operations on characters and whole strings, shared by the str
// methods (methods.go), the filters and the tests: character classes, full
// case mappings, line breaks.
//
// Unicode: str methods count code points, as Python does. Case mappings follow
// Python 3.11 (Unicode 14) exactly for every character Go's unicode package
// (Unicode 15) also assigns: the multi-character mappings (ß → SS, ŉ, ligatures,
// Greek with ypogegrammeni...), final sigma in lower(), İ → i̇, and full case
// folding are tabled below. Characters first assigned in Unicode 15 are treated
// as Go sees them (Python 3.11 would call them unassigned).

// ---------------------------------------------------------------------------
// Unicode character classes and case mappings as Python 3.11 has them.

// isSpaceRune is Python's str.isspace for one character (what str.split() and
// str.strip() treat as whitespace): bidirectional class WS, B or S, or Zs.
func isSpaceRune(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ', 0x85, 0xa0, 0x1680,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// asciiRepr is ascii(): repr with non-ASCII characters escaped.
func asciiRepr(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x` + strconv.FormatInt(int64(r)|0x100, 16)[1:])
		case r < 0x10000:
			b.WriteString(`\u` + strconv.FormatInt(int64(r)|0x10000, 16)[1:])
		default:
			b.WriteString(`\U` + strconv.FormatInt(int64(r)|0x100000000, 16)[1:])
		}
	}
	return b.String()
}

// isLineBreak is a line boundary of str.splitlines.
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// splitLines is str.splitlines(keepends): it breaks on every line boundary
// Python knows, "\r\n" counting as one.
func splitLines(s string, keep bool) []string {
	parts := []string{}
	start := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isLineBreak(r) {
			i += w
			continue
		}
		next := i + w
		if r == '\r' && next < len(s) && s[next] == '\n' {
			next++
		}
		if keep {
			parts = append(parts, s[start:next])
		} else {
			parts = append(parts, s[start:i])
		}
		start, i = next, next
	}
	if start < len(s) {
		parts = append(parts, s[start:])
	}
	return parts
}

// isLowerRune and isUpperRune are the Lowercase and Uppercase properties.
func isLowerRune(r rune) bool {
	switch r {
	case 0x10fc, 0xa7f2, 0xa7f3, 0xa7f4, 0xab69: // Other_Lowercase only since Unicode 15
		return false
	}
	return unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r)
}

func isUpperRune(r rune) bool {
	return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r)
}

func isCasedRune(r rune) bool {
	return isLowerRune(r) || isUpperRune(r) || unicode.IsTitle(r)
}

// isCaseIgnorable is the Case_Ignorable property, which the final-sigma rule
// of str.lower() skips over.
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xb7, 0x387, 0x55f, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

func inRuneRanges(ranges []rune, r rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if r < ranges[i] {
			return false
		}
		if r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// isAlnumRune is Python's str.isalnum for one character, which is also what
// \w matches (together with '_') in Python's re.
func isAlnumRune(r rune) bool { return unicode.IsLetter(r) || isNumericRune(r) }

// isDigitRune is Python's str.isdigit for one character.
func isDigitRune(r rune) bool {
	return unicode.IsDigit(r) || inRuneRanges(digitExtraRanges, r)
}

// isNumericRune is Python's str.isnumeric for one character.
func isNumericRune(r rune) bool {
	return unicode.IsNumber(r) || inRuneRanges(numericExtraRanges, r)
}

// decimalValue is the digit value of a decimal digit of any script, or -1.
func decimalValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if r < 0x80 || !unicode.IsDigit(r) {
		return -1
	}
	// Decimal digits come in runs that start at zero.
	z := r
	for unicode.IsDigit(z - 1) {
		z--
	}
	return int(r-z) % 10
}

// isIdentifier is str.isidentifier: XID_Start or "_", then XID_Continue.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if i == 0 {
			if !isXIDStart(r) {
				return false
			}
		} else if !isXIDContinue(r) {
			return false
		}
	}
	return true
}

func isXIDStart(r rune) bool {
	switch {
	case r == '_':
		return true
	case r == 0xe33 || r == 0xeb3 || r == 0xff9e || r == 0xff9f:
		return false
	}
	return !notXID(r) && unicode.In(r, unicode.L, unicode.Nl, unicode.Other_ID_Start)
}

func isXIDContinue(r rune) bool {
	return !notXID(r) && unicode.In(r, unicode.L, unicode.Nl, unicode.Other_ID_Start,
		unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}

// notXID lists the ID characters NFKC normalisation excludes from XID.
func notXID(r rune) bool {
	switch r {
	case 0x37a, 0x2e2f, 0x309b, 0x309c, 0xfdfa, 0xfdfb, 0xfe70, 0xfe72, 0xfe74, 0xfe76,
		0xfe78, 0xfe7a, 0xfe7c, 0xfe7e:
		return true
	}
	return r >= 0xfc5e && r <= 0xfc63
}

func upperFull(b *strings.Builder, r rune) {
	if m, ok := caseUpperSpecial[r]; ok {
		b.WriteString(m)
		return
	}
	b.WriteRune(unicode.ToUpper(r))
}

func titleFull(b *strings.Builder, r rune) {
	if m, ok := caseTitleSpecial[r]; ok {
		b.WriteString(m)
		return
	}
	b.WriteRune(unicode.ToTitle(r))
}

// lowerAt writes the lower case of rs[i]: İ becomes i + combining dot, and a
// capital sigma that ends a word becomes ς.
func lowerAt(b *strings.Builder, rs []rune, i int) {
	switch rs[i] {
	case 0x130:
		b.WriteString("i\u0307")
		return
	case 0x3a3:
		if finalSigmaAt(rs, i) {
			b.WriteRune(0x3c2)
		} else {
			b.WriteRune(0x3c3)
		}
		return
	}
	b.WriteRune(unicode.ToLower(rs[i]))
}

func finalSigmaAt(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && isCaseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !isCasedRune(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && isCaseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !isCasedRune(rs[j])
}

// asciiCase reports whether s is all ASCII and, if so, whether it holds a
// letter from lo to hi, one that upper or lower would change.
func asciiCase(s string, lo, hi byte) (ascii, change bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false, false
		}
		if lo <= c && c <= hi {
			change = true
		}
	}
	return true, change
}

func strUpper(s string) string {
	if ascii, change := asciiCase(s, 'a', 'z'); ascii {
		if !change {
			return s
		}
		return strings.ToUpper(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		upperFull(&b, r)
	}
	return b.String()
}

func strLower(s string) string {
	if ascii, change := asciiCase(s, 'A', 'Z'); ascii {
		if !change {
			return s
		}
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	for i := range rs {
		lowerAt(&b, rs, i)
	}
	return b.String()
}

func strCasefold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if m, ok := caseFoldSpecial[r]; ok {
			b.WriteString(m)
			continue
		}
		switch { // Cherokee folds to its capitals
		case r >= 0x13a0 && r <= 0x13f5:
		case r >= 0x13f8 && r <= 0x13fd:
			r -= 8
		case r >= 0xab70 && r <= 0xabbf:
			r -= 0x97d0
		default:
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func strCapitalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	for i, r := range rs {
		if i == 0 {
			titleFull(&b, r)
		} else {
			lowerAt(&b, rs, i)
		}
	}
	return b.String()
}

func strTitle(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	prevCased := false
	for i, r := range rs {
		if prevCased {
			lowerAt(&b, rs, i)
		} else {
			titleFull(&b, r)
		}
		prevCased = isCasedRune(r)
	}
	return b.String()
}

func strSwapcase(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case isUpperRune(r):
			lowerAt(&b, rs, i)
		case isLowerRune(r):
			upperFull(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func strIsLower(s string) bool {
	cased := false
	for _, r := range s {
		if isUpperRune(r) || unicode.IsTitle(r) {
			return false
		}
		if isLowerRune(r) {
			cased = true
		}
	}
	return cased
}

func strIsUpper(s string) bool {
	cased := false
	for _, r := range s {
		if isLowerRune(r) || unicode.IsTitle(r) {
			return false
		}
		if isUpperRune(r) {
			cased = true
		}
	}
	return cased
}

func strIsTitle(s string) bool {
	cased, prevCased := false, false
	for _, r := range s {
		switch {
		case isUpperRune(r) || unicode.IsTitle(r):
			if prevCased {
				return false
			}
			prevCased, cased = true, true
		case isLowerRune(r):
			if !prevCased {
				return false
			}
			prevCased, cased = true, true
		default:
			prevCased = false
		}
	}
	return cased
}

// ---------------------------------------------------------------------------
// Tables generated with Python 3.11 (unicodedata 14.0.0) against Go's unicode package.

// caseUpperSpecial holds the characters whose str.upper() in Python is not
// unicode.ToUpper: the unconditional multi-character mappings of SpecialCasing.txt.
var caseUpperSpecial = map[rune]string{
	0xdf: "SS", 0x149: "\u02bcN", 0x1f0: "J\u030c", 0x390: "\u0399\u0308\u0301",
	0x3b0: "\u03a5\u0308\u0301", 0x587: "\u0535\u0552", 0x1e96: "H\u0331", 0x1e97: "T\u0308",
	0x1e98: "W\u030a", 0x1e99: "Y\u030a", 0x1e9a: "A\u02be", 0x1f50: "\u03a5\u0313",
	0x1f52: "\u03a5\u0313\u0300", 0x1f54: "\u03a5\u0313\u0301", 0x1f56: "\u03a5\u0313\u0342",
	0x1f80: "\u1f08\u0399", 0x1f81: "\u1f09\u0399", 0x1f82: "\u1f0a\u0399", 0x1f83: "\u1f0b\u0399",
	0x1f84: "\u1f0c\u0399", 0x1f85: "\u1f0d\u0399", 0x1f86: "\u1f0e\u0399", 0x1f87: "\u1f0f\u0399",
	0x1f88: "\u1f08\u0399", 0x1f89: "\u1f09\u0399", 0x1f8a: "\u1f0a\u0399", 0x1f8b: "\u1f0b\u0399",
	0x1f8c: "\u1f0c\u0399", 0x1f8d: "\u1f0d\u0399", 0x1f8e: "\u1f0e\u0399", 0x1f8f: "\u1f0f\u0399",
	0x1f90: "\u1f28\u0399", 0x1f91: "\u1f29\u0399", 0x1f92: "\u1f2a\u0399", 0x1f93: "\u1f2b\u0399",
	0x1f94: "\u1f2c\u0399", 0x1f95: "\u1f2d\u0399", 0x1f96: "\u1f2e\u0399", 0x1f97: "\u1f2f\u0399",
	0x1f98: "\u1f28\u0399", 0x1f99: "\u1f29\u0399", 0x1f9a: "\u1f2a\u0399", 0x1f9b: "\u1f2b\u0399",
	0x1f9c: "\u1f2c\u0399", 0x1f9d: "\u1f2d\u0399", 0x1f9e: "\u1f2e\u0399", 0x1f9f: "\u1f2f\u0399",
	0x1fa0: "\u1f68\u0399", 0x1fa1: "\u1f69\u0399", 0x1fa2: "\u1f6a\u0399", 0x1fa3: "\u1f6b\u0399",
	0x1fa4: "\u1f6c\u0399", 0x1fa5: "\u1f6d\u0399", 0x1fa6: "\u1f6e\u0399", 0x1fa7: "\u1f6f\u0399",
	0x1fa8: "\u1f68\u0399", 0x1fa9: "\u1f69\u0399", 0x1faa: "\u1f6a\u0399", 0x1fab: "\u1f6b\u0399",
	0x1fac: "\u1f6c\u0399", 0x1fad: "\u1f6d\u0399", 0x1fae: "\u1f6e\u0399", 0x1faf: "\u1f6f\u0399",
	0x1fb2: "\u1fba\u0399", 0x1fb3: "\u0391\u0399", 0x1fb4: "\u0386\u0399", 0x1fb6: "\u0391\u0342",
	0x1fb7: "\u0391\u0342\u0399", 0x1fbc: "\u0391\u0399", 0x1fc2: "\u1fca\u0399",
	0x1fc3: "\u0397\u0399", 0x1fc4: "\u0389\u0399", 0x1fc6: "\u0397\u0342",
	0x1fc7: "\u0397\u0342\u0399", 0x1fcc: "\u0397\u0399", 0x1fd2: "\u0399\u0308\u0300",
	0x1fd3: "\u0399\u0308\u0301", 0x1fd6: "\u0399\u0342", 0x1fd7: "\u0399\u0308\u0342",
	0x1fe2: "\u03a5\u0308\u0300", 0x1fe3: "\u03a5\u0308\u0301", 0x1fe4: "\u03a1\u0313",
	0x1fe6: "\u03a5\u0342", 0x1fe7: "\u03a5\u0308\u0342", 0x1ff2: "\u1ffa\u0399",
	0x1ff3: "\u03a9\u0399", 0x1ff4: "\u038f\u0399", 0x1ff6: "\u03a9\u0342",
	0x1ff7: "\u03a9\u0342\u0399", 0x1ffc: "\u03a9\u0399", 0xfb00: "FF", 0xfb01: "FI", 0xfb02: "FL",
	0xfb03: "FFI", 0xfb04: "FFL", 0xfb05: "ST", 0xfb06: "ST", 0xfb13: "\u0544\u0546",
	0xfb14: "\u0544\u0535", 0xfb15: "\u0544\u053b", 0xfb16: "\u054e\u0546", 0xfb17: "\u0544\u053d",
}

// caseTitleSpecial is the same for the title-case mapping (str.title and
// str.capitalize).
var caseTitleSpecial = map[rune]string{
	0xdf: "Ss", 0x149: "\u02bcN", 0x1f0: "J\u030c", 0x390: "\u0399\u0308\u0301",
	0x3b0: "\u03a5\u0308\u0301", 0x587: "\u0535\u0582", 0x1e96: "H\u0331", 0x1e97: "T\u0308",
	0x1e98: "W\u030a", 0x1e99: "Y\u030a", 0x1e9a: "A\u02be", 0x1f50: "\u03a5\u0313",
	0x1f52: "\u03a5\u0313\u0300", 0x1f54: "\u03a5\u0313\u0301", 0x1f56: "\u03a5\u0313\u0342",
	0x1fb2: "\u1fba\u0345", 0x1fb4: "\u0386\u0345", 0x1fb6: "\u0391\u0342",
	0x1fb7: "\u0391\u0342\u0345", 0x1fc2: "\u1fca\u0345", 0x1fc4: "\u0389\u0345",
	0x1fc6: "\u0397\u0342", 0x1fc7: "\u0397\u0342\u0345", 0x1fd2: "\u0399\u0308\u0300",
	0x1fd3: "\u0399\u0308\u0301", 0x1fd6: "\u0399\u0342", 0x1fd7: "\u0399\u0308\u0342",
	0x1fe2: "\u03a5\u0308\u0300", 0x1fe3: "\u03a5\u0308\u0301", 0x1fe4: "\u03a1\u0313",
	0x1fe6: "\u03a5\u0342", 0x1fe7: "\u03a5\u0308\u0342", 0x1ff2: "\u1ffa\u0345",
	0x1ff4: "\u038f\u0345", 0x1ff6: "\u03a9\u0342", 0x1ff7: "\u03a9\u0342\u0345", 0xfb00: "Ff",
	0xfb01: "Fi", 0xfb02: "Fl", 0xfb03: "Ffi", 0xfb04: "Ffl", 0xfb05: "St", 0xfb06: "St",
	0xfb13: "\u0544\u0576", 0xfb14: "\u0544\u0565", 0xfb15: "\u0544\u056b", 0xfb16: "\u054e\u0576",
	0xfb17: "\u0544\u056d",
}

// caseFoldSpecial holds the characters whose str.casefold() in Python is not
// unicode.ToLower (CaseFolding.txt); Cherokee is handled in caseFold.
var caseFoldSpecial = map[rune]string{
	0xb5: "\u03bc", 0xdf: "ss", 0x130: "i\u0307", 0x149: "\u02bcn", 0x17f: "s", 0x1f0: "j\u030c",
	0x345: "\u03b9", 0x390: "\u03b9\u0308\u0301", 0x3b0: "\u03c5\u0308\u0301", 0x3c2: "\u03c3",
	0x3d0: "\u03b2", 0x3d1: "\u03b8", 0x3d5: "\u03c6", 0x3d6: "\u03c0", 0x3f0: "\u03ba",
	0x3f1: "\u03c1", 0x3f5: "\u03b5", 0x587: "\u0565\u0582", 0x1c80: "\u0432", 0x1c81: "\u0434",
	0x1c82: "\u043e", 0x1c83: "\u0441", 0x1c84: "\u0442", 0x1c85: "\u0442", 0x1c86: "\u044a",
	0x1c87: "\u0463", 0x1c88: "\ua64b", 0x1e96: "h\u0331", 0x1e97: "t\u0308", 0x1e98: "w\u030a",
	0x1e99: "y\u030a", 0x1e9a: "a\u02be", 0x1e9b: "\u1e61", 0x1e9e: "ss", 0x1f50: "\u03c5\u0313",
	0x1f52: "\u03c5\u0313\u0300", 0x1f54: "\u03c5\u0313\u0301", 0x1f56: "\u03c5\u0313\u0342",
	0x1f80: "\u1f00\u03b9", 0x1f81: "\u1f01\u03b9", 0x1f82: "\u1f02\u03b9", 0x1f83: "\u1f03\u03b9",
	0x1f84: "\u1f04\u03b9", 0x1f85: "\u1f05\u03b9", 0x1f86: "\u1f06\u03b9", 0x1f87: "\u1f07\u03b9",
	0x1f88: "\u1f00\u03b9", 0x1f89: "\u1f01\u03b9", 0x1f8a: "\u1f02\u03b9", 0x1f8b: "\u1f03\u03b9",
	0x1f8c: "\u1f04\u03b9", 0x1f8d: "\u1f05\u03b9", 0x1f8e: "\u1f06\u03b9", 0x1f8f: "\u1f07\u03b9",
	0x1f90: "\u1f20\u03b9", 0x1f91: "\u1f21\u03b9", 0x1f92: "\u1f22\u03b9", 0x1f93: "\u1f23\u03b9",
	0x1f94: "\u1f24\u03b9", 0x1f95: "\u1f25\u03b9", 0x1f96: "\u1f26\u03b9", 0x1f97: "\u1f27\u03b9",
	0x1f98: "\u1f20\u03b9", 0x1f99: "\u1f21\u03b9", 0x1f9a: "\u1f22\u03b9", 0x1f9b: "\u1f23\u03b9",
	0x1f9c: "\u1f24\u03b9", 0x1f9d: "\u1f25\u03b9", 0x1f9e: "\u1f26\u03b9", 0x1f9f: "\u1f27\u03b9",
	0x1fa0: "\u1f60\u03b9", 0x1fa1: "\u1f61\u03b9", 0x1fa2: "\u1f62\u03b9", 0x1fa3: "\u1f63\u03b9",
	0x1fa4: "\u1f64\u03b9", 0x1fa5: "\u1f65\u03b9", 0x1fa6: "\u1f66\u03b9", 0x1fa7: "\u1f67\u03b9",
	0x1fa8: "\u1f60\u03b9", 0x1fa9: "\u1f61\u03b9", 0x1faa: "\u1f62\u03b9", 0x1fab: "\u1f63\u03b9",
	0x1fac: "\u1f64\u03b9", 0x1fad: "\u1f65\u03b9", 0x1fae: "\u1f66\u03b9", 0x1faf: "\u1f67\u03b9",
	0x1fb2: "\u1f70\u03b9", 0x1fb3: "\u03b1\u03b9", 0x1fb4: "\u03ac\u03b9", 0x1fb6: "\u03b1\u0342",
	0x1fb7: "\u03b1\u0342\u03b9", 0x1fbc: "\u03b1\u03b9", 0x1fbe: "\u03b9", 0x1fc2: "\u1f74\u03b9",
	0x1fc3: "\u03b7\u03b9", 0x1fc4: "\u03ae\u03b9", 0x1fc6: "\u03b7\u0342",
	0x1fc7: "\u03b7\u0342\u03b9", 0x1fcc: "\u03b7\u03b9", 0x1fd2: "\u03b9\u0308\u0300",
	0x1fd3: "\u03b9\u0308\u0301", 0x1fd6: "\u03b9\u0342", 0x1fd7: "\u03b9\u0308\u0342",
	0x1fe2: "\u03c5\u0308\u0300", 0x1fe3: "\u03c5\u0308\u0301", 0x1fe4: "\u03c1\u0313",
	0x1fe6: "\u03c5\u0342", 0x1fe7: "\u03c5\u0308\u0342", 0x1ff2: "\u1f7c\u03b9",
	0x1ff3: "\u03c9\u03b9", 0x1ff4: "\u03ce\u03b9", 0x1ff6: "\u03c9\u0342",
	0x1ff7: "\u03c9\u0342\u03b9", 0x1ffc: "\u03c9\u03b9", 0xfb00: "ff", 0xfb01: "fi", 0xfb02: "fl",
	0xfb03: "ffi", 0xfb04: "ffl", 0xfb05: "st", 0xfb06: "st", 0xfb13: "\u0574\u0576",
	0xfb14: "\u0574\u0565", 0xfb15: "\u0574\u056b", 0xfb16: "\u057e\u0576", 0xfb17: "\u0574\u056d",
}

// digitExtraRanges are the characters Python's str.isdigit accepts beyond the
// decimal digits (Numeric_Type=Digit: superscripts, circled digits...), as
// inclusive pairs.
var digitExtraRanges = []rune{
	0xb2, 0xb3, 0xb9, 0xb9, 0x1369, 0x1371, 0x19da, 0x19da, 0x2070, 0x2070, 0x2074, 0x2079,
	0x2080, 0x2089, 0x2460, 0x2468, 0x2474, 0x247c, 0x2488, 0x2490, 0x24ea, 0x24ea, 0x24f5, 0x24fd,
	0x24ff, 0x24ff, 0x2776, 0x277e, 0x2780, 0x2788, 0x278a, 0x2792, 0x10a40, 0x10a43,
	0x10e60, 0x10e68, 0x11052, 0x1105a, 0x1f100, 0x1f10a,
}

// numericExtraRanges are the characters Python's str.isnumeric accepts outside
// the Unicode number categories (CJK ideographs with a numeric value), as
// inclusive pairs.
var numericExtraRanges = []rune{
	0x3405, 0x3405, 0x3483, 0x3483, 0x382a, 0x382a, 0x3b4d, 0x3b4d, 0x4e00, 0x4e00, 0x4e03, 0x4e03,
	0x4e07, 0x4e07, 0x4e09, 0x4e09, 0x4e5d, 0x4e5d, 0x4e8c, 0x4e8c, 0x4e94, 0x4e94, 0x4e96, 0x4e96,
	0x4ebf, 0x4ec0, 0x4edf, 0x4edf, 0x4ee8, 0x4ee8, 0x4f0d, 0x4f0d, 0x4f70, 0x4f70, 0x5104, 0x5104,
	0x5146, 0x5146, 0x5169, 0x5169, 0x516b, 0x516b, 0x516d, 0x516d, 0x5341, 0x5341, 0x5343, 0x5345,
	0x534c, 0x534c, 0x53c1, 0x53c4, 0x56db, 0x56db, 0x58f1, 0x58f1, 0x58f9, 0x58f9, 0x5e7a, 0x5e7a,
	0x5efe, 0x5eff, 0x5f0c, 0x5f0e, 0x5f10, 0x5f10, 0x62fe, 0x62fe, 0x634c, 0x634c, 0x67d2, 0x67d2,
	0x6f06, 0x6f06, 0x7396, 0x7396, 0x767e, 0x767e, 0x8086, 0x8086, 0x842c, 0x842c, 0x8cae, 0x8cae,
	0x8cb3, 0x8cb3, 0x8d30, 0x8d30, 0x9621, 0x9621, 0x9646, 0x9646, 0x964c, 0x964c, 0x9678, 0x9678,
	0x96f6, 0x96f6, 0xf96b, 0xf96b, 0xf973, 0xf973, 0xf978, 0xf978, 0xf9b2, 0xf9b2, 0xf9d1, 0xf9d1,
	0xf9d3, 0xf9d3, 0xf9fd, 0xf9fd, 0x20001, 0x20001, 0x20064, 0x20064, 0x200e2, 0x200e2,
	0x20121, 0x20121, 0x2092a, 0x2092a, 0x20983, 0x20983, 0x2098c, 0x2098c, 0x2099c, 0x2099c,
	0x20aea, 0x20aea, 0x20afd, 0x20afd, 0x20b19, 0x20b19, 0x22390, 0x22390, 0x22998, 0x22998,
	0x23b1b, 0x23b1b, 0x2626d, 0x2626d, 0x2f890, 0x2f890,
}

// isASCII reports whether s is all ASCII, eight bytes at a time: then its
// code points are its bytes, and str indexing and slicing need no []rune.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
