//go:build unix

package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/internal/pgtest"
)

// BenchmarkTraceStoreCost is what the trace store costs a request: gateways
// in this process, one keeping its traces in an SQLite file, one in a
// PostgreSQL database (where $DRAGOMAN_POSTGRES names a server: a schema
// of its own) and two in memory (-no-store; the second a control: what two
// equal sides differ by on this machine), each behind an HTTP server with
// the same scripted runtime (own mode: render, generate, parse a call),
// asked in turns, the order rotating round by round, one request at a
// time. It reports each side's latency at p50 and p90, the process's CPU
// time per request (client, gateway and writer goroutine together: the
// difference is the store's), the writer's work flushed before each
// round's CPU is read, and the PostgreSQL server's CPU time per request
// during each side's rounds (its processes', from /proc: on the other
// sides what the idle server spends, a control).
//
//	go test ./gateway -run XXX -bench BenchmarkTraceStoreCost -benchtime 2000x
func BenchmarkTraceStoreCost(b *testing.B) {
	call := "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	script := []backend.Chunk{{Text: "Let me check. "}, {Text: call[:20]}, {Text: call[20:]}, {FinishReason: chat.FinishStop}}
	type side struct {
		name    string
		s       *Server
		url     string
		lat     []time.Duration
		cpu     time.Duration
		server  time.Duration // the PostgreSQL server's, during this side's rounds
		n       int
		cleanup func()
	}
	var sides []*side
	names := []string{"memory", "sqlite", "memory2"}
	if os.Getenv(pgtest.Env) != "" {
		names = []string{"memory", "sqlite", "postgres", "memory2"}
	} else {
		b.Log(pgtest.Env + " is unset: no PostgreSQL side")
	}
	for _, name := range names {
		cfg := Config{}
		switch name {
		case "sqlite":
			cfg.Traces.DB = filepath.Join(b.TempDir(), "traces.db")
		case "postgres":
			cfg.Traces.DB = pgtest.Schema(b)
		}
		rt := qwenRuntime(script...)
		cfg.Upstreams = []Upstream{{URL: rt.url}}
		cfg.NoDiscover = true
		s, err := New(cfg, Hooks{Connect: func(ctx context.Context, u Upstream) (backend.Backend, error) { return rt, nil }})
		if err != nil {
			b.Fatal(err)
		}
		if _, failed := s.TraceStore(); failed != nil {
			b.Fatal(failed)
		}
		ts := httptest.NewServer(s)
		sides = append(sides, &side{name: name, s: s, url: ts.URL, cleanup: func() { ts.Close(); s.Close() }})
	}
	defer func() {
		for _, sd := range sides {
			sd.cleanup()
		}
	}()
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
		sd.s.FlushTraces()
	}
	const rounds = 12
	per := max(1, b.N/rounds)
	b.ResetTimer()
	for r := range rounds {
		for k := range sides {
			sd := sides[(r+k)%len(sides)]
			c0, s0 := cpuTime(), pgtest.CPU()
			for range per {
				sd.lat = append(sd.lat, one(sd.url))
			}
			sd.s.FlushTraces()
			sd.cpu += cpuTime() - c0
			sd.server += pgtest.CPU() - s0
			sd.n += per
		}
	}
	b.StopTimer()
	for _, sd := range sides {
		slices.Sort(sd.lat)
		b.ReportMetric(float64(sd.lat[len(sd.lat)/2].Microseconds()), sd.name+"-p50-µs")
		b.ReportMetric(float64(sd.lat[len(sd.lat)*9/10].Microseconds()), sd.name+"-p90-µs")
		b.ReportMetric(float64(sd.cpu.Microseconds())/float64(sd.n), sd.name+"-cpu-µs/req")
		if len(names) > 3 {
			b.ReportMetric(float64(sd.server.Microseconds())/float64(sd.n), sd.name+"-pgserver-cpu-µs/req")
		}
	}
	b.ReportMetric(0, "ns/op")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
