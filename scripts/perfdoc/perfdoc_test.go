package perfdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "PERFORMANCE.md")
	if err := WriteSection(path, "## Render", "## Render\n\nfirst\n"); err != nil {
		t.Fatal(err)
	}
	if err := WriteSection(path, "## Parse", "## Parse\n\nparse\n"); err != nil {
		t.Fatal(err)
	}
	if err := WriteSection(path, "## Render", "## Render\n\nsecond\n"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	doc := string(data)
	if !strings.HasPrefix(doc, "# Performance\n") || strings.Contains(doc, "first") ||
		!strings.HasSuffix(doc, "## Render\n\nsecond\n\n## Parse\n\nparse\n") {
		t.Errorf("document:\n%s", doc)
	}
}
