package gateway

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// statusRuntime is a fake runtime that loads its own models and says where
// each stands (backend.StatusReporter), as the embedded engine does.
type statusRuntime struct {
	*fakeRuntime
	mu     sync.Mutex
	status []backend.ModelStatus
}

func (r *statusRuntime) ModelStatus() []backend.ModelStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]backend.ModelStatus(nil), r.status...)
}

func (r *statusRuntime) set(st ...backend.ModelStatus) {
	r.mu.Lock()
	r.status = st
	r.mu.Unlock()
}

// /v1/models gives each model of such a runtime its state, context, slots,
// size and expiry as they are now (not as the cached listing saw them);
// /api/ps lists only the loaded ones, with Ollama's fields; the other
// runtimes' models keep no status.
func TestModelStatusListed(t *testing.T) {
	rt := &statusRuntime{fakeRuntime: qwenRuntime()}
	rt.kind = backend.Embedded
	rt.models["small"] = rt.models["qwen"]
	other := qwenRuntime()
	other.url = "http://127.0.0.1:2"
	other.models = map[string]backend.ModelInfo{"elsewhere": other.models["qwen"]}
	expires := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	rt.set(backend.ModelStatus{ID: "qwen", Loaded: true, ContextLength: 4096, Slots: 4, Size: 5 << 30, KVResident: true, Running: 2, ExpiresAt: expires},
		backend.ModelStatus{ID: "small", ContextLength: 2048, Slots: 4, Size: 1 << 20})
	cfg := Config{NoDiscover: true, Upstreams: []Upstream{{URL: rt.url}, {URL: other.url}}}
	s, err := New(cfg, Hooks{Connect: func(ctx context.Context, u Upstream) (backend.Backend, error) {
		if u.URL == other.url {
			return other, nil
		}
		return rt, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	ts := srv.URL

	byID := func() map[string]map[string]any {
		out := map[string]map[string]any{}
		body := decodeBody(t, get(t, ts+"/v1/models"))
		for _, m := range body["data"].([]any) {
			mm := m.(map[string]any)
			out[mm["id"].(string)] = mm
		}
		return out
	}
	ms := byID()
	if st, _ := ms["qwen"]["status"].(map[string]any); st == nil || st["state"] != "loaded" || st["context_length"] != 4096.0 || st["slots"] != 4.0 ||
		st["size"] != float64(5<<30) || st["kv_cache"] != true || st["running"] != 2.0 || st["expires_at"] != "2030-01-02T03:04:05Z" {
		t.Errorf("qwen: %v", ms["qwen"])
	}
	if st, _ := ms["small"]["status"].(map[string]any); st == nil || st["state"] != "unloaded" || st["context_length"] != 2048.0 || st["kv_cache"] != false || st["expires_at"] != nil {
		t.Errorf("small: %v", ms["small"])
	}
	if _, has := ms["elsewhere"]["status"]; has || ms["elsewhere"] == nil {
		t.Errorf("a runtime without status: %v", ms["elsewhere"])
	}
	ps := decodeBody(t, get(t, ts+"/api/ps"))
	names := map[string]map[string]any{}
	for _, m := range ps["models"].([]any) {
		mm := m.(map[string]any)
		names[mm["name"].(string)] = mm
	}
	if q := names["qwen"]; q == nil || q["size"] != float64(5<<30) || q["size_vram"] != 0.0 || q["context_length"] != 4096.0 || q["expires_at"] != "2030-01-02T03:04:05Z" {
		t.Errorf("ps qwen: %v", q)
	}
	if _, listed := names["small"]; listed || names["elsewhere"] == nil {
		t.Errorf("ps lists %v: want the loaded qwen and the other runtime's model, not the unloaded small", names)
	}
	// The state changes under the cached listing: the next listing says so.
	rt.set(backend.ModelStatus{ID: "qwen", ContextLength: 4096, Slots: 4, Size: 5 << 30},
		backend.ModelStatus{ID: "small", Loaded: true, ContextLength: 2048, Slots: 4, Size: 1 << 20, KVResident: true})
	ms = byID()
	if ms["qwen"]["status"].(map[string]any)["state"] != "unloaded" || ms["small"]["status"].(map[string]any)["state"] != "loaded" {
		t.Errorf("after the change: %v", ms)
	}
	ps = decodeBody(t, get(t, ts+"/api/ps"))
	for _, m := range ps["models"].([]any) {
		mm := m.(map[string]any)
		switch mm["name"] {
		case "qwen":
			t.Errorf("ps lists the unloaded qwen: %v", mm)
		case "small":
			// Never unloaded: the farthest expiry, as Ollama's for a
			// negative keep_alive.
			if at, err := time.Parse(time.RFC3339, mm["expires_at"].(string)); err != nil || at.Year() < 2200 {
				t.Errorf("small never expires: %v (%v)", mm["expires_at"], err)
			}
		}
	}
}
