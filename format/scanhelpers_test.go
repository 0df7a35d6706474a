package format

import (
	"strings"
	"testing"
)

// indexAnyReference and safePrefixReference are the helpers as first
// written (a strings.Index per marker, every suffix length tried); the fast
// ones must agree.
func indexAnyReference(s string, markers []string) (int, string) {
	best, which := -1, ""
	for _, m := range markers {
		if m == "" {
			continue
		}
		if i := strings.Index(s, m); i >= 0 && (best < 0 || i < best || (i == best && len(m) > len(which))) {
			best, which = i, m
		}
	}
	return best, which
}

func safePrefixReference(s string, markers []string) int {
	n := len(s)
	for _, m := range markers {
		for k := min(len(m)-1, len(s)); k > 0; k-- {
			if strings.HasSuffix(s, m[:k]) {
				n = min(n, len(s)-k)
				break
			}
		}
	}
	return safePrefix(s[:n], nil) // the UTF-8 rule, unchanged
}

var helperMarkerSets = [][]string{
	{"<tool_call>"},
	{"</think>", "<tool_call>"},
	{"<tool_call>", "<tool_call>x", ""},
	{"<|START_ACTION|>", "<|START_RESPONSE|>", "<|START_TEXT|>", "Action:"},
	{"<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"},
	{"", ""},
	{"aa", "a", "aaa"},
	nil,
}

func checkHelpers(t *testing.T, s string) {
	t.Helper()
	for _, ms := range helperMarkerSets {
		gi, gm := indexAny(s, ms)
		wi, wm := indexAnyReference(s, ms)
		if gi != wi || gm != wm {
			t.Errorf("indexAny(%q, %q) = %d, %q; want %d, %q", s, ms, gi, gm, wi, wm)
		}
		if g, w := safePrefix(s, ms), safePrefixReference(s, ms); g != w {
			t.Errorf("safePrefix(%q, %q) = %d; want %d", s, ms, g, w)
		}
	}
}

func TestScanHelpers(t *testing.T) {
	for _, s := range []string{"", "<", "<tool", "text <tool_call>{}", "a</think><tool_call>", "<tool_call>x<tool_call>",
		"xx<|START_", "Action", "Act", "<｜tool▁out", "<｜tool▁outputs▁end｜>é", "aaaa", "baa", "é\xe6\x97", "<<<<tool_call"} {
		checkHelpers(t, s)
	}
}

func FuzzScanHelpers(f *testing.F) {
	f.Add("text <tool_call>{}")
	f.Add("xx<|START_")
	f.Fuzz(func(t *testing.T, s string) { checkHelpers(t, s) })
}

func harmonyFieldsReference(h string) []string {
	return strings.Fields(strings.ReplaceAll(strings.ReplaceAll(h, "<|", " <|"), "|>", "|> "))
}

func checkHarmonyFields(t *testing.T, h string) {
	t.Helper()
	var space [16]string
	got, ok := harmonyFields(h, space[:0])
	if !ok {
		return
	}
	if want := harmonyFieldsReference(h); strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
		t.Errorf("harmonyFields(%q) = %q; want %q", h, got, want)
	}
}

func TestHarmonyFields(t *testing.T) {
	for _, h := range []string{"<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json",
		"<|channel|>analysis", " to=functions.f<|channel|>commentary", "<|>", "a<|>", "|>|>", "<|<|", "<<|", "|>>", "||>",
		"", "  ", "\v\f", "x\ty\nz", "é<|channel|>"} {
		checkHarmonyFields(t, h)
	}
}

func FuzzHarmonyFields(f *testing.F) {
	f.Add("<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json")
	f.Fuzz(func(t *testing.T, h string) { checkHarmonyFields(t, h) })
}
