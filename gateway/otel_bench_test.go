//go:build unix

package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// BenchmarkOTelCost is what the OpenTelemetry export costs a request, and
// the export and the SQLite trace store together: five gateways in this
// process, each behind an HTTP server with the same scripted runtime (own
// mode: render, generate, parse a call), asked in turns, the order
// rotating round by round, one request at a time —
//
//	off      traces in memory (-no-store), no export: both off
//	off2     the same again: a control, what two equal sides differ by
//	export   traces in memory, spans exported over OTLP/HTTP (protobuf)
//	sqlite   traces in an SQLite file, no export
//	both     an SQLite file and the export
//
// The spans go to an OTLP/HTTP sink in this process, which reads each
// export and answers 200, as a collector would (it decodes nothing). It
// reports each side's latency at p50 and p90 and the process's CPU time per
// request (client, runtime, gateway, the span builder, the SDK's exporter,
// the sink and the store's writer together: the differences are what
// the export and the store cost), the spans and traces flushed before each
// round's CPU is read.
//
//	go test ./gateway -run XXX -bench BenchmarkOTelCost -benchtime 6000x
func BenchmarkOTelCost(b *testing.B) {
	var exported atomic.Int64
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		exported.Add(n)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer sink.Close()
	call := "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	script := []backend.Chunk{{Text: "Let me check. "}, {Text: call[:20]}, {Text: call[20:]}, {FinishReason: chat.FinishStop}}
	type side struct {
		name    string
		s       *Server
		url     string
		lat     []time.Duration
		cpu     time.Duration
		n       int
		cleanup func()
	}
	var sides []*side
	for _, name := range []string{"off", "export", "sqlite", "both", "off2"} {
		cfg := Config{}
		if name == "sqlite" || name == "both" {
			cfg.Traces.DB = filepath.Join(b.TempDir(), "traces.db")
		}
		if name == "export" || name == "both" {
			cfg.OTel = OTel{Endpoint: sink.URL}
		}
		rt := qwenRuntime(script...)
		cfg.Upstreams = []Upstream{{URL: rt.url}}
		cfg.NoDiscover = true
		s, err := New(cfg, Hooks{Connect: func(ctx context.Context, u Upstream) (backend.Backend, error) { return rt, nil }})
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(s)
		sides = append(sides, &side{name: name, s: s, url: ts.URL, cleanup: func() { ts.Close(); s.Close() }})
	}
	defer func() {
		for _, sd := range sides {
			sd.cleanup()
		}
	}()
	flush := func(s *Server) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.FlushSpans(ctx); err != nil {
			b.Fatal(err)
		}
		s.FlushTraces()
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	body := chatBody(`"stream":true`)
	one := func(url string) time.Duration {
		start := time.Now()
		resp, err := client.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if resp.StatusCode != 200 || !strings.Contains(string(out), "get_weather") || !strings.Contains(string(out), "[DONE]") {
			b.Fatalf("%d %s", resp.StatusCode, out)
		}
		return d
	}
	for _, sd := range sides { // warm up: connections, the model's preparation
		for range 200 {
			one(sd.url)
		}
		flush(sd.s)
	}
	if exported.Load() == 0 {
		b.Fatal("the sink received no spans")
	}
	const rounds = 12
	per := max(1, b.N/rounds)
	b.ResetTimer()
	for r := range rounds {
		for k := range sides {
			sd := sides[(r+k)%len(sides)]
			c0 := cpuTime()
			for range per {
				sd.lat = append(sd.lat, one(sd.url))
			}
			flush(sd.s)
			sd.cpu += cpuTime() - c0
			sd.n += per
		}
	}
	b.StopTimer()
	for _, sd := range sides {
		slices.Sort(sd.lat)
		b.ReportMetric(float64(sd.lat[len(sd.lat)/2].Microseconds()), sd.name+"-p50-µs")
		b.ReportMetric(float64(sd.lat[len(sd.lat)*9/10].Microseconds()), sd.name+"-p90-µs")
		b.ReportMetric(float64(sd.cpu.Microseconds())/float64(sd.n), sd.name+"-cpu-µs/req")
	}
	b.ReportMetric(float64(exported.Load())/float64(2*(200+b.N)), "otlp-bytes/req") // two sides export
	b.ReportMetric(0, "ns/op")
}
