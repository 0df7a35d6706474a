package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/internal/jaegertest"
)

// serve takes the OpenTelemetry export from the standard OTEL_* variables,
// -otel-endpoint and -otel-capture-content over them; -check prints it with
// the headers (a backend's key) masked; a protocol the Go SDK cannot send
// is refused at start.
func TestServeOTelConfig(t *testing.T) {
	env := append(isolated(t.TempDir()), "OTEL_EXPORTER_OTLP_ENDPOINT=http://env-collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
		"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20secret", "OTEL_SERVICE_NAME=gw")
	check := func(args ...string) map[string]any {
		t.Helper()
		r := dragoman(t, "", env, append([]string{"serve", "-check", "-no-discover", "-no-store"}, args...)...)
		var out struct {
			Gateway struct {
				OTel map[string]any `json:"otel"`
			} `json:"gateway"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.status != 0 {
			t.Fatalf("status %d, stdout %q: %v (stderr %q)", r.status, r.stdout, err, r.stderr)
		}
		if strings.Contains(r.stdout, "secret") {
			t.Errorf("-check printed the header's value: %s", r.stdout)
		}
		return out.Gateway.OTel
	}
	got := check()
	want := map[string]any{"endpoint": "http://env-collector:4317", "protocol": "grpc", "service_name": "gw",
		"headers": map[string]any{"Authorization": "(set)"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("from the environment: %v, want %v", got, want)
	}
	got = check("-otel-endpoint", "http://flag:4317", "-otel-capture-content")
	if got["endpoint"] != "http://flag:4317" || got["capture_content"] != true {
		t.Errorf("with the flags: %v", got)
	}
	r := dragoman(t, "", append(env, "OTEL_EXPORTER_OTLP_PROTOCOL=http/json"), "serve", "-check", "-no-discover", "-no-store")
	if r.status != 2 || !strings.Contains(r.stderr, "http/json") {
		t.Errorf("http/json: status %d, stderr %q", r.status, r.stderr)
	}
	r = dragoman(t, "", append(env, "OTEL_SDK_DISABLED=true"), "serve", "-check", "-no-discover", "-no-store")
	if r.status != 0 || strings.Contains(r.stdout, `"endpoint"`) {
		t.Errorf("OTEL_SDK_DISABLED: status %d, stdout %q", r.status, r.stdout)
	}
}

// serve -otel-endpoint exports each request, and a SIGTERM sends the spans
// not sent yet before serve exits: a request answered just before the
// signal is in a real Jaeger ($DRAGOMAN_JAEGER) although the SDK's batch
// would have waited 5 s more.
func TestServeOTelFlushedOnExit(t *testing.T) {
	j := jaegertest.Start(t)
	cmd := exec.Command(binary(t), "serve", "-listen", "127.0.0.1:0", "-no-discover", "-no-store", "-log-format", "off", "-otel-endpoint", j.OTLPHTTP)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "OTEL_SERVICE_NAME=dragoman-serve-test", "OTEL_BSP_SCHEDULE_DELAY=600000")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var addr, lines string
	sc := bufio.NewScanner(stderr)
	for addr == "" && sc.Scan() {
		lines += sc.Text() + "\n"
		if _, rest, ok := strings.Cut(sc.Text(), "serving OpenAI, Anthropic and Ollama APIs on http://"); ok {
			addr, _, _ = strings.Cut(rest, " ")
		}
	}
	for sc.Scan() && !strings.Contains(lines, "OpenTelemetry") {
		lines += sc.Text() + "\n"
	}
	go io.Copy(io.Discard, stderr)
	if !strings.Contains(lines, "OpenTelemetry spans of each request exported over OTLP http/protobuf to "+j.OTLPHTTP+"/v1/traces") {
		t.Errorf("start-up lines:\n%s", lines)
	}
	since := time.Now().Add(-time.Minute)
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"nothing-served","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("X-Dragoman-Request-Id")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v", err)
	}
	spans := jaegertest.Poll(t, 30*time.Second, func(ctx context.Context) ([]jaegertest.Span, error) {
		return j.Find(ctx, "dragoman-serve-test", since, time.Now().Add(time.Minute))
	}, func(s []jaegertest.Span) bool { return len(s) > 0 })
	if len(spans) != 1 || spans[0].Name != "chat nothing-served" || spans[0].Attributes["dragoman.request.id"] != id ||
		spans[0].Attributes["gen_ai.provider.name"] != "dragoman" || spans[0].Attributes["http.response.status_code"] != int64(resp.StatusCode) {
		t.Errorf("spans after exit: %+v (request %s, status %d)", spans, id, resp.StatusCode)
	}
}
