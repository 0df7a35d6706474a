package gateway

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/format"
	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/template"
	"github.com/dragoman-dev/dragoman/tokenize"
)

// upstream is one runtime and what the gateway has learnt about it.
type upstream struct {
	name string
	cfg  Upstream
	be   backend.Backend

	// inFlight counts the requests it is answering (least-busy routing);
	// downUntil is when it may be tried again after it could not be reached.
	inFlight  atomic.Int64
	mu        sync.Mutex
	downUntil time.Time
	models    []backend.Model
	listedAt  time.Time
	listErr   error
	listing   bool // a background listing is running
	prepared  map[string]*modelState
}

// modelState is what serving one model needs, worked out once per model.
type modelState struct {
	ready chan struct{} // closed when the fields below are set
	// rate is the runtime's measured prompt rate for this model, for the
	// make-up's prefill estimate.
	rate promptRate
	// tpl is the compiled chat template and family its tool-call markup; nil
	// when unknown, which sends the model through the runtime's chat API.
	tpl       *jinja.Template
	tplSource string
	// caps is what the template does with content parts and roles.
	caps           templateCaps
	family         *format.Family
	templateOrigin string
	bos, eos       string
	contextLength  int
	// tok counts the rendered prompt's tokens as the runtime will; nil when
	// the model's GGUF is not at hand. Ollama's num_ctx needs it; every
	// runtime's count_tokens and make-up use it.
	tok *tokenize.Tokenizer
	// why explains, for the trace, how the template and family were chosen.
	why []string
}

// route is where one request goes.
type route struct {
	up    *upstream
	model string // the upstream's name for the model
	state *modelState
}

// errModelNotFound is returned when no upstream serves the model.
type errModelNotFound struct {
	model     string
	available []string
}

func (e *errModelNotFound) Error() string {
	if len(e.available) == 0 {
		return fmt.Sprintf("model %q not found: no runtime is reachable (start Ollama, llama-server, LM Studio, vLLM, SGLang or mlx_lm.server, or configure an upstream)", e.model)
	}
	return fmt.Sprintf("model %q not found; available: %v", e.model, e.available)
}

// models returns u's models. The first listing is waited for; after that
// the last list is served, and once it is older than ModelsTTL one listing
// runs in the background, so that no request waits for the runtime. A failed
// listing is not an error for the caller: the upstream then simply offers
// no models until the next one.
func (s *Server) models(ctx context.Context, u *upstream) []backend.Model {
	u.mu.Lock()
	if u.listedAt.IsZero() {
		u.mu.Unlock()
		return u.listModels(ctx)
	}
	m := u.models
	if !u.listing && time.Since(u.listedAt) >= time.Duration(s.cfg.ModelsTTL) {
		u.listing = s.background(func(ctx context.Context) { u.listModels(ctx) })
	}
	u.mu.Unlock()
	return m
}

// listModels asks the runtime for its models and keeps the answer; a listing
// cut short by its context (the client left, the server closed) is not kept.
func (u *upstream) listModels(ctx context.Context) []backend.Model {
	timeout := 2 * time.Second
	if backend.IsLocal(u.be.BaseURL()) {
		timeout = 10 * time.Second // a local runtime may be loading a model
	}
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	models, err := u.be.Models(lctx)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.listing = false
	if ctx.Err() == nil {
		u.models, u.listErr, u.listedAt = models, err, time.Now()
	}
	return models
}

// downFor is how long an upstream that could not be reached is passed over
// while another serves the same model.
const downFor = 10 * time.Second

func (u *upstream) markDown() {
	u.mu.Lock()
	u.downUntil = time.Now().Add(downFor)
	u.mu.Unlock()
}

func (u *upstream) isDown() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return time.Now().Before(u.downUntil)
}

// resolve finds the upstreams serving model, in the order to try them:
// healthy before marked down, then the least busy, then configuration order.
func (s *Server) resolve(ctx context.Context, model string) ([]*route, error) {
	name := model
	if a, ok := s.cfg.Aliases[model]; ok {
		name = a
	}
	var available []string
	var found []*route
	for _, u := range s.upstreams(ctx) {
		for _, m := range s.models(ctx, u) {
			if sameModel(u.be.Kind(), name, m.ID) {
				found = append(found, &route{up: u, model: m.ID})
				break
			}
			available = append(available, m.ID)
		}
	}
	if len(found) == 0 {
		if down := s.unreachable(); len(down) > 0 {
			// The model may be on a runtime that did not answer: that is the
			// runtime's failure (502), which clients retry, not a model that
			// does not exist (404), which they do not.
			return nil, &upstreamError{status: http.StatusBadGateway, err: fmt.Errorf("model %q is not served by the runtimes that answered, and these did not answer: %s", model, strings.Join(down, "; "))}
		}
		return nil, &errModelNotFound{model: model, available: available}
	}
	down := make(map[*upstream]bool, len(found))
	busy := make(map[*upstream]int64, len(found))
	for _, r := range found {
		down[r.up], busy[r.up] = r.up.isDown(), r.up.inFlight.Load()
	}
	slices.SortStableFunc(found, func(a, b *route) int {
		if down[a.up] != down[b.up] {
			if down[a.up] {
				return 1
			}
			return -1
		}
		return cmp.Compare(busy[a.up], busy[b.up])
	})
	for _, r := range found {
		r.state = s.prepare(ctx, r.up, r.model)
	}
	return found, nil
}

// unreachable describes the configured upstreams that could not be set up
// and the upstreams whose last model listing failed.
func (s *Server) unreachable() []string {
	s.mu.Lock()
	var out []string
	for _, err := range s.connectErrs {
		out = append(out, err.Error())
	}
	ups := append(append([]*upstream(nil), s.configured...), s.discovered...)
	s.mu.Unlock()
	for _, u := range ups {
		u.mu.Lock()
		if u.listErr != nil {
			out = append(out, fmt.Sprintf("%s: %v", u.name, u.listErr))
		}
		u.mu.Unlock()
	}
	return out
}

// prepare works out, once per model, its template and tool-call family.
// Concurrent first requests wait for one preparation.
func (s *Server) prepare(ctx context.Context, u *upstream, model string) *modelState {
	u.mu.Lock()
	st, ok := u.prepared[model]
	if !ok {
		st = &modelState{ready: make(chan struct{})}
		u.prepared[model] = st
	}
	u.mu.Unlock()
	if ok {
		<-st.ready
		return st
	}
	defer close(st.ready)
	s.findTemplate(ctx, u, model, st)
	if st.tpl == nil {
		return st
	}
	st.caps = probeTemplateCaps(st.tpl, st.tplSource, st.bos, st.eos)
	if f, ok := format.Detect(st.tplSource); ok {
		st.family = f
		st.why = append(st.why, fmt.Sprintf("tool-call format %s, detected from the template", f.ID))
	} else {
		st.why = append(st.why, "no tool-call format matches the template; calls are not parsed")
	}
	return st
}

// loadTokenizer reads the model's tokenizer from its GGUF, as the runtime
// reads it (Ollama and llama.cpp differ on a few control-looking tokens), for
// count_tokens, the prompt's make-up and Ollama's num_ctx.
func loadTokenizer(kind backend.Kind, path string, st *modelState) *tokenize.Tokenizer {
	rt := tokenize.LlamaCpp
	if kind == backend.Ollama {
		rt = tokenize.Ollama
	}
	tok, err := tokenize.FromGGUFFor(path, rt)
	if err != nil {
		why := "the model's tokenizer could not be loaded (no count_tokens or make-up for it): " + err.Error()
		if kind == backend.Ollama {
			why = "the model's tokenizer could not be loaded, so num_ctx is left to Ollama: " + err.Error()
		}
		st.why = append(st.why, why)
		return nil
	}
	return tok
}

// findTemplate looks for the model's Jinja chat template: a configured file,
// then what the runtime exposes, then the GGUF in the runtime's store.
func (s *Server) findTemplate(ctx context.Context, u *upstream, model string, st *modelState) {
	info, err := u.be.ModelInfo(ctx, model)
	if err != nil {
		st.why = append(st.why, "the runtime did not describe the model: "+err.Error())
	}
	st.bos, st.eos, st.contextLength = info.BOSToken, info.EOSToken, info.ContextLength
	var src *template.Source
	configured := u.cfg.Templates[model]
	if configured == "" {
		// Ollama names a model "name:latest" where the user wrote "name".
		configured = u.cfg.Templates[strings.TrimSuffix(model, ":latest")]
	}
	switch {
	case configured != "":
		path := configured
		if src, err = template.Find(path); err != nil {
			st.why = append(st.why, fmt.Sprintf("configured template %s: %v", path, err))
			return
		}
	case info.Template != "":
		src = template.FromText(info.Template, info.TemplateOrigin)
	case info.GGUFPath != "":
		if src, err = template.Find(info.GGUFPath); err != nil {
			st.why = append(st.why, fmt.Sprintf("model file %s: %v", info.GGUFPath, err))
			return
		}
	default:
		st.why = append(st.why, "the runtime exposes no chat template for this model and none is configured")
		return
	}
	if info.GGUFPath != "" {
		st.tok = loadTokenizer(u.be.Kind(), info.GGUFPath, st)
	}
	if src.Text == "" {
		st.why = append(st.why, "the template source holds only named templates")
		return
	}
	tpl, err := s.compiled.Compile(src.Text)
	if err != nil {
		st.why = append(st.why, "the chat template does not compile: "+err.Error())
		return
	}
	st.tpl, st.tplSource = tpl, src.Text
	st.templateOrigin = src.From.String()
	if st.templateOrigin == "" {
		st.templateOrigin = info.TemplateOrigin
	}
	if st.bos == "" {
		st.bos, _ = src.SpecialTokens["bos_token"].(string)
	}
	if st.eos == "" {
		st.eos, _ = src.SpecialTokens["eos_token"].(string)
	}
	st.why = append(st.why, "chat template from "+st.templateOrigin)
}

// sameModel reports whether a client's model name names the listed model. On
// Ollama a name without a tag means its ":latest", as Ollama itself reads it.
func sameModel(kind backend.Kind, name, listed string) bool {
	if name == listed {
		return true
	}
	return kind == backend.Ollama && !strings.Contains(name, ":") && listed == name+":latest"
}
