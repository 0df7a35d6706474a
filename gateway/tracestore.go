package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/trace"
)

// The trace store and its JSON: GET /v1/dragoman/requests (a filtered,
// paged list) and GET /v1/dragoman/requests/{id}.

// openTraceStore is the store cfg asks for: the SQLite file or the
// PostgreSQL database of cfg.Traces.DB (which falls back to memory, with a
// warning, where it cannot be written), or the ring of the last
// cfg.TraceSize.
func openTraceStore(cfg Config, log *slog.Logger) trace.Store {
	t := cfg.Traces
	if t.DB == "" || t.Memory {
		return trace.NewRing(cfg.TraceSize)
	}
	timeout := time.Duration(t.Timeout)
	if traceStoreBusy != 0 {
		timeout = traceStoreBusy
	}
	return trace.Open(t.DB, trace.Options{
		Retention: trace.Retention{MaxCount: t.MaxCount, MaxAge: time.Duration(t.MaxAge), MaxBytes: t.MaxBytes},
		Queue:     t.Queue, Recent: cfg.TraceSize, Log: log, Timeout: timeout,
	})
}

// traceStoreBusy, when set, is the store's timeout whatever the config
// says. Tests shorten it.
var traceStoreBusy time.Duration

// TraceStore is where the server keeps its traces: "memory", the SQLite
// file's path or the PostgreSQL server's URL (without its password), and
// why it keeps them in memory only when it cannot write there (what serve
// prints at start).
func (s *Server) TraceStore() (where string, failed error) {
	if db, ok := s.traces.(*trace.DB); ok {
		return db.Where(), db.Failed()
	}
	return "memory", nil
}

// traceQuery reads a list's filters and paging from a URL's query:
// model, upstream, status (200, 4xx, 400-499), has_diagnostics (true or
// false), since and until (RFC 3339, a date, or a duration before now:
// 24h, 7d), limit (at most trace.MaxLimit) and after (a page's next).
func traceQuery(v url.Values, now time.Time) (trace.Query, error) {
	var q trace.Query
	for name := range v {
		switch name {
		case "model", "upstream", "status", "has_diagnostics", "since", "until", "limit", "after":
		default:
			return q, fmt.Errorf("unknown parameter %q: the list takes model, upstream, status, has_diagnostics, since, until, limit and after", name)
		}
	}
	q.Model, q.Upstream, q.After = v.Get("model"), v.Get("upstream"), v.Get("after")
	var err error
	if s := v.Get("status"); s != "" {
		if q.StatusMin, q.StatusMax, err = trace.ParseStatus(s); err != nil {
			return q, err
		}
	}
	if s := v.Get("has_diagnostics"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return q, fmt.Errorf("has_diagnostics %q: want true or false", s)
		}
		q.HasDiagnostics = &b
	}
	for _, p := range []struct {
		name string
		t    *time.Time
	}{{"since", &q.Since}, {"until", &q.Until}} {
		if s := v.Get(p.name); s != "" {
			if *p.t, err = trace.ParseTime(s, now); err != nil {
				return q, fmt.Errorf("%s: %v", p.name, err)
			}
		}
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > trace.MaxLimit {
			return q, fmt.Errorf("limit %q: want 1 to %d", s, trace.MaxLimit)
		}
		q.Limit = n
	}
	return q, nil
}

// handleTraceIndex lists the requests the store keeps, the most recent
// first, filtered and paged (GET /v1/dragoman/requests): what the
// /dragoman/ page shows, as JSON. "next", when there are more, is the
// next page's "after".
func (s *Server) handleTraceIndex(w http.ResponseWriter, r *http.Request) {
	q, err := traceQuery(r.URL.Query(), time.Now())
	if err != nil {
		writeOpenAIError(w, http.StatusBadRequest, "invalid_request_error", err.Error(), "")
		return
	}
	p, err := s.traces.List(q)
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, trace.ErrCursor) {
			status = http.StatusBadRequest
		}
		writeOpenAIError(w, status, "invalid_request_error", err.Error(), "after")
		return
	}
	if p.Records == nil {
		p.Records = []trace.Summary{}
	}
	writeJSON(w, http.StatusOK, p)
}

// handleTrace returns one request's trace.
func (s *Server) handleTrace(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.traces.Get(r.PathValue("id"))
	if !ok {
		writeOpenAIError(w, http.StatusNotFound, "not_found", "no trace for this request id (the store keeps "+s.kept()+")", "id")
		return
	}
	writeJSON(w, http.StatusOK, rec)
}

// kept says what the store keeps, for a trace not found.
func (s *Server) kept() string {
	if where, failed := s.TraceStore(); where != "memory" && failed == nil {
		return "the traces within its retention limits, traces.max_count, max_age and max_bytes"
	}
	return "only the most recent " + strconv.Itoa(s.cfg.TraceSize) + " requests"
}

// pageQuery is the query of the list page's next page: q's filters as
// given, and after.
func pageQuery(v url.Values, next string) string {
	out := url.Values{}
	for k, vs := range v {
		if k != "after" && len(vs) > 0 && strings.TrimSpace(vs[0]) != "" {
			out.Set(k, vs[0])
		}
	}
	out.Set("after", next)
	return out.Encode()
}

// FlushTraces waits until the traces of the requests answered so far are
// written to the store's database (nothing to wait for in memory).
func (s *Server) FlushTraces() { s.traces.Flush() }
