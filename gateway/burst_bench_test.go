package gateway

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// countingListener counts the writes made on the connections it accepts.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return countingConn{Conn: c, writes: l.writes}, err
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

// BenchmarkBurst: a streamed answer of 32 chunks that the runtime has sent
// at once (a fast runtime, or a gateway fallen behind), through the whole
// gateway over loopback, flushing every event (before) against one write per
// burst; and the same answer arriving one chunk at a time, where both write
// each event. writes/op counts the gateway's writes to the client's
// connection.
func BenchmarkBurst(b *testing.B) {
	chunks := func() []backend.Chunk {
		out := make([]backend.Chunk, 0, 33)
		for i := range 32 {
			out = append(out, backend.Chunk{Text: strings.Repeat("w", 1+i%7) + " "})
		}
		return append(out, backend.Chunk{FinishReason: chat.FinishStop})
	}
	for _, c := range []struct {
		name      string
		eachEvent bool
		oneByOne  bool
	}{
		{"burst/flush each event", true, false},
		{"burst/one write per burst", false, false},
		{"one by one/flush each event", true, true},
		{"one by one/one write per burst", false, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			rt := qwenRuntime()
			rt.streamOf = func(ctx context.Context) backend.Stream {
				all := chunks()
				bursts := [][]backend.Chunk{all}
				if c.oneByOne {
					bursts = nil
					for _, ch := range all {
						bursts = append(bursts, []backend.Chunk{ch})
					}
				}
				proceed := make(chan struct{})
				close(proceed) // the next chunk is there as soon as asked for
				return &burstStream{ctx: ctx, bursts: bursts, proceed: proceed}
			}
			s, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: rt.url}}, Traces: Traces{Memory: true}},
				Hooks{Connect: func(context.Context, Upstream) (backend.Backend, error) { return rt, nil }})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			s.flushEachEvent = c.eachEvent
			var writes atomic.Int64
			ts := httptest.NewUnstartedServer(s)
			ts.Listener = countingListener{Listener: ts.Listener, writes: &writes}
			ts.Start()
			defer ts.Close()
			body := `{"model":"qwen","stream":true,"messages":[{"role":"user","content":"Hi"}]}`
			var firstToken time.Duration // summed: until the first text's event is read
			ask := func() {
				start := time.Now()
				resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				r := bufio.NewReader(resp.Body)
				for {
					line, err := r.ReadString('\n')
					if strings.Contains(line, `"content":"w`) {
						firstToken += time.Since(start)
						break
					}
					if err != nil {
						b.Fatalf("no text in the stream: %v", err)
					}
				}
				rest, _ := io.ReadAll(r)
				resp.Body.Close()
				if !strings.Contains(string(rest), "[DONE]") {
					b.Fatalf("no [DONE] in %q", rest)
				}
			}
			ask() // the model prepared
			writes.Store(0)
			firstToken = 0
			b.ResetTimer()
			for range b.N {
				ask()
			}
			b.StopTimer()
			b.ReportMetric(float64(writes.Load())/float64(b.N), "writes/op")
			b.ReportMetric(float64(firstToken.Microseconds())/float64(b.N), "µs-to-first-token")
		})
	}
}
