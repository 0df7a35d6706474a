package format

import "strings"

// Detect names the family whose markup a chat template renders. Each family's
// Detect sees the template source followed by the template's render of a probe
// conversation with one call to a sentinel tool (see probe.go), so it can match
// the markup as rendered, not only as written. The heuristics are kept mutually
// exclusive (a test holds them to that over the whole corpus), so at most one
// claims a template; none claims a template without tool support.
func Detect(template string) (*Family, bool) {
	text := detectionText(template)
	for _, f := range Families() {
		if f.Detect != nil && f.Detect(text) {
			return f, true
		}
	}
	return nil, false
}

// detectionText is what the families' Detect functions look at: the source,
// then the probe render.
func detectionText(source string) string {
	return source + "\n" + renderProbe(source)
}

// ForcedOpen reports whether a rendered prompt leaves the family's reasoning
// open: it ends, but for whitespace, with the reasoning open marker. The output
// then starts inside the reasoning.
func ForcedOpen(f *Family, prompt string) bool {
	return f.ThinkOpen != "" && strings.HasSuffix(strings.TrimRight(prompt, " \t\r\n"), f.ThinkOpen)
}
