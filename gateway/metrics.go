package gateway

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dragoman-dev/dragoman/trace"
)

// metrics are the gateway's Prometheus metrics (GET /metrics). Each request
// is counted once, from its trace record when it ends (observe), so that the
// figures say what the traces say: what was served, how fast, and what
// became of the model's calls.
//
// Labels are bounded: model is a model the gateway served (a name no runtime
// serves is counted as ""), upstream an upstream's name, mode own or relay,
// code a diagnostic code of the parsers, action one of trace's Action codes.
type metrics struct {
	reg      *prometheus.Registry
	inFlight prometheus.Gauge

	requests   *prometheus.CounterVec   // api, model, upstream, mode, status
	duration   *prometheus.HistogramVec // api, model, upstream, mode
	firstChunk *prometheus.HistogramVec // api, model, upstream, mode
	tokens     *prometheus.CounterVec   // model, upstream, kind

	calls       *prometheus.CounterVec // model, upstream, mode
	callsAsText *prometheus.CounterVec // model, upstream, mode
	diagnostics *prometheus.CounterVec // model, upstream, mode, code
	constraints *prometheus.CounterVec // model, upstream, form
	actions     *prometheus.CounterVec // model, upstream, action
	upstreamErr *prometheus.CounterVec // upstream, kind
}

// Buckets in seconds: a whole answer from a few milliseconds (a cached
// short answer) to ten minutes (a long one on a CPU); the first chunk from
// milliseconds to a minute (a long prompt processed first).
var (
	durationBuckets   = []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
	firstChunkBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
)

func newMetrics() *metrics {
	route := []string{"api", "model", "upstream", "mode"}
	m := &metrics{
		reg: prometheus.NewRegistry(),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "dragoman_requests_in_flight",
			Help: "Chat requests being answered."}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dragoman_requests_total",
			Help: "Chat requests answered, by client API, model, upstream, mode and HTTP status."},
			append(route, "status")),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "dragoman_request_duration_seconds",
			Help: "Time from a chat request's arrival to its answer's end.", Buckets: durationBuckets}, route),
		firstChunk: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "dragoman_time_to_first_chunk_seconds",
			Help: "Time from a chat request's arrival to the runtime's first text, reasoning or call.", Buckets: firstChunkBuckets}, route),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dragoman_tokens_total",
			Help: "Tokens of the answered requests: prompt (cached included), cached (kept from an earlier request) and completion."},
			[]string{"model", "upstream", "kind"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dragoman_tool_calls_total",
			Help: "Tool calls handed to clients, parsed from the model's output or the runtime's answer."},
			[]string{"model", "upstream", "mode"}),
		callsAsText: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dragoman_tool_calls_left_as_text_total",
			Help: "Call markup that could not be read as a call and stayed in the text (diagnostic malformed-call)."},
			[]string{"model", "upstream", "mode"}),
		diagnostics: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dragoman_diagnostics_total",
			Help: "Findings of the parsers and the pipeline, by code (see the trace for each)."},
			[]string{"model", "upstream", "mode", "code"}),
		constraints: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dragoman_constrained_requests_total",
			Help: "Requests whose calls were constrained at sampling time, by the constraint's form."},
			[]string{"model", "upstream", "form"}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dragoman_actions_total",
			Help: "What the gateway did beyond rendering and parsing: forced calls refused or moved to own mode, reasoning closed, calls written in a second pass, contexts raised."},
			[]string{"model", "upstream", "action"}),
		upstreamErr: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dragoman_upstream_errors_total",
			Help: "Requests a runtime failed: failed (502), unavailable (503), timeout (504), broke-off (the answer cut mid-way)."},
			[]string{"upstream", "kind"}),
	}
	m.reg.MustRegister(m.inFlight, m.requests, m.duration, m.firstChunk, m.tokens, m.calls, m.callsAsText,
		m.diagnostics, m.constraints, m.actions, m.upstreamErr,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) started() { m.inFlight.Inc() }

// observe counts a request that has ended, from its record.
func (m *metrics) observe(rec *trace.Record) {
	m.inFlight.Dec()
	model := rec.Model
	if rec.Upstream == "" {
		model = "" // no runtime served it: the name is the client's, unbounded
	}
	up, mode := rec.Upstream, rec.Mode
	m.requests.WithLabelValues(rec.API, model, up, mode, strconv.Itoa(rec.Status)).Inc()
	m.duration.WithLabelValues(rec.API, model, up, mode).Observe(rec.Timings.TotalMS / 1000)
	if rec.Timings.FirstChunkMS > 0 {
		m.firstChunk.WithLabelValues(rec.API, model, up, mode).Observe(rec.Timings.FirstChunkMS / 1000)
	}
	if up == "" {
		return // refused before any runtime: nothing below happened
	}
	m.tokens.WithLabelValues(model, up, "prompt").Add(float64(rec.PromptTokens))
	m.tokens.WithLabelValues(model, up, "cached").Add(float64(rec.Timings.UpstreamCachedTokens))
	m.tokens.WithLabelValues(model, up, "completion").Add(float64(rec.CompletionTokens))
	m.calls.WithLabelValues(model, up, mode).Add(float64(len(rec.Calls)))
	for _, d := range rec.Diagnostics {
		m.diagnostics.WithLabelValues(model, up, mode, d.Code).Inc()
		if d.Code == "malformed-call" {
			m.callsAsText.WithLabelValues(model, up, mode).Inc()
		}
	}
	if rec.Constraint != "" {
		m.constraints.WithLabelValues(model, up, rec.Constraint).Inc()
	}
	for _, a := range rec.Actions {
		m.actions.WithLabelValues(model, up, a).Inc()
	}
	if kind := upstreamErrorKind(rec); kind != "" {
		m.upstreamErr.WithLabelValues(up, kind).Inc()
	}
}

// upstreamErrorKind says how the runtime failed the request, if it did: by
// the status the client got, or an error after the answer had begun.
func upstreamErrorKind(rec *trace.Record) string {
	switch {
	case rec.Status == http.StatusBadGateway:
		return "failed"
	case rec.Status == http.StatusServiceUnavailable:
		return "unavailable"
	case rec.Status == http.StatusGatewayTimeout:
		return "timeout"
	case rec.Status < 400 && rec.Error != "":
		return "broke-off"
	}
	return ""
}

// handler serves the metrics in the format the scraper asks for.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
