package jinja

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir is ../shared beside the repository, or $DRAGOMAN_SHARED.
func sharedDir(t testing.TB) string {
	if d := os.Getenv("DRAGOMAN_SHARED"); d != "" {
		return d
	}
	d, _ := filepath.Abs("../../shared")
	if _, err := os.Stat(d); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared corpus missing at %s (set DRAGOMAN_SHARED)", d)
		}
		t.Skipf("shared corpus missing at %s", d)
	}
	return d
}
