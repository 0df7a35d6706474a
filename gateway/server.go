// Package gateway is Dragoman's HTTP front: it takes OpenAI Chat Completions
// and Anthropic Messages requests from agents, decodes them into the canonical
// chat.Request, and runs each through one pipeline: find the upstream serving
// the model, render the prompt with the model's own template, generate, parse
// the raw output into content, reasoning and tool calls, and answer in the
// client's dialect. Every request leaves a trace.
package gateway

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/plan"
	"github.com/dragoman-dev/dragoman/template"
	"github.com/dragoman-dev/dragoman/trace"
)

// Hooks replace how the server finds runtimes; nil fields use the backend
// package. Tests use them to put fake runtimes behind the gateway.
type Hooks struct {
	// Connect builds the backend of a configured upstream (probing its kind
	// when Kind is empty). It runs once per upstream, at its first use.
	Connect func(ctx context.Context, u Upstream) (backend.Backend, error)
	// Discover probes the default local ports. It runs at the first request
	// (which waits for it) and again, in the background, once ModelsTTL has
	// passed; ctx is cancelled when the server closes.
	Discover func(ctx context.Context) []backend.Backend
	// Backends are runtimes already running in this process (the embedded
	// llama.cpp engine of `dragoman serve --model`). They are served as
	// configured upstreams, before those of Config.Upstreams.
	Backends []backend.Backend
	// Log, when set, gets one line per request as it ends (log/slog: id,
	// API, model, upstream, mode, status, tokens, timings, calls,
	// diagnostics, error). Nil logs nothing.
	Log *slog.Logger
	// SpanExporter, when set, takes the OpenTelemetry spans instead of the
	// OTLP exporter Config.OTel would make, and turns the export on
	// whatever the config says (tests).
	SpanExporter sdktrace.SpanExporter
	// Clock, when set, is the time the gateway's deadlines are read against
	// (clock.go); nil is the system's. Tests move a fake one.
	Clock Clock
}

// Server is the gateway. Create it with New; it is an http.Handler.
type Server struct {
	cfg      Config
	hooks    Hooks
	mux      *http.ServeMux
	traces   trace.Store // tracestore.go
	compiled template.Compiled
	metrics  *metrics
	otel     *otelExport // nil when the export is off (otel.go)
	// responses keeps recent Responses API answers (previous_response_id).
	responses   *responseStore
	templateNow func() time.Time // the templates' clock (strftime_now); nil is the real one
	// flushEachEvent, set by a benchmark, flushes every event as it is
	// written, as before burstWriter held a burst's flushes.
	flushEachEvent bool
	clock          Clock        // the deadlines' (clock.go)
	client         *http.Client // to every runtime (newUpstreamClient)

	mu           sync.Mutex
	configured   []*upstream
	pending      []*pendingUpstream // configured, not set up yet (retry.go)
	connected    bool
	lost         map[string]lostUpstream // discovered, then gone (retry.go)
	discovered   []*upstream
	discoveredAt time.Time
	discovering  bool // a background discovery is running

	// Background refreshes (discovery, model lists) run in goroutines that
	// end with the server: Close cancels life and waits for them.
	life     context.Context
	stop     context.CancelFunc
	bgMu     sync.Mutex
	bgClosed bool
	bg       sync.WaitGroup
}

// New makes a gateway from cfg. It does not touch the network: upstreams are
// connected and runtimes discovered when the first request needs them.
func New(cfg Config, hooks Hooks) (*Server, error) {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, hooks: hooks, metrics: newMetrics(),
		responses: newResponseStore(cfg.Responses.Max, time.Duration(cfg.Responses.MaxAge))}
	s.life, s.stop = context.WithCancel(context.Background())
	now, err := template.NowFunc(cfg.Now)
	if err != nil {
		return nil, fmt.Errorf("now: %w", err)
	}
	s.templateNow = now
	s.clock = cmp.Or[Clock](hooks.Clock, systemClock{})
	if cfg.MaxOutputTokens < 0 {
		return nil, fmt.Errorf("max_output_tokens %d: want 0 (the runtime's default) or a positive limit", cfg.MaxOutputTokens)
	}
	for _, u := range cfg.Upstreams {
		if u.URL == "" {
			return nil, fmt.Errorf("upstream %q has no url", u.Name)
		}
		if u.Mode != "" && u.Mode != "own" && u.Mode != "relay" {
			return nil, fmt.Errorf("upstream %s: mode %q: want own or relay", redactURL(u.URL), u.Mode)
		}
		if u.Parser != "" && u.Parser != "auto" && u.Parser != "family" {
			return nil, fmt.Errorf("upstream %s: parser %q: want auto or family", redactURL(u.URL), u.Parser)
		}
		if err := checkUpstreamURL(u.URL); err != nil {
			return nil, fmt.Errorf("upstream %q: %v", redactURL(u.URL), err)
		}
		if !knownKind(backend.Kind(u.Kind)) {
			return nil, fmt.Errorf("upstream %s: unknown runtime kind %q: want %s, or none to recognise it", redactURL(u.URL), u.Kind, kindNames)
		}
	}
	s.client = newUpstreamClient(cfg.Limits)
	if s.hooks.Connect == nil {
		s.hooks.Connect = func(ctx context.Context, u Upstream) (backend.Backend, error) {
			return connectUpstream(ctx, u, s.client, time.Duration(s.cfg.Limits.DetectTimeout))
		}
	}
	if s.hooks.Discover == nil {
		s.hooks.Discover = func(ctx context.Context) []backend.Backend {
			return backend.Discover(ctx, s.client)
		}
	}
	if s.otel, err = newOTelExport(cfg.OTel, hooks.SpanExporter, hooks.Log); err != nil {
		return nil, err
	}
	s.traces = openTraceStore(cfg, hooks.Log)
	if _, inMemory := s.traces.(*trace.Ring); s.otel != nil && !inMemory {
		s.otel.settle = s.traces.Get // the store computes the make-up anyway
	}
	s.routes()
	return s, nil
}

// Config returns the configuration in effect (defaults filled in).
func (s *Server) Config() Config { return s.cfg }

// Close stops the server's background work (refreshing the runtimes found
// and their model lists) and waits for it to end, then writes the traces
// still queued and closes their store, and sends the OpenTelemetry spans
// not sent yet (for up to 5 s). Requests still answered keep working with
// what is known; nothing is refreshed any more, their traces are kept in
// memory only and they are not exported.
func (s *Server) Close() error {
	s.bgMu.Lock()
	s.bgClosed = true
	s.bgMu.Unlock()
	s.stop()
	s.bg.Wait()
	s.client.CloseIdleConnections()
	var oerr error
	if s.otel != nil {
		oerr = s.otel.close()
	}
	return errors.Join(s.traces.Close(), oerr)
}

// OTel says where the OpenTelemetry spans go ("" when the export is off)
// and whether they carry content, for serve's start-up line.
func (s *Server) OTel() (where string, content bool) {
	if s.otel == nil {
		return "", false
	}
	return s.otel.where, s.otel.content
}

// FlushSpans waits until the spans of the requests answered so far are
// built and exported, or ctx is done (nothing to wait for with the export
// off).
func (s *Server) FlushSpans(ctx context.Context) error {
	if s.otel == nil {
		return nil
	}
	return s.otel.flush(ctx)
}

// background runs f in a goroutine that ends with the server: its context is
// cancelled by Close, which waits for it. Once the server is closed it runs
// nothing and reports false.
func (s *Server) background(f func(ctx context.Context)) bool {
	s.bgMu.Lock()
	defer s.bgMu.Unlock()
	if s.bgClosed {
		return false
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		f(s.life)
	}()
	return true
}

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /v1/chat/completions", s.serveChat(openAIChat))
	s.mux.HandleFunc("POST /v1/messages", s.serveChat(anthropicMessages))
	s.mux.HandleFunc("POST /v1/responses", s.serveChat(s.responsesDialect()))
	s.mux.HandleFunc("GET /v1/responses/{id}", s.handleGetResponse)
	s.mux.HandleFunc("DELETE /v1/responses/{id}", s.handleDeleteResponse)
	s.mux.HandleFunc("POST /v1/messages/count_tokens", s.handleCountTokens)
	// The Ollama-compatible front (ollamafront.go).
	s.mux.HandleFunc("POST /api/chat", s.serveChat(ollamaDialect(false)))
	s.mux.HandleFunc("POST /api/generate", s.serveChat(ollamaDialect(true)))
	s.mux.HandleFunc("GET /api/tags", s.handleOllamaTags)
	s.mux.HandleFunc("GET /api/ps", s.handleOllamaPS)
	s.mux.HandleFunc("POST /api/show", s.handleOllamaShow)
	s.mux.HandleFunc("POST /api/pull", s.handleOllamaPull)
	s.mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": ollamaAPIVersion})
	})
	s.mux.HandleFunc("GET /v1/models", s.handleModels)
	s.mux.HandleFunc("GET /v1/models/{id...}", s.handleModel)
	s.mux.HandleFunc("POST /v1/dragoman/unload", s.handleUnload)
	s.mux.HandleFunc("GET /v1/dragoman/requests", s.handleTraceIndex)
	s.mux.HandleFunc("GET /v1/dragoman/requests/{id}", s.handleTrace)
	s.mux.HandleFunc("GET /dragoman/requests/{id}", s.handleTracePage)
	s.mux.HandleFunc("GET /dragoman/{$}", s.handleTraceList)
	s.mux.HandleFunc("GET "+loginPath, s.handleLoginPage) // tracelogin.go
	s.mux.HandleFunc("POST "+loginPath, s.handleLogin)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, `{"status":"ok"}`)
	})
	s.mux.Handle("GET /metrics", s.metrics.handler())
	s.mux.HandleFunc("/", handleUnknownPath)
}

// handleUnknownPath answers every path no route serves with a JSON error in
// the dialect its prefix implies, so that a client reads a clear error
// instead of failing on Go's plain-text "404 page not found".
func handleUnknownPath(w http.ResponseWriter, r *http.Request) {
	msg := fmt.Sprintf("Dragoman serves no %s %s", r.Method, r.URL.Path)
	switch {
	case strings.HasPrefix(r.URL.Path, "/v1/messages"):
		writeAnthropicError(w, http.StatusNotFound, "not_found_error", msg)
	case strings.HasPrefix(r.URL.Path, "/api/"):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": msg}) // Ollama's error shape
	default:
		writeOpenAIError(w, http.StatusNotFound, "not_found", msg, "")
	}
}

// ServeHTTP checks the host and origin (webguard.go) and the client key,
// then dispatches. A page opened without the key gets the form that asks
// for it (tracelogin.go), which needs none.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.guard(w, r) {
		return
	}
	if s.cfg.APIKey != "" && r.URL.Path != "/healthz" && r.URL.Path != loginPath && !s.authorized(r) {
		switch {
		case isPageRead(r):
			loginForm(w, http.StatusUnauthorized, r.URL.Path, "")
		case strings.HasPrefix(r.URL.Path, "/v1/messages"):
			writeAnthropicError(w, http.StatusUnauthorized, "authentication_error", "invalid or missing API key")
		default:
			writeOpenAIError(w, http.StatusUnauthorized, "invalid_api_key", "invalid or missing API key", "")
		}
		return
	}
	s.mux.ServeHTTP(w, r)
}

// authorized: the key as x-api-key, or as "Authorization: Bearer KEY" (the
// scheme in any case, as RFC 9110 has it); a bare Authorization value is no
// bearer token. The trace cookie stands for it on reads of the trace pages
// and their JSON only (tracelogin.go).
func (s *Server) authorized(r *http.Request) bool {
	if s.cookieAuthorized(r) {
		return true
	}
	key := r.Header.Get("x-api-key")
	if key == "" {
		scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "bearer") {
			return false
		}
		key = strings.TrimSpace(token)
	}
	return key != "" && subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.APIKey)) == 1
}

// upstreams returns the configured upstreams, then the discovered ones that
// are not configured already. The first call discovers the runtimes and
// waits for it (there is nothing to serve before); later calls serve the
// last ones found and, once ModelsTTL has passed, start one rediscovery in
// the background, so that no request waits for the probes.
func (s *Server) upstreams(ctx context.Context) []*upstream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.connected {
		s.connected = true
		for i, be := range s.hooks.Backends {
			s.addConfigured(i-len(s.hooks.Backends), Upstream{URL: be.BaseURL(), Kind: string(be.Kind())}, be)
		}
		for i, c := range s.cfg.Upstreams {
			s.connect(ctx, i, c)
		}
	}
	s.retryPending()
	switch {
	case s.cfg.NoDiscover:
	case s.discoveredAt.IsZero():
		if found := s.hooks.Discover(ctx); ctx.Err() == nil { // else the next request tries again
			s.setDiscovered(found)
		}
	case !s.discovering && s.now().Sub(s.discoveredAt) > time.Duration(s.cfg.ModelsTTL):
		s.discovering = s.background(s.rediscover)
	}
	all := make([]*upstream, 0, len(s.configured)+len(s.discovered))
	return append(append(all, s.configured...), s.discovered...)
}

// rediscover probes the default ports again, in the background.
func (s *Server) rediscover(ctx context.Context) {
	found := s.hooks.Discover(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.discovering = false
	if ctx.Err() == nil { // not cut short by Close
		s.setDiscovered(found)
	}
}

// setDiscovered replaces the discovered upstreams with the runtimes found,
// keeping the state of those found before. The caller holds s.mu.
func (s *Server) setDiscovered(found []backend.Backend) {
	s.discoveredAt = s.now()
	known := map[string]*upstream{}
	for _, u := range s.discovered {
		known[u.be.BaseURL()] = u
	}
	for _, be := range found {
		delete(known, be.BaseURL()) // what is left of known is gone
	}
	gone := slices.Collect(maps.Values(known))
	for _, u := range s.discovered {
		known[u.be.BaseURL()] = u
	}
	discovered := make([]*upstream, 0, len(found))
	for _, be := range found {
		if s.isConfigured(be.BaseURL()) {
			continue
		}
		if u, ok := known[be.BaseURL()]; ok && backend.SameRuntime(u.be, be) {
			discovered = append(discovered, u) // keep what it has learnt
			continue
		}
		discovered = append(discovered, newUpstream(Upstream{URL: be.BaseURL(), Kind: string(be.Kind())}, be))
	}
	s.discovered = discovered
	s.forget(gone)
	for _, be := range found {
		delete(s.lost, be.BaseURL())
	}
}

func (s *Server) isConfigured(url string) bool {
	for _, u := range s.configured {
		if strings.TrimRight(u.be.BaseURL(), "/") == strings.TrimRight(url, "/") {
			return true
		}
	}
	return false
}

func newUpstream(c Upstream, be backend.Backend) *upstream {
	name := c.Name
	if name == "" {
		name = string(be.Kind()) + "@" + redactURL(be.BaseURL())
	}
	return &upstream{name: name, cfg: c, be: be, prepared: map[string]*modelState{}}
}

// newUpstreamClient is the gateway's client for every runtime. Its pool
// keeps enough idle connections per runtime for a busy gateway: with the
// default two, most connections would be closed after one request and
// reopened (a 256-client load test opened one per request and left
// thousands of sockets in TIME_WAIT). Connecting is bounded by
// limits.connect_timeout; what comes after it by the pipeline's own limits.
func newUpstreamClient(limits Limits) *http.Client {
	wait := time.Duration(limits.ConnectTimeout)
	dialer := &net.Dialer{Timeout: wait, KeepAlive: 30 * time.Second}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		var ne net.Error
		if err != nil && ctx.Err() == nil && errors.As(err, &ne) && ne.Timeout() {
			// Said in the gateway's words: Go's "i/o timeout" names no limit.
			return nil, fmt.Errorf("no connection within %s (limits.connect_timeout): %w", wait, err)
		}
		return c, err
	}
	t.TLSHandshakeTimeout = wait
	t.MaxIdleConns = 0 // no overall limit
	t.MaxIdleConnsPerHost = 1024
	return &http.Client{Transport: t}
}

// kindNames lists the runtime kinds an upstream may name.
const kindNames = "ollama, llama-server, lmstudio, vllm, sglang, mlx-lm or openai"

// knownKind reports whether an upstream may name kind ("" means recognise
// the runtime by probing it).
func knownKind(kind backend.Kind) bool {
	return kind == "" || kind.Caps().Configurable
}

// redactURL is raw with any password in it masked (user:xxxxx@host), for
// everything the gateway prints, traces or returns; the backend keeps the
// real address.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// checkUpstreamURL refuses an upstream address the gateway could never
// reach, at start rather than at the first request.
func checkUpstreamURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("want an http:// or https:// address, not %q", u.Scheme)
	case u.Host == "" || strings.ContainsAny(u.Host, " \t"):
		return errors.New("the address names no host")
	}
	return nil
}

// connectUpstream builds a configured upstream's backend, recognising the
// runtime when the config does not name it.
func connectUpstream(ctx context.Context, u Upstream, client *http.Client, detectTimeout time.Duration) (backend.Backend, error) {
	kind := backend.Kind(u.Kind)
	switch {
	case kind.Caps().Configurable:
	case kind == "":
		dctx, cancel := context.WithTimeout(ctx, detectTimeout)
		defer cancel()
		k, err := backend.Detect(dctx, u.URL, client)
		if err != nil {
			return nil, err
		}
		kind = k
	default:
		return nil, fmt.Errorf("unknown runtime kind %q: want ollama, llama-server, lmstudio, vllm, sglang, mlx-lm or openai", u.Kind)
	}
	return backend.New(kind, u.URL, u.APIKey, client), nil
}

// openAIModel is a model in OpenAI's /v1/models shape.
type openAIModel struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// Status is where a model of a runtime that loads its own stands
	// (modelstatus.go); absent for the others.
	Status *modelStatus `json:"status,omitempty"`
}

// modelList is every model of every upstream, then the aliases; an upstream
// that fails to list is left out, not an error.
func (s *Server) modelList(ctx context.Context) []openAIModel {
	out := []openAIModel{}
	seen := map[string]bool{}
	for _, u := range s.upstreams(ctx) {
		st := statuses(u.be)
		for _, m := range s.models(ctx, u) {
			if !seen[m.ID] {
				seen[m.ID] = true
				out = append(out, openAIModel{ID: m.ID, Object: "model", OwnedBy: string(u.be.Kind()), Status: st[m.ID]})
			}
		}
	}
	for alias := range s.cfg.Aliases {
		if !seen[alias] {
			seen[alias] = true
			out = append(out, openAIModel{ID: alias, Object: "model", OwnedBy: "dragoman"})
		}
	}
	return out
}

// Found is one upstream as the gateway sees it: what Survey reports.
type Found struct {
	Name, Kind, URL string
	// Mode is "own" where the runtime takes raw prompts (the model's template
	// decides per model), else "relay"; or the mode configured.
	Mode   string
	Models []string
	// Err is why the runtime could not be listed, or set up.
	Err error
}

// Survey connects the configured upstreams, discovers the local runtimes as
// the first request would, and lists each one's models: what serve prints
// at start. The upstreams that could not be set up come last, with Err.
func (s *Server) Survey(ctx context.Context) []Found {
	var out []Found
	for _, u := range s.upstreams(ctx) {
		f := Found{Name: u.name, Kind: string(u.be.Kind()), URL: redactURL(u.be.BaseURL()), Mode: plan.RuntimeMode(u.cfg.Mode, u.be.CanComplete())}
		for _, m := range s.models(ctx, u) {
			f.Models = append(f.Models, m.ID)
		}
		u.mu.Lock()
		f.Err = u.listErr
		u.mu.Unlock()
		out = append(out, f)
	}
	s.mu.Lock()
	for _, err := range s.pendingErrors() {
		out = append(out, Found{Err: err})
	}
	s.mu.Unlock()
	return out
}

// handleModels lists the models (GET /v1/models).
func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	if wantsCodexModels(r) {
		s.handleCodexModels(w, r) // Codex CLI's catalog shape (codexmodels.go)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Object string        `json:"object"`
		Data   []openAIModel `json:"data"`
	}{Object: "list", Data: s.modelList(r.Context())})
}

// handleModel describes one model (GET /v1/models/{id}); ids may hold
// slashes (Hugging Face names).
func (s *Server) handleModel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	for _, m := range s.modelList(r.Context()) {
		if m.ID == id {
			writeJSON(w, http.StatusOK, m)
			return
		}
	}
	writeOpenAIError(w, http.StatusNotFound, "model_not_found", fmt.Sprintf("model %q not found", id), "model")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// newID returns a request id: prefix and 24 random alphanumerics.
func newID(prefix string) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return prefix + string(b)
}
