package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// The engine's llama.cpp options and its seed reach the engine: the config
// file's engine section, then the flags over it (serve -check prints what
// the engine would get); a budget that is not a size is refused.
func TestServeEngineOptions(t *testing.T) {
	dir := t.TempDir()
	tiny := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-random.gguf")
	cfg := write(t, dir, "engine.json", `{"no_discover": true, "engine": {"kv_budget": "2GiB", "flash_attention": "on",
		"cache_type": "q8_0", "batch": 1024, "ubatch": 256, "seed": 42, "idle_release": "15m",
		"keep_alive": "2h", "memory_budget": "8GiB", "preload": true, "slot_save_dir": "kv"}}`)
	type engine struct {
		KVBudget       int64  `json:"kv_budget"`
		FlashAttention string `json:"flash_attention"`
		CacheType      string `json:"cache_type"`
		Batch          int    `json:"batch"`
		Ubatch         int    `json:"ubatch"`
		Seed           *int64 `json:"seed"`
		IdleRelease    string `json:"idle_release"`
		KeepAlive      string `json:"keep_alive"`
		MemoryBudget   int64  `json:"memory_budget"`
		Preload        bool   `json:"preload"`
		SlotSaveDir    string `json:"slot_save_dir"`
	}
	seed := func(n int64) *int64 { return &n }
	for _, c := range []struct {
		args []string
		want engine
	}{
		{nil, engine{2 << 30, "on", "q8_0", 1024, 256, seed(42), "15m0s", "2h0m0s", 8 << 30, true, filepath.Join(dir, "kv")}},
		{[]string{"-kv-budget", "512MiB", "-flash-attn", "off", "-cache-type", "f16", "-batch", "64", "-ubatch", "32", "-seed", "0", "-idle-release", "1h",
			"-keep-alive", "3h", "-memory-budget", "1GiB", "-preload=false", "-slot-save-dir", "/var/kv"},
			engine{512 << 20, "off", "f16", 64, 32, seed(0), "1h0m0s", "3h0m0s", 1 << 30, false, "/var/kv"}},
	} {
		r := dragoman(t, "", isolated(dir), append([]string{"serve", "-check", "-config", cfg, "-model", tiny}, c.args...)...)
		var got struct {
			Engine engine `json:"engine"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("%v: %v (stdout %q, stderr %q)", c.args, err, r.stdout, r.stderr)
		}
		g, w := got.Engine, c.want
		if g.KVBudget != w.KVBudget || g.FlashAttention != w.FlashAttention || g.CacheType != w.CacheType || g.Batch != w.Batch ||
			g.Ubatch != w.Ubatch || g.Seed == nil || *g.Seed != *w.Seed || g.IdleRelease != w.IdleRelease ||
			g.KeepAlive != w.KeepAlive || g.MemoryBudget != w.MemoryBudget || g.Preload != w.Preload || g.SlotSaveDir != w.SlotSaveDir {
			t.Errorf("%v: engine %+v, want %+v", c.args, g, w)
		}
	}
	// Without a seed anywhere, none is set (each request draws its own).
	r := dragoman(t, "", isolated(dir), "serve", "-check", "-no-discover", "-model", tiny)
	if strings.Contains(r.stdout, `"seed"`) {
		t.Errorf("a seed without -seed: %s", r.stdout)
	}
	r = dragoman(t, "", isolated(dir), "serve", "-check", "-no-discover", "-model", tiny, "-kv-budget", "lots")
	if r.status != 2 || !strings.Contains(r.stderr, `-kv-budget "lots"`) {
		t.Errorf("-kv-budget lots: status %d, stderr %q", r.status, r.stderr)
	}
	r = dragoman(t, "", isolated(dir), "serve", "-check", "-no-discover", "-model", tiny, "-memory-budget", "lots")
	if r.status != 2 || !strings.Contains(r.stderr, `-memory-budget "lots"`) {
		t.Errorf("-memory-budget lots: status %d, stderr %q", r.status, r.stderr)
	}
}
