// Package jsonesc decodes JSON string escapes as encoding/json does, for the
// hand-written JSON readers (backend's per-token line scanner, grammar's
// schema reader).
package jsonesc

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Append decodes the escape that starts at s[i] (a backslash) onto b and
// returns b, the index after the escape, and false when it is not a valid
// JSON escape. A \u escape that is half of a surrogate pair takes the next
// \u escape with it when the two make a pair; otherwise it is U+FFFD and the
// next escape is read on its own, as encoding/json reads them.
func Append[S ~string | ~[]byte](b []byte, s S, i int) ([]byte, int, bool) {
	if i+1 >= len(s) {
		return b, i, false
	}
	switch e := s[i+1]; e {
	case '"', '\\', '/':
		return append(b, e), i + 2, true
	case 'b':
		return append(b, '\b'), i + 2, true
	case 'f':
		return append(b, '\f'), i + 2, true
	case 'n':
		return append(b, '\n'), i + 2, true
	case 'r':
		return append(b, '\r'), i + 2, true
	case 't':
		return append(b, '\t'), i + 2, true
	case 'u':
		r, ok := Hex4(s, i+2)
		if !ok {
			return b, i, false
		}
		i += 6
		if utf16.IsSurrogate(r) {
			low := rune(-1)
			if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if v, ok := Hex4(s, i+2); ok {
					low = v
				}
			}
			if d := utf16.DecodeRune(r, low); d != utf8.RuneError {
				r, i = d, i+6
			} else {
				r = utf8.RuneError
			}
		}
		return utf8.AppendRune(b, r), i, true
	}
	return b, i, false
}

// Hex4 reads the four hexadecimal digits at s[i:].
func Hex4[S ~string | ~[]byte](s S, i int) (rune, bool) {
	if i < 0 || i+4 > len(s) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		c := s[k]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
