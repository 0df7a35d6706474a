package gateway

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// fakeClock is a Clock that moves only when the test says.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Every limit has its default, and a value set is kept.
func TestLimitDefaults(t *testing.T) {
	l := Config{}.withDefaults().Limits
	for name, c := range map[string]struct {
		got  Duration
		want time.Duration
	}{
		"list_timeout": {l.ListTimeout, 2 * time.Second}, "local_list_timeout": {l.LocalListTimeout, 10 * time.Second},
		"mark_down": {l.MarkDown, 10 * time.Second}, "prepare_timeout": {l.PrepareTimeout, time.Minute}, "prepare_ttl": {l.PrepareTTL, 10 * time.Minute},
		"retry_first": {l.RetryFirst, time.Second}, "retry_max": {l.RetryMax, time.Minute},
		"connect_retry_timeout": {l.ConnectRetryTimeout, 30 * time.Second}, "detect_timeout": {l.DetectTimeout, 5 * time.Second},
		"lost_for": {l.LostFor, 10 * time.Minute}, "catalog_wait": {l.CatalogWait, 10 * time.Second},
	} {
		if time.Duration(c.got) != c.want {
			t.Errorf("%s: default %v, want %v", name, time.Duration(c.got), c.want)
		}
	}
	if got := (Config{Limits: Limits{MarkDown: Duration(time.Hour)}}).withDefaults().Limits.MarkDown; time.Duration(got) != time.Hour {
		t.Errorf("mark_down set to 1h became %v", time.Duration(got))
	}
}

// The retry delay doubles from retry_first to retry_max.
func TestBackoffFromTheLimits(t *testing.T) {
	s := &Server{cfg: Config{Limits: Limits{RetryFirst: Duration(time.Second), RetryMax: Duration(5 * time.Second)}}}
	for failures, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 5 * time.Second, 10: 5 * time.Second} {
		if got := s.backoff(failures); got != want {
			t.Errorf("after %d failures: %v, want %v", failures, got, want)
		}
	}
}

// An upstream that could not be reached is passed over for limits.mark_down
// on the gateway's clock, then tried first again.
func TestMarkDownForItsLimit(t *testing.T) {
	clock := newFakeClock()
	down := qwenRuntime()
	down.startErr = errors.New("dial tcp: connection refused")
	up := qwenRuntime(stop())
	up.url = "http://127.0.0.1:2"
	ts := newFakeGatewayWith(t, Config{Limits: Limits{MarkDown: Duration(30 * time.Second)}}, Hooks{Clock: clock}, down, up)
	ask := func() {
		t.Helper()
		resp := post(t, ts.URL+"/v1/chat/completions", chatBody(""))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	ask() // down fails and is marked down; up answers
	clock.advance(29 * time.Second)
	ask()
	if len(down.completes) != 1 {
		t.Fatalf("marked down for 30s, asked again after 29s (%d times)", len(down.completes))
	}
	clock.advance(2 * time.Second)
	ask()
	if len(down.completes) != 2 || len(up.completes) != 3 {
		t.Errorf("after 31s: down asked %d times (want 2), up %d (want 3)", len(down.completes), len(up.completes))
	}
}

// A model the runtime could not describe is prepared again once
// limits.retry_first has passed on the gateway's clock, not before.
func TestPreparationRetriedOnTheClock(t *testing.T) {
	clock := newFakeClock()
	rt := qwenRuntime(stop())
	rt.infoFailures = 1
	ts := newFakeGatewayWith(t, Config{Limits: Limits{RetryFirst: Duration(time.Minute)}}, Hooks{Clock: clock}, rt)
	if mode := requestMode(t, ts.URL); mode != "relay" {
		t.Fatalf("first request: mode %q, want relay", mode)
	}
	clock.advance(59 * time.Second)
	if mode := requestMode(t, ts.URL); mode != "relay" || rt.infos != 1 {
		t.Fatalf("before retry_first: mode %q after %d preparations, want relay after 1", mode, rt.infos)
	}
	clock.advance(time.Second)
	if mode := requestMode(t, ts.URL); mode != "own" || rt.infos != 2 {
		t.Fatalf("at retry_first: mode %q after %d preparations, want own after 2", mode, rt.infos)
	}
}

// A configured upstream that could not be set up is tried again in the
// background once the backoff has passed on the gateway's clock: not
// before, and with the delay doubled after each failure.
func TestConfiguredUpstreamRetriedOnTheClock(t *testing.T) {
	clock := newFakeClock()
	rt := qwenRuntime(stop())
	attempts := make(chan int, 8)
	n := 0
	s, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: rt.url}}, Limits: Limits{RetryFirst: Duration(10 * time.Second)}},
		Hooks{Clock: clock, Connect: func(ctx context.Context, u Upstream) (backend.Backend, error) {
			n++
			defer func() { attempts <- n }()
			if n < 3 {
				return nil, errors.New("connection refused")
			}
			return rt, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptestServer(t, s)
	status := func() int { return chatStatus(t, ts.URL) }
	settled := func() { // the background attempt has been recorded
		t.Helper()
		for waitFor(func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.pending) == 0 || !s.pending[0].trying }) {
		}
	}
	if status() != http.StatusBadGateway || <-attempts != 1 {
		t.Fatal("first request: want a 502 after the first attempt")
	}
	clock.advance(9 * time.Second)
	status()
	if len(attempts) != 0 {
		t.Fatal("tried again before retry_first")
	}
	clock.advance(time.Second)
	status() // starts the second attempt, which fails: the next delay is 20s
	if <-attempts != 2 {
		t.Fatal("not tried again at retry_first")
	}
	settled()
	clock.advance(19 * time.Second)
	status()
	if len(attempts) != 0 {
		t.Fatal("tried again before the doubled delay")
	}
	clock.advance(time.Second)
	status() // the third attempt succeeds
	if <-attempts != 3 {
		t.Fatal("not tried again after the doubled delay")
	}
	settled()
	if status() != http.StatusOK {
		t.Error("the upstream set up at the third attempt does not serve")
	}
}

// A runtime found on the default ports and then gone answers 503 for its
// models for limits.lost_for on the gateway's clock, then 404.
func TestLostRuntimeForgottenAfterLostFor(t *testing.T) {
	clock := newFakeClock()
	rt := qwenRuntime(stop())
	var mu sync.Mutex
	found := []backend.Backend{rt}
	s, err := New(Config{ModelsTTL: Duration(time.Minute), Limits: Limits{LostFor: Duration(5 * time.Minute)}}, Hooks{Clock: clock,
		Discover: func(ctx context.Context) []backend.Backend {
			mu.Lock()
			defer mu.Unlock()
			return found
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptestServer(t, s)
	status := func() int { return chatStatus(t, ts.URL) }
	if status() != http.StatusOK {
		t.Fatal("the discovered runtime does not serve")
	}
	mu.Lock()
	found = nil
	mu.Unlock()
	clock.advance(2 * time.Minute) // past models_ttl: the next request rediscovers
	eventually(t, "the lost runtime's model never answered 503", func() bool { return status() == http.StatusServiceUnavailable })
	clock.advance(4 * time.Minute)
	if got := status(); got != http.StatusServiceUnavailable {
		t.Fatalf("within lost_for: status %d, want 503", got)
	}
	clock.advance(2 * time.Minute)
	if got := status(); got != http.StatusNotFound {
		t.Errorf("past lost_for: status %d, want 404", got)
	}
}

// A model's preparation stands for limits.prepare_ttl on the gateway's
// clock: a template changed on the runtime before it is not read; after it,
// the next request is still served with the old one while the model is
// prepared again in the background, and the requests after that get the
// new template.
func TestPreparationRefreshedAfterTTL(t *testing.T) {
	clock := newFakeClock()
	rt := templateRuntime(`{% for m in messages %}A:{{ m.content }}{% endfor %}`)
	ts := newFakeGatewayWith(t, Config{Limits: Limits{PrepareTTL: Duration(10 * time.Minute)}}, Hooks{Clock: clock}, rt)
	prompt := func() string {
		t.Helper()
		resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
		resp.Body.Close()
		rt.mu.Lock()
		defer rt.mu.Unlock()
		return rt.completes[len(rt.completes)-1].Prompt
	}
	if p := prompt(); p != "A:x" {
		t.Fatalf("prompt %q", p)
	}
	rt.mu.Lock()
	rt.models["m"] = backend.ModelInfo{Template: `{% for m in messages %}B:{{ m.content }}{% endfor %}`, TemplateOrigin: "test", EOSToken: "</s>"}
	rt.mu.Unlock()
	clock.advance(9 * time.Minute)
	if p := prompt(); p != "A:x" || rt.infos != 1 {
		t.Fatalf("before prepare_ttl: prompt %q after %d preparations, want the old template after 1", p, rt.infos)
	}
	clock.advance(time.Minute)
	if p := prompt(); p != "A:x" {
		t.Fatalf("the request that starts the refresh waited for it: prompt %q", p)
	}
	eventually(t, "the new template was never read", func() bool { return prompt() == "B:x" })
	if rt.infos != 2 {
		t.Errorf("%d preparations, want 2", rt.infos)
	}
}

// chatStatus sends the test's chat request and returns the answer's status.
func chatStatus(t *testing.T, base string) int {
	t.Helper()
	resp := post(t, base+"/v1/chat/completions", chatBody(""))
	resp.Body.Close()
	return resp.StatusCode
}
