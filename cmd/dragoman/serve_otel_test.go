package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
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
