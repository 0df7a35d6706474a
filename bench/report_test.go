package bench

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// The report of a hand-made run: every link lands on an element of the
// page, each failed item is there with both sides, nothing is fetched from
// anywhere, and a long prompt is cut in the middle on a character boundary.
func TestWriteReport(t *testing.T) {
	items, sides, recs := summaryRun()
	dir := t.TempDir()
	long := strings.Repeat("é", 3000) + "<script>x</script>" // 6,000 bytes and markup
	if err := os.WriteFile(filepath.Join(dir, TracesFile), []byte(`{"side": "B", "item": "x12", "trace": {"prompt": "`+long+`"}}`+"\n"+`{"side": "A", "item": "x12", "trace": {"prompt": "short"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteReport(dir, Summarize(items, sides, recs, 1), items, sides, recs); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if ids[m[1]] {
			t.Errorf("id %q twice", m[1])
		}
		ids[m[1]] = true
	}
	links := regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(page, -1)
	for _, m := range links {
		if !ids[m[1]] {
			t.Errorf("a link to #%s, which the page lacks", m[1])
		}
	}
	// B fails x10–x19 and y5–y9, A y5–y9: 15 items shown, 2 sides each; the
	// pair's 10 discordant items and B's 15 failures by cause are links.
	if n := strings.Count(page, `<div class="item" id="item-`); n != 15 || strings.Count(page, `<div class="side" id="item-`) != 30 || len(links) != 10+15+5 {
		t.Errorf("%d items shown, %d links", n, len(links))
	}
	if regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(page) || strings.Contains(page, "<script>") {
		t.Errorf("the page fetches or runs something")
	}
	if !strings.Contains(page, "bytes left out here") || !strings.Contains(page, "&lt;script&gt;x&lt;/script&gt;") || !strings.Contains(page, ">short<") {
		t.Errorf("the long prompt is not cut and escaped, or the short one is missing")
	}
	if k := keepEnds(long, 100); !utf8.ValidString(k) || !strings.HasPrefix(k, "éé") || !strings.HasSuffix(k, "</script>") || len(k) > 200 {
		t.Errorf("keepEnds: %q", k)
	}
}
