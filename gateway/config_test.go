package gateway

import (
	"testing"
	"time"
)

// The example configuration in docs/ loads and makes a gateway, as written.
func TestExampleConfigLoads(t *testing.T) {
	cfg, err := LoadConfig("../docs/examples/dragoman.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Upstreams) != 2 || cfg.Upstreams[1].Kind != "llama-server" || cfg.Aliases["fast"] != "qwen3:0.6b" ||
		cfg.MaxOutputTokens != 4096 || time.Duration(cfg.Responses.MaxAge) != time.Hour {
		t.Errorf("config %+v", cfg)
	}
	s, err := New(cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
