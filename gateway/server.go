// Package gateway is Dragoman's HTTP front: it takes OpenAI Chat Completions
// and Anthropic Messages requests from agents, decodes them into the canonical
// chat.Request, and runs each through one pipeline: find the upstream serving
// the model, render the prompt with the model's own template, generate, parse
// the raw output into content, reasoning and tool calls, and answer in the
// client's dialect. Every request leaves a trace.
package gateway

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
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
	// and again once ModelsTTL has passed.
	Discover func(ctx context.Context) []backend.Backend
	// Backends are runtimes already running in this process (the embedded
	// llama.cpp engine of `dragoman serve --model`). They are served as
	// configured upstreams, before those of Config.Upstreams.
	Backends []backend.Backend
}

// Server is the gateway. Create it with New; it is an http.Handler.
type Server struct {
	cfg      Config
	hooks    Hooks
	mux      *http.ServeMux
	traces   *trace.Store
	compiled template.Compiled
	metrics  metrics
	now      func() time.Time // the templates' clock; nil is the real one

	mu           sync.Mutex
	configured   []*upstream
	connectErrs  []error
	connected    bool
	discovered   []*upstream
	discoveredAt time.Time
}

// New makes a gateway from cfg. It does not touch the network: upstreams are
// connected and runtimes discovered when the first request needs them.
func New(cfg Config, hooks Hooks) (*Server, error) {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, hooks: hooks, traces: trace.NewStore(cfg.TraceSize)}
	now, err := template.NowFunc(cfg.Now)
	if err != nil {
		return nil, fmt.Errorf("now: %w", err)
	}
	s.now = now
	for _, u := range cfg.Upstreams {
		if u.URL == "" {
			return nil, fmt.Errorf("upstream %q has no url", u.Name)
		}
		if u.Mode != "" && u.Mode != "own" && u.Mode != "relay" {
			return nil, fmt.Errorf("upstream %s: mode %q: want own or relay", u.URL, u.Mode)
		}
	}
	if s.hooks.Connect == nil {
		s.hooks.Connect = connectUpstream
	}
	if s.hooks.Discover == nil {
		s.hooks.Discover = func(ctx context.Context) []backend.Backend {
			return backend.Discover(ctx, upstreamClient)
		}
	}
	s.routes()
	return s, nil
}

// Config returns the configuration in effect (defaults filled in).
func (s *Server) Config() Config { return s.cfg }

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /v1/chat/completions", s.serveChat(openAIChat))
	s.mux.HandleFunc("POST /v1/messages", s.serveChat(anthropicMessages))
	s.mux.HandleFunc("GET /v1/models", s.handleModels)
	s.mux.HandleFunc("GET /v1/dragoman/requests/{id}", s.handleTrace)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, `{"status":"ok"}`)
	})
	s.mux.HandleFunc("GET /metrics", s.metrics.serve)
}

// ServeHTTP checks the client key, then dispatches.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.cfg.APIKey != "" && r.URL.Path != "/healthz" && !s.authorized(r) {
		if strings.HasPrefix(r.URL.Path, "/v1/messages") {
			writeAnthropicError(w, http.StatusUnauthorized, "authentication_error", "invalid or missing API key")
		} else {
			writeOpenAIError(w, http.StatusUnauthorized, "invalid_api_key", "invalid or missing API key", "")
		}
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) authorized(r *http.Request) bool {
	key := r.Header.Get("x-api-key")
	if key == "" {
		key, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	return subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.APIKey)) == 1
}

// upstreams returns the configured upstreams, then the discovered ones that
// are not configured already.
func (s *Server) upstreams(ctx context.Context) []*upstream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.connected {
		s.connected = true
		for _, be := range s.hooks.Backends {
			s.configured = append(s.configured, newUpstream(Upstream{URL: be.BaseURL(), Kind: string(be.Kind())}, be))
		}
		for _, c := range s.cfg.Upstreams {
			be, err := s.hooks.Connect(ctx, c)
			if err != nil {
				s.connectErrs = append(s.connectErrs, fmt.Errorf("upstream %s: %w", c.URL, err))
				continue
			}
			s.configured = append(s.configured, newUpstream(c, be))
		}
	}
	if !s.cfg.NoDiscover && (s.discoveredAt.IsZero() || time.Since(s.discoveredAt) > time.Duration(s.cfg.ModelsTTL)) {
		s.discoveredAt = time.Now()
		known := map[string]*upstream{}
		for _, u := range s.discovered {
			known[u.be.BaseURL()] = u
		}
		s.discovered = s.discovered[:0]
		for _, be := range s.hooks.Discover(ctx) {
			if s.isConfigured(be.BaseURL()) {
				continue
			}
			if u, ok := known[be.BaseURL()]; ok && u.be.Kind() == be.Kind() {
				s.discovered = append(s.discovered, u) // keep what it has learnt
				continue
			}
			s.discovered = append(s.discovered, newUpstream(Upstream{URL: be.BaseURL(), Kind: string(be.Kind())}, be))
		}
	}
	all := make([]*upstream, 0, len(s.configured)+len(s.discovered))
	return append(append(all, s.configured...), s.discovered...)
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
		name = string(be.Kind()) + "@" + be.BaseURL()
	}
	return &upstream{name: name, cfg: c, be: be, prepared: map[string]*modelState{}}
}

// upstreamClient is the gateway's client for every runtime. Its pool keeps
// enough idle connections per runtime for a busy gateway: with the default
// two, most connections would be closed after one request and reopened (a
// 256-client load test opened one per request and left thousands of sockets
// in TIME_WAIT).
var upstreamClient = &http.Client{Transport: func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 0 // no overall limit
	t.MaxIdleConnsPerHost = 1024
	return t
}()}

// connectUpstream builds a configured upstream's backend, recognising the
// runtime when the config does not name it.
func connectUpstream(ctx context.Context, u Upstream) (backend.Backend, error) {
	kind := backend.Kind(u.Kind)
	switch kind {
	case backend.Ollama, backend.LlamaServer, backend.LMStudio, backend.VLLM, backend.SGLang, backend.MLX, backend.OpenAI:
	case "":
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		k, err := backend.Detect(dctx, u.URL, upstreamClient)
		if err != nil {
			return nil, err
		}
		kind = k
	default:
		return nil, fmt.Errorf("unknown runtime kind %q: want ollama, llama-server, lmstudio, vllm, sglang, mlx-lm or openai", u.Kind)
	}
	return backend.New(kind, u.URL, u.APIKey, upstreamClient), nil
}

// handleModels lists every model of every upstream; an upstream that fails
// to list is left out, not an error.
func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	seen := map[string]bool{}
	for _, u := range s.upstreams(r.Context()) {
		for _, m := range u.listModels(r.Context(), time.Duration(s.cfg.ModelsTTL)) {
			if !seen[m.ID] {
				seen[m.ID] = true
				out.Data = append(out.Data, model{ID: m.ID, Object: "model", OwnedBy: string(u.be.Kind())})
			}
		}
	}
	for alias := range s.cfg.Aliases {
		if !seen[alias] {
			seen[alias] = true
			out.Data = append(out.Data, model{ID: alias, Object: "model", OwnedBy: "dragoman"})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// handleTrace returns one request's trace.
func (s *Server) handleTrace(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.traces.Get(r.PathValue("id"))
	if !ok {
		writeOpenAIError(w, http.StatusNotFound, "not_found", "no trace for this request id (only the most recent requests are kept)", "id")
		return
	}
	writeJSON(w, http.StatusOK, rec)
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
