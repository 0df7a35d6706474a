package gateway

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// What the gateway could not set up is tried again, never given up on for
// the process's life: a runtime started after the gateway, or one still
// loading its model at the first request, is served once it answers.
//   - A configured upstream that could not be set up (its kind recognised)
//     is connected again in the background, after a delay that doubles from
//     retryFirst to retryMax between failures.
//   - A model whose preparation failed because the runtime did not describe
//     it is prepared again after the same kind of delay; until then it is
//     served as prepared (relay mode, the trace says why).
//   - A runtime found on the default ports and then lost is remembered for
//     lostFor: its models answer 503 with Retry-After, not 404.

// retryFirst and retryMax bound the delay between attempts; tests shorten
// retryFirst.
var (
	retryFirst = time.Second
	retryMax   = time.Minute
)

// backoff is the delay after the given number of failed attempts (≥ 1).
func backoff(failures int) time.Duration {
	d := retryFirst
	for i := 1; i < failures && d < retryMax; i++ {
		d *= 2
	}
	return min(d, retryMax)
}

// lostFor is how long a discovered runtime that is gone still answers for
// its models (503, not 404).
const lostFor = 10 * time.Minute

// pendingUpstream is a configured upstream that could not be set up yet.
type pendingUpstream struct {
	order    int // its place among the configured upstreams
	cfg      Upstream
	err      error
	failures int
	retryAt  time.Time
	trying   bool // a background attempt is running
}

// lostUpstream is a discovered runtime that a later discovery did not find.
type lostUpstream struct {
	name   string
	models []string
	at     time.Time
}

// connect sets up the configured upstream c, or records it as pending. The
// caller holds s.mu.
func (s *Server) connect(ctx context.Context, order int, c Upstream) {
	be, err := s.hooks.Connect(ctx, c)
	if err != nil {
		s.pending = append(s.pending, &pendingUpstream{order: order, cfg: c, err: s.connectError(c, err),
			failures: 1, retryAt: time.Now().Add(backoff(1))})
		return
	}
	s.addConfigured(order, c, be)
}

func (s *Server) connectError(c Upstream, err error) error {
	return fmt.Errorf("upstream %s: %w", redactURL(c.URL), err)
}

// addConfigured adds a connected upstream at its place. The caller holds s.mu.
func (s *Server) addConfigured(order int, c Upstream, be backend.Backend) {
	u := newUpstream(c, be)
	u.order = order
	s.configured = append(s.configured, u)
	slices.SortStableFunc(s.configured, func(a, b *upstream) int { return a.order - b.order })
}

// retryPending starts a background attempt for each pending upstream whose
// delay has passed. The caller holds s.mu.
func (s *Server) retryPending() {
	now := time.Now()
	for _, p := range s.pending {
		if p.trying || now.Before(p.retryAt) {
			continue
		}
		p.trying = s.background(func(ctx context.Context) { s.retryConnect(ctx, p) })
	}
}

func (s *Server) retryConnect(ctx context.Context, p *pendingUpstream) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	be, err := s.hooks.Connect(cctx, p.cfg)
	s.mu.Lock()
	defer s.mu.Unlock()
	p.trying = false
	if err != nil {
		if ctx.Err() == nil { // not cut short by Close
			p.failures++
			p.err, p.retryAt = s.connectError(p.cfg, err), time.Now().Add(backoff(p.failures))
		}
		return
	}
	s.pending = slices.DeleteFunc(s.pending, func(q *pendingUpstream) bool { return q == p })
	s.addConfigured(p.order, p.cfg, be)
}

// pendingErrors describes the upstreams not set up yet, with when they are
// tried next. The caller holds s.mu.
func (s *Server) pendingErrors() []error {
	out := make([]error, 0, len(s.pending))
	for _, p := range s.pending {
		out = append(out, p.err)
	}
	return out
}

// forget remembers the discovered upstreams that are gone, with the models
// they served. The caller holds s.mu.
func (s *Server) forget(gone []*upstream) {
	now := time.Now()
	if s.lost == nil {
		s.lost = map[string]lostUpstream{}
	}
	for url, l := range s.lost {
		if now.Sub(l.at) > lostFor {
			delete(s.lost, url)
		}
	}
	for _, u := range gone {
		u.mu.Lock()
		var models []string
		for _, m := range u.models {
			models = append(models, m.ID)
		}
		u.mu.Unlock()
		s.lost[u.be.BaseURL()] = lostUpstream{name: u.name, models: models, at: now}
	}
}

// lostServing reports the runtime, lost lately, that served model, if any.
func (s *Server) lostServing(model string) (lostUpstream, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.lost {
		if time.Since(l.at) <= lostFor && slices.ContainsFunc(l.models, func(m string) bool {
			return m == model || strings.TrimSuffix(m, ":latest") == model
		}) {
			return l, true
		}
	}
	return lostUpstream{}, false
}
