package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/trace"
)

// dialect is one client API: how its requests are read and how its answers
// and errors are written. serveChat runs the requests of every dialect the
// same way.
type dialect struct {
	// api names it in traces and metrics; idPrefix starts its response ids;
	// idHeader, when set, is a header of its own that also carries the id.
	api, idPrefix, idHeader string
	// decode reads a request body; it may note decisions in rec. Besides
	// the canonical request it may return state of its own (what the
	// dialect echoes back or stores), which respond receives. A request that
	// only asks for a model to be loaded or unloaded (Ollama's without
	// messages) is a *modelLifecycle state and no request.
	decode func(body []byte, rec *trace.Record) (*chat.Request, any, error)
	// respond makes the answer for req: a stream, which writes as the answer
	// is produced, or a collector, which writes it when complete.
	respond func(w http.ResponseWriter, req *chat.Request, state any) response
	// fail writes err, met before anything was written, in the dialect's
	// error shape and returns the HTTP status.
	fail func(w http.ResponseWriter, err error) int
}

// response is an answer that knows whether it has begun writing, and that
// writes what it collected once the pipeline is done.
type response interface {
	answer
	// begun reports whether anything has been written to the client.
	begun() bool
	// complete writes a collected answer and returns the status; a stream
	// has nothing left to write.
	complete(w http.ResponseWriter, rec *trace.Record) int
}

// stopSequence works out, for an answer that ended on "stop", whether one of
// the request's stop sequences ended it, from what the runtime said in its
// last chunk; records it in the trace; and tells the answer. Runtimes drop
// the stop string from the text, and some do not say whether one was met
// (Ollama reports "stop" either way): that is recorded as unknown and the
// answer ends as an ordinary stop (end_turn), not guessed. It returns the
// stop sequence that ended the answer, or "".
func (x *exchange) stopSequence(last backend.Chunk) string {
	if len(x.req.Stop) == 0 {
		return ""
	}
	switch {
	case !last.StopReported:
		x.rec.Decide(fmt.Sprintf("%s does not say whether a stop sequence ended the answer: unknown, reported as an ordinary stop", x.rt.up.be.Kind()))
	case last.StopSequence == "":
		x.rec.Decide("no stop sequence ended the answer (the runtime says so)")
	case !slices.Contains(x.req.Stop, last.StopSequence):
		x.rec.Decide(fmt.Sprintf("the runtime stopped at %q, which is not one of the request's stop sequences: reported as an ordinary stop", last.StopSequence))
	default:
		x.rec.Decide(fmt.Sprintf("stop sequence %q ended the answer", last.StopSequence))
		return last.StopSequence
	}
	return ""
}

// serveChat is the handler of a dialect's chat endpoint: every request gets
// an id, a trace and its metrics, whatever becomes of it.
func (s *Server) serveChat(d *dialect) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec := &trace.Record{ID: newID(d.idPrefix), API: d.api, Start: time.Now()}
		w.Header().Set("X-Dragoman-Request-Id", rec.ID)
		if d.idHeader != "" {
			w.Header().Set(d.idHeader, rec.ID)
		}
		var span *spanJob // the OpenTelemetry export's, when on (otel.go)
		if s.otel != nil {
			span = s.otel.begin(r)
		}
		s.metrics.started()
		status := s.chat(w, r, d, rec, span)
		rec.Timings.TotalMS = rec.Since()
		rec.Status = status
		s.logRequest(rec)
		if span != nil {
			span.rec = *rec // before the store owns it; its slices only grow after
		}
		s.traces.Put(rec)
		s.metrics.observe(rec)
		if span != nil {
			s.otel.send(span)
		}
	}
}

// logRequest writes the request's one log line, when the server logs.
func (s *Server) logRequest(rec *trace.Record) {
	if s.hooks.Log == nil {
		return
	}
	attrs := []any{"id", rec.ID, "api", rec.API, "model", rec.Model, "upstream", rec.Upstream, "mode", rec.Mode,
		"status", rec.Status, "prompt_tokens", rec.PromptTokens, "completion_tokens", rec.CompletionTokens,
		"cached_tokens", rec.Timings.UpstreamCachedTokens, "ttft_ms", rec.Timings.FirstChunkMS, "total_ms", rec.Timings.TotalMS,
		"calls", len(rec.Calls), "diagnostics", len(rec.Diagnostics), "finish", rec.FinishReason}
	if rec.Error != "" {
		s.hooks.Log.Warn("request", append(attrs, "error", rec.Error)...)
		return
	}
	s.hooks.Log.Info("request", attrs...)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, d *dialect, rec *trace.Record, span *spanJob) int {
	burst := &burstWriter{ResponseWriter: &tokenHeader{ResponseWriter: w, rec: rec}}
	w = burst
	failed := func(err error) int {
		rec.Error = err.Error()
		setRetryAfter(w, err)
		return d.fail(w, s.public(err))
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		return failed(bodyError(err))
	}
	rec.RequestBytes = len(body)
	rec.Request = string(body[:min(len(body), s.cfg.Limits.MaxTraceBytes)])
	req, state, err := d.decode(body, rec)
	if err != nil {
		return failed(err)
	}
	if lc, ok := state.(*modelLifecycle); ok {
		rec.Model = lc.model
		if err := s.loadOrUnload(r.Context(), lc, rec); err != nil {
			return failed(err)
		}
		lc.answer(w, lc.unload())
		return http.StatusOK
	}
	rec.Model = req.Model
	if req.MaxTokens == 0 && s.cfg.MaxOutputTokens > 0 {
		req.MaxTokens = s.cfg.MaxOutputTokens
		rec.Decide(fmt.Sprintf("the request sets no output limit: max_output_tokens %d, as configured", req.MaxTokens))
	}
	out := d.respond(w, req, state)
	var a answer = out
	if span != nil {
		span.req = req
		a = s.otel.capture(span, out, s.cfg.Limits.MaxTraceBytes)
	}
	holder := burst
	if s.flushEachEvent {
		holder = nil // the benchmark's "before"
	}
	if err := s.run(r.Context(), req, rec, a, holder); err != nil {
		if r.Context().Err() != nil {
			// The client went away: nothing can be written, and the trace
			// says so rather than blaming the runtime.
			rec.Error = err.Error()
			return statusClientClosed
		}
		if out.begun() {
			return http.StatusOK // the stream has begun; the client was told in it
		}
		return failed(err)
	}
	return out.complete(w, rec)
}

// bodyError is a request body that could not be read: too large (413), or
// not sent in time (408: the server's read deadline, limits.request_timeout).
func bodyError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return &requestError{msg: "request body: " + err.Error(), status: http.StatusRequestEntityTooLarge}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &requestError{msg: "the request body did not arrive in time (limits.request_timeout)", status: http.StatusRequestTimeout}
	}
	return &requestError{msg: "request body: " + err.Error(), status: http.StatusBadRequest}
}

// setRetryAfter tells a client answered 502 or 503 when to try again, in
// whole seconds (at least one): SDKs honour it when they retry.
func setRetryAfter(w http.ResponseWriter, err error) {
	var ue *upstreamError
	if !errors.As(err, &ue) || (ue.status != http.StatusBadGateway && ue.status != http.StatusServiceUnavailable) {
		return
	}
	secs := max(1, int(math.Ceil(ue.retryAfter.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
}

// statusClientClosed is the status a request whose client went away is
// traced with (nginx's 499: there is no standard one).
const statusClientClosed = 499

// sse writes Server-Sent Events to the client, each flushed as soon as it is
// written so that tokens reach the agent as they are made. The streams of
// both dialects embed it.
type sse struct {
	w       http.ResponseWriter
	started bool // the headers are sent
	buf     bytes.Buffer
	enc     *json.Encoder // writes into buf; made at the first event
}

// start sends the headers of an event stream.
func (s *sse) start() {
	s.started = true
	h := s.w.Header()
	h["Content-Type"] = sseContentType
	h["Cache-Control"] = sseCacheControl
	h["X-Accel-Buffering"] = sseAccelBuffering // proxies must not hold events back
	s.w.WriteHeader(http.StatusOK)
}

// An event stream's headers, the same values every time: set as these
// slices (Header.Set would make one a request). Nothing writes into a
// header's values, and appending to these one-element slices copies them.
var (
	sseContentType    = []string{"text/event-stream"}
	sseCacheControl   = []string{"no-cache"}
	sseAccelBuffering = []string{"no"}
)

// event writes one event: an "event: name" line when name is set, then v's
// JSON as its data.
func (s *sse) event(name string, v any) error {
	if s.enc == nil {
		s.enc = json.NewEncoder(&s.buf)
		s.enc.SetEscapeHTML(false)
	}
	s.buf.Reset()
	if name != "" {
		s.buf.WriteString("event: " + name + "\n")
	}
	s.buf.WriteString("data: ")
	if err := s.enc.Encode(v); err != nil { // Encode ends the line
		return err
	}
	s.buf.WriteString("\n")
	return s.write(s.buf.Bytes())
}

// write sends b as it is and flushes it.
func (s *sse) write(b []byte) error {
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}
