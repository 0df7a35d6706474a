package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// chatWithin sends a chat request for model and fails the test unless the
// answer, a 200, comes within limit.
func chatWithin(t *testing.T, base, model string, limit time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	body := strings.Replace(chatBody(""), `"model":"qwen"`, `"model":"`+model+`"`, 1)
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/chat/completions", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("request for %s after %s: %v (did it wait for a refresh?)", model, limit, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("request for %s: status %d", model, resp.StatusCode)
	}
}

// eventually polls cond for up to 5 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
		time.Sleep(time.Millisecond)
	}
}

// Once models_ttl has passed, a request is served with the runtimes found
// last while one rediscovery runs in the background; what it finds serves
// the requests after it, and Close stops it.
func TestDiscoveryRefreshInBackground(t *testing.T) {
	first := qwenRuntime(stop())
	second := qwenRuntime(stop())
	second.url = "http://127.0.0.1:2"
	second.models = map[string]backend.ModelInfo{"other": first.models["qwen"]}
	release := make(chan struct{})
	var mu sync.Mutex
	calls := 0
	discover := func(ctx context.Context) []backend.Backend {
		mu.Lock()
		calls++
		n, gate := calls, release
		mu.Unlock()
		if n == 1 {
			return []backend.Backend{first}
		}
		select { // a slow probe
		case <-gate:
			return []backend.Backend{first, second}
		case <-ctx.Done():
			return nil
		}
	}
	discoveries := func() int { mu.Lock(); defer mu.Unlock(); return calls }
	s, err := New(Config{ModelsTTL: Duration(20 * time.Millisecond)}, Hooks{Discover: discover})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()

	chatWithin(t, ts.URL, "qwen", 5*time.Second)
	time.Sleep(40 * time.Millisecond)
	chatWithin(t, ts.URL, "qwen", 2*time.Second) // the probes are blocked: it must not wait
	eventually(t, "no rediscovery was started after models_ttl", func() bool { return discoveries() == 2 })
	for range 3 {
		chatWithin(t, ts.URL, "qwen", 2*time.Second)
	}
	if n := discoveries(); n != 2 {
		t.Errorf("%d discoveries, want 2: one refresh at a time", n)
	}

	mu.Lock()
	close(release)
	mu.Unlock()
	eventually(t, "the rediscovered runtime is not served", func() bool {
		return len(s.upstreams(context.Background())) == 2
	})
	chatWithin(t, ts.URL, "other", 5*time.Second)

	// Close ends a refresh under way.
	time.Sleep(40 * time.Millisecond)
	release2 := make(chan struct{})
	mu.Lock()
	release = release2
	mu.Unlock()
	s.upstreams(context.Background()) // starts the third discovery, which blocks
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not stop the background discovery")
	}
}

// A model list older than models_ttl is served while the runtime is asked
// again in the background.
func TestModelListRefreshInBackground(t *testing.T) {
	rt := qwenRuntime(stop())
	rt.modelsGate = make(chan struct{})
	ts := newFakeGateway(t, Config{ModelsTTL: Duration(20 * time.Millisecond)}, rt)
	listings := func() int { rt.mu.Lock(); defer rt.mu.Unlock(); return rt.listings }

	chatWithin(t, ts.URL, "qwen", 5*time.Second)
	time.Sleep(40 * time.Millisecond)
	chatWithin(t, ts.URL, "qwen", 2*time.Second) // the listing is blocked: it must not wait
	eventually(t, "no listing was started after models_ttl", func() bool { return listings() == 2 })
	resp, err := http.Get(ts.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	if v := decodeBody(t, resp); path(v, "data", 0, "id") != "qwen" {
		t.Errorf("/v1/models %v", v)
	}
	resp.Body.Close()
	if n := listings(); n != 2 {
		t.Errorf("%d listings, want 2: one refresh at a time", n)
	}
	close(rt.modelsGate)
}
