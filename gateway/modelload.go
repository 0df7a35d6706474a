package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/trace"
)

// Loading and unloading models on a client's request: Ollama's requests
// without messages (keep_alive 0 unloads, anything else loads), and
// POST /v1/dragoman/unload, as llama-swap's /unload, for every other client.
// The runtimes that load and unload their models themselves
// (backend.ModelLoader: Ollama, the embedded engine) are asked to; the
// others serve what they were started with, and the request is answered as
// done with a decision in the trace saying so.

// modelLifecycle is a request to load or unload one model.
type modelLifecycle struct {
	model string
	// keepAlive is the client's: 0 asks for an unload, anything else for a
	// load to stay that long (nil: the runtime's default).
	keepAlive *time.Duration
	// answer writes the dialect's answer once it is done.
	answer func(w http.ResponseWriter, unloaded bool)
}

func (lc *modelLifecycle) unload() bool { return lc.keepAlive != nil && *lc.keepAlive == 0 }

// loadOrUnload carries out lc on every runtime serving its model (unload)
// or the one a request would go to (load).
func (s *Server) loadOrUnload(ctx context.Context, lc *modelLifecycle, rec *trace.Record) error {
	routes, err := s.resolve(ctx, lc.model)
	if err != nil {
		return err
	}
	if !lc.unload() {
		routes = routes[:1]
	}
	for _, rt := range routes {
		rec.Upstream = rt.up.name
		loader, ok := rt.up.be.(backend.ModelLoader)
		switch {
		case !ok:
			rec.Decide(fmt.Sprintf("%s (%s) loads and unloads its models itself: nothing asked of it", rt.up.name, rt.up.be.Kind()))
		case lc.unload():
			if err := loader.Unload(ctx, rt.model); err != nil {
				return upstreamFailure(fmt.Errorf("%s: %w", rt.up.name, err))
			}
			rec.Decide(fmt.Sprintf("asked %s to unload %s", rt.up.name, rt.model))
		default:
			if err := loader.Load(ctx, rt.model, lc.keepAlive); err != nil {
				return upstreamFailure(fmt.Errorf("%s: %w", rt.up.name, err))
			}
			rec.Decide(fmt.Sprintf("%s loaded %s (keep-alive %s)", rt.up.name, rt.model, keepAliveText(lc.keepAlive)))
		}
	}
	return nil
}

func keepAliveText(d *time.Duration) string {
	switch {
	case d == nil:
		return "the runtime's default"
	case *d < 0:
		return "for ever"
	}
	return d.String()
}

// unloadRequest is POST /v1/dragoman/unload's body: the model to unload;
// without one, every model of every runtime that can unload its models.
type unloadRequest struct {
	Model string `json:"model"`
}

// unloaded is one model the unload endpoint asked a runtime to let go.
type unloaded struct {
	Model    string `json:"model"`
	Upstream string `json:"upstream"`
}

// handleUnload is POST /v1/dragoman/unload: {"model": "…"} unloads that
// model wherever it is served, an empty body every model of the runtimes
// that load their own. It answers with what it asked to unload.
func (s *Server) handleUnload(w http.ResponseWriter, r *http.Request) {
	var in unloadRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<16))
	if err == nil && len(body) > 0 {
		err = json.Unmarshal(body, &in)
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]string{"message": "want {\"model\": \"…\"} or no body: " + err.Error()}})
		return
	}
	var done []unloaded
	if in.Model != "" {
		done, err = s.unloadModel(r.Context(), in.Model)
	} else {
		done, err = s.unloadAll(r.Context())
	}
	if err != nil {
		status, _, _ := errorStatus(err)
		writeJSON(w, status, map[string]any{"error": map[string]string{"message": s.public(err).Error()}, "unloaded": done})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"unloaded": done})
}

// unloadModel unloads model on every runtime serving it that can.
func (s *Server) unloadModel(ctx context.Context, model string) ([]unloaded, error) {
	routes, err := s.resolve(ctx, model)
	if err != nil {
		return nil, err
	}
	done := []unloaded{}
	for _, rt := range routes {
		if loader, ok := rt.up.be.(backend.ModelLoader); ok {
			if err := loader.Unload(ctx, rt.model); err != nil {
				return done, upstreamFailure(fmt.Errorf("%s: %w", rt.up.name, err))
			}
			done = append(done, unloaded{Model: rt.model, Upstream: rt.up.name})
		}
	}
	return done, nil
}

// unloadAll unloads what the runtimes that load their own models hold: the
// loaded models of one that reports them (the embedded engine), else every
// model it lists (Ollama ignores an unload of a model it has not loaded).
func (s *Server) unloadAll(ctx context.Context) ([]unloaded, error) {
	done := []unloaded{}
	var errs []error
	for _, u := range s.upstreams(ctx) {
		loader, ok := u.be.(backend.ModelLoader)
		if !ok {
			continue
		}
		for _, id := range loadedModels(ctx, s, u) {
			if err := loader.Unload(ctx, id); err != nil {
				errs = append(errs, upstreamFailure(fmt.Errorf("%s: %w", u.name, err)))
				continue
			}
			done = append(done, unloaded{Model: id, Upstream: u.name})
		}
	}
	return done, errors.Join(errs...)
}

// loadedModels is what u may hold loaded.
func loadedModels(ctx context.Context, s *Server, u *upstream) []string {
	var ids []string
	if sr, ok := u.be.(backend.StatusReporter); ok {
		for _, st := range sr.ModelStatus() {
			if st.Loaded || st.Loading {
				ids = append(ids, st.ID)
			}
		}
		return ids
	}
	for _, m := range s.models(ctx, u) {
		ids = append(ids, m.ID)
	}
	return ids
}
