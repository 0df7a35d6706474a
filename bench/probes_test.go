package bench

import (
	"strings"
	"testing"
)

// TestProbes: the built-in suite loads, its paired categories hold the same
// questions with the one difference they are about, and each item's gold
// output passes while a call taking another tool's parameter fails.
func TestProbes(t *testing.T) {
	s := Probes()
	count := map[string]int{}
	byID := map[string]*Item{}
	for i := range s.Items {
		it := &s.Items[i]
		count[it.Category]++
		byID[it.ID] = it
		if res := Check(it, goldCalls(it, false), Options{}); !res.Pass {
			t.Errorf("%s: gold output fails: %+v", it.ID, res)
		}
	}
	want := map[string]int{"probe_tools_1": 10, "probe_tools_13": 10, "probe_choice_text": 8, "probe_choice_enum": 8, "probe_foreign_param": 8}
	for c, n := range want {
		if count[c] != n {
			t.Errorf("%s: %d items, want %d", c, count[c], n)
		}
	}
	for id, one := range byID {
		switch {
		case strings.HasSuffix(id, "/1"):
			many := byID[strings.TrimSuffix(id, "1")+"13"]
			if many == nil || len(one.Tools) != 1 || len(many.Tools) != 13 || many.Messages[0].Content != one.Messages[0].Content {
				t.Errorf("%s: no matching 13-tool item", id)
			}
		case strings.HasSuffix(id, "/text"):
			enum := byID[strings.TrimSuffix(id, "text")+"enum"]
			text, withEnum := string(one.Tools[0].Function.Parameters), string(enum.Tools[0].Function.Parameters)
			if strings.Contains(text, `"enum"`) || !strings.Contains(withEnum, `"enum":["heat","cool","auto","off"]`) || enum.Messages[0].Content != one.Messages[0].Content {
				t.Errorf("%s: %s against %s", id, text, withEnum)
			}
		}
	}
	window := byID["foreign/window"]
	bad := calls("search_flights", `{"origin": "Boston", "destination": "Paris", "date": "2025-06-01", "seat_type": "window"}`)
	if res := Check(window, bad, Options{}); res.Kind != ErrUnexpectedParam {
		t.Errorf("another tool's parameter: %+v", res)
	}
}
