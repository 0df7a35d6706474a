package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultPorts are the ports each runtime listens on out of the box.
// llama-server and mlx_lm.server share 8080; Detect tells them apart.
var DefaultPorts = map[Kind]int{
	Ollama:      11434,
	LlamaServer: 8080,
	LMStudio:    1234,
	VLLM:        8000,
	SGLang:      30000,
	MLX:         8080,
}

// New returns the Backend for a runtime of the given kind.
func New(kind Kind, baseURL, apiKey string, client *http.Client) Backend {
	if kind == Ollama {
		return NewOllama(baseURL, client)
	}
	return NewOpenAI(kind, baseURL, apiKey, client)
}

// ErrUnknownRuntime is returned by Detect when something answers but speaks
// none of the known APIs.
var ErrUnknownRuntime = errors.New("no known LLM runtime answers there")

// Detect recognises the runtime at baseURL by the endpoints only it has:
//
//   - Ollama: GET /api/version answers {"version": ...}; GET / says
//     "Ollama is running".
//   - llama-server: GET /props has build_info, chat_template or
//     default_generation_settings (recording 15-props.json); its /v1/models
//     entries are owned_by "llamacpp" (recording 17).
//   - vLLM: /v1/models entries owned_by "vllm", or GET /version answers
//     {"version": ...} beside /v1/models.
//   - SGLang: /v1/models entries owned_by "sglang", or GET /get_model_info
//     answers model_path (https://docs.sglang.io/basic_usage/native_api.html).
//   - LM Studio: GET /api/v0/models lists models
//     (https://lmstudio.ai/docs/developer/rest/endpoints, LM Studio 0.3.6+).
//   - mlx_lm.server: /v1/models entries have no owned_by and GET /health
//     answers {"status": "ok"} (mlx_lm/server.py).
//   - any other server answering /v1/models: OpenAI.
//
// A transport error (nothing listening) is returned as is.
func Detect(ctx context.Context, baseURL string, client *http.Client) (Kind, error) {
	p := prober{conn: newConn(OpenAI, baseURL, "", client)}
	if ok, err := p.ollama(ctx); err != nil {
		return "", err
	} else if ok {
		return Ollama, nil
	}
	if p.hasAny(ctx, "/props", "build_info", "chat_template", "default_generation_settings") {
		return LlamaServer, nil
	}
	entries, modelsErr := NewOpenAI(OpenAI, p.base, "", p.client).modelEntries(ctx)
	if k, ok := ownerKind(entries); ok {
		return k, nil
	}
	switch {
	case p.hasAny(ctx, "/api/v0/models", "data"):
		return LMStudio, nil
	case p.hasAny(ctx, "/get_model_info", "model_path"):
		return SGLang, nil
	case modelsErr != nil:
		return "", fmt.Errorf("%w at %s: %v", ErrUnknownRuntime, p.base, modelsErr)
	case p.hasAny(ctx, "/version", "version"):
		return VLLM, nil
	case noOwners(entries) && p.healthOK(ctx):
		return MLX, nil
	}
	return OpenAI, nil
}

// ownerKind recognises a runtime by the owned_by of its models.
func ownerKind(entries []modelEntry) (Kind, bool) {
	for _, e := range entries {
		switch e.OwnedBy {
		case "vllm":
			return VLLM, true
		case "sglang":
			return SGLang, true
		case "llamacpp":
			return LlamaServer, true
		}
	}
	return "", false
}

func noOwners(entries []modelEntry) bool {
	for _, e := range entries {
		if e.OwnedBy != "" {
			return false
		}
	}
	return true
}

type prober struct{ conn }

// ollama probes /api/version, then the root page. Only a transport error is
// returned: an HTTP error or another body just means "not Ollama".
func (p prober) ollama(ctx context.Context) (bool, error) {
	resp, err := p.do(ctx, http.MethodGet, "/api/version", nil)
	var herr *Error
	switch {
	case errors.As(err, &herr):
	case err != nil:
		return false, err
	default:
		var v struct {
			Version *string `json:"version"`
		}
		jerr := json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&v)
		resp.Body.Close()
		if jerr == nil && v.Version != nil {
			return true, nil
		}
	}
	return strings.Contains(p.text(ctx, "/"), "Ollama is running"), nil
}

// hasAny reports whether GET path answers a JSON object with any of keys.
func (p prober) hasAny(ctx context.Context, path string, keys ...string) bool {
	var m map[string]any
	if p.getJSON(ctx, path, &m) != nil {
		return false
	}
	return slices.ContainsFunc(keys, func(k string) bool { _, ok := m[k]; return ok })
}

func (p prober) healthOK(ctx context.Context) bool {
	var h struct {
		Status string `json:"status"`
	}
	return p.getJSON(ctx, "/health", &h) == nil && h.Status == "ok"
}

// text returns the start of a page's body, "" on any failure.
func (p prober) text(ctx context.Context, path string) string {
	resp, err := p.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return string(b)
}

// DiscoverTimeout bounds each address's probing in Discover: a local runtime
// answers in milliseconds, and a closed port fails at once.
var DiscoverTimeout = 2 * time.Second

// Discover probes 127.0.0.1 on the DefaultPorts concurrently and returns a
// Backend for each runtime that answers, ordered by port. Closed ports and
// unknown servers are simply absent.
func Discover(ctx context.Context, client *http.Client) []Backend {
	var ports []int
	for _, p := range DefaultPorts {
		if !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	slices.Sort(ports)
	addrs := make([]string, len(ports))
	for i, p := range ports {
		addrs[i] = "http://127.0.0.1:" + strconv.Itoa(p)
	}
	return discover(ctx, client, addrs)
}

// discover detects the runtime at each address concurrently; the result
// keeps the order of addrs.
func discover(ctx context.Context, client *http.Client, addrs []string) []Backend {
	found := make([]Backend, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		wg.Go(func() {
			actx, cancel := context.WithTimeout(ctx, DiscoverTimeout)
			defer cancel()
			if kind, err := Detect(actx, addr, client); err == nil {
				found[i] = New(kind, addr, "", client)
			}
		})
	}
	wg.Wait()
	return slices.DeleteFunc(found, func(b Backend) bool { return b == nil })
}
