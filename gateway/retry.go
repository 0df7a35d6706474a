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
//     limits.retry_first to limits.retry_max between failures.
//   - A model whose preparation failed because the runtime did not describe
//     it is prepared again after the same kind of delay; until then it is
//     served as prepared (relay mode, the trace says why).
//   - A runtime found on the default ports and then lost is remembered for
//     limits.lost_for: its models answer 503 with Retry-After, not 404.

// backoff is the delay after the given number of failed attempts (≥ 1):
// limits.retry_first, doubled with each failure after the first, at most
// limits.retry_max.
func (s *Server) backoff(failures int) time.Duration {
	d, most := time.Duration(s.cfg.Limits.RetryFirst), time.Duration(s.cfg.Limits.RetryMax)
	for i := 1; i < failures && d < most; i++ {
		d *= 2
	}
	return min(d, most)
}

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
			failures: 1, retryAt: s.now().Add(s.backoff(1))})
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
	now := s.now()
	for _, p := range s.pending {
		if p.trying || now.Before(p.retryAt) {
			continue
		}
		p.trying = s.background(func(ctx context.Context) { s.retryConnect(ctx, p) })
	}
}

func (s *Server) retryConnect(ctx context.Context, p *pendingUpstream) {
	cctx, cancel := context.WithTimeout(ctx, time.Duration(s.cfg.Limits.ConnectRetryTimeout))
	defer cancel()
	be, err := s.hooks.Connect(cctx, p.cfg)
	s.mu.Lock()
	defer s.mu.Unlock()
	p.trying = false
	if err != nil {
		if ctx.Err() == nil { // not cut short by Close
			p.failures++
			p.err, p.retryAt = s.connectError(p.cfg, err), s.now().Add(s.backoff(p.failures))
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
	now := s.now()
	if s.lost == nil {
		s.lost = map[string]lostUpstream{}
	}
	for url, l := range s.lost {
		if now.Sub(l.at) > time.Duration(s.cfg.Limits.LostFor) {
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
		if s.now().Sub(l.at) <= time.Duration(s.cfg.Limits.LostFor) && slices.ContainsFunc(l.models, func(m string) bool {
			return m == model || strings.TrimSuffix(m, ":latest") == model
		}) {
			return l, true
		}
	}
	return lostUpstream{}, false
}
