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
	rtpl "github.com/dragoman-dev/dragoman/format/response"
	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/plan"
	"github.com/dragoman-dev/dragoman/template"
	"github.com/dragoman-dev/dragoman/tokenize"
)

// upstream is one runtime and what the gateway has learnt about it.
type upstream struct {
	name string
	cfg  Upstream
	be   backend.Backend
	// order is its place among the configured upstreams (Hooks.Backends
	// first), which routing falls back on.
	order int

	// inFlight counts the requests it is answering (least-busy routing);
	// downUntil is when it may be tried again after it could not be reached.
	inFlight  atomic.Int64
	mu        sync.Mutex
	downUntil time.Time
	models    []backend.Model
	listedAt  time.Time
	listErr   error
	// listFailures counts the listings failed in a row: a failed listing is
	// tried again after Server.backoff(listFailures), not after ModelsTTL.
	listFailures int
	listing      bool // a background listing is running
	prepared     map[string]*modelState
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
	// response is the model's own response_template, when it ships one that
	// loads and the upstream's parser setting allows it: own mode parses
	// with it (pipeline.go, useResponseTemplate); responseFrom says where it is.
	response      *rtpl.Template
	responseFrom  string
	bos, eos      string
	contextLength int
	// tok counts the rendered prompt's tokens as the runtime will; nil when
	// the model's GGUF is not at hand. Ollama's num_ctx needs it; every
	// runtime's count_tokens and make-up use it.
	tok *tokenize.Tokenizer
	// why explains, for the trace, how the template and family were chosen.
	why []string
	// retry says the runtime could not describe the model; the preparation
	// is done again once retryAt has passed (failures in a row so far).
	retry    bool
	retryAt  time.Time
	failures int
	// preparedAt is when the preparation finished; after
	// limits.prepare_ttl the model is prepared again in the background
	// (refreshing), its requests served from this one meanwhile.
	preparedAt time.Time
	refreshing bool
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
		return s.listModels(ctx, u)
	}
	m := u.models
	if !u.listing && s.now().Sub(u.listedAt) >= s.listAgainAfter(u, time.Duration(s.cfg.ModelsTTL)) {
		u.listing = s.background(func(ctx context.Context) { s.listModels(ctx, u) })
	}
	u.mu.Unlock()
	return m
}

// listModels asks the runtime for its models and keeps the answer; a listing
// cut short by its context (the client left, the server closed) is not kept.
func (s *Server) listModels(ctx context.Context, u *upstream) []backend.Model {
	timeout := time.Duration(s.cfg.Limits.ListTimeout)
	if backend.IsLocal(u.be.BaseURL()) {
		timeout = time.Duration(s.cfg.Limits.LocalListTimeout) // a local runtime may be loading a model
	}
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	models, err := u.be.Models(lctx)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.listing = false
	if ctx.Err() == nil {
		u.models, u.listErr, u.listedAt = models, err, s.now()
		u.listFailures = 0
		if err != nil {
			u.listFailures++
		}
	}
	return models
}

// listAgainAfter is how old the last listing may grow before the next: ttl,
// or the backoff after failures. The caller holds u.mu.
func (s *Server) listAgainAfter(u *upstream, ttl time.Duration) time.Duration {
	if u.listErr != nil {
		return min(ttl, s.backoff(u.listFailures))
	}
	return ttl
}

// markDown passes u over until then while another upstream serves the same
// model (limits.mark_down after it could not be reached).
func (u *upstream) markDown(until time.Time) {
	u.mu.Lock()
	u.downUntil = until
	u.mu.Unlock()
}

func (u *upstream) isDown(now time.Time) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return now.Before(u.downUntil)
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
	var err error
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
			return nil, &upstreamError{status: http.StatusBadGateway, retryAfter: s.retryHint(),
				err: fmt.Errorf("model %q is not served by the runtimes that answered, and these did not answer: %s", model, strings.Join(down, "; "))}
		}
		if l, ok := s.lostServing(name); ok {
			// A runtime that served the model has gone: it may be
			// restarting. Clients retry a 503; a 404 they would not.
			return nil, &upstreamError{status: http.StatusServiceUnavailable, retryAfter: time.Duration(s.cfg.ModelsTTL),
				err: fmt.Errorf("model %q was served by %s, which has not been found since %s ago", model, l.name, s.now().Sub(l.at).Round(time.Second))}
		}
		return nil, &errModelNotFound{model: model, available: available}
	}
	down := make(map[*upstream]bool, len(found))
	busy := make(map[*upstream]int64, len(found))
	now := s.now()
	for _, r := range found {
		down[r.up], busy[r.up] = r.up.isDown(now), r.up.inFlight.Load()
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
		if r.state, err = s.prepare(ctx, r.up, r.model); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// unreachable describes the configured upstreams that could not be set up
// and the upstreams whose last model listing failed.
func (s *Server) unreachable() []string {
	return s.downInfo(nil)
}

// retryHint is how long until the gateway next tries a runtime that did not
// answer (a pending upstream, a failed listing): a client's Retry-After.
func (s *Server) retryHint() time.Duration {
	var wait time.Duration
	s.downInfo(&wait)
	return wait
}

// downInfo describes the configured upstreams that could not be set up and
// the upstreams whose last model listing failed; with wait set, it also
// works out the time until the earliest next attempt at any of them.
func (s *Server) downInfo(wait *time.Duration) []string {
	soonest := func(d time.Duration) {
		if wait != nil && (*wait == 0 || d < *wait) {
			*wait = max(d, time.Millisecond)
		}
	}
	ttl := time.Duration(s.cfg.ModelsTTL)
	s.mu.Lock()
	var out []string
	for _, p := range s.pending {
		out = append(out, p.err.Error())
		soonest(p.retryAt.Sub(s.now()))
	}
	ups := append(append([]*upstream(nil), s.configured...), s.discovered...)
	s.mu.Unlock()
	for _, u := range ups {
		u.mu.Lock()
		if u.listErr != nil {
			out = append(out, fmt.Sprintf("%s: %v", u.name, u.listErr))
			soonest(u.listedAt.Add(s.listAgainAfter(u, ttl)).Sub(s.now()))
		}
		u.mu.Unlock()
	}
	return out
}

// prepare works out, once per model, its template and tool-call family.
// Concurrent first requests wait for one preparation; a preparation the
// runtime could not help with (it did not describe the model: loading,
// restarting) is done again after a backoff. The work is the model's, not
// the first client's: it goes on if that client leaves, which only stops
// the waiting.
func (s *Server) prepare(ctx context.Context, u *upstream, model string) (*modelState, error) {
	u.mu.Lock()
	st, ok := u.prepared[model]
	if ok && st.retryDue(s.now()) {
		st, ok = &modelState{ready: make(chan struct{}), failures: st.failures}, false
		u.prepared[model] = st
	}
	if !ok {
		st = cmp.Or(st, &modelState{ready: make(chan struct{})})
		u.prepared[model] = st
	}
	if ok && st.refreshDue(s.now(), time.Duration(s.cfg.Limits.PrepareTTL)) {
		st.refreshing = true
		s.background(func(life context.Context) { s.refresh(life, u, model, st) })
	}
	u.mu.Unlock()
	if !ok {
		work := func(life context.Context) {
			pctx, cancel := context.WithTimeout(life, time.Duration(s.cfg.Limits.PrepareTimeout))
			defer cancel()
			s.prepareModel(pctx, u, model, st)
		}
		if !s.background(work) {
			work(context.WithoutCancel(ctx)) // the server is closing: no goroutine to leave behind
		}
	}
	select {
	case <-st.ready:
		return st, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// refreshDue reports whether a finished, successful preparation is older
// than ttl (0: never) and no refresh runs. The caller holds the upstream's mu.
func (st *modelState) refreshDue(now time.Time, ttl time.Duration) bool {
	select {
	case <-st.ready:
		return ttl > 0 && !st.retry && !st.refreshing && now.Sub(st.preparedAt) >= ttl
	default:
		return false
	}
}

// refresh prepares model again, in the background, while old serves it:
// the runtime's template may have changed (a model pulled again). A
// preparation that succeeds replaces old for the requests after it (the
// trace's why says it was read again, and whether it changed); one that
// fails for the runtime's sake leaves old serving until the next ttl.
func (s *Server) refresh(life context.Context, u *upstream, model string, old *modelState) {
	pctx, cancel := context.WithTimeout(life, time.Duration(s.cfg.Limits.PrepareTimeout))
	defer cancel()
	next := &modelState{ready: make(chan struct{})}
	s.prepareModel(pctx, u, model, next)
	u.mu.Lock()
	defer u.mu.Unlock()
	if next.retry || pctx.Err() != nil {
		old.refreshing, old.preparedAt = false, s.now()
		return
	}
	next.rate.set(old.rate.tokensPerSecond())
	change := "unchanged"
	if next.tplSource != old.tplSource {
		change = "changed"
	}
	next.why = append(next.why, fmt.Sprintf("prepared again after limits.prepare_ttl (%s): the template is %s", time.Duration(s.cfg.Limits.PrepareTTL), change))
	u.prepared[model] = next
}

// retryDue reports whether a finished preparation failed for the runtime's
// sake and its backoff has passed by now. The caller holds the upstream's mu.
func (st *modelState) retryDue(now time.Time) bool {
	select {
	case <-st.ready:
		return st.retry && !now.Before(st.retryAt)
	default:
		return false // still being prepared
	}
}

// prepareModel fills st in and closes its ready channel.
func (s *Server) prepareModel(ctx context.Context, u *upstream, model string, st *modelState) {
	defer close(st.ready)
	defer func() { st.preparedAt = s.now() }() // before ready is closed
	s.findTemplate(ctx, u, model, st)
	if st.tpl == nil {
		return
	}
	st.caps = probeTemplateCaps(st.tpl, st.tplSource, st.bos, st.eos)
	if f, ok := format.Detect(st.tplSource); ok {
		st.family = f
		st.why = append(st.why, fmt.Sprintf("tool-call format %s, detected from the template", f.ID))
	} else {
		st.why = append(st.why, "no tool-call format matches the template; calls are not parsed")
	}
}

// loadTokenizer reads the model's tokenizer from its GGUF, as the runtime
// reads it (Ollama and llama.cpp differ on a few control-looking tokens), for
// count_tokens, the prompt's make-up and Ollama's num_ctx.
func loadTokenizer(kind backend.Kind, path string, st *modelState) *tokenize.Tokenizer {
	rt := tokenize.LlamaCpp
	if kind.Caps().OllamaTokenizer {
		rt = tokenize.Ollama
	}
	tok, err := tokenize.FromGGUFFor(path, rt)
	if err != nil {
		st.why = append(st.why, plan.NoTokenizer(kind.Caps(), err))
		return nil
	}
	return tok
}

// findTemplate looks for the model's Jinja chat template: a configured file,
// then what the runtime exposes, then the GGUF in the runtime's store.
func (s *Server) findTemplate(ctx context.Context, u *upstream, model string, st *modelState) {
	info, err := u.be.ModelInfo(ctx, model)
	if err != nil {
		st.failures++
		st.retry, st.retryAt = true, s.now().Add(s.backoff(st.failures))
		st.why = append(st.why, fmt.Sprintf("the runtime did not describe the model (%v): asked again from %s on", err, s.backoff(st.failures)))
	}
	st.bos, st.eos, st.contextLength = info.BOSToken, info.EOSToken, info.ContextLength
	var src *template.Source
	configured := u.cfg.Templates[model]
	if configured == "" {
		// Ollama names a model "name:latest" where the user wrote "name".
		configured = u.cfg.Templates[strings.TrimSuffix(model, ":latest")]
	}
	localModelFiles(u, model, configured, &info, st) // LM Studio's GGUF, a model folder's tokenizer.json (counttokens.go)
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
	s.loadResponseTemplate(u, src, st)
}

// loadResponseTemplate takes the response_template the model ships beside
// its chat template, unless the upstream is set to parse with the family.
func (s *Server) loadResponseTemplate(u *upstream, src *template.Source, st *modelState) {
	if src.ResponseTemplate == nil {
		return
	}
	from := src.ResponseTemplateFrom.String()
	if u.cfg.Parser == "family" {
		st.why = append(st.why, "response template at "+from+" not used: the upstream's parser is \"family\"")
		return
	}
	tpl, err := rtpl.Load(src.ResponseTemplate)
	if err != nil {
		st.why = append(st.why, "response template at "+from+" does not load ("+err.Error()+"): the family's parser reads the output")
		return
	}
	st.response, st.responseFrom = tpl, from
	st.why = append(st.why, "response template from "+from)
}

// sameModel reports whether a client's model name names the listed model. On
// Ollama a name without a tag means its ":latest", as Ollama itself reads it.
func sameModel(kind backend.Kind, name, listed string) bool {
	if name == listed {
		return true
	}
	return kind.Caps().LatestTag && !strings.Contains(name, ":") && listed == name+":latest"
}
