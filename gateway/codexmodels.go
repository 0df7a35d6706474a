package gateway

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Codex CLI reads a model catalog of its own from GET {base_url}/models,
// which it asks for with a client_version query parameter
// (?client_version=0.169.0): {"models": [ModelInfo…]}, each model with its
// slug, context window, reasoning levels, input modalities, tool-output
// truncation and the base instructions Codex then uses as its system prompt.
// Codex asks for it only for a provider with an auth command (or a ChatGPT
// login); without it, or with a catalog that does not name the model, Codex
// warns "Model metadata for `…` not found" and uses fallback metadata (a
// 272,000-token context window). OpenAI clients send no client_version and
// keep {"object": "list", "data": […]}. docs/DECISIONS.md says why the
// base instructions are left empty.

// codexPrepareAll is the most models the Codex listing prepares: a
// preparation keeps the model's tokenizer (about 20 MB for a 150k-token
// vocabulary) for the process's life, which a catalog of a few models can
// afford and a store of dozens, of which Codex uses one, should not pay for.
// In a larger catalog only the models already prepared (requests have used
// them) get what their templates say.
const codexPrepareAll = 8

// wantsCodexModels reports whether a GET /v1/models is Codex CLI's.
func wantsCodexModels(r *http.Request) bool {
	return r.URL.Query().Has("client_version")
}

// codexModel is one model in Codex's catalog shape (codex-rs ModelInfo).
// The fields Codex 0.169 requires are always written; what Dragoman does not
// know is left to Codex's own fallback values.
type codexModel struct {
	Slug                     string             `json:"slug"`
	DisplayName              string             `json:"display_name"`
	Description              string             `json:"description"`
	DefaultReasoningLevel    string             `json:"default_reasoning_level,omitempty"`
	SupportedReasoningLevels []codexEffort      `json:"supported_reasoning_levels"`
	ShellType                string             `json:"shell_type"`
	Visibility               string             `json:"visibility"`
	SupportedInAPI           bool               `json:"supported_in_api"`
	Priority                 int                `json:"priority"`
	BaseInstructions         string             `json:"base_instructions"`
	SupportsReasoningSummary bool               `json:"supports_reasoning_summaries"`
	DefaultReasoningSummary  string             `json:"default_reasoning_summary"`
	SupportVerbosity         bool               `json:"support_verbosity"`
	WebSearchToolType        string             `json:"web_search_tool_type"`
	TruncationPolicy         codexTruncation    `json:"truncation_policy"`
	ParallelToolCalls        bool               `json:"supports_parallel_tool_calls"`
	ContextWindow            int                `json:"context_window,omitempty"`
	MaxContextWindow         int                `json:"max_context_window,omitempty"`
	ExperimentalTools        []string           `json:"experimental_supported_tools"`
	InputModalities          []string           `json:"input_modalities"`
	Dragoman                 codexDragomanNotes `json:"dragoman"`
}

type codexEffort struct {
	Effort      string `json:"effort"`
	Description string `json:"description"`
}

type codexTruncation struct {
	Mode  string `json:"mode"`
	Limit int    `json:"limit"`
}

// codexDragomanNotes says where the values came from (Codex ignores it).
type codexDragomanNotes struct {
	Runtime  string `json:"runtime"`
	Format   string `json:"format,omitempty"`
	Prepared bool   `json:"prepared"`
}

// handleCodexModels answers Codex CLI's GET /v1/models?client_version=….
func (s *Server) handleCodexModels(w http.ResponseWriter, r *http.Request) {
	// The wait for the models' preparations (template, family, context
	// length) is limits.catalog_wait; a model not prepared by then is listed
	// with what its runtime's listing said, and its preparation goes on for
	// the next listing and the first request.
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(s.cfg.Limits.CatalogWait))
	defer cancel()
	type entry struct {
		id, name string // the client's name and the upstream's
		u        *upstream
		listed   int // the listing's context length
		st       *modelState
	}
	var entries []*entry
	seen := map[string]bool{}
	for _, u := range s.upstreams(r.Context()) {
		for _, m := range s.models(r.Context(), u) {
			if !seen[m.ID] {
				seen[m.ID] = true
				entries = append(entries, &entry{id: m.ID, name: m.ID, u: u, listed: m.ContextLength})
			}
		}
	}
	byName := map[string]*entry{}
	for _, e := range entries {
		byName[e.name] = e
	}
	for alias, target := range s.cfg.Aliases {
		t := byName[target]
		if t == nil {
			t = byName[target+":latest"] // Ollama's name for a name without a tag
		}
		if !seen[alias] && t != nil {
			seen[alias] = true
			entries = append(entries, &entry{id: alias, name: t.name, u: t.u, listed: t.listed})
		}
	}
	// Every model is prepared as its first request would prepare it, all at
	// once, for at most limits.catalog_wait; in a larger catalog, only those
	// prepared already.
	var wg sync.WaitGroup
	for _, e := range entries {
		if len(entries) > codexPrepareAll {
			e.st = preparedState(e.u, e.name)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if st, err := s.prepare(ctx, e.u, e.name); err == nil {
				e.st = st
			}
		}()
	}
	wg.Wait()
	out := make([]codexModel, 0, len(entries))
	for i, e := range entries {
		out = append(out, codexModelFor(e.id, string(e.u.be.Kind()), e.listed, e.st, i))
	}
	writeJSON(w, http.StatusOK, struct {
		Models []codexModel `json:"models"`
	}{out})
}

// preparedState is the model's finished preparation, or nil: none is
// started.
func preparedState(u *upstream, model string) *modelState {
	u.mu.Lock()
	st := u.prepared[model]
	u.mu.Unlock()
	if st == nil {
		return nil
	}
	select {
	case <-st.ready:
		return st
	default:
		return nil
	}
}

// codexModelFor describes one model as Codex reads it: st is its
// preparation (nil when it was not ready in time), listed the context length
// its runtime's listing gave.
func codexModelFor(id, runtime string, listed int, st *modelState, priority int) codexModel {
	m := codexModel{
		Slug: id, DisplayName: id,
		Description:              fmt.Sprintf("%s on %s, through Dragoman", id, runtime),
		SupportedReasoningLevels: []codexEffort{},
		// As Codex's fallback metadata has them: what Dragoman does not know.
		ShellType: "default", Visibility: "list", SupportedInAPI: true, Priority: priority,
		DefaultReasoningSummary: "none", WebSearchToolType: "text",
		TruncationPolicy:  codexTruncation{Mode: "bytes", Limit: 10000},
		ExperimentalTools: []string{},
		// Own mode renders no image; relay mode passes images on to a
		// runtime whose model may not take them: Dragoman does not know.
		InputModalities: []string{"text"},
		Dragoman:        codexDragomanNotes{Runtime: runtime},
	}
	m.ContextWindow = listed
	if st == nil {
		m.MaxContextWindow = m.ContextWindow
		return m
	}
	m.Dragoman.Prepared = true
	if st.contextLength > 0 {
		m.ContextWindow = st.contextLength
	}
	m.MaxContextWindow = m.ContextWindow
	if f := st.family; f != nil {
		m.Dragoman.Format = f.ID
		m.ParallelToolCalls = f.Calls != nil && !f.Calls.Single
	}
	m.SupportedReasoningLevels, m.DefaultReasoningLevel = codexReasoning(st)
	return m
}

// codexReasoning is the reasoning efforts the model's template makes a
// difference for: low, medium and high where the template reads
// reasoning_effort; none (thinking off) and medium (on, the template's
// default) where it reads enable_thinking; medium alone where it renders
// its family's reasoning markup with no switch; none of them where the
// template renders no reasoning or is not known.
func codexReasoning(st *modelState) ([]codexEffort, string) {
	levels := []codexEffort{}
	src := st.tplSource
	if st.tpl == nil || st.family == nil || st.family.ThinkOpen == "" {
		return levels, ""
	}
	switch {
	case strings.Contains(src, "reasoning_effort"):
		levels = append(levels, codexEffort{"low", "the template's low reasoning effort"},
			codexEffort{"medium", "the template's medium reasoning effort"},
			codexEffort{"high", "the template's high reasoning effort"})
	case strings.Contains(src, "enable_thinking"):
		levels = append(levels, codexEffort{"none", "thinking off (enable_thinking false)"},
			codexEffort{"medium", "thinking on, as the template renders it by default"})
	case strings.Contains(src, st.family.ThinkOpen):
		levels = append(levels, codexEffort{"medium", "the model always thinks"})
	default:
		return levels, ""
	}
	return levels, "medium"
}
