package gateway

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/internal/jaegertest"
)

// TestOTelThroughJaeger sends requests through two gateways exporting to a
// real Jaeger ($DRAGOMAN_JAEGER, built by .ci/jaeger.sh) — one over
// OTLP/HTTP without content, one over OTLP/gRPC with content capture — and
// reads the traces back through Jaeger's query API: the span tree, the
// GenAI attributes' values, the dragoman.* events, content only where it
// was opted in, and a client's traceparent honoured (its trace id, its span
// as the parent).
func TestOTelThroughJaeger(t *testing.T) {
	j := jaegertest.Start(t)
	script := []backend.Chunk{{Text: "Checking. " + weatherCall[:20]}, {Text: weatherCall[20:]},
		{FinishReason: chat.FinishStop, Usage: &chat.Usage{PromptTokens: 40, CompletionTokens: 20},
			Timings: &backend.Timings{PromptTokens: 40, PromptMS: 8, GeneratedTokens: 20, GenerateMS: 40}}}
	plainRT := qwenRuntime(script...)
	plainURL, plain := otelServer(t, Config{OTel: OTel{Endpoint: j.OTLPHTTP, ServiceName: "dragoman-plain"}}, nil, plainRT)
	contentRT := qwenRuntime(script...)
	contentURL, content := otelServer(t, Config{OTel: OTel{Endpoint: j.OTLPGRPC, Protocol: "grpc", ServiceName: "dragoman-content", CaptureContent: true}}, nil, contentRT)
	if where, _ := plain.OTel(); where != "http/protobuf to "+j.OTLPHTTP+"/v1/traces" {
		t.Errorf("plain gateway exports %s", where)
	}

	since := time.Now().Add(-time.Minute)
	// 1. A parsed call, no traceparent: a trace of the gateway's own.
	resp := post(t, plainURL+"/v1/chat/completions", chatBody(`"temperature":0.25,"max_tokens":300`))
	if answered(t, resp) != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	ownID := resp.Header.Get("X-Dragoman-Request-Id")
	// 2. The same with a client's traceparent.
	const clientTrace, clientSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	resp = post(t, plainURL+"/v1/chat/completions", chatBody(`"stream":true`), "traceparent", "00-"+clientTrace+"-"+clientSpan+"-01")
	if answered(t, resp) != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	tracedID := resp.Header.Get("X-Dragoman-Request-Id")
	// 3. Content captured, over gRPC.
	const contentTrace = "5b8efff798038103d269b633813fc60c"
	resp = post(t, contentURL+"/v1/chat/completions", chatBody(""), "traceparent", "00-"+contentTrace+"-eee19b7ec3c1b174-01")
	if answered(t, resp) != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for _, s := range []*Server{plain, content} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := s.FlushSpans(ctx); err != nil {
			t.Fatalf("flushing: %v", err)
		}
		cancel()
	}
	const within = 30 * time.Second
	complete := func(spans []jaegertest.Span) bool { return len(spans) == 5 }

	// The client's trace: the gateway's spans in it, under the client's span.
	traced := jaegertest.Poll(t, within, func(ctx context.Context) ([]jaegertest.Span, error) { return j.Trace(ctx, clientTrace) }, complete)
	root := checkTree(t, "traced", traced)
	if root.TraceID != clientTrace || root.ParentSpanID != clientSpan {
		t.Errorf("traced: the request span is in trace %s under %s, want the client's %s under %s", root.TraceID, root.ParentSpanID, clientTrace, clientSpan)
	}
	if root.Attributes["dragoman.request.id"] != tracedID || root.Attributes["gen_ai.request.stream"] != true {
		t.Errorf("traced: request id %v, stream %v", root.Attributes["dragoman.request.id"], root.Attributes["gen_ai.request.stream"])
	}

	// The request without a traceparent: a root span of its own trace.
	var own []jaegertest.Span
	jaegertest.Poll(t, within, func(ctx context.Context) ([]jaegertest.Span, error) {
		return j.Find(ctx, "dragoman-plain", since, time.Now().Add(time.Minute))
	}, func(spans []jaegertest.Span) bool {
		own = nil
		for _, s := range spans {
			if s.Attributes["dragoman.request.id"] == ownID {
				own = spansOf(spans, s.TraceID)
			}
		}
		return len(own) == 5
	})
	root = checkTree(t, "own", own)
	if root.ParentSpanID != "" || root.TraceID == clientTrace || root.Service != "dragoman-plain" {
		t.Errorf("own: the request span has parent %q in trace %s (service %s), want a root of a new trace", root.ParentSpanID, root.TraceID, root.Service)
	}
	a := root.Attributes
	want := map[string]any{
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "ollama", "gen_ai.request.model": "qwen", "gen_ai.response.model": "qwen",
		"gen_ai.response.id": ownID, "gen_ai.response.finish_reasons": []any{"tool_calls"},
		"gen_ai.usage.input_tokens": int64(40), "gen_ai.usage.output_tokens": int64(20),
		"gen_ai.request.temperature": 0.25, "gen_ai.request.max_tokens": int64(300),
		"http.response.status_code": int64(200), "http.route": "/v1/chat/completions",
		"dragoman.request.id": ownID, "dragoman.api": "openai", "dragoman.mode": "own", "dragoman.format": "hermes",
		"dragoman.template.origin": "fake runtime", "dragoman.runtime": "ollama", "dragoman.calls": int64(1),
		"dragoman.calls.left_as_text": int64(0), "dragoman.diagnostics": int64(0), "dragoman.truncated": false,
	}
	for k, v := range want {
		if !reflect.DeepEqual(a[k], v) {
			t.Errorf("own: %s = %#v, want %#v", k, a[k], v)
		}
	}
	if root.ScopeName != otelTracerName { // (Jaeger's storage keeps no schema URL: TestOTelSpans checks it)
		t.Errorf("own: scope %q", root.ScopeName)
	}
	var calls, decisions int
	for _, e := range root.Events {
		switch e.Name {
		case "dragoman.call":
			calls++
			if e.Attributes["gen_ai.tool.name"] != "get_weather" {
				t.Errorf("own: call event %v", e.Attributes)
			}
		case "dragoman.decision":
			decisions++
		}
	}
	if calls != 1 || decisions == 0 {
		t.Errorf("own: %d call events, %d decision events", calls, decisions)
	}
	up := named(own, "text_completion qwen")
	if up.Kind != "SPAN_KIND_CLIENT" || up.Attributes["gen_ai.operation.name"] != "text_completion" ||
		up.Attributes["dragoman.upstream.prompt_ms"] != 8.0 || up.Attributes["dragoman.upstream.generate_tokens_per_s"] != 500.0 {
		t.Errorf("own: runtime span %s %v", up.Kind, up.Attributes)
	}
	for _, set := range [][]jaegertest.Span{own, traced} {
		for _, s := range set {
			for _, k := range contentKeys(s) {
				t.Errorf("%s in trace %s: content %s exported without capture", s.Name, s.TraceID, k)
			}
		}
	}

	// Content captured: the conversation, the tools, the answer, the
	// prompt and the raw completion.
	withContent := jaegertest.Poll(t, within, func(ctx context.Context) ([]jaegertest.Span, error) { return j.Trace(ctx, contentTrace) }, complete)
	root = checkTree(t, "content", withContent)
	if root.Service != "dragoman-content" {
		t.Errorf("content: service %q", root.Service)
	}
	var in, out []map[string]any
	for k, v := range map[string]*[]map[string]any{"gen_ai.input.messages": &in, "gen_ai.output.messages": &out} {
		s, _ := root.Attributes[k].(string)
		if err := json.Unmarshal([]byte(s), v); err != nil {
			t.Fatalf("content: %s = %q: %v", k, s, err)
		}
	}
	if len(in) != 1 || path(in[0], "parts", 0, "content") != "Weather in Paris?" {
		t.Errorf("content: input messages %v", in)
	}
	if len(out) != 1 || out[0]["finish_reason"] != "tool_call" || path(out[0], "parts", 0, "content") != "Checking." ||
		path(out[0], "parts", 1, "name") != "get_weather" || path(out[0], "parts", 1, "arguments", "city") != "Paris" {
		t.Errorf("content: output messages %v", out)
	}
	if d, _ := root.Attributes["gen_ai.tool.definitions"].(string); !strings.Contains(d, `"name":"get_weather"`) {
		t.Errorf("content: tool definitions %q", d)
	}
	if p, _ := named(withContent, "dragoman.render").Attributes["dragoman.prompt"].(string); !strings.Contains(p, "Weather in Paris?") {
		t.Errorf("content: render span's prompt %q", p)
	}
	if c := named(withContent, "dragoman.parse").Attributes["dragoman.completion"]; c != "Checking. "+weatherCall {
		t.Errorf("content: parse span's completion %q", c)
	}
}

// checkTree checks one request's spans as Jaeger has them: the request
// span "chat qwen" (server) and its four children in the same trace —
// render, constrain, the runtime's request (client) and parse — each
// within the request's time; it returns the request span.
func checkTree(t *testing.T, what string, spans []jaegertest.Span) jaegertest.Span {
	t.Helper()
	root := named(spans, "chat qwen")
	if root.Kind != "SPAN_KIND_SERVER" {
		t.Fatalf("%s: no server span \"chat qwen\" among %d spans", what, len(spans))
	}
	for _, name := range []string{"dragoman.render", "dragoman.constrain", "text_completion qwen", "dragoman.parse"} {
		s := named(spans, name)
		switch {
		case s.Name == "":
			t.Errorf("%s: no span %q", what, name)
		case s.ParentSpanID != root.SpanID || s.TraceID != root.TraceID:
			t.Errorf("%s: %s is under %s in trace %s, want the request span %s", what, name, s.ParentSpanID, s.TraceID, root.SpanID)
		case s.Start.Before(root.Start) || s.End.After(root.End):
			t.Errorf("%s: %s runs %v–%v, outside the request's %v–%v", what, name, s.Start, s.End, root.Start, root.End)
		}
	}
	return root
}

// named is the span of that name ("chat …": the server's).
func named(spans []jaegertest.Span, name string) jaegertest.Span {
	for _, s := range spans {
		if s.Name == name && (!strings.HasPrefix(name, "chat ") || s.Kind == "SPAN_KIND_SERVER") {
			return s
		}
	}
	return jaegertest.Span{}
}

func spansOf(spans []jaegertest.Span, traceID string) []jaegertest.Span {
	var out []jaegertest.Span
	for _, s := range spans {
		if s.TraceID == traceID {
			out = append(out, s)
		}
	}
	return out
}

// contentKeys are the content attributes a span (or its events) carries.
func contentKeys(s jaegertest.Span) []string {
	var out []string
	for _, k := range []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.definitions", "dragoman.prompt", "dragoman.completion"} {
		if _, ok := s.Attributes[k]; ok {
			out = append(out, k)
		}
	}
	for _, e := range s.Events {
		if _, ok := e.Attributes["gen_ai.tool.call.arguments"]; ok {
			out = append(out, e.Name+": gen_ai.tool.call.arguments")
		}
	}
	return out
}
