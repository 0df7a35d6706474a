package format

import "strings"

// Layout: the whitespace templates put around and between call sections,
// which several families' parsers skip.

// trimLayout drops the layout at the start of s.
func trimLayout(s string) string { return strings.TrimLeft(s, " \t\r\n") }

// joinLayout extends a call section of n bytes over the whitespace that joins
// it to the next call (templates put a newline between calls), so that it does
// not become content.
func joinLayout(buf string, n int, opener string, final bool) (int, bool) {
	rest := buf[n:]
	trimmed := trimLayout(rest)
	switch {
	case strings.HasPrefix(trimmed, opener):
		return n + len(rest) - len(trimmed), false
	case strings.HasPrefix(opener, trimmed) && !final:
		return 0, true
	}
	return n, false
}
