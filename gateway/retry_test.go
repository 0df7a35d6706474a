package gateway

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// fastRetry makes every retry due (almost) at once.
var fastRetry = Limits{RetryFirst: Duration(time.Nanosecond)}

// A configured upstream that cannot be set up at the first request (its
// kind could not be recognised: it was down) is tried again in the
// background and served once it answers; meanwhile clients get a 502 with
// Retry-After.
func TestConfiguredUpstreamRetried(t *testing.T) {
	rt := qwenRuntime(stop())
	var mu sync.Mutex
	attempts := 0
	s, err := New(Config{NoDiscover: true, Limits: fastRetry, Upstreams: []Upstream{{URL: rt.url}}}, Hooks{Connect: func(ctx context.Context, u Upstream) (backend.Backend, error) {
		mu.Lock()
		defer mu.Unlock()
		attempts++
		if attempts == 1 {
			return nil, errors.New("connection refused")
		}
		return rt, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptestServer(t, s)
	resp := post(t, ts.URL+"/v1/chat/completions", chatBody(""))
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("first request: status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	resp.Body.Close()
	eventually(t, "the upstream was never set up again", func() bool {
		resp := post(t, ts.URL+"/v1/chat/completions", chatBody(""))
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// A model the runtime could not describe at the first request (still
// loading) is served in relay mode, and prepared again after the backoff:
// the next request goes in own mode.
func TestPreparationRetried(t *testing.T) {
	rt := qwenRuntime(stop())
	rt.infoFailures = 1
	ts := newFakeGateway(t, Config{Limits: fastRetry}, rt)
	if mode := requestMode(t, ts.URL); mode != "relay" {
		t.Fatalf("first request: mode %q, want relay (the model was not described)", mode)
	}
	if mode := requestMode(t, ts.URL); mode != "own" {
		t.Fatalf("second request: mode %q, want own (prepared again)", mode)
	}
	if mode := requestMode(t, ts.URL); mode != "own" || rt.infos != 2 {
		t.Fatalf("third request: mode %q after %d preparations, want own after 2", mode, rt.infos)
	}
}

// The first client leaving while the model is prepared does not spoil the
// preparation: it goes on, and the next client gets own mode.
func TestPreparationOutlivesFirstClient(t *testing.T) {
	rt := qwenRuntime(stop())
	rt.infoGate = make(chan struct{})
	ts := newFakeGateway(t, Config{}, rt)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions", strings.NewReader(chatBody("")))
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	for waitFor(func() bool { rt.mu.Lock(); defer rt.mu.Unlock(); return rt.infos > 0 }) {
	}
	cancel()
	<-done
	close(rt.infoGate)
	if mode := requestMode(t, ts.URL); mode != "own" {
		t.Fatalf("mode %q, want own", mode)
	}
	if rt.infos != 1 {
		t.Errorf("%d preparations, want 1", rt.infos)
	}
}

// A runtime found on the default ports that goes away answers 503 with
// Retry-After for its models, not 404, which clients would not retry.
func TestLostRuntimeAnswers503(t *testing.T) {
	rt := qwenRuntime(stop())
	var mu sync.Mutex
	found := []backend.Backend{rt}
	s, err := New(Config{ModelsTTL: Duration(time.Nanosecond)}, Hooks{Discover: func(ctx context.Context) []backend.Backend {
		mu.Lock()
		defer mu.Unlock()
		return found
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptestServer(t, s)
	if resp := post(t, ts.URL+"/v1/chat/completions", chatBody("")); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	mu.Lock()
	found = nil // Ollama stopped
	mu.Unlock()
	var last *http.Response
	eventually(t, "the lost runtime's model never answered 503", func() bool {
		last = post(t, ts.URL+"/v1/chat/completions", chatBody(""))
		last.Body.Close()
		return last.StatusCode != http.StatusOK
	})
	if last.StatusCode != http.StatusServiceUnavailable || last.Header.Get("Retry-After") == "" {
		t.Errorf("status %d, Retry-After %q; want 503 with Retry-After", last.StatusCode, last.Header.Get("Retry-After"))
	}
	// A model nobody served is still a 404.
	if resp := post(t, ts.URL+"/v1/chat/completions", strings.Replace(chatBody(""), `"qwen"`, `"nope"`, 1)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown model: status %d", resp.StatusCode)
	}
}

// requestMode sends the chat request and returns the trace's mode.
func requestMode(t *testing.T, base string) string {
	t.Helper()
	resp := post(t, base+"/v1/chat/completions", chatBody(""))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	return str(path(decodeBody(t, get(t, base+"/v1/dragoman/requests/"+resp.Header.Get("X-Dragoman-Request-Id"))), "mode"))
}

// httptestServer serves s for the test.
func httptestServer(t *testing.T, s *Server) *httptest.Server {
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}
