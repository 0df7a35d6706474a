package main

import (
	"os"
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
	r := dragoman(t, "", []string{"HOME=" + dir}, "serve", "-config", cfg)
	want := "-model " + filepath.Join(dir, "models", "missing.gguf") + ": no such file"
	if r.status != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("status %d, stderr %q; want 2 and %q", r.status, r.stderr, want)
	}
	// A -model adds to the file's models: one of each that would be served
	// under the same name is refused (before any library is loaded).
	tiny := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-random.gguf")
	both := write(t, dir, "both.json", `{"no_discover": true, "engine": {"models": [`+strconv.Quote(tiny)+`]}}`)
	if err := os.Symlink(tiny, filepath.Join(dir, "tiny-qwen3-random.gguf")); err != nil {
		t.Fatal(err)
	}
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

// Bad configuration is refused at start, each rule with its own words,
// before anything listens; threads beyond the CPUs get a warning.
func TestServeValidatesAtStart(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-upstream", "olama=http://127.0.0.1:11434"}, `unknown runtime kind "olama"`},
		{[]string{"-upstream", "not a url"}, "not a URL"},
		{[]string{"-upstream", "ftp://127.0.0.1:21"}, `want an http:// or https:// address`},
		{[]string{"-upstream", "http://127.0.0.1:8080", "-mode", "foo"}, `-mode "foo": want own or relay`},
		{[]string{"-mode", "relay"}, "-mode applies to the -upstream runtimes"},
		{[]string{"-max-output-tokens", "-3"}, "max_output_tokens -3"},
	} {
		r := dragoman(t, "", nil, append([]string{"serve", "-listen", "127.0.0.1:0", "-no-discover"}, c.args...)...)
		if r.status != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: status %d, stderr %q; want 2 and %q", c.args, r.status, r.stderr, c.want)
		}
	}
	r := dragoman(t, "", nil, "serve", "-listen", "127.0.0.1:0", "-no-discover", "-model", filepath.Join(t.TempDir(), "none.gguf"), "-threads", "999")
	if !strings.Contains(r.stderr, "warning: 999 threads") {
		t.Errorf("threads beyond the CPUs: stderr %q", r.stderr)
	}
}
