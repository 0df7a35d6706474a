package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/makeup"
	"github.com/dragoman-dev/dragoman/trace"
)

// The OpenTelemetry export: every chat request becomes a span "chat
// {model}" (kind server) with the GenAI semantic conventions' attributes
// (otelattr.go), and its steps child spans — the prompt's render, the call
// constraint's planning, the runtime's request and the parse of its
// output — all drawn from the request's trace record once the request has
// ended. The request itself does nothing for it but note the client's
// traceparent, copy the record and queue it (and, with content capture,
// keep the text it handed on); one goroutine builds the spans from the
// queue, and the SDK's batch span processor sends them over OTLP in the
// background. A full queue drops the request's spans (counted, with a
// warning); an export that fails is the SDK's to retry and report
// (a warning at most once a minute); no request ever waits for either.

// otelQueue is how many finished requests may wait for their spans to be
// built; otelContentMax bounds each content attribute (bytes), so that
// one span never outgrows an OTLP message (gRPC's default limit is 4 MiB);
// with content captured, otelContentBatch is the batch span processor's
// export batch (spans per OTLP request) unless OTEL_BSP_MAX_EXPORT_BATCH_SIZE
// says otherwise.
const (
	otelQueue        = 2048
	otelContentMax   = 256 << 10
	otelContentBatch = 16
)

// otelTracerName is the instrumentation scope of the spans.
const otelTracerName = "github.com/dragoman-dev/dragoman/gateway"

// OTelFromEnv is c with the standard OpenTelemetry variables applied where
// they are set (they win over the config file's values): what dragoman serve
// exports with. getenv reads a variable (os.Getenv).
func OTelFromEnv(c OTel, getenv func(string) string) OTel {
	env := func(names ...string) (string, bool) {
		for _, n := range names {
			if v := strings.TrimSpace(getenv(n)); v != "" {
				return v, true
			}
		}
		return "", false
	}
	if v, ok := env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); ok {
		c.TracesEndpoint = v
	}
	if v, ok := env("OTEL_EXPORTER_OTLP_ENDPOINT"); ok {
		c.Endpoint = v
	}
	if v, ok := env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"); ok {
		c.Protocol = v
	}
	if v, ok := env("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"); ok {
		h := parseOTelHeaders(v)
		if c.Headers == nil {
			c.Headers = map[string]string{}
		}
		for k, v := range h {
			c.Headers[k] = v
		}
	}
	if v, ok := env("OTEL_EXPORTER_OTLP_TRACES_INSECURE", "OTEL_EXPORTER_OTLP_INSECURE"); ok {
		c.Insecure = strings.EqualFold(v, "true")
	}
	if v, ok := env("OTEL_SERVICE_NAME"); ok {
		c.ServiceName = v
	}
	if v, ok := env("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"); ok {
		c.CaptureContent = captureContentValue(v)
	}
	sdkOff, _ := env("OTEL_SDK_DISABLED")
	exporter, _ := env("OTEL_TRACES_EXPORTER")
	if strings.EqualFold(sdkOff, "true") || strings.EqualFold(exporter, "none") {
		c.Endpoint, c.TracesEndpoint = "", ""
	}
	return c
}

// captureContentValue reads OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT:
// true, or the GenAI instrumentations' SPAN_ONLY and SPAN_AND_EVENT, put the
// content on the spans; anything else (false, NO_CONTENT, EVENT_ONLY: there
// are no content events) leaves it off.
func captureContentValue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "span_only", "span_and_event":
		return true
	}
	return false
}

// parseOTelHeaders reads OTEL_EXPORTER_OTLP_HEADERS: "key=value,key2=value2",
// the values percent-encoded.
func parseOTelHeaders(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		if dv, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
			v = dv
		}
		out[k] = strings.TrimSpace(v)
	}
	return out
}

// Enabled reports whether c exports anything.
func (c OTel) Enabled() bool { return c.Endpoint != "" || c.TracesEndpoint != "" }

// Where says where the spans go, for serve's start-up line: the protocol
// and the address (without its query, which may hold a key).
func (c OTel) Where() string {
	proto, target, _ := c.target()
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		u.RawQuery, u.User = "", nil
		target = u.String()
	}
	return proto + " to " + target
}

// target is the protocol and the address the exporter is given: for HTTP
// the whole URL (TracesEndpoint as it is, or Endpoint and /v1/traces), for
// gRPC the URL or host:port.
func (c OTel) target() (proto, target string, err error) {
	proto = strings.ToLower(strings.TrimSpace(c.Protocol))
	switch proto {
	case "", "http/protobuf", "http":
		proto = "http/protobuf"
	case "grpc":
	case "http/json":
		return proto, "", errors.New(`protocol http/json: the Go SDK sends OTLP as http/protobuf or grpc; use one of those (every OTLP receiver takes both)`)
	default:
		return proto, "", fmt.Errorf("protocol %q: want http/protobuf or grpc", c.Protocol)
	}
	target = c.TracesEndpoint
	if target == "" {
		target = c.Endpoint
		if proto == "http/protobuf" {
			target = strings.TrimRight(target, "/") + "/v1/traces"
		}
	}
	if proto == "http/protobuf" {
		u, perr := url.Parse(target)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return proto, target, fmt.Errorf("endpoint %q: want an http:// or https:// URL (http://127.0.0.1:4318)", target)
		}
	}
	return proto, target, nil
}

// otelExport builds the spans of finished requests and hands them to the
// SDK.
type otelExport struct {
	provider *sdktrace.TracerProvider
	tracer   oteltrace.Tracer
	prop     propagation.TraceContext
	content  bool
	where    string
	log      *slog.Logger
	// settle, when set, is the trace store's Get: the record with its
	// deferred work done (the prompt's make-up), which a store that writes
	// does anyway. Nil for the memory ring, which computes the make-up only
	// when a trace is read: the spans then have none.
	settle func(id string) (trace.Record, bool)

	mu       sync.RWMutex // guards closed against the queue's close
	closed   bool
	queue    chan *spanJob
	kick     chan struct{} // cuts the builder's pause short (flush, close)
	done     chan struct{}
	dropped  atomic.Int64
	warnedAt atomic.Int64 // Unix nanoseconds of the last warning
}

// spanJob is one finished request, as its spans are built from.
type spanJob struct {
	// rec is a copy of the record, made before the store took it.
	rec trace.Record
	// req is the request as decoded (nil when it did not decode).
	req *chat.Request
	// parent is the client's span (traceparent), invalid when none came.
	parent        oteltrace.SpanContext
	method, route string
	// out keeps the text the client was handed, when content is captured.
	out *capturedAnswer
	// flushed, on a job with no record, is closed once every job before
	// it has its spans.
	flushed chan struct{}
}

// newOTelExport sets up the export cfg asks for; nil when it is off. exp,
// when set, takes the spans instead of an OTLP exporter (tests).
func newOTelExport(cfg OTel, exp sdktrace.SpanExporter, log *slog.Logger) (*otelExport, error) {
	if !cfg.Enabled() && exp == nil {
		return nil, nil
	}
	if log == nil {
		log = slog.Default()
	}
	e := &otelExport{content: cfg.CaptureContent, log: log, queue: make(chan *spanJob, otelQueue), kick: make(chan struct{}, 1), done: make(chan struct{}), where: "a test exporter"}
	if exp == nil {
		var err error
		if exp, err = otlpExporter(cfg); err != nil {
			return nil, fmt.Errorf("otel: %w", err)
		}
		e.where = cfg.Where()
	}
	name := cfg.ServiceName
	if name == "" {
		name = "dragoman"
	}
	version := dragomanVersion()
	res, err := resource.New(context.Background(), resource.WithTelemetrySDK(), resource.WithFromEnv(),
		resource.WithAttributes(attrServiceName.String(name), attrServiceVersion.String(version)))
	if res == nil {
		return nil, fmt.Errorf("otel: resource: %w", err)
	}
	var bsp []sdktrace.BatchSpanProcessorOption
	if cfg.CaptureContent && strings.TrimSpace(os.Getenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE")) == "" {
		bsp = append(bsp, sdktrace.WithMaxExportBatchSize(otelContentBatch))
	}
	e.provider = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, bsp...), sdktrace.WithResource(res))
	e.tracer = e.provider.Tracer(otelTracerName, oteltrace.WithInstrumentationVersion(version), oteltrace.WithSchemaURL(otelSchemaURL))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { e.warn("exporting spans: %v", err) }))
	go e.run()
	return e, nil
}

// otlpExporter is the OTLP exporter of cfg: HTTP (protobuf) or gRPC.
func otlpExporter(cfg OTel) (sdktrace.SpanExporter, error) {
	proto, target, err := cfg.target()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if proto == "grpc" {
		opts := []otlptracegrpc.Option{}
		if strings.Contains(target, "://") {
			opts = append(opts, otlptracegrpc.WithEndpointURL(target))
		} else {
			opts = append(opts, otlptracegrpc.WithEndpoint(target))
			if cfg.Insecure {
				opts = append(opts, otlptracegrpc.WithInsecure())
			}
		}
		if len(cfg.Headers) > 0 {
			opts = append(opts, otlptracegrpc.WithHeaders(cfg.Headers))
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(target)}
	if len(cfg.Headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(cfg.Headers))
	}
	return otlptracehttp.New(ctx, opts...)
}

// dragomanVersion is the module's version as the build records it.
func dragomanVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// warn logs a problem of the export, at most once a minute.
func (e *otelExport) warn(format string, args ...any) {
	now := time.Now().UnixNano()
	last := e.warnedAt.Load()
	if last != 0 && time.Duration(now-last) < time.Minute || !e.warnedAt.CompareAndSwap(last, now) {
		return
	}
	e.log.Warn("OpenTelemetry export (" + e.where + "): " + fmt.Sprintf(format, args...) + "; requests are served as ever")
}

// begin starts a request's job: the client's span, from its traceparent.
func (e *otelExport) begin(r *http.Request) *spanJob {
	ctx := e.prop.Extract(context.Background(), propagation.HeaderCarrier(r.Header))
	return &spanJob{parent: oteltrace.SpanContextFromContext(ctx), method: r.Method, route: r.URL.Path}
}

// capture wraps the answer a request is written to, when content is
// captured, so that the spans can say what the client was handed.
func (e *otelExport) capture(j *spanJob, out answer, limit int) answer {
	if j == nil || !e.content {
		return out
	}
	j.out = &capturedAnswer{answer: out, limit: limit}
	return j.out
}

// send queues a finished request's job; a full queue drops it.
func (e *otelExport) send(j *spanJob) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.closed {
		return
	}
	select {
	case e.queue <- j:
	default:
		n := e.dropped.Add(1)
		e.warn("the queue is full (%d requests): %d requests' spans dropped so far", cap(e.queue), n)
	}
}

// otelPause is how long the span builder lets jobs gather after it has
// built what was queued: under load a request's send then finds no
// goroutine parked on the queue to wake (a wake-up on the request path
// costs more than the send), and an idle gateway's builder sleeps on the
// queue, not on a timer.
const otelPause = 50 * time.Millisecond

// run builds the spans of the queued jobs, in bursts.
func (e *otelExport) run() {
	defer close(e.done)
	for {
		j, ok := <-e.queue // parked while idle
		for ; ok; j, ok = e.next() {
			if j.flushed != nil {
				close(j.flushed)
				continue
			}
			e.emit(j)
		}
		if e.isClosed() {
			e.drain()
			return
		}
		select {
		case <-time.After(otelPause):
		case <-e.kick: // a flush, or the close
		}
	}
}

// next is the next queued job, without waiting; ok is false when none is.
func (e *otelExport) next() (*spanJob, bool) {
	select {
	case j, ok := <-e.queue:
		return j, ok
	default:
		return nil, false
	}
}

// drain builds what the closed queue still holds.
func (e *otelExport) drain() {
	for j := range e.queue {
		if j.flushed != nil {
			close(j.flushed)
			continue
		}
		e.emit(j)
	}
}

func (e *otelExport) isClosed() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.closed
}

// wake cuts the builder's pause short.
func (e *otelExport) wake() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// flush waits until the spans of every request queued so far are built and
// exported (or the SDK gave up on them).
func (e *otelExport) flush(ctx context.Context) error {
	e.mu.RLock()
	if e.closed {
		e.mu.RUnlock()
		return nil
	}
	done := make(chan struct{})
	e.queue <- &spanJob{flushed: done}
	e.mu.RUnlock()
	e.wake()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return e.provider.ForceFlush(ctx)
}

// close builds the spans still queued, exports them within a few seconds,
// and stops the SDK.
func (e *otelExport) close() error {
	e.mu.Lock()
	if !e.closed {
		e.closed = true
		close(e.queue)
	}
	e.mu.Unlock()
	e.wake()
	<-e.done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return e.provider.Shutdown(ctx)
}

// emit builds one request's spans.
func (e *otelExport) emit(j *spanJob) {
	rec := &j.rec
	if rec.Later != nil && e.settle != nil {
		if full, ok := e.settle(rec.ID); ok {
			rec.Makeup, rec.Decisions = full.Makeup, full.Decisions
		}
	}
	t := rec.Timings
	at := func(ms float64) oteltrace.SpanEventOption {
		return oteltrace.WithTimestamp(rec.Start.Add(time.Duration(ms * float64(time.Millisecond))))
	}
	ctx := context.Background()
	if j.parent.IsValid() {
		ctx = oteltrace.ContextWithRemoteSpanContext(ctx, j.parent)
	}
	ctx, root := e.tracer.Start(ctx, spanName(opChat, rec.Model), oteltrace.WithSpanKind(oteltrace.SpanKindServer),
		oteltrace.WithTimestamp(rec.Start), oteltrace.WithAttributes(e.requestAttributes(j)...))
	if !root.IsRecording() {
		return // not sampled (the client's traceparent said so, or the sampler)
	}
	end := at(t.TotalMS)

	if t.RenderStartMS > 0 {
		_, sp := e.tracer.Start(ctx, spanRender, oteltrace.WithTimestamp(rec.Start.Add(msDuration(t.RenderStartMS))),
			oteltrace.WithAttributes(nonEmpty(attrFormat, rec.Format), nonEmpty(attrTemplateOrigin, rec.TemplateOrigin),
				attrRenderMS.Float64(t.RenderMS), attrPromptTokens.Int(rec.PromptTokens)))
		if m := rec.Makeup; m != nil {
			sp.AddEvent(eventMakeup, at(t.RenderStartMS+t.RenderMS), oteltrace.WithAttributes(makeupAttributes(m)...))
		}
		if e.content && rec.Prompt != "" {
			sp.SetAttributes(e.contentAttr(attrPrompt, rec.Prompt))
		}
		sp.End(at(t.RenderStartMS + t.RenderMS))
	}
	if t.ConstrainStartMS > 0 {
		_, sp := e.tracer.Start(ctx, spanConstrain, oteltrace.WithTimestamp(rec.Start.Add(msDuration(t.ConstrainStartMS))),
			oteltrace.WithAttributes(nonEmpty(attrConstraint, rec.Constraint), nonEmpty(attrFormat, rec.Format)))
		sp.End(at(t.ConstrainStartMS + t.ConstrainMS))
	}
	if t.UpstreamStartMS > 0 {
		e.upstreamSpan(ctx, j, at)
	}
	if t.ParseEndMS > 0 {
		start := t.FirstChunkMS
		if start == 0 || start > t.ParseEndMS {
			start = min(max(t.UpstreamStartMS, 0), t.ParseEndMS)
		}
		_, sp := e.tracer.Start(ctx, spanParse, oteltrace.WithTimestamp(rec.Start.Add(msDuration(start))),
			oteltrace.WithAttributes(nonEmpty(attrFormat, rec.Format), attrCalls.Int(len(rec.Calls)),
				attrCallsAsText.Int(countDiagnostics(rec, "malformed-call")), attrDiagnostics.Int(len(rec.Diagnostics))))
		if e.content && rec.Completion != "" {
			sp.SetAttributes(e.contentAttr(attrCompletion, rec.Completion))
		}
		sp.End(at(t.ParseEndMS))
	}

	for _, d := range rec.Decisions {
		root.AddEvent(eventDecision, end, oteltrace.WithAttributes(attrDecision.String(d)))
	}
	for _, a := range rec.Actions {
		root.AddEvent(eventAction, end, oteltrace.WithAttributes(attrAction.String(a)))
	}
	for _, d := range rec.Diagnostics {
		root.AddEvent(eventDiagnostic, end, oteltrace.WithAttributes(attrDiagCode.String(d.Code), attrDiagMsg.String(d.Message), attrDiagOffset.Int(d.Offset)))
	}
	for _, c := range rec.Calls {
		attrs := []attribute.KeyValue{attrToolName.String(c.Function.Name), attrToolCallID.String(c.ID)}
		if e.content {
			attrs = append(attrs, e.contentAttr(attrToolCallArgs, c.Function.Arguments))
		}
		root.AddEvent(eventCall, end, oteltrace.WithAttributes(attrs...))
	}
	if e.content {
		root.SetAttributes(e.contentAttributes(j)...)
	}
	switch kind := upstreamErrorKind(rec); {
	case kind != "":
		root.SetAttributes(attrErrorType.String(kind))
		root.SetStatus(codes.Error, rec.Error)
	case rec.Status >= 500:
		root.SetAttributes(attrErrorType.String(strconv.Itoa(rec.Status)))
		root.SetStatus(codes.Error, rec.Error)
	}
	root.End(end)
}

// upstreamSpan is the runtime's request: from its sending to its stream's
// end, kind client (internal for the engine in this process), named as the
// conventions name an inference: "text_completion {model}" for a raw
// prompt (own mode), "chat {model}" for the runtime's chat API.
func (e *otelExport) upstreamSpan(ctx context.Context, j *spanJob, at func(float64) oteltrace.SpanEventOption) {
	rec, t := &j.rec, j.rec.Timings
	op := opChat
	if rec.Mode == "own" {
		op = opTextCompletion
	}
	kind := oteltrace.SpanKindClient
	if rec.Runtime == "embedded" {
		kind = oteltrace.SpanKindInternal
	}
	attrs := []attribute.KeyValue{attrOperation.String(op), attrProvider.String(otelProvider(rec.Runtime)),
		nonEmpty(attrRequestModel, rec.UpstreamModel), nonEmpty(attrUpstream, rec.Upstream), nonEmpty(attrRuntime, rec.Runtime)}
	if t.FirstChunkMS > t.UpstreamStartMS {
		attrs = append(attrs, attrFirstChunk.Float64((t.FirstChunkMS-t.UpstreamStartMS)/1000))
	}
	if t.UpstreamPromptMS > 0 || t.UpstreamGenerateMS > 0 {
		attrs = append(attrs, attrUpPromptMS.Float64(t.UpstreamPromptMS), attrUpPromptRate.Float64(t.UpstreamPromptTokensPerS),
			attrUpGenerateMS.Float64(t.UpstreamGenerateMS), attrUpGenerateRate.Float64(t.UpstreamGenerateTokensPerS))
	}
	if t.UpstreamCachedTokens > 0 {
		attrs = append(attrs, attrUpCached.Int(t.UpstreamCachedTokens))
	}
	if t.UpstreamSlot != nil {
		attrs = append(attrs, attrUpSlot.Int(*t.UpstreamSlot))
	}
	_, sp := e.tracer.Start(ctx, spanName(op, rec.UpstreamModel), oteltrace.WithSpanKind(kind),
		oteltrace.WithTimestamp(rec.Start.Add(msDuration(t.UpstreamStartMS))), oteltrace.WithAttributes(attrs...))
	if kind := upstreamErrorKind(rec); kind != "" {
		sp.SetAttributes(attrErrorType.String(kind))
		sp.SetStatus(codes.Error, rec.Error)
	}
	endMS := t.UpstreamEndMS
	if endMS == 0 {
		endMS = t.TotalMS
	}
	sp.End(at(endMS))
}

// requestAttributes are the request span's attributes but for content:
// the conventions', then Dragoman's.
func (e *otelExport) requestAttributes(j *spanJob) []attribute.KeyValue {
	rec := &j.rec
	a := []attribute.KeyValue{attrOperation.String(opChat), attrProvider.String(otelProvider(rec.Runtime)),
		nonEmpty(attrRequestModel, rec.Model), nonEmpty(attrResponseModel, rec.UpstreamModel),
		attrHTTPMethod.String(j.method), attrHTTPRoute.String(j.route), attrHTTPStatus.Int(rec.Status),
		attrRequestID.String(rec.ID), attrAPI.String(rec.API)}
	if rec.Status > 0 && rec.Status < 400 {
		a = append(a, attrResponseID.String(rec.ID))
	}
	switch {
	case rec.FinishReason != "":
		a = append(a, attrFinishReasons.StringSlice([]string{rec.FinishReason}))
	case rec.Error != "" && rec.Status > 0 && rec.Status < 400:
		a = append(a, attrFinishReasons.StringSlice([]string{finishError})) // broke off mid-answer
	}
	if rec.Upstream != "" {
		a = append(a, attrInputTokens.Int(rec.PromptTokens), attrOutputTokens.Int(rec.CompletionTokens))
		if rec.Timings.UpstreamCachedTokens > 0 {
			a = append(a, attrCachedTokens.Int(rec.Timings.UpstreamCachedTokens))
		}
	}
	if rec.Timings.FirstChunkMS > 0 {
		a = append(a, attrFirstChunk.Float64(rec.Timings.FirstChunkMS/1000))
	}
	if r := j.req; r != nil {
		if r.MaxTokens > 0 {
			a = append(a, attrMaxTokens.Int(r.MaxTokens))
		}
		if r.Temperature != nil {
			a = append(a, attrTemperature.Float64(*r.Temperature))
		}
		if r.TopP != nil {
			a = append(a, attrTopP.Float64(*r.TopP))
		}
		if r.Seed != nil {
			a = append(a, attrSeed.Int64(*r.Seed))
		}
		if len(r.Stop) > 0 {
			a = append(a, attrStopSequences.StringSlice(r.Stop))
		}
		if r.Stream {
			a = append(a, attrStream.Bool(true))
		}
		if r.ResponseFormat != nil {
			a = append(a, attrOutputType.String("json"))
		}
		a = append(a, attrMessageCount.Int(len(r.Messages)), attrToolCount.Int(len(r.Tools)))
		if len(r.Tools) > 0 {
			choice := string(r.ToolChoice.Mode)
			if choice == "" {
				choice = string(chat.ToolAuto)
			}
			a = append(a, attrToolChoice.String(choice))
		}
	}
	a = append(a, nonEmpty(attrUpstream, rec.Upstream), nonEmpty(attrRuntime, rec.Runtime), nonEmpty(attrMode, rec.Mode),
		nonEmpty(attrFormat, rec.Format), nonEmpty(attrTemplateOrigin, rec.TemplateOrigin), nonEmpty(attrConstraint, rec.Constraint),
		nonEmpty(attrError, rec.Error),
		attrCalls.Int(len(rec.Calls)), attrCallsAsText.Int(countDiagnostics(rec, "malformed-call")),
		attrCallsRepaired.Int(countActions(rec, trace.ActionCallFromContent)), attrDiagnostics.Int(len(rec.Diagnostics)),
		attrTruncated.Bool(rec.FinishReason == string(chat.FinishLength)))
	return dropEmpty(a)
}

// contentAttributes are the request span's content (opt-in): the
// conversation and the tools as the client sent them, and the answer as it
// was handed on, in the conventions' message shapes, as JSON.
func (e *otelExport) contentAttributes(j *spanJob) []attribute.KeyValue {
	var a []attribute.KeyValue
	if r := j.req; r != nil {
		if b, err := json.Marshal(inputMessages(r.Messages)); err == nil {
			a = append(a, e.contentAttr(attrInputMessages, string(b)))
		}
		if len(r.Tools) > 0 {
			if b, err := json.Marshal(toolDefinitions(r.Tools)); err == nil {
				a = append(a, e.contentAttr(attrToolDefinitions, string(b)))
			}
		}
	}
	if j.out != nil && j.rec.Upstream != "" {
		if b, err := json.Marshal(outputMessages(&j.rec, j.out)); err == nil {
			a = append(a, e.contentAttr(attrOutputMessages, string(b)))
		}
	}
	return a
}

// contentAttr is a content attribute, cut at otelContentMax bytes (at a
// character's start), with "…[cut]" saying so.
func (e *otelExport) contentAttr(k attribute.Key, v string) attribute.KeyValue {
	if len(v) <= otelContentMax {
		return k.String(v)
	}
	n := otelContentMax
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return k.String(v[:n] + "…[cut]")
}

// messagePart is one part of a message in the conventions' schemas
// (gen_ai.input.messages, gen_ai.output.messages): text, reasoning,
// tool_call, tool_call_response, uri (an image).
type messagePart struct {
	Type      string `json:"type"`
	Content   string `json:"content,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	Response  any    `json:"response,omitempty"`
	Modality  string `json:"modality,omitempty"`
	URI       string `json:"uri,omitempty"`
}

type otelMessage struct {
	Role         string        `json:"role"`
	Parts        []messagePart `json:"parts"`
	Name         string        `json:"name,omitempty"`
	FinishReason string        `json:"finish_reason,omitempty"`
}

func inputMessages(msgs []chat.Message) []otelMessage {
	out := make([]otelMessage, 0, len(msgs))
	for _, m := range msgs {
		om := otelMessage{Role: m.Role, Parts: []messagePart{}}
		if m.Reasoning != "" {
			om.Parts = append(om.Parts, messagePart{Type: "reasoning", Content: m.Reasoning})
		}
		switch {
		case m.Role == chat.RoleTool:
			om.Parts = append(om.Parts, messagePart{Type: "tool_call_response", ID: m.ToolCallID, Response: m.Text()})
		case m.Parts != nil:
			for _, p := range m.Parts {
				switch p.Type {
				case "text":
					om.Parts = append(om.Parts, messagePart{Type: "text", Content: p.Text})
				case "image_url":
					om.Parts = append(om.Parts, messagePart{Type: "uri", Modality: "image", URI: p.ImageURL})
				}
			}
		case m.Content != "":
			om.Parts = append(om.Parts, messagePart{Type: "text", Content: m.Content})
		}
		for _, c := range m.ToolCalls {
			om.Parts = append(om.Parts, callPart(c))
		}
		out = append(out, om)
	}
	return out
}

// callPart is a call as a tool_call part: its arguments as the JSON object
// they are, else as the text they are.
func callPart(c chat.ToolCall) messagePart {
	var args any = c.Function.Arguments
	if raw := json.RawMessage(strings.TrimSpace(c.Function.Arguments)); len(raw) > 0 && json.Valid(raw) {
		args = raw
	}
	return messagePart{Type: "tool_call", ID: c.ID, Name: c.Function.Name, Arguments: args}
}

// outputMessages is the answer handed on, as one message.
func outputMessages(rec *trace.Record, out *capturedAnswer) []otelMessage {
	m := otelMessage{Role: chat.RoleAssistant, Parts: []messagePart{}}
	if s := out.thinking.String(); s != "" {
		m.Parts = append(m.Parts, messagePart{Type: "reasoning", Content: s})
	}
	if s := out.text.String(); s != "" {
		m.Parts = append(m.Parts, messagePart{Type: "text", Content: s})
	}
	for _, c := range rec.Calls {
		m.Parts = append(m.Parts, callPart(c))
	}
	switch chat.FinishReason(rec.FinishReason) {
	case chat.FinishToolCalls:
		m.FinishReason = "tool_call"
	case "":
		m.FinishReason = finishError
	default:
		m.FinishReason = rec.FinishReason
	}
	return []otelMessage{m}
}

// toolDefinition is a tool in gen_ai.tool.definitions' shape.
type toolDefinition struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

func toolDefinitions(tools []chat.Tool) []toolDefinition {
	out := make([]toolDefinition, len(tools))
	for i, t := range tools {
		typ := t.Type
		if typ == "" {
			typ = "function"
		}
		out[i] = toolDefinition{Type: typ, Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters}
	}
	return out
}

// makeupAttributes are the prompt's make-up in tokens: the whole, the
// tools (and their share), the system prompt, the messages (tool results
// among them) and the template's scaffolding.
func makeupAttributes(m *makeup.Makeup) []attribute.KeyValue {
	var system, messages, template int
	for _, p := range m.Parts {
		switch p.Kind {
		case makeup.KindSystem:
			system += p.Tokens
		case makeup.KindMessage, makeup.KindToolResult, makeup.KindMessages:
			messages += p.Tokens
		case makeup.KindTemplate:
			template += p.Tokens
		}
	}
	a := []attribute.KeyValue{attrMakeupTotal.Int(m.Total), attrMakeupTools.Int(m.Tools), attrMakeupToolN.Int(m.ToolCount),
		attrMakeupShare.Float64(math.Round(m.ToolShare()*1000) / 1000), attrMakeupSystem.Int(system),
		attrMakeupMessages.Int(messages), attrMakeupTemplate.Int(template)}
	if m.PrefillEstimateMS > 0 {
		a = append(a, attrMakeupPrefill.Float64(m.PrefillEstimateMS))
	}
	return a
}

// spanName is "{operation} {model}", or the operation alone when no model
// is known.
func spanName(op, model string) string {
	if model == "" {
		return op
	}
	return op + " " + model
}

// otelProvider is gen_ai.provider.name for a runtime kind: the
// conventions' value where they have one (openai), else the runtime's own
// name (llama.cpp for llama-server and the engine in this process);
// "dragoman" when no runtime was reached.
func otelProvider(runtime string) string {
	switch runtime {
	case "":
		return "dragoman"
	case "llama-server", "embedded":
		return "llama.cpp"
	case "lmstudio":
		return "lm_studio"
	case "mlx-lm":
		return "mlx_lm"
	}
	return runtime // ollama, vllm, sglang, openai
}

func countDiagnostics(rec *trace.Record, code string) int {
	n := 0
	for _, d := range rec.Diagnostics {
		if d.Code == code {
			n++
		}
	}
	return n
}

func countActions(rec *trace.Record, code string) int {
	n := 0
	for _, a := range rec.Actions {
		if a == code {
			n++
		}
	}
	return n
}

// nonEmpty is k=v, or an invalid attribute (dropped) when v is empty.
func nonEmpty(k attribute.Key, v string) attribute.KeyValue {
	if v == "" {
		return attribute.KeyValue{}
	}
	return k.String(v)
}

func dropEmpty(a []attribute.KeyValue) []attribute.KeyValue {
	out := a[:0]
	for _, kv := range a {
		if kv.Key != "" {
			out = append(out, kv)
		}
	}
	return out
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// capturedAnswer passes an answer on and keeps its text and reasoning (up
// to limit bytes each), for gen_ai.output.messages.
type capturedAnswer struct {
	answer
	limit          int
	text, thinking strings.Builder
}

// emit keeps the text and reasoning and passes every delta on.
func (c *capturedAnswer) emit(d chat.Delta) error {
	switch d.Kind {
	case chat.DeltaContent:
		keep(&c.text, d.Text, c.limit)
	case chat.DeltaReasoning:
		keep(&c.thinking, d.Text, c.limit)
	}
	return c.answer.emit(d)
}

// announcesPromptTokens passes on what the answer wrapped does with it
// (counttokens.go), so that capturing changes nothing the client gets.
func (c *capturedAnswer) announcesPromptTokens() bool {
	a, ok := c.answer.(promptAnnouncer)
	return ok && a.announcesPromptTokens()
}

func keep(b *strings.Builder, s string, limit int) {
	if room := limit - b.Len(); room > 0 {
		b.WriteString(s[:min(room, len(s))])
	}
}
