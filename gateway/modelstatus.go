package gateway

import (
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// Model status: a runtime that loads and unloads its models itself (the
// embedded engine, backend.StatusReporter) says where each stands, and the
// listings report it as it is now, not as the cached model list last saw
// it: /v1/models gives each such model a status object (Ollama's /api/ps
// fields, LM Studio's loaded / not-loaded state), and /api/ps lists only the
// models loaded, with their size and expiry.

// modelStatus is a model's status object in /v1/models.
type modelStatus struct {
	// State is "loaded", "loading" or "unloaded" (loaded on its next
	// request).
	State         string `json:"state"`
	ContextLength int    `json:"context_length"`
	Slots         int    `json:"slots"`
	// Size is the memory the model takes loaded, in bytes (weights and KV
	// cache; what it would take when not loaded).
	Size int64 `json:"size"`
	// KVCache is false while an idle model's KV cache is freed
	// (-idle-release) or the model is not loaded.
	KVCache bool `json:"kv_cache"`
	Running int  `json:"running"`
	// ExpiresAt is when an idle loaded model unloads; absent when never.
	ExpiresAt string `json:"expires_at,omitempty"`
}

// statuses reads be's model status now; nil when be reports none.
func statuses(be backend.Backend) map[string]*modelStatus {
	sr, ok := be.(backend.StatusReporter)
	if !ok {
		return nil
	}
	out := map[string]*modelStatus{}
	for _, st := range sr.ModelStatus() {
		ms := &modelStatus{State: "unloaded", ContextLength: st.ContextLength, Slots: st.Slots, Size: st.Size,
			KVCache: st.KVResident, Running: st.Running}
		switch {
		case st.Loading:
			ms.State = "loading"
		case st.Loaded:
			ms.State = "loaded"
		}
		if !st.ExpiresAt.IsZero() {
			ms.ExpiresAt = st.ExpiresAt.UTC().Format(time.RFC3339)
		}
		out[st.ID] = ms
	}
	return out
}

// forever is the expires_at /api/ps gives a model that never unloads: the
// latest time a Go duration reaches from now, as Ollama reports a negative
// keep_alive.
func forever() string {
	return time.Now().Add(time.Duration(1<<63 - 1)).UTC().Format(time.RFC3339)
}
