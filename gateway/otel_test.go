package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// otelGateway is a gateway in front of rt whose spans go to an in-memory
// exporter; spans flushes and returns what was exported so far.
func otelGateway(t *testing.T, cfg Config, rt *fakeRuntime) (url string, spans func() tracetest.SpanStubs) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	url, s := otelServer(t, cfg, exp, rt)
	return url, func() tracetest.SpanStubs {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.FlushSpans(ctx); err != nil {
			t.Fatal(err)
		}
		return exp.GetSpans()
	}
}

// answered reads an answer to its end: the handler has returned, and the
// request's spans are queued.
func answered(t *testing.T, resp *http.Response) int {
	t.Helper()
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode
}

// otelServer is a gateway (behind an httptest server) in front of rt,
// exporting to exp, or to the OTLP endpoint of cfg when exp is nil.
func otelServer(t *testing.T, cfg Config, exp sdktrace.SpanExporter, rt *fakeRuntime) (string, *Server) {
	t.Helper()
	cfg.Upstreams = append(cfg.Upstreams, Upstream{URL: rt.url})
	cfg.NoDiscover = true
	s, err := New(cfg, Hooks{SpanExporter: exp, Connect: func(ctx context.Context, u Upstream) (backend.Backend, error) { return rt, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts.URL, s
}

// attrs is a span's attributes by key, as Go values.
func attrs(kvs []attribute.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

// spanNamed is the span of that name; "chat …" is the request's (kind
// server: the runtime's relayed chat has the same name).
func spanNamed(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	for _, s := range spans {
		if s.Name == name && (!strings.HasPrefix(name, "chat ") || s.SpanKind == oteltrace.SpanKindServer) {
			return s
		}
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	t.Fatalf("no span %q among %q", name, names)
	return tracetest.SpanStub{}
}

// events are a span's events of one name, each its attributes.
func events(s tracetest.SpanStub, name string) []map[string]any {
	var out []map[string]any
	for _, e := range s.Events {
		if e.Name == name {
			out = append(out, attrs(e.Attributes))
		}
	}
	return out
}

// TestOTelSpans: an own-mode request with a parsed call, sent with a W3C
// traceparent, becomes a server span "chat qwen" in the client's trace,
// under the client's span, with the GenAI attributes and the request's
// parameters, Dragoman's decisions and calls as events, and the render,
// constraint, runtime and parse steps as its children; without content
// capture no content is on any span.
func TestOTelSpans(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: weatherCall[:17]}, backend.Chunk{Text: weatherCall[17:]},
		backend.Chunk{FinishReason: chat.FinishStop, Usage: &chat.Usage{PromptTokens: 40, CompletionTokens: 20},
			Timings: &backend.Timings{PromptTokens: 40, PromptMS: 8, GeneratedTokens: 20, GenerateMS: 40, CachedTokens: 12}})
	rt.kind = backend.LlamaServer // takes a grammar: the calls are constrained
	url, spans := otelGateway(t, Config{}, rt)
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	resp := post(t, url+"/v1/chat/completions", chatBody(`"temperature":0.25,"top_p":0.5,"max_tokens":300,"seed":7,"stop":["END"]`),
		"traceparent", "00-"+traceID+"-"+parentID+"-01")
	if answered(t, resp) != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	id := resp.Header.Get("X-Dragoman-Request-Id")
	got := spans()
	if len(got) != 5 {
		t.Fatalf("%d spans, want 5 (request, render, constrain, runtime, parse)", len(got))
	}
	root := spanNamed(t, got, "chat qwen")
	if root.SpanKind != oteltrace.SpanKindServer || root.SpanContext.TraceID().String() != traceID ||
		root.Parent.SpanID().String() != parentID || !root.Parent.IsRemote() {
		t.Errorf("request span: kind %v, trace %s, parent %s (remote %v): want the client's trace and span",
			root.SpanKind, root.SpanContext.TraceID(), root.Parent.SpanID(), root.Parent.IsRemote())
	}
	if sc := root.InstrumentationScope; sc.Name != otelTracerName || sc.SchemaURL != "https://opentelemetry.io/schemas/1.41.0" {
		t.Errorf("scope %q, schema %q", sc.Name, sc.SchemaURL)
	}
	if svc, _ := root.Resource.Set().Value("service.name"); svc.AsString() != "dragoman" {
		t.Errorf("service.name %q", svc.AsString())
	}
	a := attrs(root.Attributes)
	want := map[string]any{
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "llama.cpp", "gen_ai.request.model": "qwen",
		"gen_ai.response.model": "qwen", "gen_ai.response.id": id, "gen_ai.response.finish_reasons": []string{"tool_calls"},
		"gen_ai.usage.input_tokens": int64(40), "gen_ai.usage.output_tokens": int64(20),
		"gen_ai.usage.cache_read.input_tokens": int64(12),
		"gen_ai.request.temperature":           0.25, "gen_ai.request.top_p": 0.5, "gen_ai.request.max_tokens": int64(300),
		"gen_ai.request.seed": int64(7), "gen_ai.request.stop_sequences": []string{"END"},
		"http.request.method": "POST", "http.route": "/v1/chat/completions", "http.response.status_code": int64(200),
		"dragoman.request.id": id, "dragoman.api": "openai", "dragoman.mode": "own", "dragoman.format": "hermes",
		"dragoman.template.origin": "fake runtime", "dragoman.runtime": "llama-server", "dragoman.upstream": "llama-server@http://127.0.0.1:1",
		"dragoman.constraint": "lazy-grammar", "dragoman.calls": int64(1), "dragoman.calls.left_as_text": int64(0),
		"dragoman.calls.repaired": int64(0), "dragoman.diagnostics": int64(0), "dragoman.truncated": false,
		"dragoman.request.tools": int64(1), "dragoman.request.messages": int64(1), "dragoman.request.tool_choice": "auto",
	}
	for k, v := range want {
		if !reflect.DeepEqual(a[k], v) {
			t.Errorf("request span %s = %#v, want %#v", k, a[k], v)
		}
	}
	if _, ok := a["gen_ai.request.stream"]; ok {
		t.Error("gen_ai.request.stream set on a request that did not stream")
	}
	for k := range a {
		if k == "gen_ai.input.messages" || k == "gen_ai.output.messages" || k == "gen_ai.tool.definitions" {
			t.Errorf("content %s exported without content capture", k)
		}
	}
	calls := events(root, "dragoman.call")
	if len(calls) != 1 || calls[0]["gen_ai.tool.name"] != "get_weather" || calls[0]["gen_ai.tool.call.id"] == "" {
		t.Errorf("call events %v", calls)
	}
	if _, ok := calls[0]["gen_ai.tool.call.arguments"]; ok {
		t.Error("a call's arguments exported without content capture")
	}
	if len(events(root, "dragoman.decision")) == 0 {
		t.Error("no decision events")
	}
	// The steps: children of the request span, in the same trace.
	for _, name := range []string{"dragoman.render", "dragoman.constrain", "text_completion qwen", "dragoman.parse"} {
		s := spanNamed(t, got, name)
		if s.Parent.SpanID() != root.SpanContext.SpanID() || s.SpanContext.TraceID() != root.SpanContext.TraceID() {
			t.Errorf("%s: parent %s, want the request span %s", name, s.Parent.SpanID(), root.SpanContext.SpanID())
		}
		if s.StartTime.Before(root.StartTime) || s.EndTime.After(root.EndTime) || s.EndTime.Before(s.StartTime) {
			t.Errorf("%s runs %v–%v, outside the request's %v–%v", name, s.StartTime, s.EndTime, root.StartTime, root.EndTime)
		}
		if _, ok := attrs(s.Attributes)["dragoman.prompt"]; ok {
			t.Errorf("%s: the prompt exported without content capture", name)
		}
		if _, ok := attrs(s.Attributes)["dragoman.completion"]; ok {
			t.Errorf("%s: the completion exported without content capture", name)
		}
	}
	up := spanNamed(t, got, "text_completion qwen")
	ua := attrs(up.Attributes)
	if up.SpanKind != oteltrace.SpanKindClient || ua["gen_ai.operation.name"] != "text_completion" || ua["gen_ai.provider.name"] != "llama.cpp" ||
		ua["gen_ai.request.model"] != "qwen" || ua["dragoman.upstream.prompt_ms"] != 8.0 || ua["dragoman.upstream.generate_ms"] != 40.0 ||
		ua["dragoman.upstream.generate_tokens_per_s"] != 500.0 || ua["dragoman.upstream.cached_tokens"] != int64(12) {
		t.Errorf("runtime span: kind %v, %v", up.SpanKind, ua)
	}
	if _, ok := ua["gen_ai.usage.input_tokens"]; ok {
		t.Error("usage on the runtime's span too: a backend adding up the spans would count it twice")
	}
	if c := attrs(spanNamed(t, got, "dragoman.constrain").Attributes); c["dragoman.constraint"] != "lazy-grammar" {
		t.Errorf("constrain span %v", c)
	}
	if p := attrs(spanNamed(t, got, "dragoman.parse").Attributes); p["dragoman.calls"] != int64(1) || p["dragoman.format"] != "hermes" {
		t.Errorf("parse span %v", p)
	}
	if r := attrs(spanNamed(t, got, "dragoman.render").Attributes); r["dragoman.template.origin"] != "fake runtime" {
		t.Errorf("render span %v", r)
	}
}

// TestOTelContentCapture: with capture_content the request span carries the
// conversation, the tools and the answer in the conventions' message shapes,
// the call event its arguments, the render span the prompt and the parse
// span the raw completion.
func TestOTelContentCapture(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "Checking. " + weatherCall}, backend.Chunk{FinishReason: chat.FinishStop})
	url, spans := otelGateway(t, Config{OTel: OTel{CaptureContent: true}}, rt)
	if status := answered(t, post(t, url+"/v1/chat/completions", chatBody(`"stream":true`))); status != 200 {
		t.Fatalf("status %d", status)
	}
	got := spans()
	root := spanNamed(t, got, "chat qwen")
	a := attrs(root.Attributes)
	var in, out, tools []map[string]any
	for k, v := range map[string]*[]map[string]any{"gen_ai.input.messages": &in, "gen_ai.output.messages": &out, "gen_ai.tool.definitions": &tools} {
		s, _ := a[k].(string)
		if err := json.Unmarshal([]byte(s), v); err != nil {
			t.Fatalf("%s = %q: %v", k, s, err)
		}
	}
	if len(in) != 1 || in[0]["role"] != "user" || path(in[0], "parts", 0, "type") != "text" || path(in[0], "parts", 0, "content") != "Weather in Paris?" {
		t.Errorf("input messages %v", in)
	}
	if len(out) != 1 || out[0]["role"] != "assistant" || out[0]["finish_reason"] != "tool_call" ||
		path(out[0], "parts", 0, "type") != "text" || path(out[0], "parts", 0, "content") != "Checking." ||
		path(out[0], "parts", 1, "type") != "tool_call" || path(out[0], "parts", 1, "name") != "get_weather" ||
		path(out[0], "parts", 1, "arguments", "city") != "Paris" {
		t.Errorf("output messages %v", out)
	}
	if len(tools) != 1 || tools[0]["name"] != "get_weather" || tools[0]["type"] != "function" || path(tools[0], "parameters", "type") != "object" {
		t.Errorf("tool definitions %v", tools)
	}
	if a["gen_ai.request.stream"] != true {
		t.Errorf("gen_ai.request.stream = %v on a streamed request", a["gen_ai.request.stream"])
	}
	if c := events(root, "dragoman.call"); len(c) != 1 || c[0]["gen_ai.tool.call.arguments"] != `{"city": "Paris"}` {
		t.Errorf("call events %v", c)
	}
	if p, _ := attrs(spanNamed(t, got, "dragoman.render").Attributes)["dragoman.prompt"].(string); !strings.Contains(p, "Weather in Paris?") || !strings.HasSuffix(p, "<|im_start|>assistant\n") {
		t.Errorf("render span's prompt %q", p)
	}
	if c := attrs(spanNamed(t, got, "dragoman.parse").Attributes)["dragoman.completion"]; c != "Checking. "+weatherCall {
		t.Errorf("parse span's completion %q", c)
	}
}

// TestOTelRelayRepairAndBreakOff: in relay mode a call the runtime left in
// its text is parsed out and counted as a repair (an action event, the
// dragoman.calls.repaired attribute); an answer that breaks off marks the
// request and the runtime's spans as errors, finish reason "error".
func TestOTelRelayRepairAndBreakOff(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: weatherCall}, backend.Chunk{FinishReason: chat.FinishStop})
	rt.canComplete = false // the runtime's chat API: relay mode
	url, spans := otelGateway(t, Config{}, rt)
	if status := answered(t, post(t, url+"/v1/chat/completions", chatBody(""))); status != 200 {
		t.Fatalf("status %d", status)
	}
	got := spans()
	root := spanNamed(t, got, "chat qwen")
	a := attrs(root.Attributes)
	if a["dragoman.mode"] != "relay" || a["dragoman.calls.repaired"] != int64(1) || a["dragoman.calls"] != int64(1) {
		t.Errorf("relay request span: mode %v, repaired %v, calls %v", a["dragoman.mode"], a["dragoman.calls.repaired"], a["dragoman.calls"])
	}
	if ev := events(root, "dragoman.action"); len(ev) != 1 || ev[0]["dragoman.action"] != "call-from-content" {
		t.Errorf("action events %v", ev)
	}
	for _, s := range got {
		if s.Name == "dragoman.render" || s.Name == "dragoman.constrain" {
			t.Errorf("relay mode has a %s span", s.Name)
		}
	}
	// The relay's own call to the runtime is a chat.
	var upstream int
	for _, s := range got {
		if s.Name == "chat qwen" && s.SpanKind == oteltrace.SpanKindClient {
			upstream++
		}
	}
	if upstream != 1 {
		t.Errorf("%d runtime spans \"chat qwen\" of kind client, want 1", upstream)
	}

	// A break-off.
	cut := qwenRuntime(backend.Chunk{Text: "It is"})
	cut.err = errors.New("connection reset")
	url, spans = otelGateway(t, Config{}, cut)
	if status := answered(t, post(t, url+"/v1/chat/completions", chatBody(`"stream":true`))); status != 200 {
		t.Fatalf("status %d", status)
	}
	got = spans()
	for _, s := range got {
		if s.Name != "chat qwen" && s.Name != "text_completion qwen" {
			continue
		}
		a := attrs(s.Attributes)
		if s.Status.Code != codes.Error || a["error.type"] != "broke-off" {
			t.Errorf("%s (%v) after a break-off: status %v, error.type %v", s.Name, s.SpanKind, s.Status, a["error.type"])
		}
		if s.SpanKind == oteltrace.SpanKindServer {
			if !reflect.DeepEqual(a["gen_ai.response.finish_reasons"], []string{"error"}) {
				t.Errorf("finish reasons %v after a break-off", a["gen_ai.response.finish_reasons"])
			}
			if d := events(s, "dragoman.diagnostic"); len(d) != 1 || d[0]["dragoman.diagnostic.code"] != "upstream-cut" {
				t.Errorf("diagnostic events %v", d)
			}
		}
	}
}

// TestOTelOffByDefault: with no endpoint the export is off: no exporter,
// nothing for a request to do.
func TestOTelOffByDefault(t *testing.T) {
	s, err := New(Config{NoDiscover: true}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.otel != nil {
		t.Fatal("export on with no endpoint configured")
	}
	if where, _ := s.OTel(); where != "" {
		t.Errorf("OTel() = %q with the export off", where)
	}
}

// TestOTelNotSampled: a client's traceparent whose sampled flag is off is
// honoured: no spans.
func TestOTelNotSampled(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "Hi"}, backend.Chunk{FinishReason: chat.FinishStop})
	url, spans := otelGateway(t, Config{}, rt)
	answered(t, post(t, url+"/v1/chat/completions", chatBody(""), "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"))
	if got := spans(); len(got) != 0 {
		t.Errorf("%d spans of a request whose client did not sample it", len(got))
	}
}

// TestOTelFromEnv: the standard variables fill the config, over the file's.
func TestOTelFromEnv(t *testing.T) {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":                        "http://collector:4318",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL":                 "grpc",
		"OTEL_EXPORTER_OTLP_PROTOCOL":                        "http/protobuf",
		"OTEL_EXPORTER_OTLP_HEADERS":                         "Authorization=Basic%20abc%3D, x-team = t1",
		"OTEL_SERVICE_NAME":                                  "gw",
		"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "TRUE",
	}
	c := OTelFromEnv(OTel{Endpoint: "http://file:4318", Headers: map[string]string{"x-file": "f"}}, func(k string) string { return env[k] })
	want := OTel{Endpoint: "http://collector:4318", Protocol: "grpc", ServiceName: "gw", CaptureContent: true,
		Headers: map[string]string{"x-file": "f", "Authorization": "Basic abc=", "x-team": "t1"}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("from the environment:\n got %+v\nwant %+v", c, want)
	}
	for _, off := range []map[string]string{{"OTEL_SDK_DISABLED": "true"}, {"OTEL_TRACES_EXPORTER": "none"}} {
		if c := OTelFromEnv(OTel{Endpoint: "http://file:4318"}, func(k string) string { return off[k] }); c.Enabled() {
			t.Errorf("%v leaves the export on", off)
		}
	}
	for v, on := range map[string]bool{"true": true, "span_only": true, "SPAN_AND_EVENT": true, "false": false, "NO_CONTENT": false, "event_only": false} {
		c := OTelFromEnv(OTel{CaptureContent: !on}, func(k string) string {
			if k == "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" {
				return v
			}
			return ""
		})
		if c.CaptureContent != on {
			t.Errorf("capture content %q: %v, want %v", v, c.CaptureContent, on)
		}
	}
}

// TestOTelTarget: where each configuration sends the spans.
func TestOTelTarget(t *testing.T) {
	for _, c := range []struct {
		cfg          OTel
		proto, where string
		err          string
	}{
		{cfg: OTel{Endpoint: "http://127.0.0.1:4318"}, proto: "http/protobuf", where: "http://127.0.0.1:4318/v1/traces"},
		{cfg: OTel{Endpoint: "https://cloud.langfuse.com/api/public/otel/"}, proto: "http/protobuf", where: "https://cloud.langfuse.com/api/public/otel/v1/traces"},
		{cfg: OTel{Endpoint: "http://a:4318", TracesEndpoint: "http://b:9/traces"}, proto: "http/protobuf", where: "http://b:9/traces"},
		{cfg: OTel{Endpoint: "http://127.0.0.1:4317", Protocol: "grpc"}, proto: "grpc", where: "http://127.0.0.1:4317"},
		{cfg: OTel{Endpoint: "127.0.0.1:4317", Protocol: "grpc", Insecure: true}, proto: "grpc", where: "127.0.0.1:4317"},
		{cfg: OTel{Endpoint: "127.0.0.1:4318"}, err: "want an http:// or https:// URL"},
		{cfg: OTel{Endpoint: "http://a", Protocol: "http/json"}, err: "http/json"},
		{cfg: OTel{Endpoint: "http://a", Protocol: "thrift"}, err: `protocol "thrift"`},
	} {
		proto, where, err := c.cfg.target()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: error %v, want one saying %q", c.cfg, err, c.err)
			}
			if _, nerr := New(Config{NoDiscover: true, OTel: c.cfg}, Hooks{}); nerr == nil {
				t.Errorf("%+v: New accepted it", c.cfg)
			}
			continue
		}
		if err != nil || proto != c.proto || where != c.where {
			t.Errorf("%+v: %s %s %v, want %s %s", c.cfg, proto, where, err, c.proto, c.where)
		}
	}
}

// TestOTelMakeup: with a trace store that writes (SQLite), which computes
// the prompt's make-up anyway, the render span carries it as an event; the
// memory ring computes it only when a trace is read, and the span has none.
func TestOTelMakeup(t *testing.T) {
	gguf := tinyModel(t)
	for _, db := range []bool{true, false} {
		rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
			models: map[string]backend.ModelInfo{"tiny": {GGUFPath: gguf, ContextLength: 40960}},
			script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop}}}
		cfg := Config{}
		if db {
			cfg.Traces.DB = t.TempDir() + "/traces.db"
		}
		url, spans := otelGateway(t, cfg, rt)
		body := `{"model":"tiny","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}],"tools":` + weatherTools + `}`
		if status := answered(t, post(t, url+"/v1/chat/completions", body)); status != 200 {
			t.Fatalf("status %d", status)
		}
		got := spans()
		render := spanNamed(t, got, "dragoman.render")
		mk := events(render, "dragoman.makeup")
		if !db {
			if len(mk) != 0 {
				t.Errorf("memory store: make-up events %v", mk)
			}
			continue
		}
		tokens := attrs(spanNamed(t, got, "chat tiny").Attributes)["gen_ai.usage.input_tokens"]
		if len(mk) != 1 || mk[0]["dragoman.makeup.total_tokens"] != tokens || mk[0]["dragoman.makeup.tools_tokens"].(int64) < 20 ||
			mk[0]["dragoman.makeup.tool_count"] != int64(1) || mk[0]["dragoman.makeup.system_tokens"].(int64) < 2 {
			t.Errorf("make-up events %v (prompt %v tokens)", mk, tokens)
		}
		if share := mk[0]["dragoman.makeup.tools_share"].(float64); share <= 0 || share >= 1 {
			t.Errorf("tools share %v", share)
		}
	}
}

// TestOTelAlias: the request span names the model the client asked for (an
// alias), the response model and the runtime's span the model that
// answered.
func TestOTelAlias(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "Hi"}, backend.Chunk{FinishReason: chat.FinishStop})
	url, spans := otelGateway(t, Config{Aliases: map[string]string{"fast": "qwen"}}, rt)
	if status := answered(t, post(t, url+"/v1/chat/completions", strings.Replace(chatBody(""), `"model":"qwen"`, `"model":"fast"`, 1))); status != 200 {
		t.Fatalf("status %d", status)
	}
	got := spans()
	a := attrs(spanNamed(t, got, "chat fast").Attributes)
	if a["gen_ai.request.model"] != "fast" || a["gen_ai.response.model"] != "qwen" {
		t.Errorf("request model %v, response model %v", a["gen_ai.request.model"], a["gen_ai.response.model"])
	}
	if up := attrs(spanNamed(t, got, "text_completion qwen").Attributes); up["gen_ai.request.model"] != "qwen" {
		t.Errorf("the runtime's span asks for %v", up["gen_ai.request.model"])
	}
}
