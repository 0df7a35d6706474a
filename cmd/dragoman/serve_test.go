package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// The config file's engine section reaches the engine: its models
// (relative to the config file's folder) are opened at start-up, and a
// -model flag adds to them. A missing file stops serve with its path.
func TestServeConfigEngine(t *testing.T) {
	dir := t.TempDir()
	cfg := write(t, dir, "dragoman.json", `{"no_discover": true, "listen": "127.0.0.1:0",
		"engine": {"models": ["models/missing.gguf"], "context": 512, "threads": 1}}`)
	r := dragoman(t, "", nil, "serve", "-config", cfg)
	want := "model " + filepath.Join(dir, "models", "missing.gguf") + ": "
	if r.status != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("status %d, stderr %q; want 1 and %q", r.status, r.stderr, want)
	}
	// A -model adds to the file's models: one of each that would be served
	// under the same name is refused (before any library is loaded).
	tiny := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-random.gguf")
	both := write(t, dir, "both.json", `{"no_discover": true, "engine": {"models": [`+strconv.Quote(tiny)+`]}}`)
	r = dragoman(t, "", nil, "serve", "-config", both, "-model", filepath.Join(dir, "tiny-qwen3-random.gguf"))
	if r.status != 1 || !strings.Contains(r.stderr, `would both be served as "tiny-qwen3-random"`) {
		t.Errorf("with -model: status %d, stderr %q", r.status, r.stderr)
	}
	// Unknown fields in the section are an error, as everywhere in the file.
	bad := write(t, dir, "bad.json", `{"engine": {"modles": ["a.gguf"]}}`)
	if r := dragoman(t, "", nil, "serve", "-config", bad); r.status != 2 || !strings.Contains(r.stderr, `unknown field "modles"`) {
		t.Errorf("misspelt field: status %d, stderr %q", r.status, r.stderr)
	}
}
