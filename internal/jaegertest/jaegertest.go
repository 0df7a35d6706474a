// Package jaegertest gives tests a real Jaeger: the v2 binary (an
// OpenTelemetry collector with Jaeger's in-memory storage and query
// service) that .ci/jaeger.sh builds from the Go module proxy and
// $DRAGOMAN_JAEGER names, started on loopback ports of its own with a small
// config written for it, and read back through its query API
// (GET /api/v3/traces). Without the variable a test skips, saying why;
// with CI=true it fails.
package jaegertest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Env names the jaeger binary.
const Env = "DRAGOMAN_JAEGER"

// Jaeger is a running Jaeger.
type Jaeger struct {
	// OTLPHTTP is its OTLP/HTTP receiver's base URL (http://127.0.0.1:PORT,
	// to which an exporter adds /v1/traces), OTLPGRPC its OTLP/gRPC
	// receiver's (http://127.0.0.1:PORT), Query its query service's.
	OTLPHTTP, OTLPGRPC, Query string

	cmd *exec.Cmd
	out *syncBuffer
}

// config is the collector configuration: OTLP in (HTTP and gRPC), Jaeger's
// memory storage, the query service, no telemetry of its own (its metrics
// would listen on a fixed port).
const config = `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memory_store:
        memory:
          max_traces: 100000
  jaeger_query:
    storage:
      traces: memory_store
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%d
      http:
        endpoint: 127.0.0.1:%d
exporters:
  jaeger_storage_exporter:
    trace_storage: memory_store
`

// Binary is $DRAGOMAN_JAEGER; without it the test skips (or, with
// CI=true, fails).
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(Env)
	if bin == "" {
		msg := Env + " is unset: the OpenTelemetry export's test needs a real Jaeger; .ci/jaeger.sh builds one from the Go module proxy and prints its path (scripts/test.sh exports it)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s=%s: %v", Env, bin, err)
	}
	return bin
}

// Start runs a Jaeger for the test, stopped when it ends; it returns once
// the query service answers (within a minute).
func Start(t testing.TB) *Jaeger {
	t.Helper()
	bin := Binary(t)
	ports := freePorts(t, 4)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "jaeger.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, config, ports[0], ports[1], ports[2], ports[3]), 0o644); err != nil {
		t.Fatal(err)
	}
	j := &Jaeger{Query: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), OTLPGRPC: fmt.Sprintf("http://127.0.0.1:%d", ports[2]),
		OTLPHTTP: fmt.Sprintf("http://127.0.0.1:%d", ports[3]), out: &syncBuffer{}}
	j.cmd = exec.Command(bin, "--config", cfg)
	j.cmd.Dir = dir
	j.cmd.Stdout, j.cmd.Stderr = j.out, j.out
	if err := j.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- j.cmd.Wait() }()
	t.Cleanup(func() {
		_ = j.cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("jaeger's output:\n%s", j.out.String())
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(j.Query + "/api/v3/services")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return j
			}
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("jaeger exited before it served (%v):\n%s", err, j.out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("jaeger's query service did not answer within a minute:\n%s", j.out.String())
		}
	}
}

// freePorts are n loopback ports free a moment ago.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	for _, ln := range lns {
		ln.Close()
	}
	return ports
}

// Span is a span as Jaeger stored it.
type Span struct {
	Service              string
	TraceID, SpanID      string // hex
	ParentSpanID         string // hex; "" for a root
	Name                 string
	Kind                 string // SPAN_KIND_SERVER, SPAN_KIND_CLIENT, SPAN_KIND_INTERNAL
	Start, End           time.Time
	Attributes           map[string]any // string, int64, float64, bool, []any
	Events               []Event
	StatusCode           string // STATUS_CODE_ERROR, …; "" unset
	StatusMessage        string
	ScopeName, SchemaURL string
}

// Event is a span event.
type Event struct {
	Name       string
	Attributes map[string]any
}

// Trace is the trace with id (hex), as the query API returns it; nil (and
// no error) while Jaeger has none of it.
func (j *Jaeger) Trace(ctx context.Context, id string) ([]Span, error) {
	return j.get(ctx, j.Query+"/api/v3/traces/"+id)
}

// Find is every span of the traces of service that started in [since,
// until].
func (j *Jaeger) Find(ctx context.Context, service string, since, until time.Time) ([]Span, error) {
	q := url.Values{"query.service_name": {service}, "query.start_time_min": {since.UTC().Format(time.RFC3339Nano)},
		"query.start_time_max": {until.UTC().Format(time.RFC3339Nano)}, "query.num_traces": {"1000"}}
	return j.get(ctx, j.Query+"/api/v3/traces?"+q.Encode())
}

// Poll calls get until ok holds for what it returns or the deadline
// passes (then the test fails, with the last spans seen).
func Poll(t testing.TB, within time.Duration, get func(ctx context.Context) ([]Span, error), ok func([]Span) bool) []Span {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var last []Span
	var lastErr error
	for {
		spans, err := get(ctx)
		if err == nil && ok(spans) {
			return spans
		}
		last, lastErr = spans, err
		select {
		case <-ctx.Done():
			var names []string
			for _, s := range last {
				names = append(names, s.Name)
			}
			t.Fatalf("jaeger did not have the spans within %s: last saw %d (%q), error %v", within, len(last), names, lastErr)
			return nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (j *Jaeger) get(ctx context.Context, u string) ([]Span, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, nil
	default:
		return nil, fmt.Errorf("GET %s: %s: %s", u, resp.Status, body)
	}
	return decode(body)
}

// decode reads the query API's answer: OTLP's JSON (ids in hex, 64-bit
// integers as strings) in a "result".
func decode(body []byte) ([]Span, error) {
	var doc struct {
		Result struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []kv `json:"attributes"`
				} `json:"resource"`
				ScopeSpans []struct {
					Scope struct {
						Name string `json:"name"`
					} `json:"scope"`
					SchemaURL string `json:"schemaUrl"`
					Spans     []struct {
						TraceID      string `json:"traceId"`
						SpanID       string `json:"spanId"`
						ParentSpanID string `json:"parentSpanId"`
						Name         string `json:"name"`
						Kind         any    `json:"kind"`
						Start        string `json:"startTimeUnixNano"`
						End          string `json:"endTimeUnixNano"`
						Attributes   []kv   `json:"attributes"`
						Events       []struct {
							Name       string `json:"name"`
							Attributes []kv   `json:"attributes"`
						} `json:"events"`
						Status struct {
							Code    any    `json:"code"`
							Message string `json:"message"`
						} `json:"status"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the query API's answer: %v: %.300s", err, body)
	}
	var out []Span
	for _, rs := range doc.Result.ResourceSpans {
		service, _ := attributes(rs.Resource.Attributes)["service.name"].(string)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := Span{Service: service, TraceID: hexID(s.TraceID), SpanID: hexID(s.SpanID), ParentSpanID: hexID(s.ParentSpanID),
					Name: s.Name, Kind: enumName(s.Kind, "SPAN_KIND_", []string{"UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"}),
					Start: unixNano(s.Start), End: unixNano(s.End), Attributes: attributes(s.Attributes),
					StatusCode: enumName(s.Status.Code, "STATUS_CODE_", []string{"UNSET", "OK", "ERROR"}), StatusMessage: s.Status.Message,
					ScopeName: ss.Scope.Name, SchemaURL: ss.SchemaURL}
				if sp.StatusCode == "STATUS_CODE_UNSET" {
					sp.StatusCode = ""
				}
				for _, e := range s.Events {
					sp.Events = append(sp.Events, Event{Name: e.Name, Attributes: attributes(e.Attributes)})
				}
				out = append(out, sp)
			}
		}
	}
	return out, nil
}

// kv is an OTLP attribute.
type kv struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

func attributes(kvs []kv) map[string]any {
	m := map[string]any{}
	for _, a := range kvs {
		m[a.Key] = value(a.Value)
	}
	return m
}

// value is an OTLP AnyValue as Go: string, int64, float64, bool or []any.
func value(raw json.RawMessage) any {
	var v struct {
		String *string          `json:"stringValue"`
		Int    *json.RawMessage `json:"intValue"`
		Double *float64         `json:"doubleValue"`
		Bool   *bool            `json:"boolValue"`
		Array  *struct {
			Values []json.RawMessage `json:"values"`
		} `json:"arrayValue"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	switch {
	case v.String != nil:
		return *v.String
	case v.Int != nil:
		var s string
		if json.Unmarshal(*v.Int, &s) != nil {
			s = string(*v.Int)
		}
		n, _ := strconv.ParseInt(s, 10, 64)
		return n
	case v.Double != nil:
		return *v.Double
	case v.Bool != nil:
		return *v.Bool
	case v.Array != nil:
		out := []any{}
		for _, e := range v.Array.Values {
			out = append(out, value(e))
		}
		return out
	}
	return nil
}

// hexID is an id as hex, whether the JSON gave it in hex (OTLP's JSON
// encoding) or base64 (protobuf's default for bytes).
func hexID(s string) string {
	if s == "" {
		return ""
	}
	if _, err := hex.DecodeString(s); err == nil && (len(s) == 16 || len(s) == 32) {
		return s
	}
	var b []byte
	if json.Unmarshal([]byte(strconv.Quote(s)), &b) == nil {
		return hex.EncodeToString(b)
	}
	return s
}

// enumName is an enum that the JSON gave by name or number, by name.
func enumName(v any, prefix string, names []string) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		if int(x) >= 0 && int(x) < len(names) {
			return prefix + names[int(x)]
		}
	case nil:
		return prefix + names[0]
	}
	return fmt.Sprint(v)
}

func unixNano(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// syncBuffer is a bytes.Buffer safe for the process's writes and the
// test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
