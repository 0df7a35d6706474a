package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// The engine's slots reach its options: the config file's engine.slots,
// then -slots over it (serve -check prints what the engine would get).
func TestServeSlots(t *testing.T) {
	dir := t.TempDir()
	tiny := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-random.gguf")
	cfg := write(t, dir, "slots.json", `{"no_discover": true, "engine": {"slots": 3}}`)
	for _, c := range []struct {
		args []string
		want int
	}{{nil, 3}, {[]string{"-slots", "2"}, 2}} {
		r := dragoman(t, "", isolated(dir), append([]string{"serve", "-check", "-config", cfg, "-model", tiny}, c.args...)...)
		var got struct {
			Engine struct{ Slots int } `json:"engine"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Engine.Slots != c.want {
			t.Errorf("%v: slots %d, want %d (stdout %q, stderr %q)", c.args, got.Engine.Slots, c.want, r.stdout, r.stderr)
		}
	}
}
